"""Lookup kernels over stored tables, for every game: rows of exact keys, score runs.

Key tables are held as keys int64[n, 3] (key0, key1, constraint) sorted lexicographically;
score tables as runs (``tbdb.games.base.RunValues``): for position i the runs
``offsets[i] .. offsets[i + 1] - 1``, each with its first plies-left ``start`` (ascending, the
first is 1), ``score`` and ``move``; a run lasts until the next one starts.
"""
import numpy as np
from tbdb.solvers.jit import kernel, parallel_kernel, prange


@kernel
def _less3(keys, i, k0, k1, k2):
    a = keys[i, 0]
    if a != k0:
        return a < k0
    b = keys[i, 1]
    if b != k1:
        return b < k1
    return keys[i, 2] < k2


@kernel
def _find_row3(keys, k0, k1, k2):
    """Row of (k0, k1, k2) in sorted keys int64[n, 3], or -1."""
    lo = 0
    hi = keys.shape[0]
    while lo < hi:
        mid = (lo + hi) // 2
        if _less3(keys, mid, k0, k1, k2):
            lo = mid + 1
        else:
            hi = mid
    if lo < keys.shape[0] and keys[lo, 0] == k0 and keys[lo, 1] == k1 and keys[lo, 2] == k2:
        return lo
    return -1


@parallel_kernel
def _find_rows3(keys, query):
    """_find_row3 for each row of query int64[m, 3]."""
    out = np.empty(query.shape[0], np.int64)
    for i in prange(query.shape[0]):
        out[i] = _find_row3(keys, query[i, 0], query[i, 1], query[i, 2])
    return out


@kernel
def _run_value(offsets, start, score, move, idx, plies):
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
def _run_values(offsets, start, score, move, idx, plies):
    """_run_value for many positions: idx int64[n], plies int16[n] (0: nothing left, score 0
    and no move)."""
    n = idx.shape[0]
    out_score = np.empty(n, np.int16)
    out_move = np.empty(n, np.int32)
    for i in prange(n):
        if plies[i] == 0:
            out_score[i] = 0
            out_move[i] = -1
        else:
            s, m = _run_value(offsets, start, score, move, idx[i], plies[i])
            out_score[i] = s
            out_move[i] = m
    return out_score, out_move
