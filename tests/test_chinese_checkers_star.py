"""The star: perft against the slow reference, and the single-agent distance tables against a
plain breadth-first search."""
import random
from math import comb

import numpy as np
import pytest

from tests import naive_chinese_checkers as naive
from tbdb.errors import InvalidOptionError
from tbdb.games.chinese_checkers import StarPosition, perft_divide
from tbdb.games.chinese_checkers.tables import DistanceTable

# perft of the start positions, by the slow reference (depth 4 takes minutes there)
START_PERFT = {2: [1, 14, 196, 4760], 3: [1, 14, 196, 2744], 4: [1, 14, 199, 2786],
               6: [1, 14, 199, 2828]}


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_start_perft(players):
    start = StarPosition.start(players)
    assert start.cells == naive.star_start(players)
    for depth, want in enumerate(START_PERFT[players]):
        assert start.perft(depth) == want


@pytest.mark.parametrize("players", [2, 3, 6])
def test_perft_of_random_positions_matches_the_reference(players):
    rng = random.Random(players)
    position = StarPosition.start(players)
    for _ in range(25):
        position = position.push(rng.choice(position.legal_moves()))
    total, divide = perft_divide(position, 2)
    want = naive.star_perft(position.cells, players, position.mover, 2)
    assert total == want == sum(divide.values())
    assert len(divide) == len(position.legal_moves())


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_start_perft_4_matches_the_reference(players):
    start = StarPosition.start(players)
    assert start.perft(4) == naive.star_perft(start.cells, players, 1, 4)


def test_a_finished_game_has_no_moves():
    geo_points = naive.star_points(naive.star())
    cells = [0] * 121
    # player 1 fills its goal (the bottom point) with nine pieces of its own and one of 2's
    bottom = sorted(geo_points[3])
    for c in bottom[:9]:
        cells[c] = 1
    cells[bottom[9]] = 2
    for c in sorted(geo_points[0])[:9]:
        cells[c] = 2
    cells[58] = 1
    position = StarPosition(2, tuple(cells), 2)
    assert position.winner == 1
    assert position.legal_moves() == []
    assert position.perft(1) == 0 and position.perft(0) == 1


@pytest.mark.parametrize("k", [1, 2])
def test_distance_tables_match_a_plain_search(k):
    table = DistanceTable(k)
    dist = table.build()
    assert dist.shape == (comb(121, k),)
    reference = naive.star_distances(k)
    assert len(reference) == comb(121, k)
    for cells, d in reference.items():
        assert dist[table.rank(cells)] == d


def test_distance_table_of_three_pieces_on_samples():
    table = DistanceTable(3)
    dist = table.build()
    rng = random.Random(1)
    board = naive.star()
    goal = set(naive.star_points(board)[3])
    for _ in range(200):
        cells = rng.sample(range(121), 3)
        d = int(dist[table.rank(cells)])
        assert (d == 0) == (set(cells) <= goal)
        # one move changes the distance by at most one, and some move brings it one closer
        neighbours = []
        board_cells = [0] * 121
        for c in cells:
            board_cells[c] = 1
        for s, t in naive.moves(board, board_cells, 1):
            neighbours.append(int(dist[table.rank([t if c == s else c for c in cells])]))
        assert all(abs(x - d) <= 1 for x in neighbours)
        assert d == 0 or min(neighbours) == d - 1


def test_distance_rank_turns_the_board_for_other_goals():
    table = DistanceTable(1)
    dist = table.build()
    points = naive.star_points(naive.star())
    tips = {0: 0, 3: 120}
    assert dist[table.rank([tips[0]])] == 13  # the top tip to the bottom point
    assert dist[table.rank([tips[0]], goal_point=0)] == 0
    for p in range(6):
        for c in points[p]:
            assert dist[table.rank([c], goal_point=p)] == 0
    with pytest.raises(InvalidOptionError):
        table.rank([1, 2])
    with pytest.raises(InvalidOptionError):
        DistanceTable(6)


def test_perft_rejects_a_negative_depth():
    with pytest.raises(InvalidOptionError):
        perft_divide(StarPosition.start(2), -1)


def test_unknown_player_counts_are_rejected():
    with pytest.raises(InvalidOptionError, match="5"):
        StarPosition.start(5)
    assert np.array(StarPosition.start(6).cells).max() == 6
