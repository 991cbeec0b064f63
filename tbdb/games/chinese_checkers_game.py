"""Chinese Checkers as a plug-in of the generic engine: rhombus tables, lookups, batch, perft.

One table per board size and piece count, named ``{m}x{m}-{p}`` (``7x7-3``); its slots are the
positions in the mover's frame, one per orbit of the two symmetries (layout in
``solvers.chinese_checkers``).  No table depends on another.  Perft also runs on the 121-hole
star for 2, 3, 4 and 6 players (``--board star --players N``).

**Symmetry codes** (``Location.sym`` and the batch's ``sym``): bit 0, the second player is to
move (the stored position is the original turned 180 degrees with colours swapped); bit 1,
stored mirrored; the bits from 2 up hold the board size ``m``, so that ``batch_moves`` can map
the move codes of a batch of one board size without being told the board.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from tbdb.errors import InvalidOptionError, InvalidPositionError, MissingTableError
from tbdb.games.base import BatchLocation, Game, Location, StatRow, Successor, TableData
from tbdb.games.chinese_checkers import (STAR_SEATS, Position, StarPosition, _blocked,
                                         _rhombus_rules, check_players, perft_divide)
from tbdb.games.chinese_checkers_tables import (RhombusTable, check_board, parse_table_name,
                                                slots, table_name)
from tbdb.options import Option
from tbdb.solvers import chinese_checkers as kernels
from tbdb.solvers.chinese_checkers_geometry import BOARD_SIZES, PIECE_COUNTS, rhombus
from tbdb.solvers.retrograde import DRAW, ILLEGAL, LOSS, NONE, WIN

# Tables with more slots than this are not built (about 9 bytes a slot while solving): the
# 6x6 rhombus with 4 pieces (1.06e9 slots) is the largest that fits in this machine's memory.
MAX_SLOTS = 1_100_000_000
BOARD_SQUARES = {m * m: m for m in BOARD_SIZES}


@lru_cache(maxsize=8)
def _table(m: int, pieces: int) -> RhombusTable:
    return RhombusTable(m, pieces)


def check_buildable(board: int, pieces: int) -> None:
    check_board(board, pieces)
    n = slots(board, pieces)
    if n > MAX_SLOTS:
        raise InvalidOptionError(
            f"the {board}x{board} rhombus with {pieces} pieces a side has {n:,} slots; tbdb "
            f"builds tables of up to {MAX_SLOTS:,} (board={board!r}, pieces={pieces!r})")


def _sym_code(sym, m: int):
    return sym | (m << 2)


class ChineseCheckersGame(Game):
    name = "chinese-checkers"
    title = "Chinese Checkers (two players on the rhombus; perft on the star)"
    rules = "docs/rules/chinese_checkers.md"
    sample = "3x3-1 1/../.../../2 1"
    views = "chinese_checkers.sql"
    position_type = Position
    example_build = {"board": 4, "pieces": 1}
    build_options = (
        Option("board", "the rhombus is BOARD x BOARD cells (3 to 9)", min=3, max=9,
               metavar="M"),
        Option("pieces", f"pieces a side, one of {', '.join(map(str, PIECE_COUNTS))}", min=1,
               max=6, metavar="P"),
    )
    perft_options = (
        Option("board", "'star' (the 121-hole star) or the rhombus size 3..9 (for 'start')",
               type=str, default="star", choices=("star",) + tuple(map(str, BOARD_SIZES))),
        Option("players", "players on the star: 2, 3, 4 or 6", default=2, min=2, max=6),
        Option("pieces", "pieces a side on the rhombus start position", default=1, min=1,
               max=6),
    )

    # ------------------------------------------------------------------ tables

    def plan(self, board: int | None = None, pieces: int | None = None) -> list[str]:
        if board is None or pieces is None:
            raise InvalidOptionError(f"a Chinese Checkers build needs --board M and --pieces P "
                                     f"(board={board!r}, pieces={pieces!r})")
        check_buildable(board, pieces)
        return [table_name(board, pieces)]

    def check_table(self, table: str) -> str:
        board, pieces = parse_table_name(table)
        check_buildable(board, pieces)
        return table_name(board, pieces)

    def build_command(self, table: str) -> str:
        board, pieces = parse_table_name(table)
        return f"tbdb build chinese-checkers --board {board} --pieces {pieces}"

    def space(self, table: str, deps: dict) -> RhombusTable:
        return _table(*parse_table_name(table))

    def describe(self, table: str, values) -> TableData:
        board, pieces = parse_table_name(table)
        t = _table(board, pieces)
        result = values.result
        mult = values.multiplicity.astype(np.int64)
        present = result != NONE
        # a slot's multiplicity counts both players to move (player swap) and the mirror: half
        # of it has the first player to move, half the second
        half = mult // 2
        wins, draws, losses = (int(half[result == r].sum()) for r in (WIN, DRAW, LOSS))
        illegal = int(half[result == ILLEGAL].sum())
        won = values.distance[result == WIN]
        lost = values.distance[result == LOSS]
        longest_win = int(won.max()) if len(won) else None
        longest_loss = int(lost.max()) if len(lost) else None
        # positions: every placement with this player to move, illegal ones included (they
        # are counted apart in ``illegal``, not in wins, draws or losses)
        stats = [StatRow(table, pieces, side, wins + draws + losses + illegal, wins, draws,
                         losses, illegal, longest_win, longest_loss)
                 for side in ("first", "second")]
        raw = int(mult[present].sum())

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
            fixed_positions=int(mult[present & (mult == 2)].sum()),
            illegal=int(mult[result == ILLEGAL].sum()), mode=values.mode,
            layout=f"chinese-checkers:{table}", texts=texts)

    def slot_text(self, table: str, slot) -> str:
        t = _table(*parse_table_name(table))
        cells = t.boards(np.array([int(slot)], np.int64))[0]
        return Position(t.board, t.pieces, tuple(int(c) for c in cells), 1).text

    # ------------------------------------------------------------------ positions

    def parse(self, text: str) -> Position:
        return Position.parse(text)

    def recognises(self, text: str) -> bool:
        if not isinstance(text, str) or text[:1] not in "3456789" or "x" not in text[:3]:
            return False
        try:
            Position.parse(text)
        except ValueError:
            return False
        return True

    def parse_for_perft(self, text: str, **options):
        if isinstance(text, str) and text.startswith("star-"):
            return StarPosition.parse(text)
        return Position.parse(text)

    def diagram(self, position) -> str | None:
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

    def locate(self, position: Position) -> Location:
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

    def move_text(self, position: Position, code: int, sym: int) -> str:
        s, t = _table(position.m, position.pieces).move_cells(int(code), int(sym) & 3)
        return str(position.move_of(s, t))

    def successors(self, position: Position) -> list[Successor]:
        return [Successor(str(position.move_of(s, t)), position._after(s, t))
                for s, t in position._move_pairs()]

    def images(self, position: Position) -> list[Position]:
        """The position, its player-swapped 180-degree rotation, and (when the mirror is a
        symmetry of the game: not with 2 pieces) the mirror images of both."""
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
        cells = {len(p.cells) for p in positions}
        if len(cells) > 1:
            raise ValueError("a batch holds positions of one board size")
        return (np.array([p.cells for p in positions], np.int8).reshape(len(positions), -1),
                np.array([p.mover for p in positions], np.int8))

    def batch_locate(self, boards, movers) -> BatchLocation:
        """boards int[n, N] (N = M * M cells row by row from the top tip: 0 empty, 1 first
        player, 2 second player) and movers int[n] (1 or 2).  Rows may differ in pieces a side
        (each row's table is the one of its piece count)."""
        boards, movers, m = _check_batch(boards, movers)
        n = len(boards)
        pieces = (boards == 1).sum(axis=1)
        which = np.full(n, -1, np.int32)
        keys = np.zeros(n, np.int64)
        sym = np.zeros(n, np.int8)
        tables: list[str] = []
        for p in np.unique(pieces).tolist():
            rows = np.flatnonzero(pieces == p)
            try:
                check_buildable(m, p)
            except InvalidOptionError as err:
                raise MissingTableError(f"row {int(rows[0])}: no table holds it: {err}") \
                    from None
            _check_legal(boards, movers, rows, m, p)
            t = _table(m, p)
            which[rows] = len(tables)
            tables.append(t.name)
            keys[rows], s = t.locate(boards[rows], movers[rows])
            sym[rows] = _sym_code(s, m)
        return BatchLocation(tables, which, keys, sym, np.zeros(n, np.int8))

    def batch_moves(self, codes: np.ndarray, sym: np.ndarray) -> np.ndarray:
        """Stored move codes (from * 128 + to on the stored position) as codes on each row's
        own position (-1 stays -1)."""
        codes = np.asarray(codes, np.int64)
        sym = np.asarray(sym, np.int64)
        out = codes.copy()
        radix = kernels.MOVE_RADIX
        for m in np.unique(sym >> 2).tolist():
            if m not in BOARD_SIZES:
                continue
            n = m * m
            mirror = rhombus(m).mirror.astype(np.int64)
            rows = np.flatnonzero(((sym >> 2) == m) & (codes >= 0))
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
        check_board(int(board), pieces)
        return Position.start(int(board), pieces)

    def perft(self, position, depth: int, **options) -> int:
        if isinstance(position, StarPosition):
            return perft_divide(position, depth)[0]
        return _rhombus_perft(position, depth)

    def divide(self, position, depth: int, **options) -> list[tuple[str, int]]:
        if isinstance(position, StarPosition):
            if depth == 0:
                return []
            return list(perft_divide(position, depth)[1].items())
        return [(s.move, _rhombus_perft(s.position, depth - 1))
                for s in self.successors(position)]


def _rhombus_perft(position: Position, depth: int) -> int:
    if depth == 0:
        return 1
    pairs = position._move_pairs()
    if depth == 1:
        return len(pairs)
    return sum(_rhombus_perft(position._after(s, t), depth - 1) for s, t in pairs)


def _illegal_reason(position: Position) -> str:
    _, nbr, goals = _rhombus_rules(position.m, position.pieces)
    cells = position.cells
    goal = goals[position.mover]
    if all(cells[g] for g in goal) and any(cells[g] == position.mover for g in goal):
        return (f"player {position.mover} is to move but has already filled its goal "
                f"(the game ended before its turn)")
    return "with 6 pieces, a goal cell its owner can never reach"


def _check_batch(boards, movers) -> tuple[np.ndarray, np.ndarray, int]:
    """The batch arrays as int8 and the board size, or ``ValueError`` naming the first bad
    row."""
    boards = np.asarray(boards)
    movers = np.asarray(movers)
    if boards.ndim != 2 or boards.shape[1] not in BOARD_SQUARES or \
            movers.shape != (len(boards),):
        raise ValueError(f"expected boards of shape (n, M*M) with M from 3 to 9 and movers of "
                         f"shape (n,), got {boards.shape} and {movers.shape}")
    for name, arr in (("boards", boards), ("movers", movers)):
        if not np.issubdtype(arr.dtype, np.integer):
            raise ValueError(f"{name} must be an integer array, not {arr.dtype}")
    m = BOARD_SQUARES[boards.shape[1]]
    bad = np.flatnonzero(((boards < 0) | (boards > 2)).any(axis=1))
    if len(bad):
        raise ValueError(f"row {int(bad[0])}: cells are 0 (empty), 1 or 2, got "
                         f"{boards[bad[0]].tolist()}")
    bad = np.flatnonzero((movers != 1) & (movers != 2))
    if len(bad):
        raise ValueError(f"row {int(bad[0])}: the player to move is 1 or 2, got "
                         f"{movers[bad[0]].item()!r}")
    ones, twos = (boards == 1).sum(axis=1), (boards == 2).sum(axis=1)
    bad = np.flatnonzero((ones != twos) | ~np.isin(ones, PIECE_COUNTS) | (2 * ones > m * m))
    if len(bad):
        raise ValueError(f"row {int(bad[0])}: the players have {int(ones[bad[0]])} and "
                         f"{int(twos[bad[0]])} pieces; each has one of {PIECE_COUNTS}")
    return (np.ascontiguousarray(boards, np.int8), np.ascontiguousarray(movers, np.int8), m)


def _check_legal(boards: np.ndarray, movers: np.ndarray, rows: np.ndarray, m: int,
                 p: int) -> None:
    """``ValueError`` for the first row (of ``rows``) whose mover has already won or, with 6
    pieces, whose goal its owner can never reach."""
    geo, nbr, goals = _rhombus_rules(m, p)
    sub = boards[rows]
    mv = movers[rows]
    illegal = np.zeros(len(rows), bool)
    for player in (1, 2):
        goal = np.array(goals[player])
        at = sub[:, goal]
        won = (at != 0).all(axis=1) & (at == player).any(axis=1)
        illegal |= won & (mv == player)
    if p == 6:
        for i, row in enumerate(sub.tolist()):
            if not illegal[i] and any(_blocked(row, nbr, q, goals[q]) for q in (1, 2)):
                illegal[i] = True
    if illegal.any():
        r = int(rows[np.argmax(illegal)])
        raise ValueError(f"row {r}: the position cannot arise (the player to move has already "
                         f"won, or a goal can never be filled): {boards[r].tolist()}")
