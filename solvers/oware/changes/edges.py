"""The change-list solver's moves and parents: the compact move table (one uint32 a move, the
seeds captured and the child's cell: ``move_table``), built from a small table of the
children's ranks (``child_table``) on every core for big books, and the reverse edges, each
cell's parents (``reverse_edges``).  Cells: ``layout``.
"""
import numpy as np

from tbdb.solvers.jit import kernel, nogil_kernel, parallel_nogil_kernel, prange
from tbdb.solvers.oware.index import AT_MOST, BOOK_SIZES, HOUSES, next_composition, next_position, \
    rank_flipped_n, unrank
from tbdb.solvers.oware.moves import sow
from tbdb.solvers.oware.changes.layout import CELL_BITS, CELL_MASK


# A book's positions in rank order come in blocks: every position whose mover's side (houses
# 0-5) is a given ``a`` is one run of consecutive ranks, its opponent's side ``o`` (houses 6-11,
# the R = n - sum(a) remaining seeds) taking every value in lexicographic order.  A move of
# house h holding s <= 11 seeds sows a fixed pattern: the mover's side after it (``m``) depends
# on ``a`` and h only, and the opponent's side gets one seed in each of its first j houses
# (j = 0 .. 6), the last seed landing on house 5 + j when 1 <= j and h + s <= 11 (a capture is
# possible there), else on the mover's side.  The child's rank (seen by the opponent: ``o``
# after the move, then ``m``) splits into a part of ``o``, j and the seeds of ``m`` only (with
# the capture, the book the child lands in and the seeds taken) and a part of ``m`` only.  So
# ``child_table`` computes the first part once per (variant, R, o): a few thousand entries at 9
# seeds instead of six sowings and ranks per position, and the move table is one load and add
# per move (``_moves_block``), far less time.  Moves of 12 seeds or more (lap the
# board; 12 seeds and up) take ``moves.sow`` and a rank, position by position.

#: ``child_table`` variants: j = 0 .. 6 houses of the opponent sown with the last seed on the
#: opponent's side for j >= 1 (variant j), or j = 6 with the last seed back on the mover's side
#: (variant ``WRAP``: h + s >= 12, no capture).  Variant 0 has the last seed on the mover's side.
WRAP = 7
VARIANTS = 8


@kernel
def _side_rank(side, r, k0):
    """The part of a rank (``index.rank``) that houses ``k0 .. k0 + 5`` contribute when they
    hold ``side`` (int8[6]) and ``r`` seeds lie in them and the houses after them."""
    idx = 0
    for i in range(6):
        k = 11 - k0 - i
        if k == 0:
            break
        idx += AT_MOST[k, r] - AT_MOST[k, r - side[i]]
        r -= side[i]
    return idx


@nogil_kernel
def child_table(n, base):
    """The opponent's-side part of every short move's packed child (layout above), for book
    ``n``: ``tab uint32[VARIANTS, C(n + 6, 6)]``, entry ``(v, C(R + 5, 6) + q)`` for the q-th
    opponent's side (lexicographic) of R seeds = ``f << 28 | base[n - f] + part`` (``f`` the
    seeds captured), or 0xFFFFFFFF if the move is illegal (variant 0 with R = 0: it does not
    feed the opponent).  A move's packed cell is this plus ``_side_rank`` of the mover's side
    after it (houses 6-11 of the child: no carry into ``f``, every cell < 2^28)."""
    total = AT_MOST[6, n]  # sum over R <= n of C(R + 5, 5)
    tab = np.empty((VARIANTS, total), dtype=np.uint32)
    o = np.empty(6, dtype=np.int8)
    c = np.empty(6, dtype=np.int8)
    for R in range(n + 1):
        start = AT_MOST[6, R - 1] if R >= 1 else 0
        for j in range(6):
            o[j] = 0
        o[5] = R
        for q in range(AT_MOST[5, R]):
            if q > 0:
                next_composition(o, 5)  # the next opponent's side (six houses)
            for v in range(VARIANTS):
                j = 6 if v == WRAP else v
                if v == 0 and R == 0:
                    tab[v, start + q] = np.uint32(0xFFFFFFFF)
                    continue
                for i in range(6):
                    c[i] = o[i] + (1 if i < j else 0)
                cap = 0
                if 1 <= v <= 6:  # the last seed on house 5 + j: take 2s and 3s backwards
                    i = j - 1
                    while i >= 0 and (c[i] == 2 or c[i] == 3):
                        cap += c[i]
                        i -= 1
                    if cap == R + j:  # a grand slam captures nothing
                        cap = 0
                    if cap != 0:
                        for k in range(i + 1, j):
                            c[k] = 0
                part = _side_rank(c, n - cap, 0)
                tab[v, start + q] = np.uint32((cap << CELL_BITS) | (base[n - cap] + part))
    return tab


