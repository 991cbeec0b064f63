"""Shogi move generation: perft from the start position, legal moves against cshogi on random
few-piece positions, SFEN/USI round trips and errors."""
import random

import cshogi
import pytest

from tests.shogi_random import random_mating_net, random_position
from tbdb.errors import InvalidMoveError, InvalidPositionError
from tbdb.games.shogi import START_SFEN, Move, Position, perft


@pytest.mark.parametrize("depth, nodes", [(1, 30), (2, 900), (3, 25_470)])
def test_perft_from_the_start(depth, nodes):
    assert perft("start", depth) == nodes


@pytest.mark.slow
def test_perft_depth_4():
    assert perft("start", 4) == 719_731


def test_perft_from_any_sfen_matches_cshogi():
    # after the bishops are exchanged: both sides have a bishop in hand (drops, promotions)
    board = cshogi.Board()
    for move in ("7g7f", "3c3d", "8h2b+", "3a2b"):
        board.push_usi(move)
    sfen = board.sfen()

    def count(depth):
        if depth == 0:
            return 1
        total = 0
        for move in list(board.legal_moves):
            board.push(move)
            total += count(depth - 1)
            board.pop()
        return total

    assert perft(sfen, 2) == count(2)


def _compare_with_cshogi(n, seed):
    rng = random.Random(seed)
    stats = {"check": 0, "no move": 0, "pawn drop mate refused": 0}
    for i in range(n):
        position = random_mating_net(rng) if i % 4 == 0 else random_position(rng)
        mine = sorted(str(m) for m in position.legal_moves())
        board = cshogi.Board(position.sfen)
        theirs = sorted(cshogi.move_to_usi(m) for m in board.legal_moves)
        assert mine == theirs, position.sfen
        stats["check"] += board.is_check()
        stats["no move"] += not mine
        stats["pawn drop mate refused"] += _pawn_drop_mate_refused(position, mine)
    return stats


def _pawn_drop_mate_refused(position, legal):
    """Whether the position has a pawn drop in front of the enemy king that is refused only
    because it would mate (square empty, no own pawn on the file, mover not in check)."""
    side = position.side
    if not position.hands[side][1] or position.is_check():
        return False
    king = position.board.index(8 + 16 * (1 - side))
    f, r = divmod(king, 9)
    r += 1 if side == 0 else -1
    if not 0 <= r < 9 or position.board[f * 9 + r]:
        return False
    if any(position.board[f * 9 + x] == 1 + 16 * side for x in range(9)):
        return False
    return f"P*{f + 1}{'abcdefghi'[r]}" not in legal


def test_legal_moves_agree_with_cshogi():
    stats = _compare_with_cshogi(2_000, seed=1)
    # the sample really exercises checks, positions without moves and pawn-drop mates
    assert stats["check"] > 50 and stats["pawn drop mate refused"] > 30, stats


@pytest.mark.slow
def test_legal_moves_agree_with_cshogi_on_20000_positions():
    stats = _compare_with_cshogi(20_000, seed=2)
    assert stats["no move"] > 0 and stats["pawn drop mate refused"] > 300, stats


@pytest.mark.parametrize("sfen, moves", [
    # a pawn drop that mates is refused (uchifuzume); the gold and king cover 2a, 2b
    ("8k/6G2/8K/9/9/9/9/9/9 b P 1", {"P*1b": False, "P*1d": True}),
    # two pawns on a file (nifu): no drop on file 5, drops elsewhere
    ("4k4/9/9/9/9/9/4P4/9/4K4 b P 1", {"P*5e": False, "P*4e": True}),
    # dead squares: no pawn or lance drop on rank a, no knight drop on ranks a-b
    ("4k4/9/9/9/9/9/9/9/4K4 b NL 1", {"L*1a": False, "L*1b": True, "N*1b": False,
                                     "N*1c": True}),
    # a pawn reaching rank a must promote; a silver may choose
    ("4k4/P8/S8/9/9/9/9/9/4K4 b - 1", {"9b9a+": True, "9b9a": False, "9c8b": True,
                                       "9c8b+": True}),
    # a pinned gold may not leave the rook's line
    ("4k4/9/9/9/4r4/9/4G4/9/4K4 b - 1", {"5g5f": True, "5g4g": False}),
])
def test_hand_checked_rules(sfen, moves):
    legal = {str(m) for m in Position.parse(sfen).legal_moves()}
    for move, allowed in moves.items():
        assert (move in legal) == allowed, move


