"""A one-thread book whose steps a second thread joins when it is free: ``solve_shared`` runs
``solve_serial``'s loop with each phase split by chunks the threads claim, ``help_shared`` is
the second thread, and they meet at spin barriers (``sync``'s slots ``Y_*``).
"""
import numpy as np

from tbdb.solvers.jit import kernel, nogil_kernel
from tbdb.solvers.oware.index import BOOK_SIZES
from tbdb.solvers.oware.sync import atomic_add, atomic_load, atomic_store, cycles, wait_until
from tbdb.solvers.oware.changes.layout import MAX_T
from tbdb.solvers.oware.changes.replay import replay_count
from tbdb.solvers.oware.changes.steps import apply_chunk, eval_chunk
from tbdb.solvers.oware.changes.loop import after_step, before_step, replay_window, window_due

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
        eval_chunk(c, chunk, N, base_n, packed, vals, move, cur0, cur1, evs[g], evs_sc[g],
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
        apply_chunk(c, chunk, base_n, rev_lo, rev_off, rev_par, vals, nxt, evs[g], evs_sc[g],
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
