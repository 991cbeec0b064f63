"""The prober: answers lookups for every game from one store.

A game says where a position's value is (``locate``: table, key, symmetry) and how a stored
move reads on the original position (``move_text``); everything else is here: reading tables
into memory on first use (or probing the file row by row for very large tables), the
built-or-missing check, damaged tables, the moves list best first, principal variations, the
batch form, and probe statistics.
"""
from __future__ import annotations

import functools
import threading
from dataclasses import dataclass

import numpy as np

from tbdb import games
from tbdb.errors import DamagedTableError, MissingTableError
from tbdb.games.base import GameOver, Location
from tbdb.results import LineStep, LookupResult, MoveResult, outcome_name, score_outcome
from tbdb.solvers import lookup as kernels
from tbdb.solvers.retrograde import DRAW, NONE

_NONE = int(NONE)
MAX_LINE = 1000  # plies of a principal variation at most (a drawn line stops at a repetition)


@dataclass
class ProbeStats:
    """What a prober has done: positions probed, answered from a table (hits), refused because
    a table is missing (misses), and tables read into memory."""
    probes: int = 0
    hits: int = 0
    misses: int = 0
    tables_loaded: int = 0


class _Table:
    """One built table as the prober holds it."""

    def __init__(self, store, game, row: dict, load: bool):
        self.store = store
        self.game = game
        self.name = row["table_name"]
        self.id = row["table_id"]
        self.storage = row["storage"]
        self.params = row["params"]
        self.loaded = False
        if self.storage == "index":
            self.slots = row["slots"]
        elif self.storage == "runs":
            self.horizon = int(self.params.get("horizon", 0))
            self.positions = row["slots"]
        if load:
            self.load()

    def load(self) -> None:
        if self.loaded:
            return
        if self.storage == "index":
            v = self.store.load_index(self.id, self.slots)
            self.result, self.distance, self.best = v.result, v.distance, v.best
        elif self.storage == "key":
            self.keys, self.result, self.distance, self.best, _, _ = self.store.load_keys(self.id)
        else:
            self.runs = self.store.load_runs(self.id, self.positions, self.horizon)
        self.loaded = True

    def wdl(self, key) -> tuple[int, int, int] | None:
        """(result, distance, best move) at ``key``, or None if there is no row."""
        if self.storage == "index":
            if not self.loaded:
                return self.store.index_row(self.id, key)
            r = self.result.item(key)  # .item: a Python int at once, not a NumPy scalar
            if r == _NONE:
                return None
            return r, self.distance.item(key), self.best.item(key)
        if not self.loaded:
            return self.store.key_row(self.id, key)
        i = kernels._find_row3(self.keys, key[0], key[1], key[2])
        if i < 0:
            return None
        return int(self.result[i]), int(self.distance[i]), int(self.best[i])

    def score(self, idx: int, plies: int) -> tuple[int, int] | None:
        """(score, best move) of position ``idx`` with ``plies`` left."""
        if not self.loaded:
            return self.store.run_row(self.id, idx, plies)
        r = self.runs
        if not 0 <= idx < len(r.offsets) - 1 or r.offsets[idx] == r.offsets[idx + 1]:
            return None
        score, move = kernels._run_value(r.offsets, r.start, r.score, r.move, idx, plies)
        return int(score), int(move)


def _locked(method):
    """Run ``method`` holding the prober's lock: its DuckDB connection is not safe to use from
    two threads at once, and its table cache fills lazily (a half-read table seen by another
    thread gave TypeErrors and false MissingTableErrors).  Reentrant: lookups nest."""
    @functools.wraps(method)
    def run(self, *args, **kwargs):
        with self._lock:
            return method(self, *args, **kwargs)
    return run


