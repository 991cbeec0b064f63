"""Chinese Checkers tables for the retrograde driver: the rhombus index (``RhombusTable``, an
``IndexSpace`` of ``docs/kernel-contract.md``) and the single-agent distance tables of the star.

Table names: ``{m}x{m}-{p}`` for the rhombus (``7x7-3``: 7 x 7 board, 3 pieces a side) and
``star-distance-{k}`` for the distance table of k pieces.  No table depends on another.
"""
from __future__ import annotations

import re
from functools import cached_property, lru_cache
from math import comb

import numpy as np

from tbdb.errors import InvalidOptionError, quote
from tbdb.solvers.retrograde import NO_EXT
from tbdb.solvers.chinese_checkers import index as kernels
from tbdb.solvers.chinese_checkers import tables as space_kernels
from tbdb.solvers.chinese_checkers.geometry import (BOARD_SIZES, PIECE_COUNTS, binomials,
                                                    rhombus, sublattice_max)

_NAME = re.compile(r"(\d+)x(\d+)-(\d+)")
# what one slot costs while the driver solves in edge-free mode (result 1, distance 2, counter 1,
# external win 2, multiplicity 2) and after (result, distance, multiplicity, best move 4)
SOLVE_BYTES_PER_SLOT = 8
STORED_BYTES_PER_SLOT = 9


def table_name(board: int, pieces: int) -> str:
    return f"{board}x{board}-{pieces}"


def parse_table_name(name: str) -> tuple[int, int]:
    """(board, pieces) of a rhombus table name such as ``7x7-3``."""
    match = _NAME.fullmatch(name) if isinstance(name, str) else None
    if not match or match.group(1) != match.group(2):
        raise InvalidOptionError(f"not a Chinese Checkers table name: {quote(name)} (expected "
                                 f"'MxM-P' such as '7x7-3')")
    board, pieces = int(match.group(1)), int(match.group(3))
    try:
        check_board(board, pieces)
    except InvalidOptionError as err:
        raise InvalidOptionError(f"no Chinese Checkers table {quote(name)}: {err}") from None
    return board, pieces


def check_board(board: int, pieces: int) -> None:
    if board not in BOARD_SIZES:
        raise InvalidOptionError(f"the rhombus is 3x3 to 9x9, not {quote(board)}")
    if pieces not in PIECE_COUNTS:
        raise InvalidOptionError(f"pieces a side must be one of {PIECE_COUNTS}, not {pieces!r}")
    if 2 * pieces > board * board:
        raise InvalidOptionError(f"{pieces} pieces a side do not fit on a {board}x{board} board")


def raw_positions(board: int, pieces: int) -> int:
    """Positions before symmetry: side to move x first player's set x second player's set."""
    n = board * board
    return 2 * comb(n, pieces) * comb(n - pieces, pieces)


