"""Ultimate Tic-Tac-Toe: exact solved subtrees and small-empties tables (rules: docs/rules/uttt.md).

- ``position``: ``Position``, ``Move``, ``Canonical`` and their text (``key_text``), the
  legality check of a position text, ``perft``
- ``game``: ``UtttGame``, the registry's ``uttt`` (plan, locate, describe, batch form, perft)
- ``tables``: level-table spaces (``UtttSubtree``, ``UtttEmpties``, ``UtttStore``) and names
"""
from tbdb.games.uttt.position import (LINES, REDUCED, SCORINGS, SIDE_LETTERS, START_TEXT, Board,
                                      Canonical, Cell, Key, Move, MoveCode, Position, key_text,
                                      perft)
from tbdb.games.uttt.game import UtttGame

__all__ = ["LINES", "REDUCED", "SCORINGS", "SIDE_LETTERS", "START_TEXT", "Board", "Canonical",
           "Cell", "Key", "Move", "MoveCode", "Position", "key_text", "perft", "UtttGame"]
