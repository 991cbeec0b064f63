"""Tic-tac-toe: the smallest complete game on the engine (walked through in
``docs/adding-a-game.md``).

Position text: the nine cells row by row from the top left, ``x``, ``o`` or ``.``; x moves
first, so the side to move follows from the counts (``x.o......``; ``.........`` is the start).
Moves: the cell number 0-8 (0 top left, 4 centre, 8 bottom right).

One table, ``all``: every position reachable from the empty board (5,478, or 765 up to the 8
symmetries of the square), solved level by level (level = empty cells) and stored by exact
canonical key.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from tbdb.errors import InvalidArrayError, InvalidMoveError, InvalidOptionError, \
    InvalidPositionError, quote
from tbdb.games.base import BatchLocation, Game, GameOver, Location, StatRow, Successor, \
    TableData, first_row_outside
from tbdb.solvers import tictactoe as kernels

_TEXT = re.compile(r"[xo.]{9}")
TABLE = "all"


@dataclass(frozen=True)
class TicTacToePosition:
    """Nine cells (0 empty, 1 x, 2 o), row by row from the top left."""
    cells: tuple[int, ...]

    @classmethod
    def parse(cls, text: str) -> TicTacToePosition:
        if not isinstance(text, str) or not _TEXT.fullmatch(text):
            raise InvalidPositionError(f"malformed tic-tac-toe position {quote(text)}: expected "
                                       f"nine cells of 'x', 'o' or '.', row by row "
                                       f"(e.g. 'x...o....')")
        position = cls(tuple(".xo".index(ch) for ch in text))
        problem = position._impossible()
        if problem:
            raise InvalidPositionError(f"tic-tac-toe position {quote(text)} cannot arise: "
                                       f"{problem}")
        return position

    def _impossible(self) -> str | None:
        xs, os = self.cells.count(1), self.cells.count(2)
        if xs not in (os, os + 1):
            return f"{xs} x and {os} o (x moves first, then each in turn)"
        board = np.array(self.cells, np.int8)
        x_line, o_line = kernels._has_line(board, 1), kernels._has_line(board, 2)
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
        return int(kernels._status(self.board())[1]) != kernels.UNKNOWN

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


class TicTacToeSpace:
    """The level space of every position reachable from the empty board."""
    max_children = 9

    def roots(self) -> np.ndarray:
        return np.zeros((1, 2), np.int64)  # the empty board: code 0

    def level(self, keys: np.ndarray) -> np.ndarray:
        return kernels._levels(np.ascontiguousarray(keys, np.int64))

    def expand(self, keys: np.ndarray):
        n = len(keys)
        terminal = np.empty(n, np.int8)
        count = np.empty(n, np.int16)
        child = np.zeros((n, 9, 2), np.int64)
        move = np.zeros((n, 9), np.int32)
        kernels._expand(np.ascontiguousarray(keys, np.int64), terminal, count, child, move)
        return terminal, count, child, move


class TicTacToeGame(Game):
    name = "tictactoe"
    title = "Tic-tac-toe (the worked example of docs/adding-a-game.md)"
    rules = "docs/rules/tictactoe.md"
    sample = "x...o...."
    storage = "key"
    modes = ("levels",)
    position_type = TicTacToePosition
    example_build: dict = {}

    def plan(self) -> list[str]:
        return [TABLE]

    def weight(self, table: str) -> int:
        return 5478

    def check_table(self, table: str) -> str:
        if table != TABLE:
            raise InvalidOptionError(f"no tic-tac-toe table {quote(table)}: the one table is "
                                     f"{TABLE!r}")
        return table

    def build_command(self, table: str) -> str:
        return "tbdb build tictactoe"

    def space(self, table: str, deps: dict) -> TicTacToeSpace:
        return TicTacToeSpace()

    def key_columns(self, table: str, keys: np.ndarray):
        keys = np.ascontiguousarray(keys, np.int64)
        return np.zeros(len(keys), np.int16), kernels._orbits(keys)

    def describe(self, table: str, levels: list) -> TableData:
        stats, raw, fixed = [], 0, 0
        for v in sorted(levels, key=lambda v: -v.level):
            mult = self.key_columns(table, v.keys)[1].astype(np.int64)
            marks = 9 - v.level
            won, lost = v.distance[v.result == 1], v.distance[v.result == -1]
            stats.append(StatRow(
                f"{marks} mark{'' if marks == 1 else 's'}", marks, "x" if marks % 2 == 0 else "o",
                int(mult.sum()),
                int(mult[v.result == 1].sum()), int(mult[v.result == 0].sum()),
                int(mult[v.result == -1].sum()), 0,
                int(won.max()) if len(won) else None, int(lost.max()) if len(lost) else None))
            raw += int(mult.sum())
            fixed += int(mult[mult < 8].sum())
        return TableData(storage="key", values=levels, params={}, stats=stats,
                         slots=sum(len(v.keys) for v in levels), raw_positions=raw,
                         positions_answered=raw, fixed_positions=fixed, mode="levels")

    def slot_text(self, table: str, key) -> str:
        board = np.empty(9, np.int8)
        kernels._decode(int(key[0]), board)
        return TicTacToePosition(tuple(int(c) for c in board)).text

    # ------------------------------------------------------------------ positions

    def parse(self, text: str) -> TicTacToePosition:
        return TicTacToePosition.parse(text)

    def recognises(self, text: str) -> bool:
        return isinstance(text, str) and bool(_TEXT.fullmatch(text))

    def diagram(self, position: TicTacToePosition) -> str:
        t = position.text
        return "\n".join(" ".join(t[r * 3:r * 3 + 3]) + f"    {r * 3} {r * 3 + 1} {r * 3 + 2}"
                         for r in range(3))

    def locate(self, position: TicTacToePosition) -> Location | GameOver:
        code, sym = kernels._canonical(position.board())
        return Location(TABLE, (int(code), 0, 0), int(sym))

    def move_text(self, position, code: int, sym: int) -> str:
        # the canonical board is the image under sym: cell c there is cell inverse(c) here
        return str(int(kernels.SYM[kernels.INVERSE[sym], code]))

    def successors(self, position: TicTacToePosition) -> list[Successor]:
        return [Successor(str(cell), position.push(cell)) for cell in position.legal_moves()]

    def images(self, position: TicTacToePosition) -> list[TicTacToePosition]:
        out = [position]
        for s in range(1, 8):
            cells = [0] * 9
            for i, c in enumerate(position.cells):
                cells[kernels.SYM[s, i]] = c
            out.append(TicTacToePosition(tuple(cells)))
        return out

    # ------------------------------------------------------------------ batch

    def encode_batch(self, positions: list[TicTacToePosition]) -> tuple:
        return (np.array([p.cells for p in positions], np.int8).reshape(-1, 9),)

    def batch_locate(self, boards) -> BatchLocation:
        """boards int[n, 9]: cells row by row from the top left, 0 empty, 1 x, 2 o."""
        boards = np.asarray(boards)
        if boards.ndim != 2 or boards.shape[1] != 9:
            raise InvalidArrayError(f"expected boards of shape (n, 9), got {boards.shape}")
        if not np.issubdtype(boards.dtype, np.integer):
            raise InvalidArrayError(f"boards must be an integer array, not {boards.dtype}")
        bad = first_row_outside(boards, 0, 2)
        if bad is not None:
            raise InvalidArrayError(f"row {bad}: cells are 0 (empty), 1 (x) or 2 (o), got "
                                    f"{quote(boards[bad].tolist())}")
        for r, row in enumerate(boards.tolist()):
            problem = TicTacToePosition(tuple(row))._impossible()
            if problem:
                raise InvalidArrayError(f"row {r}: {problem}")
        n = len(boards)
        keys = np.zeros((n, 3), np.int64)
        sym = np.empty(n, np.int8)
        kernels._canonical_many(np.ascontiguousarray(boards, np.int8), keys, sym)
        return BatchLocation([TABLE], np.zeros(n, np.int32), keys, sym, np.zeros(n, np.int8))

    def batch_moves(self, codes: np.ndarray, sym: np.ndarray) -> np.ndarray:
        inverse = kernels.SYM[kernels.INVERSE[sym.astype(np.int64)]]  # [n, 9]
        safe = np.where(codes >= 0, codes, 0)
        return np.where(codes >= 0, inverse[np.arange(len(codes)), safe], -1).astype(np.int32)

    def start(self) -> TicTacToePosition:
        return TicTacToePosition((0,) * 9)

    def perft(self, position: TicTacToePosition, depth: int) -> int:
        return int(kernels._perft(position.board(), depth))
