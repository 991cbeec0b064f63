"""Best moves and checks over ``children`` batches (rows as a game's ``children`` returns them):
the best move of solved positions, and the verifier's one-ply check of stored values."""
from tbdb.solvers.jit import parallel_kernel, prange
from tbdb.solvers.retrograde.values import DRAW, NO_MOVE, realises, row_best, row_value


@parallel_kernel
def pick_best(positions, count, child, move, ext_result, ext_distance, result, distance, best):
    """best[p] for a batch of solved positions (rows as ``children`` returns them)."""
    for r in prange(positions.shape[0]):
        p = positions[r]
        best[p] = row_best(count[r], child[r], move[r], ext_result[r], ext_distance[r],
                            result, distance, result[p], distance[p])


@parallel_kernel
def check_rows(positions, count, child, move, ext_result, ext_distance, result, distance,
                best, bad):
    """Flag (bad[p] = 1 value, 2 best move) every position of a batch whose stored value one ply
    of moves and the stored values of its children contradict, or whose best move is not a legal
    move realising that value."""
    for r in prange(positions.shape[0]):
        p = positions[r]
        want_r, want_d = row_value(count[r], child[r], ext_result[r], ext_distance[r],
                                    result, distance)
        if result[p] != want_r or (want_r != DRAW and distance[p] != want_d) or \
                (want_r == DRAW and distance[p] != 0):
            bad[p] = 1
            continue
        b = best[p]
        if count[r] == 0:
            if b != NO_MOVE:
                bad[p] = 2
            continue
        ok = False
        for e in range(count[r]):
            if move[r, e] == b:
                c = child[r, e]
                cr = result[c] if c >= 0 else ext_result[r, e]
                cd = distance[c] if c >= 0 else ext_distance[r, e]
                ok = realises(want_r, want_d, cr, cd)
                if ok:
                    break
        if not ok:
            bad[p] = 2
