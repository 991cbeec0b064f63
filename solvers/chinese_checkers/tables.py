"""Two-player Chinese Checkers on the m x m rhombus: the retrograde space of a table.

Rules (after Sturtevant, "On Strongly Solving Chinese Checkers", ACG 2019): each player has
p pieces; a player wins when its goal (the opponent's start area) is full of pieces of any
colour with at least one of its own.  Move generation is in ``solvers.chinese_checkers.moves``.

The index (mover's frame, symmetries, slot layout, ``desc`` and the table arrays) is
``solvers.chinese_checkers.index``; these are the kernels of docs/kernel-contract.md over it.

**Slot kinds** (``_classify``), in this order: the mover already meets its own win condition:
ILLEGAL; with 6 pieces, a goal whose empty tip the other player walls in (``_walled``):
ILLEGAL; the opponent meets its win condition (it has just won): a terminal position, lost for
the mover at distance 0, with no moves.  A move into an
ILLEGAL position is not legal; a move into a terminal position is a win (the engine sees it as
an external child: LOSS at distance 0 for the opponent).

**Move codes** (int32): ``from * 128 + to`` in the stored (canonical) frame.
"""
import numpy as np

from tbdb.solvers.jit import kernel, parallel_kernel, prange
from tbdb.solvers.prefetch import prefetch
from tbdb.solvers.chinese_checkers.index import (count_below, count_less, decode, free_numbers,
                                                 insertion_base, mirrored, rank, rank_free,
                                                 rank_inserted, swap_base, turned)
from tbdb.solvers.chinese_checkers.moves import destinations, sort_small
from tbdb.solvers.retrograde.compact import unpacked
from tbdb.solvers.retrograde.rows import drop_repeated_parents, sorted_unique
from tbdb.solvers.retrograde.values import NONE, realises

NORMAL = 0
TERMINAL = 1  # the opponent has just won: lost for the mover, distance 0, no moves
ILLEGAL_KIND = np.int8(-2)
NONE_KIND = np.int8(-3)
LOSS = np.int8(-1)
MOVE_RADIX = 128


# A move's byte: the position's ``i``-th piece (of its mover's cells, ascending) moved to cell
# ``to``, ``i * ncell + to``.  Bytes order a position's moves as their codes do (pieces in
# ascending cell order, then destinations), and a byte is below 255 while pieces * cells is
# (every table but 7x7 with 6 pieces): a compact solve keeps a won position's best move in the
# byte its counter no longer needs (``solvers.retrograde.compact``).


@kernel
def move_byte(i, to, ncell):
    return i * ncell + to


