"""Oware (Abapa) change-list solver: a book solved one plies-left step at a time, recomputing
only the positions one of whose children changed score at the step before, on every core.

Value with ``t`` plies left and the run layout of a solved book: ``levels`` (whose solver this
one replaces; it stays as the reference the tests compare against, run for run).

Differences from ``levels``, each for speed or for memory at 19-20 seeds:

* **Compact moves** (``move_table``): one uint32 per move, bits 28-31 the seeds captured ``f``
  and bits 0-27 the child's cell (books 0 .. 20 hold C(32, 12) = 225,792,840 < 2^28 cells, so
  ``MAX_SOLVE_N`` = 20; a capture takes at most 15 seeds: five houses of 3, six would be a
  grand slam).  A pseudo move's "child" is a constant cell.  Built from a small table of the
  opponent's side's part of each child's rank (``child_table``: a load and an add per move, not
  a sowing and a rank), on every core for big books.
* **Replay windows** (``replay_count``, ``_replay_window``): the smaller books' score changes
  are listed in step order (5 bytes each, a sequential read when replayed) for a window of
  steps at a time, as many as keep the list within a budget, each window by one pass over
  their runs: the whole list at once for small books, a bounded slice of it at 19-20 seeds.
* **Events in one array per group of chunks** (at most 64 groups; 3 bytes an event: uint16
  position in its chunk and move, int8 score), grown group by group, and
  turned into runs group by group (``fill_runs``), each group's events freed as soon as
  its runs are written: at most one copy of the book's runs is in memory, plus one group.
* **Per-level work** (``solve_serial``'s ``work``): positions evaluated at each step.
* **Prefetched steps**: a chunk's dirty positions are listed, then evaluated with their move
  rows prefetched ``AHEAD`` positions ahead (and the parents' offsets and lists when changes
  are applied or replayed): the rows of a dirty set scatter over the table.
* **Bit flags on one thread** (``solve_serial``, ``_flag``): a book solved on one thread keeps
  its dirty flags as bits, in the first-level cache at 9 seeds; the parallel steps of big books
  keep bytes, which several threads may set at once.

Cells (the solver's value array): books 0 .. n end to end (``index.book_bases``), then
``n + 1`` cells NEG[k] holding -k (k = 0 .. n) and one cell HIGH holding 127::

    base[m] .. base[m + 1] - 1   book m
    neg + k                      NEG[k] = -k      (neg = base[n + 1])
    neg + n + 1                  HIGH = 127

A move ``x`` reads cell ``x & CELL_MASK`` and gains ``f = x >> 28`` seeds.  The pseudo moves
gain 0 and read a constant cell (``>= neg``, so they have no parents): a position without a
legal move has ``cell = NEG[own seeds]`` in slot 0 (worth ``0 - (-own)`` = its own seeds; the
best move is then -1), an illegal move has ``cell = HIGH`` (worth -127, it never wins).

The step (two phases over chunks: evaluate the dirty positions, then store the changed scores
and flag their parents), the dirty flags and the stopping rule are those of ``levels`` (read its
comment): a position is evaluated at step t only if one of its children changed score at step
t - 1.  (Keeping each position's best key up to date from its children's changes instead, so
that most flagged positions need one read, evaluated 40% fewer positions at 9 seeds but ran
1.5-2.5 times slower at 12 and 13 seeds: its parent updates are read-modify-writes that two
threads must split by parent, where a dirty flag is a plain store any thread may make.
Flagging only the parents whose best key a change can move, from a per-position key kept by
the evaluations, evaluated exactly the positions that change, 1.10M instead of 1.93M at 9
seeds, but was 8% slower on one thread: the key is one more random read per parent move.)
"""
from __future__ import annotations

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.typed import List

from tbdb.solvers.jit import kernel, nogil_kernel, parallel_nogil_kernel, prange
from tbdb.solvers.oware.index import (_F, BOOK_SIZES, HOUSES, next_composition, next_position,
                                      rank_flipped_n, unrank)
from tbdb.solvers.oware.moves import sow
from tbdb.solvers.oware.sync import atomic_add, atomic_load, atomic_store, cycles, wait_until
from tbdb.solvers.prefetch import prefetch

MAX_T = 200
#: Largest seed count this solver takes: every cell of books 0 .. n must fit in 28 bits.
MAX_SOLVE_N = 20
CELL_BITS = 28
CELL_MASK = (1 << CELL_BITS) - 1
#: Positions (eval) or events (apply) a step's random reads are prefetched ahead.
AHEAD = 16


def cells(n: int, base: np.ndarray) -> tuple[int, int, int]:
    """``(neg, high, size)`` of book ``n``'s value array (``base`` from ``book_bases(n)``)."""
    neg = int(base[n + 1])
    return neg, neg + n + 1, neg + n + 2


# --------------------------------------------------------------------------------------------
# Moves and parents
# --------------------------------------------------------------------------------------------


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
# per move (``_moves_block``), about ten times less time.  Moves of 12 seeds or more (lap the
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
        idx += _F[k, r] - _F[k, r - side[i]]
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
    total = _F[6, n]  # sum over R <= n of C(R + 5, 5)
    tab = np.empty((VARIANTS, total), dtype=np.uint32)
    o = np.empty(6, dtype=np.int8)
    c = np.empty(6, dtype=np.int8)
    for R in range(n + 1):
        start = _F[6, R - 1] if R >= 1 else 0
        for j in range(6):
            o[j] = 0
        o[5] = R
        for q in range(_F[5, R]):
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
    start = _F[6, R - 1] if R >= 1 else 0
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
        size = _F[5, R]
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


# --------------------------------------------------------------------------------------------
# The smaller books' score changes, replayed in step order
# --------------------------------------------------------------------------------------------


