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

from tbdb.solvers.bits import low_bit
from tbdb.solvers.chinese_checkers.star_compact import (BLOCK, DECIDED, ILLEGAL_CODE, MANY, ONE,
                                                        TASKS, can_move, moved_slots,
                                                        rank_masks, task_scratch, unrank_masks)
from tbdb.solvers.jit import kernel, parallel_kernel, prange
from tbdb.solvers.retrograde.values import DRAW, ILLEGAL, LOSS, WIN

PASS_CODE = 64 * 64


@parallel_kernel
def mover_values(lone, n, tables, unrank_tables, state, first, last, with_best, result,
                 distance, best):
    """``result`` int8, ``distance`` int16 and ``best`` int16 of the slots of placements
    ``first`` .. ``last`` - 1 (the arrays' slot 0 is placement ``first``'s) from ``state``;
    without ``with_best`` the best moves are not searched for (left -1): a reader of results
    and distances alone pays no move generation."""
    (region_mask, region_size, region_players, region_np, cell_j, comp_id, offsets, binom,
     step, hop_over, hop_land, rest, goal) = tables
    # blocks small enough that a chunk's give every task several, strided over the chunk:
    # prange hands each thread a run of tasks, and a chunk of fewer blocks than tasks left the
    # second thread idle
    size = min(BLOCK, max(1, (last - first) // (4 * TASKS)))
    blocks = (last - first + size - 1) // size
    ranks_of, masks_of = task_scratch(n, unrank_tables[1].shape[0])
    most = (unrank_tables[0].shape[0] - 1) * step.shape[0]
    children_of = np.zeros((TASKS, most), np.int64)
    moved_of = np.zeros((TASKS, most), np.int16)
    for task in prange(TASKS):
        ranks, masks = ranks_of[task], masks_of[task]
        children, moved = children_of[task], moved_of[task]
        for b in range(task, blocks, TASKS):
            for pl in range(first + b * size, min(last, first + (b + 1) * size)):
                occ = np.uint64(0)
                if with_best:
                    occ = unrank_masks(pl, n, region_mask, offsets, unrank_tables, ranks, masks)
                for mover in range(1, n + 1):
                    slot = pl * n + mover - 1
                    out = slot - first * n
                    code = np.int64(state[slot])
                    best[out] = -1
                    if code == ILLEGAL_CODE:
                        result[out] = ILLEGAL
                        distance[out] = 0
                        continue
                    side = 0 if mover == lone else 1
                    if code >= DECIDED:
                        d = (code - DECIDED) // 2
                        w = (code - DECIDED) % 2
                        result[out] = WIN if w == side else LOSS
                        distance[out] = d
                        if d == 0 or not with_best:
                            continue
                        want_lo = DECIDED + 2 * (d - 1) + w
                        want_hi = want_lo
                    else:
                        result[out] = DRAW
                        distance[out] = 0
                        if not with_best:
                            continue
                        want_lo = 1
                        want_hi = MANY
                    if not can_move(masks, mover, occ, rest, step, hop_over, hop_land):
                        best[out] = PASS_CODE
                        continue
                    nxt = mover % n + 1
                    found = moved_slots(masks, mover, occ, n, nxt, tables, state, children,
                                        moved)
                    for i in range(found):
                        c = np.int64(state[children[i]])
                        if want_lo <= c <= want_hi:
                            best[out] = moved[i]
                            break


@kernel
def _turned_slot(masks, turned, n, mover, shift, turn, tables):
    """The slot of the position ``masks`` (``mover`` to move) on the board turned back by
    ``shift`` seats (``turn[c]``: where cell c goes; each player p renamed p - shift)."""
    (region_mask, region_size, region_players, region_np, cell_j, comp_id, offsets, binom,
     step, hop_over, hop_land, rest, goal) = tables
    for p in range(1, n + 1):
        w = masks[p]
        out = np.uint64(0)
        while w != 0:
            c = low_bit(w)
            w &= w - ONE
            out |= ONE << np.uint64(turn[c])
        turned[(p - 1 - shift) % n + 1] = out
    rank = rank_masks(turned, n, region_mask, region_size, region_players, region_np, cell_j,
                      comp_id, offsets, binom)
    return rank * n + (mover - 1 - shift) % n


@parallel_kernel
def kingmaker_counts(n, stored, turns, tables, unrank_tables, first, second, joint):
    """Over every legal position, how many single players force their own win as the lone
    player (own) and how many the others force to lose (lost): ``joint[own, lost]`` += 1.
    ``stored[L - 1]``: the stored lone player answering lone L (1, or 2 with four players);
    ``first`` and ``second``: lone player 1's and 2's state bytes (``star_compact``'s codes:
    only who won is read); ``turns[s]``: the cell map that turns the board back by s seats."""
    (region_mask, region_size, region_players, region_np, cell_j, comp_id, offsets, binom,
     step, hop_over, hop_land, rest, goal) = tables
    placements = first.shape[0] // n
    blocks = (placements + BLOCK - 1) // BLOCK
    ranks_of, masks_of = task_scratch(n, unrank_tables[1].shape[0])
    turned_of = np.zeros((TASKS, n + 1), np.uint64)
    counts = np.zeros((TASKS, n + 1, n + 1), np.int64)
    for task in prange(TASKS):
        ranks, masks, turned = ranks_of[task], masks_of[task], turned_of[task]
        for b in range(task, blocks, TASKS):
            for pl in range(b * BLOCK, min(placements, (b + 1) * BLOCK)):
                unrank_masks(pl, n, region_mask, offsets, unrank_tables, ranks, masks)
                for mover in range(1, n + 1):
                    if first[pl * n + mover - 1] == ILLEGAL_CODE:
                        continue
                    own = 0
                    lost = 0
                    for lone in range(1, n + 1):
                        s = stored[lone - 1]
                        shift = lone - s
                        slot = pl * n + mover - 1
                        if shift != 0:
                            slot = _turned_slot(masks, turned, n, mover, shift, turns[shift],
                                                tables)
                        code = np.int64(first[slot] if s == 1 else second[slot])
                        if code < DECIDED or code == ILLEGAL_CODE:
                            continue  # a draw
                        if (code - DECIDED) % 2 == 0:
                            own += 1
                        else:
                            lost += 1
                    counts[task, own, lost] += 1
    for task in range(TASKS):
        joint += counts[task]
