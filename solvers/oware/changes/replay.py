"""The smaller books' score changes, replayed in step order while a book solves: a solved
book's runs cut down to the changes of score (``score_changes``), counted per step
(``replay_count``), listed for a window of steps at a time (``changes_between``), and written
into the value array with their parents flagged (``replay_step``).
"""
import numpy as np

from tbdb.solvers.jit import kernel, nogil_kernel
from tbdb.solvers.prefetch import prefetch
from tbdb.solvers.oware.changes.layout import AHEAD, MAX_T, flag_dirty


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
def changes_between(base, offs, starts, scores, toff, t_lo, t_hi):
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
def replay_step(t_lo, tt, toff, pos, sc, vals, rev_off, rev_par, dirty, bits):
    """Write the smaller books' scores changing at step ``tt`` (from the window starting at
    ``t_lo``) into ``vals`` and flag their parents in ``dirty``; returns the parents flagged."""
    dirty64 = dirty.view(np.uint64)
    flagged = 0
    j0 = toff[tt] - toff[t_lo]
    j1 = toff[tt + 1] - toff[t_lo]
    for j in range(j0, min(j1, j0 + AHEAD)):
        prefetch(rev_off, pos[j])
    for j in range(j0, j1):
        # as in ``apply_chunk``: offsets AHEAD changes ahead, parent lists half as far
        if j + AHEAD < j1:
            prefetch(rev_off, pos[j + AHEAD])
        if j + AHEAD // 2 < j1:
            prefetch(rev_par, rev_off[pos[j + AHEAD // 2]])
        p = pos[j]
        vals[p] = sc[j]
        flagged += rev_off[p + 1] - rev_off[p]
        for r in range(rev_off[p], rev_off[p + 1]):
            flag_dirty(dirty, dirty64, rev_par[r], bits)
    return flagged
