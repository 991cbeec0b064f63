"""uttt move generation and perft against the naive reference and the published counts."""
from __future__ import annotations

import random

import pytest

from tbdb.games.uttt import Move, Position, perft
from tests import naive_uttt as naive
from tests.uttt_helpers import random_games, random_root, to_naive

PERFT_START = [1, 81, 720, 6336, 55080, 473256]


@pytest.mark.parametrize("depth", range(len(PERFT_START)))
def test_perft_from_the_start(depth):
    assert perft(Position.start(), depth) == PERFT_START[depth]


def test_naive_perft_matches_the_published_counts():
    assert [naive.perft(naive.START, d) for d in range(4)] == PERFT_START[:4]


def _midgame(seed: int) -> Position:
    return random_root(random.Random(seed), 30, 60)


@pytest.mark.parametrize("seed", range(4))
def test_perft_from_midgame_positions_matches_naive(seed):
    p = _midgame(seed)
    for depth in range(4):
        assert perft(p, depth) == naive.perft(to_naive(p), depth), (p.text, depth)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(4))
def test_perft_depth_5_from_midgame_positions_matches_naive(seed):
    p = _midgame(seed)
    assert perft(p, 5) == naive.perft(to_naive(p), 5), p.text


def test_random_games_match_naive_ply_by_ply():
    for p in random_games(seed=7, games=60):
        q = to_naive(p)
        assert [m.code for m in p.legal_moves()] == [9 * b + c for b, c in naive.legal_moves(q)]
        assert p.statuses == naive.meta(p.cells)
        assert p.is_game_over() == naive.game_over(q)
        for scoring in ("standard", "codingame"):
            want = naive.terminal_value(q, scoring) if naive.game_over(q) else None
            assert p.result(scoring) == want, (p.text, scoring)
        for m in p.legal_moves()[:5]:
            child = p.push(m)
            assert to_naive(child) == naive.play(q, (m.board, m.cell))


# A hand-checked position: board 0 is  o x o / x o x / x . x  (no line), x to move must play
# there (o's last move was cell 0 of board 6).  Cell 7 makes the bottom row and fills the
# board: a win for x, not a draw.
WIN_AND_FILL = "oxoxoxx.x" + "." * 45 + "oo......." + "." * 18 + " x 0"


def test_a_move_that_wins_and_fills_a_board_wins_it():
    p = Position.parse(WIN_AND_FILL)
    assert [str(m) for m in p.legal_moves()] == ["0:7"]
    child = p.push("0:7")
    assert child.statuses == "x........"
    assert child.constraint == 7 and child.side_name == "o"


def test_sent_to_a_closed_board_plays_anywhere_open():
    p = Position.parse(WIN_AND_FILL).push("0:7").push("7:0")  # o sends x to board 0: closed
    assert p.constraint is None
    moves = p.legal_moves()
    assert len(moves) == 81 - 9 - 3  # every empty cell of boards 1-8 (o has 3 marks there)
    assert all(m.board != 0 for m in moves)


def test_sent_to_an_open_board_plays_only_there():
    p = Position.start().push("4:2")
    assert {m.board for m in p.legal_moves()} == {2} and len(p.legal_moves()) == 9


def test_three_won_boards_in_a_row_end_the_game():
    # x has won boards 0 and 1 and wins board 2 with cell 2 of board 2 (row 0 of the meta-board)
    # (o's last move: cell 2 of board 3)
    cells = ("xxx" "oo." "...") + ("xxx" "o.o" "...") + ("xx." "oo." "...") + "..o.o...." \
        + "." * 45
    p = Position.parse(cells + " x 2")
    end = p.push("2:2")
    assert end.is_game_over() and end.legal_moves() == []
    assert end.result("standard") == -1 and end.result("codingame") == -1
    assert perft(end, 3) == 0


def test_no_open_board_left_scores_by_the_rule_set():
    # every board closed, no meta line: x won 4 boards, o 3, two drawn
    x, o, d = "XXXXXXXXX", "OOOOOOOOO", "DDDDDDDDD"
    p = Position.parse(x + o + x + o + d + x + x + o + d + " o -")
    assert p.is_game_over()
    assert p.result("standard") == 0
    assert p.result("codingame") == -1  # o to move, x has more won boards


def test_illegal_moves_are_refused():
    from tbdb.errors import InvalidMoveError
    p = Position.start().push("4:2")
    with pytest.raises(InvalidMoveError, match="'4:0'"):
        p.push("4:0")
    with pytest.raises(InvalidMoveError, match="'9:0'"):
        Move.parse("9:0")
