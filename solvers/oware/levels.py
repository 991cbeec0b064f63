"""Oware (Abapa) solver kernels: a book solved one plies-left step at a time, its events sorted
into runs, and the one-step check that verification replays.

Value with ``t`` plies left (``t`` = 1 .. ``MAX_T``)::

    V(s, 0) = 0
    V(s, t) = max over legal m of captured(m) - V(flip(child(s, m)), t - 1)
    V(s, t) = seeds on the mover's side              (no legal move, t >= 1)

Runs (the layout of a solved book, ``tbdb.games.oware.book.Book``): for each position the
maximal ranges of ``t`` over which ``(score, best_move)`` is constant::

    run_offsets int64[N + 1]   runs of position i are run_offsets[i] .. run_offsets[i+1] - 1
    run_from    int16[R]       first t of the run (the first run of a position starts at t = 1)
    run_score   int8[R]        V(s, t) on the run
    run_move    int8[R]        best move on the run (0..5, or -1: no legal move)

Indices are in the global index space of ``index`` (books 0 .. n end to end, then ZERO and
HIGH).  The Python driver that validates the input and calls these kernels is
``tbdb.games.oware.book`` (``solve_book``).
"""
from __future__ import annotations

import numpy as np

from tbdb.solvers.jit import kernel, nogil_kernel, parallel_kernel, parallel_nogil_kernel, prange
from tbdb.solvers.oware.index import BOOK_SIZES
from tbdb.solvers.oware.moves import IDX_BITS, IDX_MASK

MAX_T = 200

# --------------------------------------------------------------------------------------------
# Solver
# --------------------------------------------------------------------------------------------
#
# Book n is solved for t = 1, 2, ... (t = plies left).  One int8 array ``vals`` in the global
# index space (``index``) holds V(., t - 1) when step t starts and V(., t) when it ends.
#
# The smaller books are not recomputed: their runs are replayed as "value change events" (a run
# starting at t says "from t on, position p is worth s"): before step t the runs starting at
# t - 1 are written into vals, so that it holds V(., t - 1) of books 0 .. n - 2.  Book n - 1 is
# never reached (a capture takes at least 2 seeds); its part of vals stays 0 and is never read.
#
# Only "dirty" positions are evaluated: at step t, the positions of book n with a child whose
# score changed between t - 2 and t - 1 (all positions at t = 1).  Any other position has the
# same children scores as at step t - 1, hence the same value and best move (both are functions
# of the children's scores only), and keeps them.  Dirty flags (one byte per position) are set by
# walking the reverse move graph (parents) from every changed position: from book n's own
# changes at the previous step, and from the replayed lower-book changes before the step.
#
# A step has two phases so that every evaluation reads V(., t - 1) only: phase 1 evaluates the
# dirty positions and records an event (position, score, move) whenever (score, best move)
# differs from step t - 1 (every position at t = 1); phase 2 stores the changed scores into vals
# and flags their parents for step t + 1.  Each phase runs over chunks of positions, in parallel
# (prange) for the big steps of big books.  At the end the events are sorted by position into
# runs.
#
# Stopping rule, and why it is exact.  Let L = max stable_from of books 0 .. n - 2: their scores
# satisfy V(., t') = V(., L) for all L <= t' <= MAX_T.  Suppose step t >= 2 changed no score of
# book n, V(., t) = V(., t - 1) on book n, and t - 1 >= L.  Step t + 1 computes every value and
# best move of book n from V(child, t), and step t computed them from V(child, t - 1) with the
# very same function; children lie in book n (same scores at t and t - 1 by assumption) or in
# books <= n - 2 (same scores at t and t - 1 because t - 1 >= L).  So step t + 1 reproduces step
# t exactly, scores and best moves alike, and the same holds again at t + 2 (now t >= L too), and
# so on by induction up to MAX_T: nothing can change after t, and the last run of every position
# extends to MAX_T.  stable_from(n) = the last step that changed a score (1 if none did after
# t = 1); moves_stable_from(n) = the last step that changed a score or a best move.


@nogil_kernel
def lower_count(run_offsets, run_from, run_score, toff):
    """Replay schedule, pass 1, for one smaller book (its runs, layout in the module doc): add to
    ``toff[t + 1]`` (int64[MAX_T + 2]) the number of its positions whose score changes at step t
    (a run whose score differs from the previous run's, or from 0 for the first run: the solver
    starts from V(., 0) = 0; runs that change only the best move are not needed)."""
    N = run_offsets.shape[0] - 1
    for p in range(N):
        prev = 0
        for r in range(run_offsets[p], run_offsets[p + 1]):
            sc = run_score[r]
            if sc != prev:
                toff[run_from[r] + 1] += 1
                prev = sc


