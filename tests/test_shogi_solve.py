"""Solved shogi tables: hand-checked positions, mating lines that follow the stored best moves,
the engine's own verification, and (slow) every KGK position against the naive solver."""
import random

import numpy as np
import pytest

from tbdb.games.shogi import Position
from tbdb.games.shogi.tables import ShogiTable
from tbdb.retrograde.driver import check_index, solve_index


@pytest.fixture(scope="module")
def kgk():
    table = ShogiTable("KGK")
    return table, solve_index(table, "edges")


def value(solved, sfen):
    """(result, distance, best move in USI of the position asked about)."""
    table, values = solved
    slot, sym = table.locate(Position.parse(sfen))
    best = int(values.best[slot])
    return (int(values.result[slot]), int(values.distance[slot]),
            str(sym.move(best)) if best >= 0 else None)


@pytest.mark.parametrize("sfen, expected", [
    # a gold dropped in front of the king, guarded by the other king: mate in 1
    ("4k4/9/4K4/9/9/9/9/9/9 b G 1", (1, 1, "G*5b")),
    # the same for white, whose king is at the bottom (the colour swap)
    ("9/9/9/9/9/9/4k4/9/4K4 w g 1", (1, 1, "G*5h")),
    # the gold steps in instead
    ("4k4/9/4KG3/9/9/9/9/9/9 b - 1", (1, 1, "4c5b")),
    # mated: no legal move, lost at distance 0
    ("4k4/4G4/4K4/9/9/9/9/9/9 w - 1", (-1, 0, None)),
    # not in check, yet no legal move: the side to move loses all the same
    ("8k/6G2/8K/9/9/9/9/9/9 w - 1", (-1, 0, None)),
    # the bare king takes the unguarded gold (5f5g), black's king must step aside (4i or 6i),
    # and the gold dropped beside it mates: a win in 3 plies for the side without a piece
    ("9/9/9/9/9/4k4/4G4/9/4K4 w - 1", (1, 3, "5f5g")),
])
def test_hand_checked_positions(kgk, sfen, expected):
    assert value(kgk, sfen) == expected


def test_the_bare_king_line_is_capture_then_drop(kgk):
    position = Position.parse("9/9/9/9/9/4k4/4G4/9/4K4 w - 1")
    position = position.push("5f5g")
    assert position.hands[1][7] == 1  # white holds the gold
    for reply in position.legal_moves():
        after = position.push(reply)
        result, distance, best = value(kgk, after.sfen)
        assert (result, distance) == (1, 1) and best.startswith("G*")
        assert after.push(best).legal_moves() == []


def test_best_moves_lead_to_mate_in_the_stated_plies(kgk):
    table, values = kgk
    rng = random.Random(3)
    won = np.flatnonzero(values.result == 1)
    for slot in rng.sample(won.tolist(), 40):
        position = table.position(slot)
        result, distance, _ = value(kgk, position.sfen)
        for ply in range(distance):
            r, d, best = value(kgk, position.sfen)
            assert (r, d) == ((1, distance - ply) if ply % 2 == 0 else (-1, distance - ply))
            position = position.push(best)
        assert position.legal_moves() == []


def test_every_stored_value_follows_from_its_children(kgk):
    table, values = kgk
    bad = check_index(table, values)
    assert not bad.any()


def test_the_issue_example(kgk):
    # black's king and gold against white's king near them: recorded so a change shows
    result, distance, best = value(kgk, "8K/9/9/9/9/9/G8/1k7/9 b - 1")
    assert result in (-1, 0, 1)
    if result != 0:
        assert best is not None


@pytest.mark.slow
def test_every_kgk_position_against_the_naive_solver(kgk):
    from tests import naive_shogi
    table, values = kgk
    reference = naive_shogi.solve("G")
    real = np.flatnonzero((values.result >= -1) & (values.result <= 1))
    # the slots stand for exactly the legal positions the naive solver enumerates
    assert int(values.multiplicity[real].sum()) == len(reference)
    for slot in real:
        sfen = table.position(int(slot)).sfen
        expected = reference[naive_shogi.key(sfen)]
        assert (int(values.result[slot]), int(values.distance[slot])) == expected, sfen
    # and every raw position has the value of its slot (symmetry images agree)
    for key, expected in random.Random(1).sample(sorted(reference.items()), 20_000):
        assert value(kgk, key)[:2] == expected, key
