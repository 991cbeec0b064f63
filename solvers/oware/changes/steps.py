"""One step of the change-list solver: evaluate a chunk's dirty positions from the values of
the step before and keep the changes as events (``eval_chunk``), then store the changed
scores and flag their parents (``apply_chunk``), on one thread (``step_serial``) or on
Numba's threads (``step_parallel``); ``grow_group`` makes room for a step's events.
"""
import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from tbdb.solvers.jit import kernel, nogil_kernel, parallel_nogil_kernel, prange
from tbdb.solvers.prefetch import prefetch
from tbdb.solvers.oware.changes.layout import AHEAD, CELL_BITS, CELL_MASK, flag_dirty


@kernel
def _low_bit(w):
    """Index (0..63) of the lowest set bit of the uint64 ``w`` (not 0): one tzcnt (LLVM's
    cttz), much faster for a step's dirty list than a De Bruijn multiply and lookup."""
    return np.int64(trailing_zeros(w))


@kernel
def _low_byte(w):
    """Index (0..7) of the lowest non-zero byte of the uint64 ``w``."""
    return np.int64(trailing_zeros(w)) >> 3


@kernel
def eval_chunk(c, chunk, N, base_n, packed, vals, move, dirty64, dirty64b, ev, ev_sc, seg_start,
               used, step_cnt, evals, t, todo, bits):
    """Phase 1 of step t for positions ``c * chunk .. min(N, (c + 1) * chunk) - 1``: every dirty
    position (its byte in ``dirty64`` is 1; the flags are cleared) is evaluated from ``vals``
    (V at t - 1, only read); if (score, best move) differs from the stored one, ``move`` is
    updated and the event appended to this chunk's segment of its group's events (from
    ``seg_start[c]``, room for one more per position): ``ev`` uint16 ``local << 3 | move + 1``
    (``chunk`` <= 8192), ``ev_sc`` int8 the score; 3 bytes an event, as many as the book's
    runs.  ``evals[c]`` = positions evaluated; ``todo`` int32[chunk] scratch.  ``bits``: the
    flags are one bit a position (bit ``i & 63`` of word ``i >> 6``; ``chunk`` a multiple of
    64), not a byte: ``flag_dirty``.  ``dirty64b``: a second set of flags (another thread's: a
    position is dirty if flagged in either; both cleared), or ``dirty64`` itself.

    The dirty positions are listed first, then evaluated with their move rows prefetched
    ``AHEAD`` positions ahead: the rows are scattered over the move table (4 MB at 9 seeds, more
    than a core's cache), and a row's loads would otherwise wait one after another."""
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
def apply_chunk(c, chunk, base_n, rev_lo, rev_off, rev_par, vals, nxt, ev, ev_sc, seg_start,
                used, step_cnt, t, cnt_score, flagged, bits):
    """Phase 2 of step t, same positions as ``eval_chunk``: for each event of this step whose
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
                flag_dirty(nxt, nxt64, rev_par[r], bits)
    cnt_score[c] = ns
    flagged[c] = nf


@kernel
def grow_group(g, cpg, chunk, N, ev, ev_sc, seg_start, seg_cap, used):
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
            eval_chunk(c, chunk, N, base_n, packed, vals, move, cur64, cur64, ev, ev_sc,
                       seg_start, used, step_cnt, evals, t, todo[0], bits)
    for g in range(ngroups):
        ev = evs[g]
        ev_sc = evs_sc[g]
        for c in range(g * cpg, min(nchunks, (g + 1) * cpg)):
            apply_chunk(c, chunk, base_n, rev_lo, rev_off, rev_par, vals, nxt, ev, ev_sc,
                        seg_start, used, step_cnt, t, cnt_score, flagged, bits)


@parallel_nogil_kernel
def step_parallel(ngroups, cpg, nchunks, chunk, N, base_n, rev_lo, packed, vals, move, cur,
                  nxt, rev_off, rev_par, evs, evs_sc, seg_start, used, step_cnt, evals, t,
                  cnt_score, flagged, todo):
    """``step_serial`` on Numba's threads, a group of chunks per task.  (A kernel of its own:
    calling a parallel kernel has a fixed cost even when it runs nothing in parallel.)
    ``todo``: row g for group g."""
    cur64 = cur.view(np.uint64)
    for g in prange(ngroups):
        ev = evs[np.int64(g)]  # (prange's index is unsigned; the typed lists take int64)
        ev_sc = evs_sc[np.int64(g)]
        for c in range(g * cpg, min(nchunks, (g + 1) * cpg)):
            eval_chunk(c, chunk, N, base_n, packed, vals, move, cur64, cur64, ev, ev_sc,
                       seg_start, used, step_cnt, evals, t, todo[g], False)
    for g in prange(ngroups):
        ev = evs[np.int64(g)]
        ev_sc = evs_sc[np.int64(g)]
        for c in range(g * cpg, min(nchunks, (g + 1) * cpg)):
            apply_chunk(c, chunk, base_n, rev_lo, rev_off, rev_par, vals, nxt, ev, ev_sc,
                        seg_start, used, step_cnt, t, cnt_score, flagged, False)