@nogil_kernel
def lower_fill(base_m, run_offsets, run_from, run_score, fill, pos, score):
    """Replay schedule, pass 2, for the smaller book whose first global index is ``base_m``: the
    same changes as ``lower_count``, written at ``fill[t]`` (then incremented) into
    ``pos int32[R]`` (global index) and ``score int8[R]``."""
    N = run_offsets.shape[0] - 1
    for p in range(N):
        prev = 0
        for r in range(run_offsets[p], run_offsets[p + 1]):
            sc = run_score[r]
            if sc != prev:
                t = run_from[r]
                j = fill[t]
                pos[j] = base_m + p
                score[j] = sc
                fill[t] = j + 1
                prev = sc


@nogil_kernel
def reverse_edges(n, base, packed):
    """Parents of every position that can be a child of book ``n`` (``packed``
    from ``moves.move_table``).

    Keys are compact indices: a global index ``p < base[n - 1]`` (books 0 .. n - 2) keeps its
    value, position ``i`` of book ``n`` becomes ``lo + i`` with ``lo = base[n - 1]`` (0 if
    n = 0).  Returns ``(rev_off int32[lo + N + 1], rev_par int32[E])``: the parents (indices in
    book n, one per move) of key ``k`` are ``rev_par[rev_off[k] .. rev_off[k+1] - 1]``.  Illegal
    moves and the pseudo move of positions without a legal move are left out."""
    return child_parents(n, base, packed, IDX_MASK)


@nogil_kernel
def child_parents(n, base, packed, mask):
    """``reverse_edges`` of a move table whose child cells are ``packed & mask`` (the levels
    solver's moves and the change-list solver's, which keep other fields above the cell)."""
    N = packed.shape[0]
    lo = base[n - 1] if n >= 1 else 0
    base_n = base[n]
    zero = base[n + 1]  # the constant cells: pseudo moves, no child
    rev_off = np.zeros(lo + N + 1, dtype=np.int32)
    for i in range(N):
        for h in range(6):
            g = np.int64(packed[i, h] & mask)
            if g < zero:
                k = g if g < lo else g - base_n + lo
                rev_off[k + 1] += 1
    for k in range(lo + N):
        rev_off[k + 1] += rev_off[k]
    fill = rev_off[: lo + N].copy()
    rev_par = np.empty(rev_off[lo + N], dtype=np.int32)
    for i in range(N):
        for h in range(6):
            g = np.int64(packed[i, h] & mask)
            if g < zero:
                k = g if g < lo else g - base_n + lo
                rev_par[fill[k]] = i
                fill[k] += 1
    return rev_off, rev_par


# De Bruijn table: _DEBRUIJN_TAB[((w & -w) * _DEBRUIJN) >> 58] = index of the lowest set bit of w.
_DEBRUIJN = np.uint64(0x03F79D71B4CB0A89)
_DEBRUIJN_TAB = np.zeros(64, dtype=np.int64)
for _i in range(64):
    _DEBRUIJN_TAB[((1 << _i) * 0x03F79D71B4CB0A89 & 0xFFFFFFFFFFFFFFFF) >> 58] = _i
del _i


@kernel
def _low_byte(w):
    """Index (0..7) of the lowest non-zero byte of the uint64 ``w`` (whose bytes are 0 or 1)."""
    low = w & (~w + np.uint64(1))
    return _DEBRUIJN_TAB[(low * _DEBRUIJN) >> np.uint64(58)] >> 3