class Prober:
    """Lookups over one open store (``tbdb.Tablebase`` holds one); safe to share between
    threads (each public method holds one lock; lookups are CPU-bound under the GIL anyway)."""
    LOAD_LIMIT = 50_000_000  # rows beyond which single lookups query the file, not memory

    def __init__(self, store):
        self.store = store
        self.tables: dict[tuple[str, str], _Table] = {}
        self.stats = ProbeStats()
        self._built_names: dict[str, list[str]] = {}  # games that search their tables
        self._lock = threading.RLock()

    # ------------------------------------------------------------------ tables

    @_locked
    def table(self, game, name: str, what: str, full: bool = False) -> _Table:
        t = self.tables.get((game.name, name))
        if t is None:
            try:
                row = self.store.require_table(game.name, name, what, game.build_command(name))
            except MissingTableError:
                self.stats.misses += 1
                raise
            size = row["slots"] if row["storage"] == "index" else row["positions"]
            t = self.tables[(game.name, name)] = _Table(self.store, game, row,
                                                        load=size <= self.LOAD_LIMIT)
            self.stats.tables_loaded += t.loaded
        if full and not t.loaded:
            t.load()
            self.stats.tables_loaded += 1
        return t

    def _damaged(self, game, t: _Table, what: str, key) -> DamagedTableError:
        return DamagedTableError(
            f"table {t.name!r} of {game.name} in {self.store.path!r} has no row for {what} "
            f"(key {key}): the table is damaged; rebuild it with: "
            f"{game.build_command(t.name)} --rebuild {t.name} --db {self.store.path}")

    # ------------------------------------------------------------------ search

    def _built(self, game) -> list[str]:
        names = self._built_names
        if game.name not in names:
            names[game.name] = sorted(t for t, s in self.store.states(game.name).items()
                                      if s == "done")
        return names[game.name]

    def _search(self, game, loc: Location, what: str, text: str | None = None, **options):
        """(Location, value) of a key that ``game.locate`` left without a table (``table``
        None): the first of ``game.search_tables(built tables, **options)`` holding it, else
        ``MissingTableError`` with ``game.cover_command(key, text, **options)``."""
        for name in game.search_tables(self._built(game), **options):
            got = self.table(game, name, what).wdl(loc.key)
            if got is not None:
                return Location(name, loc.key, loc.sym, loc.plies), got
        self.stats.misses += 1
        raise MissingTableError(f"{what} is in no built {game.name} table of {self.store.path!r}"
                                + self._cover(game, loc.key, text, **options))

    def _cover(self, game, key, text: str | None, **options) -> str:
        """The end of a miss's message: the build that would hold ``key``, or that none can."""
        cmd = game.cover_command(key, text, **options)
        if cmd is None:
            return "; no build this tbdb can make holds it (too far from the end of the game)"
        return f"; build one that holds it with: {cmd} --db {self.store.path}"

    # ------------------------------------------------------------------ single positions

    @_locked
    def value(self, game, position, **options) -> tuple:
        """The stored value of a position object: (Location or GameOver, value) where value is
        (result, distance, best code) for win/draw/loss games, (score, best code) for score
        games; best codes are on the stored position (map them with ``game.move_text``)."""
        self.stats.probes += 1
        try:
            loc = game.locate(position, **options)
        except MissingTableError:  # a position no table of the game can hold: a miss too
            self.stats.misses += 1
            raise
        if isinstance(loc, GameOver):
            self.stats.hits += 1
            return loc, ((loc.score or 0, -1) if game.value_kind == "score"
                         else (loc.result, 0, -1))
        if loc.table is None:  # the game keeps positions in several tables: find the one
            text = game.text(position)
            loc, got = self._search(game, loc, f"position {text!r}", text, **options)
            self.stats.hits += 1
            return loc, got
        t = self.tables.get((game.name, loc.table))  # the text only when a message needs it
        if t is None:
            t = self.table(game, loc.table, f"position {game.text(position)!r}")
        got = t.score(loc.key, loc.plies) if game.value_kind == "score" else t.wdl(loc.key)
        if got is None:
            raise self._damaged(game, t, f"position {game.text(position)!r}", loc.key)
        self.stats.hits += 1
        return loc, got

    def _best_code(self, game, position, got: tuple, **options) -> int:
        """The stored best-move code, or for tables that store none (-1 at a distance above 0)
        the one the game derives from the children's stored values."""
        if got[-1] >= 0 or game.value_kind != "wdl" or got[1] <= 0:
            return got[-1]
        return game.derive_best(position, got,
                                lambda child: self.value(game, child, **options)[1])

    @_locked
    def lookup(self, game, position, **options) -> LookupResult:
        position = game.coerce(position)
        loc, got = self.value(game, position, **options)
        sym = loc.sym if isinstance(loc, Location) else 0
        text = game.text(position)
        code = self._best_code(game, position, got, **options)
        best = game.move_text(position, code, sym) if code >= 0 else None
        if game.value_kind == "score":
            plies = loc.plies if isinstance(loc, Location) else options.get(game.plies_option)
            r = LookupResult(game.name, text, score_outcome(got[0]), None, best,
                             {"score": got[0], game.plies_option: plies})
        else:
            r = LookupResult(game.name, text, outcome_name(got[0]), got[1], best)
        return r._attach(lambda: self.moves(game, position, best, **options),
                         lambda: self.line(game, position, **options))

    @_locked
    def moves(self, game, position, best: str | None = None, **options) -> list[MoveResult]:
        """Every legal move with what it leads to: best first, the stored best move first among
        moves of equal value, the rest of a tie in the game's move order."""
        out = []
        for s in game.successors(position, **options):
            _, got = self.value(game, s.position, **s.options)
            child = game.text(s.position)
            if game.value_kind == "score":
                score = s.gain - got[0]
                out.append(MoveResult(s.move, score_outcome(score), None, child,
                                      {"score": score}))
            else:
                r, d = got[0], got[1]
                outcome = outcome_name(r if s.same_side else -r)
                out.append(MoveResult(s.move, outcome, 0 if r == DRAW else d + 1, child))
        out.sort(key=lambda m: (m.value_key(), m.move != best))
        return out

    @_locked
    def line(self, game, position, **options) -> list[LineStep]:
        """Best moves from ``position`` to the end of the game (or to a repeated position, for a
        draw), with the value of each position reached for its side to move."""
        steps: list[LineStep] = []
        seen = {game.text(position)}
        while len(steps) < MAX_LINE:
            loc, got = self.value(game, position, **options)
            code = self._best_code(game, position, got, **options)
            if code < 0:
                break
            sym = loc.sym if isinstance(loc, Location) else 0
            move = game.move_text(position, code, sym)
            nxt = next(s for s in game.successors(position, **options) if s.move == move)
            position, options = nxt.position, nxt.options
            _, after = self.value(game, position, **options)
            text = game.text(position)
            if game.value_kind == "score":
                steps.append(LineStep(move, text, score_outcome(after[0]), None,
                                      {"score": after[0]}))
            else:
                steps.append(LineStep(move, text, outcome_name(after[0]), after[1]))
            if text in seen:
                break
            seen.add(text)
        return steps

    # ------------------------------------------------------------------ batch

    def _search_rows(self, game, keys: np.ndarray, rows: np.ndarray, **options):
        """(result, distance, best) of key rows ``keys`` int64[m, 3] found in the tables
        ``game.search_tables`` names (win/draw/loss key tables)."""
        m = len(keys)
        result = np.full(m, NONE, np.int8)
        distance = np.zeros(m, np.int16)
        best = np.full(m, -1, np.int32)
        todo = np.arange(m)
        for name in game.search_tables(self._built(game), **options):
            if not len(todo):
                break
            t = self.table(game, name, f"row {int(rows[todo[0]])}", full=True)
            at = kernels._find_rows3(t.keys, np.ascontiguousarray(keys[todo]))
            hit = at >= 0
            sel = todo[hit]
            result[sel], distance[sel], best[sel] = (t.result[at[hit]], t.distance[at[hit]],
                                                     t.best[at[hit]])
            todo = todo[~hit]
        if len(todo):
            self.stats.misses += 1
            key = tuple(int(x) for x in keys[todo[0]])
            raise MissingTableError(f"row {int(rows[todo[0]])} is in no built {game.name} table "
                                    f"of {self.store.path!r}"
                                    + self._cover(game, key, None, **options))
        return result, distance, best

    @_locked
    def lookup_arrays(self, game, *arrays, **options):
        """The batch form: the game turns its arrays into (table, key, symmetry) per row; here
        the rows are grouped by table and their values gathered.  Win/draw/loss games return
        (result int8[n], distance int16[n], best move int32[n]); score games (score int16[n],
        best move int32[n]).  Best moves are codes on each row's own position (-1: none)."""
        loc = game.batch_locate(*arrays, **options)
        n = len(loc.which)
        self.stats.probes += n
        best = np.full(n, -1, np.int32)
        if game.value_kind == "score":
            value = loc.over.astype(np.int16)
        else:
            value = loc.over.astype(np.int8)
            distance = np.zeros(n, np.int16)
        for i, name in enumerate(loc.tables):
            rows = np.flatnonzero(loc.which == i)
            if name is None and len(rows):  # search the game's tables (see ``_search``)
                value[rows], distance[rows], best[rows] = self._search_rows(
                    game, loc.keys[rows], rows, **options)
                continue
            if not len(rows):
                continue
            t = self.table(game, name, f"row {int(rows[0])}", full=True)
            keys = loc.keys[rows]
            if t.storage == "runs":
                r = t.runs
                sc, mv = kernels._run_values(r.offsets, r.start, r.score, r.move, keys,
                                             loc.plies[rows].astype(np.int16))
                value[rows], best[rows] = sc, mv
                continue
            if t.storage == "index":
                at = keys
            else:
                at = kernels._find_rows3(t.keys, keys)
                if (at < 0).any():
                    raise self._damaged(game, t, f"row {int(rows[np.argmax(at < 0)])}",
                                        keys[np.argmax(at < 0)].tolist())
            res = t.result[at]
            if (res == NONE).any():
                bad = int(np.argmax(res == NONE))
                raise self._damaged(game, t, f"row {int(rows[bad])}", int(at[bad]))
            value[rows], distance[rows], best[rows] = res, t.distance[at], t.best[at]
        self.stats.hits += n
        best = game.batch_moves(best, loc.sym)
        if game.value_kind == "score":
            return value, best
        return value, distance, best

