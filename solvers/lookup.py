"""Lookup kernels over stored score tables, for every game.  (Rows of exact keys are found by
the engine's one key search, ``tbdb.solvers.retrograde.keys``.)

Score tables as runs (``tbdb.games.base.RunValues``): for position i the runs
``offsets[i] .. offsets[i + 1] - 1``, each with its first plies-left ``start`` (ascending, the
first is 1), ``score`` and ``move``; a run lasts until the next one starts.
"""
import numpy as np

from tbdb.solvers.jit import kernel, parallel_kernel, prange


@kernel
def run_value(offsets, start, score, move, idx, plies):
    """(score, move) of position idx with ``plies`` left (>= 1): the last run starting at or
    before it."""
    lo = offsets[idx]
    hi = offsets[idx + 1]
    while hi - lo > 1:  # runs lo .. hi-1; find the last with start <= plies
        mid = (lo + hi) // 2
        if start[mid] <= plies:
            lo = mid
        else:
            hi = mid
    return score[lo], move[lo]


@parallel_kernel
def run_values(offsets, start, score, move, idx, plies):
    """run_value for many positions: idx int64[n], plies int16[n] (0: nothing left, score 0
    and no move)."""
    n = idx.shape[0]
    out_score = np.empty(n, np.int16)
    out_move = np.empty(n, np.int32)
    for i in prange(n):
        if plies[i] == 0:
            out_score[i] = 0
            out_move[i] = -1
        else:
            s, m = run_value(offsets, start, score, move, idx[i], plies[i])
            out_score[i] = s
            out_move[i] = m
    return out_score, out_move
