"""What a lookup returns, for every game.

Common fields are typed; what only some games have (a net score and the plies left, say)
lives in ``extras`` and reads as an attribute too (``r.score``).

Conventions, the same for every game:
- ``outcome`` is for the side to move (a move's: for the side that plays it);
- ``distance`` is in plies to the end with perfect play (a win as short as possible, a loss as
  long as possible); 0 for draws and for positions where the game is over; a move's distance
  counts from the position before the move (so it is the child's distance + 1, and 0 for a
  drawing move);
- ``best_move`` is the stored best move: the first move, in the game's move order on the
  stored (canonical) position, that realises the value; ``moves`` lists every legal move best
  first, the best move first among moves of equal value, the rest of a tie in move order.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

OUTCOMES = {1: "win", 0: "draw", -1: "loss"}
_RANK = {"win": 0, "draw": 1, "loss": 2}


def outcome_name(result: int) -> str:
    return OUTCOMES[int(result)]


def score_outcome(score: int) -> str:
    return "win" if score > 0 else "loss" if score < 0 else "draw"


class _Extras:
    """Attribute access to ``extras`` (``r.score`` for ``r.extras['score']``)."""

    def __getattr__(self, name: str) -> Any:
        extras = self.__dict__.get("extras")
        if extras is not None and name in extras:
            return extras[name]
        raise AttributeError(f"{type(self).__name__!s} has no attribute {name!r}")


@dataclass
class MoveResult(_Extras):
    """A legal move and what it leads to, for the side that plays it; ``position`` is the text
    of the position after it.  Score games put the move's net score in ``extras['score']``."""
    move: str
    outcome: str
    distance: int | None
    position: str | None = None
    extras: dict = field(default_factory=dict)

    def value_key(self) -> tuple:
        """Better moves sort first: quickest wins, draws, longest losses (or highest score)."""
        if "score" in self.extras:
            return (-self.extras["score"],)
        rank = _RANK[self.outcome]
        d = self.distance or 0
        return (rank, d if rank == 0 else -d if rank == 2 else 0)

    def to_dict(self) -> dict:
        out = {"move": self.move, "outcome": self.outcome, "distance": self.distance,
               "position": self.position}
        out.update(self.extras)
        return out


@dataclass
class LineStep(_Extras):
    """One move of a principal variation and the value of the position after it, for the side
    to move there."""
    move: str
    position: str
    outcome: str
    distance: int | None
    extras: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        out = {"move": self.move, "position": self.position, "outcome": self.outcome,
               "distance": self.distance}
        out.update(self.extras)
        return out


@dataclass
class LookupResult(_Extras):
    """The stored value of one position.  ``moves`` (every legal move with what it leads to,
    best first) is computed when first read and ``line()`` on demand, so plain lookups stay
    fast."""
    game: str
    position: str
    outcome: str
    distance: int | None
    best_move: str | None
    extras: dict = field(default_factory=dict)

    # ``_source``: (prober, game, position, best move, options), set by the prober that made the
    # result: a plain attribute, not a field (dataclasses.asdict and == see only the values),
    # read when ``moves`` or ``line()`` is first asked for, so plain lookups stay fast; or a
    # function returning it (a lookup answered in C before the Python path was loaded:
    # ``probe_files/text_lookups.py``)

    @property
    def moves(self) -> list[MoveResult]:
        cached = self.__dict__.get("_moves")
        if cached is None:
            src = _source(self)
            cached = self.__dict__["_moves"] = \
                src[0].moves(src[1], src[2], self.best_move, **src[4]) if src else []
        return cached

    def line(self) -> list[LineStep]:
        """The principal variation: best moves to the end of the game (a drawn line stops when
        a position repeats), with the value after each move."""
        src = _source(self)
        return src[0].line(src[1], src[2], **src[4]) if src else []

    def to_dict(self, moves: bool = True, line: bool = False) -> dict:
        """Plain data: game, position, value, best move and (``moves``) every move best first;
        with ``line`` also the principal variation under ``"line"``.  What ``tbdb lookup
        --json`` prints and ``GET /api/{game}`` returns: one method makes both, so the command
        line and the web API cannot drift apart."""
        out = {"game": self.game, "position": self.position, "outcome": self.outcome,
               "distance": self.distance, "best_move": self.best_move}
        out.update(self.extras)
        if moves:
            out["moves"] = [m.to_dict() for m in self.moves]
        if line:
            out["line"] = [step.to_dict() for step in self.line()]
        return out


class DerivedBest(LookupResult):
    """A ``LookupResult`` whose table keeps no best move (probe files written with
    ``--no-moves``): ``best_move`` is derived from one ply of probes
    (``Prober.derived_best``) when first read, not with the value.  An engine probing inside
    its search reads the value alone: a lookup of a 5-piece table spent nearly all its time
    deriving a move it never read.  Read after its tablebase is closed, it raises
    ``ClosedError``.  Equal to a ``LookupResult`` of the same fields."""

    @property
    def best_move(self) -> str | None:
        d = self.__dict__
        if "_best" not in d:
            src = d.get("_source")
            d["_best"] = src[0].derived_best(src[1], src[2], **src[4]) if src else None
        return d["_best"]

    @best_move.setter
    def best_move(self, value: str | None) -> None:
        self.__dict__["_best"] = value

    def __eq__(self, other) -> bool:
        if not isinstance(other, LookupResult):
            return NotImplemented
        return all(getattr(self, f) == getattr(other, f) for f in _FIELDS)


_FIELDS = tuple(LookupResult.__dataclass_fields__)


def _source(r: LookupResult):
    """A result's ``_source`` tuple, made now if it was left as a function of none."""
    src = r.__dict__.get("_source")
    if callable(src):
        src = r.__dict__["_source"] = src()
    return src

