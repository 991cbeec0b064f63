"""Chinese Dark Chess (revealed endgames): positions, moves, materials and their text forms.

Position text: ranks 4 (top) to 1 separated by ``/``, files a-h in each rank, piece letters
(upper case red, lower case black), digits for runs of empty squares, a space and the side to
move (``r``/``b``): ``4g2K/8/8/8 r``.  Moves: ``a1-a2``, captures ``b1xd1``.
Material signatures list red's pieces, ``v``, black's pieces, by rank, in upper case: ``KGvR``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np

from tbdb.solvers import cdc as kernels
from tbdb.solvers import cdc_text as text_kernels
from tbdb.errors import InvalidMaterialError, InvalidMoveError, InvalidPositionError, quote

Square = int  # 0..31, a1 = 0, h1 = 7, a4 = 24
PieceCode = int  # colour * 7 + type
LETTERS = "KGMRNCP"
MAX_PER_SIDE = (1, 2, 2, 2, 2, 2, 5)
_LIMIT = np.array(MAX_PER_SIDE, np.int64)
RED, BLACK = 0, 1
SIDE_NAMES = ("red", "black")
# what the index functions support (a material with no single piece leads with a pair)
MAX_PIECES = 5


def square_name(sq: Square) -> str:
    return "abcdefgh"[sq % 8] + str(sq // 8 + 1)


def parse_square(text: str) -> Square:
    if len(text) != 2 or text[0] not in "abcdefgh" or text[1] not in "1234":
        raise ValueError(text)
    return (int(text[1]) - 1) * 8 + "abcdefgh".index(text[0])


def piece_letter(code: PieceCode) -> str:
    letter = LETTERS[code % 7]
    return letter if code < 7 else letter.lower()


# ------------------------------------------------------------------------------- moves

@dataclass(frozen=True)
class Move:
    """A move: from and to squares, and whether it captures."""
    from_sq: Square
    to_sq: Square
    capture: bool = False

    @classmethod
    def from_code(cls, code: int) -> Move:
        return cls((code % kernels.CAPTURE_FLAG) // 32, code % 32,
                   code >= kernels.CAPTURE_FLAG)

    @property
    def code(self) -> int:
        return (kernels.CAPTURE_FLAG if self.capture else 0) + self.from_sq * 32 + self.to_sq

    @classmethod
    def parse(cls, text: str) -> Move:
        m = re.fullmatch(r"([a-h][1-4])([-x])([a-h][1-4])", text)
        if not m:
            raise InvalidMoveError(f"malformed CDC move {quote(text)}: expected like 'a1-a2' or "
                                   f"'b1xd1'")
        return cls(parse_square(m.group(1)), parse_square(m.group(3)), m.group(2) == "x")

    def __str__(self) -> str:
        return square_name(self.from_sq) + ("x" if self.capture else "-") + square_name(self.to_sq)


# ------------------------------------------------------------------------------- materials

@dataclass(frozen=True, order=True)
class Material:
    """The pieces of each side, as sorted piece types (0 General .. 6 Soldier)."""
    red: tuple[int, ...]
    black: tuple[int, ...]

    @classmethod
    def parse(cls, text: str) -> Material:
        m = re.fullmatch(r"([KGMRNCP]*)v([KGMRNCP]*)", text)
        if not m or not m.group(1) or not m.group(2):
            raise InvalidMaterialError(
                f"malformed material {quote(text)}: expected red pieces, 'v', black pieces, "
                f"each side non-empty, letters from {LETTERS} (e.g. 'KGvR')")
        sides = tuple(tuple(sorted(LETTERS.index(c) for c in part)) for part in m.groups())
        material = cls(*sides)
        for side in sides:
            for t in range(7):
                if side.count(t) > MAX_PER_SIDE[t]:
                    raise InvalidMaterialError(
                        f"material {quote(text)} has {side.count(t)} {LETTERS[t]}; a side has at "
                        f"most {MAX_PER_SIDE[t]}")
        if material.name != text:
            raise InvalidMaterialError(
                f"material {quote(text)} is not in rank order; write it as {material.name!r}")
        return material

    @property
    def name(self) -> str:
        return "".join(LETTERS[t] for t in self.red) + "v" + "".join(LETTERS[t] for t in self.black)

    def __str__(self) -> str:
        return self.name

    @property
    def pieces(self) -> int:
        return len(self.red) + len(self.black)

    def swapped(self) -> Material:
        return Material(self.black, self.red)

    @property
    def is_canonical(self) -> bool:
        """The orientation stored: red has more pieces, then stronger ones (``KGvR``, ``KvG``)."""
        return _side_key(self.red) >= _side_key(self.black)

    def canonical(self) -> tuple[Material, bool]:
        """The stored orientation and whether colours are swapped to reach it."""
        return (self, False) if self.is_canonical else (self.swapped(), True)

    @property
    def codes(self) -> list[PieceCode]:
        return [t for t in self.red] + [7 + t for t in self.black]

    @cached_property
    def slot_codes(self) -> list[PieceCode]:
        """Piece codes in index order: the lead group first (see ``solvers.cdc``)."""
        groups = _groups(self.codes)
        singles = [g for g in groups if g[1] == 1]
        pairs = [g for g in groups if g[1] == 2]
        if singles:
            lead = singles[0]
        elif pairs:
            lead = pairs[0]
        else:
            raise InvalidMaterialError(f"material {self.name!r} has no single piece or pair to "
                                       f"lead its index")
        ordered = [lead] + [g for g in groups if g is not lead]
        return [code for code, count in ordered for _ in range(count)]

    @cached_property
    def desc(self) -> np.ndarray:
        """The kernels' description of this material (layout in ``solvers.cdc``)."""
        if self.pieces > MAX_PIECES:
            raise InvalidMaterialError(f"material {self.name!r} has {self.pieces} pieces; tbdb "
                                       f"builds CDC tables of up to {MAX_PIECES}")
        codes = self.slot_codes
        groups = _groups(codes)
        desc = np.zeros(kernels.DESC_LEN, np.int64)
        desc[0] = len(codes)
        desc[1] = 0 if groups[0][1] == 1 else 1
        desc[2] = len(groups)
        for g, (_, count) in enumerate(groups):
            desc[4 + g] = count
        desc[12:12 + len(codes)] = codes
        return desc

    @cached_property
    def size(self) -> int:
        """Indices per side to move."""
        return int(kernels._table_size(self.desc))

    @property
    def shape(self) -> str:
        """What the index layout depends on: the mode and the group sizes (``1.1.2``, ``p2.2``)."""
        d = self.desc
        sizes = ".".join(str(int(d[4 + g])) for g in range(int(d[2])))
        return ("p" if d[1] else "") + sizes

    @property
    def letters(self) -> str:
        """Piece letters in index order (as they appear in ``cdc_squares``)."""
        return "".join(piece_letter(c) for c in self.slot_codes)

    @property
    def material_id(self) -> int:
        """A stable integer key: counts per piece kind, mixed radix (red, then black)."""
        key = 0
        for side in (self.red, self.black):
            for t in range(7):
                key = key * (MAX_PER_SIDE[t] + 1) + side.count(t)
        return key

    def placements(self) -> int:
        """Placements of the pieces on the board (identical pieces unordered), one side to move."""
        from math import comb
        total, free = 1, 32
        for _, count in _groups(self.codes):
            total *= comb(free, count)
            free -= count
        return total

    def capture_children(self) -> dict[int, Material | None]:
        """For each piece kind that can be captured here: the material left (None: that side
        has no piece left, so its mover has lost)."""
        out: dict[int, Material | None] = {}
        for colour, (victims, attackers) in enumerate(((self.red, self.black),
                                                      (self.black, self.red))):
            for v in set(victims):
                if not any(a == kernels.CANNON or kernels.STEP_CAPTURES[a, v] for a in attackers):
                    continue
                left = list(victims)
                left.remove(v)
                if not left:
                    out[colour * 7 + v] = None
                else:
                    sides = (tuple(left), self.black) if colour == RED else (self.red, tuple(left))
                    out[colour * 7 + v] = Material(*sides)
        return out


