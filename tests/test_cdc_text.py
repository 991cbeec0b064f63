"""The CDC text fast path (solvers/cdc/text.py) against the Python parser it stands in for: it
accepts exactly what the Python parser accepts, reads the same board, and leaves every error
(with its wording) to the Python parser; a parsed position locates to the slot a position
built square by square does."""
import random

import numpy as np
import pytest

from tbdb import games
from tbdb.errors import InvalidPositionError
from tbdb.games.cdc import MAX_PER_SIDE, Position
from tbdb.solvers.cdc import text as text_kernels

MUTATIONS = "KGMRNCPkgmrncp0123456789/ rbx\t"


def _python(text):
    try:
        p = Position._parse_slowly(text)
    except InvalidPositionError:
        return None
    return p.board, p.side


def _kernel(text):
    if not text.isascii():
        return None
    board = np.full(32, 99, np.int8)
    side, key = text_kernels.read_text(np.frombuffer(text.encode("ascii"), np.uint8),
                                       text_kernels.CODE, np.array(MAX_PER_SIDE, np.int64), board)
    if side < 0:
        return None
    assert key == sum(6 ** c for c in board.tolist() if c >= 0)
    return tuple(board.tolist()), side


def _random_position(rng: random.Random) -> Position:
    board = [-1] * 32
    pieces = rng.randint(1, 10)
    for sq in rng.sample(range(32), pieces):
        board[sq] = rng.randrange(14)
    return Position(tuple(board), rng.randrange(2))


def _texts(count: int, seed: int):
    """Texts of random boards (some with too many of a kind), and each one mutated: a
    character replaced, inserted or deleted."""
    rng = random.Random(seed)
    for _ in range(count):
        text = _random_position(rng).text
        yield text
        i = rng.randrange(len(text) + 1)
        ch = rng.choice(MUTATIONS)
        yield text[:i] + ch + text[i + 1:]
        yield text[:i] + ch + text[i:]
        yield text[:i] + text[i + 1:]


def test_kernel_accepts_exactly_what_python_accepts():
    accepted = rejected = 0
    for text in _texts(4000, seed=7):
        fast, slow = _kernel(text), _python(text)
        assert fast == slow, text
        accepted += fast is not None
        rejected += fast is None
    assert accepted > 3000 and rejected > 3000  # both kinds are exercised


@pytest.mark.parametrize("text", [
    "", " r", "8/8/8/8", "8/8/8/8 r ", "8/8/8/8  r", "8/8/8/8 w", "8/8/8/8/8 r", "8/8/8 r",
    "9/8/8/8 r", "0K7/8/8/8 r", "44/8/8/8 r", "K8/8/8/8 r", "KK7/7k/8/8 b", "PPPPPP2/8/8/8 r",
    "4g2K/8/8/8 r\n", "4g2K/8/8/8 r", "4g2K/8/8/8 b", "kK6/8/8/8 r", "ＫＫ6/8/8/8 r"])
def test_edge_cases_agree(text):
    slow = _python(text)
    assert _kernel(text) == slow
    if slow is None:
        with pytest.raises(InvalidPositionError) as fast_error:
            Position.parse(text)
        with pytest.raises(InvalidPositionError) as slow_error:
            Position._parse_slowly(text)
        assert str(fast_error.value) == str(slow_error.value)
    else:
        assert Position.parse(text) == Position._parse_slowly(text)


def test_parsed_positions_locate_like_built_ones():
    """locate reads the parsed array and material key; a Position built from its squares (no
    array kept) goes the other way: both give the same table, slot and symmetry."""
    game = games.get("cdc")
    rng = random.Random(3)
    checked = 0
    while checked < 2000:
        built = _random_position(rng)
        red = any(0 <= c < 7 for c in built.board)
        black = any(c >= 7 for c in built.board)
        if sum(c >= 0 for c in built.board) > 4 or not (red or black):
            continue
        try:
            parsed = Position.parse(built.text)
        except InvalidPositionError:  # too many of a kind
            continue
        assert "_array" in parsed.__dict__ and "_array" not in built.__dict__
        try:
            expected = game.locate(built)
        except InvalidPositionError as e:
            with pytest.raises(InvalidPositionError) as again:
                game.locate(parsed)
            assert str(again.value) == str(e)
            continue
        assert game.locate(parsed) == expected
        checked += 1
