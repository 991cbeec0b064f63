"""The game registry and the interface every game implements for the generic engine.

A game brings kernels (in ``solvers/``) and a position type; to the build driver, the store
and the API it is an object with this interface:

``name``                       the registry key (``"cdc"``, ``"oware"``)
``plan(**options)``            the table names to build, each after the tables it needs
``dependencies(table)``        the tables whose values ``solve`` reads
``solve(table, deps)``         solve one table; ``deps`` maps dependency names to solved tables
``rows(solved, store)``        ``[(INSERT ... FROM {src}, pyarrow.Table)]`` to bulk-load, and a
                               row count (the store runs them in the table's transaction)
``deletes(table)``             SQL that removes any half-written rows of a table
``load(table, store)``         a solved table back from the database (to resume a build)
``prober(store)``              an object answering ``lookup`` for this game
``verify(table, solved, deps)``(example texts, count) of the positions whose stored value one
                               ply of moves and the children's stored values contradict
``parse(text)``                a position, or ``InvalidPositionError`` quoting the text
"""
from __future__ import annotations

from typing import Any, Protocol

from tbdb.errors import UnknownGameError


class Game(Protocol):
    name: str

    def plan(self, **options: Any) -> list[str]: ...
    def dependencies(self, table: str) -> list[str]: ...
    def solve(self, table: str, deps: dict[str, Any]) -> Any: ...
    def rows(self, solved: Any, store: Any) -> tuple[list, int]: ...
    def deletes(self, table: str) -> list[tuple[str, list]]: ...
    def load(self, table: str, store: Any) -> Any: ...
    def prober(self, store: Any) -> Any: ...
    def verify(self, table: str, solved: Any, deps: dict[str, Any]) -> tuple[list[str], int]: ...
    def parse(self, text: str) -> Any: ...


def _registry() -> dict[str, Game]:
    from tbdb.games.cdc_tables import CdcGame
    from tbdb.games.oware_tables import OwareGame
    return {"cdc": CdcGame(), "oware": OwareGame()}


_GAMES: dict[str, Game] | None = None


def names() -> list[str]:
    return sorted(_games())


def _games() -> dict[str, Game]:
    global _GAMES
    if _GAMES is None:
        _GAMES = _registry()
    return _GAMES


def get(name: str) -> Game:
    """The game called ``name``; ``UnknownGameError`` (a ``KeyError``) names the known ones."""
    games = _games()
    if name not in games:
        raise UnknownGameError(f"unknown game {name!r}; known games: {', '.join(sorted(games))}")
    return games[name]
