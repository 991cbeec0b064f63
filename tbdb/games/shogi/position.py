"""Shogi positions and moves: SFEN and USI text forms, legal moves, perft.

SFEN: ranks a (top, white's side) to i separated by ``/``, files 9 to 1 within a rank, upper
case black (sente), lower case white (gote), ``+`` before a promoted piece, digits for empty
squares; then the side to move (``b``/``w``), the pieces in hand (``-`` for none; black's upper
case then white's lower case, each in the order R B G S N L P, a count before a letter held more
than once: ``RG2Pp``), and optionally a move number (accepted, always written ``1``):
``8k/9/9/9/9/9/9/9/K8 b G 1``.

USI moves: ``7g7f``, ``8h2b+`` (promotes), ``G*5b`` (a drop).
"""
from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from tbdb.errors import InvalidMoveError, InvalidPositionError, quote
from tbdb.solvers.shogi import moves as kernels
from tbdb.solvers.shogi import text as text_kernels

Square = int  # (file - 1) * 9 + rank, rank 0..8 for a..i: 7g = 60
PieceCode = int  # colour * 16 + type (see solvers/shogi/moves.py), 0 empty
BLACK, WHITE = 0, 1
LETTERS = " PLNSBRGK"  # type -> letter (1..8); promoted types are 9..14
HAND_ORDER = (6, 5, 7, 4, 3, 2, 1)  # SFEN writes hands R B G S N L P
MAX_OF_TYPE = {1: 18, 2: 4, 3: 4, 4: 4, 5: 2, 6: 2, 7: 4}
_set = object.__setattr__
_scratch = threading.local()  # the SFEN kernel's output buffer
START_SFEN = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"


def square_name(sq: Square) -> str:
    return f"{sq // 9 + 1}{'abcdefghi'[sq % 9]}"


def parse_square(text: str) -> Square:
    if len(text) != 2 or text[0] not in "123456789" or text[1] not in "abcdefghi":
        raise ValueError(text)
    return (int(text[0]) - 1) * 9 + "abcdefghi".index(text[1])


def piece_text(code: PieceCode) -> str:
    t = code & 15
    letter = ("+" + LETTERS[t - kernels.PROMOTED]) if t > kernels.KING else LETTERS[t]
    return letter if code < 16 else letter.lower()


# ------------------------------------------------------------------------------- moves

@dataclass(frozen=True)
class Move:
    """A board move (from, to, promote) or a drop (``drop`` = piece type 1..7, to)."""
    to_sq: Square
    from_sq: Square | None = None
    promote: bool = False
    drop: int = 0

    @classmethod
    def from_code(cls, code: int) -> Move:
        to, frm = code & 127, (code >> 7) & 127
        if frm > kernels.DROP_BASE:
            return cls(to, None, False, frm - kernels.DROP_BASE)
        return cls(to, frm, bool(code & kernels.PROMOTE_FLAG))

    @property
    def code(self) -> int:
        frm = kernels.DROP_BASE + self.drop if self.drop else self.from_sq
        return self.to_sq | frm << 7 | (kernels.PROMOTE_FLAG if self.promote else 0)

    @classmethod
    def parse(cls, text: str) -> Move:
        if not isinstance(text, str):
            raise InvalidMoveError(f"a USI move is text, not {quote(text)}")
        m = re.fullmatch(r"([1-9][a-i])([1-9][a-i])(\+?)|([PLNSGBR])\*([1-9][a-i])", text)
        if not m:
            raise InvalidMoveError(f"malformed USI move {quote(text)}: expected like '7g7f', "
                                   f"'8h2b+' or 'G*5b'")
        if m.group(4):
            return cls(parse_square(m.group(5)), None, False, LETTERS.index(m.group(4)))
        frm, to = parse_square(m.group(1)), parse_square(m.group(2))
        if frm == to:
            raise InvalidMoveError(f"USI move {quote(text)} does not move")
        return cls(to, frm, bool(m.group(3)))

    @property
    def usi(self) -> str:
        if self.drop:
            return f"{LETTERS[self.drop]}*{square_name(self.to_sq)}"
        return square_name(self.from_sq) + square_name(self.to_sq) + ("+" if self.promote else "")

    def __str__(self) -> str:
        return self.usi


# ------------------------------------------------------------------------------- positions

