"""Level by level (key tables, no cycles): values of one level from the values of lower levels,
children found by binary search on sorted exact keys (``keys.find_keys``, run by the driver)."""
import numpy as np

from tbdb.solvers.jit import parallel_kernel, prange
from tbdb.solvers.retrograde.values import (NO_EXT, NO_MOVE, UNKNOWN, add_child, realises,
                                            reduced_value)


@parallel_kernel
def level_values(terminal, count, child_row, move, result_all, distance_all, out_result,
                  out_distance, out_best):
    """Values of one level's positions: ``terminal`` (game over here, or UNKNOWN), the children
    of the others as rows into the solved lower levels laid end to end (``child_row``, -1 if a
    child was not found: a broken table, reported by the caller) and their values."""
    k = terminal.shape[0]
    missing = 0
    for r in prange(k):
        if terminal[r] != UNKNOWN:
            out_result[r] = terminal[r]
            out_distance[r] = 0
            out_best[r] = NO_MOVE
            continue
        min_loss = np.int32(NO_EXT)
        max_win = np.int32(-1)
        any_draw = False
        ok = True
        for e in range(count[r]):
            c = child_row[r, e]
            if c < 0:
                ok = False
                continue
            min_loss, max_win, any_draw = add_child(result_all[c], np.int32(distance_all[c]),
                                                    min_loss, max_win, any_draw)
        if not ok:
            missing += 1
        rr, dd = reduced_value(min_loss, max_win, any_draw)
        out_result[r] = rr
        out_distance[r] = dd
        b = NO_MOVE
        for e in range(count[r]):
            c = child_row[r, e]
            if c >= 0 and realises(rr, dd, result_all[c], distance_all[c]):
                b = move[r, e]
                break
        out_best[r] = b
    return missing
