"""The SFEN fast path (solvers/shogi/text.py) against the Python parser it stands in for: same
positions, same written SFEN, errors left to the Python parser; the slot it finds against
``ShogiTable.locate``."""
import random

import pytest

from tbdb.errors import InvalidPositionError
from tbdb.games.shogi import MAX_OF_TYPE, Position
from tbdb.games.shogi.tables import ShogiTable, table_of

from .shogi_random import random_mating_net, random_position

MATE_IN_93 = "8K/9/9/9/9/9/G8/1k7/9 b - 1"
MUTATIONS = " /+0123456789PLNSGBRKplnsgbrkbwx-\t"


def _python(text):
    """(position, its SFEN) by the Python parser, or None if it raises."""
    try:
        p = Position._parse_python(text)
    except InvalidPositionError:
        return None
    return p, p.sfen


def _fast(text):
    p = Position._parse_fast(text)
    return None if p is None else (p, p.sfen)


def _any_board(rng: random.Random) -> Position:
    """A random position that need not be legal: 0-3 kings, pieces anywhere (dead ones, two
    pawns on a file, checks of the side not to move), hands of any size."""
    board = [0] * 81
    for _ in range(rng.randint(0, 3)):
        board[rng.randrange(81)] = 8 + 16 * rng.randrange(2)
    for _ in range(rng.randint(0, 6)):
        t = rng.choice((1, 1, 2, 3, 4, 5, 6, 7, 9, 10, 14))
        board[rng.randrange(81)] = t + 16 * rng.randrange(2)
    hands = [[0] * 8, [0] * 8]
    for _ in range(rng.randint(0, 3)):
        hands[rng.randrange(2)][rng.randint(1, 7)] += rng.choice((1, 1, 2, 5, 17))
    return Position(tuple(board), (tuple(hands[0]), tuple(hands[1])), rng.randrange(2))


def _mutate(rng: random.Random, text: str) -> str:
    i = rng.randrange(len(text))
    kind = rng.randrange(3)
    if kind == 0:
        return text[:i] + text[i + 1:]
    if kind == 1:
        return text[:i] + rng.choice(MUTATIONS) + text[i:]
    return text[:i] + rng.choice(MUTATIONS) + text[i + 1:]


def test_legal_positions_take_the_fast_path_and_read_as_in_python():
    rng = random.Random(11)
    positions = [random_position(rng, max_pieces=rng.choice((1, 2, 6))) for _ in range(1500)]
    positions += [random_mating_net(rng) for _ in range(300)]
    for p in positions:
        got = _fast(p.sfen)
        assert got is not None, p.sfen  # canonical text never needs the Python parser
        assert got == _python(p.sfen) and got[0] == p and got[1] == p.sfen


def test_other_forms_read_to_the_same_position_and_canonical_text():
    rng = random.Random(12)
    for _ in range(300):
        p = random_position(rng, max_pieces=4)
        board, side, hands, _ = p.sfen.split()
        split_digits = board.replace("9", "45").replace("8", "611").replace("3", "21")
        hand_letters = [c for c in hands if not c.isdigit()] if hands != "-" else []
        reversed_hands = "".join(reversed(hand_letters)) if all(
            hands.count(c) == 1 for c in hand_letters) and hands.isalpha() else hands
        for text in (f"{board} {side} {hands} 37", f"{board} {side} {hands}",
                     f"{split_digits} {side} {hands} 1", f"{board} {side} {reversed_hands} 1"):
            fast = _fast(text)
            assert fast is not None, text
            assert fast == _python(text) and fast[1] == p.sfen


def test_whatever_python_refuses_the_fast_path_leaves_to_it():
    rng = random.Random(13)
    seen = {"refused": 0, "read": 0}
    texts = [_any_board(rng).sfen for _ in range(3000)]
    for _ in range(3000):
        text = random_position(rng, max_pieces=rng.choice((1, 3))).sfen
        for _ in range(rng.randint(1, 2)):
            text = _mutate(rng, text)
        texts.append(text)
    texts += ["", " ", "startpos", "sfen " + MATE_IN_93, MATE_IN_93 + " ", MATE_IN_93[:-2] + "x",
              "8K/9/9/9/9/9/G8/1k7/9 b  1", "8K/9/9/9/9/9/G8/1k7/9 b 19P 1",
              "8K/9/9/9/9/9/G8/1k7/9 b 99P99P 1", "8K/9/9/9/9/9/G8/1k7/9 b 0P 1",
              "8K/9/9/9/9/9/G8/1k7/9 b 100P 1", "8K/9/9/9/9/9/+G8/1k7/9 b - 1",
              "8K/9/9/9/9/9/G8/1k7/9/ b - 1", "8K/9/9/9/9/9/G8/1k7 b - 1", "9/9/9/9 b - 1"]
    for text in texts:
        fast, python = _fast(text), _python(text)
        if python is None:
            assert fast is None, text
            seen["refused"] += 1
            with pytest.raises(InvalidPositionError):
                Position.parse(text)
        else:
            assert fast in (None, python), text  # None: a form only Python reads
            seen["read"] += 1
    assert seen["refused"] > 2000 and seen["read"] > 200  # both sides were exercised


def test_the_slot_found_while_parsing_is_the_tables():
    rng = random.Random(14)
    found = 0
    for _ in range(1500):
        p = random_position(rng, max_pieces=rng.choice((1, 2, 3)))
        name = table_of(p)
        q = Position.parse(p.sfen)
        if name == "KK" or len(name) > 5:
            assert q.table_slot[0] == -1
            continue
        slot, sym = ShogiTable(name).locate(p)
        assert q.table_slot == (slot, int(sym.mirror)), p.sfen
        found += 1
    assert found > 1000


def test_material_key_counts_pieces_anywhere():
    rng = random.Random(15)
    for _ in range(300):
        p = random_position(rng, max_pieces=6)
        q = Position(p.board, p.hands, p.side)  # not parsed: the key is computed
        assert q.material_key == Position.parse(p.sfen).material_key
        assert q.table_slot is None
    assert sum(MAX_OF_TYPE[t] * 19 ** (t - 1) for t in range(1, 8)) < 2 ** 62


def test_python_shogi_boards_read_as_their_own_sfen():
    shogi = pytest.importorskip("shogi")
    from tbdb.games.shogi.position import _python_shogi_sfen
    rng = random.Random(16)
    texts = [random_position(rng, max_pieces=rng.choice((1, 3, 8))).sfen for _ in range(150)]
    texts.append("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1")
    for text in texts:
        board = shogi.Board(text)
        for move in list(board.legal_moves)[:3]:  # and boards that were played on
            board.push(move)
            assert Position.from_board(board) == Position.parse(board.sfen())
            board.pop()
        assert _python_shogi_sfen(board) + " 1" == board.sfen() or \
            Position.parse(_python_shogi_sfen(board)) == Position.parse(board.sfen())
        assert Position.from_board(board).sfen == text