@nogil_kernel
def score_changes(off, start, score):
    """What replaying a solved book needs of its runs (layout: ``levels``): per position, only
    the runs whose score differs from the run before (or from 0 for the first: V(., 0) = 0).
    Returns ``(off int32[N + 1], start uint8[K], score int8[K])`` (plies left fit a byte:
    ``MAX_T`` = 200).  About 1.6 bytes a run instead of 4 plus 8 per position: the smaller books
    a 20-seed build keeps for the replay while book 20 solves (a caller checks ``K < 2^31``)."""
    N = off.shape[0] - 1
    count = 0
    for p in range(N):
        prev = 0
        for r in range(off[p], off[p + 1]):
            if score[r] != prev:
                count += 1
                prev = score[r]
    out_off = np.empty(N + 1, dtype=np.int32)
    out_start = np.empty(count, dtype=np.uint8)
    out_score = np.empty(count, dtype=np.int8)
    k = 0
    out_off[0] = 0
    for p in range(N):
        prev = 0
        for r in range(off[p], off[p + 1]):
            if score[r] != prev:
                out_start[k] = np.uint8(start[r])
                out_score[k] = score[r]
                prev = score[r]
                k += 1
        out_off[p + 1] = k
    return out_off, out_start, out_score


@kernel
def _count_book(off, start, score, toff):
    """Add to ``toff[t + 1]`` the number of positions of one smaller book whose score changes at
    step t (a run whose score differs from the previous run's, or from 0 for the first run:
    V(., 0) = 0; runs that change only the best move are not needed)."""
    for p in range(off.shape[0] - 1):
        prev = 0
        for r in range(off[p], off[p + 1]):
            if score[r] != prev:
                toff[start[r] + 1] += 1
                prev = score[r]


@nogil_kernel
def replay_count(offs, starts, scores):
    """``toff int64[MAX_T + 2]``: the smaller books' score changes at step t (``offs``/
    ``starts``/``scores``: typed lists of their run arrays, book m at m) are the
    ``toff[t] .. toff[t + 1] - 1``-th in step order."""
    toff = np.zeros(MAX_T + 2, dtype=np.int64)
    for m in range(len(offs)):
        _count_book(offs[m], starts[m], scores[m], toff)
    for t in range(MAX_T + 1):
        toff[t + 1] += toff[t]
    return toff


@kernel
def _fill_book(b, off, start, score, t_lo, t_hi, fill, pos, sc):
    for p in range(off.shape[0] - 1):
        prev = 0
        for r in range(off[p], off[p + 1]):
            s = score[r]
            if s != prev:
                t = start[r]
                if t_lo <= t < t_hi:
                    j = fill[t]
                    pos[j] = b + p
                    sc[j] = s
                    fill[t] = j + 1
                prev = s


@kernel
def _replay_window(base, offs, starts, scores, toff, t_lo, t_hi):
    """The smaller books' score changes at steps ``t_lo .. t_hi - 1``, in step order: ``(pos
    int32[K], score int8[K])``, step t's from ``toff[t] - toff[t_lo]`` on."""
    k = toff[t_hi] - toff[t_lo]
    pos = np.empty(k, dtype=np.int32)
    sc = np.empty(k, dtype=np.int8)
    fill = toff[: MAX_T + 1] - toff[t_lo]
    for m in range(len(offs)):
        _fill_book(base[m], offs[m], starts[m], scores[m], t_lo, t_hi, fill, pos, sc)
    return pos, sc


