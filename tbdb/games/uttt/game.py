"""Ultimate Tic-Tac-Toe: exact solved tables keyed by canonical key and constraint.

Builds (one per root or K, per scoring; see ``tables``):

* ``<scoring>/from/<word0>.<word1>``: every position reachable from a root (``tbdb build uttt
  --from POS``), named by the root's canonical key;
* ``<scoring>/empties/<K>``: every legal position with at most K empty cells in open boards
  (``tbdb build uttt --max-empties K``).

Each is solved level by level (level = empty cells in open boards; every move lowers it) into
the one shared table of its scoring, ``<scoring>/positions`` (``Game.shared_table``,
``tbdb.storage.shared_levels``): positions a build reaches that are stored already are read back,
not solved or expanded again, and its new positions are added, so a key has one row per scoring
whichever builds reached it. Rows are (key0, key1, key_constraint) with key_constraint the canonical
representative's constraint (-1 any).  Finished games are stored too, at distance 0.  ``locate``
names no table: the prober searches the shared table of the lookup's scoring (``search_tables``)
and, when it does not hold the position, names the ``--from`` build that would (``cover_command``).
"""
from __future__ import annotations

import shlex

import numpy as np

from tbdb.errors import InvalidArrayError, InvalidOptionError, InvalidPositionError, quote
from tbdb.games.base import (BatchLocation, Game, GameOver, Location, StatRow, TableData,
                             first_row_outside, require_integers, read_padded)
from tbdb.games.base import BATCH_FORM, OWN_PERFT, SHARED_KEY_TABLE  # capabilities
import tbdb.games.uttt.tables as tables  # (the module, not the package: no import circle)
from tbdb.games.uttt.position import SCORINGS, Position, key_text, scoring_code
from tbdb.options import Option
from tbdb.solvers.uttt import batch as batch_kernels
from tbdb.solvers.uttt import keys as key_kernels
from tbdb.solvers.uttt import moves as move_kernels
from tbdb.games import notation

SAMPLE = "....o" + "." * 31 + "x" + "." * 44 + " x 4"  # start, 4:0, 0:4
# the root of the conformance suite's build: 11 empty cells in open boards, 1,354 positions
EXAMPLE_ROOT = (".x..oxoxx" "oxo.oo.xx" ".x.xoxo.o" "..xox.xxo" "o.ooxxxxo" "oo.xxooox"
                "ox.ooxxoo" "ooxoxo.xo" "xox..xxox" " x 0")
MAX_EMPTIES = 1  # K = 1: 10.7 million keys, a short build; K = 2 is beyond 16 GB
# The largest root a --from build takes, measured with benchmarks/uttt.py (the numbers are in
# benchmarks/RESULTS.md): the sets grow a few times over per empty cell, so 22 still fits in
# some GB, and 23 or more could pass 16 GB.
MAX_FROM_EMPTIES = 22

SCORING = Option("scoring", "rule set for a game that ends with no open board: standard (a "
                            "draw) or codingame (more won small boards wins)",
                 type=str, choices=SCORINGS, default="standard")


def orbit_sizes(keys: np.ndarray) -> np.ndarray:
    keys = np.ascontiguousarray(keys, np.int64).reshape(-1, 2)
    out = np.empty(len(keys), np.int16)
    key_kernels.orbit_sizes(keys, out)
    return out


def _scoring_flag(scoring: str) -> str:
    return "" if scoring == "standard" else f" --scoring {scoring}"


