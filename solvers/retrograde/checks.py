"""Best moves and checks over ``children`` batches (rows as a game's ``children`` returns them):
the best move of solved positions, and the verifier's one-ply check of stored values."""
import numpy as np

from tbdb.solvers.jit import parallel_kernel, prange
from tbdb.solvers.retrograde.compact import child_value, unpacked
from tbdb.solvers.retrograde.values import (DRAW, NO_EXT, NO_MOVE, add_child, realises,
                                            reduced_value, row_best)


@parallel_kernel
def pick_best(positions, count, child, move, ext_result, ext_distance, result, distance, best):
    """best[p] for a batch of solved positions (rows as ``children`` returns them)."""
    for r in prange(positions.shape[0]):
        p = positions[r]
        best[p] = row_best(count[r], child[r], move[r], ext_result[r], ext_distance[r],
                            result, distance, result[p], distance[p])


@parallel_kernel
def check_rows(positions, lo, count, child, move, ext_result, ext_distance, state, top, best,
               bad):
    """Flag (bad[p - lo] = 1 value, 2 best move) every position p of a batch inside the chunk
    lo.. whose stored value one ply of moves and the stored values of its children contradict,
    or whose best move (best[p - lo]) is not a legal move realising that value.  Values are
    read from ``state`` (the stored values packed as compact's state words, largest word
    ``top``: ``compact.cp_pack``), so a check holds 1-2 bytes a slot."""
    for r in prange(positions.shape[0]):
        p = positions[r]
        s = np.int64(state[p])
        if s == top - 3:  # a stored value no state word holds: wrong whatever its children
            bad[p - lo] = 1
            continue
        have_r, have_d = unpacked(s, top)
        min_loss = np.int32(NO_EXT)
        max_win = np.int32(-1)
        any_draw = False
        for e in range(count[r]):
            cr, cd = child_value(state, top, child[r, e], ext_result[r, e], ext_distance[r, e])
            min_loss, max_win, any_draw = add_child(cr, np.int32(cd), min_loss, max_win,
                                                    any_draw)
        want_r, want_d = reduced_value(min_loss, max_win, any_draw)
        if have_r != want_r or (want_r != DRAW and have_d != want_d):
            bad[p - lo] = 1
            continue
        b = best[p - lo]
        if count[r] == 0:
            if b != NO_MOVE:
                bad[p - lo] = 2
            continue
        ok = False
        for e in range(count[r]):
            if move[r, e] == b:
                cr, cd = child_value(state, top, child[r, e], ext_result[r, e],
                                     ext_distance[r, e])
                ok = realises(want_r, want_d, cr, cd)
                if ok:
                    break
        if not ok:
            bad[p - lo] = 2