def test_no_legal_move_and_not_in_check():
    position = Position.parse("8k/6G2/8K/9/9/9/9/9/9 w - 1")
    assert position.legal_moves() == [] and not position.is_check()


@pytest.mark.parametrize("sfen", [
    START_SFEN,
    "8k/9/9/9/9/9/9/9/K8 b G 1",
    "4k4/9/9/9/9/9/9/9/4K4 w RB2G2S2N2L9Prb2g2s2n2l9p 1",
    "+R8/9/9/9/4k4/9/9/9/4K3+b b - 1",
])
def test_sfen_round_trips(sfen):
    assert Position.parse(sfen).sfen == sfen


def test_move_number_is_accepted_and_written_as_1():
    assert Position.parse("8k/9/9/9/9/9/9/9/K8 b G 57").sfen == "8k/9/9/9/9/9/9/9/K8 b G 1"
    assert Position.parse("8k/9/9/9/9/9/9/9/K8 b G").sfen == "8k/9/9/9/9/9/9/9/K8 b G 1"


@pytest.mark.parametrize("text, message", [
    ("8k/9/9/9/9/9/9/9/K8 x - 1", "malformed"),
    ("8k/9/9/9/9/9/9/9 b - 1", "8 ranks"),
    ("8k/9/9/9/9/9/9/9/K9 b - 1", "9 files"),
    ("9/9/9/9/9/9/9/9/K8 b - 1", "0 kings"),
    ("P7k/9/9/9/9/9/9/9/K8 b - 1", "never move"),
    ("8k/9/9/P8/9/P8/9/9/K8 b - 1", "nifu"),
    ("7k1/7R1/9/9/9/9/9/9/K8 b - 1", "not to move is in check"),
    ("8k/9/9/9/9/9/9/9/K8 b 3R 1", "type R"),
])
def test_bad_sfen_is_rejected_with_the_text(text, message):
    with pytest.raises(InvalidPositionError, match=message) as err:
        Position.parse(text)
    assert repr(text) in str(err.value)


@pytest.mark.parametrize("text", ["7g7f", "8h2b+", "G*5b", "P*1a"])
def test_usi_round_trips(text):
    move = Move.parse(text)
    assert str(move) == text and Move.from_code(move.code) == move


@pytest.mark.parametrize("text", ["7g7", "K*5e", "0a1a", "7g7g", "g*5b"])
def test_bad_usi_is_rejected(text):
    with pytest.raises(InvalidMoveError, match=repr(text).replace("*", r"\*").replace("+", r"\+")):
        Move.parse(text)


def test_push_plays_legal_moves_and_refuses_others():
    position = Position.parse(START_SFEN)
    after = position.push("7g7f")
    assert after.sfen == "lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 1"
    with pytest.raises(InvalidMoveError, match="'7g7e'"):
        position.push("7g7e")
    # a capture puts the piece, unpromoted, into the captor's hand
    position = Position.parse("4k4/9/9/9/4+b4/4R4/9/9/K8 b - 1")
    assert position.push("5f5e").sfen == "4k4/9/9/9/4R4/9/9/9/K8 w B 1"


def test_boards_from_other_libraries():
    import shogi
    sfen = "8k/9/9/9/9/9/9/9/K8 b G 1"
    assert Position.from_board(cshogi.Board(sfen)) == Position.parse(sfen)
    assert Position.from_board(shogi.Board(sfen)) == Position.parse(sfen)
    with pytest.raises(InvalidPositionError):
        Position.from_board(42)
