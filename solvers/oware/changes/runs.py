"""A solved book's events turned into its runs (layout: ``levels``): the runs' offsets per
chunk (``run_starts``) and each chunk's events sorted by position into the run arrays, group
by group on one thread freeing the events as it goes (``fill_runs``), or by threads claiming
chunks in turn (``fill_runs_shared``).
"""
import numpy as np

from tbdb.solvers.jit import kernel, nogil_kernel
from tbdb.solvers.oware.sync import atomic_add, wait_until


def run_starts(step_cnt, t_end):
    """``rstart int64[K + 1]``: the runs of chunk k (one per event) are the ``rstart[k]`` ..
    ``rstart[k + 1] - 1``-th of the book (``step_cnt`` from ``solve_serial``)."""
    rstart = np.zeros(step_cnt.shape[0] + 1, dtype=np.int64)
    np.cumsum(step_cnt[:, 1:t_end + 1].sum(axis=1, dtype=np.int64), out=rstart[1:])
    return rstart


@kernel
def _fill_chunk(c, chunk, N, ev, ev_sc, seg_start, step_cnt, t_end, rstart, off, run_from,
                run_score, run_move, fill, tmp):
    """``fill_runs`` for chunk ``c`` (its events in ``ev``/``ev_sc``); ``fill`` int32[chunk]
    and ``tmp`` uint32[the most events of a chunk] scratch.  A chunk's runs are its events
    (``rstart``: ``run_starts``), so it is sorted on its own: its events counted per position
    in the chunk-sized ``fill`` (16 KB, in the first-level cache), then each run placed as one
    uint32 (plies left, score, move + 1) in ``tmp``, which is then split into the three arrays
    in order (faster than three scattered stores a run), through slices of the chunk's runs."""
    lo = c * chunk
    L = min(N, lo + chunk) - lo
    e0 = seg_start[c]
    r0 = rstart[c]
    E = rstart[c + 1] - r0
    fill[:L] = 0
    for e in range(e0, e0 + E):
        fill[ev[e] >> 3] += 1
    at = 0
    for k in range(L):
        cnt = fill[k]
        off[lo + k] = r0 + at
        fill[k] = at
        at += cnt
    e = e0
    for t in range(1, t_end + 1):
        end = e + step_cnt[c, t]
        tt = np.uint32(t)
        while e < end:
            x = ev[e]
            k = x >> 3
            j = fill[k]
            tmp[j] = (tt | (np.uint32(np.uint8(ev_sc[e])) << np.uint32(8))
                      | (np.uint32(x & 7) << np.uint32(16)))
            fill[k] = j + 1
            e += 1
    rf = run_from[r0:r0 + E]
    rs = run_score[r0:r0 + E]
    rm = run_move[r0:r0 + E]
    for j in range(E):
        y = tmp[j]
        rf[j] = np.int16(y & 0xFF)
        rs[j] = np.int8(np.uint8((y >> 8) & 0xFF))
        rm[j] = np.int8(np.int32((y >> 16) & 7) - 1)
    if lo + L == N:
        off[N] = rstart[c + 1]


@kernel
def _fill_scratch(chunk, rstart):
    """``_fill_chunk``'s scratch: ``(fill int32[chunk], tmp uint32[most events of a chunk])``."""
    most = 0
    for c in range(rstart.shape[0] - 1):
        most = max(most, rstart[c + 1] - rstart[c])
    return np.empty(chunk, dtype=np.int32), np.empty(most, dtype=np.uint32)


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
