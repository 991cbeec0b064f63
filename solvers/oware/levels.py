"""Oware (Abapa) endgame books under the 200-ply limit: Numba kernels.

Rules: docs/rules/oware.md.  A position is 12 house counts seen from the player to move
(houses 0-5 the mover's, 6-11 the opponent's, sowing 0 -> 1 -> ... -> 11 -> 0).  Book ``n`` holds
the ``C(n + 11, 11)`` positions with ``n`` seeds, indexed by lexicographic rank (house 0 most
significant; rank 0 = all seeds in house 11).

Value with ``t`` plies left (``t`` = 1 .. ``MAX_T``)::

    V(s, 0) = 0
    V(s, t) = max over legal m of captured(m) - V(flip(child(s, m)), t - 1)
    V(s, t) = seeds on the mover's side              (no legal move, t >= 1)

A book is stored as *runs*: for each position the maximal ranges of ``t`` over which
``(score, best_move)`` is constant (``best_move`` = lowest optimal house, -1 = no legal move)::

    run_offsets int64[N + 1]   runs of position i are run_offsets[i] .. run_offsets[i+1] - 1
    run_from    int16[R]       first t of the run (the first run of a position starts at t = 1)
    run_score   int8[R]        V(s, t) on the run
    run_move    int8[R]        best move on the run (0..5, or -1: no legal move)

A run ends where the next run of the same position starts; the last one lasts up to ``MAX_T``.

``Book.stable_from`` is the smallest t such that every score of the book is the same for all
t' in t .. MAX_T (``MAX_T`` itself if the scores still change at the last step);
``Book.moves_stable_from`` is the same for the (score, best_move) pairs.

Books are built one seed count at a time: ``solve_book(n, lower_books)`` needs only the runs of
books 0 .. n - 2 (a capture takes at least 2 seeds), e.g. reloaded from a database, and replays
them as value changes while t advances; ``solve_books(max_n)`` builds 0 .. max_n in turn.

Global index space used inside the solver for book ``n``: books ``0 .. n`` laid end to end
(``base[m] = sum_{j < m} C(j + 11, 11)``; global index of position ``i`` of book ``m`` is
``base[m] + i``), followed by two constant cells: ``ZERO = base[n + 1]`` (always 0) and
``HIGH = base[n + 1] + 1`` (always 127).

Kernels whose name starts with ``_`` take arrays and scalars only and trust their input; the plain
Python functions at the end (``solve_book``, ``solve_books``, ``Book``) validate and wrap them.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from math import comb

import numba
import numpy as np
from numba import njit, prange

HOUSES = 12
MAX_T = 200
#: Largest seed count the index tables cover (all 48 seeds of a full game).
NMAX = 48
#: Largest seed count ``solve_book`` accepts: a move packs a global index into 27 bits.
MAX_SOLVE_N = 18

# _F[k, r] = C(r + k, k): the number of ways to put at most r seeds into k houses, i.e. exactly
# r seeds into k + 1 houses.  rank() sums differences of these (hockey-stick identity).
_F = np.zeros((HOUSES, NMAX + 1), dtype=np.int64)
for _k in range(HOUSES):
    for _r in range(NMAX + 1):
        _F[_k, _r] = comb(_r + _k, _k)
del _k, _r

#: Positions per book: ``BOOK_SIZES[n] = C(n + 11, 11)``.
BOOK_SIZES = np.array([comb(n + 11, 11) for n in range(NMAX + 1)], dtype=np.int64)


def book_size(n: int) -> int:
    """Number of positions with ``n`` seeds: ``C(n + 11, 11)``."""
    if n < 0:
        raise ValueError(f"seed count must be >= 0, got {n!r}")
    return comb(n + 11, 11)


def book_bases(n: int) -> np.ndarray:
    """``base int64[n + 2]``: ``base[m]`` = first global index of book ``m`` (books 0..n laid end
    to end); ``base[n + 1]`` = total size of books 0..n (the solver's ZERO cell index)."""
    out = np.zeros(n + 2, dtype=np.int64)
    out[1:] = np.cumsum(BOOK_SIZES[: n + 1])
    return out


# --------------------------------------------------------------------------------------------
# Index
# --------------------------------------------------------------------------------------------


@njit(cache=True)
def _rank(houses):
    """Lexicographic rank of ``houses`` (int8[12]) among positions with the same seed count."""
    r = 0
    for i in range(HOUSES):
        r += houses[i]
    idx = 0
    for i in range(HOUSES - 1):
        k = HOUSES - 1 - i
        a = houses[i]
        # positions with the same prefix and a smaller digit at house i
        idx += _F[k, r] - _F[k, r - a]
        r -= a
    return idx


@njit(cache=True)
def _rank_flipped(board):
    """``_rank`` of the board seen from the other side (house i <- board[(i + 6) % 12])."""
    r = 0
    for i in range(HOUSES):
        r += board[i]
    return _rank_flipped_n(board, r)


@njit(cache=True)
def _rank_flipped_n(board, r):
    """``_rank_flipped`` of a board known to hold ``r`` seeds."""
    idx = _F[11, r] - _F[11, r - board[6]]
    r -= board[6]
    idx += _F[10, r] - _F[10, r - board[7]]
    r -= board[7]
    idx += _F[9, r] - _F[9, r - board[8]]
    r -= board[8]
    idx += _F[8, r] - _F[8, r - board[9]]
    r -= board[9]
    idx += _F[7, r] - _F[7, r - board[10]]
    r -= board[10]
    idx += _F[6, r] - _F[6, r - board[11]]
    r -= board[11]
    idx += _F[5, r] - _F[5, r - board[0]]
    r -= board[0]
    idx += _F[4, r] - _F[4, r - board[1]]
    r -= board[1]
    idx += _F[3, r] - _F[3, r - board[2]]
    r -= board[2]
    idx += _F[2, r] - _F[2, r - board[3]]
    r -= board[3]
    idx += _F[1, r] - _F[1, r - board[4]]
    return idx


@njit(cache=True)
def _unrank(n, idx, out):
    """Write into ``out`` (int8[12]) the position of rank ``idx`` in book ``n``."""
    r = n
    for i in range(HOUSES - 1):
        k = HOUSES - 1 - i
        a = 0
        while a < r and _F[k, r] - _F[k, r - a - 1] <= idx:
            a += 1
        idx -= _F[k, r] - _F[k, r - a]
        out[i] = a
        r -= a
    out[HOUSES - 1] = r


@njit(cache=True)
def _next_position(h):
    """Advance ``h`` (int8[12]) in place to the next position of its book (lexicographic order).
    Must not be called on the last position ``(n, 0, ..., 0)``."""
    if h[11] > 0:
        h[10] += 1
        h[11] -= 1
        return
    j = 10
    while h[j] == 0:
        j -= 1
    s = h[j]
    h[j] = 0
    h[j - 1] += 1
    h[11] = s - 1


@njit(cache=True)
def _rank_many(houses_2d):
    """``int8[M, 12]`` positions -> ``int64[M]`` ranks (each within its own seed count)."""
    m = houses_2d.shape[0]
    out = np.empty(m, dtype=np.int64)
    for j in range(m):
        out[j] = _rank(houses_2d[j])
    return out


@njit(cache=True)
def _unrank_many(n, idx):
    """``int64[M]`` ranks in book ``n`` -> ``int8[M, 12]`` positions."""
    m = idx.shape[0]
    out = np.empty((m, HOUSES), dtype=np.int8)
    for j in range(m):
        _unrank(n, idx[j], out[j])
    return out


# --------------------------------------------------------------------------------------------
# Moves
# --------------------------------------------------------------------------------------------


@njit(cache=True)
def _sow(houses, h, out):
    """Play house ``h`` (0..5) of ``houses`` (int8[12], mover's view).

    Writes the board after the move into ``out`` (int8[12]), still in the mover's orientation
    (not flipped; see ``_flip``/``_rank_flipped``), with captured houses emptied.  Returns the
    number of seeds captured (0 for a grand slam, which is played but captures nothing), or -1 if
    the move is illegal (empty house, or the opponent would have no seed: the feeding rule)."""
    s = np.int64(houses[h])
    if s == 0:
        return -1
    for j in range(HOUSES):
        out[j] = houses[j]
    out[h] = 0
    if s <= 11:
        for j in range(1, s + 1):
            p = h + j
            if p >= HOUSES:
                p -= HOUSES
            out[p] += 1
        last = h + s
        if last >= HOUSES:
            last -= HOUSES
    else:
        # every house but the origin gets q seeds, then r more seeds go round once more
        q = s // 11
        rem = s - 11 * q
        for j in range(HOUSES):
            if j != h:
                out[j] += q
        for j in range(1, rem + 1):
            out[(h + j) % HOUSES] += 1
        last = (h + rem) % HOUSES if rem > 0 else (h + 11) % HOUSES
    opp = 0
    for j in range(6, HOUSES):
        opp += out[j]
    if opp == 0:
        return -1
    cap = 0
    j = last
    while j >= 6 and (out[j] == 2 or out[j] == 3):
        cap += out[j]
        j -= 1
    if cap == 0 or cap == opp:  # nothing to take, or a grand slam
        return 0
    for i in range(j + 1, last + 1):
        out[i] = 0
    return cap


@njit(cache=True)
def _flip(board, out):
    """``out[i] = board[(i + 6) % 12]``: the board seen from the other player."""
    for i in range(HOUSES):
        out[i] = board[(i + 6) % HOUSES]


@njit(cache=True)
def _transitions(n):
    """Every move of every position of book ``n``.

    Returns ``(child int32[N, 6], captured int8[N, 6])`` with ``N = C(n + 11, 11)``: for position
    ``i`` and house ``h``, ``captured[i, h]`` is the number of seeds captured (-1 = illegal move)
    and ``child[i, h]`` the rank, in book ``n - captured[i, h]``, of the position after the move
    seen from the new mover (-1 if illegal)."""
    N = _F[11, n]
    child = np.empty((N, 6), dtype=np.int32)
    captured = np.empty((N, 6), dtype=np.int8)
    pos = np.empty(HOUSES, dtype=np.int8)
    out = np.empty(HOUSES, dtype=np.int8)
    _unrank(n, 0, pos)
    for i in range(N):
        if i > 0:
            _next_position(pos)
        for h in range(6):
            cap = _sow(pos, h, out)
            captured[i, h] = cap
            child[i, h] = -1 if cap < 0 else _rank_flipped_n(out, n - cap)
    return child, captured


# A solver move is one uint32: bits 0-26 the global index of the (flipped) child, bits 27-31 the
# number of seeds captured.  27 bits cover every global index up to n = MAX_SOLVE_N.
_IDX_BITS = 27
_IDX_MASK = (1 << _IDX_BITS) - 1


@njit(cache=True)
def _moves_chunk(c, chunk, n, N, base, packed, pos, out):
    """``_moves`` for positions ``c * chunk .. min(N, (c + 1) * chunk) - 1``; ``pos``/``out``
    int8[12] scratch."""
    zero = base[n + 1]
    high = zero + 1
    lo = c * chunk
    hi = min(N, lo + chunk)
    _unrank(n, lo, pos)
    for i in range(lo, hi):
        if i > lo:
            _next_position(pos)
        legal = 0
        for h in range(6):
            cap = _sow(pos, h, out)
            if cap >= 0:
                g = base[n - cap] + _rank_flipped_n(out, n - cap)
                packed[i, h] = (cap << _IDX_BITS) | g
                legal += 1
            else:
                packed[i, h] = high
        if legal == 0:
            own = 0
            for h in range(6):
                own += pos[h]
            packed[i, 0] = (own << _IDX_BITS) | zero


@njit(cache=True, nogil=True)
def _moves(n, base, chunk):
    """The move table of book ``n`` as the solver uses it (global indices, see the module doc).

    Returns ``packed uint32[N, 6]``.  For a legal move ``h`` of position ``i`` capturing ``cap``
    seeds, ``packed[i, h] = cap << 27 | g`` with ``g = base[n - cap] + rank(flipped child)``.  The
    solver scores a move as ``key = 8 * (cap - V(g)) + 7 - h``: the maximum over h gives the
    value (``key >> 3``) and, among equal values, the lowest house (``h = 7 - (key & 7)``).  An
    illegal move is ``HIGH`` (``base[n + 1] + 1``, a cell always holding 127), so it never wins.
    A position without a legal move has ``own_seeds << 27 | ZERO`` in slot 0 (``ZERO`` =
    ``base[n + 1]``, a cell always holding 0) and HIGH elsewhere: its value is its own seeds and
    a winning slot 0 whose index is ZERO means "no move".  Needs ``n <= MAX_SOLVE_N``;
    ``chunk`` = positions per task.  (Serial: a one-off pass, cheap next to the steps; a
    parallel version would add seconds of compile time.)"""
    N = _F[11, n]
    nchunks = (N + chunk - 1) // chunk
    packed = np.empty((N, 6), dtype=np.uint32)
    scratch = np.empty((nchunks, 2, HOUSES), dtype=np.int8)
    for c in range(nchunks):
        _moves_chunk(c, chunk, n, N, base, packed, scratch[c, 0], scratch[c, 1])
    return packed


# --------------------------------------------------------------------------------------------
# Solver
# --------------------------------------------------------------------------------------------
#
# Book n is solved for t = 1, 2, ... (t = plies left).  One int8 array ``vals`` in the global
# index space (module doc) holds V(., t - 1) when step t starts and V(., t) when it ends.
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


@njit(cache=True, nogil=True)
def _lower_count(run_offsets, run_from, run_score, toff):
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


@njit(cache=True, nogil=True)
def _lower_fill(base_m, run_offsets, run_from, run_score, fill, pos, score):
    """Replay schedule, pass 2, for the smaller book whose first global index is ``base_m``: the
    same changes as ``_lower_count``, written at ``fill[t]`` (then incremented) into
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


@njit(cache=True, nogil=True)
def _reverse_edges(n, base, packed):
    """Parents of every position that can be a child of book ``n`` (``packed`` from ``_moves``).

    Keys are compact indices: a global index ``p < base[n - 1]`` (books 0 .. n - 2) keeps its
    value, position ``i`` of book ``n`` becomes ``lo + i`` with ``lo = base[n - 1]`` (0 if
    n = 0).  Returns ``(rev_off int32[lo + N + 1], rev_par int32[E])``: the parents (indices in
    book n, one per move) of key ``k`` are ``rev_par[rev_off[k] .. rev_off[k+1] - 1]``.  Illegal
    moves and the pseudo move of positions without a legal move are left out."""
    N = packed.shape[0]
    lo = base[n - 1] if n >= 1 else 0
    base_n = base[n]
    zero = base[n + 1]
    rev_off = np.zeros(lo + N + 1, dtype=np.int32)
    for i in range(N):
        for h in range(6):
            g = np.int64(packed[i, h] & _IDX_MASK)
            if g < zero:
                k = g if g < lo else g - base_n + lo
                rev_off[k + 1] += 1
    for k in range(lo + N):
        rev_off[k + 1] += rev_off[k]
    fill = rev_off[: lo + N].copy()
    rev_par = np.empty(rev_off[lo + N], dtype=np.int32)
    for i in range(N):
        for h in range(6):
            g = np.int64(packed[i, h] & _IDX_MASK)
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


@njit(cache=True)
def _low_byte(w):
    """Index (0..7) of the lowest non-zero byte of the uint64 ``w`` (whose bytes are 0 or 1)."""
    low = w & (~w + np.uint64(1))
    return _DEBRUIJN_TAB[(low * _DEBRUIJN) >> np.uint64(58)] >> 3


@njit(cache=True)
def _eval_chunk(c, chunk, N, base_n, zero, packed, vals, move, cur64, ev_local, ev_score,
                ev_move, seg_start, seg_used, step_cnt, t):
    """Phase 1 of step t for positions ``c * chunk .. min(N, (c + 1) * chunk) - 1`` (``chunk``
    a multiple of 8).  For every dirty position i (byte i of the flags ``cur64``, uint64 words,
    is 1; the flags are cleared) compute its value and best move from ``vals`` (V at t - 1, see
    ``_moves`` for the scoring); if (score, move) differs from the stored one, set ``move[i]``
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
                k = (np.int64(x >> _IDX_BITS) - np.int64(vals[x & _IDX_MASK])) * 8 + (7 - h)
                best = k if k > best else best
            sc = best >> 3
            mv = 7 - (best & 7)
            if mv == 0 and (packed[i, 0] & _IDX_MASK) == zero:
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


@njit(cache=True)
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


@njit(cache=True, nogil=True)
def _core_state(n, base, chunk, runs_guess):
    """Allocate ``_solve_core``'s state (kept out of the parallel function: there numba would
    turn every array initialisation into a parallel loop that wakes the thread pool)."""
    N = _F[11, n]
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


@njit(cache=True)
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


@njit(parallel=True, cache=True, nogil=True)
def _solve_core(n, base, packed, rev_off, rev_par, low_toff, low_pos, low_score,
                lower_stable, chunk, parallel, par_min_dirty, runs_guess):
    """Iterate book ``n`` over t = 1 .. until stable (see the stopping rule above).

    ``base`` from ``book_bases(n)``; ``packed`` from ``_moves``; ``rev_*`` from
    ``_reverse_edges``; ``low_toff int64[MAX_T + 2]``, ``low_pos int32[L]``, ``low_score int8[L]``:
    the score changes of books 0 .. n - 2 at step t are ``low_toff[t] .. low_toff[t + 1] - 1``
    (from ``_lower_count``/``_lower_fill``); ``lower_stable`` = max stable_from of
    books 0 .. n - 2 (1 if none); ``chunk`` = positions per task, a multiple of 8 and at most
    65536; ``parallel``: run the chunks of a step in parallel (prange) when about
    ``par_min_dirty`` positions or more are dirty (estimated from the changes that flagged
    them), else one after the other; ``runs_guess`` = initial event capacity per position.

    Returns ``(ev_local uint16[C], ev_score int8[C], ev_move int8[C], seg_start int64[K],
    step_cnt int32[K, MAX_T + 1], stable_from, moves_stable_from, t_end)``: chunk k's events
    start at ``seg_start[k]``, ``step_cnt[k, t]`` of them for step t = 1, 2, ... in turn; an event
    is (position - k * chunk, score, best move); ``t_end`` = the last step computed."""
    N = _F[11, n]
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


@njit(cache=True)
def _count_runs_chunk(c, chunk, seg_start, step_cnt, ev_local, t_end, off):
    lo = c * chunk
    e = seg_start[c]
    for t in range(1, t_end + 1):
        for _ in range(step_cnt[c, t]):
            off[lo + np.int64(ev_local[e]) + 1] += 1
            e += 1


@njit(cache=True)
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


@njit(cache=True, nogil=True)
def _events_to_runs(N, chunk, seg_start, step_cnt, ev_local, ev_score, ev_move, t_end):
    """Sort ``_solve_core``'s events by position into runs (layout in the module doc).  Returns
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


@njit(cache=True)
def _lookup(run_offsets, run_from, run_score, run_move, idx, t):
    """``(score, best_move)`` of position ``idx`` at ``t`` plies left (1 <= t <= MAX_T)."""
    lo = run_offsets[idx]
    hi = run_offsets[idx + 1] - 1
    while lo < hi:  # last run with run_from <= t
        mid = (lo + hi + 1) // 2
        if run_from[mid] <= t:
            lo = mid
        else:
            hi = mid - 1
    return run_score[lo], run_move[lo]


@njit(cache=True)
def _lookup_many(run_offsets, run_from, run_score, run_move, t):
    """Scores and best moves of every position of a book at ``t``: ``(int8[N], int8[N])``."""
    N = run_offsets.shape[0] - 1
    score = np.empty(N, dtype=np.int8)
    move = np.empty(N, dtype=np.int8)
    for i in range(N):
        s, m = _lookup(run_offsets, run_from, run_score, run_move, i, t)
        score[i] = s
        move[i] = m
    return score, move


# --------------------------------------------------------------------------------------------
# Python API
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Book:
    """The solved book of ``n`` seeds (array layout in the module doc).

    ``stable_from``: smallest t such that every score is the same for all t' in t .. MAX_T
    (MAX_T if some score still changes at the last step).  ``moves_stable_from``
    (>= stable_from): the same for (score, best_move) pairs."""

    n: int
    stable_from: int
    moves_stable_from: int
    run_offsets: np.ndarray  # int64[N + 1]
    run_from: np.ndarray  # int16[R]
    run_score: np.ndarray  # int8[R]
    run_move: np.ndarray  # int8[R]

    @property
    def size(self) -> int:
        return len(self.run_offsets) - 1

    @property
    def num_runs(self) -> int:
        return len(self.run_from)

    def lookup(self, idx: int, t: int) -> tuple[int, int]:
        """``(score, best_move)`` of position ``idx`` with ``t`` plies left."""
        if not 0 <= idx < self.size:
            raise IndexError(f"position index {idx!r} out of range for book {self.n}")
        if not 1 <= t <= MAX_T:
            raise ValueError(f"plies left must be in 1..{MAX_T}, got {t!r}")
        s, m = _lookup(self.run_offsets, self.run_from, self.run_score, self.run_move, idx, t)
        return int(s), int(m)

    def values_at(self, t: int) -> tuple[np.ndarray, np.ndarray]:
        """``(score int8[N], best_move int8[N])`` of every position at ``t`` plies left."""
        if not 1 <= t <= MAX_T:
            raise ValueError(f"plies left must be in 1..{MAX_T}, got {t!r}")
        return _lookup_many(self.run_offsets, self.run_from, self.run_score, self.run_move, t)


#: Positions per task of a step.
CHUNK = 4096
#: Books smaller than this are solved on one thread (``parallel=None``): their steps are short,
#: and with every core busy (other processes) the per-step thread barriers cost more than the
#: second thread gains.
PARALLEL_MIN_POSITIONS = 1_000_000
#: In a parallel book, a step runs in parallel only if about this many positions are dirty.
PARALLEL_MIN_DIRTY = 50_000
#: ``solve_books`` solves books n and n + 1 side by side from this size of book n on (below,
#: a book takes less time than handing it to a thread).
PAIR_MIN_POSITIONS = 10_000


def solve_book(n: int, lower_books, parallel: bool | None = None) -> Book:
    """Solve the book of ``n`` seeds given the solved books of 0 .. n - 2 seeds.

    ``lower_books``: a sequence of ``Book`` (or any objects with the attributes ``n``,
    ``stable_from``, ``run_offsets``, ``run_from``, ``run_score``) that contains the books
    0 .. n - 2; others are ignored (book n - 1, if given, only sizes the event buffers).  Their
    runs are replayed as value changes, not recomputed.  ``parallel``: run the big steps on
    Numba's threads (None: if the book has at least PARALLEL_MIN_POSITIONS positions and Numba
    has more than one thread).  The result does not depend on it."""
    if not 0 <= n <= MAX_SOLVE_N:
        raise ValueError(f"seed count must be in 0..{MAX_SOLVE_N}, got {n!r}")
    by_n = {}
    for b in lower_books:
        by_n[int(b.n)] = b
    missing = [m for m in range(n - 1) if m not in by_n]
    if missing:
        raise ValueError(f"book {n} needs the books of {missing!r} seeds")
    lower = []
    for m in range(n - 1):
        b = by_n[m]
        off = np.ascontiguousarray(b.run_offsets, dtype=np.int64)
        rf = np.ascontiguousarray(b.run_from, dtype=np.int16)
        rs = np.ascontiguousarray(b.run_score, dtype=np.int8)
        if len(off) != book_size(m) + 1 or off[0] != 0 or off[-1] != len(rf) or len(rs) != len(rf):
            raise ValueError(f"book {m}: run arrays do not match its {book_size(m)} positions")
        lower.append((off, rf, rs))
    lower_stable = max([int(by_n[m].stable_from) for m in range(n - 1)], default=1)
    base = book_bases(n)
    # replay schedule of the smaller books' score changes, grouped by step
    low_toff = np.zeros(MAX_T + 2, dtype=np.int64)
    for off, rf, rs in lower:
        _lower_count(off, rf, rs, low_toff)
    np.cumsum(low_toff, out=low_toff)
    low_pos = np.empty(int(low_toff[-1]), dtype=np.int32)
    low_sc = np.empty(int(low_toff[-1]), dtype=np.int8)
    fill = low_toff.copy()
    for m, (off, rf, rs) in enumerate(lower):
        _lower_fill(int(base[m]), off, rf, rs, fill, low_pos, low_sc)
    del lower, fill
    # event buffer: a little more than the runs per position of the books just below (it grows
    # by half if too small); runs per position grow by about 1.5 per seed from n = 9 on
    runs_guess = 8
    for m, extra in ((n - 1, 2.5), (n - 2, 5.0)):
        if m >= 0 and m in by_n:
            ratio = len(by_n[m].run_from) / book_size(m)
            runs_guess = max(runs_guess, int(ratio * 1.05 + extra) + 1)
    N = book_size(n)
    if parallel is None:
        parallel = N >= PARALLEL_MIN_POSITIONS and numba.get_num_threads() > 1
    packed = _moves(n, base, CHUNK)
    rev_off, rev_par = _reverse_edges(n, base, packed)
    (ev_local, ev_score, ev_move, seg_start, step_cnt,
     stable_from, moves_stable_from, t_end) = _solve_core(
        n, base, packed, rev_off, rev_par, low_toff, low_pos, low_sc, lower_stable, CHUNK,
        bool(parallel), PARALLEL_MIN_DIRTY, runs_guess)
    del packed, rev_off, rev_par, low_toff, low_pos, low_sc
    off, rf, rs, rm = _events_to_runs(N, CHUNK, seg_start, step_cnt, ev_local, ev_score, ev_move,
                                      t_end)
    return Book(n, int(stable_from), int(moves_stable_from), off, rf, rs, rm)


def solve_books(max_n: int, parallel: bool | None = None) -> list[Book]:
    """Solve the books of 0 .. ``max_n`` seeds; ``result[n]`` is book ``n``.

    Book n needs books 0 .. n - 2 only, so books n and n + 1 are solved at the same time on two
    Python threads (the kernels release the GIL) while both are small enough to be solved on
    one thread each (see ``solve_book``'s ``parallel``); bigger books go one at a time, each
    using Numba's threads."""
    if not 0 <= max_n <= MAX_SOLVE_N:
        raise ValueError(f"seed count must be in 0..{MAX_SOLVE_N}, got {max_n!r}")
    books: list[Book] = []

    def threaded(m):
        if parallel is not None:
            return not parallel
        return book_size(m) < PARALLEL_MIN_POSITIONS or numba.get_num_threads() == 1

    with ThreadPoolExecutor(max_workers=2) as pool:
        n = 0
        while n <= max_n:
            if n + 1 <= max_n and threaded(n + 1) and book_size(n) >= PAIR_MIN_POSITIONS:
                a = pool.submit(solve_book, n, books, False)
                b = pool.submit(solve_book, n + 1, books, False)
                books += [a.result(), b.result()]
                n += 2
            else:
                books.append(solve_book(n, books, parallel))
                n += 1
    return books


@njit(parallel=True, cache=True)
def _lookup_rows(run_offsets, run_from, run_score, run_move, idx, t):
    """``(score int8[M], best_move int8[M])`` of positions ``idx int64[M]`` of one book at plies
    left ``t int16[M]`` (each 1 <= t <= MAX_T)."""
    m = idx.shape[0]
    score = np.empty(m, dtype=np.int8)
    move = np.empty(m, dtype=np.int8)
    for j in prange(m):
        s, mv = _lookup(run_offsets, run_from, run_score, run_move, idx[j], t[j])
        score[j] = s
        move[j] = mv
    return score, move


@njit(parallel=True, cache=True)
def _check_step(move_child, gain, prev, own_seeds, score, move, bad):
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
