"""Chinese Checkers: positions and moves with their text forms, on the rhombus and the star.

**Cells** are numbered row by row from the top tip, left to right, from 0 (see
``solvers.chinese_checkers.geometry``).

**Rhombus position text** (two players, ``p`` pieces a side on the ``m x m`` rhombus): the
table name ``{m}x{m}-{p}``, a space, the rows from the top tip separated by ``/`` (``.`` empty,
``1`` a piece of the first player, who starts at the top, ``2`` one of the second player), a
space and the player to move (``1`` or ``2``)::

    4x4-1 1/../.../..../.../../2 1

**Star position text** (2, 3, 4 or 6 players, 10 pieces each): ``star-{players}``, the 17 rows
of the star the same way (``1`` .. ``6`` the players in turn order), and the player to move::

    star-2 1/11/111/1111/........./.../2222/222/22/2 1     (rows shortened here)

Players sit on the star's points (numbered clockwise from the top: 0 top, 1 upper right,
2 lower right, 3 bottom, 4 lower left, 5 upper left): 2 players on 0 and 3, 3 players on 0, 2
and 4, 4 players on 0, 1, 3 and 4, 6 players on all; they move in that order and each heads
for the opposite point.

**Move text**: the cells the piece visits, joined by ``-``: ``12-17`` is a step, ``3-12-23`` a
chain of two hops.  Two chains that end on the same cell are one move; the text a move prints
is its shortest chain, and of those the one whose cell list is smallest.  ``parse`` accepts any
valid chain.
"""
from __future__ import annotations

import operator
import re
import threading
from collections import deque
from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np

from tbdb.errors import InvalidMoveError, InvalidOptionError, InvalidPositionError, quote
from tbdb.solvers.chinese_checkers import moves as moves_kernels
from tbdb.solvers.chinese_checkers.geometry import (BOARD_SIZES, PIECE_COUNTS, rhombus,
                                                    star)

Cell = int
STAR_SEATS = {2: (0, 3), 3: (0, 2, 4), 4: (0, 1, 3, 4), 6: (0, 1, 2, 3, 4, 5)}
STAR_PIECES = 10
_MOVE = re.compile(r"[0-9]+(-[0-9]+)+")
_RHOMBUS_HEAD = re.compile(r"([1-9][0-9]*)x([1-9][0-9]*)-([1-9][0-9]*)")  # no leading 0s
_STAR_HEAD = re.compile(r"star-([1-9][0-9]*)")


@dataclass(frozen=True)
class Move:
    """The cells a piece visits, in order: two adjacent cells for a step, or a hop chain."""
    path: tuple[Cell, ...]

    @classmethod
    def parse(cls, text: str) -> Move:
        if not isinstance(text, str) or not _MOVE.fullmatch(text):
            raise InvalidMoveError(f"malformed Chinese Checkers move {quote(text)}: expected the "
                                   f"cells visited joined by '-', such as '12-17' or '3-12-23'")
        path = tuple(int(c) for c in text.split("-"))
        if len(set(path)) != len(path):
            raise InvalidMoveError(f"move {quote(text)} visits a cell twice")
        return cls(path)

    @property
    def from_cell(self) -> Cell:
        return self.path[0]

    @property
    def to_cell(self) -> Cell:
        return self.path[-1]

    def __str__(self) -> str:
        return "-".join(map(str, self.path))


# ------------------------------------------------------------------------------ shared rules

def _hop_targets(cells, nbr, u):
    """(over, landing) of every hop from u: over an occupied cell onto the empty one behind."""
    for d in range(6):
        w = nbr[u][d]
        if w >= 0 and cells[w]:
            v = nbr[w][d]
            if v >= 0 and not cells[v]:
                yield w, v


def _shortest_chain(cells: list[int], nbr, s: Cell, t: Cell) -> tuple[Cell, ...]:
    """The printed path of move s -> t: the step, or the shortest hop chain, smallest cell list
    first.  ``cells`` has the moving piece lifted (``cells[s] == 0``)."""
    if t in nbr[s]:
        return (s, t)
    dist = {t: 0}
    queue = deque([t])
    while queue:  # hops are reversible: distances to t from every cell of t's hop component
        u = queue.popleft()
        for _, v in _hop_targets(cells, nbr, u):
            if v not in dist:
                dist[v] = dist[u] + 1
                queue.append(v)
    if s not in dist:  # (a damaged table's best move: no chain leads there)
        raise ValueError(f"no step or chain of hops leads from cell {s} to cell {t}")
    path = [s]
    while path[-1] != t:
        here = dist[path[-1]]
        path.append(min(v for _, v in _hop_targets(cells, nbr, path[-1])
                        if dist.get(v) == here - 1))
    return tuple(path)


