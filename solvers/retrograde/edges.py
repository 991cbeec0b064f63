"""Edges in memory (``pack_rows`` + ``reverse_edges`` + ``solve_graph`` + ``best_of_rows``):
every move's target (in-table child, or the value of a child outside the table) and code are
kept as a CSR list with the reverse of its in-table part; degree counting with buckets by
distance; best moves read from the same lists.  Fastest; 12 bytes per move.

A row of the edge list holds every move of a position in the game's order: its in-table child
(>= 0) or, for a move that leaves the table, its value packed as a negative number, so best
moves come from the same lists as the solve and the children are generated once.
"""
import numpy as np

from tbdb.solvers.jit import kernel, parallel_kernel, prange
from tbdb.solvers.retrograde.values import (DRAW, EXT_DRAW, LOSS, NO_EXT, UNKNOWN, WIN,
                                            add_child, realises)

EXT_BASE = 65536  # packed external child: -1 - ((result + 1) * EXT_BASE + distance)


@kernel
def _unpack_ext(t):
    """(result, distance) of a packed external child."""
    v = -1 - t
    return np.int8(v // EXT_BASE - 1), np.int16(v % EXT_BASE)


@parallel_kernel
def pack_rows(positions, count, child, move, ext_result, ext_distance, start, target, code,
               n_in, ext_loss_min, ext_win_max):
    """Copy a ``children`` batch into the flat edge list: row r fills target/code[start[r]:
    start[r] + count[r]] (in-table child or packed external value; move code); per position
    the number of in-table moves (repeats included), the smallest external loss distance
    (NO_EXT if none) and the largest external win distance (-1 if none, EXT_DRAW if an
    external child is drawn)."""
    for r in prange(positions.shape[0]):
        p = positions[r]
        at = start[r]
        m = 0
        lo = NO_EXT
        hi = np.int16(-1)
        drawn = False
        for e in range(count[r]):
            c = child[r, e]
            code[at + e] = move[r, e]
            if c >= 0:
                target[at + e] = c
                m += 1
                continue
            res = ext_result[r, e]
            d = ext_distance[r, e]
            target[at + e] = -1 - ((np.int32(res) + 1) * EXT_BASE + np.int32(d))
            lo, hi, drawn = add_child(res, d, lo, hi, drawn)
        n_in[p] = m
        ext_loss_min[p] = lo
        ext_win_max[p] = EXT_DRAW if drawn else hi


@kernel
def reverse_edges(size, off, target):
    """The in-table parents of every position as CSR (roff int64[size + 1], parent int32),
    one entry per move (a child reached by two moves lists its parent twice, as the
    degree counters count both)."""
    roff = np.zeros(size + 1, np.int64)
    for e in range(target.shape[0]):
        if target[e] >= 0:
            roff[target[e] + 1] += 1
    for i in range(size):
        roff[i + 1] += roff[i]
    fill = roff[:-1].copy()
    parent = np.empty(roff[size], np.int32)
    for p in range(size):
        for e in range(off[p], off[p + 1]):
            c = target[e]
            if c >= 0:
                parent[fill[c]] = p
                fill[c] += 1
    return roff, parent


@parallel_kernel
def best_of_rows(off, target, code, result, distance, best):
    """best[p] for every solved position: the first move of its row realising its value."""
    for p in prange(result.shape[0]):
        r = result[p]
        if r != WIN and r != LOSS and r != DRAW:
            continue
        d = distance[p]
        for e in range(off[p], off[p + 1]):
            t = target[e]
            if t >= 0:
                cr = result[t]
                cd = distance[t]
            else:
                cr, cd = _unpack_ext(t)
            if realises(r, d, cr, cd):
                best[p] = code[e]
                break


@kernel
def solve_graph(result, distance, remaining, roff, parent, ext_loss_min, ext_win_max):
    """Degree-counting retrograde solve in order of increasing distance.

    ``result`` comes in as UNKNOWN for real positions (NONE/ILLEGAL elsewhere, left alone);
    ``remaining`` (int32, used up) counts each position's in-table moves; ``ext_win_max`` holds
    EXT_DRAW where an external child is drawn.  Buckets are linked lists
    (``head[level]``, ``nxt[position]``): a position enters the bucket of its final distance
    once, when its value becomes certain, and its parents are updated when that bucket is
    processed.  Increasing levels make wins shortest and losses longest; an external win may
    push a loss to a later bucket.
    """
    m = result.shape[0]
    max_ext = 0
    for i in range(m):
        if result[i] == UNKNOWN:
            if ext_loss_min[i] != NO_EXT and ext_loss_min[i] + 1 > max_ext:
                max_ext = ext_loss_min[i] + 1
            if ext_win_max[i] + 1 > max_ext:
                max_ext = ext_win_max[i] + 1
    nlev = max_ext + m + 2  # a bucket beyond max_ext only receives level n + 1 from level n
    head = np.full(nlev, -1, np.int64)
    nxt = np.full(m, -1, np.int64)

    # wins from already-solved children, sorted by level (counting sort)
    wcount = np.zeros(max_ext + 2, np.int64)
    for i in range(m):
        if result[i] == UNKNOWN and ext_loss_min[i] != NO_EXT:
            wcount[ext_loss_min[i] + 2] += 1
    for lv in range(max_ext + 1):
        wcount[lv + 1] += wcount[lv]
    wfill = wcount[:-1].copy()
    wlist = np.empty(wcount[max_ext + 1], np.int64)
    for i in range(m):
        if result[i] == UNKNOWN and ext_loss_min[i] != NO_EXT:
            lv = ext_loss_min[i] + 1
            wlist[wfill[lv]] = i
            wfill[lv] += 1

    top = 0
    for i in range(m):
        if result[i] == UNKNOWN and remaining[i] == 0 and ext_loss_min[i] == NO_EXT \
                and ext_win_max[i] != EXT_DRAW:
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
            for e in range(roff[c], roff[c + 1]):
                p = parent[e]
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
                    if remaining[p] == 0 and ext_loss_min[p] == NO_EXT \
                            and ext_win_max[p] != EXT_DRAW:
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
            distance[i] = 0
