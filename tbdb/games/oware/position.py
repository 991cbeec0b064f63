"""Oware (Abapa): positions seen from the player to move, and their text form.

Position text: twelve non-negative integers separated by single spaces, houses 0-5 of the player
to move first, then houses 6-11 of the opponent: ``0 0 0 0 0 1 0 0 0 0 0 0``.
Moves: the house number 0-5.  Rules: docs/rules/oware.md; kernels: ``tbdb.solvers.oware``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from tbdb.errors import InvalidMoveError, InvalidPositionError, quote
from tbdb.solvers.oware import index, moves

HOUSES = 12
TOTAL_SEEDS = 48  # a game of Oware has 48 seeds; no position holds more
# ASCII digits without leading zeros (the text round-trips); no house holds 100
_TEXT = re.compile(r"(0|[1-9][0-9]?)( (0|[1-9][0-9]?)){11}")


@dataclass(frozen=True)
class OwarePosition:
    """Seeds per house, from the mover's point of view (houses 0-5 the mover's)."""
    houses: tuple[int, ...]

    @classmethod
    def parse(cls, text: str) -> OwarePosition:
        if not isinstance(text, str) or not _TEXT.fullmatch(text):
            raise InvalidPositionError(
                f"malformed Oware position {quote(text)}: expected 12 non-negative integers "
                f"separated "
                f"by single spaces, the mover's houses 0-5 first (e.g. '0 0 0 0 0 1 0 0 0 0 0 0')")
        houses = tuple(int(x) for x in text.split(" "))
        if sum(houses) > TOTAL_SEEDS:
            raise InvalidPositionError(f"Oware position {quote(text)} holds {sum(houses)} seeds; "
                                       f"a game has {TOTAL_SEEDS}")
        return cls(houses)

    @property
    def text(self) -> str:
        return " ".join(str(h) for h in self.houses)

    def __str__(self) -> str:
        return self.text

    @property
    def seeds(self) -> int:
        return sum(self.houses)

    @property
    def index(self) -> int:
        """Rank among the positions with the same number of seeds (rules: lexicographic)."""
        return int(index.rank(self.array()))

    @classmethod
    def from_index(cls, seeds: int, idx: int) -> OwarePosition:
        out = np.empty(HOUSES, np.int8)
        index.unrank(seeds, idx, out)
        return cls(tuple(int(x) for x in out))

    def array(self) -> np.ndarray:
        return np.array(self.houses, np.int8)

    def play(self, house: int) -> tuple[OwarePosition, int] | None:
        """(the position after sowing ``house``, seen from the new mover; seeds captured), or
        None if the move is illegal."""
        out = np.empty(HOUSES, np.int8)
        captured = moves.sow(self.array(), house, out)
        if captured < 0:
            return None
        flipped = tuple(int(out[(i + 6) % HOUSES]) for i in range(HOUSES))
        return OwarePosition(flipped), int(captured)

    def legal_moves(self) -> list[int]:
        return [h for h in range(6) if self.play(h) is not None]

    def push(self, move: int | str) -> OwarePosition:
        house = parse_move(move) if isinstance(move, str) else move
        after = self.play(house) if 0 <= house < 6 else None
        if after is None:
            raise InvalidMoveError(f"move {quote(move)} is not legal in {self.text!r}")
        return after[0]


def parse_move(text: str) -> int:
    if not re.fullmatch(r"[0-5]", text):
        raise InvalidMoveError(f"malformed Oware move {quote(text)}: expected a house number 0-5")
    return int(text)
