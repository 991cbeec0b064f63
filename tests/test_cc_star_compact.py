"""The one-byte, every-core solve of the small stars (``solvers/chinese_checkers/
star_compact.py``) against the slow reference ``naive_cc_star.py`` and against tbdb's plain
coalition retrograde: the same value and distance in every slot, for every lone player, with
the byte's child counter both wide enough and deliberately too narrow (``cap=2``: nearly every
position then takes the path of the rare positions with more than 63 moves)."""
from __future__ import annotations

import numpy as np
import pytest

from tbdb.games.chinese_checkers.stars import StarSpace
from tbdb.solvers.chinese_checkers import star_compact
from tbdb.solvers.chinese_checkers.geometry import STAR_SIZES
from tests import naive_cc_star as naive


@pytest.mark.parametrize("holes, players, cap", [(13, 3, star_compact.COUNT_CAP), (13, 3, 2),
                                                 (13, 4, 2), (37, 3, 2)])
def test_the_one_byte_solve_is_the_references_position_by_position(holes, players, cap):
    space = StarSpace(holes, players, 1)
    ref = naive.Star(STAR_SIZES[holes], players)
    positions = naive.reachable(ref, 1)
    for lone in range(1, players + 1):
        want = naive.coalition_values(ref, positions, lone)
        result, distance = space.unpack(space.solve_compact(lone, cap))
        for (cells, mover), value in want.items():
            slot = space.rank(cells) * players + mover - 1
            assert (int(result[slot]), int(distance[slot])) == value, (cells, mover, lone)


@pytest.mark.parametrize("cap", [star_compact.COUNT_CAP, 2])
def test_the_one_byte_solve_is_the_plain_solve_in_every_slot_draws_included(cap):
    """Two marbles each on the 37-hole star (a table with draws and positions of more than
    two moves): every slot, illegal ones included, for both lone players."""
    space = StarSpace(37, 2, 2)
    for lone in (1, 2):
        result, distance = space.solve(lone)
        got = space.unpack(space.solve_compact(lone, cap))
        assert (result == 0).any()
        assert np.array_equal(got[0], result) and np.array_equal(got[1], distance)


def _cells_of(space: StarSpace, masks: np.ndarray) -> list[int]:
    cells = [0] * space.geo.cells
    for p in range(1, space.players + 1):
        for c in range(space.geo.cells):
            if int(masks[p]) >> c & 1:
                assert cells[c] == 0
                cells[c] = p
    return cells


@pytest.mark.parametrize("holes, players, marbles", [(13, 6, 1), (37, 3, 2), (37, 4, 2),
                                                     (37, 3, 3), (37, 6, 1)])
def test_the_bitboard_rank_and_unrank_are_the_index(holes, players, marbles):
    """``unrank_masks`` and ``rank_masks`` against ``star_index``'s cell-array unrank, on
    indices spread over the whole table (both ends included)."""
    space = StarSpace(holes, players, marbles)
    tables, unrank_tables = space.compact_tables, space.unrank_tables
    ranks = np.zeros(len(unrank_tables[1]), np.int64)
    masks = np.zeros(players + 1, np.uint64)
    rng = np.random.default_rng(63)
    picks = [0, space.placements - 1, *rng.integers(0, space.placements, 400).tolist()]
    for index in picks:
        occ = star_compact.unrank_masks(index, players, tables[0], tables[6], unrank_tables,
                                        ranks, masks)
        cells = _cells_of(space, masks)
        assert cells == space.unrank(index), index
        assert int(occ) == sum(1 << c for c, p in enumerate(cells) if p)
        assert star_compact.rank_masks(masks, players, *tables[:8]) == index