class UtttGame(Game):
    name = "uttt"
    title = "Ultimate Tic-Tac-Toe (subtrees from any position, exact canonical keys)"
    rules = "docs/rules/uttt.md"
    sample = SAMPLE
    storage = "key"
    modes = ("levels",)
    views = "uttt.sql"
    position_type = Position
    build_options = (
        Option("from", "solve every position reachable from this position (81 cells, side to "
                       "move, constraint; or 'start')", type=str, metavar="POSITION"),
        Option("max_empties", "solve every legal position with at most this many empty cells "
                              "in open small boards", min=0, max=MAX_EMPTIES, metavar="K"),
        SCORING,
    )
    lookup_options = (SCORING,)
    example_build = {"from": EXAMPLE_ROOT}
    capabilities = frozenset({BATCH_FORM, OWN_PERFT, SHARED_KEY_TABLE})

    # ------------------------------------------------------------------ tables

    def plan(self, scoring: str = "standard", max_empties: int | None = None,
             **options) -> list[str]:
        root = options.pop("from", None)
        if (root is None) == (max_empties is None):
            raise InvalidOptionError("a uttt build takes either --from POSITION or "
                                     "--max-empties K (and --scoring)")
        if root is not None:
            position = self.coerce(root)
            if position.is_game_over():
                raise InvalidOptionError(f"--from {quote(root)}: the game is over in that "
                                         f"position; "
                                         f"there is nothing to solve")
            if position.empties > MAX_FROM_EMPTIES:
                raise InvalidOptionError(
                    f"--from {quote(root)}: {position.empties} empty cells in open boards; this "
                    f"machine builds from roots with at most {MAX_FROM_EMPTIES} (the positions "
                    f"below would not fit in memory)")
            return [tables.table_name(scoring, root_key=position.key)]
        return [tables.table_name(scoring, max_empties=max_empties)]

    def check_table(self, table: str) -> str:
        tables.parse_table_name(table)
        return table

    def shared_table(self, table: str) -> str | None:
        t = tables.parse_table_name(table)
        return None if t.store else tables.shared_table_name(t.scoring)

    def build_command(self, table: str) -> str:
        t = tables.parse_table_name(table)
        if t.store:
            return "tbdb build uttt --from POSITION" + _scoring_flag(t.scoring)
        if t.root_key is not None:
            return (f"tbdb build uttt --from {shlex.quote(key_text(t.root_key))}"
                    + _scoring_flag(t.scoring))
        return f"tbdb build uttt --max-empties {t.max_empties}" + _scoring_flag(t.scoring)

    def space(self, table: str, deps: dict):
        return tables.table_for(table)

    def key_columns(self, table: str, keys: np.ndarray):
        keys = np.ascontiguousarray(keys, np.int64).reshape(-1, 2)
        return tables.constraints_of(keys).astype(np.int16), orbit_sizes(keys)

    def describe(self, table: str, levels: list) -> TableData:
        """Statistics per level (label 'E empties') and side to move; positions are counted
        as reduced positions (closed boards by status), each key for its whole orbit."""
        stats, raw, fixed = [], 0, 0
        t = tables.parse_table_name(table)
        for v in sorted(levels, key=lambda v: -v.level):
            mult = orbit_sizes(v.keys).astype(np.int64)
            side = tables.sides_of(v.keys)
            for s in (0, 1):
                sel = side == s
                m, res, dist = mult[sel], v.result[sel], v.distance[sel]
                if not sel.any():
                    continue
                won, lost = dist[res == 1], dist[res == -1]
                stats.append(StatRow(
                    f"{v.level} empties", v.level, "xo"[s], int(m.sum()),
                    int(m[res == 1].sum()), int(m[res == 0].sum()), int(m[res == -1].sum()), 0,
                    int(won.max()) if len(won) else None, int(lost.max()) if len(lost) else None))
            raw += int(mult.sum())
            fixed += int(mult[mult < 8].sum())
        params = {"scoring": t.scoring}
        if t.root_key is not None:
            params["root"] = key_text(t.root_key)
        elif t.max_empties is not None:
            params["max_empties"] = t.max_empties
        return TableData(storage="key", values=levels, params=params, stats=stats,
                         slots=sum(len(v.keys) for v in levels), raw_positions=raw,
                         positions_answered=raw, fixed_positions=fixed, mode="levels")

    def slot_text(self, table: str, key) -> str:
        return key_text((int(key[0]), int(key[1])))

    # ------------------------------------------------------------------ finding a position

    def search_tables(self, built: list[str], scoring: str = "standard") -> list[str]:
        """The shared table of this scoring, if any build has stored positions in it."""
        shared = tables.shared_table_name(scoring)
        return [shared] if shared in built else []

    def cover_command(self, key, text: str | None = None,
                      scoring: str = "standard") -> str | None:
        root = text if text is not None else key_text((int(key[0]), int(key[1])))
        if Position.parse(root).empties > MAX_FROM_EMPTIES:
            return None  # ``plan`` refuses such a root: the positions below would not fit
        return f"tbdb build uttt --from {shlex.quote(root)}" + _scoring_flag(scoring)

    # ------------------------------------------------------------------ positions

    def parse(self, text: str) -> Position:
        """A position from the notation as tbdb writes it, which round-trips exactly; 'start'
        is read by ``coerce`` (Python lookups, the CLI, ``--from``) and perft, not here."""
        if text == "start":
            raise InvalidPositionError(f"{quote(text)} is not a uttt position text; write it as "
                                       f"{Position.start().text!r}")
        return Position.parse(text)

    def coerce(self, position) -> Position:
        if isinstance(position, str):  # Position.parse: 'start' too
            return read_padded(Position.parse, position)
        return super().coerce(position)

    def recognises(self, text: str) -> bool:
        return isinstance(text, str) and notation.uttt(text)

    def locate(self, position: Position, scoring: str = "standard") -> Location | GameOver:
        if position.is_game_over():
            return GameOver(position.result(scoring))
        c = position.canonical()
        con = -1 if c.constraint is None else c.constraint
        return Location(None, (c.key[0], c.key[1], con), c.symmetry)

    def move_text(self, position: Position, code: int, sym: int) -> str:
        inv = key_kernels.INV_SYM[sym]
        b, c = divmod(int(code), 9)
        return f"{int(inv[b])}:{int(inv[c])}"

    def images(self, position: Position) -> list[Position]:
        return [position.transform(g) for g in range(8)]

    # ------------------------------------------------------------------ batch

    def encode_batch(self, positions: list[Position]) -> tuple:
        n = len(positions)
        cells = np.zeros((n, 81), np.int8)
        side = np.zeros(n, np.int8)
        con = np.full(n, -1, np.int8)
        status_code = {"XXXXXXXXX": 3, "OOOOOOOOO": 4, "DDDDDDDDD": 5}
        for i, p in enumerate(positions):
            for b in range(9):
                block = p.block(b)
                if block in status_code:
                    cells[i, 9 * b:9 * b + 9] = status_code[block]
                else:
                    cells[i, 9 * b:9 * b + 9] = [".xo".index(ch) for ch in block]
            side[i] = p.side
            con[i] = -1 if p.constraint is None else p.constraint
        return cells, side, con

    def batch_locate(self, cells, side, constraint, scoring: str = "standard") -> BatchLocation:
        """cells int[n, 81] (index 9 * board + cell: 0 empty, 1 x, 2 o; a closed board may be
        given by its status alone, its nine cells all 3 won by x, 4 won by o, 5 drawn), side
        int[n] (0 x, 1 o to move), constraint int[n] (0..8, -1 any)."""
        cells, side, constraint = (np.asarray(a) for a in (cells, side, constraint))
        if cells.ndim != 2 or cells.shape[1] != 81:
            raise InvalidArrayError(f"expected cells of shape (n, 81), got {cells.shape}")
        n = len(cells)
        if side.shape != (n,) or constraint.shape != (n,):
            raise InvalidArrayError(f"expected side and constraint of shape ({n},), got "
                                    f"{side.shape} and {constraint.shape}")
        require_integers(cells=cells, side=side, constraint=constraint)
        # ranges first, on the arrays as given: a cast to int8 would wrap 256 to a valid 0
        for name, a, low, high in (("cells", cells, 0, 5), ("side", side, 0, 1),
                                   ("constraint", constraint, -1, 8)):
            bad = first_row_outside(a, low, high)
            if bad is not None:
                raise InvalidArrayError(f"row {bad}: {name} values are {low}..{high}, got "
                                        f"{quote(a[bad].tolist())}")
        cells, side, constraint = (a.astype(np.int8) for a in (cells, side, constraint))
        keys = np.empty((n, 3), np.int64)
        sym = np.empty(n, np.int8)
        over = np.empty(n, np.int8)
        done = np.empty(n, np.bool_)
        err = np.empty(n, np.int8)
        batch_kernels.locate_rows(np.ascontiguousarray(cells), side, constraint,
                                  scoring_code(scoring), keys, sym, over, done, err)
        bad = np.flatnonzero(err)
        if len(bad):
            r = int(bad[0])
            reason = batch_kernels.REASONS.get(int(err[r]), "refused")
            raise InvalidArrayError(f"row {r}: {reason} (side {int(side[r])}, constraint "
                                    f"{int(constraint[r])})")
        which = np.where(done, -1, 0).astype(np.int32)
        return BatchLocation([None], which, keys, sym, over)

    def batch_moves(self, codes: np.ndarray, sym: np.ndarray) -> np.ndarray:
        inv = key_kernels.INV_SYM[sym.astype(np.int64)]  # [n, 9]
        safe = np.where(codes >= 0, codes, 0)
        b, c = safe // 9, safe % 9
        rows = np.arange(len(codes))
        return np.where(codes >= 0, 9 * inv[rows, b] + inv[rows, c], -1).astype(np.int32)

    # ------------------------------------------------------------------ perft

    def start(self) -> Position:
        return Position.start()

    def perft(self, position: Position, depth: int) -> int:
        return int(move_kernels.perft(position.state(), depth))
