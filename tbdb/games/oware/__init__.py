"""Oware (Abapa) endgame books under the 200-ply limit (rules: docs/rules/oware.md).

- ``position``: ``OwarePosition`` (seeds per house, mover's view) and its text, ``parse_move``
- ``game``: ``OwareGame``, the registry's ``oware`` (plan, locate, describe, verify, batch form)
- ``tables``: table names, one book per seed count (``seeds-12``)
- ``book``: ``Book`` and ``solve_book`` / ``solve_books``, the Python driver of the solver
  kernels (``tbdb.solvers.oware``)
"""
from tbdb.games.oware.position import HOUSES, TOTAL_SEEDS, OwarePosition, parse_move
from tbdb.games.oware.game import OwareGame

__all__ = ["HOUSES", "TOTAL_SEEDS", "OwarePosition", "parse_move", "OwareGame"]
