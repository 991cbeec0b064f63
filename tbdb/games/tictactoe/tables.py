"""Tic-tac-toe's one table and its level space.

One table, ``all``: every position reachable from the empty board (5,478, or 765 up to the 8
symmetries of the square), solved level by level (level = empty cells) and stored by exact
canonical key (``solvers/tictactoe/index.py``).
"""
from __future__ import annotations

import numpy as np

from tbdb.solvers.tictactoe import index as index_kernels
from tbdb.solvers.tictactoe import moves as move_kernels

TABLE = "all"


class TicTacToeSpace:
    """The level space of every position reachable from the empty board."""
    max_children = 9

    def roots(self) -> np.ndarray:
        return np.zeros((1, 2), np.int64)  # the empty board: code 0

    def level(self, keys: np.ndarray) -> np.ndarray:
        return index_kernels.levels(np.ascontiguousarray(keys, np.int64))

    def expand(self, keys: np.ndarray):
        n = len(keys)
        terminal = np.empty(n, np.int8)
        count = np.empty(n, np.int16)
        child = np.zeros((n, 9, 2), np.int64)
        move = np.zeros((n, 9), np.int32)
        move_kernels.expand(np.ascontiguousarray(keys, np.int64), terminal, count, child, move)
        return terminal, count, child, move
