"""Generic retrograde analysis for win/draw/loss games with cycles (degree counting).

Any game feeds this kernel with arrays; it knows nothing about boards.

Positions of one table are numbered 0..M-1.  For each position the game supplies:

``valid``        int8[M]     1 if the index is a real, canonical position (0: skip it).
``child``        int32[M, W] distinct in-table children (canonical indices), ``deg[i]`` used.
``child_move``   int16[M, W] a move code leading to that child (game-defined, >= 0).
``deg``          int8[M]     number of distinct in-table children.
``ext_loss_min`` int16[M]    smallest distance of an already-solved child (another table,
                             e.g. after a capture) that is LOST for its mover; NO_EXT if none.
``ext_loss_move``int16[M]    a move reaching that child.
``ext_win_max``  int16[M]    largest distance of an already-solved child that is WON; -1 if none.
``ext_win_move`` int16[M]    a move reaching that child.
``ext_draw_move``int16[M]    a move to an already-solved DRAWN child; -1 if none.

The rules of the value: a position is won if some child is lost (as short as possible: 1 + the
smallest lost child's distance), lost if every child is won (as long as possible: 1 + the largest
won child's distance; 0 with no move at all), and drawn otherwise.

Output: ``result`` int8[M] (WIN/DRAW/LOSS, or INVALID where ``valid`` is 0), ``distance``
int16[M] (plies; 0 for draws) and ``best_move`` int16[M] (-1 when there is no move).
"""
import numpy as np
from numba import njit, prange

WIN = np.int8(1)
DRAW = np.int8(0)
LOSS = np.int8(-1)
INVALID = np.int8(-2)
UNKNOWN = np.int8(2)  # only while solving; whatever stays unknown is a draw
NO_EXT = np.int16(32767)


@njit(cache=True)
def _reverse_edges(valid, child, deg):
    """Predecessor lists (CSR) of the in-table child graph: pred[off[c]:off[c+1]]."""
    m = valid.shape[0]
    count = np.zeros(m + 1, np.int64)
    for i in range(m):
        if valid[i]:
            for e in range(deg[i]):
                count[child[i, e] + 1] += 1
    for i in range(m):
        count[i + 1] += count[i]
    fill = count[:-1].copy()
    pred = np.empty(count[m], np.int32)
    for i in range(m):
        if valid[i]:
            for e in range(deg[i]):
                c = child[i, e]
                pred[fill[c]] = i
                fill[c] += 1
    return count, pred


@njit(cache=True)
def _retrograde(valid, child, deg, ext_loss_min, ext_win_max, ext_has_draw):
    """Degree-counting retrograde solve, processed in order of increasing distance.

    Buckets are linked lists (``head[level]``, ``nxt[position]``): a position enters the bucket
    of its final distance exactly once, at the moment its value becomes certain, and its
    predecessors are updated when that bucket is processed.  Processing levels in increasing
    order is what makes wins shortest and losses longest: a predecessor is declared won by the
    first lost child it hears of, and lost only when its last child is known won (the largest
    in-table win distance is then the current level; external wins may push the loss later,
    which is why a loss can be scheduled for a later bucket).
    """
    m = valid.shape[0]
    off, pred = _reverse_edges(valid, child, deg)
    result = np.full(m, UNKNOWN, np.int8)
    distance = np.zeros(m, np.int16)
    remaining = deg.astype(np.int16)

    max_ext = 0
    for i in range(m):
        if valid[i]:
            if ext_loss_min[i] != NO_EXT and ext_loss_min[i] + 1 > max_ext:
                max_ext = ext_loss_min[i] + 1
            if ext_win_max[i] + 1 > max_ext:
                max_ext = ext_win_max[i] + 1
    # A bucket beyond max_ext only ever receives level n + 1 from level n, so the number of
    # levels is bounded by max_ext + (number of positions) + 2.
    nlev = max_ext + m + 2
    head = np.full(nlev, -1, np.int32)
    nxt = np.full(m, -1, np.int32)

    # Wins coming from already-solved children, sorted by level (counting sort).
    wcount = np.zeros(max_ext + 2, np.int64)
    for i in range(m):
        if valid[i] and ext_loss_min[i] != NO_EXT:
            wcount[ext_loss_min[i] + 2] += 1
    for lv in range(max_ext + 1):
        wcount[lv + 1] += wcount[lv]
    wfill = wcount[:-1].copy()
    wlist = np.empty(wcount[max_ext + 1], np.int32)
    for i in range(m):
        if valid[i] and ext_loss_min[i] != NO_EXT:
            lv = ext_loss_min[i] + 1
            wlist[wfill[lv]] = i
            wfill[lv] += 1

    result[valid == 0] = INVALID
    top = 0
    for i in range(m):
        if valid[i] and deg[i] == 0 and ext_loss_min[i] == NO_EXT and not ext_has_draw[i]:
            # every move (if any) leads to an already-solved won child: lost now
            lv = ext_win_max[i] + 1  # 0 when there is no move at all
            result[i] = LOSS
            distance[i] = lv
            nxt[i] = head[lv]
            head[lv] = i
            if lv > top:
                top = lv

    n = 0
    while n <= top or n <= max_ext:
        if n <= max_ext:
            for w in range(wcount[n], wcount[n + 1]):
                i = wlist[w]
                if result[i] == UNKNOWN:
                    result[i] = WIN
                    distance[i] = n
                    nxt[i] = head[n]
                    head[n] = i
        c = head[n]
        while c >= 0:
            lost = result[c] == LOSS
            for e in range(off[c], off[c + 1]):
                p = pred[e]
                if result[p] != UNKNOWN:
                    continue
                if lost:
                    result[p] = WIN
                    distance[p] = n + 1
                    nxt[p] = head[n + 1]
                    head[n + 1] = p
                    if n + 1 > top:
                        top = n + 1
                else:
                    remaining[p] -= 1
                    if remaining[p] == 0 and ext_loss_min[p] == NO_EXT and not ext_has_draw[p]:
                        lv = max(n + 1, ext_win_max[p] + 1)
                        result[p] = LOSS
                        distance[p] = lv
                        nxt[p] = head[lv]
                        head[lv] = p
                        if lv > top:
                            top = lv
            c = nxt[c]
        n += 1

    for i in range(m):
        if result[i] == UNKNOWN:
            result[i] = DRAW
    return result, distance


