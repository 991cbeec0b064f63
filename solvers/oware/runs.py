"""Oware (Abapa) run lookups: the (score, best move) of positions of a solved book at given
plies left (run layout in ``levels``)."""
from __future__ import annotations

import numpy as np

from tbdb.solvers.jit import kernel


@kernel
def lookup(run_offsets, run_from, run_score, run_move, idx, t):
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


@kernel
def lookup_many(run_offsets, run_from, run_score, run_move, t):
    """Scores and best moves of every position of a book at ``t``: ``(int8[N], int8[N])``."""
    N = run_offsets.shape[0] - 1
    score = np.empty(N, dtype=np.int8)
    move = np.empty(N, dtype=np.int8)
    for i in range(N):
        s, m = lookup(run_offsets, run_from, run_score, run_move, i, t)
        score[i] = s
        move[i] = m
    return score, move
