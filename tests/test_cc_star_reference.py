"""The small stars of issue 63 (3, 4 and 6 players as coalition games) against the slow
reference ``naive_cc_star.py``: the boards tbdb numbers, the placements its index will count
(the published 14,841,300,390 of three players with three marbles on the 37-hole star), and
hand-checked values of the reference itself."""
from __future__ import annotations

import numpy as np
import pytest

from tbdb.solvers.chinese_checkers.geometry import STAR_CELLS, STAR_SIZES, star
from tests import naive_cc_star as naive


@pytest.mark.parametrize("holes", sorted(STAR_SIZES))
def test_each_star_is_the_references_board(holes):
    k = STAR_SIZES[holes]
    geo, ref = star(k), naive.Star(k, 6)
    assert geo.cells == ref.cells == holes
    assert geo.coords == ref.coords
    assert geo.point.tolist() == ref.point
    assert [int((geo.point == p).sum()) for p in range(6)] == [k * (k + 1) // 2] * 6
    for i in range(holes):
        assert [None if n < 0 else int(n) for n in geo.nbr[i]] == \
            [ref.step(i, d) for d in range(6)]


def test_the_usual_star_is_unchanged():
    geo = star()
    assert geo is star(4) and geo.cells == STAR_CELLS
    assert [len(r) for r in geo.rows] == [1, 2, 3, 4, 13, 12, 11, 10, 9, 10, 11, 12, 13, 4, 3,
                                          2, 1]


@pytest.mark.parametrize("holes, players, marbles", [(13, 3, 1), (37, 3, 1), (13, 3, 0)])
def test_the_closed_form_counts_the_placements(holes, players, marbles):
    assert naive.placements(holes, players, marbles) == \
        naive.placements_by_formula(STAR_SIZES[holes], players, marbles)


def test_three_players_with_three_marbles_on_the_37_hole_star_is_the_published_count():
    # B. Liou's three-player solve: 14,841,300,390 states (placements times players to move)
    assert 3 * naive.placements_by_formula(2, 3, 3) == 14_841_300_390


def test_a_marble_rests_only_on_the_centre_and_its_own_points():
    """Player 1 (start: the top point, goal: the bottom one) may hop through point 1, which is
    no point of its own, but not stop there."""
    ref = naive.Star(2, 3)
    cells = [0] * ref.cells
    at = ref.where[(0, 2, -2)]  # the hexagon's top right corner
    cells[at] = 1
    cells[ref.where[(1, 2, -3)]] = cells[ref.where[(2, 1, -3)]] = 2  # on point 1
    cells[ref.where[(-2, -1, 3)]] = 3
    got = naive.moves(ref, tuple(cells), 1)
    assert ref.point[ref.where[(2, 2, -4)]] == 1
    assert (at, ref.where[(2, 2, -4)]) not in got  # the first hop's landing: point 1
    assert (at, ref.where[(2, 0, -2)]) in got  # the second's, back in the hexagon
    assert all(ref.point[t] in (-1, 0, 3) for _, t in got)


def test_the_reference_values_the_one_marble_13_hole_star_for_three_players():
    ref = naive.Star(1, 3)
    positions = naive.reachable(ref, 1)
    assert len(positions) == 1245
    values = [naive.coalition_values(ref, positions, lone) for lone in (1, 2, 3)]
    start = positions[0]
    # no lone player forces its own win from the start: the other two stop it
    assert [v[start][0] for v in values] == [-1, -1, -1]
    # player 1 to move with a move onto its goal point wins at once
    won = [(cells, mover) for cells, mover in positions if mover == 1 and
           naive.status(ref, cells, 1) == "play" and
           any(t in ref.goal[1] for _, t in naive.moves(ref, cells, 1))]
    assert won and all(values[0][p] == (1, 1) for p in won)
    # and the game is over once a player's marbles all stand on its goal
    over = [p for p in positions if naive.status(ref, *p) not in ("play", "illegal")]
    assert over and all(values[naive.status(ref, *p) - 1][p] == (1, 0) for p in over)


SMALL = [(13, 3, 1), (13, 4, 1), (13, 6, 1), (37, 3, 1), (37, 2, 2), (37, 4, 1)]


@pytest.mark.parametrize("holes, players, marbles", SMALL)
def test_the_index_counts_every_placement_once(holes, players, marbles):
    """The index's size is the brute-force count, and rank and unrank are inverse over it."""
    from tbdb.games.chinese_checkers.stars import StarSpace
    space = StarSpace(holes, players, marbles)
    assert space.placements == naive.placements(holes, players, marbles)
    seen = set()
    for i in range(0, space.placements, max(1, space.placements // 3000)):
        cells = space.unrank(i)
        assert space.rank(cells) == i
        key = tuple(cells)
        assert key not in seen
        seen.add(key)
        ref = naive.Star(STAR_SIZES[holes], players)
        for c, p in enumerate(cells):
            assert p == 0 or c in ref.rest[p]
        assert all(cells.count(p) == marbles for p in range(1, players + 1))


def test_the_index_holds_every_reachable_position():
    from tbdb.games.chinese_checkers.stars import StarSpace
    space = StarSpace(13, 4, 1)
    ref = naive.Star(1, 4)
    ranks = {space.rank(cells) for cells, _ in naive.reachable(ref, 1)}
    assert -1 not in ranks and max(ranks) < space.placements
    bad = list(ref.start(1))
    bad[next(c for c in range(ref.cells) if ref.point[c] == 2)] = 1  # a point no one rests on
    bad[bad.index(1)] = 0
    assert space.rank(bad) == -1


def test_the_index_counts_the_published_three_player_placements():
    from tbdb.games.chinese_checkers.stars import StarSpace
    assert 3 * StarSpace(37, 3, 3).placements == 14_841_300_390


@pytest.mark.parametrize("holes, players", [(13, 3), (13, 4), (37, 3), (13, 2)])
def test_coalition_values_are_the_references_position_by_position(holes, players):
    """Every reachable position of one marble each, for every lone player: tbdb's value and
    distance are the slow reference's."""
    from tbdb.games.chinese_checkers.stars import StarSpace
    from tbdb.solvers.chinese_checkers.star_solve import ILLEGAL_RESULT
    space = StarSpace(holes, players, 1)
    ref = naive.Star(STAR_SIZES[holes], players)
    positions = naive.reachable(ref, 1)
    for lone in range(1, players + 1):
        want = naive.coalition_values(ref, positions, lone)
        result, distance = space.solve(lone)
        for (cells, mover), value in want.items():
            slot = space.rank(cells) * players + mover - 1
            assert (int(result[slot]), int(distance[slot])) == value, (cells, mover, lone)
        assert (result == ILLEGAL_RESULT).any() or players == 2


def test_every_value_is_what_its_children_give_it_draws_included():
    """Two marbles each on the 37-hole star, two players, a table with draws: each value
    re-derived from its children; a draw counted as the coalition's win is caught."""
    from tbdb.games.chinese_checkers.stars import StarSpace
    space = StarSpace(37, 2, 2)
    result, distance = space.solve(1)
    assert int((result == 0).sum()) > 0
    assert space.check(1, result, distance) == -1
    draw = int(np.flatnonzero(result == 0)[0])
    result[draw] = -1
    assert space.check(1, result, distance) >= 0


PERFT = [(13, 2, 1, 9), (13, 3, 1, 9), (13, 4, 1, 9), (13, 6, 1, 10), (37, 2, 3, 5),
         (37, 3, 3, 5), (37, 4, 3, 4), (37, 6, 3, 4), (73, 2, 6, 4), (73, 3, 6, 4),
         (73, 4, 6, 3), (73, 6, 6, 3)]


def _perft(ref, position, depth: int) -> int:
    if depth == 0:
        return 1
    return sum(_perft(ref, c, depth - 1) for c in naive.children(ref, *position))


@pytest.mark.parametrize("holes, players, marbles, depth", PERFT)
def test_perft_from_each_start_is_the_references(holes, players, marbles, depth):
    """Every board and player count from its full start (the pass of a blocked player a
    ply, nothing below a finished game)."""
    from tbdb.games.chinese_checkers.stars import StarSpace
    ref = naive.Star(STAR_SIZES[holes], players)
    start = ref.start(marbles)
    assert StarSpace(holes, players, marbles).perft(start, 1, depth) == \
        _perft(ref, (start, 1), depth)


def _mapped(ref, cells, cell_map, colour_map) -> tuple:
    out = [0] * ref.cells
    for i, v in enumerate(cells):
        out[ref.where[cell_map(ref.coords[i])]] = colour_map[v]
    return tuple(out)


def test_a_turn_of_the_board_is_a_symmetry_and_a_reflection_is_not():
    """Three players, one marble each, 13-hole star, the slow reference alone: turning the board
    120 degrees clockwise makes player p player p + 1 and keeps every value (so one lone
    player's table answers all three), while reflecting it through player 1's axis (players 2
    and 3 swapped) reverses the turn order and changes values: it is not a symmetry."""
    ref = naive.Star(1, 3)
    positions = naive.reachable(ref, 1)
    values = {lone: naive.coalition_values(ref, positions, lone) for lone in (1, 2, 3)}
    turn = {0: 0, 1: 2, 2: 3, 3: 1}
    for (cells, mover), value in values[1].items():
        turned = _mapped(ref, cells, lambda c: (c[1], c[2], c[0]), turn)
        assert values[2][turned, turn[mover]] == value
        assert values[3][_mapped(ref, turned, lambda c: (c[1], c[2], c[0]), turn),
                         turn[turn[mover]]] == value
    swap = {0: 0, 1: 1, 2: 3, 3: 2}
    mirrored = [(value, values[1].get((_mapped(ref, cells, lambda c: (c[2], c[1], c[0]), swap),
                                       swap[mover])))
                for (cells, mover), value in values[1].items()]
    both = [(a, b) for a, b in mirrored if b is not None]
    assert len(both) > len(mirrored) // 2
    assert any(a != b for a, b in both)
