"""Two-player Chinese Checkers on the m x m rhombus: the table index (rank / unrank of a
position in the mover's frame, its symmetries) and the probing kernels.  The retrograde
space over this index (census, children, parents) is ``solvers.chinese_checkers.tables``.

**The mover's frame.**  Every table position is seen from the player to move: its pieces
(set A) head for the bottom goal G, the opponent's pieces (set B) for the top goal S (the
first player's start area).  A position with the second player to move is turned 180 degrees
(cell k -> N - 1 - k) and the colours swapped: that is the player-swap symmetry, and it is
built into the index, so a table has no side-to-move bit.  The left-right mirror is the other
symmetry: of a position and its mirror image only the one with the smaller (A, B) rank is
stored.

**The index.**  A P-subset is ranked colexicographically (``sum C(cell_i, i + 1)`` over its
cells in ascending order).  The mirror classes of A (rank(A) <= rank(mirror(A))) are numbered
in rank order; B is ranked among the N - P cells A leaves free.  The slot is
``class(A) * C(N - P, P) + rank(B among free cells)``.  When A is its own mirror image, B and
its mirror are both in the block and only the smaller is a position; the other slot is NONE.
Every position slot stands for 4 raw positions (2 when the position is its own mirror image).

The table's description is ``desc`` int64[4] = (N, P, C(N - P, P), blocked rule 0/1) and the
arrays built by ``tbdb.games.chinese_checkers.tables``:

    nbr int16[N, 6]      neighbours (geometry module)     mirror int16[N]  left-right image
    in_goal int8[N]      1 on the mover's goal G          in_start int8[N]  1 on S
    goal int16[P]        the cells of G                   start int16[P]    the cells of S
    binom int64[N+1, P+1]  C(i, j)
    comb_a int8[C(N, P), P]      the P-subsets of N cells in rank order (ascending cells)
    comb_b int8[C(N-P, P), P]    the same for N - P cells
    class_rep int32[classes]     rank of each class's A;  class_of int32[C(N, P)]  its class
                                 (-1 when A is not the smaller of A and its mirror image)
    mirror_rank int32[C(N, P)]   rank of the mirror image of each subset
"""
import numpy as np

from tbdb.solvers.jit import kernel, inline_kernel, parallel_kernel, prange
from tbdb.solvers.chinese_checkers.moves import sort_small


# --------------------------------------------------------------------------- combinatorics

@kernel
def rank(cells, k, binom):
    """Colex rank of the ascending cells[:k]."""
    r = 0
    for i in range(k):
        r += binom[cells[i], i + 1]
    return r


@kernel
def rank_free(cells, taken, k, binom):
    """Colex rank of ascending cells[:k] counted among the cells not in ascending taken[:k]."""
    r = 0
    j = 0
    for i in range(k):
        while j < k and taken[j] < cells[i]:
            j += 1
        r += binom[cells[i] - j, i + 1]
    return r


@kernel
def free_numbers(taken, k, ncell, out):
    """out[c] = c minus the cells of ascending taken[:k] below c: a free cell's number among the
    free cells, so ``rank_free`` against a fixed ``taken`` becomes one lookup per cell."""
    j = 0
    for c in range(ncell):
        while j < k and taken[j] < c:
            j += 1
        out[c] = c - j


@kernel
def count_below(cells, k, taken, out):
    """out[i] = how many of taken[:k] lie below cells[i]."""
    for i in range(k):
        c = 0
        for j in range(k):
            if taken[j] < cells[i]:
                c += 1
        out[i] = c


@kernel
def swap_base(cells, k, below, gone, binom, table):
    """Prepare ``rank_free(cells, taken')`` for every taken' = the set ``below`` was counted
    against (``count_below``) with cell ``gone`` replaced by some other cell ``came``: with
    j = how many of cells[:k] lie below ``came``, the rank is table[j] (cells at i >= j have
    one more taken cell below them).  One piece's un-moves share ``gone``, so each costs k
    comparisons and one lookup instead of k binomial lookups.

    table[j] sums cell i's term without the extra taken cell for i < j and with it for i >= j,
    so the k + 1 entries are running sums over the 2k terms: 2k lookups, not k(k + 1) (this
    table is rebuilt for every piece of every position the parents pass lists)."""
    with_extra = 0
    for i in range(k):
        c = cells[i]
        n = below[i] - (1 if gone < c else 0)
        with_extra += binom[c - n - 1, i + 1]
    table[0] = with_extra
    for i in range(k):
        c = cells[i]
        n = below[i] - (1 if gone < c else 0)
        table[i + 1] = table[i] - binom[c - n - 1, i + 1] + binom[c - n, i + 1]