def _side_key(types: tuple[int, ...]) -> tuple:
    return (len(types), tuple(-t for t in types))


def _groups(codes: list[int]) -> list[tuple[int, int]]:
    """(code, count) of each kind, in the order the codes first appear."""
    out: list[tuple[int, int]] = []
    for c in codes:
        if out and out[-1][0] == c:
            out[-1] = (c, out[-1][1] + 1)
        else:
            out.append((c, 1))
    return out


def all_materials(max_pieces: int) -> list[Material]:
    """Every signature with 2..max_pieces pieces, each side at least one piece."""
    from itertools import combinations_with_replacement
    sides: dict[int, list[tuple[int, ...]]] = {}
    for n in range(1, max_pieces):
        sides[n] = [c for c in combinations_with_replacement(range(7), n)
                    if all(c.count(t) <= MAX_PER_SIDE[t] for t in range(7))]
    out = []
    for total in range(2, max_pieces + 1):
        for nr in range(1, total):
            for r in sides[nr]:
                for b in sides[total - nr]:
                    out.append(Material(r, b))
    return out


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
        if isinstance(text, str) and text.isascii():  # the one-call fast path (solvers/cdc_text)
            board = np.empty(32, np.int8)
            side, key = text_kernels._read_text(np.frombuffer(text.encode("ascii"), np.uint8),
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
        n = kernels._moves_of_board(self.board_array(), self.side, out)
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