@kernel
def _moves_block(n, base, tab, a, q0, q1, i0, packed, pos, out):
    """Rows ``i0 .. i0 + q1 - q0 - 1`` of ``packed``: the positions whose mover's side is ``a``
    (int8[6]) and opponent's side the q0-th .. (q1 - 1)-th of its seeds; ``pos``/``out``
    int8[12] scratch."""
    neg = base[n + 1]
    illegal = np.uint32(neg + n + 1)  # HIGH
    m = 0
    for h in range(6):
        m += a[h]
    R = n - m
    start = AT_MOST[6, R - 1] if R >= 1 else 0
    legal = 0
    for h in range(6):
        s = np.int64(a[h])
        if s == 0 or (s <= 5 - h and R == 0):  # empty, or does not feed the opponent
            for q in range(q0, q1):
                packed[i0 + q - q0, h] = illegal
            continue
        legal += 1
        if s >= 12:  # laps the board: sow and rank each position
            for i in range(6):
                pos[i] = a[i]
            for i in range(6, 12):
                pos[i] = 0
            pos[11] = R
            for q in range(q1):
                if q > 0:
                    next_position(pos)  # only houses 6-11 change within the block
                if q >= q0:
                    cap = sow(pos, h, out)
                    packed[i0 + q - q0, h] = np.uint32(
                        (cap << CELL_BITS) | (base[n - cap] + rank_flipped_n(out, n - cap)))
            continue
        last = h + s
        j = min(6, max(0, last - 5))
        v = WRAP if last >= 12 else j
        for i in range(6):
            out[i] = a[i]
        out[h] = 0
        for i in range(h + 1, min(5, last) + 1):
            out[i] += 1
        for i in range(0, last - 11):
            out[i] += 1
        low = np.uint32(_side_rank(out, m - j, 6))
        row = tab[v, start + q0: start + q1]
        for q in range(q1 - q0):
            packed[i0 + q, h] = row[q] + low
    if legal == 0:  # no legal move: slot 0 reads NEG[own seeds]
        for q in range(q1 - q0):
            packed[i0 + q, 0] = np.uint32(neg + m)


@kernel
def _moves_range(lo, hi, n, base, tab, packed, a, pos, out):
    """``move_table``'s rows ``lo .. hi - 1``, block by block; ``a`` int8[6], ``pos``/``out``
    int8[12] scratch."""
    if lo >= hi:
        return
    unrank(n, lo, pos)
    for i in range(6):
        a[i] = pos[i]
    R = n
    for i in range(6):
        R -= a[i]
    q = _side_rank(pos[6:], R, 6)  # lo's rank among the opponent's sides of R seeds
    i = lo
    while i < hi:
        size = AT_MOST[5, R]
        q1 = min(size, q + hi - i)
        _moves_block(n, base, tab, a, q, q1, i, packed, pos, out)
        i += q1 - q
        if i >= hi:
            break
        # the next mover's side (lexicographic; its last house takes the slack seeds)
        if R > 0:
            a[5] += 1
            R -= 1
        else:
            k = 5
            while a[k] == 0:
                k -= 1
            R = a[k] - 1
            a[k] = 0
            a[k - 1] += 1
        q = 0


@nogil_kernel
def move_table(n, base, chunk):
    """Every move of book ``n`` (layout in the module doc): ``packed uint32[N, 6]``."""
    N = BOOK_SIZES[n]
    packed = np.empty((N, 6), dtype=np.uint32)
    tab = child_table(n, base)
    a = np.empty(6, dtype=np.int8)
    pos = np.empty(HOUSES, dtype=np.int8)
    out = np.empty(HOUSES, dtype=np.int8)
    _moves_range(0, N, n, base, tab, packed, a, pos, out)
    return packed


