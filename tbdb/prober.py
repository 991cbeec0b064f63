"""The prober: answers lookups for every game from one store.

A game says where a position's value is (``locate``: table, key, symmetry) and how a stored
move reads on the original position (``move_text``); its storage kind (``tbdb.storage``) reads
a table into memory on first use (or probes the file row by row for very large tables) and
shapes its values; everything else is here: the built-or-missing check, damaged tables, the
moves list best first, principal variations, the batch form, and probe statistics.
"""
from __future__ import annotations

import functools
import threading
from dataclasses import dataclass

import numpy as np

from tbdb.errors import ClosedError, DamagedTableError, MissingTableError
from tbdb.games.base import Game, GameOver, Location
from tbdb.results import OUTCOMES, DerivedBest, LineStep, LookupResult, MoveResult
from tbdb.solvers.retrograde import NONE
from tbdb.storage import RowMissing, StoredTable, storage_of

MAX_LINE = 1000  # plies of a principal variation at most (a drawn line stops at a repetition)


@dataclass
class ProbeStats:
    """What a prober has done: positions probed, answered from a table (hits), refused because
    a table is missing (misses), and tables read into memory."""
    probes: int = 0
    hits: int = 0
    misses: int = 0
    tables_loaded: int = 0


def _locked(method):
    """Run ``method`` holding the prober's lock: its DuckDB connection is not safe to use from
    two threads at once, and its table cache fills lazily (a half-read table seen by another
    thread gave TypeErrors and false MissingTableErrors).  Reentrant: lookups nest."""
    @functools.wraps(method)
    def run(self, *args, **kwargs):
        with self._lock:
            if self.closed:  # a result's moves or line read after its tablebase was closed
                raise ClosedError(f"tablebase {self.store.path!r} is closed: read a result's "
                                  f"moves, line() and to_dict() before closing it")
            return method(self, *args, **kwargs)
    return run


