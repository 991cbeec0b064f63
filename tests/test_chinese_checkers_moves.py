"""Chinese Checkers move generation against the slow reference, and the move notation."""
import random

import numpy as np
import pytest

from tests import naive_chinese_checkers as naive
from tbdb.errors import InvalidMoveError
from tbdb.games.chinese_checkers import Move, Position, StarPosition
from tbdb.solvers.chinese_checkers import moves as kernels
from tbdb.solvers.chinese_checkers.geometry import rhombus, star


def kernel_moves(cells, nbr, player):
    board = np.array(cells, np.int8)
    n = len(cells)
    out_from = np.empty(n * n, np.int64)
    out_to = np.empty(n * n, np.int64)
    count = kernels.moves_of_board(board, nbr, player, out_from, out_to)
    return list(zip(out_from[:count].tolist(), out_to[:count].tolist()))


def random_cells(rng, size, counts):
    cells = [0] * size
    spots = rng.sample(range(size), sum(counts))
    at = 0
    for player, count in enumerate(counts, 1):
        for c in spots[at:at + count]:
            cells[c] = player
        at += count
    return tuple(cells)


@pytest.mark.parametrize("m", [3, 4, 5, 7, 9])
def test_geometry_matches_the_reference_board(m):
    geo, ref = rhombus(m), naive.rhombus(m)
    assert geo.cells == ref.size == m * m
    for cell in range(geo.cells):
        want = sorted(c for c in (ref.step(cell, off) for off in naive.OFFSETS) if c is not None)
        assert sorted(int(c) for c in geo.nbr[cell] if c >= 0) == want
        assert geo.mirror[cell] == ref.mirrored(cell)
        assert geo.cells - 1 - cell == ref.turned(cell)


def test_star_geometry_matches_the_reference_board():
    geo, ref = star(), naive.star()
    assert geo.cells == ref.size == 121
    points = naive.star_points(ref)
    for p in range(6):
        assert geo.point_cells(p).tolist() == sorted(points[p])
    for cell in range(geo.cells):
        want = sorted(c for c in (ref.step(cell, off) for off in naive.OFFSETS) if c is not None)
        assert sorted(int(c) for c in geo.nbr[cell] if c >= 0) == want


@pytest.mark.parametrize("m,pieces", [(3, 3), (4, 6), (5, 4), (7, 3), (9, 6)])
def test_rhombus_moves_match_the_reference(m, pieces):
    rng = random.Random(m * 10 + pieces)
    geo, ref = rhombus(m), naive.rhombus(m)
    hops = 0
    for _ in range(150):
        cells = random_cells(rng, geo.cells, (pieces, pieces))
        for player in (1, 2):
            got = kernel_moves(cells, geo.nbr, player)
            assert got == sorted(naive.moves(ref, cells, player)), cells
            hops += sum(t not in geo.nbr[s] for s, t in got)
    assert hops > 0


def test_star_moves_match_the_reference():
    rng = random.Random(5)
    geo, ref = star(), naive.star()
    for players in (2, 3, 6):
        for _ in range(40):
            cells = random_cells(rng, geo.cells, (10,) * players)
            for player in range(1, players + 1):
                assert kernel_moves(cells, geo.nbr, player) == \
                    sorted(naive.moves(ref, cells, player))


def test_hops_go_over_either_colour():
    # 4x4 cells by row: 0 / 1 2 / 3 4 5 / 6 7 8 9 / 10 11 12 / 13 14 / 15
    p = Position.parse("4x4-3 1/1./1.2/.2../..2/../. 1")
    moves = {str(m) for m in p.legal_moves()}
    assert "3-11" in moves  # over the second player's piece on 7
    assert "1-6" in moves  # over its own piece on 3
    assert "0-2" in moves and "0-3" not in moves
    for move in p.legal_moves():
        assert len(set(move.path)) == len(move.path)
        assert p.push(move).cells[move.to_cell] == 1


def test_move_text_round_trips_and_chains_occur():
    rng = random.Random(2)
    geo = rhombus(7)
    seen_chain = False
    for _ in range(200):
        position = Position(7, 3, random_cells(rng, geo.cells, (3, 3)), 1)
        if position.status != "playing":
            continue
        for move in position.legal_moves():
            assert Move.parse(str(move)) == move
            assert position.push(str(move)) == position.push(move)
            seen_chain = seen_chain or len(move.path) > 2
    assert seen_chain


def test_printed_chain_is_the_shortest_then_smallest():
    rng = random.Random(9)
    geo, ref = rhombus(5), naive.rhombus(5)
    for _ in range(300):
        cells = random_cells(rng, geo.cells, (4, 4))
        position = Position(5, 4, cells, 1)
        if position.status != "playing":
            continue
        for move in position.legal_moves():
            s, t = move.from_cell, move.to_cell
            lifted = list(cells)
            lifted[s] = 0
            paths = []

            def walk(path):
                if path[-1] == t:
                    paths.append(tuple(path))
                    return
                for off in naive.OFFSETS:
                    over, land = ref.step(path[-1], off), ref.step(path[-1], off, 2)
                    if over is not None and land is not None and lifted[over] and \
                            not lifted[land] and land not in path:
                        walk(path + [land])

            if t in [ref.step(s, off) for off in naive.OFFSETS]:
                assert move.path == (s, t)
                continue
            walk([s])
            assert move.path == min(paths, key=lambda q: (len(q), q))


@pytest.mark.parametrize("text", ["", "3", "3-", "a-b", "3--4", "3-4-3", " 3-4", "3-4 "])
def test_malformed_move_text_is_rejected_with_the_text(text):
    with pytest.raises(InvalidMoveError) as err:
        Move.parse(text)
    assert repr(text) in str(err.value)


def test_illegal_moves_are_rejected():
    p = Position.start(4, 3)
    for text in ["0-4", "5-8", "1-2", "2-4-9", "0-1", "0-3-8"]:
        with pytest.raises(InvalidMoveError, match=repr(text)):
            p.push(text)
    assert p.push("1-3").mover == 2


def test_star_moves_round_trip():
    rng = random.Random(4)
    position = StarPosition.start(3)
    for _ in range(30):
        moves = position.legal_moves()
        move = rng.choice(moves)
        assert Move.parse(str(move)) == move
        position = position.push(str(move))
        assert StarPosition.parse(position.text) == position
