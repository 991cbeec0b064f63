"""The one-byte, every-core solve of the small stars (``solvers/chinese_checkers/
star_compact.py``) against the slow reference ``naive_cc_star.py`` and against tbdb's plain
coalition retrograde: the same value and distance in every slot, for every lone player, with
the byte's child counter both wide enough and deliberately too narrow (``cap=2``: nearly every
position then takes the path of the rare positions with more than 63 moves)."""
from __future__ import annotations

import numpy as np
import pytest

from tbdb.games.chinese_checkers.star_build import solve_compact, unpack
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
        result, distance = unpack(solve_compact(space, lone, cap=cap))
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
        got = unpack(solve_compact(space, lone, cap=cap))
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


KILLED_AT = """
import os, signal, sys
from tbdb.games.chinese_checkers.star_build import solve_compact
from tbdb.games.chinese_checkers.stars import StarSpace

def log(level, done, made):
    if level == int(sys.argv[2]):
        os.kill(os.getpid(), signal.SIGKILL)

solve_compact(StarSpace(37, 2, 2), 1, save=sys.argv[1], save_every=0, log=log)
"""


def test_a_solve_killed_mid_build_resumes_from_its_save_to_the_same_values(tmp_path):
    import subprocess
    import sys
    save = str(tmp_path / "star.save")
    run = subprocess.Popen([sys.executable, "-c", KILLED_AT, save, "7"])
    assert run.wait() == -9
    assert sorted(p.name for p in tmp_path.iterdir()) == ["star.save"]
    # as a kill in the middle of the next save would have left it
    partial = tmp_path / f".star.save.tbdb-partial-{run.pid}-x1"
    partial.write_bytes(b"half a save")
    space = StarSpace(37, 2, 2)
    levels = []
    state = solve_compact(space, 1, save=save, log=lambda level, *_: levels.append(level))
    assert levels[0] == 7  # level 6 was saved before the kill; level 7 runs again
    assert not partial.exists()
    result, distance = space.solve(1)
    got = unpack(state)
    assert np.array_equal(got[0], result) and np.array_equal(got[1], distance)


def test_a_save_of_something_else_is_refused_and_left_as_it_was(tmp_path):
    space = StarSpace(13, 3, 1)
    other = tmp_path / "other"
    other.write_bytes(b"not a save at all" * 10)
    with pytest.raises(ValueError, match="is not a tbdb star solve save"):
        solve_compact(space, 1, save=str(other))
    assert other.read_bytes() == b"not a save at all" * 10
    save = tmp_path / "star.save"
    solve_compact(space, 1, save=str(save))
    with pytest.raises(ValueError, match="saves another solve"):
        solve_compact(space, 2, save=str(save))
    body = save.read_bytes()
    save.write_bytes(body[:-1])
    with pytest.raises(ValueError, match="is damaged"):
        solve_compact(space, 1, save=str(save))