@parallel_kernel
def moves_of_bytes(desc, class_rep, comb_a, comb_b, positions, bytes_, out):
    """out[r] = the move code (``from * MOVE_RADIX + to``) of the byte ``bytes_[r]`` of position
    ``positions[r]``."""
    ncell, k, cb = desc[0], desc[1], desc[2]
    n = positions.shape[0]
    nchunk = (n + ROWS - 1) // ROWS
    scratch = np.empty((nchunk, 2, 8), np.int64)
    for ch in prange(nchunk):
        a = scratch[ch, 0]
        b = scratch[ch, 1]
        for r in range(ch * ROWS, min(n, (ch + 1) * ROWS)):
            decode(positions[r], k, cb, class_rep, comb_a, comb_b, a, b)
            x = np.int64(bytes_[r])
            out[r] = a[x // ncell] * MOVE_RADIX + x % ncell
ROWS = 256  # positions per parallel chunk
SUMMARY, FULL, PICK = 0, 1, 2  # what ``children`` writes
# PICK ranks a position's moves this many at a time, prefetching their children's state words,
# then reads them: pick_best looked at 7 of 25 moves on average on 5x5-6, each read a cache miss
PICK_GROUP = 8


# --------------------------------------------------------------------------- rules

@kernel
def _tip_zone(nbr):
    """The cells ``_walled`` reads (both tips, their neighbours and the cells beyond): a move
    touching none of them leaves its answer as it was, so the move kernels check the rule
    again only for moves that do."""
    n = nbr.shape[0]
    zone = np.zeros(n, np.bool_)
    for tip in (0, n - 1):
        zone[tip] = True
        for d in range(6):
            a = nbr[tip, d]
            if a < 0:
                continue
            zone[a] = True
            b = nbr[a, d]
            if b >= 0:
                zone[b] = True
    return zone


@kernel
def _tip_walls(nbr):
    """int64[2, 13]: the 6-piece rule's two patterns as cell lists, in the mover's frame (value
    1 heads for the bottom tip, the last cell; value 2 for the top tip, cell 0), so a kernel
    tests one with a few loads instead of walking the neighbour table: row 0 for value 1's
    goal (walled by value 2), row 1 for value 2's (walled by value 1); entry 0 the tip (-2 if
    it can never be walled: a cell beyond is off the board), then the walling cells (the
    tip's neighbours and the next cell beyond each along the edges), -1 after them."""
    n = nbr.shape[0]
    walls = np.full((2, 13), -1, np.int64)
    for g in range(2):
        tip = n - 1 if g == 0 else 0
        walls[g, 0] = tip
        j = 1
        for d in range(6):
            a = nbr[tip, d]
            if a < 0:
                continue
            b = nbr[a, d]
            if b < 0:
                walls[g, 0] = -2
            walls[g, j] = a
            walls[g, j + 1] = b
            j += 2
    return walls


@kernel
def _walled(board, walls):
    """Is either goal's tip walled in by the other player (the 6-piece rule behind
    Sturtevant's counts: the tip empty, the other player on every cell of its ``_tip_walls``
    row)?"""
    for g in range(2):
        tip = walls[g, 0]
        if tip < 0 or board[tip] != 0:
            continue
        other = 2 - g
        j = 1
        while j < 13 and walls[g, j] >= 0 and board[walls[g, j]] == other:
            j += 1
        if j == 13 or walls[g, j] < 0:
            return True
    return False


@kernel
def _blocked_after(board, walls, zone, blocked_now, s, t, piece):
    """``_walled`` after ``piece`` moves from s to t (board restored), where ``blocked_now`` is
    its answer before the move: asked again only if the move touches the ``_tip_zone``."""
    if not (zone[s] or zone[t]):
        return blocked_now
    board[s] = 0
    board[t] = piece
    blocked = _walled(board, walls)
    board[t] = 0
    board[s] = piece
    return blocked


@kernel
def _classify(x, y, k, mover_is_x, in_goal, in_start, rule, board, walls):
    """NORMAL, TERMINAL or ILLEGAL_KIND for the position where x[:k] (board value 1) heads for
    G and y[:k] (board value 2) for S, with x to move if ``mover_is_x``.  ``board`` must hold
    the position when ``rule`` (the 6-piece blocking rule) is on.  The order of the checks is
    the rule's: the mover has won -> illegal; a blocked tip -> illegal; the other has won ->
    terminal."""
    x_in_g = 0
    y_in_g = 0
    y_in_s = 0
    x_in_s = 0
    for i in range(k):
        x_in_g += in_goal[x[i]]
        y_in_g += in_goal[y[i]]
        y_in_s += in_start[y[i]]
        x_in_s += in_start[x[i]]
    x_won = x_in_g > 0 and x_in_g + y_in_g == k
    y_won = y_in_s > 0 and y_in_s + x_in_s == k
    if x_won if mover_is_x else y_won:
        return ILLEGAL_KIND
    if rule and _walled(board, walls):
        return ILLEGAL_KIND
    if y_won if mover_is_x else x_won:
        return TERMINAL
    return NORMAL


# --------------------------------------------------------------------------- contract kernels

@parallel_kernel
def census(desc, nbr, mirror, in_goal, in_start, goal, start, binom, comb_a, comb_b,
            class_rep, mirror_rank, lo, hi):
    """kind int8[hi - lo] (0 a position, ILLEGAL -2, NONE -3) and multiplicity int16[hi - lo]
    (raw positions per slot: 4, or 2 for a position that is its own mirror image; 0 for NONE)."""
    ncell, k, cb, rule = desc[0], desc[1], desc[2], desc[3]
    n = hi - lo
    kind = np.empty(n, np.int8)
    mult = np.zeros(n, np.int16)
    nchunk = (n + 4095) // 4096
    iscr = np.empty((nchunk, 4, 8), np.int64)
    boards = np.zeros((nchunk, ncell), np.int8)
    walls = _tip_walls(nbr)
    for ch in prange(nchunk):
        a = iscr[ch, 0]
        b = iscr[ch, 1]
        tmp = iscr[ch, 2]
        board = boards[ch]
        for r in range(ch * 4096, min(n, (ch + 1) * 4096)):
            slot = lo + r
            decode(slot, k, cb, class_rep, comb_a, comb_b, a, b)
            ra = class_rep[slot // cb]
            own_image = False
            if mirror_rank[ra] == ra:
                for i in range(k):
                    tmp[i] = mirror[b[i]]
                sort_small(tmp, k)
                plain = rank_free(b, a, k, binom)
                image = rank_free(tmp, a, k, binom)
                if image < plain:
                    kind[r] = NONE_KIND
                    continue
                own_image = image == plain
            mult[r] = 2 if own_image else 4
            if rule:
                for i in range(k):
                    board[a[i]] = 1
                    board[b[i]] = 2
            kind[r] = _classify(a, b, k, True, in_goal, in_start, rule, board, walls)
            if kind[r] == TERMINAL:
                kind[r] = 0
            if rule:
                for i in range(k):
                    board[a[i]] = 0
                    board[b[i]] = 0
    return kind, mult


@kernel
def _counts(x, y, k, in_goal, in_start, out):
    """out[0..3] = x's pieces in G, y's in G, y's in S, x's in S."""
    out[0] = 0
    out[1] = 0
    out[2] = 0
    out[3] = 0
    for i in range(k):
        out[0] += in_goal[x[i]]
        out[1] += in_goal[y[i]]
        out[2] += in_start[y[i]]
        out[3] += in_start[x[i]]


@kernel
def _child_rank(flip, own_image, others, others_m, k, share, share_m, free, mirror, ncell, t,
                binom):
    """The rank, within its class block, of the child after a move to ``t`` (the moved
    piece's image among the opponent set, the mirror image when ``flip``, the smaller of the
    two when the mover set is its own image)."""
    if flip:
        return rank_inserted(others_m, k, share_m, free[mirror[ncell - 1 - t]], binom)
    child_rank = rank_inserted(others, k, share, free[ncell - 1 - t], binom)
    if own_image:
        child_rank = min(child_rank, rank_inserted(others_m, k, share_m,
                                                   free[mirror[ncell - 1 - t]], binom))
    return child_rank


@kernel
def _first_realising(state, top, pr, pd, codes, slots, n):
    """The first of n gathered moves (codes, child slots; -1 a winning move) whose child's
    value realises (pr, pd), or -1."""
    for e in range(n):
        c = slots[e]
        if c < 0:
            cr, cd = LOSS, 0
        else:
            cr, cd = unpacked(np.int64(state[c]), top)
        if realises(pr, pd, cr, cd):
            return codes[e]
    return -1


@parallel_kernel
def children(desc, nbr, mirror, in_goal, in_start, goal, start, binom, comb_a, comb_b,
              class_rep, class_of, mirror_rank, positions, count, child, move, ext_result,
              ext_distance, mode, win_move, state, top, lo, best):
    """Every legal move of each position (real slots), pieces in ascending cell order and
    destinations ascending: move[r, e] = from * 128 + to; child[r, e] the slot after the move,
    or -1 for a winning move (ext_result LOSS, ext_distance 0).  A terminal position has no
    moves (count 0).  Arrays: count int16[n], the others [n, W].

    ``mode`` FULL lists every move as above; SUMMARY gives the summary the edge-free solve
    starts from (``summaries``): win_move[r]
    the first winning move (-1 none; then nothing else is looked at and count[r] is 0), else
    count[r] the distinct in-table children; the other arrays are not written.  Two moves reach
    the same child only when it is its own mirror image (its mover set, B turned, is), so only
    then are child slots ranked (and sorted to drop repeats); otherwise a move is only checked
    for legality, which makes this pass much cheaper than the full one.  PICK writes only
    best[positions[r] - lo]: the first move, in the listing's order, whose child's value (read
    from the finished compact ``state`` words of largest value ``top``) realises the
    position's own, and stops there (``pick_best``: no rows written; moves are ranked
    ``PICK_GROUP`` at a time, their children's words prefetched before any is read, and no
    group past the best one is ranked; the other arrays are not written).

    The child is seen from the opponent: its mover set is this position's B turned 180 degrees
    (the same for every move, so its rank and mirror class are found once per position) and
    its opponent set is A after the move, turned."""
    ncell, k, cb, rule = desc[0], desc[1], desc[2], desc[3]
    n = positions.shape[0]
    nchunk = (n + ROWS - 1) // ROWS
    iscr = np.empty((nchunk, 11, 8), np.int64)
    boards = np.zeros((nchunk, ncell), np.int8)
    marks = np.zeros((nchunk, ncell), np.int32)
    stacks = np.empty((nchunk, 4, ncell), np.int64)
    pick = mode == PICK
    rowbufs = np.empty((nchunk, 2, child.shape[1] if mode == SUMMARY else 1), np.int64)
    pickbufs = np.empty((nchunk, 2, PICK_GROUP if pick else 1), np.int64)
    zone = _tip_zone(nbr)
    walls = _tip_walls(nbr)
    for ch in prange(nchunk):
        pcode = pickbufs[ch, 0]
        pslot = pickbufs[ch, 1]
        a = iscr[ch, 0]
        b = iscr[ch, 1]
        opb = iscr[ch, 2]
        mv = iscr[ch, 3]
        others = iscr[ch, 4]
        ref = iscr[ch, 5]
        others_m = iscr[ch, 6]
        cnt = iscr[ch, 7]
        mopb = iscr[ch, 8]
        share = iscr[ch, 9]
        share_m = iscr[ch, 10]
        board = boards[ch]
        mark = marks[ch]
        stack = stacks[ch, 0]
        dest = stacks[ch, 1]
        free = stacks[ch, 3]
        stamp = 0
        for r in range(ch * ROWS, min(n, (ch + 1) * ROWS)):
            decode(positions[r], k, cb, class_rep, comb_a, comb_b, a, b)
            _counts(a, b, k, in_goal, in_start, cnt)
            x_in_g, y_in_g, y_in_s, x_in_s = cnt[0], cnt[1], cnt[2], cnt[3]
            if mode == SUMMARY:
                win_move[r] = -1
            pr, pd = unpacked(np.int64(state[positions[r]]), top) if pick else (NONE, 0)
            if y_in_s > 0 and y_in_s + x_in_s == k:
                if not pick:
                    count[r] = 0  # the opponent has just won
                continue
            for i in range(k):
                board[a[i]] = 1
                board[b[i]] = 2
            blocked_now = rule and _walled(board, walls)
            turned(b, k, ncell, mv)
            rm = rank(mv, k, binom)
            rmm = mirror_rank[rm]
            flip = rm > rmm
            own_image = rm == rmm
            if flip:
                base = class_of[rmm] * cb
                for q in range(k):
                    ref[q] = comb_a[rmm, q]
            else:
                base = class_of[rm] * cb
                for q in range(k):
                    ref[q] = mv[q]
            ranked = mode != SUMMARY or own_image  # a summary ranks only to drop repeats
            if ranked:
                free_numbers(ref, k, ncell, free)
            # the child's opponent set is A turned (and mirrored when ``flip``) with one cell
            # replaced: keep both images of A sorted and replace in place of re-sorting
            turned(a, k, ncell, opb)
            mirrored(opb, k, mirror, mopb)
            e = 0
            nb = 0
            won_at = -1
            for i in range(k):
                s = a[i]
                si = k - 1 - i  # where s sits in opb
                ms = mirror[ncell - 1 - s]
                mi = 0
                while mopb[mi] != ms:
                    mi += 1
                stamp += 1
                nd = destinations(board, nbr, s, mark, stamp, stack, dest)
                if ranked and not flip:
                    insertion_base(opb, k, si, free, binom, others, share)
                if ranked and (flip or own_image):
                    insertion_base(mopb, k, mi, free, binom, others_m, share_m)
                for j in range(nd):
                    t = dest[j]
                    x_in_s2 = x_in_s - in_start[s] + in_start[t]
                    if y_in_s > 0 and y_in_s + x_in_s2 == k:
                        continue  # the opponent would have won already: illegal
                    x_in_g2 = x_in_g - in_goal[s] + in_goal[t]
                    won = x_in_g2 > 0 and x_in_g2 + y_in_g == k
                    if rule:  # before the win: a winning move into a blocked tip is illegal
                        if _blocked_after(board, walls, zone, blocked_now, s, t, 1):
                            continue
                    if mode == SUMMARY:
                        if won:
                            won_at = s * MOVE_RADIX + t
                            break
                        if own_image:
                            rowbufs[ch, 0, e] = base + min(
                                rank_inserted(others, k, share, free[ncell - 1 - t], binom),
                                rank_inserted(others_m, k, share_m, free[mirror[ncell - 1 - t]],
                                               binom))
                        e += 1
                        continue
                    if pick:  # gathered, their state words prefetched, read a group at once
                        if won:
                            pslot[nb] = -1
                        else:
                            pslot[nb] = base + _child_rank(flip, own_image, others, others_m, k,
                                                           share, share_m, free, mirror, ncell,
                                                           t, binom)
                            prefetch(state, pslot[nb])
                        pcode[nb] = s * MOVE_RADIX + t
                        nb += 1
                        if nb == PICK_GROUP:
                            won_at = _first_realising(state, top, pr, pd, pcode, pslot, nb)
                            nb = 0
                            if won_at >= 0:
                                break
                        continue
                    move[r, e] = s * MOVE_RADIX + t
                    if won:
                        child[r, e] = -1
                        ext_result[r, e] = LOSS
                        ext_distance[r, e] = 0
                    else:
                        child[r, e] = base + _child_rank(flip, own_image, others, others_m, k,
                                                         share, share_m, free, mirror, ncell, t,
                                                         binom)
                    e += 1
                if won_at >= 0:
                    break
            if pick:
                if won_at < 0 and nb > 0:
                    won_at = _first_realising(state, top, pr, pd, pcode, pslot, nb)
                if won_at >= 0:
                    best[positions[r] - lo] = won_at
            if mode == SUMMARY:
                if won_at >= 0:
                    e = 0
                    win_move[r] = won_at
                elif own_image:
                    e = sorted_unique(rowbufs[ch, 0], e, rowbufs[ch, 1])
            if not pick:
                count[r] = e
            for i in range(k):
                board[a[i]] = 0
                board[b[i]] = 0


@parallel_kernel
def parents(desc, nbr, mirror, in_goal, in_start, goal, start, binom, comb_a, comb_b,
             class_rep, class_of, mirror_rank, positions, count, parent, code, as_bytes):
    """Every slot that has each position among its in-table children.  The opponent (who just
    moved) takes back one move: moves are reversible, so its un-moves are its own moves on
    this board.  A parent must be a position (not ILLEGAL) and not terminal (a finished game
    has no moves); the move back into this position is then legal.  A terminal position is
    never an in-table child (the move into it wins), so it has no parents.  count int32[n],
    parent int64[n, W], code int32[n, W]: the move from the parent to this position in the
    parent's stored frame (the smaller of a move and its mirror image when the parent is its
    own mirror image: both lead here, and moves are listed by ascending code).  With
    ``as_bytes`` the move is written as its byte instead (``move_byte``: the same order).

    A row lists each parent once.  Two un-moves reach the same slot only when their parents
    are each other's mirror images; both keep this position's A (turned) as their opponent
    set, so that set must be its own mirror image.  Only those rows (about 0.1% on 7x7) are
    sorted to drop repeats; the engine need not dedupe any row.

    The parent is seen from the opponent: its opponent set is this position's A turned 180
    degrees (the same for every un-move), its mover set is B after the un-move, turned."""
    ncell, k, cb, rule = desc[0], desc[1], desc[2], desc[3]
    n = positions.shape[0]
    nchunk = (n + ROWS - 1) // ROWS
    iscr = np.empty((nchunk, 13, 8), np.int64)
    boards = np.zeros((nchunk, ncell), np.int8)
    marks = np.zeros((nchunk, ncell), np.int32)
    stacks = np.empty((nchunk, 2, ncell), np.int64)
    rowbufs = np.empty((nchunk, parent.shape[1]), np.int64)
    zone = _tip_zone(nbr)
    walls = _tip_walls(nbr)
    ident = np.arange(ncell)
    for ch in prange(nchunk):
        a = iscr[ch, 0]
        b = iscr[ch, 1]
        mvb = iscr[ch, 2]
        mmvb = iscr[ch, 3]
        op = iscr[ch, 4]
        mop = iscr[ch, 5]
        below = iscr[ch, 6]
        cnt = iscr[ch, 7]
        mbelow = iscr[ch, 8]
        others = iscr[ch, 9]
        base = iscr[ch, 10]
        swap = iscr[ch, 11]
        swap_m = iscr[ch, 12]
        board = boards[ch]
        mark = marks[ch]
        stack = stacks[ch, 0]
        dest = stacks[ch, 1]
        stamp = 0
        for r in range(ch * ROWS, min(n, (ch + 1) * ROWS)):
            decode(positions[r], k, cb, class_rep, comb_a, comb_b, a, b)
            _counts(a, b, k, in_goal, in_start, cnt)
            x_in_g, y_in_g, y_in_s, x_in_s = cnt[0], cnt[1], cnt[2], cnt[3]
            if y_in_s > 0 and y_in_s + x_in_s == k:
                count[r] = 0  # terminal: only a winning move leads here
                continue
            for i in range(k):
                board[a[i]] = 1
                board[b[i]] = 2
            blocked_now = rule and _walled(board, walls)
            turned(a, k, ncell, op)
            mirrored(op, k, mirror, mop)
            turned(b, k, ncell, mvb)
            mirrored(mvb, k, mirror, mmvb)
            # the parent's opponent set (op, or mop mirrored) ranked among the cells its mover
            # set leaves free: counted once against B turned, adjusted per un-move
            count_below(op, k, mvb, below)
            count_below(mop, k, mmvb, mbelow)
            m = 0
            for i in range(k):
                s = b[i]
                stamp += 1
                nd = destinations(board, nbr, s, mark, stamp, stack, dest)
                insertion_base(mvb, k, k - 1 - i, ident, binom, others, base)
                gone = ncell - 1 - s  # the parent's mover set: B turned, this cell
                swap_base(op, k, below, gone, binom, swap)
                swap_base(mop, k, mbelow, mirror[gone], binom, swap_m)
                for j in range(nd):
                    t = dest[j]
                    y_in_s2 = y_in_s - in_start[s] + in_start[t]
                    if y_in_s2 > 0 and y_in_s2 + x_in_s == k:
                        continue  # the parent's mover would have won already: illegal
                    y_in_g2 = y_in_g - in_goal[s] + in_goal[t]
                    if x_in_g > 0 and x_in_g + y_in_g2 == k:
                        continue  # the parent is a finished game
                    if rule:
                        if _blocked_after(board, walls, zone, blocked_now, s, t, 2):
                            continue
                    came = ncell - 1 - t  # the mover's cell gone, moved back to this one
                    rm = rank_inserted(others, k, base, came, binom)
                    rmm = mirror_rank[rm]
                    # the parent's move, turned: from ncell - 1 - t to ncell - 1 - s
                    if as_bytes:  # the mover's cells of the parent: mvb (or mmvb) with
                        # gone replaced by came; the move's byte counts those below its start
                        plain = move_byte(count_less(mvb, k, came) - (1 if gone < came else 0), gone,
                                          ncell)
                        image = move_byte(count_less(mmvb, k, mirror[came])
                                          - (1 if mirror[gone] < mirror[came] else 0),
                                          mirror[gone], ncell)
                    else:
                        plain = came * MOVE_RADIX + gone
                        image = mirror[came] * MOVE_RADIX + mirror[gone]
                    if rm < rmm:
                        parent[r, m] = class_of[rm] * cb + swap[count_less(op, k, came)]
                        code[r, m] = plain
                    else:  # mirrored; when rm == rmm the mirrored mover set is the same set
                        ri = swap_m[count_less(mop, k, mirror[came])]
                        if rm > rmm:
                            parent[r, m] = class_of[rmm] * cb + ri
                            code[r, m] = image
                        else:
                            rp = swap[count_less(op, k, came)]
                            parent[r, m] = class_of[rm] * cb + min(rp, ri)
                            code[r, m] = plain if rp < ri else image if ri < rp else \
                                min(plain, image)
                    m += 1
            symmetric = True
            for i in range(k):
                if op[i] != mop[i]:
                    symmetric = False
            if symmetric:
                m = drop_repeated_parents(parent[r], code[r], m, rowbufs[ch])
            count[r] = m
            for i in range(k):
                board[a[i]] = 0
                board[b[i]] = 0