@nogil_kernel
def move_rows(n, base, tab, chunk, c0, c1, packed):
    """``move_table``'s rows of chunks ``c0 .. c1 - 1`` written into ``packed`` (uint32[N, 6];
    ``tab`` from ``child_table``): parts of one table filled on separate Python threads."""
    N = BOOK_SIZES[n]
    a = np.empty(6, dtype=np.int8)
    pos = np.empty(HOUSES, dtype=np.int8)
    out = np.empty(HOUSES, dtype=np.int8)
    _moves_range(min(N, c0 * chunk), min(N, c1 * chunk), n, base, tab, packed, a, pos, out)


@parallel_nogil_kernel
def move_rows_parallel(n, base, tab, chunk, packed):
    """``move_table`` into ``packed`` (uint32[N, 6]; ``tab`` from ``child_table``) on Numba's
    threads, ``chunk`` positions per task.  (Waking the threads costs milliseconds on a busy
    machine: for big books only.)"""
    N = BOOK_SIZES[n]
    nchunks = (N + chunk - 1) // chunk
    scratch = np.empty((nchunks, 3, HOUSES), dtype=np.int8)
    for c in prange(nchunks):
        _moves_range(c * chunk, min(N, (c + 1) * chunk), n, base, tab, packed,
                     scratch[c, 0], scratch[c, 1], scratch[c, 2])


@kernel
def _parent_key(n, base, x):
    """The reverse-edge key (``reverse_edges``) of the cell move ``x`` reads, or -1 for a
    constant cell (a pseudo move: no child)."""
    g = np.int64(x & CELL_MASK)
    if g >= base[n + 1]:
        return np.int64(-1)
    lo = base[n - 1] if n >= 1 else 0
    return g if g < lo else g - base[n] + lo


@nogil_kernel
def parent_counts(n, base, packed, rev_off):
    """``reverse_edges``, pass 1: ``rev_off`` (int32[lo + N + 1], any content) filled; the
    number of edges is ``rev_off[-1]``."""
    rev_off[:] = 0
    N = packed.shape[0]
    for i in range(N):
        for h in range(6):
            k = _parent_key(n, base, packed[i, h])
            if k >= 0:
                rev_off[k + 1] += 1
    for k in range(rev_off.shape[0] - 1):
        rev_off[k + 1] += rev_off[k]


@nogil_kernel
def parent_lists(n, base, packed, rev_off, rev_par):
    """``reverse_edges``, pass 2: ``rev_par`` (int32[rev_off[-1]]) filled.  Each key's list is
    filled from its end down, ``rev_off[k + 1]`` counting down to the list's start, then the
    offsets shifted back: no copy of them (a megabyte at 9 seeds, first touched)."""
    N = packed.shape[0]
    for i in range(N - 1, -1, -1):
        for h in range(6):
            k = _parent_key(n, base, packed[i, h])
            if k >= 0:
                j = rev_off[k + 1] - 1
                rev_off[k + 1] = j
                rev_par[j] = i
    for k in range(rev_off.shape[0] - 1):
        rev_off[k] = rev_off[k + 1]
    rev_off[rev_off.shape[0] - 1] = rev_par.shape[0]


def reverse_edges(n, base, packed, empty=np.empty):
    """Parents of every cell a move of book ``n`` can read (``packed`` from ``move_table``).

    Keys: a cell ``p < lo = base[n - 1]`` (books 0 .. n - 2) keeps its index, position ``i`` of
    book ``n`` is ``lo + i``.  Returns ``(rev_off int32[lo + N + 1], rev_par int32[E])``: the
    parents (positions of book n, one per move, ascending) of key ``k`` are
    ``rev_par[rev_off[k] .. rev_off[k + 1] - 1]``.  Pseudo moves have no child.  (Int32 up to
    20 seeds: about 4.5 moves per position.)  ``empty(size, dtype)`` makes the two arrays."""
    lo = int(base[n - 1]) if n >= 1 else 0
    off = empty(lo + packed.shape[0] + 1, np.int32)
    parent_counts(n, base, packed, off)
    par = empty(int(off[-1]), np.int32)
    parent_lists(n, base, packed, off, par)
    return off, par