@kernel
def _eval_chunk(c, chunk, N, base_n, zero, packed, vals, move, cur64, ev_local, ev_score,
                ev_move, seg_start, seg_used, step_cnt, t):
    """Phase 1 of step t for positions ``c * chunk .. min(N, (c + 1) * chunk) - 1`` (``chunk``
    a multiple of 8).  For every dirty position i (byte i of the flags ``cur64``, uint64 words,
    is 1; the flags are cleared) compute its value and best move from ``vals`` (V at t - 1, see
    ``move_table`` for the scoring); if (score, move) differs from the stored one, set ``move[i]``
    and append the event (i - c * chunk, score, move) to chunk c's segment (which must have room
    for one event per position of the chunk, plus one).  ``vals`` is only read: phase 2 stores the
    scores.  ``step_cnt[c, t]`` = events appended."""
    lo = c * chunk
    hi = min(N, lo + chunk)
    w0 = seg_start[c] + seg_used[c]
    wr = w0
    for wi in range(lo >> 3, (hi + 7) >> 3):
        w = cur64[wi]
        if w == 0:
            continue
        cur64[wi] = 0
        while w != 0:
            i = (wi << 3) + _low_byte(w)
            w &= w - np.uint64(1)
            best = np.int64(-32768)
            for h in range(6):
                x = packed[i, h]
                k = (np.int64(x >> IDX_BITS) - np.int64(vals[x & IDX_MASK])) * 8 + (7 - h)
                best = k if k > best else best
            sc = best >> 3
            mv = 7 - (best & 7)
            if mv == 0 and (packed[i, 0] & IDX_MASK) == zero:
                mv = -1
            # branch-free append (the slot past the end is scratch): a mispredicted branch here
            # would stall on the loads above and serialise the cache misses of the positions
            changed = (sc != vals[base_n + i]) | (mv != move[i])
            move[i] = mv
            ev_local[wr] = i - lo
            ev_score[wr] = sc
            ev_move[wr] = mv
            wr += changed
    seg_used[c] = wr - seg_start[c]
    step_cnt[c, t] = wr - w0


@kernel
def _apply_chunk(c, chunk, base_n, rev_lo, rev_off, rev_par, vals, nxt, ev_local, ev_score,
                 seg_start, seg_used, step_cnt, t, cnt_score):
    """Phase 2 of step t, same positions as ``_eval_chunk``: for each event of this step whose
    score differs from ``vals``, store the score and flag the position's parents in ``nxt``
    (dirty at step t + 1).  Other chunks may set the same ``nxt`` byte concurrently: a benign
    race, the only value ever stored there during a step is 1.  ``cnt_score[c]`` = number of
    score changes."""
    lo = c * chunk
    end = seg_start[c] + seg_used[c]
    ns = 0
    for e in range(end - step_cnt[c, t], end):
        i = lo + np.int64(ev_local[e])
        g = base_n + i
        sc = ev_score[e]
        if vals[g] != sc:
            vals[g] = sc
            ns += 1
            k = rev_lo + i
            for r in range(rev_off[k], rev_off[k + 1]):
                nxt[rev_par[r]] = 1
    cnt_score[c] = ns


@nogil_kernel
def _core_state(n, base, chunk, runs_guess):
    """Allocate ``solve_core``'s state (kept out of the parallel function: there numba would
    turn every array initialisation into a parallel loop that wakes the thread pool)."""
    N = BOOK_SIZES[n]
    vals = np.zeros(base[n + 1] + 2, dtype=np.int8)  # V(., t - 1), then V(., t) for book n
    vals[base[n + 1] + 1] = 127  # HIGH: target of illegal moves
    move = np.full(N, -2, dtype=np.int8)  # -2: no step yet, so every position has an event at t=1
    n8 = (N + 7) >> 3
    cur = np.zeros(n8 * 8, dtype=np.uint8)
    cur[:N] = 1  # every position is dirty at t = 1
    nxt = np.zeros(n8 * 8, dtype=np.uint8)
    nchunks = (N + chunk - 1) // chunk
    seg_start = np.empty(nchunks, dtype=np.int64)
    seg_cap = np.empty(nchunks, dtype=np.int64)
    seg_used = np.zeros(nchunks, dtype=np.int64)
    step_cnt = np.zeros((nchunks, MAX_T + 1), dtype=np.int32)
    total = 0
    for c in range(nchunks):
        ln = min(N, (c + 1) * chunk) - c * chunk
        seg_start[c] = total
        seg_cap[c] = ln * runs_guess
        total += seg_cap[c]
    ev_local = np.empty(total, dtype=np.uint16)
    ev_score = np.empty(total, dtype=np.int8)
    ev_move = np.empty(total, dtype=np.int8)
    cnt_score = np.zeros(nchunks, dtype=np.int64)
    return (vals, move, cur, nxt, seg_start, seg_cap, seg_used, step_cnt, ev_local, ev_score,
            ev_move, cnt_score)


