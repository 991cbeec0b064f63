"""Tic-tac-toe positions and their text.

Position text: the nine cells row by row from the top left, ``x``, ``o`` or ``.``; x moves
first, so the side to move follows from the counts (``x.o......``; ``.........`` is the start).
Moves: the cell number 0-8 (0 top left, 4 centre, 8 bottom right).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from tbdb.errors import InvalidMoveError, InvalidPositionError, quote
from tbdb.solvers.tictactoe import moves as move_kernels
from tbdb.games import notation

TEXT = notation.TICTACTOE  # what a position text looks like (the game recognises it)


@dataclass(frozen=True)
class TicTacToePosition:
    """Nine cells (0 empty, 1 x, 2 o), row by row from the top left."""
    cells: tuple[int, ...]

    @classmethod
    def parse(cls, text: str) -> TicTacToePosition:
        if not isinstance(text, str) or not TEXT.fullmatch(text):
            raise InvalidPositionError(f"malformed tic-tac-toe position {quote(text)}: expected "
                                       f"nine cells of 'x', 'o' or '.', row by row "
                                       f"(e.g. 'x...o....')")
        position = cls(tuple(".xo".index(ch) for ch in text))
        problem = position.impossible()
        if problem:
            raise InvalidPositionError(f"tic-tac-toe position {quote(text)} cannot arise: "
                                       f"{problem}")
        return position

    def impossible(self) -> str | None:
        """What makes this position unreachable from the empty board, or None."""
        xs, os = self.cells.count(1), self.cells.count(2)
        if xs not in (os, os + 1):
            return f"{xs} x and {os} o (x moves first, then each in turn)"
        board = np.array(self.cells, np.int8)
        x_line, o_line = move_kernels.has_line(board, 1), move_kernels.has_line(board, 2)
        if x_line and o_line:
            return "both players have a line"
        if x_line and xs != os + 1:
            return "x has a line but o has moved since"
        if o_line and xs != os:
            return "o has a line but x has moved since"
        return None

    @property
    def text(self) -> str:
        return "".join(".xo"[c] for c in self.cells)

    def __str__(self) -> str:
        return self.text

    def board(self) -> np.ndarray:
        return np.array(self.cells, np.int8)

    @property
    def mover(self) -> int:
        return 1 if self.cells.count(1) == self.cells.count(2) else 2

    def is_over(self) -> bool:
        return int(move_kernels.status(self.board())[1]) != move_kernels.UNKNOWN

    def legal_moves(self) -> list[int]:
        return [] if self.is_over() else [i for i in range(9) if self.cells[i] == 0]

    def push(self, move: int | str) -> TicTacToePosition:
        cell = move
        if isinstance(move, str):
            if not re.fullmatch(r"[0-8]", move):
                raise InvalidMoveError(f"malformed tic-tac-toe move {quote(move)}: a cell 0-8")
            cell = int(move)
        if cell not in self.legal_moves():
            raise InvalidMoveError(f"move {quote(str(move))} is not legal in {self.text!r}")
        cells = list(self.cells)
        cells[cell] = self.mover
        return TicTacToePosition(tuple(cells))