@kernel
def count_less(cells, k, c):
    """How many of cells[:k] are below c."""
    j = 0
    for i in range(k):
        j += cells[i] < c
    return j


@kernel
def insertion_base(src, k, i, free, binom, others, base):
    """Prepare ranking src[:k] with src[i] replaced by each of many cells (one piece's
    destinations): others[:k - 1] the free numbers of the kept cells, base[pos] their share of
    the colex rank when the new cell sorts to position pos.  Then ``rank_inserted`` costs
    k - 1 comparisons and one lookup, with no branch on the data.

    A kept cell below the new one keeps its place q (term binom[., q + 1]), one above moves up
    to q + 1: base[pos] is a running sum over the 2(k - 1) terms, not k(k - 1) lookups."""
    j = 0
    for q in range(k):
        if q != i:
            others[j] = free[src[q]]
            j += 1
    r = 0
    for q in range(k - 1):
        r += binom[others[q], q + 2]
    base[0] = r
    for q in range(k - 1):
        base[q + 1] = base[q] - binom[others[q], q + 2] + binom[others[q], q + 1]


@kernel
def rank_inserted(others, k, base, c, binom):
    """The rank prepared by ``insertion_base`` with free-numbered cell c inserted."""
    pos = 0
    for q in range(k - 1):
        pos += others[q] < c
    return base[pos] + binom[c, pos + 1]


@kernel
def combinations(n, k, binom):
    """int8[C(n, k), k]: every k-subset of range(n), ascending cells, in colex rank order."""
    total = binom[n, k]
    out = np.empty((total, k), np.int8)
    cur = np.arange(k)
    for r in range(total):
        for i in range(k):
            out[r, i] = cur[i]
        # colex successor: raise the lowest cell that can rise, reset those below it
        i = 0
        while i < k - 1 and cur[i] + 1 == cur[i + 1]:
            i += 1
        cur[i] += 1
        for j in range(i):
            cur[j] = j
    return out


@kernel
def mirror_ranks(comb, mirror, binom):
    """int32[C(N, P)]: the rank of the mirror image of every subset."""
    total, k = comb.shape
    out = np.empty(total, np.int32)
    tmp = np.empty(k, np.int64)
    for r in range(total):
        for i in range(k):
            tmp[i] = mirror[comb[r, i]]
        sort_small(tmp, k)
        out[r] = rank(tmp, k, binom)
    return out


@kernel
def _expand_free(rb, a, k, comb_b, b):
    """b[:k] = the cells of free-cell subset ``rb`` when ascending a[:k] is taken."""
    j = 0
    for i in range(k):
        v = comb_b[rb, i]
        c = v + j
        while j < k and a[j] <= c:
            j += 1
            c = v + j
        b[i] = c


@kernel
def decode(slot, k, cb, class_rep, comb_a, comb_b, a, b):
    """The mover's cells a[:k] and the opponent's b[:k] (ascending) of a slot."""
    cls = slot // cb
    ra = class_rep[cls]
    for i in range(k):
        a[i] = comb_a[ra, i]
    _expand_free(slot - cls * cb, a, k, comb_b, b)


@kernel
def _slot_of(mv, op, k, cb, mirror, binom, comb_a, class_of, mirror_rank, tmp):
    """(slot, mirrored) of the position with mover cells mv[:k] and opponent cells op[:k]
    (ascending) in the mover's frame; ``mirrored`` is 1 when the stored position is the mirror
    image.  ``tmp`` int64[k] scratch."""
    rm = rank(mv, k, binom)
    rmm = mirror_rank[rm]
    if rm < rmm:
        return class_of[rm] * cb + rank_free(op, mv, k, binom), 0
    for i in range(k):
        tmp[i] = mirror[op[i]]
    sort_small(tmp, k)
    if rm > rmm:
        return class_of[rmm] * cb + rank_free(tmp, comb_a[rmm], k, binom), 1
    plain = rank_free(op, mv, k, binom)
    image = rank_free(tmp, mv, k, binom)
    if image < plain:
        return class_of[rm] * cb + image, 1
    return class_of[rm] * cb + plain, 0


