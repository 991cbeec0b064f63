"""What a lookup returns, for every game."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

OUTCOMES = {1: "win", 0: "draw", -1: "loss"}


def outcome_name(result: int) -> str:
    return OUTCOMES[int(result)]


@dataclass(frozen=True)
class MoveResult:
    """A legal move and what it leads to, for the side that plays it: ``outcome`` and
    ``distance`` (plies from the position before the move) for win/draw/loss games, or
    ``score`` (net seeds the mover still gains, this move's captures included) for Oware."""
    move: str
    outcome: str | None = None
    distance: int | None = None
    score: int | None = None

    def sort_key(self):
        """Best first: quickest wins, then draws, then the longest losses; or highest score."""
        if self.score is not None:
            return (-self.score, self.move)
        rank = {"win": 0, "draw": 1, "loss": 2}[self.outcome]
        return (rank, self.distance if rank == 0 else -self.distance if rank == 2 else 0,
                self.move)


@dataclass
class LookupResult:
    """The stored value of one position.  ``moves`` (every legal move with what it leads to,
    best first) is computed when first read, so plain lookups stay fast."""
    game: str
    position: str
    outcome: str
    distance: int | None
    best_move: str | None
    score: int | None = None
    turns_left: int | None = None
    moves_fn: Callable[[], list[MoveResult]] | None = field(default=None, repr=False,
                                                            compare=False)
    _moves: list[MoveResult] | None = field(default=None, repr=False, compare=False)

    @property
    def moves(self) -> list[MoveResult]:
        if self._moves is None:
            self._moves = self.moves_fn() if self.moves_fn else []
        return self._moves