def _parse_board(text: str, rows: str) -> list[int]:
    ranks = rows.split("/")
    if len(ranks) != 9:
        raise InvalidPositionError(f"SFEN {quote(text)} has {len(ranks)} ranks, expected 9")
    board = [0] * 81
    for r, row in enumerate(ranks):
        f = 9  # files run 9..1 left to right
        promoted = False
        for ch in row:
            if ch in "0123456789":
                if promoted or ch == "0":
                    raise InvalidPositionError(f"bad rank {quote(row)} in SFEN {quote(text)}")
                f -= int(ch)
                continue
            if ch == "+":
                if promoted:
                    raise InvalidPositionError(f"bad rank {quote(row)} in SFEN {quote(text)}")
                promoted = True
                continue
            t = LETTERS.find(ch.upper())
            if t < 1 or f < 1 or (promoted and t > kernels.ROOK):
                raise InvalidPositionError(f"bad rank {quote(row)} in SFEN {quote(text)}")
            code = (t + (kernels.PROMOTED if promoted else 0)) + (16 if ch.islower() else 0)
            board[(f - 1) * 9 + r] = code
            f -= 1
            promoted = False
        if f != 0 or promoted:
            raise InvalidPositionError(f"rank {quote(row)} of SFEN {quote(text)} does not have 9 "
                                       f"files")
    return board


