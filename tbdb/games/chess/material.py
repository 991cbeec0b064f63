"""Chess materials: what names a table (``KQvKR``, as Syzygy names them) and what its captures
and promotions lead to.

A material is the non-king pieces of two sides (types: PAWN 1 .. QUEEN 5).  Its canonical
orientation puts the stronger side first, by Syzygy's rule (more pieces first; with as many,
the side whose pieces come first in K Q R B N P order); the first side plays white in the
table.  ``KRvKQ`` is the table ``KQvKR`` seen with colours swapped.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from itertools import combinations_with_replacement

import numpy as np

from tbdb.errors import InvalidMaterialError, quote
from tbdb.solvers.chess import index as index_kernels
from tbdb.solvers.chess.moves import BLACK_BIT, KING, PAWN

ORDER = "KQRBNP"  # Syzygy's letter order
TYPE_OF = {"P": 1, "N": 2, "B": 3, "R": 4, "Q": 5}
LETTER_OF = {v: k for k, v in TYPE_OF.items()}
MIN_PIECES, MAX_PIECES = 3, 5


def _letters(types: tuple[int, ...]) -> str:
    return "K" + "".join(LETTER_OF[t] for t in types)


def _sorted(types) -> tuple[int, ...]:
    return tuple(sorted(types, reverse=True))  # queens first, pawns last: Syzygy's order


@dataclass(frozen=True)
class Material:
    """The non-king piece types of the first (white in the table) and second side."""
    white: tuple[int, ...]
    black: tuple[int, ...]

    def __post_init__(self):
        object.__setattr__(self, "white", _sorted(self.white))
        object.__setattr__(self, "black", _sorted(self.black))

    @classmethod
    def parse(cls, text: str) -> Material:
        """``KQvKR`` (letters in any order within a side, either side first)."""
        if not isinstance(text, str) or text.count("v") != 1:
            raise InvalidMaterialError(f"malformed chess material {quote(text)}: expected like "
                                       f"'KQvKR' (each side a K and its pieces Q R B N P)")
        sides = []
        for part in text.split("v"):
            if part.count("K") != 1 or any(c not in ORDER for c in part):
                raise InvalidMaterialError(
                    f"malformed chess material {quote(text)}: each side is one K and pieces "
                    f"from Q R B N P (like 'KQvKR')")
            sides.append(tuple(TYPE_OF[c] for c in part if c != "K"))
        m = cls(*sides)
        if not MIN_PIECES <= m.pieces <= MAX_PIECES:
            raise InvalidMaterialError(f"chess material {quote(text)} has {m.pieces} pieces; "
                                       f"tbdb builds chess tables of {MIN_PIECES} to "
                                       f"{MAX_PIECES} pieces")
        return m

    @property
    def name(self) -> str:
        return _letters(self.white) + "v" + _letters(self.black)

    def __str__(self) -> str:
        return self.name

    @property
    def pieces(self) -> int:
        return 2 + len(self.white) + len(self.black)

    @property
    def pawns(self) -> int:
        return self.white.count(PAWN) + self.black.count(PAWN)

    @property
    def has_pawns(self) -> bool:
        return PAWN in self.white or PAWN in self.black

    def swapped(self) -> Material:
        return Material(self.black, self.white)

    @property
    def is_canonical(self) -> bool:
        def key(s):
            return [ORDER.index(c) for c in _letters(s)]
        return not (len(self.white), key(self.black)) < (len(self.black), key(self.white))

    def canonical(self) -> tuple[Material, bool]:
        """(the table's material, whether this one is it with colours swapped)."""
        return (self, False) if self.is_canonical else (self.swapped(), True)

    @cached_property
    def codes(self) -> list[int]:
        """Piece codes in table slot order: kings, the first side's pieces, the second's."""
        return ([KING, BLACK_BIT + KING] + list(self.white)
                + [BLACK_BIT + t for t in self.black])

    @cached_property
    def desc(self) -> np.ndarray:
        d = np.zeros(index_kernels.DESC_LEN, np.int64)
        d[0] = self.pieces
        d[1] = int(self.has_pawns)
        d[2:2 + self.pieces] = self.codes
        return d

    @cached_property
    def half(self) -> int:
        return int(index_kernels.half_size(self.desc))

    def changes(self) -> dict[int, tuple[Material | None, bool, list[int]]]:
        """Every capture and promotion by change number (solvers/chess/edges.py): (the child
        material in its table's orientation or None for bare kings, whether colours swap, the
        child slot of each of this table's slots or -1)."""
        k = self.pieces
        codes = self.codes
        out = {}
        for victim in list(range(2, k)) + [k]:
            for mover in [i for i in range(2, k) if codes[i] & 7 == PAWN] + [k]:
                for promo in ((0,) if mover == k else (5, 4, 3, 2)):
                    if victim == k and mover == k:
                        continue
                    if victim < k and mover < k and (codes[victim] & BLACK_BIT == codes[mover]
                                                     & BLACK_BIT or codes[victim] & 7 == PAWN):
                        continue  # own piece, or a pawn on the last rank: never happens
                    after = list(codes)
                    if mover < k:
                        after[mover] = (codes[mover] & BLACK_BIT) + promo
                    white = tuple(c for i, c in enumerate(after[2:], 2)
                                  if i != victim and c < BLACK_BIT)
                    black = tuple(c - BLACK_BIT for i, c in enumerate(after[2:], 2)
                                  if i != victim and c > BLACK_BIT)
                    number = victim * (k + 1) * 6 + mover * 6 + promo
                    if not white and not black:
                        out[number] = (None, False, [-1] * k)
                        continue
                    child, flip = Material(white, black).canonical()
                    free = list(child.codes)
                    taken = [False] * len(free)
                    slots = []
                    for i, c in enumerate(after):
                        if i == victim:
                            slots.append(-1)
                            continue
                        want = c ^ BLACK_BIT if flip else c
                        s = next(j for j in range(len(free)) if not taken[j] and free[j] == want)
                        taken[s] = True
                        slots.append(s)
                    out[number] = (child, flip, slots)
        return out

    def children(self) -> set[Material]:
        """The canonical tables its captures and promotions lead to."""
        return {c for c, _, _ in self.changes().values() if c is not None}


def closure(material: Material) -> set[Material]:
    """A canonical material and every table its captures and promotions lead to."""
    out: set[Material] = set()
    stack = [material.canonical()[0]]
    while stack:
        m = stack.pop()
        if m not in out:
            out.add(m)
            stack.extend(m.children())
    return out


def all_materials(max_pieces: int) -> list[Material]:
    """Every canonical material of 3..max_pieces pieces (Syzygy's 5 + 30 + 110)."""
    out = set()
    for total in range(1, max_pieces - 1):
        for n_white in range(total + 1):
            for w in combinations_with_replacement(range(1, 6), n_white):
                for b in combinations_with_replacement(range(1, 6), total - n_white):
                    out.add(Material(w, b).canonical()[0])
    return sorted(out, key=lambda m: (m.pieces, m.name))