@lru_cache(maxsize=None)  # every lookup checks its table is buildable: a few us of numpy
def slots(board: int, pieces: int) -> int:
    """Slots of the table (without building it): mirror classes of the mover's set x the
    opponent's sets."""
    n = board * board
    geo = rhombus(board)
    start = geo.start(pieces)
    if set(geo.mirror[start].tolist()) != set(start.tolist()):
        return comb(n, pieces) * comb(n - pieces, pieces)
    # subsets fixed by the mirror: pairs of mirror cells plus cells on the mirror axis
    axis = int(np.sum(geo.mirror == np.arange(n)))
    pairs = (n - axis) // 2
    fixed = sum(comb(pairs, j) * comb(axis, pieces - 2 * j) for j in range(pieces // 2 + 1))
    return (comb(n, pieces) + fixed) // 2 * comb(n - pieces, pieces)


def solve_bytes(board: int, pieces: int) -> int:
    """Bytes the retrograde driver's edge-free solve needs for the table's per-slot arrays."""
    return slots(board, pieces) * STORED_BYTES_PER_SLOT


class RhombusTable:
    """The two-player game on the ``board`` x ``board`` rhombus with ``pieces`` a side, as an
    index table (layout in ``solvers.chinese_checkers.index``).  Slots are positions in the mover's
    frame, one per orbit of the two symmetries; ``census`` gives each slot's multiplicity."""

    parents_distinct = True  # _parents drops the repeats of its few symmetric rows itself
    # a compact solve's output, bytes a slot: the game tallies and writes its values chunk by
    # chunk (``CompactValues.chunks``), so only the state word (1-2 bytes), the multiplicity
    # and the counters (won positions' best moves: ``move_bytes``) are held
    compact_output_bytes = 4

    def __init__(self, board: int, pieces: int):
        check_board(board, pieces)
        self.board = board
        self.pieces = pieces
        self.name = table_name(board, pieces)
        self._held: dict[str, list[np.ndarray]] = {}  # batch buffers, see _buffers
        geo = rhombus(board)
        self.geometry = geo
        n = geo.cells
        self.cells = n
        k = pieces
        self.binom = binomials(n, k)
        self.comb_a = kernels.combinations(n, k, self.binom)
        self.comb_b = kernels.combinations(n - k, k, self.binom)
        self.goal = geo.goal(k)
        self.start = geo.start(k)
        # the mirror is a symmetry of the game only when it maps the start area onto itself
        # (not for 2 pieces: {0, 1} mirrors to {0, 2}); otherwise the identity stands in for it
        self.mirror_symmetric = set(geo.mirror[self.start].tolist()) == set(self.start.tolist())
        self.mirror = geo.mirror if self.mirror_symmetric else np.arange(n, dtype=np.int16)
        self.mirror_rank = kernels.mirror_ranks(self.comb_a, self.mirror, self.binom)
        ranks = np.arange(len(self.comb_a), dtype=np.int32)
        canonical = ranks <= self.mirror_rank
        self.class_rep = ranks[canonical]
        self.class_of = np.full(len(ranks), -1, np.int32)
        self.class_of[canonical] = np.arange(len(self.class_rep), dtype=np.int32)
        self.block = len(self.comb_b)
        self.size = len(self.class_rep) * self.block
        self.in_goal = np.zeros(n, np.int8)
        self.in_goal[self.goal] = 1
        self.in_start = np.zeros(n, np.int8)
        self.in_start[self.start] = 1
        self.blocking_rule = k == 6
        self.desc = np.array([n, k, self.block, int(self.blocking_rule)], np.int64)
        # a piece reaches at most 6 cells by a step and the rest of its hop class by hops
        per_piece = min(n - 2 * k, 5 + sublattice_max(geo.nbr, geo.coords))
        self.max_children = k * per_piece
        self.max_parents = k * per_piece
        self.raw_positions = raw_positions(board, pieces)

    def __repr__(self) -> str:
        return f"RhombusTable({self.board}, {self.pieces})"

    @property
    def _rules(self):
        return (self.desc, self.geometry.nbr, self.mirror, self.in_goal, self.in_start,
                self.goal, self.start, self.binom, self.comb_a, self.comb_b, self.class_rep)

    @cached_property
    def _no_rows(self):
        """Stand-ins for the ``children`` kernel's outputs a call does not fill: count, the
        four [n, W] arrays of the full listing (one row; their width bounds a position's
        moves) and win_move (one entry)."""
        w = self.max_children
        return (np.empty(1, np.int16), np.empty((1, w), np.int64), np.empty((1, w), np.int32),
                np.empty((1, w), np.int8), np.empty((1, w), np.int16), np.empty(1, np.int32))

    @cached_property
    def _no_pick(self):
        """Stand-ins for the PICK arguments (state, top, lo, best) of the other modes."""
        return np.zeros(1, np.uint8), 255, 0, np.empty(1, np.int32)

    # ------------------------------------------------------------------ the kernel contract

    def census(self, lo: int, hi: int) -> tuple[np.ndarray, np.ndarray]:
        return space_kernels.census(*self._rules, self.mirror_rank, lo, hi)

    # children() and parents() return views of buffers kept between calls: valid until the
    # next call of the same method.  A fresh 100 MB batch a call cost page faults on every
    # call (numpy maps arrays this large anew each time), a large share of a parents pass.
    def _buffers(self, what: str, k: int, layout) -> list[np.ndarray]:
        held = self._held.get(what)
        if held is None or len(held[0]) < k:
            held = [np.empty(k if w == 0 else (k, w), dtype) for w, dtype in layout]
            self._held[what] = held
        return [a[:k] for a in held]

    def release(self) -> None:
        """Drop the batch buffers (the driver calls this when a solve or a check ends)."""
        self._held.clear()

    def children(self, positions: np.ndarray) -> tuple[np.ndarray, ...]:
        positions = np.ascontiguousarray(positions, np.int64)
        w = self.max_children
        count, child, move, ext_result, ext_distance = self._buffers(
            "children", len(positions),
            [(0, np.int16), (w, np.int64), (w, np.int32), (w, np.int8), (w, np.int16)])
        space_kernels.children(*self._rules, self.class_of, self.mirror_rank, positions, count,
                               child, move, ext_result, ext_distance, space_kernels.FULL,
                               self._no_rows[5], *self._no_pick)
        return count, child, move, ext_result, ext_distance

    def pick_best(self, positions: np.ndarray, lo: int, state: np.ndarray, top: int,
                  out: np.ndarray) -> None:
        """out[p - lo] = the best move of each position p (its first move, in ``children``'s
        order, realising its value), every value read from a finished compact solve's state
        words (largest value ``top``).  A compact write's best-move pass (docs/kernel-contract.md):
        moves are generated until the best one, no rows are listed."""
        positions = np.ascontiguousarray(positions, np.int64)
        count, child, move, ext_result, ext_distance, win_move = self._no_rows
        space_kernels.children(*self._rules, self.class_of, self.mirror_rank, positions, count,
                               child, move, ext_result, ext_distance, space_kernels.PICK,
                               win_move, state, top, lo, out)

    def summaries(self, positions: np.ndarray) -> tuple[np.ndarray, ...]:
        """What the edge-free solve needs of each position's children, without ranking them
        (docs/kernel-contract.md): distinct in-table children, the first winning move (an
        external child lost at distance 0); nothing external is won or drawn here."""
        positions = np.ascontiguousarray(positions, np.int64)
        distinct, ext_loss, win_move, ext_win, ext_win_move, ext_draw = self._buffers(
            "summaries", len(positions),
            [(0, np.int16), (0, np.int16), (0, np.int32), (0, np.int16), (0, np.int32),
             (0, np.int8)])
        space_kernels.children(*self._rules, self.class_of, self.mirror_rank, positions, distinct,
                               *self._no_rows[1:5], space_kernels.SUMMARY, win_move,
                               *self._no_pick)
        np.copyto(ext_loss, np.where(win_move >= 0, 0, NO_EXT).astype(np.int16))
        ext_win.fill(-1)
        ext_win_move.fill(-1)
        ext_draw.fill(0)
        return distinct, ext_loss, win_move, ext_win, ext_win_move, ext_draw

    def parents(self, positions: np.ndarray, as_bytes: bool = False
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(count, parent, code) rows; with ``as_bytes`` each move as its byte (``move_bytes``)
        instead of its code."""
        positions = np.ascontiguousarray(positions, np.int64)
        w = self.max_parents
        count, parent, code = self._buffers("parents", len(positions),
                                            [(0, np.int32), (w, np.int64), (w, np.int32)])
        space_kernels.parents(*self._rules, self.class_of, self.mirror_rank, positions, count,
                              parent, code, as_bytes)
        return count, parent, code

    @property
    def move_bytes(self) -> int:
        """How many values a move's byte takes (``i * cells + to``: the position's i-th piece,
        its cells ascending, moved to ``to``); 0 where they would reach 255, which a compact
        solve's counter keeps for "no move" (docs/kernel-contract.md, "Move bytes")."""
        n = self.pieces * self.cells
        return n if n < 255 else 0

    def moves_of_bytes(self, positions: np.ndarray, codes: np.ndarray) -> np.ndarray:
        """The move codes (``from * 128 + to``) of the move bytes ``codes`` of ``positions``."""
        out = np.empty(len(positions), np.int32)
        space_kernels.moves_of_bytes(self._rules[0], self.class_rep, self.comb_a, self.comb_b,
                                     np.ascontiguousarray(positions, np.int64),
                                     np.ascontiguousarray(codes), out)
        return out

    # ------------------------------------------------------------------ positions <-> slots

    def locate(self, boards: np.ndarray, movers: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(slot int64[n], symmetry int8[n]) of boards int8[n, N] (0 empty, 1 first player,
        2 second player) with movers int8[n] (1 or 2).  Symmetry bit 0: the second player is
        to move (the stored frame is turned 180 degrees, colours swapped); bit 1: mirrored."""
        boards = np.ascontiguousarray(boards, np.int8)
        movers = np.ascontiguousarray(movers, np.int8)
        slots = np.empty(len(boards), np.int64)
        syms = np.empty(len(boards), np.int8)
        self.locate_rows(boards, movers, np.arange(len(boards)), slots, syms)
        return slots, syms

    def locate_rows(self, boards: np.ndarray, movers: np.ndarray, rows: np.ndarray,
                    slots: np.ndarray, syms: np.ndarray) -> None:
        """``locate`` of the rows ``rows`` names (int8 C-ordered arrays, trusted), written at
        those rows of ``slots`` and ``syms``: a batch of several tables needs no copies."""
        kernel = kernels.locate if len(rows) > 4096 else kernels.locate_few
        kernel(boards, movers, rows, self.pieces, self.block, self.mirror, self.binom,
               self.comb_a, self.class_of, self.mirror_rank, slots, syms)

    def boards(self, slots: np.ndarray) -> np.ndarray:
        """int8[n, N] boards of slots in the stored frame: 1 the mover, 2 the opponent."""
        return kernels.boards_of(np.ascontiguousarray(slots, np.int64), self.cells,
                                  self.pieces, self.block, self.class_rep, self.comb_a,
                                  self.comb_b)

    def cell_map(self, symmetry: int) -> np.ndarray:
        """int16[N]: the original position's cell of each stored-frame cell (the symmetries
        are involutions and commute, so the same map also goes the other way)."""
        cells = np.arange(self.cells, dtype=np.int16)
        if symmetry & 2:
            cells = self.mirror[cells]
        if symmetry & 1:
            cells = (self.cells - 1 - cells).astype(np.int16)
        return cells

    @cached_property
    def _cell_maps(self) -> tuple[tuple[int, ...], ...]:
        """``cell_map`` of each symmetry as a tuple: a single lookup maps its best move with
        two indexings instead of building the map in numpy each time."""
        return tuple(tuple(self.cell_map(s).tolist()) for s in range(4))

    def move_cells(self, code: int, symmetry: int) -> tuple[int, int]:
        """(from, to) in the original position of a move code stored on its canonical slot."""
        image = self._cell_maps[symmetry & 3]
        radix = space_kernels.MOVE_RADIX
        return image[code // radix], image[code % radix]

    @cached_property
    def symmetric_slots(self) -> int:
        """Slots of positions that are their own mirror image (multiplicity 2)."""
        total = 0
        for lo in range(0, self.size, 1 << 22):
            kind, mult = self.census(lo, min(self.size, lo + (1 << 22)))
            total += int(np.count_nonzero(mult == 2))
        return total


# ------------------------------------------------------------------------------ distance tables

DISTANCE_PIECES = (1, 2, 3, 4, 5)
GOAL_POINT = 3  # the tables are built for the bottom point; other goals turn the board first
_DISTANCE_NAME = re.compile(r"star-distance-(\d+)")


def distance_table_name(pieces: int) -> str:
    return f"star-distance-{pieces}"


def parse_distance_table_name(name: str) -> int:
    match = _DISTANCE_NAME.fullmatch(name) if isinstance(name, str) else None
    if not match or int(match.group(1)) not in DISTANCE_PIECES:
        raise InvalidOptionError(f"not a Chinese Checkers distance table: {quote(name)} (expected "
                                 f"'star-distance-K' with K from 1 to {DISTANCE_PIECES[-1]})")
    return int(match.group(1))


class DistanceTable:
    """One player alone on the star with ``pieces`` pieces: the fewest moves to bring them all
    into its goal point, for every placement.  ``build()`` returns uint8[C(121, pieces)] indexed
    by ``rank`` (layout in ``solvers.chinese_checkers.distance``)."""

    def __init__(self, pieces: int):
        if pieces not in DISTANCE_PIECES:
            raise InvalidOptionError(f"distance tables hold 1 to {DISTANCE_PIECES[-1]} pieces, "
                                     f"not {pieces!r}")
        from tbdb.solvers.chinese_checkers.geometry import STAR_CELLS, star
        self.pieces = pieces
        self.name = distance_table_name(pieces)
        self.geometry = star()
        self.size = comb(STAR_CELLS, pieces)
        self.binom = binomials(STAR_CELLS, pieces)

    def build(self, progress=None) -> np.ndarray:
        """The table by breadth-first search; ``progress(stage, done, total)`` hears of every
        level (done: placements reached so far)."""
        from tbdb.solvers.chinese_checkers import distance as bfs
        dist = np.empty(self.size, np.uint8)
        goal = self.geometry.point_cells(GOAL_POINT)
        bfs.seed(dist, self.pieces, goal, self.binom)
        reached = comb(len(goal), self.pieces)
        level = 0
        while True:
            found = bfs.expand(dist, level, self.pieces, self.geometry.nbr, self.binom)
            if not found:
                break
            level += 1
            reached += int(found)  # an overcount when two threads set one entry together
            if progress:
                progress(f"level {level}", min(reached, self.size), self.size)
        if level >= int(bfs.UNSEEN) or np.any(dist == bfs.UNSEEN):
            raise RuntimeError(f"{self.name}: some placement was never reached")
        return dist

    def check(self, dist: np.ndarray) -> np.ndarray:
        """uint8[n] problems of a stored table (``solvers.chinese_checkers.distance.check``:
        0 none)."""
        from tbdb.solvers.chinese_checkers import distance as bfs
        in_goal = np.zeros(self.geometry.cells, np.int8)
        in_goal[self.geometry.point_cells(GOAL_POINT)] = 1
        return bfs.check(np.ascontiguousarray(dist, np.uint8), self.pieces,
                          self.geometry.nbr, self.binom, in_goal)

    def cells(self, rank: int) -> list[int]:
        """The cells (ascending) of the placement at ``rank``, for the bottom goal."""
        if not 0 <= rank < self.size:
            raise InvalidOptionError(f"{self.name} has ranks 0 to {self.size - 1}, not "
                                     f"{quote(rank)}")
        out = []
        for i in range(self.pieces, 0, -1):
            c = i - 1
            while comb(c + 1, i) <= rank:
                c += 1
            out.append(c)
            rank -= comb(c, i)
        return out[::-1]

    def rank(self, cells, goal_point: int = GOAL_POINT) -> int:
        """Index of a placement (its cells, any order) whose goal is the star point
        ``goal_point`` (0 top, clockwise to 5): the board is turned so that the goal is the
        bottom point, then the cells are ranked."""
        cells = [int(c) for c in cells]
        if len(cells) != self.pieces or len(set(cells)) != self.pieces or \
                not all(0 <= c < self.geometry.cells for c in cells):
            raise InvalidOptionError(f"a placement of {self.pieces} distinct star cells, not "
                                     f"{quote(cells)}")
        rotate = self.geometry.rotate
        for _ in range((GOAL_POINT - goal_point) % 6):
            cells = [int(rotate[c]) for c in cells]
        return sum(comb(c, i + 1) for i, c in enumerate(sorted(cells)))