def _check_path(cells: list[int], nbr, path: tuple[Cell, ...]) -> str | None:
    """What is wrong with a move's path on a board with the moving piece lifted, or None."""
    if len(path) == 2 and path[1] in nbr[path[0]]:
        return None if not cells[path[1]] else f"cell {path[1]} is not empty"
    for u, v in zip(path, path[1:]):
        if v not in [land for _, land in _hop_targets(cells, nbr, u)]:
            return f"{u}-{v} is neither a step nor a hop over a piece onto an empty cell"
    return None




_ROW_TEXT = bytes.maketrans(bytes(range(8)), b".123456/")  # 7: the '/' between rows
_JOINERS: dict[int, tuple] = {}  # id(rows) -> (rows, picks the cells and the 7s in order)


def rows_text(cells, rows) -> str:
    """The rows joined by '/' (a single lookup prints its position: one C-level pick of the
    cells with a 7 between rows, then one translate, twice as fast as joining row slices)."""
    entry = _JOINERS.get(id(rows))
    if entry is None or entry[0] is not rows:
        sep = max(max(row) for row in rows) + 1  # cells + (7,): the separator's index
        picks: list[int] = []
        for row in rows:
            if picks:
                picks.append(sep)
            picks.extend(row)
        entry = _JOINERS[id(rows)] = (rows, operator.itemgetter(*picks), sep)
    _, pick, sep = entry
    if len(cells) != sep:
        raise ValueError(f"{len(cells)} cells for a board of {sep}")
    return bytes(pick(tuple(cells) + (7,))).translate(_ROW_TEXT).decode("ascii")


_CELL_CODES = bytes.maketrans(b".123456", bytes(range(7)))  # a cell's symbol -> its code


def parse_rows(text: str, body: str, rows, players: int, what: str) -> list[int]:
    parts = body.split("/")
    if len(parts) != len(rows):
        raise InvalidPositionError(f"malformed {what} position {quote(text)}: {len(parts)} rows, "
                                   f"expected {len(rows)}")
    symbols = "." + "123456"[:players]
    for part, row in zip(parts, rows):
        if len(part) != len(row):
            raise InvalidPositionError(f"malformed {what} position {quote(text)}: row "
                                       f"{quote(part)} has "
                                       f"{len(part)} cells, expected {len(row)}")
    cells = "".join(parts)
    unknown = set(cells).difference(symbols)
    if unknown:
        ch = next(c for c in cells if c in unknown)
        raise InvalidPositionError(f"malformed {what} position {quote(text)}: unknown cell "
                                   f"{quote(ch)} (expected one of {symbols!r})")
    # every cell is one of the ASCII symbols now: translate them all at C speed
    return list(cells.encode("ascii").translate(_CELL_CODES))


def moves_of(cells, nbr_array, player) -> list[tuple[Cell, Cell]]:
    board = np.array(cells, np.int8)
    n = len(cells)
    out_from = np.empty(n * n, np.int64)
    out_to = np.empty(n * n, np.int64)
    count = moves_kernels.moves_of_board(board, nbr_array, player, out_from, out_to)
    return list(zip(out_from[:count].tolist(), out_to[:count].tolist()))


