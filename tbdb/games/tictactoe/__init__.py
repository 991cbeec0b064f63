"""Tic-tac-toe: the smallest complete game on the retrograde driver, the worked example of
``docs/adding-a-game.md``.  Rules: docs/rules/tictactoe.md.

- ``position``: ``TicTacToePosition`` and its text (``x...o....``); moves are cells 0-8.
- ``tables``: the one table, ``all``, and its level space (``TicTacToeSpace``).
- ``game``: ``TicTacToeGame``, the plug-in the registry names.

Its kernels are in ``solvers/tictactoe/`` (``tbdb.solvers.tictactoe``): ``index`` (boards <->
keys, symmetries) and ``moves`` (move generation, perft).
"""
from tbdb.games.tictactoe.position import TicTacToePosition
from tbdb.games.tictactoe.tables import TABLE, TicTacToeSpace
from tbdb.games.tictactoe.game import TicTacToeGame

__all__ = ["TABLE", "TicTacToeGame", "TicTacToePosition", "TicTacToeSpace"]