@njit(cache=True)
def _move_to(i, want, want_distance, result, distance, child, child_move, deg):
    """The first in-table move of position i to a child with result ``want`` (and distance
    ``want_distance``, unless that is -1), or -1."""
    for e in range(deg[i]):
        c = child[i, e]
        if result[c] == want and (want_distance < 0 or distance[c] == want_distance):
            return child_move[i, e]
    return np.int16(-1)


@njit(cache=True, parallel=True)
def _best_moves(result, distance, child, child_move, deg,
                ext_loss_min, ext_loss_move, ext_win_max, ext_win_move, ext_draw_move):
    """A move that realises each position's value (the first found in the game's move order)."""
    m = result.shape[0]
    best = np.full(m, -1, np.int16)
    for i in prange(m):
        r = result[i]
        d = distance[i]
        if r == WIN:
            if ext_loss_min[i] != NO_EXT and ext_loss_min[i] + 1 == d:
                best[i] = ext_loss_move[i]  # the quickest win is a capture
            else:
                best[i] = _move_to(i, LOSS, d - 1, result, distance, child, child_move, deg)
        elif r == LOSS and d > 0:
            if ext_win_max[i] + 1 == d:
                best[i] = ext_win_move[i]  # the longest resistance is a capture
            else:
                best[i] = _move_to(i, WIN, d - 1, result, distance, child, child_move, deg)
        elif r == DRAW:
            best[i] = _move_to(i, DRAW, -1, result, distance, child, child_move, deg)
            if best[i] < 0:
                best[i] = ext_draw_move[i]
    return best


def solve_wdl(valid, child, child_move, deg, ext_loss_min, ext_loss_move,
              ext_win_max, ext_win_move, ext_draw_move):
    """Solve one table from its edge arrays; returns (result, distance, best_move)."""
    ext_has_draw = ext_draw_move >= 0
    result, distance = _retrograde(valid, child, deg, ext_loss_min, ext_win_max, ext_has_draw)
    best = _best_moves(result, distance, child, child_move, deg,
                       ext_loss_min, ext_loss_move, ext_win_max, ext_win_move, ext_draw_move)
    return result, distance, best


@njit(cache=True, parallel=True)
def _check(valid, result, distance, child, deg, ext_loss_min, ext_win_max, ext_has_draw):
    """Re-derive each valid position's value from its children's stored values (one ply):
    returns a flag per position whose stored result or distance disagrees."""
    m = valid.shape[0]
    bad = np.zeros(m, np.bool_)
    for i in prange(m):
        if not valid[i]:
            continue
        min_loss = np.int32(ext_loss_min[i])
        max_win = np.int32(ext_win_max[i])
        any_draw = ext_has_draw[i]
        for e in range(deg[i]):
            c = child[i, e]
            if result[c] == LOSS:
                min_loss = min(min_loss, np.int32(distance[c]))
            elif result[c] == WIN:
                max_win = max(max_win, np.int32(distance[c]))
            else:
                any_draw = True
        if min_loss != NO_EXT:
            bad[i] = result[i] != WIN or distance[i] != min_loss + 1
        elif any_draw:
            bad[i] = result[i] != DRAW
        else:
            bad[i] = result[i] != LOSS or distance[i] != max_win + 1
    return bad


def check_wdl(valid, result, distance, child, child_move, deg, ext_loss_min, ext_loss_move,
              ext_win_max, ext_win_move, ext_draw_move):
    """Flags of the positions whose stored value one ply of moves contradicts."""
    return _check(valid, result, distance, child, deg, ext_loss_min, ext_win_max,
                  ext_draw_move >= 0)