def _parse_hands(text: str, hand: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    counts = [[0] * 8, [0] * 8]
    if hand != "-":
        for num, ch in re.findall(r"([0-9]*)(.)", hand, flags=re.DOTALL):
            t = LETTERS.find(ch.upper())
            if t < 1 or t == kernels.KING or num.startswith("0"):
                raise InvalidPositionError(f"bad hand {quote(hand)} in SFEN {quote(text)}")
            counts[1 if ch.islower() else 0][t] += int(num) if num else 1
    return tuple(counts[0]), tuple(counts[1])


def hand_text(hands) -> str:
    out = []
    for colour in (BLACK, WHITE):
        for t in HAND_ORDER:
            n = hands[colour][t]
            if n:
                letter = LETTERS[t] if colour == BLACK else LETTERS[t].lower()
                out.append((str(n) if n > 1 else "") + letter)
    return "".join(out) or "-"


# python-shogi's piece types 0..14 (none, P L N S G B R K, +P +L +N +S +B +R) as one letter
# per square, promoted ones as Q V W X Y Z until they are written with their '+'
_PS_LETTERS = bytes.maketrans(bytes(range(15)), b".PLNSGBRKQVWXYZ")
_PS_PROMOTED = str.maketrans({c: "+" + p for c, p in zip("QVWXYZqvwxyz", "PLNSBRplnsbr")})
_PS_HAND = " PLNSGBR"
_RUNS = tuple(("." * n, str(n)) for n in range(9, 0, -1))


def _python_shogi_sfen(board) -> str:
    """The SFEN of a python-shogi ``shogi.Board``, read from its square list (in SFEN order),
    its white-pieces bitboard and its hands: several times faster than its ``sfen()``."""
    cells = bytearray(bytes(board.pieces).translate(_PS_LETTERS))
    white = board.occupied[1]
    while white:
        low = white & -white
        cells[low.bit_length() - 1] |= 0x20  # lower case
        white ^= low
    text = cells.decode()
    rows = "/".join([text[i:i + 9] for i in range(0, 81, 9)]).translate(_PS_PROMOTED)
    for run, digits in _RUNS:
        rows = rows.replace(run, digits)
    hands = []
    for colour, held in enumerate(board.pieces_in_hand):
        for t, n in held.items():
            if n > 0:
                letter = _PS_HAND[t] if colour == BLACK else _PS_HAND[t].lower()
                hands.append(f"{n}{letter}" if n > 1 else letter)
    return f"{rows} {'bw'[board.turn]} {''.join(hands) or '-'}"


@dataclass(frozen=True)
class Position:
    """A shogi position: ``board`` (81 piece codes, square order), ``hands`` (per colour, 8
    counts indexed by type, index 0 unused) and ``side`` (0 black, 1 white to move)."""
    board: tuple[int, ...]
    hands: tuple[tuple[int, ...], tuple[int, ...]]
    side: int

    @classmethod
    def parse(cls, text: str) -> Position:
        """A position from SFEN; ``InvalidPositionError`` quoting the text if it is malformed
        or illegal (not one king each, a dead piece, two pawns on a file, too many pieces, or
        the side not to move in check)."""
        if not isinstance(text, str):
            raise InvalidPositionError(f"an SFEN position is text, not {quote(text)}")
        if text.isascii():
            position = cls._parse_fast(text)
            if position is not None:
                return position
        return cls._parse_python(text)

    @classmethod
    def _parse_python(cls, text: str) -> Position:
        """``parse`` in Python: reads every form and writes every error message."""
        # messages quote ``text`` as given, prefix included
        body = text[5:] if text.startswith("sfen ") else text
        parts = START_SFEN.split() if body == "startpos" else body.split()
        if len(parts) not in (3, 4) or parts[1] not in ("b", "w") or \
                (len(parts) == 4 and not (parts[3].isascii() and parts[3].isdigit())):
            raise InvalidPositionError(f"malformed SFEN {quote(text)}: expected board, side (b/w), "
                                       f"hands and an optional move number")
        board = _parse_board(text, parts[0])
        hands = _parse_hands(text, parts[2])
        position = cls(tuple(board), hands, 0 if parts[1] == "b" else 1)
        position._validate(text)
        return position

    @classmethod
    def _parse_fast(cls, text: str) -> Position | None:
        """``parse`` in one kernel call (solvers/shogi/text.py); None where the kernel leaves
        the text to the Python parser (an error, or a form it does not read).  The position
        keeps the slot the kernel found in its table, for ``ShogiGame.locate``."""
        out = getattr(_scratch, "out", None)  # one buffer per thread, read before returning
        if out is None:
            out = _scratch.out = np.empty(text_kernels.OUT_LEN, np.uint8)
        side, key, n, same, slot, mirrored = text_kernels.parse_sfen(text.encode(), out)
        if side < 0:
            return None
        raw = out.tobytes()  # piece codes and counts are small: bytes read as the ints
        position = cls(tuple(raw[:81]), (tuple(raw[81:89]), tuple(raw[89:97])), side)
        # the cached properties, from what the kernel found (object.__setattr__: the class is
        # frozen, and reading __dict__ would build a dict the instance otherwise does without)
        at = text_kernels.TEXT_AT
        _set(position, "sfen", text if same else raw[at:at + n].decode())
        _set(position, "material_key", key)
        _set(position, "table_slot", (slot, mirrored))
        return position

    @classmethod
    def from_board(cls, board: Any) -> Position:
        """A position from SFEN text, a Position, or anything with ``.sfen()`` (python-shogi's
        ``shogi.Board``, ``cshogi.Board``)."""
        if isinstance(board, Position):
            return board
        if isinstance(board, str):
            return cls.parse(board)
        if type(board).__module__ == "shogi":  # python-shogi: its own sfen() is slow
            try:
                return cls.parse(_python_shogi_sfen(board))
            except (AttributeError, IndexError, KeyError, TypeError):
                pass  # not the Board this reads: ask it
        sfen = getattr(board, "sfen", None)
        if callable(sfen):
            return cls.parse(sfen())
        raise InvalidPositionError(f"expected SFEN text or a board with .sfen(), not "
                                   f"{quote(board)}")

    def _validate(self, text: str) -> None:
        board = self.board
        for colour in (BLACK, WHITE):
            kings = board.count(kernels.KING + 16 * colour)
            if kings != 1:
                raise InvalidPositionError(f"SFEN {quote(text)}: "
                                           f"{'black' if colour == BLACK else 'white'}"
                                           f" has {kings} kings, expected 1")
        total = [0] * 9
        pawn_files = set()
        for sq, code in enumerate(board):
            if code:
                t = code & 15
                base = t - kernels.PROMOTED if t > kernels.KING else t
                total[base] += 1
                if t <= kernels.KNIGHT and kernels.dead(code >> 4, t, sq):
                    raise InvalidPositionError(f"SFEN {quote(text)}: the {piece_text(code)} on "
                                               f"{square_name(sq)} can never move")
                if t == kernels.PAWN:
                    key = (code >> 4, sq // 9)
                    if key in pawn_files:
                        raise InvalidPositionError(f"SFEN {quote(text)}: two unpromoted pawns of "
                                                   f"one "
                                                   f"side on file {sq // 9 + 1} (nifu)")
                    pawn_files.add(key)
        for colour in (BLACK, WHITE):
            for t in range(1, 8):
                total[t] += self.hands[colour][t]
        for t, most in MAX_OF_TYPE.items():
            if total[t] > most:
                raise InvalidPositionError(f"SFEN {quote(text)} has {total[t]} pieces of type "
                                           f"{LETTERS[t]}; shogi has {most}")
        if kernels.attacked(np.frombuffer(bytes(board), np.int8),
                             board.index(kernels.KING + 16 * (1 - self.side)), self.side):
            raise InvalidPositionError(f"SFEN {quote(text)}: the side not to move is in check")

    @cached_property  # lookups quote it in messages: write it once per position
    def sfen(self) -> str:
        rows = []
        for r in range(9):
            row, empty = [], 0
            for f in range(8, -1, -1):
                code = self.board[f * 9 + r]
                if code == 0:
                    empty += 1
                    continue
                if empty:
                    row.append(str(empty))
                    empty = 0
                row.append(piece_text(code))
            if empty:
                row.append(str(empty))
            rows.append("".join(row))
        return f"{'/'.join(rows)} {'bw'[self.side]} {hand_text(self.hands)} 1"

    @cached_property
    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """(board int8[81], hands int8[2, 8]) for kernels that only read them (copies for
        kernels that write: ``board_array``, ``hands_array``)."""
        return (np.frombuffer(bytes(self.board), np.int8),
                np.frombuffer(bytes(self.hands[0] + self.hands[1]), np.int8).reshape(2, 8))

    @cached_property
    def table_slot(self) -> tuple[int, int] | None:
        """(slot, mirrored) of the position in the table of its pieces, if ``parse`` found it
        (see solvers/shogi/text.py); None here: ``ShogiGame.locate`` computes it."""
        return None

    @cached_property
    def material_key(self) -> int:
        """Pieces of each type anywhere (promoted ones as their base type) as one number:
        sum of count_t * 19 ** (t - 1) over types t = 1..7, as the batch kernels key tables."""
        total = [0] * 8
        for code in self.board:
            t = code & 15
            if t and t != kernels.KING:
                total[t - kernels.PROMOTED if t > kernels.KING else t] += 1
        return sum((total[t] + self.hands[0][t] + self.hands[1][t]) * 19 ** (t - 1)
                   for t in range(1, 8))

    @property
    def text(self) -> str:
        return self.sfen

    def __str__(self) -> str:
        return self.sfen

    def board_array(self) -> np.ndarray:
        return np.array(self.board, np.int8)

    def hands_array(self) -> np.ndarray:
        return np.array(self.hands, np.int8)

    def legal_codes(self) -> np.ndarray:
        out = np.empty(kernels.MAX_MOVES, np.int32)
        n = kernels.legal_moves(self.board_array(), self.hands_array(), self.side, out)
        return out[:n]

    def legal_moves(self) -> list[Move]:
        return [Move.from_code(int(c)) for c in self.legal_codes()]

    def is_check(self) -> bool:
        k = self.board.index(kernels.KING + 16 * self.side)
        return bool(kernels.attacked(self.board_array(), k, 1 - self.side))

    def push(self, move: Move | str) -> Position:
        """The position after a legal move (``InvalidMoveError`` quoting it otherwise)."""
        if isinstance(move, str):
            text = move
            move = Move.parse(move)
        else:
            text = str(move)
        code = move.code
        if code not in set(self.legal_codes().tolist()):
            raise InvalidMoveError(f"move {quote(text)} is not legal in {self.sfen!r}")
        board, hands = self.board_array(), self.hands_array()
        kernels.do_move(board, hands, self.side, code)
        return Position(tuple(int(c) for c in board),
                        (tuple(int(c) for c in hands[0]), tuple(int(c) for c in hands[1])),
                        1 - self.side)

    def perft(self, depth: int) -> int:
        if not isinstance(depth, int) or depth < 0:
            raise ValueError(f"perft depth must be a non-negative integer, not {depth!r}")
        return int(kernels.perft(self.board_array(), self.hands_array(), self.side, depth))


def perft(sfen: str, depth: int) -> int:
    """Leaf nodes of the legal move tree ``depth`` plies deep from ``sfen`` ("start" for the
    initial position)."""
    return Position.parse(START_SFEN if sfen in ("start", "startpos") else sfen).perft(depth)