class Prober:
    """Lookups over one open store (``tbdb.Tablebase`` holds one); safe to share between
    threads (each public method holds one lock; lookups are CPU-bound under the GIL anyway)."""
    LOAD_LIMIT = 50_000_000  # rows beyond which single lookups query the file, not memory
    closed = False  # ``close``: every method then raises ClosedError

    def __init__(self, store):
        self.store = store
        self.tables: dict[tuple[str, str], StoredTable] = {}
        self._stats = ProbeStats()
        self._counted = 0  # the routes' answers already in ``_stats``
        self._built_names: dict[str, list[str]] = {}  # games that search their tables
        self._lock = threading.RLock()
        self._routes: dict = {}  # per game name: its single lookups' way to libtbprobe (``route``)

    @property
    def stats(self) -> ProbeStats:
        """What this prober has done, the lookups libtbprobe's routes answered in C included
        (counted there: a Python counter each would cost every lookup a step)."""
        native = getattr(self.store, "native", None)
        if native is not None:
            n = native.routed
            if n != self._counted:
                self._stats.probes += n - self._counted
                self._stats.hits += n - self._counted
                self._counted = n
        return self._stats

    # ------------------------------------------------------------------ tables

    @_locked
    def table(self, game, name: str, what: str, full: bool = False) -> StoredTable:
        t = self.tables.get((game.name, name))
        if t is None:
            try:
                row = self.store.require_table(game.name, name, what, game.build_command(name))
            except MissingTableError:
                self._stats.misses += 1
                raise
            t = self.tables[(game.name, name)] = self.store.open_table(
                row, load=storage_of(row).size(row) <= self.LOAD_LIMIT)
            self._stats.tables_loaded += t.loaded
        if full and not t.loaded:
            t.load()
            self._stats.tables_loaded += 1
        return t

    def _damaged(self, game, t: StoredTable, what: str, key) -> DamagedTableError:
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

    def search(self, game, loc: Location, what: str, text: str | None = None, **options):
        """(Location, value) of a key that ``game.locate`` left without a table (``table``
        None): the first of ``game.search_tables(built tables, **options)`` holding it, else
        ``MissingTableError`` with ``game.cover_command(key, text, **options)``."""
        for name in game.search_tables(self._built(game), **options):
            got = self.table(game, name, what).probe(loc.key, loc.plies)
            if got is not None:
                return Location(name, loc.key, loc.sym, loc.plies), got
        self._stats.misses += 1
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
        if game.by_children(position):
            return self._value_by_children(game, position, **options)
        self._stats.probes += 1
        try:
            loc = game.locate(position, **options)
        except MissingTableError:  # a position no table of the game can hold: a miss too
            self._stats.misses += 1
            raise
        if isinstance(loc, GameOver):
            self._stats.hits += 1
            return loc, storage_of(game).over_value(loc)
        if loc.table is None:  # the game keeps positions in several tables: find the one
            text = game.text(position)
            loc, got = self.search(game, loc, f"position {text!r}", text, **options)
            self._check_result(game, loc, got, position)
            self._stats.hits += 1
            return loc, got
        t = self.tables.get((game.name, loc.table))  # the text only when a message needs it
        if t is None:
            t = self.table(game, loc.table, f"position {game.text(position)!r}")
        got = t.probe(loc.key, loc.plies)
        if got is None:
            raise self._damaged(game, t, f"position {game.text(position)!r}", loc.key)
        self._check_result(game, loc, got, position)
        self._stats.hits += 1
        return loc, got

    def _check_result(self, game, loc, got: tuple, position) -> None:
        """A stored win/draw/loss value whose result is no outcome (ILLEGAL, NONE or any other
        code, in a crafted or damaged file whose checksums pass) is damage, said in one line:
        every reader after this takes ``got[0]`` for an outcome (a KeyError in
        ``outcome_name``)."""
        if len(got) == 3 and int(got[0]) not in OUTCOMES:
            raise self._bad_value(game, loc.table, position,
                                  f"result code {int(got[0])}, no outcome")

    def _bad_value(self, game, table: str | None, position, what: str) -> DamagedTableError:
        """The error of a stored value no lookup can use (``what``: which, and why)."""
        return DamagedTableError(
            f"table {table!r} of {game.name} in {self.store.path!r} holds {what}, for position "
            f"{game.text(position)!r}: the table is damaged; run: tbdb verify --db "
            f"{self.store.path}")

    def _value_by_children(self, game, position, **options) -> tuple:
        """The value of a position no table stores but its children are (``Game.by_children``:
        a position with an en passant right) by the rule every table is solved by (a win
        through the quickest lost child, else a draw, else the longest loss); best: the first
        move in the game's order realising it, as a code of the position itself (``move_text``
        with sym 0).
        Win/draw/loss games only."""
        from tbdb.solvers.retrograde import DRAW, LOSS, WIN
        rows = []
        for s in game.successors(position, **options):
            _, got = self.value(game, s.position, **s.options)
            rows.append((s.move, int(got[0]), int(got[1])))
        lost = [d for _, r, d in rows if r == LOSS]
        if lost:
            result, distance = WIN, min(lost) + 1
        elif any(r not in (WIN, LOSS) for _, r, _ in rows):
            result, distance = DRAW, 0
        else:
            result, distance = LOSS, max((d for _, _, d in rows), default=-1) + 1
        want = {WIN: (LOSS, distance - 1), LOSS: (WIN, distance - 1)}.get(result)
        best = next((m for m, r, d in rows if (r, d) == want or
                     (want is None and r not in (WIN, LOSS))), None)
        code = game.move_code(position, best) if best is not None else -1
        return Location("", None, 0), (result, distance, code)

    def _best_move(self, game, position, loc, got: tuple, **options) -> str | None:
        """The stored best move as text.  For a table that stores none (code -1: probe files
        exported with --no-moves, star distance placements) it is derived from the children's
        stored values: the game's own ``derive_best`` if it has one, else the first move in the
        game's move order whose value is the position's own, the rule every solver stores
        best moves by (docs/kernel-contract.md).  None where the game is over."""
        sym = loc.sym if isinstance(loc, Location) else 0
        code = got[-1]
        kind = storage_of(game)
        if code < 0 and kind.derives_best and not isinstance(loc, GameOver):
            code = game.derive_best(position, got,
                                    lambda child: self.value(game, child, **options)[1])
            if code < 0:
                return self._first_realising(game, position, loc, got, **options)
        if code < 0:
            return None
        try:
            return game.move_text(position, code, sym)
        except (ValueError, IndexError, KeyError):  # a code no move has, or not this one's
            raise self._bad_value(game, getattr(loc, "table", None), position,
                                  f"best move code {int(code)}, no move of it") from None

    def _first_realising(self, game, position, loc, got: tuple, **options) -> str | None:
        kind = storage_of(game)
        own = kind.lookup_result(game, "", got, None, loc, options)
        for s in game.successors(position, **options):
            _, after = self.value(game, s.position, **s.options)
            m = kind.move_result(s, after, "")
            if (m.outcome, m.distance) == (own.outcome, own.distance):
                return s.move
        return None

    # libtbprobe (a directory of probe files with tbdb._tbprobe built: probe_files/native.py)
    # answers a stored value with a stored best move in one call; anything else is the Python
    # path's, which also hands each table it opens to C for the lookups after

    def _native_for(self, game, options):
        native = getattr(self.store, "native", None)
        if native is None or options or not native.serving(game):
            return None
        return native

    def _c_answer(self, native, name: str, text: str, got=None):
        """libtbprobe's (result, distance, score, best move) for a position's text, or None:
        the Python path's.  A table C does not hold yet (it names it) is opened and checked as
        the Python path opens it and handed over, then asked again, so that a table's first
        lookup builds no Python decoder; a table the manifest does not list, or a file that
        fails a check, is the Python path's (and its error's).  ``got``: C's answer already
        asked for (``route``)."""
        if got is None:
            got = native.base.probe(name, text, -1)
        if type(got) is str:
            if not self.store.native_open(name, got):
                return None
            got = native.base.probe(name, text, -1)
        if type(got) is not tuple or got[3] is None:
            return None
        native.asked += 1
        self._stats.probes += 1
        self._stats.hits += 1
        return got

    def _fast(self, native, game, position, text: str):
        """(result, distance, best move text) from libtbprobe, or None."""
        if native is None or game.by_children(position):
            return None
        got = self._c_answer(native, game.name, text)
        return None if got is None else (got[0], got[1], got[3])

    def _slow(self, native, game, position, **options) -> tuple:
        """``value``, and the table it read handed to libtbprobe."""
        loc, got = self.value(game, position, **options)
        if native is not None and isinstance(loc, Location) and loc.table:
            self.store.native_add(game.name, loc.table)
        return loc, got

    def route(self, game):
        """How single lookups of ``game`` without options go to libtbprobe, worked out once per
        game: (the position type, ``lookup``, the game), where ``lookup(position)`` (a position
        object, the prober's lock held) is the ``LookupResult`` from one call into C where C
        answers it (a stored value, with its stored best move or as a ``DerivedBest``), else
        None (``lookup_python``'s, which does not ask C again); None for a game C does not
        serve.  ``lookup_held`` calls
        it, and ``Tablebase.lookup`` directly for an engine's call.  The call is the
        extension's ``Route``: text, probe, the table's file opened when C asks for it
        (``native_open``), and the result with its ``_source`` made in C.  Why: on a table not
        probed lately every Python step meets cold caches and costs more than the probe (the
        Python route of the same steps was a large share of a warm lookup's time, more cold)."""
        if game.name in self._routes:
            return self._routes[game.name]
        route = self._routes[game.name] = self._make_route(game, {}, -1)
        return route

    def option_route(self, game, position, options: dict):
        """The route of a lookup with ``options`` that libtbprobe answers with a constraint in
        place of the text's (``Game.native_constraint``: a star's lone player), made once per
        constraint; None where C does not answer it."""
        constraint = game.native_constraint(position, options)
        if constraint is None:
            return None
        key = (game.name, constraint)
        if key not in self._routes:
            self._routes[key] = self._make_route(game, dict(options), constraint)
        return self._routes[key]

    def _make_route(self, game, options: dict, constraint: int):
        native = getattr(self.store, "native", None)
        if native is None or not native.serving(game):
            return None
        kind = type(game)
        extras = kind.lookup_extras is not Game.lookup_extras
        children = kind.by_children is not Game.by_children
        # (``_source``'s options: one dict for every result, read only as ``**options``)
        # a value without a stored best move: a DerivedBest (``lookup_python`` makes the same)
        derived = DerivedBest if storage_of(game).derives_best else None
        lookup = native.base.route(game.name, LookupResult,
                                   (OUTCOMES[-1], OUTCOMES[0], OUTCOMES[1]), self, game,
                                   options, self.store.native_open, derived, constraint)
        if extras or children:
            c_lookup = lookup

            def lookup(position):
                if children and game.by_children(position):
                    return None
                r = c_lookup(position)
                if r is not None and extras:
                    r.extras.update(game.lookup_extras(position, r))
                return r
        return (game.position_type, lookup, game)

    def drop_routes(self) -> None:
        """Forget the routes (``Tablebase.close``): each holds libtbprobe's base, whose files
        stay mapped until the last is gone."""
        self._routes.clear()

    def close(self) -> None:
        """Refuse everything from now on (``ClosedError``), before the store closes
        (``Tablebase.close``): results keep their prober to read ``moves`` and ``line()``
        when first asked for, and its tables' arrays view files that are unmapped then (a
        read segfaulted, or said the file was damaged)."""
        with self._lock:
            self.closed = True
            self.tables.clear()
            self.drop_routes()

    @_locked
    def lookup(self, game, position, **options) -> LookupResult:
        return self.lookup_held(game, position, **options)

    def lookup_held(self, game, position, **options) -> LookupResult:
        """``lookup`` for a caller that holds the lock (``Tablebase.lookup``)."""
        position = game.coerce(position)
        route = self.route(game) if not options else self.option_route(game, position, options)
        if route is not None:  # C is asked here or not at all
            r = route[1](position)
            if r is not None:
                return r
        return self.lookup_python(game, position, **options)

    def lookup_python(self, game, position, **options) -> LookupResult:
        """``lookup_held`` of a position object without asking libtbprobe (asked already, or
        not serving it): the stores' values and the game's rules."""
        native = self._native_for(game, options)
        text = game.text(position)
        loc, got = self._slow(native, game, position, **options)
        kind = storage_of(game)
        if got[-1] < 0 and kind.derives_best and not isinstance(loc, GameOver):
            # no stored best move: derived when read (``DerivedBest``), not with the value
            r = kind.lookup_result(game, text, got, None, loc, options)
            del r.__dict__["best_move"]
            r.__class__ = DerivedBest
            best = None
        else:
            best = self._best_move(game, position, loc, got, **options)
            r = kind.lookup_result(game, text, got, best, loc, options)
        r.extras.update(game.lookup_extras(position, r))
        r.__dict__["_source"] = (self, game, position, best, options)
        return r

    def derived_best(self, game, position, **options) -> str | None:
        """The best move of a position whose table keeps none (``DerivedBest.best_move``)."""
        loc, got = self.value(game, position, **options)
        return self._best_move(game, position, loc, got, **options)

    @_locked
    def moves(self, game, position, best: str | None = None, **options) -> list[MoveResult]:
        """Every legal move with what it leads to: best first, the stored best move first among
        moves of equal value, the rest of a tie in the game's move order."""
        kind = storage_of(game)
        native = self._native_for(game, options)
        out = []
        for s in game.successors(position, **options):
            text = game.text(s.position)
            got = self._fast(native, game, s.position, text) if not s.options else None
            if got is None:
                _, got = self._slow(native, game, s.position, **s.options)
            m = kind.move_result(s, got, text)
            m.extras.update(game.move_extras(position, s, m))
            out.append(m)
        out.sort(key=lambda m: (m.value_key(), m.move != best))
        return out

    @_locked
    def line(self, game, position, **options) -> list[LineStep]:
        """Best moves from ``position`` to the end of the game (or to a repeated position, for a
        draw), with the value of each position reached for its side to move."""
        kind = storage_of(game)
        steps: list[LineStep] = []
        text = game.text(position)
        seen = {text}
        while len(steps) < MAX_LINE:
            native = self._native_for(game, options)
            fast = self._fast(native, game, position, text)
            move = fast[2] if fast is not None else None
            successors = list(game.successors(position, **options))
            nxt = next((s for s in successors if s.move == move), None)
            if nxt is None:  # the Python path's best move (or none: the game is over)
                loc, got = self._slow(native, game, position, **options)
                move = self._best_move(game, position, loc, got, **options)
                if move is None:
                    break
                nxt = next((s for s in successors if s.move == move), None)
                if nxt is None:  # a stored best move that is not legal here
                    raise self._bad_value(game, getattr(loc, "table", None), position,
                                          f"best move {move!r}, not a legal move of it")
            position, options = nxt.position, nxt.options
            text = game.text(position)
            native = self._native_for(game, options)
            after = self._fast(native, game, position, text)
            if after is None:
                _, after = self._slow(native, game, position, **options)
            steps.append(kind.line_step(move, text, after))
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
            at = t.find(np.ascontiguousarray(keys[todo]))
            hit = at >= 0
            sel = todo[hit]
            result[sel], distance[sel], best[sel] = (t.result[at[hit]], t.distance[at[hit]],
                                                     t.best[at[hit]])
            todo = todo[~hit]
        if len(todo):
            self._stats.misses += 1
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
        self._stats.probes += n
        cols = storage_of(game).batch_columns(loc.over)  # the value columns, best move last
        # the rows of each table, from one sort (a scan of ``which`` per table made a batch
        # spread over a thousand CDC tables cost a thousand passes over it)
        order = loc.grouped  # (a game that grouped its rows to locate them)
        if order is None:
            which = loc.which
            if len(loc.tables) < 1 << 15:  # 16-bit keys: NumPy's stable sort is a radix sort
                which = which.astype(np.int16)
            order = np.argsort(which, kind="stable")
        bounds = np.searchsorted(loc.which[order], np.arange(len(loc.tables) + 1))
        together: tuple[list, list] = ([], [])  # tables whose store gathers them in one call
        for i, name in enumerate(loc.tables):
            rows = order[bounds[i]:bounds[i + 1]]
            if not len(rows):
                continue
            if name is None:  # search the game's tables (see ``_search``)
                found = self._search_rows(game, loc.keys[rows], rows, **options)
            else:
                t = self.table(game, name, f"row {int(rows[0])}", full=True)
                if loc.plies is None and getattr(t, "gathers_with_others", False):
                    together[0].append(t)
                    together[1].append(rows)
                    continue
                plies = loc.plies[rows] if loc.plies is not None else None
                try:
                    found = t.gather(loc.keys[rows], plies)
                except RowMissing as missing:
                    raise self._damaged(game, t, f"row {int(rows[missing.row])}",
                                        missing.key) from None
            for col, got in zip(cols, found):
                col[rows] = got
        if together[0]:
            tables, parts = together
            rows = np.concatenate(parts)
            try:
                found = self.store.gather_index(tables, parts, loc.keys[rows])
            except RowMissing as missing:
                at = int(np.searchsorted(np.cumsum([len(p) for p in parts]), missing.row,
                                         side="right"))
                raise self._damaged(game, tables[at], f"row {int(rows[missing.row])}",
                                    missing.key) from None
            for col, got in zip(cols, found):
                col[rows] = got
        for row, position in loc.by_children:
            for col, got in zip(cols, self._value_by_children(game, position)[1]):
                col[row] = got
        self._stats.hits += n
        return (*cols[:-1], game.batch_moves(cols[-1], loc.sym))
