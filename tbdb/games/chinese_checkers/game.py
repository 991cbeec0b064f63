"""Chinese Checkers as a plug-in of the retrograde driver: rhombus tables, lookups, batch, perft.

One table per board size and piece count, named ``{m}x{m}-{p}`` (``7x7-3``); its slots are the
positions in the mover's frame, one per orbit of the two symmetries (layout in
``solvers.chinese_checkers.index``).  No table depends on another.  Perft also runs on the 121-hole
star for 2, 3, 4 and 6 players (``--board star --players N``).

The single-agent distance tables of the star, ``star-distance-{k}`` for k = 1..5 pieces
(``--distance K`` builds k = 1..K), hold one row per placement of k pieces, indexed by its colex
rank, for the bottom goal; placements (``chinese_checkers.distance.Placement``) with another
goal are turned first.  Their rows say WIN with the distance in moves and store no best move:
a lookup finds one among the moves (``derive_best``).

**Symmetry codes** (``Location.sym`` and the batch's ``sym``): bit 0, the second player is to
move (the stored position is the original turned 180 degrees with colours swapped); bit 1,
stored mirrored; the bits from 2 up hold the board size ``m``, so that ``batch_moves`` can map
the move codes of a batch of one board size without being told the board.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from tbdb.errors import InvalidOptionError, InvalidPositionError, MissingTableError, quote
from tbdb.games.base import BatchLocation, Game, Location, StatRow, Successor, TableData
from tbdb.games.base import BATCH_FORM, DISTANCE_TABLES, OWN_PERFT  # capabilities
from tbdb.games.chinese_checkers.position import (Position, StarPosition, check_players,
                                                  perft_divide, rhombus_rules)
import tbdb.games.chinese_checkers.rhombus_batch as rhombus_batch
import tbdb.games.chinese_checkers.star_tables as star_tables
from tbdb.games.chinese_checkers.small_star import SmallStarPosition, names_a_small_star
from tbdb.games.chinese_checkers.distance import (MOVE_RADIX, PREFIX, DistanceValues,
                                                  Placement, distance_table)
from tbdb.games.chinese_checkers.tables import (DISTANCE_PIECES, RhombusTable, check_board,
                                                distance_table_name, parse_distance_table_name,
                                                parse_table_name, slots, table_name)
from tbdb.options import Option
from tbdb.solvers.chinese_checkers import tables as space_kernels
from tbdb.solvers.chinese_checkers.geometry import BOARD_SIZES, PIECE_COUNTS, rhombus
from tbdb.solvers.retrograde import DRAW, ILLEGAL, LOSS, NONE, WIN
from tbdb.games import notation

# Tables with more slots than this are not built: the kernels pack a parent's slot into 32 bits
# beside its move code (``drop_repeated_parents``).  Whether a table fits in memory is the
# build's --memory budget's call (5x5-6 has 2.4e9 slots: the compact mode on a big machine).
MAX_SLOTS = (1 << 32) - 1


@lru_cache(maxsize=8)
def _table(m: int, pieces: int) -> RhombusTable:
    return RhombusTable(m, pieces)


def check_buildable(board: int, pieces: int) -> None:
    check_board(board, pieces)
    n = slots(board, pieces)
    if n > MAX_SLOTS:
        raise InvalidOptionError(
            f"the {board}x{board} rhombus with {pieces} pieces a side has {n:,} slots; tbdb "
            f"builds tables of up to {MAX_SLOTS:,} (board={quote(board)}, pieces={pieces!r})")


def _sym_code(sym, m: int):
    return sym | (m << 2)


class ChineseCheckersGame(Game):
    name = "chinese-checkers"
    title = ("Chinese Checkers (two players on the rhombus; perft and one-player distance "
             "tables on the star)")
    rules = "docs/rules/chinese_checkers.md"
    sample = "3x3-1 1/../.../../2 1"
    views = "chinese_checkers.sql"
    position_type = Position
    example_build = {"board": 4, "pieces": 1}
    more_example_builds = ({"board": "star13", "players": 3, "pieces": 1},)
    capabilities = frozenset({BATCH_FORM, DISTANCE_TABLES, OWN_PERFT})
    build_options = (
        Option("board", "the rhombus is BOARD x BOARD cells (3 to 9), or a small star of 13 or "
               "37 holes for --players", min=3, max=9, metavar="M",
               names=tuple(star_tables.BOARDS)),
        Option("pieces", f"pieces a side, one of {', '.join(map(str, PIECE_COUNTS))} (the "
               "rhombus), or marbles a player (a star)", min=1, max=15, metavar="P"),
        Option("players", "players on a star board: 2, 3, 4 or 6", min=2, max=6),
        Option("distance", "the star's single-agent distance tables for 1 to K pieces "
               "(star-distance-1 .. star-distance-K)", min=1, max=DISTANCE_PIECES[-1],
               metavar="K"),
    )
    lookup_options = (
        Option("lone", "star positions: the lone player, against the coalition of the others "
               "(default 1)", min=1, max=6),
    )
    perft_options = (
        Option("board", "'star' (the 121-hole star), a small star (star13, star37, star73) or "
               "the rhombus size 3..9 (for 'start')", type=str, default="star",
               choices=("star",) + tuple(star_tables.BOARDS) + tuple(map(str, BOARD_SIZES))),
        Option("players", "players on the star: 2, 3, 4 or 6", default=2, min=2, max=6),
        Option("pieces", "pieces a side on the rhombus start position", default=1, min=1,
               max=6),
    )

    # ------------------------------------------------------------------ tables

    def plan(self, board: int | str | None = None, pieces: int | None = None,
             distance: int | None = None, players: int | None = None) -> list[str]:
        if isinstance(board, str):  # a small star
            if pieces is None or players is None:
                raise InvalidOptionError(f"a star build needs --players N and --pieces M "
                                         f"(board={quote(board)}, players={players!r}, "
                                         f"pieces={pieces!r})")
            out = star_tables.plan(star_tables.BOARDS[board], players, pieces)
            return out + (self.plan(distance=distance) if distance else [])
        if players not in (None, 2):
            raise InvalidOptionError(f"the rhombus is played by 2 players, not "
                                     f"{quote(players)} (--players is for --board star13 or "
                                     f"star37)")
        if (board is None) != (pieces is None) or (board is None and distance is None):
            raise InvalidOptionError(f"a Chinese Checkers build needs --board M and --pieces P "
                                     f"(the rhombus), --distance K (the star's distance tables) "
                                     f"or both (board={quote(board)}, pieces={pieces!r}, "
                                     f"distance={distance!r})")
        out = []
        if board is not None:
            check_buildable(board, pieces)
            out.append(table_name(board, pieces))
        if distance is not None:
            out += [distance_table_name(k) for k in range(1, distance + 1)]
        return out

    def dependencies(self, table: str) -> list[str]:
        return star_tables.dependencies(table) if star_tables.is_star_table(table) else []

    def check_table(self, table: str) -> str:
        if star_tables.is_star_table(table):
            return star_tables.table_name(*star_tables.parse_table_name(table))
        if _is_distance(table):
            return distance_table_name(parse_distance_table_name(table))
        board, pieces = parse_table_name(table)
        check_buildable(board, pieces)
        return table_name(board, pieces)

    def build_command(self, table: str) -> str:
        if star_tables.is_star_table(table):
            return star_tables.build_command(table)
        if _is_distance(table):
            return f"tbdb build chinese-checkers --distance {parse_distance_table_name(table)}"
        board, pieces = parse_table_name(table)
        return f"tbdb build chinese-checkers --board {board} --pieces {pieces}"

    def weight(self, table: str) -> int:
        if star_tables.is_star_table(table):
            return star_tables.weight(table)
        if _is_distance(table):
            return distance_table(parse_distance_table_name(table)).size
        return slots(*parse_table_name(table))

    def space(self, table: str, deps: dict) -> RhombusTable:
        return _table(*parse_table_name(table))

    def solve(self, table: str, deps: dict, mode: str = "auto", progress=None) -> TableData:
        if star_tables.is_star_table(table):
            return star_tables.build(table, deps, progress)
        if not _is_distance(table):
            return super().solve(table, deps, mode, progress)
        dist = distance_table(parse_distance_table_name(table)).build(progress)
        return self.describe(table, dist)

    def from_stored(self, table: str, row, values):
        """Distance tables: the uint8 distances (the rows read back as ``IndexValues``)."""
        if _is_distance(table) and not isinstance(values, np.ndarray):
            if isinstance(values, DistanceValues):
                return values.moves
            return values.distance.astype(np.uint8)
        return values

    def checks_itself(self, table: str) -> bool:
        # the rhombus tables: the generic retrograde check
        return _is_distance(table) or star_tables.is_star_table(table)

    def verify(self, table: str, values, deps: dict) -> tuple[list[str], int]:
        if star_tables.is_star_table(table):
            return star_tables.verify(table, values)
        if not _is_distance(table):
            return super().verify(table, values, deps)
        t = distance_table(parse_distance_table_name(table))
        bad = t.check(values)
        idx = np.flatnonzero(bad)
        what = {1: "0 exactly on the goal", 2: "a neighbour more than one move closer",
                3: "no neighbour one move closer"}
        return ([f"{self.slot_text(table, int(i))} (moves {int(values[i])}: "
                 f"{what[int(bad[i])]})" for i in idx[:10]], len(idx))

    def describe(self, table: str, values) -> TableData:
        if star_tables.is_star_table(table):
            return star_tables.describe(table, values)
        if _is_distance(table):
            return _describe_distance(table, values)
        board, pieces = parse_table_name(table)
        t = _table(board, pieces)
        tally = _tally(values)
        # a slot's multiplicity counts both players to move (player swap) and the mirror: half
        # of it has the first player to move, half the second
        wins, draws, losses, illegal = (tally.positions[r] // 2
                                        for r in (WIN, DRAW, LOSS, ILLEGAL))
        # positions: every placement with this player to move, illegal ones included (they
        # are counted apart in ``illegal``, not in wins, draws or losses)
        stats = [StatRow(table, pieces, side, wins + draws + losses + illegal, wins, draws,
                         losses, illegal, tally.longest[WIN], tally.longest[LOSS])
                 for side in ("first", "second")]
        raw = sum(tally.positions.values())

        def texts():
            # idx >= 0: the mover's cells of class idx as a board pattern ('1' or '.', rows
            # joined by '/'); idx < 0: the free-cell ranks (comma-separated) of opponent set
            # -1 - idx, counted among the cells the mover leaves empty
            rows = rhombus(board).rows
            step = 1 << 16
            for lo in range(0, len(t.class_rep), step):
                reps = t.class_rep[lo:lo + step]
                out = []
                for cells in t.comb_a[reps].tolist():
                    marks = ["."] * t.cells
                    for c in cells:
                        marks[c] = "1"
                    out.append("/".join("".join(marks[i] for i in row) for row in rows))
                yield np.arange(lo, lo + len(reps), dtype=np.int64), out
            for lo in range(0, len(t.comb_b), step):
                part = t.comb_b[lo:lo + step].tolist()
                yield (-1 - np.arange(lo, lo + len(part), dtype=np.int64),
                       [",".join(map(str, free)) for free in part])

        return TableData(
            storage="index", values=values,
            params={"board": board, "pieces": pieces, "cells": t.cells, "block": t.block,
                    "mirror": int(t.mirror_symmetric)},
            stats=stats, slots=t.size, raw_positions=raw, positions_answered=raw,
            fixed_positions=tally.fixed, illegal=tally.positions[ILLEGAL], mode=values.mode,
            layout=f"chinese-checkers:{table}", texts=texts)

    def slot_text(self, table: str, slot) -> str:
        if star_tables.is_star_table(table):
            return star_tables.slot_text(table, slot)
        if _is_distance(table):
            t = distance_table(parse_distance_table_name(table))
            return Placement.of_cells(t.cells(int(slot))).text
        t = _table(*parse_table_name(table))
        cells = t.boards(np.array([int(slot)], np.int64))[0]
        return Position(t.board, t.pieces, tuple(int(c) for c in cells), 1).text

    # ------------------------------------------------------------------ positions

    def parse(self, text: str) -> Position | Placement | SmallStarPosition:
        if isinstance(text, str) and text.startswith(PREFIX):
            return Placement.parse(text)
        if names_a_small_star(text):
            return SmallStarPosition.parse(text)
        return Position.parse(text)

    def recognises(self, text: str) -> bool:
        if not isinstance(text, str) or not notation.chinese_checkers(text):
            return False
        try:
            self.parse(text)
        except ValueError:
            return False
        return True

    def accepts(self, obj) -> bool:
        return isinstance(obj, (Position, Placement, SmallStarPosition))

    def parse_for_perft(self, text: str, **options):
        if isinstance(text, str) and text.startswith("star-"):
            return StarPosition.parse(text)
        if names_a_small_star(text):
            return SmallStarPosition.parse(text)
        return Position.parse(text)

    def diagram(self, position) -> str | None:
        if isinstance(position, SmallStarPosition):
            return star_tables.diagram(position)
        if not isinstance(position, Position):
            return None
        rows = rhombus(position.m).rows
        width = max(len(r) for r in rows)
        lines = []
        for row in rows:
            pad = width - len(row)
            cells = " " * pad + " ".join(".12"[position.cells[i]] for i in row) + " " * pad
            numbers = " " * (2 * pad) + "".join(f"{i:>4}" for i in row)
            lines.append(cells + "   " + numbers)
        return "\n".join(lines)

    def native_constraint(self, position, options: dict) -> int | None:
        """A small star's lone player: libtbprobe probes any (``tb_probe_cc_star``)."""
        if isinstance(position, SmallStarPosition) and options.keys() == {"lone"} and \
                1 <= options["lone"] <= position.players:
            return options["lone"]
        return None

    def locate(self, position: Position | Placement, lone: int | None = None) -> Location:
        if isinstance(position, SmallStarPosition):
            return star_tables.locate(position, lone)
        if lone is not None:
            raise InvalidOptionError(f"--lone is for star positions, not {position.text!r}")
        if isinstance(position, Placement):
            name, rank = position.table_key()
            return Location(name, rank, position.goal)
        m, p = position.m, position.pieces
        if position.status == "illegal":
            raise InvalidPositionError(
                f"Chinese Checkers position {position.text!r} cannot arise: "
                + _illegal_reason(position))
        try:
            check_buildable(m, p)
        except InvalidOptionError as err:
            raise MissingTableError(f"position {position.text!r}: no table holds it: {err}") \
                from None
        name, slot, sym = position.table_key()
        return Location(name, slot, _sym_code(sym, m))

    def perspectives(self, position) -> list[tuple[dict, str]]:
        if isinstance(position, SmallStarPosition):
            return star_tables.perspectives(position)
        return []

    def perspective_summary(self, position, results: list) -> dict:
        return star_tables.kingmaker_summary(position, results) \
            if isinstance(position, SmallStarPosition) else {}

    def move_text(self, position: Position | Placement, code: int, sym: int) -> str:
        if isinstance(position, SmallStarPosition):
            return star_tables.move_text(position, code, sym)
        if isinstance(position, Placement):  # codes from ``derive_best``, on the placement
            return str(position.move_of(int(code) // MOVE_RADIX, int(code) % MOVE_RADIX))
        table = _table(position.m, position.pieces)
        if not 0 <= int(code) < table.cells * MOVE_RADIX:  # (a damaged table's best move)
            raise ValueError(f"{code!r} is no move code of {table.cells} cells")
        s, t = table.move_cells(int(code), int(sym) & 3)
        return str(position.move_of(s, t))

    def successors(self, position: Position | Placement, lone: int | None = None
                   ) -> list[Successor]:
        if isinstance(position, SmallStarPosition):
            return star_tables.successors(position, lone)
        solo = isinstance(position, Placement)  # the lone player moves again
        return [Successor(str(position.move_of(s, t)), position._after(s, t), same_side=solo)
                for s, t in position._move_pairs()]

    def derive_best(self, position, value: tuple, child_value) -> int:
        """A placement's best move: the first (pieces by cell, destinations ascending) that
        brings it one move closer to its goal."""
        if not isinstance(position, Placement) or value[1] <= 0:
            return -1
        for s, t in position._move_pairs():
            if child_value(position._after(s, t))[1] == value[1] - 1:
                return s * MOVE_RADIX + t
        return -1

    def images(self, position: Position | Placement) -> list:
        """The position, its player-swapped 180-degree rotation, and (when the mirror is a
        symmetry of the game: not with 2 pieces) the mirror images of both.  A placement: only
        itself (its turned images head for other goals).  A small star's position: itself (its
        turned images answer other lone players)."""
        if isinstance(position, (Placement, SmallStarPosition)):
            return [position]
        t = _table(position.m, position.pieces)
        n = t.cells
        turned = [0] * n
        for k, v in enumerate(position.cells):
            turned[n - 1 - k] = (0, 2, 1)[v]
        out = [position, Position(position.m, position.pieces, tuple(turned),
                                  3 - position.mover)]
        if t.mirror_symmetric:
            for q in list(out):
                cells = [0] * n
                for k, v in enumerate(q.cells):
                    cells[int(t.mirror[k])] = v
                out.append(Position(q.m, q.pieces, tuple(cells), q.mover))
        return out

    # ------------------------------------------------------------------ batch

    def encode_batch(self, positions: list[Position]) -> tuple:
        if positions and all(isinstance(p, SmallStarPosition) for p in positions):
            if len({p.holes for p in positions}) > 1:
                raise ValueError("a batch holds positions of one board")
            return (np.array([p.cells for p in positions], np.int8),
                    np.array([p.mover for p in positions], np.int8))
        cells = {len(p.cells) for p in positions}
        if len(cells) > 1:
            raise ValueError("a batch holds positions of one board size")
        return (np.array([p.cells for p in positions], np.int8).reshape(len(positions), -1),
                np.array([p.mover for p in positions], np.int8))

    def batch_locate(self, boards, movers, lone: int | None = None) -> BatchLocation:
        """boards int[n, N] (N = M * M cells row by row from the top tip: 0 empty, 1 first
        player, 2 second player) and movers int[n] (1 or 2).  Rows may differ in pieces a side
        (each row's table is the one of its piece count).  A small star's rows: N = 13, 37 or
        73 holes, cells 0 or the player 1..players, ``lone`` the lone player (default 1)
        (``star_tables.batch_locate``)."""
        star = star_tables.check_batch(boards, movers)
        if star is not None:
            return star_tables.batch_locate(*star, lone)
        if lone is not None:
            raise InvalidOptionError("lone is for star positions, not rhombus rows")
        boards, movers, m, pieces = rhombus_batch.check_batch(boards, movers)
        n = len(boards)
        which = np.full(n, -1, np.int32)
        keys = np.zeros(n, np.int64)
        sym = np.zeros(n, np.int8)
        tables: list[str] = []
        counts = np.bincount(pieces)  # (pieces a side are small numbers: no sort)
        for p in np.flatnonzero(counts).tolist():
            rows = np.arange(n) if counts[p] == n else np.flatnonzero(pieces == p)
            try:
                check_buildable(m, p)
            except InvalidOptionError as err:
                raise MissingTableError(f"row {int(rows[0])}: no table holds it: {err}") \
                    from None
            rhombus_batch.check_legal(boards, movers, rows, m, p)
            t = _table(m, p)
            which[rows] = len(tables)
            tables.append(t.name)
            t.locate_rows(boards, movers, rows, keys, sym)
            sym[rows] = _sym_code(sym[rows], m)
        return BatchLocation(tables, which, keys, sym, np.zeros(n, np.int8))

    def batch_moves(self, codes: np.ndarray, sym: np.ndarray) -> np.ndarray:
        """Stored move codes (from * 128 + to on the stored position) as codes on each row's
        own position (-1 stays -1)."""
        codes = np.asarray(codes, np.int64)
        sym = np.asarray(sym, np.int64)
        out = codes.copy()
        star_tables.batch_moves(codes, sym, out)
        radix = space_kernels.MOVE_RADIX
        sizes = np.where(sym < star_tables.STAR_SYM, sym >> 2, -1)
        for m in np.flatnonzero(np.bincount(sizes[sizes >= 0])).tolist():
            if m not in BOARD_SIZES:
                continue
            n = m * m
            mirror = rhombus(m).mirror.astype(np.int64)
            rows = np.flatnonzero((sizes == m) & (codes >= 0))
            s, t, bits = codes[rows] // radix, codes[rows] % radix, sym[rows] & 3
            for cells in (s, t):
                flip = (bits & 2) != 0
                cells[flip] = mirror[cells[flip]]
                turn = (bits & 1) != 0
                cells[turn] = n - 1 - cells[turn]
            out[rows] = s * radix + t
        return out.astype(np.int32)

    # ------------------------------------------------------------------ perft

    def start(self, board: str = "star", players: int = 2, pieces: int = 1):
        if board == "star":
            check_players(players)
            return StarPosition.start(players)
        if board in star_tables.BOARDS:
            check_players(players)
            return SmallStarPosition.start(star_tables.BOARDS[board], players)
        size = str(board)
        if not size.isdigit():  # ('7x7': int() said nothing of the board)
            raise InvalidOptionError(f"board {quote(board)} is 'star' or the rhombus size 3..9")
        check_board(int(size), pieces)
        return Position.start(int(size), pieces)

    def perft(self, position, depth: int, **options) -> int:
        if isinstance(position, SmallStarPosition):
            return star_tables.perft(position, depth)
        if isinstance(position, StarPosition):
            return perft_divide(position, depth)[0]
        return _rhombus_perft(position, depth)

    def divide(self, position, depth: int, **options) -> list[tuple[str, int]]:
        if isinstance(position, SmallStarPosition):
            return [(s.move, star_tables.perft(s.position, depth - 1))
                    for s in star_tables.successors(position, None)] if depth else []
        if isinstance(position, StarPosition):
            if depth == 0:
                return []
            return list(perft_divide(position, depth)[1].items())
        return [(s.move, _rhombus_perft(s.position, depth - 1))
                for s in self.successors(position)]


@dataclass
class _Tally:
    """Positions (multiplicities summed) per result, the longest distance of each result
    (None: none) and the positions of slots with multiplicity 2 (their own mirror image)."""
    positions: dict[int, int] = field(default_factory=dict)
    longest: dict[int, int | None] = field(default_factory=dict)
    fixed: int = 0


TALLY_CHUNK = 1 << 22


def _tally(values) -> _Tally:
    """The counts ``describe`` stores, a chunk of slots at a time: whole-table temporaries
    (an int64 copy of the multiplicities and its halves) cost 25 bytes a slot, 3.5 GB on 7x7
    with 3 pieces, on top of the solved arrays."""
    out = _Tally({r: 0 for r in (WIN, DRAW, LOSS, ILLEGAL)},
                 {r: None for r in (WIN, DRAW, LOSS, ILLEGAL)})
    for _, result, distance, _, mult in values.chunks(TALLY_CHUNK, best=False):
        mult = mult.astype(np.int64)
        for r in out.positions:
            at = result == r
            out.positions[r] += int(mult[at].sum())
            if at.any():
                d = int(distance[at].max())
                out.longest[r] = d if out.longest[r] is None else max(out.longest[r], d)
        out.fixed += int(mult[(result != NONE) & (mult == 2)].sum())
    return out


def _is_distance(table: str) -> bool:
    return isinstance(table, str) and table.startswith(PREFIX)


def _describe_distance(table: str, dist: np.ndarray) -> TableData:
    """What the store writes for a distance table: every placement a row (no statistics rows:
    ``cc_distance`` is the readable form), each answering its placement for all six goals."""
    pieces = parse_distance_table_name(table)
    n = len(dist)
    return TableData(
        storage="index", values=DistanceValues(dist),
        params={"pieces": pieces, "cells": 121, "goal": 3, "max_moves": int(dist.max())},
        stats=[], slots=n, raw_positions=n, positions_answered=6 * n, mode="bfs")


def _rhombus_perft(position: Position, depth: int) -> int:
    if depth == 0:
        return 1
    pairs = position._move_pairs()
    if depth == 1:
        return len(pairs)
    return sum(_rhombus_perft(position._after(s, t), depth - 1) for s, t in pairs)


def _illegal_reason(position: Position) -> str:
    _, nbr, goals = rhombus_rules(position.m, position.pieces)
    cells = position.cells
    goal = goals[position.mover]
    if all(cells[g] for g in goal) and any(cells[g] == position.mover for g in goal):
        return (f"player {position.mover} is to move but has already filled its goal "
                f"(the game ended before its turn)")
    return ("with 6 pieces, the tip of a goal is empty and walled in by the other player "
            "(its two neighbours and the two cells beyond them along the edges)")