@kernel
def _replay(t_lo, tt, toff, pos, sc, vals, rev_off, rev_par, dirty, bits):
    """Write the smaller books' scores changing at step ``tt`` (from the window starting at
    ``t_lo``) into ``vals`` and flag their parents in ``dirty``; returns the parents flagged."""
    dirty64 = dirty.view(np.uint64)
    flagged = 0
    j0 = toff[tt] - toff[t_lo]
    j1 = toff[tt + 1] - toff[t_lo]
    for j in range(j0, min(j1, j0 + AHEAD)):
        prefetch(rev_off, pos[j])
    for j in range(j0, j1):
        # as in ``_apply_chunk``: offsets AHEAD changes ahead, parent lists half as far
        if j + AHEAD < j1:
            prefetch(rev_off, pos[j + AHEAD])
        if j + AHEAD // 2 < j1:
            prefetch(rev_par, rev_off[pos[j + AHEAD // 2]])
        p = pos[j]
        vals[p] = sc[j]
        flagged += rev_off[p + 1] - rev_off[p]
        for r in range(rev_off[p], rev_off[p + 1]):
            _flag(dirty, dirty64, rev_par[r], bits)
    return flagged


# --------------------------------------------------------------------------------------------
# Steps
# --------------------------------------------------------------------------------------------

@kernel
def _low_bit(w):
    """Index (0..63) of the lowest set bit of the uint64 ``w`` (not 0): one tzcnt (LLVM's
    cttz), a sixth of the time of a step's dirty list with a De Bruijn multiply and lookup."""
    return np.int64(trailing_zeros(w))


@kernel
def _flag(dirty, dirty64, p, bits):
    """Flag position ``p`` in ``dirty`` (uint8; ``dirty64`` its words): its byte set to 1, or
    with ``bits`` its bit
    (``_eval_chunk``).  A bit is a read-modify-write of its word, so bit flags are for one
    thread; bytes may be set by several at once (the only value stored is 1).  One thread's
    flags of a 9-seed book take 21 KB as bits, in the first-level cache, 168 KB as bytes."""
    if bits:
        dirty64[p >> 6] |= np.uint64(1) << np.uint64(p & 63)
    else:
        dirty[p] = 1


@kernel
def _low_byte(w):
    """Index (0..7) of the lowest non-zero byte of the uint64 ``w``."""
    return np.int64(trailing_zeros(w)) >> 3


@kernel
def _eval_chunk(c, chunk, N, base_n, packed, vals, move, dirty64, dirty64b, ev, ev_sc, seg_start,
                used, step_cnt, evals, t, todo, bits):
    """Phase 1 of step t for positions ``c * chunk .. min(N, (c + 1) * chunk) - 1``: every dirty
    position (its byte in ``dirty64`` is 1; the flags are cleared) is evaluated from ``vals``
    (V at t - 1, only read); if (score, best move) differs from the stored one, ``move`` is
    updated and the event appended to this chunk's segment of its group's events (from
    ``seg_start[c]``, room for one more per position): ``ev`` uint16 ``local << 3 | move + 1``
    (``chunk`` <= 8192), ``ev_sc`` int8 the score; 3 bytes an event, as many as the book's
    runs.  ``evals[c]`` = positions evaluated; ``todo`` int32[chunk] scratch.  ``bits``: the
    flags are one bit a position (bit ``i & 63`` of word ``i >> 6``; ``chunk`` a multiple of
    64), not a byte: ``_flag``.  ``dirty64b``: a second set of flags (another thread's: a
    position is dirty if flagged in either; both cleared), or ``dirty64`` itself.

    The dirty positions are listed first, then evaluated with their move rows prefetched
    ``AHEAD`` positions ahead: the rows are scattered over the move table (4 MB at 9 seeds, more
    than a core's cache), and a row's loads would otherwise wait one after another (a third
    less time at 9 seeds)."""
    lo = c * chunk
    hi = min(N, lo + chunk)
    w0 = seg_start[c] + used[c]
    wr = w0
    count = 0
    if bits:
        for wi in range(lo >> 6, (hi + 63) >> 6):
            w = dirty64[wi] | dirty64b[wi]
            if w == 0:
                continue
            dirty64[wi] = 0
            dirty64b[wi] = 0
            while w != 0:
                todo[count] = (wi << 6) + _low_bit(w)
                w &= w - np.uint64(1)
                count += 1
    else:
        for wi in range(lo >> 3, (hi + 7) >> 3):
            w = dirty64[wi] | dirty64b[wi]
            if w == 0:
                continue
            dirty64[wi] = 0
            dirty64b[wi] = 0
            while w != 0:
                todo[count] = (wi << 3) + _low_byte(w)
                w &= w - np.uint64(1)
                count += 1
    rows = packed.reshape(-1)
    for j in range(min(AHEAD, count)):
        prefetch(rows, np.int64(todo[j]) * 6)
    for j in range(count):
        if j + AHEAD < count:
            prefetch(rows, np.int64(todo[j + AHEAD]) * 6)
        i = np.int64(todo[j])
        key = np.int64(-32768)
        for h in range(6):
            x = packed[i, h]
            k = (np.int64(x >> CELL_BITS) - np.int64(vals[x & CELL_MASK])) * 8 + 7 - h
            key = k if k > key else key
        sc = key >> 3
        mv = 7 - (key & 7)
        if (packed[i, mv] & CELL_MASK) >= base_n + N:  # a constant cell: no legal move
            mv = -1
        # branch-free append (the slot past the end is scratch): a mispredicted branch here
        # would stall on the loads above and serialise the cache misses of the positions
        changed = (sc != vals[base_n + i]) | (mv != move[i])
        move[i] = mv
        ev[wr] = np.uint16(((i - lo) << 3) | (mv + 1))
        ev_sc[wr] = np.int8(sc)
        wr += changed
    used[c] = wr - seg_start[c]
    step_cnt[c, t] = wr - w0
    evals[c] = count


@kernel
def _apply_chunk(c, chunk, base_n, rev_lo, rev_off, rev_par, vals, nxt, ev, ev_sc, seg_start,
                 used, step_cnt, t, cnt_score, flagged, bits):
    """Phase 2 of step t, same positions as ``_eval_chunk``: for each event of this step whose
    score differs from ``vals``, store the score and flag the position's parents in ``nxt``
    (dirty at step t + 1).  Other chunks may set the same ``nxt`` byte concurrently: a benign
    race, the only value ever stored there during a step is 1.  ``cnt_score[c]`` = scores
    changed, ``flagged[c]`` = parents flagged."""
    nxt64 = nxt.view(np.uint64)
    lo = c * chunk
    ns = 0
    nf = 0
    end = seg_start[c] + used[c]
    first = end - step_cnt[c, t]
    key0 = rev_lo + lo  # reverse-edge key of the chunk's first position
    for e in range(first, min(end, first + AHEAD)):
        prefetch(rev_off, key0 + np.int64(ev[e] >> 3))
    for e in range(first, end):
        # the parents' offsets AHEAD events ahead, their list half as far (offsets loaded)
        if e + AHEAD < end:
            prefetch(rev_off, key0 + np.int64(ev[e + AHEAD] >> 3))
        if e + AHEAD // 2 < end:
            prefetch(rev_par, rev_off[key0 + np.int64(ev[e + AHEAD // 2] >> 3)])
        i = lo + np.int64(ev[e] >> 3)
        sc = ev_sc[e]
        if vals[base_n + i] != sc:
            vals[base_n + i] = sc
            ns += 1
            k = rev_lo + i
            nf += rev_off[k + 1] - rev_off[k]
            for r in range(rev_off[k], rev_off[k + 1]):
                _flag(nxt, nxt64, rev_par[r], bits)
    cnt_score[c] = ns
    flagged[c] = nf


@kernel
def _grow_group(g, cpg, chunk, N, ev, ev_sc, seg_start, seg_cap, used):
    """The events of group ``g`` (chunks ``g * cpg ..``) with room for one more event per
    position in every chunk: ``(ev, ev_sc)`` themselves, or copies in which each short chunk has
    1.5 times its room (``seg_start``/``seg_cap`` updated)."""
    nchunks = seg_start.shape[0]
    c0 = g * cpg
    c1 = min(nchunks, c0 + cpg)
    short = False
    for c in range(c0, c1):
        ln = min(N, (c + 1) * chunk) - c * chunk
        if seg_cap[c] - used[c] <= ln:
            short = True
    if not short:
        return ev, ev_sc
    total = 0
    new_start = np.empty(c1 - c0, dtype=np.int64)
    for c in range(c0, c1):
        ln = min(N, (c + 1) * chunk) - c * chunk
        if seg_cap[c] - used[c] <= ln:
            seg_cap[c] = max(seg_cap[c] + seg_cap[c] // 2, used[c] + ln + 1)
        new_start[c - c0] = total
        total += seg_cap[c]
    bigger = np.empty(total, dtype=np.uint16)
    bigger_sc = np.empty(total, dtype=np.int8)
    for c in range(c0, c1):
        z = new_start[c - c0]
        bigger[z:z + used[c]] = ev[seg_start[c]:seg_start[c] + used[c]]
        bigger_sc[z:z + used[c]] = ev_sc[seg_start[c]:seg_start[c] + used[c]]
        seg_start[c] = z
    return bigger, bigger_sc


@nogil_kernel
def step_serial(ngroups, cpg, nchunks, chunk, N, base_n, rev_lo, packed, vals, move, cur, nxt,
                rev_off, rev_par, evs, evs_sc, seg_start, used, step_cnt, evals, t, cnt_score,
                flagged, todo, bits=False):
    """Step t on one thread: evaluate the dirty positions chunk by chunk, then store the
    changed scores and flag their parents.  (The events of a group of ``cpg`` chunks share one
    array of ``evs``: a typed list's item costs about a microsecond to fetch.)  ``todo``:
    int32[groups, chunk] scratch, row 0 used here."""
    cur64 = cur.view(np.uint64)
    for g in range(ngroups):  # every evaluation reads V(., t - 1): all of them first
        ev = evs[g]
        ev_sc = evs_sc[g]
        for c in range(g * cpg, min(nchunks, (g + 1) * cpg)):
            _eval_chunk(c, chunk, N, base_n, packed, vals, move, cur64, cur64, ev, ev_sc,
                        seg_start, used, step_cnt, evals, t, todo[0], bits)
    for g in range(ngroups):
        ev = evs[g]
        ev_sc = evs_sc[g]
        for c in range(g * cpg, min(nchunks, (g + 1) * cpg)):
            _apply_chunk(c, chunk, base_n, rev_lo, rev_off, rev_par, vals, nxt, ev, ev_sc,
                         seg_start, used, step_cnt, t, cnt_score, flagged, bits)


@parallel_nogil_kernel
def step_parallel(ngroups, cpg, nchunks, chunk, N, base_n, rev_lo, packed, vals, move, cur,
                  nxt, rev_off, rev_par, evs, evs_sc, seg_start, used, step_cnt, evals, t,
                  cnt_score, flagged, todo):
    """``step_serial`` on Numba's threads, a group of chunks per task.  (A kernel of its own:
    calling a parallel kernel costs about 0.1 ms even when it runs nothing in parallel.)
    ``todo``: row g for group g."""
    cur64 = cur.view(np.uint64)
    for g in prange(ngroups):
        ev = evs[np.int64(g)]  # (prange's index is unsigned; the typed lists take int64)
        ev_sc = evs_sc[np.int64(g)]
        for c in range(g * cpg, min(nchunks, (g + 1) * cpg)):
            _eval_chunk(c, chunk, N, base_n, packed, vals, move, cur64, cur64, ev, ev_sc,
                        seg_start, used, step_cnt, evals, t, todo[g], False)
    for g in prange(ngroups):
        ev = evs[np.int64(g)]
        ev_sc = evs_sc[np.int64(g)]
        for c in range(g * cpg, min(nchunks, (g + 1) * cpg)):
            _apply_chunk(c, chunk, base_n, rev_lo, rev_off, rev_par, vals, nxt, ev, ev_sc,
                         seg_start, used, step_cnt, t, cnt_score, flagged, False)


# A book's solve is a loop over steps t = 1, 2, ... of ``before_step`` (the smaller books'
# changes at t - 1 replayed, event room made), a step on one thread (``step_serial``) or on
# Numba's threads (``step_parallel``), and ``after_step`` (counts, stopping rule).  ``solve_serial``
# runs the loop in one compiled kernel (small books: a step takes microseconds); a big book's
# loop runs in Python (``tbdb.games.oware.book``), which calls the parallel step itself: no
# cached kernel calls a parallel one (Numba 0.68 could write such a caller's cache entry so
# that later processes loading it crashed; see solvers/jit.py).

#: Slots of the loop's ``state`` (int64[STATE_SIZE]).
S_T_LO, S_T_HI, S_EST, S_EVENTS, S_STABLE, S_MOVES_STABLE, S_T_END = range(7)
STATE_SIZE = 7


@nogil_kernel
def core_state(n, base, chunk, runs_guess, ev_buf, sc_buf):
    """The loop's arrays for book ``n`` (``chunk``: positions per task, a multiple of 8 and at
    most 8192; ``runs_guess``: initial event room per position).  Returns ``(state, vals,
    move, cur, nxt, evs, evs_sc, cpg, seg_start, seg_cap, used, step_cnt, evals, cnt_score,
    flagged, work, todo)``: ``vals`` the value array (cells: module doc), ``cur``/``nxt`` the dirty
    flags of this step and the next (every position at t = 1), the events in groups of ``cpg``
    chunks (at most 64 groups).  ``ev_buf``/``sc_buf`` (uint16/int8, ``event_room`` long, or
    empty): the groups' first arrays are slices of them if given (the caller's huge pages),
    else their own."""
    N = BOOK_SIZES[n]
    ncells = base[n + 1] + n + 2
    nchunks = (N + chunk - 1) // chunk
    state = np.zeros(STATE_SIZE, dtype=np.int64)
    state[S_T_LO] = 1  # the replay window: the changes at steps t_lo .. t_hi - 1
    state[S_T_HI] = 1
    state[S_EST] = N  # positions about to be evaluated
    state[S_STABLE] = 1
    state[S_MOVES_STABLE] = 1
    state[S_T_END] = MAX_T
    vals = np.zeros(ncells, dtype=np.int8)
    for k in range(n + 1):
        vals[base[n + 1] + k] = -k
    vals[ncells - 1] = 127
    move = np.full(N, -2, dtype=np.int8)  # no move yet: every position changes at t = 1
    padded = (N + 7) // 8 * 8
    cur = np.zeros(padded, dtype=np.uint8)
    cur[:N] = 1
    nxt = np.zeros(padded, dtype=np.uint8)
    cpg = max(16, (nchunks + 63) // 64)
    ngroups = (nchunks + cpg - 1) // cpg
    seg_start = np.empty(nchunks, dtype=np.int64)
    seg_cap = np.empty(nchunks, dtype=np.int64)
    used = np.zeros(nchunks, dtype=np.int64)
    evs = List()
    evs_sc = List()
    given = ev_buf.shape[0] > 0
    at = 0
    for g in range(ngroups):
        total = 0
        for c in range(g * cpg, min(nchunks, (g + 1) * cpg)):
            ln = min(N, (c + 1) * chunk) - c * chunk
            seg_start[c] = total
            seg_cap[c] = ln * runs_guess + 1
            total += seg_cap[c]
        if given:
            evs.append(ev_buf[at:at + total])
            evs_sc.append(sc_buf[at:at + total])
        else:
            evs.append(np.empty(total, dtype=np.uint16))
            evs_sc.append(np.empty(total, dtype=np.int8))
        at += total
    step_cnt = np.zeros((nchunks, MAX_T + 1), dtype=np.int32)
    evals = np.zeros(nchunks, dtype=np.int64)
    cnt_score = np.zeros(nchunks, dtype=np.int64)
    flagged = np.zeros(nchunks, dtype=np.int64)
    work = np.zeros(MAX_T + 1, dtype=np.int64)
    todo = np.empty((ngroups, chunk), dtype=np.int32)  # a step's scratch: one row per task
    return (state, vals, move, cur, nxt, evs, evs_sc, cpg, seg_start, seg_cap, used, step_cnt,
            evals, cnt_score, flagged, work, todo)


def event_room(n, chunk, runs_guess):
    """The events ``core_state`` makes room for at first: ``runs_guess`` per position plus one
    per chunk."""
    N = int(BOOK_SIZES[n])
    return N * runs_guess + (N + chunk - 1) // chunk


@nogil_kernel
def window_due(t, state, toff, window_changes):
    """Whether step ``t`` needs the next replay window (the smaller books' changes at t - 1 are
    past the current one); if so ``state`` gets its steps: as many from t - 1 on as keep it
    within ``window_changes`` changes (at least one)."""
    if t < 2 or t - 1 < state[S_T_HI]:
        return False
    t_lo = t - 1
    t_hi = t_lo + 1
    while t_hi <= MAX_T and toff[t_hi + 1] - toff[t_lo] <= window_changes:
        t_hi += 1
    state[S_T_LO] = t_lo
    state[S_T_HI] = t_hi
    return True


@nogil_kernel
def replay_window(base, offs, starts, scores, toff, state):
    """The window ``window_due`` chose: ``(pos int32[K], score int8[K])``."""
    return _replay_window(base, offs, starts, scores, toff, state[S_T_LO], state[S_T_HI])


@nogil_kernel
def before_step(t, N, chunk, cpg, toff, pos, sc, vals, rev_off, rev_par, cur, evs, evs_sc,
                seg_start, seg_cap, used, state, bits=False):
    """Step ``t``'s preparation: the smaller books' score changes at t - 1 (from the window
    ``pos``/``sc``) written into ``vals`` and their parents flagged in ``cur``; every chunk
    given room for one more event per position.  Returns the groups whose events were moved
    to bigger arrays (their old arrays freed)."""
    if t >= 2:
        state[S_EST] += _replay(state[S_T_LO], t - 1, toff, pos, sc, vals, rev_off, rev_par,
                                cur, bits)
    moved = 0
    for g in range(len(evs)):
        ev = evs[g]
        grown, grown_sc = _grow_group(g, cpg, chunk, N, ev, evs_sc[g], seg_start, seg_cap, used)
        if grown is not ev:
            evs[g] = grown
            evs_sc[g] = grown_sc
            moved += 1
    return moved


@nogil_kernel
def after_step(t, lower_stable, cnt_score, used, evals, flagged, work, state):
    """Step ``t``'s counts (``work[t]``, ``state``'s estimate of the next step's positions,
    stable_from, moves_stable_from); True if the book is stable (stopping rule: ``levels``),
    ``state[S_T_END]`` = t."""
    ns = 0
    na = 0
    est = 0
    for c in range(cnt_score.shape[0]):
        ns += cnt_score[c]
        na += used[c]
        work[t] += evals[c]
        est += flagged[c]
    changes = na - state[S_EVENTS]
    state[S_EVENTS] = na
    state[S_EST] = est
    if t >= 2:
        if ns > 0:
            state[S_STABLE] = t
        if changes > 0:
            state[S_MOVES_STABLE] = t
        if ns == 0 and t - 1 >= lower_stable:
            state[S_T_END] = t
            return True
    return False


@nogil_kernel
def solve_serial(n, base, packed, rev_off, rev_par, offs, starts, scores, lower_stable, chunk,
                 runs_guess, window_changes, ev_buf, sc_buf):
    """Iterate book ``n`` over t = 1 .. until stable (stopping rule: ``levels``), every step on
    this thread.

    ``base`` from ``book_bases(n)``; ``packed`` from ``move_table``; ``rev_*`` from
    ``reverse_edges``; ``offs``/``starts``/``scores``: typed lists of the replay forms
    (``score_changes``) of books 0 .. n - 2; ``lower_stable`` = their max stable_from (1 if
    none); ``chunk``, ``runs_guess``, ``ev_buf``, ``sc_buf``: ``core_state`` (``chunk`` here a
    multiple of 64: the dirty flags are bits); ``window_changes``: the smaller books'
    score changes are listed (5 bytes each) for as many steps at a time as keep the list within
    this many changes (at least one step), each window by one pass over their replay forms.

    Returns ``(evs, evs_sc, cpg, seg_start int64[K], step_cnt int32[K, MAX_T + 1], work
    int64[MAX_T + 1], state)``: ``evs``/``evs_sc`` typed lists of uint16/int8 arrays, the
    events of chunks ``g * cpg .. (g + 1) * cpg - 1`` at ``g``; chunk k's start at
    ``seg_start[k]`` in its group's array, ``step_cnt[k, t]`` of them for step t = 1, 2, ... in
    turn (layout at ``_eval_chunk``); ``work[t]`` = positions evaluated at step t;
    ``state[S_STABLE]``, ``state[S_MOVES_STABLE]``: the book's stable_from and
    moves_stable_from, ``state[S_T_END]`` the last step computed."""
    N = BOOK_SIZES[n]
    (state, vals, move, cur, nxt, evs, evs_sc, cpg, seg_start, seg_cap, used, step_cnt, evals,
     cnt_score, flagged, work, todo) = core_state(n, base, chunk, runs_guess, ev_buf, sc_buf)
    nchunks = seg_start.shape[0]
    # one thread: the dirty flags as bits (``_flag``), every position's set for t = 1
    words = (N + 63) // 64 + 1
    cur = np.zeros(words * 8, dtype=np.uint8)
    nxt = np.zeros(words * 8, dtype=np.uint8)
    for i in range(N):
        _flag(cur, cur.view(np.uint64), i, True)
    toff = replay_count(offs, starts, scores)
    pos = np.empty(0, dtype=np.int32)
    sc = np.empty(0, dtype=np.int8)
    for t in range(1, MAX_T + 1):
        if window_due(t, state, toff, window_changes):
            pos = np.empty(0, dtype=np.int32)  # free the last window first
            sc = np.empty(0, dtype=np.int8)
            pos, sc = replay_window(base, offs, starts, scores, toff, state)
        before_step(t, N, chunk, cpg, toff, pos, sc, vals, rev_off, rev_par, cur, evs, evs_sc,
                    seg_start, seg_cap, used, state, True)
        step_serial(len(evs), cpg, nchunks, chunk, N, base[n], base[n - 1] if n >= 1 else 0,
                    packed, vals, move, cur, nxt, rev_off, rev_par, evs, evs_sc, seg_start, used,
                    step_cnt, evals, t, cnt_score, flagged, todo, True)
        tmp = cur  # cur is all zero again: it becomes the next step's nxt
        cur = nxt
        nxt = tmp
        if after_step(t, lower_stable, cnt_score, used, evals, flagged, work, state):
            break
    return evs, evs_sc, cpg, seg_start, step_cnt, work, state


# --------------------------------------------------------------------------------------------
# A one-thread book whose steps a second thread joins when it is free
# --------------------------------------------------------------------------------------------
#
# ``solve_shared`` is ``solve_serial`` with each phase of a step split by chunks that the
# threads taking part claim one at a time (an atomic counter per step and phase), and the
# threads meeting at a spin barrier after each phase (``sync``): after the evaluations (every
# one of them reads V(., t - 1)), after the changes, and after the bookkeeping that only the
# first thread does (counts and stopping rule, the smaller books' replay, event room).  Each
# thread flags parents in flags of its own (``flags[thread, parity of the step]``, bits: a
# flag is a read-modify-write of its word), and a chunk's evaluator reads and clears both
# threads' flags of the step.  The second thread (``help_shared``) asks to join and is let in
# at the next step; until then the first runs every step alone, at the cost of a few atomic
# additions per step.  A book solved so has the same events as ``solve_serial``'s: the
# chunks' work does not depend on who does it.
#
# On a busy machine a thread that has claimed a chunk may lose its core for a scheduler slice
# (milliseconds) while the other waits at the barrier: the first thread times its steps and
# its waits, and once it has waited more than half of the time of the steps shared so far (it
# would have done better alone), from ``LEAVE_AFTER`` shared steps on, it sends the second
# thread away (``Y_LEAVE``) and goes on alone.

#: ``sync`` slots: the second thread's request, the step it joins at, the step the book
#: stopped at, "finished" (the first thread's end: a waiting thread gives up), and "leave".
Y_JOIN, Y_JOINED_AT, Y_STOP, Y_DONE, Y_LEAVE = range(5)
#: Arrivals at the three barriers of step t: ``Y_ARRIVE + 3 * t + phase``.
Y_ARRIVE = 5
#: Chunks claimed in the two phases of step t: ``Y_CLAIM + 2 * t + phase``.
Y_CLAIM = Y_ARRIVE + 3 * (MAX_T + 2)
SYNC_SIZE = Y_CLAIM + 2 * (MAX_T + 2)
#: Shared steps before the first thread may send the second away.
LEAVE_AFTER = 3


@kernel
def _arrive(sync, slot, nth):
    """Arrive at the barrier counted in ``sync[slot]`` and wait for all ``nth`` threads; False
    if the first thread finished (gave up) meanwhile."""
    atomic_add(sync, slot, 1)
    return wait_until(sync, slot, nth, Y_DONE)


@kernel
def _shared_step(tid, t, nth, chunk, N, base_n, rev_lo, packed, vals, move, flags, evs, evs_sc,
                 cpg, seg_start, used, step_cnt, evals, rev_off, rev_par, cnt_score, flagged,
                 todo, sync):
    """Both phases of step ``t`` on thread ``tid`` of ``nth``, chunks claimed one at a time,
    up to the barrier after the changes.  Returns the cycles spent waiting at the two
    barriers, or -1 if given up."""
    nchunks = seg_start.shape[0]
    cur0 = flags[0, t & 1]
    cur1 = flags[1, t & 1]
    nxt = flags[tid, (t + 1) & 1].view(np.uint8)
    while True:
        c = atomic_add(sync, Y_CLAIM + 2 * t, 1)
        if c >= nchunks:
            break
        g = c // cpg
        _eval_chunk(c, chunk, N, base_n, packed, vals, move, cur0, cur1, evs[g], evs_sc[g],
                    seg_start, used, step_cnt, evals, t, todo, True)
    w0 = cycles()
    if not _arrive(sync, Y_ARRIVE + 3 * t, nth):
        return -1
    waited = cycles() - w0
    while True:
        c = atomic_add(sync, Y_CLAIM + 2 * t + 1, 1)
        if c >= nchunks:
            break
        g = c // cpg
        _apply_chunk(c, chunk, base_n, rev_lo, rev_off, rev_par, vals, nxt, evs[g], evs_sc[g],
                     seg_start, used, step_cnt, t, cnt_score, flagged, True)
    w0 = cycles()
    if not _arrive(sync, Y_ARRIVE + 3 * t + 1, nth):
        return -1
    return waited + cycles() - w0


def shared_flags(n, chunk):
    """``flags uint64[2, 2, words]`` for ``solve_shared``: per thread, per parity of the
    step, one bit a position (``chunk`` a multiple of 64)."""
    return np.zeros((2, 2, (int(BOOK_SIZES[n]) + 63) // 64 + 1), dtype=np.uint64)


@nogil_kernel
def solve_shared(n, base, packed, rev_off, rev_par, offs, starts, scores, lower_stable, chunk,
                 window_changes, state, vals, move, evs, evs_sc, cpg, seg_start, seg_cap, used,
                 step_cnt, evals, cnt_score, flagged, work, flags, sync):
    """``solve_serial`` (same arguments and results) on the arrays of ``core_state`` made by
    the caller, which ``help_shared`` on another thread may share (``flags``: ``shared_flags``;
    ``sync``: int64[SYNC_SIZE], zero).  Returns ``(evs, evs_sc, cpg, seg_start, step_cnt, work,
    state)``; ``sync[Y_DONE]`` is 1 at the end."""
    N = BOOK_SIZES[n]
    base_n = base[n]
    rev_lo = base[n - 1] if n >= 1 else 0
    first = flags[0, 1]  # step 1 reads parity 1: every position dirty
    for i in range(N):
        first[i >> 6] |= np.uint64(1) << np.uint64(i & 63)
    toff = replay_count(offs, starts, scores)
    pos = np.empty(0, dtype=np.int32)
    sc = np.empty(0, dtype=np.int8)
    todo = np.empty(chunk, dtype=np.int32)
    before_step(1, N, chunk, cpg, toff, pos, sc, vals, rev_off, rev_par, first.view(np.uint8),
                evs, evs_sc, seg_start, seg_cap, used, state, True)
    nth = 1
    shared = 0  # steps shared so far, their cycles and the cycles waited in them
    spent = 0
    waits = 0
    for t in range(1, MAX_T + 1):
        c0 = cycles()
        waited = _shared_step(0, t, nth, chunk, N, base_n, rev_lo, packed, vals, move, flags,
                              evs, evs_sc, cpg, seg_start, used, step_cnt, evals, rev_off,
                              rev_par, cnt_score, flagged, todo, sync)
        # bookkeeping, the helper (if any) waiting at the third barrier
        if nth == 2:
            shared += 1
            spent += cycles() - c0
            waits += waited
        stop = after_step(t, lower_stable, cnt_score, used, evals, flagged, work, state)
        joined = nth
        if nth == 2 and shared >= LEAVE_AFTER and 2 * waits > spent:
            joined = 1
            atomic_store(sync, Y_LEAVE, t)
        if stop:
            atomic_store(sync, Y_STOP, t)
        else:
            if window_due(t + 1, state, toff, window_changes):
                pos = np.empty(0, dtype=np.int32)  # free the last window first
                sc = np.empty(0, dtype=np.int8)
                pos, sc = replay_window(base, offs, starts, scores, toff, state)
            before_step(t + 1, N, chunk, cpg, toff, pos, sc, vals, rev_off, rev_par,
                        flags[0, (t + 1) & 1].view(np.uint8), evs, evs_sc, seg_start, seg_cap,
                        used, state, True)
            if nth == 1 and atomic_load(sync, Y_JOIN) != 0 and atomic_load(sync, Y_LEAVE) == 0:
                joined = 2
                atomic_store(sync, Y_JOINED_AT, t + 1)
        _arrive(sync, Y_ARRIVE + 3 * t + 2, nth)
        nth = joined
        if stop:
            break
    atomic_store(sync, Y_DONE, 1)
    return evs, evs_sc, cpg, seg_start, step_cnt, work, state


@nogil_kernel
def help_shared(n, base, packed, rev_off, rev_par, chunk, vals, move, evs, evs_sc, cpg,
                seg_start, used, step_cnt, evals, cnt_score, flagged, flags, sync):
    """Join the ``solve_shared`` of book ``n`` running on another thread with these arrays, at
    its next step, and take chunks of every step until it stops or sends this thread away;
    return at once if it has finished.  Returns the steps taken part in."""
    atomic_store(sync, Y_JOIN, 1)
    if not wait_until(sync, Y_JOINED_AT, 1, Y_DONE):
        return 0
    N = BOOK_SIZES[n]
    base_n = base[n]
    rev_lo = base[n - 1] if n >= 1 else 0
    todo = np.empty(chunk, dtype=np.int32)
    t = atomic_load(sync, Y_JOINED_AT)
    steps = 0
    while t <= MAX_T:
        if _shared_step(1, t, 2, chunk, N, base_n, rev_lo, packed, vals, move, flags, evs,
                        evs_sc, cpg, seg_start, used, step_cnt, evals, rev_off, rev_par,
                        cnt_score, flagged, todo, sync) < 0:
            break
        if not _arrive(sync, Y_ARRIVE + 3 * t + 2, 2):
            break
        steps += 1
        if atomic_load(sync, Y_STOP) != 0 or atomic_load(sync, Y_LEAVE) != 0:
            break
        t += 1
    return steps


def run_starts(step_cnt, t_end):
    """``rstart int64[K + 1]``: the runs of chunk k (one per event) are the ``rstart[k]`` ..
    ``rstart[k + 1] - 1``-th of the book (``step_cnt`` from ``solve_serial``)."""
    rstart = np.zeros(step_cnt.shape[0] + 1, dtype=np.int64)
    np.cumsum(step_cnt[:, 1:t_end + 1].sum(axis=1, dtype=np.int64), out=rstart[1:])
    return rstart


@kernel
def _fill_chunk(c, chunk, N, ev, ev_sc, seg_start, step_cnt, t_end, rstart, off, run_from,
                run_score, run_move, fill, tmp):
    """``fill_runs`` for chunk ``c`` (its events in ``ev``/``ev_sc``); ``fill`` int64[chunk]
    and ``tmp`` uint32[the most events of a chunk] scratch.  A chunk's runs are its events
    (``rstart``: ``run_starts``), so it is sorted on its own: its events counted per position
    in the chunk-sized ``fill`` (in the first-level cache), then each run placed as one uint32
    (plies left, score, move + 1) in ``tmp``, which is then split into the three arrays in
    order (a quarter less time than three scattered stores a run)."""
    lo = c * chunk
    L = min(N, lo + chunk) - lo
    e0 = seg_start[c]
    E = rstart[c + 1] - rstart[c]
    fill[:L] = 0
    for e in range(e0, e0 + E):
        fill[ev[e] >> 3] += 1
    at = 0
    for k in range(L):
        cnt = fill[k]
        off[lo + k] = rstart[c] + at
        fill[k] = at
        at += cnt
    e = e0
    for t in range(1, t_end + 1):
        for _ in range(step_cnt[c, t]):
            x = ev[e]
            k = np.int64(x >> 3)
            j = fill[k]
            tmp[j] = (np.uint32(t) | (np.uint32(np.uint8(ev_sc[e])) << np.uint32(8))
                      | (np.uint32(x & 7) << np.uint32(16)))
            fill[k] = j + 1
            e += 1
    r0 = rstart[c]
    for j in range(E):
        y = tmp[j]
        run_from[r0 + j] = np.int16(y & 0xFF)
        run_score[r0 + j] = np.int8(np.uint8((y >> 8) & 0xFF))
        run_move[r0 + j] = np.int8(np.int64((y >> 16) & 7) - 1)
    if lo + L == N:
        off[N] = rstart[c + 1]


@kernel
def _fill_scratch(chunk, rstart):
    """``_fill_chunk``'s scratch: ``(fill int64[chunk], tmp uint32[most events of a chunk])``."""
    most = 0
    for c in range(rstart.shape[0] - 1):
        most = max(most, rstart[c + 1] - rstart[c])
    return np.empty(chunk, dtype=np.int64), np.empty(most, dtype=np.uint32)


@nogil_kernel
def fill_runs(g0, g1, N, chunk, evs, evs_sc, cpg, seg_start, step_cnt, t_end, rstart, off,
              run_from, run_score, run_move):
    """Sort the events of groups ``g0 .. g1 - 1`` (``solve_serial``'s) by position into runs
    (layout: ``levels``), freeing each group's events once its runs are written: ``off``
    (int64[N + 1]) and the run arrays (``R = rstart[-1]`` long) filled for their chunks."""
    nchunks = seg_start.shape[0]
    fill, tmp = _fill_scratch(chunk, rstart)
    for g in range(g0, g1):
        ev = evs[g]
        ev_sc = evs_sc[g]
        for c in range(g * cpg, min(nchunks, (g + 1) * cpg)):
            _fill_chunk(c, chunk, N, ev, ev_sc, seg_start, step_cnt, t_end, rstart, off,
                        run_from, run_score, run_move, fill, tmp)
        evs[g] = np.empty(0, dtype=np.uint16)  # free this group's events
        evs_sc[g] = np.empty(0, dtype=np.int8)


@nogil_kernel
def fill_runs_shared(N, chunk, evs, evs_sc, cpg, seg_start, step_cnt, t_end, rstart, off,
                     run_from, run_score, run_move, claims, wait):
    """``fill_runs`` freeing nothing, by the threads that call it at the same time, each
    claiming the next chunk (``claims``: int64[3], zero: chunks claimed, chunks done, and a
    slot left 0); with
    ``wait``, return only when every chunk is done (a thread that starts late finds none left
    and returns at once)."""
    nchunks = seg_start.shape[0]
    fill, tmp = _fill_scratch(chunk, rstart)
    while True:
        c = atomic_add(claims, 0, 1)
        if c >= nchunks:
            break
        g = c // cpg
        _fill_chunk(c, chunk, N, evs[g], evs_sc[g], seg_start, step_cnt, t_end, rstart, off,
                    run_from, run_score, run_move, fill, tmp)
        atomic_add(claims, 1, 1)
    if wait:
        wait_until(claims, 1, nchunks, 2)  # (slot 2, never set: no giving up)
