"""A game's table solved and checked: by the game's own method where it has one, else by its
storage kind's generic retrograde (``Game.solve`` and ``Game.verify`` return None for that).

The games sit below the storage kinds and never import them; the build asks here.
"""
from __future__ import annotations

from typing import Any

from tbdb.storage import storage_of


def solve_table(game, table: str, deps: dict[str, Any], mode: str = "auto", **how):
    """``game.solve(table, deps, mode, **how)``, or the storage kind's solve when the game
    leaves it to its kind (``progress``, ``store``, ``fresh``: as ``Storage.solve`` takes them)."""
    data = game.solve(table, deps, mode, **how)
    if data is None:
        data = storage_of(game).solve(game, table, deps, mode, how.pop("progress", None), **how)
    return data


def verify_table(game, table: str, values: Any, deps: dict[str, Any]) -> tuple[list[str], int]:
    """(examples, count) of stored positions the rules contradict: the game's own check, or
    its storage kind's retrograde check."""
    found = game.verify(table, values, deps)
    return found if found is not None else storage_of(game).verify(game, table, values, deps)
