"""The coalition retrograde of the small stars (issue 63), one lone player L at a time.

Slots are ``placement * n + (mover - 1)`` over the placement index (``star_index``).  A slot's
value is for L: ``result`` +1 (L forces its own win), -1 (the coalition forces a win of one of
its members), 0 (neither: a draw, once nothing more is decided), with ``distance`` in plies;
ILLEGAL_RESULT marks a placement no game reaches with that player to move.

Level by level, as the two-player retrograde, but the sides are teams: L's turns are one
side's, every other player's the coalition's, so two consecutive turns may be the same side's.
A slot decided at level d decides or counts down each of its predecessors (the positions its
last mover moved from, and the pass of a mover with no move): a predecessor whose mover's side
wins with it is won for that side at d + 1; one whose every child went to the other side is
the other side's at d + 1 when its last child does.  This first version is one thread over
4 bytes a slot, for the small tables the tests compare with the slow reference.
"""
import numpy as np

from tbdb.solvers.jit import kernel
from tbdb.solvers.chinese_checkers.star_index import rank_placement, unrank_placement
from tbdb.solvers.chinese_checkers.star_moves import FINISHED, ILLEGAL, has_move, moves_of, reach, \
    status

ILLEGAL_RESULT = -128
UNKNOWN = 0


@kernel
def solve_coalition(lone, n, m, placements, nbr, can_rest, in_goal, index_arrays,
                    result, distance):
    """Fill ``result`` int8[placements * n] and ``distance`` int16[...] for lone player
    ``lone`` (1..n); returns the number of levels."""
    (region_cells, region_size, region_players, region_np, player_slot, player_regions,
     cell_region, comp_id, comps, offsets, binom) = index_arrays
    ncells = nbr.shape[0]
    cells, visit, stack, out_from, out_to, work = _scratch(n, m, ncells, region_size.shape[0])
    left = np.zeros(placements * n, np.uint8)  # children not decided yet
    decided = np.zeros(placements * n, np.bool_)
    stamp = 0
    result[:] = UNKNOWN
    distance[:] = 0
    for pl in range(placements):
        unrank_placement(pl, n, m, region_cells, region_size, region_players, region_np,
                         player_regions, comps, offsets, binom, cells, work)
        for mover in range(1, n + 1):
            slot = pl * n + mover - 1
            st = status(cells, mover, n, in_goal)
            if st == ILLEGAL:
                result[slot] = ILLEGAL_RESULT
                decided[slot] = True
            elif st == FINISHED:
                last = (mover - 2) % n + 1
                result[slot] = 1 if last == lone else -1
                decided[slot] = True
            else:
                count, stamp = moves_of(cells, mover, nbr, can_rest, visit, stack,
                                        stamp, out_from, out_to)
                left[slot] = max(count, 1)  # no move: the pass is its one child
    level = 0
    while True:
        changed = 0
        for slot in range(placements * n):
            if not decided[slot] or result[slot] == ILLEGAL_RESULT or \
                    distance[slot] != level:
                continue
            changed += 1
            value = result[slot]
            pl = slot // n
            mover = slot % n + 1
            q = (mover - 2) % n + 1  # who moved into this position
            side = 1 if q == lone else -1
            unrank_placement(pl, n, m, region_cells, region_size, region_players, region_np,
                             player_regions, comps, offsets, binom, cells, work)
            for t in range(ncells):
                if cells[t] != q:
                    continue
                cells[t] = 0
                stamp += 1
                end = reach(cells, t, q, nbr, can_rest, visit, stack, stamp, out_to, 0)
                for i in range(end):
                    s = out_to[i]
                    cells[s] = q
                    before = rank_placement(cells, n, m, region_cells, region_size, region_np,
                                            player_slot, player_regions, cell_region, comp_id,
                                            offsets, binom, work)
                    cells[s] = 0
                    _back_up(before * n + q - 1, value, side, level, decided, left, result,
                             distance)
                cells[t] = q
            # the pass: q had no move here
            moves, stamp = has_move(cells, q, nbr, can_rest, visit, stack, stamp,
                                    out_from, out_to)
            if not moves:
                _back_up(pl * n + q - 1, value, side, level, decided, left, result, distance)
        if changed == 0:
            break
        level += 1
    return level


@kernel
def _scratch(n, m, ncells, regions):
    """A position, the move generator's stamps, stack and moves, and the index's work."""
    return (np.zeros(ncells, np.int8), np.zeros(ncells, np.int64), np.zeros(ncells, np.int16),
            np.zeros(n * m * ncells, np.int16), np.zeros(n * m * ncells, np.int16),
            np.zeros(3 * n + 3 * regions * n, np.int64))


@kernel
def _back_up(parent, value, side, level, decided, left, result, distance):
    """A child of ``parent`` (whose mover is on ``side``) decided ``value`` at ``level``."""
    if decided[parent]:
        return
    if value == side:
        result[parent] = value
        distance[parent] = level + 1
        decided[parent] = True
    else:
        left[parent] -= 1
        if left[parent] == 0:
            result[parent] = value
            distance[parent] = level + 1
            decided[parent] = True


@kernel
def check_coalition(lone, n, m, placements, nbr, can_rest, in_goal, index_arrays, result,
                    distance):
    """The first slot whose stored value is not what its children give it (the rule the solve
    applies, from the other end: the side to move wins through its quickest winning child,
    else loses through its longest child when every child is the other side's, else draws),
    or -1."""
    (region_cells, region_size, region_players, region_np, player_slot, player_regions,
     cell_region, comp_id, comps, offsets, binom) = index_arrays
    ncells = nbr.shape[0]
    cells, visit, stack, out_from, out_to, work = _scratch(n, m, ncells, region_size.shape[0])
    stamp = 0
    for pl in range(placements):
        unrank_placement(pl, n, m, region_cells, region_size, region_players, region_np,
                         player_regions, comps, offsets, binom, cells, work)
        for mover in range(1, n + 1):
            slot = pl * n + mover - 1
            st = status(cells, mover, n, in_goal)
            if st == ILLEGAL:
                if result[slot] != ILLEGAL_RESULT:
                    return slot
                continue
            if st == FINISHED:
                want = 1 if (mover - 2) % n + 1 == lone else -1
                if result[slot] != want or distance[slot] != 0:
                    return slot
                continue
            side = 1 if mover == lone else -1
            nxt = mover % n + 1
            count, stamp = moves_of(cells, mover, nbr, can_rest, visit, stack, stamp,
                                    out_from, out_to)
            best_win = 32767
            worst = -1
            others = 0
            for i in range(max(count, 1)):
                if count > 0:
                    s, t = out_from[i], out_to[i]
                    cells[s] = 0
                    cells[t] = mover
                    child = rank_placement(cells, n, m, region_cells, region_size, region_np,
                                           player_slot, player_regions, cell_region, comp_id,
                                           offsets, binom, work) * n + nxt - 1
                    cells[t] = 0
                    cells[s] = mover
                else:
                    child = pl * n + nxt - 1
                r = result[child]
                if r == side:
                    best_win = min(best_win, distance[child])
                elif r == -side:
                    others += 1
                    worst = max(worst, distance[child])
            n_children = max(count, 1)
            if best_win < 32767:
                if result[slot] != side or distance[slot] != best_win + 1:
                    return slot
            elif others == n_children:
                if result[slot] != -side or distance[slot] != worst + 1:
                    return slot
            elif result[slot] != UNKNOWN or distance[slot] != 0:
                return slot
    return -1
