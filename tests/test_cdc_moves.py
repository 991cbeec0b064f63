"""The kernels' CDC move generation: hand-checked rules and agreement with tests/naive_cdc.py."""
import random

import pytest

from tbdb.games.cdc import LETTERS, MAX_PER_SIDE, Position
from tests import naive_cdc as naive


def moves(text):
    return sorted(str(m) for m in Position.parse(text).legal_moves())


def test_cannon_jumps_one_screen_of_either_colour_at_any_distance():
    # red cannon a1; screens: own K on c1 -> captures g on h1; black p on a3 -> captures a4
    assert "a1xh1" in moves("p7/p7/8/C1K4g r")
    assert "a1xa4" in moves("p7/p7/8/C1K4g r")


def test_cannon_never_captures_adjacent_or_over_two_screens_or_own():
    assert "a1xb1" not in moves("8/8/8/Cp6 r")
    assert "a1xd1" not in moves("8/8/8/CKPp4 r")  # two screens
    assert "a1xc1" not in moves("8/8/8/CKP5 r")  # own piece beyond the screen
    assert moves("8/8/8/CKg5 r") == sorted(["a1xc1", "a1-a2", "b1-b2", "b1xc1"])


def test_soldier_and_general_exceptions():
    assert "a1xb1" in moves("8/8/8/Pk6 r")  # soldier takes general
    assert "a1xb1" not in moves("8/8/8/Kp6 r")  # general cannot take soldier
    assert "a1xb1" in moves("8/8/8/Pp6 r")  # soldier takes soldier
    assert "a1xb1" not in moves("8/8/8/Pc6 r")  # ... and nothing else
    assert "a1xb1" in moves("8/8/8/Gg6 r")  # equal rank
    assert "a1xb1" not in moves("8/8/8/Gk6 r")  # higher rank


def test_blocked_side_has_no_move():
    # red soldier in the corner, boxed in by a black general it cannot... it can take it;
    # a red horse boxed by a black advisor and the edge cannot move at all
    assert moves("8/8/g7/Ng6 r") == []


def _random_position(rng):
    pieces = []
    for colour in (0, 1):
        for _ in range(rng.randint(1, 3)):
            t = rng.randrange(7)
            code = colour * 7 + t
            if pieces.count(code) < MAX_PER_SIDE[t]:
                pieces.append(code)
    squares = rng.sample(range(32), len(pieces))
    board = [-1] * 32
    for s, c in zip(squares, pieces):
        board[s] = c
    return Position(tuple(board), rng.randrange(2))


def test_moves_agree_with_naive_on_random_positions():
    rng = random.Random(7)
    for _ in range(3000):
        p = _random_position(rng)
        board, side = naive.parse(p.text)
        assert naive.to_text(board, side) == p.text
        assert moves(p.text) == sorted(naive.legal_moves(board, side)), p.text


@pytest.mark.parametrize("text", ["", "8/8/8 r", "9/8/8/8 r", "44/8/8/8 r", "8/8/8/8 w",
                                  "8/8/8/7X r", "KKK5/8/8/8 r", "4g2K/8/8/8  r"])
def test_malformed_positions_are_rejected_quoting_the_text(text):
    from tbdb import InvalidPositionError
    with pytest.raises(InvalidPositionError) as info:
        Position.parse(text)
    assert repr(text) in str(info.value)


def test_position_text_round_trips():
    rng = random.Random(3)
    for _ in range(500):
        p = _random_position(rng)
        assert Position.parse(p.text) == p
    assert LETTERS == "KGMRNCP"