@kernel
def _grow_events(N, chunk, seg_start, seg_cap, seg_used, ev_local, ev_score, ev_move):
    """Give every chunk 1.5 times its event capacity (at least room for one more event per
    position, plus one); ``seg_cap`` is updated in place.  Returns the new
    ``(seg_start, ev_local, ev_score, ev_move)``."""
    nchunks = seg_start.shape[0]
    new_start = np.empty(nchunks, dtype=np.int64)
    new_total = 0
    for c in range(nchunks):
        ln = min(N, (c + 1) * chunk) - c * chunk
        seg_cap[c] = max(seg_cap[c] + seg_cap[c] // 2, seg_used[c] + ln + 1)
        new_start[c] = new_total
        new_total += seg_cap[c]
    n_local = np.empty(new_total, dtype=np.uint16)
    n_score = np.empty(new_total, dtype=np.int8)
    n_move = np.empty(new_total, dtype=np.int8)
    for c in range(nchunks):
        a = seg_start[c]
        z = new_start[c]
        for j in range(seg_used[c]):
            n_local[z + j] = ev_local[a + j]
            n_score[z + j] = ev_score[a + j]
            n_move[z + j] = ev_move[a + j]
    return new_start, n_local, n_score, n_move


@parallel_nogil_kernel
def solve_core(n, base, packed, rev_off, rev_par, low_toff, low_pos, low_score,
                lower_stable, chunk, parallel, par_min_dirty, runs_guess):
    """Iterate book ``n`` over t = 1 .. until stable (see the stopping rule above).

    ``base`` from ``book_bases(n)``; ``packed`` from ``move_table``; ``rev_*`` from
    ``reverse_edges``; ``low_toff int64[MAX_T + 2]``, ``low_pos int32[L]``, ``low_score int8[L]``:
    the score changes of books 0 .. n - 2 at step t are ``low_toff[t] .. low_toff[t + 1] - 1``
    (from ``lower_count``/``lower_fill``); ``lower_stable`` = max stable_from of
    books 0 .. n - 2 (1 if none); ``chunk`` = positions per task, a multiple of 8 and at most
    65536; ``parallel``: run the chunks of a step in parallel (prange) when about
    ``par_min_dirty`` positions or more are dirty (estimated from the changes that flagged
    them), else one after the other; ``runs_guess`` = initial event capacity per position.

    Returns ``(ev_local uint16[C], ev_score int8[C], ev_move int8[C], seg_start int64[K],
    step_cnt int32[K, MAX_T + 1], stable_from, moves_stable_from, t_end)``: chunk k's events
    start at ``seg_start[k]``, ``step_cnt[k, t]`` of them for step t = 1, 2, ... in turn; an event
    is (position - k * chunk, score, best move); ``t_end`` = the last step computed."""
    N = BOOK_SIZES[n]
    base_n = base[n]
    rev_lo = base[n - 1] if n >= 1 else 0
    zero = base[n + 1]
    nchunks = (N + chunk - 1) // chunk
    (vals, move, cur, nxt, seg_start, seg_cap, seg_used, step_cnt, ev_local, ev_score, ev_move,
     cnt_score) = _core_state(n, base, chunk, runs_guess)
    n_events = 0
    stable_from = 1
    moves_stable_from = 1
    t_end = MAX_T
    est_dirty = N  # every position is dirty at t = 1
    for t in range(1, MAX_T + 1):
        cur64 = cur.view(np.uint64)
        if t >= 2:
            # replay the lower books' changes at t - 1, flagging their parents
            tt = t - 1
            for j in range(low_toff[tt], low_toff[tt + 1]):
                p = low_pos[j]
                sc = low_score[j]
                if vals[p] != sc:
                    vals[p] = sc
                    est_dirty += rev_off[p + 1] - rev_off[p]
                    for r in range(rev_off[p], rev_off[p + 1]):
                        cur[rev_par[r]] = 1
        # every chunk needs room for one event per position; grow all chunks together
        grow = False
        for c in range(nchunks):
            if seg_cap[c] - seg_used[c] <= min(N, (c + 1) * chunk) - c * chunk:
                grow = True
        if grow:
            seg_start, ev_local, ev_score, ev_move = _grow_events(
                N, chunk, seg_start, seg_cap, seg_used, ev_local, ev_score, ev_move)
        if parallel and est_dirty >= par_min_dirty:
            for c in prange(nchunks):
                _eval_chunk(c, chunk, N, base_n, zero, packed, vals, move, cur64, ev_local,
                            ev_score, ev_move, seg_start, seg_used, step_cnt, t)
            for c in prange(nchunks):
                _apply_chunk(c, chunk, base_n, rev_lo, rev_off, rev_par, vals, nxt, ev_local,
                             ev_score, seg_start, seg_used, step_cnt, t, cnt_score)
        else:
            for c in range(nchunks):
                _eval_chunk(c, chunk, N, base_n, zero, packed, vals, move, cur64, ev_local,
                            ev_score, ev_move, seg_start, seg_used, step_cnt, t)
            for c in range(nchunks):
                _apply_chunk(c, chunk, base_n, rev_lo, rev_off, rev_par, vals, nxt, ev_local,
                             ev_score, seg_start, seg_used, step_cnt, t, cnt_score)
        tmp = cur  # cur is all zero again: it becomes the next step's nxt
        cur = nxt
        nxt = tmp
        ns = 0
        na = 0
        for c in range(nchunks):
            ns += cnt_score[c]
            na += seg_used[c]
        changed = na - n_events
        n_events = na
        est_dirty = ns * 4  # about 3-4 parents per position
        if t >= 2:
            if ns > 0:
                stable_from = t
            if changed > 0:
                moves_stable_from = t
            if ns == 0 and t - 1 >= lower_stable:
                t_end = t
                break
    return (ev_local, ev_score, ev_move, seg_start, step_cnt,
            stable_from, moves_stable_from, t_end)


@kernel
def _count_runs_chunk(c, chunk, seg_start, step_cnt, ev_local, t_end, off):
    lo = c * chunk
    e = seg_start[c]
    for t in range(1, t_end + 1):
        for _ in range(step_cnt[c, t]):
            off[lo + np.int64(ev_local[e]) + 1] += 1
            e += 1


@kernel
def _fill_runs_chunk(c, chunk, seg_start, step_cnt, ev_local, ev_score, ev_move, t_end, fill,
                     run_from, run_score, run_move):
    lo = c * chunk
    e = seg_start[c]
    for t in range(1, t_end + 1):
        for _ in range(step_cnt[c, t]):
            p = lo + np.int64(ev_local[e])
            j = fill[p]
            run_from[j] = t
            run_score[j] = ev_score[e]
            run_move[j] = ev_move[e]
            fill[p] = j + 1
            e += 1


@nogil_kernel
def events_to_runs(N, chunk, seg_start, step_cnt, ev_local, ev_score, ev_move, t_end):
    """Sort ``solve_core``'s events by position into runs (layout in the module doc).  Returns
    ``(run_offsets int64[N + 1], run_from int16[R], run_score int8[R], run_move int8[R])``."""
    nchunks = seg_start.shape[0]
    off = np.zeros(N + 1, dtype=np.int64)
    for c in range(nchunks):
        _count_runs_chunk(c, chunk, seg_start, step_cnt, ev_local, t_end, off)
    for i in range(N):
        off[i + 1] += off[i]
    R = off[N]
    run_from = np.empty(R, dtype=np.int16)
    run_score = np.empty(R, dtype=np.int8)
    run_move = np.empty(R, dtype=np.int8)
    fill = off[:N].copy()
    for c in range(nchunks):
        _fill_runs_chunk(c, chunk, seg_start, step_cnt, ev_local, ev_score, ev_move, t_end,
                         fill, run_from, run_score, run_move)
    return off, run_from, run_score, run_move


@parallel_kernel
def check_step(move_child, gain, prev, own_seeds, score, move, bad):
    """One plies-left step of a book's verification.  For each position i: the best of
    ``gain[i, h] - prev[move_child[i, h]]`` over its legal moves (``move_child`` -1: illegal),
    the lowest such house, or its own seeds and -1 with no legal move; flags ``bad[i]`` where
    the stored ``score``/``move`` disagree.  ``prev`` holds V(., t - 1) of the child books."""
    n = move_child.shape[0]
    for i in prange(n):
        best = np.int16(-32768)
        best_house = -1
        for h in range(6):
            g = move_child[i, h]
            if g >= 0:
                v = np.int16(gain[i, h] - prev[g])
                if v > best:
                    best = v
                    best_house = h
        if best_house < 0:
            best = own_seeds[i]
        if score[i] != best or move[i] != best_house:
            bad[i] = True