@kernel
def replace_sorted(src, k, i, t, dst):
    """dst[:k] = ascending src[:k] with src[i] replaced by t, still ascending."""
    j = 0
    placed = False
    for q in range(k):
        if q == i:
            continue
        v = src[q]
        if not placed and t < v:
            dst[j] = t
            j += 1
            placed = True
        dst[j] = v
        j += 1
    if not placed:
        dst[j] = t


@kernel
def turned(src, k, ncell, dst):
    """dst[:k] = the cells of ascending src[:k] turned 180 degrees, ascending."""
    for q in range(k):
        dst[q] = ncell - 1 - src[k - 1 - q]


@kernel
def mirrored(src, k, mirror, dst):
    """dst[:k] = the mirror images of src[:k], ascending."""
    for q in range(k):
        dst[q] = mirror[src[q]]
    sort_small(dst, k)


# --------------------------------------------------------------------------- probing

@parallel_kernel
def piece_counts(boards, ones, twos):
    """Each row's pieces of player 1 and of player 2 (boards int8[n, N]), in one pass."""
    for r in prange(boards.shape[0]):
        a = 0
        b = 0
        for c in range(boards.shape[1]):
            v = boards[r, c]
            a += v == 1
            b += v == 2
        ones[r] = a
        twos[r] = b


@inline_kernel
def _locate_row(boards, movers, r, k, cb, mirror, binom, comb_a, class_of, mirror_rank, slots,
                syms, mv, op, tmp):
    """Slot and symmetry of row ``r`` written at ``r`` (``locate``; mv, op, tmp: k scratch
    each)."""
    ncell = boards.shape[1]
    ia = 0
    ib = 0
    if movers[r] == 1:
        for c in range(ncell):
            if boards[r, c] == 1:
                mv[ia] = c
                ia += 1
            elif boards[r, c] == 2:
                op[ib] = c
                ib += 1
    else:
        for c in range(ncell - 1, -1, -1):
            if boards[r, c] == 2:
                mv[ia] = ncell - 1 - c
                ia += 1
            elif boards[r, c] == 1:
                op[ib] = ncell - 1 - c
                ib += 1
    slots[r], mirrored = _slot_of(mv, op, k, cb, mirror, binom, comb_a, class_of, mirror_rank,
                                  tmp)
    syms[r] = (0 if movers[r] == 1 else 1) | (2 if mirrored else 0)


@parallel_kernel
def locate(boards, movers, rows, k, cb, mirror, binom, comb_a, class_of, mirror_rank, slots,
            syms):
    """Slot and symmetry of the positions ``rows`` names, given as boards int8[n, N] (0 empty,
    1 first player, 2 second player) and movers int8[n] (1 or 2), written at their rows: syms
    bit 0 = turned 180 degrees with colours swapped (second player to move), bit 1 = mirrored.
    Those boards must hold k pieces a side.  Chunks of rows run in parallel, each with its own
    scratch."""
    n = rows.shape[0]
    nchunk = (n + 4095) // 4096
    scratch = np.empty((nchunk, 3, k), np.int64)
    for ch in prange(nchunk):
        for j in range(ch * 4096, min(n, (ch + 1) * 4096)):
            _locate_row(boards, movers, rows[j], k, cb, mirror, binom, comb_a, class_of,
                        mirror_rank, slots, syms, scratch[ch, 0], scratch[ch, 1], scratch[ch, 2])


@kernel
def locate_few(boards, movers, rows, k, cb, mirror, binom, comb_a, class_of, mirror_rank,
                slots, syms):
    """``locate`` on one thread: a single lookup would wait microseconds for the thread pool."""
    scratch = np.empty((3, k), np.int64)
    for j in range(rows.shape[0]):
        _locate_row(boards, movers, rows[j], k, cb, mirror, binom, comb_a, class_of,
                    mirror_rank, slots, syms, scratch[0], scratch[1], scratch[2])


@kernel
def boards_of(slots, ncell, k, cb, class_rep, comb_a, comb_b):
    """int8[n, N] boards of slots in the stored frame (1 the mover, 2 the opponent)."""
    n = slots.shape[0]
    out = np.zeros((n, ncell), np.int8)
    a = np.empty(k, np.int64)
    b = np.empty(k, np.int64)
    for r in range(n):
        decode(slots[r], k, cb, class_rep, comb_a, comb_b, a, b)
        for i in range(k):
            out[r, a[i]] = 1
            out[r, b[i]] = 2
    return out
