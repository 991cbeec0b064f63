"""The change-list solver's loop over steps: the loop's arrays and state (``core_state``), the
smaller books' replay window due at a step (``window_due``, ``replay_window``), what comes
before and after each step (``before_step``, ``after_step``: counts and the stopping rule),
and the whole loop on one thread in one kernel (``solve_serial``).
"""
import numpy as np
from numba.typed import List

from tbdb.solvers.jit import nogil_kernel
from tbdb.solvers.oware.index import BOOK_SIZES
from tbdb.solvers.oware.changes.layout import MAX_T, flag_dirty
from tbdb.solvers.oware.changes.replay import changes_between, replay_count, replay_step
from tbdb.solvers.oware.changes.steps import grow_group, step_serial

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
    return changes_between(base, offs, starts, scores, toff, state[S_T_LO], state[S_T_HI])


@nogil_kernel
def before_step(t, N, chunk, cpg, toff, pos, sc, vals, rev_off, rev_par, cur, evs, evs_sc,
                seg_start, seg_cap, used, state, bits=False):
    """Step ``t``'s preparation: the smaller books' score changes at t - 1 (from the window
    ``pos``/``sc``) written into ``vals`` and their parents flagged in ``cur``; every chunk
    given room for one more event per position.  Returns the groups whose events were moved
    to bigger arrays (their old arrays freed)."""
    if t >= 2:
        state[S_EST] += replay_step(state[S_T_LO], t - 1, toff, pos, sc, vals, rev_off, rev_par,
                                    cur, bits)
    moved = 0
    for g in range(len(evs)):
        ev = evs[g]
        grown, grown_sc = grow_group(g, cpg, chunk, N, ev, evs_sc[g], seg_start, seg_cap, used)
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
    turn (layout at ``eval_chunk``); ``work[t]`` = positions evaluated at step t;
    ``state[S_STABLE]``, ``state[S_MOVES_STABLE]``: the book's stable_from and
    moves_stable_from, ``state[S_T_END]`` the last step computed."""
    N = BOOK_SIZES[n]
    (state, vals, move, cur, nxt, evs, evs_sc, cpg, seg_start, seg_cap, used, step_cnt, evals,
     cnt_score, flagged, work, todo) = core_state(n, base, chunk, runs_guess, ev_buf, sc_buf)
    nchunks = seg_start.shape[0]
    # one thread: the dirty flags as bits (``flag_dirty``), every position's set for t = 1
    words = (N + 63) // 64 + 1
    cur = np.zeros(words * 8, dtype=np.uint8)
    nxt = np.zeros(words * 8, dtype=np.uint8)
    for i in range(N):
        flag_dirty(cur, cur.view(np.uint64), i, True)
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