class Board:
    """Shared by both position kinds: moves as (from, to), their paths, and ``push``."""
    cells: tuple[int, ...]
    mover: int

    def _nbr_lists(self):
        raise NotImplementedError

    def _after(self, s: Cell, t: Cell):
        raise NotImplementedError

    def _move_pairs(self) -> list[tuple[Cell, Cell]]:
        raise NotImplementedError

    def move_of(self, s: Cell, t: Cell) -> Move:
        """The move s -> t with its printed path (the move is not checked)."""
        nbr = self._nbr_lists()
        if t in nbr[s]:  # a step (``_shortest_chain``'s first case, without copying the cells)
            return Move((s, t))
        cells = list(self.cells)
        cells[s] = 0
        return Move(_shortest_chain(cells, nbr, s, t))

    def legal_moves(self) -> list[Move]:
        """Every legal move: pieces by cell, destinations ascending."""
        return [self.move_of(s, t) for s, t in self._move_pairs()]

    def push(self, move: Move | str):
        """The position after a legal move, given as a Move or its text (any valid chain)."""
        if isinstance(move, str):
            move = Move.parse(move)
        s, t = move.from_cell, move.to_cell
        if self.cells[s] != self.mover:
            raise InvalidMoveError(f"move {quote(str(move))}: cell {s} holds no piece of player "
                                   f"{self.mover} in {self.text!r}")
        cells = list(self.cells)
        cells[s] = 0
        problem = _check_path(cells, self._nbr_lists(), move.path)
        if problem is None and (s, t) not in self._move_pairs():
            problem = "the rules forbid it here"
        if problem is not None:
            raise InvalidMoveError(f"move {quote(str(move))} is not legal in {self.text!r}: "
                                   f"{problem}")
        return self._after(s, t)


# ------------------------------------------------------------------------------ the rhombus

@lru_cache(maxsize=None)
def rhombus_rules(m: int, pieces: int):
    geo = rhombus(m)
    nbr = [list(row) for row in geo.nbr.tolist()]
    goals = {1: tuple(geo.goal(pieces).tolist()), 2: tuple(geo.start(pieces).tolist())}
    return geo, nbr, goals


@lru_cache(maxsize=None)
def _picker(goal: tuple[int, ...]):
    """The cells of ``goal`` as a tuple, picked at C speed."""
    pick = operator.itemgetter(*goal)
    return pick if len(goal) > 1 else (lambda cells: (pick(cells),))


def _won(cells, goal, player) -> bool:
    """Is ``goal`` full with at least one of ``player``'s pieces in it?"""
    held = _picker(tuple(goal))(cells)
    return 0 not in held and player in held


def tip_blocked(cells, nbr, player) -> bool:
    """Is ``player``'s goal walled off at its tip (the 6-piece rule): the tip empty (the last
    cell for player 1, heading down; cell 0 for player 2), the other player on the tip's two
    neighbours and on the next cell beyond each along the board's edges?"""
    tip = len(cells) - 1 if player == 1 else 0
    if cells[tip]:
        return False
    other = 3 - player
    for d in range(6):
        a = nbr[tip][d]
        if a < 0:
            continue
        b = nbr[a][d]
        if cells[a] != other or b < 0 or cells[b] != other:
            return False
    return True


_ONE_ROW = np.zeros(1, np.int64)  # the rows argument of a one-board ``locate_rows``
_ONE = threading.local()


def _one_row(cells: int):
    """This thread's arrays for locating one board of ``cells`` cells: (bytes, the board
    int8[1, cells] viewing them, mover, slot, symmetry).  A single lookup made them anew each
    time (np.array of the cell tuple alone was a sizeable share of it)."""
    got = _ONE.__dict__.get(cells)
    if got is None:
        raw = bytearray(cells)
        got = _ONE.__dict__[cells] = (raw, np.frombuffer(raw, np.int8).reshape(1, cells),
                                       np.zeros(1, np.int8), np.zeros(1, np.int64),
                                       np.zeros(1, np.int8))
    return got


