"""Chinese Dark Chess pieces and material signatures: what names a table.

A material lists red's pieces, ``v``, black's pieces, by rank, in upper case: ``KGvR``.  Piece
letters ``KGMRNCP`` (General .. Soldier), upper case red and lower case black on a board; a
piece code is ``colour * 7 + type`` (the kernels' codes, ``solvers/cdc/moves.py``).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from tbdb.errors import InvalidMaterialError, quote
from tbdb.solvers.cdc import index as index_kernels
from tbdb.solvers.cdc import moves as move_kernels

PieceCode = int  # colour * 7 + type
LETTERS = "KGMRNCP"
MAX_PER_SIDE = (1, 2, 2, 2, 2, 2, 5)
RED, BLACK = 0, 1
# what the index functions support (a material with no single piece leads with a pair)
MAX_PIECES = 5


def piece_letter(code: PieceCode) -> str:
    letter = LETTERS[code % 7]
    return letter if code < 7 else letter.lower()


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
        """Piece codes in index order: the lead group first (see ``solvers/cdc/index.py``)."""
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
        """The kernels' description of this material (layout in ``solvers/cdc/index.py``)."""
        if self.pieces > MAX_PIECES:
            raise InvalidMaterialError(f"material {self.name!r} has {self.pieces} pieces; tbdb "
                                       f"builds CDC tables of up to {MAX_PIECES}")
        codes = self.slot_codes
        groups = _groups(codes)
        desc = np.zeros(index_kernels.DESC_LEN, np.int64)
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
        return int(index_kernels.table_size(self.desc))

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
                if not any(a == move_kernels.CANNON or move_kernels.STEP_CAPTURES[a, v]
                           for a in attackers):
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
