"""A lone player on the star: its placement (with the goal it heads for) as a position, and the
stored form of the single-agent distance tables (``DistanceTable`` in
``chinese_checkers.tables``).

**Placement text**: the distance table's name ``star-distance-{k}`` (k pieces), a space, the 17
rows of the star from the top tip joined by ``/`` (``1`` a piece, ``.`` empty; the same rows as
a star position), a space, and the goal point the player heads for (0 top, then clockwise: 1
upper right, 2 lower right, 3 bottom, 4 lower left, 5 upper left).  One piece on the top tip,
heading for the bottom point::

    star-distance-1 1/../.../..../............./............/.........../........../.........
    /........../.........../............/............./..../.../../. 3

(one line, without the break).  Its value is the fewest moves (steps or hop chains over its
own pieces) that bring every piece into the goal point: 0 when they are all there already.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np

from tbdb.retrograde.driver import IndexValues
from tbdb.errors import InvalidPositionError, MissingTableError, quote
from tbdb.games.chinese_checkers.position import (STAR_PIECES, Board, moves_of, parse_rows,
                                                  rows_text)
from tbdb.games.chinese_checkers.tables import (DISTANCE_PIECES, DistanceTable,
                                                distance_table_name)
from tbdb.solvers.chinese_checkers.geometry import star
from tbdb.solvers.retrograde import WIN
from tbdb.games import notation

PREFIX = notation.STAR_DISTANCE
_HEAD = re.compile(r"star-distance-([1-9][0-9]*)")
MOVE_RADIX = 128  # a move code: from * MOVE_RADIX + to (cells of the placement itself)


@lru_cache(maxsize=None)
def _star_nbr() -> list[list[int]]:
    return [list(row) for row in star().nbr.tolist()]


@lru_cache(maxsize=len(DISTANCE_PIECES))
def distance_table(pieces: int) -> DistanceTable:
    return DistanceTable(pieces)


@dataclass(frozen=True)
class Placement(Board):
    """One player alone on the star: ``cells`` (121 entries, 1 where a piece stands) and the
    star point ``goal`` (0..5) it heads for."""
    cells: tuple[int, ...]
    goal: int

    mover = 1  # the lone player moves every turn

    @classmethod
    def parse(cls, text: str) -> Placement:
        if not isinstance(text, str):
            raise InvalidPositionError(f"a star placement is text, not {quote(text)}")
        parts = text.split(" ")
        head = _HEAD.fullmatch(parts[0]) if len(parts) == 3 else None
        if head is None or parts[2] not in ("0", "1", "2", "3", "4", "5"):
            raise InvalidPositionError(
                f"malformed star placement {quote(text)}: expected 'star-distance-K', the 17 rows "
                f"of the star from the top tip joined by '/' ('1' a piece, '.' empty) and the "
                f"goal point 0..5 (0 top, clockwise; 3 bottom)")
        pieces = int(head.group(1))
        cells = parse_rows(text, parts[1], star().rows, 1, "star placement")
        if not 1 <= pieces <= STAR_PIECES or cells.count(1) != pieces:
            raise InvalidPositionError(f"star placement {quote(text)}: {cells.count(1)} pieces on "
                                       f"the board, but the head says {pieces} (1 to "
                                       f"{STAR_PIECES})")
        return cls(tuple(cells), int(parts[2]))

    @classmethod
    def of_cells(cls, cells, goal: int = 3) -> Placement:
        """The placement of pieces on ``cells`` (cell numbers, any order) heading for ``goal``."""
        board = [0] * star().cells
        for c in cells:
            board[int(c)] = 1
        if sum(board) != len(cells) or not 0 <= goal < 6:
            raise InvalidPositionError(f"a placement is distinct star cells and a goal 0..5, "
                                       f"not {list(cells)!r} and {goal!r}")
        return cls(tuple(board), goal)

    @property
    def text(self) -> str:
        return f"{self.table_name} {rows_text(self.cells, star().rows)} {self.goal}"

    def __str__(self) -> str:
        return self.text

    @cached_property
    def pieces(self) -> list[int]:
        return [i for i, v in enumerate(self.cells) if v]

    @property
    def table_name(self) -> str:
        return distance_table_name(len(self.pieces))

    def table_key(self) -> tuple[str, int]:
        """(table name, index) where the distance of this placement is stored: the board is
        turned so that the goal is the bottom point."""
        k = len(self.pieces)
        if k not in DISTANCE_PIECES:
            raise MissingTableError(f"star placement {self.text!r}: distance tables hold 1 to "
                                    f"{DISTANCE_PIECES[-1]} pieces, not {k}")
        return self.table_name, distance_table(k).rank(self.pieces, self.goal)

    def _nbr_lists(self):
        return _star_nbr()

    def _after(self, s: int, t: int) -> Placement:
        cells = list(self.cells)
        cells[t], cells[s] = 1, 0
        return Placement(tuple(cells), self.goal)

    @cached_property
    def _pairs(self) -> list[tuple[int, int]]:
        return moves_of(self.cells, star().nbr, 1)

    def _move_pairs(self) -> list[tuple[int, int]]:
        return self._pairs


class DistanceValues:
    """A distance table (uint8 per placement) in the shape the store writes index tables in
    (``IndexValues``): every placement is a row with result WIN (the player gets
    there), its distance in moves, no stored best move and multiplicity 1.  The constant
    columns are broadcast views, so writing costs no more than the uint8 array itself."""

    def __init__(self, moves: np.ndarray, mode: str = "bfs"):
        n = len(moves)
        self.moves = moves
        self.result = np.broadcast_to(np.int8(WIN), (n,))
        self.distance = _Widened(moves, np.int16)
        self.best = np.broadcast_to(np.int32(-1), (n,))
        self.multiplicity = np.broadcast_to(np.int16(1), (n,))
        self.mode = mode

    @property
    def size(self) -> int:
        return len(self.moves)

    # the store writes tables by chunks: the slices of these columns, as whole arrays give them
    chunks = IndexValues.chunks


class _Widened:
    """An array read through a wider dtype, a slice at a time (the store's batches)."""

    def __init__(self, array: np.ndarray, dtype):
        self.array = array
        self.dtype = np.dtype(dtype)

    def __len__(self) -> int:
        return len(self.array)

    def __getitem__(self, index) -> np.ndarray:
        return self.array[index].astype(self.dtype)