@dataclass(frozen=True)
class Position(Board):
    """A two-player rhombus position: board size ``m``, ``pieces`` a side, ``cells`` (0 empty,
    1 first player, 2 second player; row by row from the top tip) and the player to move."""
    m: int
    pieces: int
    cells: tuple[int, ...]
    mover: int

    @classmethod
    def parse(cls, text: str) -> Position:
        if not isinstance(text, str):
            raise InvalidPositionError(f"a Chinese Checkers position is text, not {quote(text)}")
        parts = text.split(" ")
        head = _RHOMBUS_HEAD.fullmatch(parts[0]) if len(parts) == 3 else None
        if head is None or parts[2] not in ("1", "2") or head.group(1) != head.group(2):
            raise InvalidPositionError(
                f"malformed Chinese Checkers position {quote(text)}: expected 'MxM-P', the rows "
                f"from the top tip joined by '/', and the player to move (e.g. "
                f"'3x3-1 1/../.../../2 1')")
        m, pieces = int(head.group(1)), int(head.group(3))
        if m not in BOARD_SIZES or pieces not in PIECE_COUNTS or 2 * pieces > m * m:
            raise InvalidPositionError(f"Chinese Checkers position {quote(text)}: the rhombus is "
                                       f"3x3 "
                                       f"to 9x9 with {PIECE_COUNTS} pieces a side that fit")
        cells = parse_rows(text, parts[1], rhombus(m).rows, 2, "Chinese Checkers")
        for player in (1, 2):
            if cells.count(player) != pieces:
                raise InvalidPositionError(f"Chinese Checkers position {quote(text)}: player "
                                           f"{player} "
                                           f"has {cells.count(player)} pieces, not {pieces}")
        position = cls(m, pieces, tuple(cells), int(parts[2]))
        # what parses is already the canonical text (one space between three fields, no
        # leading zeros, every row its length): kept, not written again for the answer
        position.__dict__["_text"] = text
        return position

    @classmethod
    def start(cls, m: int, pieces: int, mover: int = 1) -> Position:
        """Both players on their start areas."""
        geo, _, goals = rhombus_rules(m, pieces)
        cells = [0] * geo.cells
        for c in goals[2]:
            cells[c] = 1
        for c in goals[1]:
            cells[c] = 2
        return cls(m, pieces, tuple(cells), mover)

    @property
    def text(self) -> str:
        cached = self.__dict__.get("_text")
        if cached is not None:
            return cached
        return (f"{self.table_name} {rows_text(self.cells, rhombus(self.m).rows)} "
                f"{self.mover}")

    def __str__(self) -> str:
        return self.text

    @property
    def table_name(self) -> str:
        return f"{self.m}x{self.m}-{self.pieces}"

    @cached_property
    def status(self) -> str:
        """'illegal' (the mover already meets its win condition; with 6 pieces, a goal whose
        empty tip the other player walls in), 'over' (the other player has just won: lost for
        the mover) or 'playing'.  The checks run in this order."""
        _, nbr, goals = rhombus_rules(self.m, self.pieces)
        other = 3 - self.mover
        if _won(self.cells, goals[self.mover], self.mover):
            return "illegal"
        if self.pieces == 6 and any(tip_blocked(self.cells, nbr, p) for p in (1, 2)):
            return "illegal"
        if _won(self.cells, goals[other], other):
            return "over"
        return "playing"

    def _nbr_lists(self):
        return rhombus_rules(self.m, self.pieces)[1]

    def _after(self, s: Cell, t: Cell) -> Position:
        cells = list(self.cells)
        cells[t], cells[s] = cells[s], 0
        return Position(self.m, self.pieces, tuple(cells), 3 - self.mover)

    @cached_property
    def _pairs(self) -> list[tuple[Cell, Cell]]:
        if self.status != "playing":
            return []
        geo = rhombus(self.m)
        return [(s, t) for s, t in moves_of(self.cells, geo.nbr, self.mover)
                if self._after(s, t).status != "illegal"]

    def _move_pairs(self) -> list[tuple[Cell, Cell]]:
        return self._pairs

    def wins(self, move: Move | str) -> bool:
        """Does this legal move fill the mover's goal (the game ends, won)?"""
        return self.push(move).status == "over"

    # ---------------------------------------------------------------- the table

    def table_key(self) -> tuple[str, int, int]:
        """(table name, slot, symmetry) where this position is stored; symmetry bit 0: the
        second player is to move (stored turned 180 degrees, colours swapped), bit 1:
        stored mirrored."""
        table = _table(self.m, self.pieces)
        raw, board, mover, slots, syms = _one_row(len(self.cells))
        raw[:] = bytes(self.cells)  # board views these bytes
        mover[0] = self.mover
        table.locate_rows(board, mover, _ONE_ROW, slots, syms)
        return table.name, int(slots[0]), int(syms[0])

    def move_from_code(self, code: int, symmetry: int) -> Move:
        """The move of this position that a move code stored on its slot stands for."""
        s, t = _table(self.m, self.pieces).move_cells(code, symmetry)
        return self.move_of(s, t)


@lru_cache(maxsize=8)
def _table(m: int, pieces: int):
    from tbdb.games.chinese_checkers.tables import RhombusTable
    return RhombusTable(m, pieces)


# ------------------------------------------------------------------------------ the star

@lru_cache(maxsize=None)
def _star_rules(players: int):
    geo = star()
    nbr = [list(row) for row in geo.nbr.tolist()]
    seats = STAR_SEATS[players]
    goals = np.array([geo.point_cells((p + 3) % 6) for p in seats], np.int16)
    return geo, nbr, goals


