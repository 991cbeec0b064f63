"""A small star's solved state bytes (``star_compact``) as the values a table stores: win, draw
or loss for the side of the player to move (the lone player's side or the coalition's), the
distance in plies and a best move (issue 63).

The coalition game is a two-sided game: the mover's side wins when the lone player L wins and
L moves, or when a coalition member wins and a member moves.  So the stored value is the
mover's, as in every two-player table, except that a move to a position whose mover is on the
same side keeps its sign (the prober's ``same_side``).

Best move (the first of the mover's moves, pieces by cell and destinations ascending, that
realises the value): a won or lost position at d plies moves to a child decided for the same
side at d - 1 (the quickest win; the longest resistance); a draw moves to an undecided child.
Codes: from * 64 + to, PASS_CODE for the pass of a player with no move, -1 where the game is
over.
"""
import numpy as np

from tbdb.solvers.chinese_checkers.star_compact import (BLOCK, DECIDED, ILLEGAL_CODE, MANY,
                                                        TASKS, can_move, moved_slots,
                                                        task_scratch, unrank_masks)
from tbdb.solvers.jit import parallel_kernel, prange
from tbdb.solvers.retrograde.values import DRAW, ILLEGAL, LOSS, WIN

PASS_CODE = 64 * 64


@parallel_kernel
def mover_values(lone, n, tables, unrank_tables, state, result, distance, best):
    """``result`` int8, ``distance`` int16 and ``best`` int16 of every slot from ``state``."""
    (region_mask, region_size, region_players, region_np, cell_j, comp_id, offsets, binom,
     step, hop_over, hop_land, rest, goal) = tables
    placements = state.shape[0] // n
    blocks = (placements + BLOCK - 1) // BLOCK
    ranks_of, masks_of = task_scratch(n, unrank_tables[1].shape[0])
    most = (unrank_tables[0].shape[0] - 1) * step.shape[0]
    children_of = np.zeros((TASKS, most), np.int64)
    moved_of = np.zeros((TASKS, most), np.int16)
    for task in prange(TASKS):
        ranks, masks = ranks_of[task], masks_of[task]
        children, moved = children_of[task], moved_of[task]
        for b in range(task, blocks, TASKS):
            for pl in range(b * BLOCK, min(placements, (b + 1) * BLOCK)):
                occ = unrank_masks(pl, n, region_mask, offsets, unrank_tables, ranks, masks)
                for mover in range(1, n + 1):
                    slot = pl * n + mover - 1
                    code = np.int64(state[slot])
                    best[slot] = -1
                    if code == ILLEGAL_CODE:
                        result[slot] = ILLEGAL
                        distance[slot] = 0
                        continue
                    side = 0 if mover == lone else 1
                    if code >= DECIDED:
                        d = (code - DECIDED) // 2
                        w = (code - DECIDED) % 2
                        result[slot] = WIN if w == side else LOSS
                        distance[slot] = d
                        if d == 0:
                            continue
                        want_lo = DECIDED + 2 * (d - 1) + w
                        want_hi = want_lo
                    else:
                        result[slot] = DRAW
                        distance[slot] = 0
                        want_lo = 1
                        want_hi = MANY
                    if not can_move(masks, mover, occ, rest, step, hop_over, hop_land):
                        best[slot] = PASS_CODE
                        continue
                    nxt = mover % n + 1
                    found = moved_slots(masks, mover, occ, n, nxt, tables, state, children,
                                        moved)
                    for i in range(found):
                        c = np.int64(state[children[i]])
                        if want_lo <= c <= want_hi:
                            best[slot] = moved[i]
                            break
