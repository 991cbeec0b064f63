"""Tic-tac-toe as a plug-in of the retrograde driver: the ``Game`` the registry names.

The smallest complete game (walked through in ``docs/adding-a-game.md``): one table (``tables``),
positions and their text (``position``), kernels in ``solvers/tictactoe/``.
"""
from __future__ import annotations

import numpy as np

from tbdb.errors import InvalidArrayError, InvalidOptionError, quote
from tbdb.games.base import BatchLocation, Game, GameOver, Location, StatRow, Successor, \
    TableData, first_row_outside, require_integers
from tbdb.games.base import BATCH_FORM, OWN_PERFT  # capabilities
from tbdb.games.tictactoe.position import TicTacToePosition
from tbdb.games.tictactoe.tables import TABLE, TicTacToeSpace
from tbdb.solvers.tictactoe import index as index_kernels
from tbdb.solvers.tictactoe import moves as move_kernels
from tbdb.games import notation


class TicTacToeGame(Game):
    name = "tictactoe"
    title = "Tic-tac-toe (the worked example of docs/adding-a-game.md)"
    rules = "docs/rules/tictactoe.md"
    sample = "x...o...."
    storage = "key"
    modes = ("levels",)
    position_type = TicTacToePosition
    example_build: dict = {}
    capabilities = frozenset({BATCH_FORM, OWN_PERFT})

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
        return np.zeros(len(keys), np.int16), index_kernels.orbits(keys)

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
        index_kernels.decode(int(key[0]), board)
        return TicTacToePosition(tuple(int(c) for c in board)).text

    # ------------------------------------------------------------------ positions

    def parse(self, text: str) -> TicTacToePosition:
        return TicTacToePosition.parse(text)

    def recognises(self, text: str) -> bool:
        return isinstance(text, str) and notation.tictactoe(text)

    def diagram(self, position: TicTacToePosition) -> str:
        t = position.text
        return "\n".join(" ".join(t[r * 3:r * 3 + 3]) + f"    {r * 3} {r * 3 + 1} {r * 3 + 2}"
                         for r in range(3))

    def locate(self, position: TicTacToePosition) -> Location | GameOver:
        code, sym = index_kernels.canonical(position.board())
        return Location(TABLE, (int(code), 0, 0), int(sym))

    def move_text(self, position, code: int, sym: int) -> str:
        # the canonical board is the image under sym: cell c there is cell inverse(c) here
        return str(int(index_kernels.SYM[index_kernels.INVERSE[sym], code]))

    def successors(self, position: TicTacToePosition) -> list[Successor]:
        return [Successor(str(cell), position.push(cell)) for cell in position.legal_moves()]

    def images(self, position: TicTacToePosition) -> list[TicTacToePosition]:
        out = [position]
        for s in range(1, 8):
            cells = [0] * 9
            for i, c in enumerate(position.cells):
                cells[index_kernels.SYM[s, i]] = c
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
        require_integers(boards=boards)
        bad = first_row_outside(boards, 0, 2)
        if bad is not None:
            raise InvalidArrayError(f"row {bad}: cells are 0 (empty), 1 (x) or 2 (o), got "
                                    f"{quote(boards[bad].tolist())}")
        for r, row in enumerate(boards.tolist()):
            problem = TicTacToePosition(tuple(row)).impossible()
            if problem:
                raise InvalidArrayError(f"row {r}: {problem}")
        n = len(boards)
        keys = np.zeros((n, 3), np.int64)
        sym = np.empty(n, np.int8)
        index_kernels.canonical_many(np.ascontiguousarray(boards, np.int8), keys, sym)
        return BatchLocation([TABLE], np.zeros(n, np.int32), keys, sym, np.zeros(n, np.int8))

    def batch_moves(self, codes: np.ndarray, sym: np.ndarray) -> np.ndarray:
        inverse = index_kernels.SYM[index_kernels.INVERSE[sym.astype(np.int64)]]  # [n, 9]
        safe = np.where(codes >= 0, codes, 0)
        return np.where(codes >= 0, inverse[np.arange(len(codes)), safe], -1).astype(np.int32)

    def start(self) -> TicTacToePosition:
        return TicTacToePosition((0,) * 9)

    def perft(self, position: TicTacToePosition, depth: int) -> int:
        return int(move_kernels.perft(position.board(), depth))