def check_players(players: int) -> None:
    if players not in STAR_SEATS:
        raise InvalidOptionError(f"the star is played by {sorted(STAR_SEATS)} players, not "
                                 f"{quote(players)}")


@dataclass(frozen=True)
class StarPosition(Board):
    """A position on the 121-hole star: ``players`` (2, 3, 4 or 6), ``cells`` (0 empty or the
    player 1..players) and the player to move."""
    players: int
    cells: tuple[int, ...]
    mover: int

    @classmethod
    def start(cls, players: int) -> StarPosition:
        check_players(players)
        geo = star()
        cells = [0] * geo.cells
        for i, point in enumerate(STAR_SEATS[players]):
            for c in geo.point_cells(point):
                cells[c] = i + 1
        return cls(players, tuple(cells), 1)

    @classmethod
    def parse(cls, text: str) -> StarPosition:
        if not isinstance(text, str):
            raise InvalidPositionError(f"a Chinese Checkers star position is text, not "
                                       f"{quote(text)}")
        parts = text.split(" ")
        head = _STAR_HEAD.fullmatch(parts[0]) if len(parts) == 3 else None
        if head is None or not re.fullmatch(r"[1-6]", parts[2]):
            raise InvalidPositionError(
                f"malformed Chinese Checkers star position {quote(text)}: expected 'star-N', the "
                f"17 "
                f"rows from the top tip joined by '/', and the player to move")
        players = int(head.group(1))
        if players not in STAR_SEATS:
            raise InvalidPositionError(f"star position {quote(text)}: the star is played by "
                                       f"{sorted(STAR_SEATS)} players")
        mover = int(parts[2])
        if not 1 <= mover <= players:
            raise InvalidPositionError(f"star position {quote(text)}: no player {mover} among "
                                       f"{players}")
        cells = parse_rows(text, parts[1], star().rows, players, "Chinese Checkers star")
        for p in range(1, players + 1):
            if cells.count(p) != STAR_PIECES:
                raise InvalidPositionError(f"star position {quote(text)}: player {p} has "
                                           f"{cells.count(p)} pieces, not {STAR_PIECES}")
        return cls(players, tuple(cells), mover)

    @property
    def text(self) -> str:
        return f"star-{self.players} {rows_text(self.cells, star().rows)} {self.mover}"

    def __str__(self) -> str:
        return self.text

    @cached_property
    def winner(self) -> int | None:
        """The player who has filled its goal point (with at least one own piece), if any."""
        _, _, goals = _star_rules(self.players)
        for p in range(1, self.players + 1):
            if _won(self.cells, goals[p - 1].tolist(), p):
                return p
        return None

    def _nbr_lists(self):
        return _star_rules(self.players)[1]

    def _after(self, s: Cell, t: Cell) -> StarPosition:
        cells = list(self.cells)
        cells[t], cells[s] = cells[s], 0
        return StarPosition(self.players, tuple(cells), self.mover % self.players + 1)

    @cached_property
    def _pairs(self) -> list[tuple[Cell, Cell]]:
        if self.winner is not None:
            return []
        return moves_of(self.cells, star().nbr, self.mover)

    def _move_pairs(self) -> list[tuple[Cell, Cell]]:
        return self._pairs

    def perft(self, depth: int) -> int:
        """Leaf positions ``depth`` moves below this one (a won position has no moves)."""
        return perft_divide(self, depth)[0]


def perft_divide(position: StarPosition, depth: int) -> tuple[int, dict[str, int]]:
    """(total, leaves below each first move) by the parallel kernel."""
    if not isinstance(depth, int) or depth < 0:
        raise InvalidOptionError(f"perft depth must be a non-negative integer, not {depth!r}")
    if position.winner is not None:
        return (1 if depth == 0 else 0), {}
    geo, _, goals = _star_rules(position.players)
    max_moves = STAR_PIECES * geo.cells
    total, counts, first = moves_kernels.perft(np.array(position.cells, np.int8), geo.nbr,
                                                goals, position.players, position.mover - 1,
                                                depth, max_moves)
    divide = {str(position.move_of(int(s), int(t))): int(c)
              for (s, t), c in zip(first.tolist(), counts.tolist())}
    return int(total), divide
