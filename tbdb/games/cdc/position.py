"""Chinese Dark Chess (revealed endgames): positions and moves and their text forms.

Position text: ranks 4 (top) to 1 separated by ``/``, files a-h in each rank, piece letters
(upper case red, lower case black), digits for runs of empty squares, a space and the side to
move (``r``/``b``): ``4g2K/8/8/8 r``.  Moves: ``a1-a2``, captures ``b1xd1``.
Materials (``KGvR``) and piece letters: ``tbdb.games.cdc.material``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from tbdb.errors import InvalidMoveError, InvalidPositionError, quote
from tbdb.games.cdc.material import LETTERS, MAX_PER_SIDE, Material, piece_letter
from tbdb.solvers.cdc import moves as move_kernels
from tbdb.solvers.cdc import text as text_kernels

Square = int  # 0..31, a1 = 0, h1 = 7, a4 = 24
_LIMIT = np.array(MAX_PER_SIDE, np.int64)
SIDE_NAMES = ("red", "black")


def square_name(sq: Square) -> str:
    return "abcdefgh"[sq % 8] + str(sq // 8 + 1)


def parse_square(text: str) -> Square:
    if len(text) != 2 or text[0] not in "abcdefgh" or text[1] not in "1234":
        raise ValueError(text)
    return (int(text[1]) - 1) * 8 + "abcdefgh".index(text[0])


# ------------------------------------------------------------------------------- moves

@dataclass(frozen=True)
class Move:
    """A move: from and to squares, and whether it captures."""
    from_sq: Square
    to_sq: Square
    capture: bool = False

    @classmethod
    def from_code(cls, code: int) -> Move:
        return cls((code % move_kernels.CAPTURE_FLAG) // 32, code % 32,
                   code >= move_kernels.CAPTURE_FLAG)

    @property
    def code(self) -> int:
        return (move_kernels.CAPTURE_FLAG if self.capture else 0) + self.from_sq * 32 + self.to_sq

    @classmethod
    def parse(cls, text: str) -> Move:
        m = re.fullmatch(r"([a-h][1-4])([-x])([a-h][1-4])", text)
        if not m:
            raise InvalidMoveError(f"malformed CDC move {quote(text)}: expected like 'a1-a2' or "
                                   f"'b1xd1'")
        return cls(parse_square(m.group(1)), parse_square(m.group(3)), m.group(2) == "x")

    def __str__(self) -> str:
        return square_name(self.from_sq) + ("x" if self.capture else "-") + square_name(self.to_sq)


# ------------------------------------------------------------------------------- positions

@lru_cache(maxsize=65536)
def _parse_rank(rank: str) -> tuple[int, ...] | str:
    """The 8 piece codes of one rank's text (a-h), or what is wrong with it."""
    cells: list[int] = []
    prev_digit = False
    for ch in rank:
        if ch in "12345678":
            if prev_digit:
                return f"two digits in a row in {quote(rank)}"
            cells.extend([-1] * int(ch))
            prev_digit = True
        elif ch.upper() in LETTERS:
            cells.append(LETTERS.index(ch.upper()) + (7 if ch.islower() else 0))
            prev_digit = False
        else:
            return f"unknown piece {quote(ch)}"
        if len(cells) > 8:
            break
    if len(cells) != 8:
        return f"rank {quote(rank)} covers {len(cells)} files, not 8"
    return tuple(cells)


@dataclass(frozen=True)
class Position:
    """A board (32 piece codes, -1 empty; a1 first) and the side to move (0 red, 1 black)."""
    board: tuple[int, ...]
    side: int

    @classmethod
    def parse(cls, text: str) -> Position:
        if isinstance(text, str) and text.isascii():  # the one-call fast path (solvers/cdc/text.py)
            board = np.empty(32, np.int8)
            side, key = text_kernels.read_text(np.frombuffer(text.encode("ascii"), np.uint8),
                                               text_kernels.CODE, _LIMIT, board)
            if side >= 0:
                position = cls(tuple(board.tolist()), side)
                known = position.__dict__  # what parses is the canonical text: keep it, and
                known["_text"] = text      # the board array and material key locate reads
                known["_array"] = board
                known["_key"] = key
                return position
        return cls._parse_slowly(text)

    @classmethod
    def _parse_slowly(cls, text: str) -> Position:
        """The parser in Python: it reads what the kernel reads and words every error."""
        if not isinstance(text, str):
            raise InvalidPositionError(f"a CDC position is text, not {quote(text)}")
        parts = text.split(" ")
        if len(parts) != 2 or parts[1] not in ("r", "b"):
            raise InvalidPositionError(
                f"malformed CDC position {quote(text)}: expected 4 ranks separated by '/', a space "
                f"and 'r' or 'b' (e.g. '4g2K/8/8/8 r')")
        ranks = parts[0].split("/")
        if len(ranks) != 4:
            raise InvalidPositionError(f"malformed CDC position {quote(text)}: {len(ranks)} ranks, "
                                       f"expected 4")
        board: list[int] = []
        for rank in reversed(ranks):  # rank 1 first: a1 is square 0
            cells = _parse_rank(rank)
            if isinstance(cells, str):
                raise InvalidPositionError(f"malformed CDC position {quote(text)}: {cells}")
            board.extend(cells)
        position = cls(tuple(board), 0 if parts[1] == "r" else 1)
        # what parses is already the canonical text (runs are single digits): keep it
        object.__setattr__(position, "_text", text)
        counts: dict[int, int] = {}
        for code in board:
            if code >= 0:
                counts[code] = counts.get(code, 0) + 1
        for code, n in counts.items():
            if n > MAX_PER_SIDE[code % 7]:
                raise InvalidPositionError(
                    f"CDC position {quote(text)} has {n} {piece_letter(code)}; a side has at most "
                    f"{MAX_PER_SIDE[code % 7]}")
        return position

    @property
    def text(self) -> str:
        known = self.__dict__.get("_text")
        if known is not None:
            return known
        ranks = []
        for row in range(3, -1, -1):
            out, empty = "", 0
            for col in range(8):
                code = self.board[row * 8 + col]
                if code < 0:
                    empty += 1
                    continue
                if empty:
                    out += str(empty)
                    empty = 0
                out += piece_letter(code)
            ranks.append(out + (str(empty) if empty else ""))
        return "/".join(ranks) + " " + "rb"[self.side]

    def __str__(self) -> str:
        return self.text

    @property
    def material(self) -> Material:
        red = tuple(sorted(c for c in self.board if 0 <= c < 7))
        black = tuple(sorted(c - 7 for c in self.board if c >= 7))
        return Material(red, black)

    @property
    def side_name(self) -> str:
        return SIDE_NAMES[self.side]

    def board_array(self) -> np.ndarray:
        return np.array(self.board, np.int8)

    def legal_moves(self) -> list[Move]:
        out = np.empty(64, np.int16)
        n = move_kernels.moves_of_board(self.board_array(), self.side, out)
        return [Move.from_code(int(c)) for c in out[:n]]

    def push(self, move: Move | str) -> Position:
        """The position after a legal move (the other side to move)."""
        if isinstance(move, str):
            move = Move.parse(move)
        if move not in self.legal_moves():
            raise InvalidMoveError(f"move {quote(str(move))} is not legal in {self.text!r}")
        board = list(self.board)
        board[move.to_sq] = board[move.from_sq]
        board[move.from_sq] = -1
        return Position(tuple(board), 1 - self.side)
