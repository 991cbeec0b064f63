"""The Python query API: ``tbdb.open(path)`` and ``tbdb.lookup(position)``."""
from __future__ import annotations

import contextlib
import inspect
import os
import threading
from typing import TYPE_CHECKING, Any, Iterable

from tbdb import games
from tbdb.errors import (ClosedError, InvalidArrayError, InvalidOptionError,
                         MissingTableError, NotADatabaseError, quote)
from tbdb.options import check_names, resolve
from tbdb.probe_files import ProbeFileError
from tbdb.results import LookupResult

if TYPE_CHECKING:
    from tbdb.prober import ProbeStats

# DuckDB, NumPy, Numba, the games and the prober are imported when a lookup first needs them,
# not with this module: a lookup of text on probe files that libtbprobe answers needs none of
# them (``probe_files/text_lookups.py``), and they took most of a fresh process's first answer.


class Tablebase:
    """An open tablebase file, read-only.  Use as a context manager or call ``close()``.

    ``lookup`` raises ``MissingTableError`` (a KeyError) for a position outside the built
    tables and ``InvalidPositionError`` (a ValueError) for malformed text; ``get`` returns
    None where ``lookup`` would raise ``MissingTableError``.
    """

    def __init__(self, path: str | None = None):
        if path is None:
            from tbdb.db.connect import default_db_path
            path = default_db_path()
        self.path = os.fsdecode(path) if isinstance(path, (bytes, os.PathLike)) else str(path)
        if "\0" in self.path:  # (os.stat's own error names no file)
            raise NotADatabaseError(f"{quote(self.path)} names no file: a path cannot hold a "
                                    f"null byte")
        self.probe_files = os.path.isdir(self.path)
        self.closed = False
        # per game name as asked for: the prober's route to libtbprobe (``Prober.route``)
        self._routes: dict = {}
        self._functions = None
        self._store = self._prober = None
        self._making = threading.Lock()  # the Python path is made once (``_python_path``)
        self._text = None  # a directory's lookups of text answered in C (``text_lookups``)
        if self.probe_files:  # a directory of probe files (tbdb export): no DuckDB at all
            from tbdb.probe_files.text_lookups import TextLookups
            self._text = TextLookups.open(self.path)
        if self._text is None:
            self._python_path()

    def _python_path(self) -> None:
        """The store and the prober every lookup but C's text lookups goes through: on a
        directory made when first needed, over the text lookups' libtbprobe base."""
        with self._making:
            if self._prober is not None:
                return
            from tbdb.prober import Prober
            if self.probe_files:
                from tbdb.probe_files.directory import ProbeDir
                store = ProbeDir(self.path, opened=self._text)
            else:
                from tbdb.db import sql_functions
                from tbdb.db.store import Store
                store = Store(self.path, read_only=True)
                self._functions = sql_functions.register(store, Prober)
            self._store = store
            self._prober = Prober(store)

    @property
    def store(self):
        if self._prober is None:
            self._python_path()
        return self._store

    @property
    def prober(self):
        if self._prober is None:
            self._python_path()
        return self._prober

    def _source(self, game: str, text: str, best: str | None) -> tuple:
        """The ``_source`` of a result C answered (``TextLookups.lookup``), for its ``moves``
        and ``line()``: the Python path's prober and the position object."""
        if self.closed:  # (the prober's own words, which it says once made)
            raise ClosedError(f"tablebase {self.path!r} is closed: read a result's moves, "
                              f"line() and to_dict() before closing it")
        g = games.get(game)
        return (self.prober, g, g.coerce(text), best, {})

    def _game(self, position: Any, game: str | None):
        if game is not None:
            return games.get(game)
        if isinstance(position, str):
            from tbdb.games.base import read_padded
            return read_padded(games.guess, position)  # as coerce reads it
        for g in games.all_games():
            if g.accepts(position):
                return g
        return games.guess(str(position))

    @contextlib.contextmanager
    def _reading(self):
        """DuckDB's error for a block it cannot read (the file cut short or overwritten) as
        ``DamagedDatabaseError`` naming the file."""
        try:
            yield
        except Exception as exc:
            _reraise(self.path, exc)
            raise

    def _check_open(self) -> None:
        if self.closed:
            raise ClosedError(f"tablebase {self.path!r} is closed")

    def lookup(self, position: Any, *, game: str | None = None, **options) -> LookupResult:
        """The value of one position: text (the game is recognised from its notation, or give
        ``game=``) or a game's position object.  Options are the game's lookup options
        (``tbdb games`` lists them)."""
        # an engine's call (a position object, the game named) on probe files: the fewest
        # Python steps to libtbprobe (``Prober.route``); each on a table not probed lately
        # meets cold caches, and these few cost more than the call and its result
        route = self._routes.get(game)
        if route is not None and type(position) is route[0] and not options:
            with self._lock:
                if self.closed:
                    self._check_open()
                return route[1](position) or self.prober.lookup_python(route[2], position)
        if self._text is not None and type(position) is str and not options:
            r = self._text.lookup(position, game, self._source)
            if r is not None:
                return r
        self._check_open()
        g = self._game(position, game)
        if game is not None and game not in self._routes and self.probe_files:
            self._routes[game] = self.prober.route(g)
            self._lock = self.prober._lock
        opts = resolve(f"{g.name} lookup", g.lookup_options, options) \
            if options or g.lookup_options else {}
        with self.prober._lock:  # not closed by another thread before it answers
            self._check_open()
            try:  # ``_reading`` written out: its generator cost a microsecond of ~20 a lookup
                return self.prober.lookup_held(g, position, **opts)
            except Exception as exc:
                _reraise(self.path, exc)
                raise

    def get(self, position: Any, *, game: str | None = None, **options) -> LookupResult | None:
        """As ``lookup``, but None for a position whose table is not built."""
        try:
            return self.lookup(position, game=game, **options)
        except MissingTableError:
            return None

    def lookup_many(self, positions: Iterable, *, game: str | None = None,
                    **options) -> list[LookupResult]:
        """Many positions at once (texts or position objects), in order."""
        return [self.lookup(p, game=game, **options) for p in positions]

    def lookup_arrays(self, game: str, *arrays, **options):
        """The fast batch form on encoded arrays, for engines (each game's ``batch_locate``
        documents its arrays)."""
        self._check_open()
        g = games.get(game)
        check_names(f"{g.name} lookup_arrays", g.lookup_options, options)
        with self.prober._lock, self._reading():
            self._check_open()
            _check_arity(g, arrays, options)
            return self.prober.lookup_arrays(g, *arrays, **options)  # the game checks them

    def load(self, game: str, *tables: str) -> int:
        """Read tables of ``game`` into memory now (every built one when none is named), so
        single lookups in them take microseconds however large they are (on first use tables
        above ``Prober.LOAD_LIMIT`` rows are probed in the file instead).  On a directory of
        probe files, index tables record every checkpoint of their blocks instead (one pass
        over each file; 0.5 bit a slot a stream): no probe then decodes more than 64 slots.
        Returns how many tables were read (on a directory: made ready); a table not built raises
        ``MissingTableError``."""
        self._check_open()
        g = games.get(game)
        names = tables or sorted(t for t, state in self.store.states(g.name).items()
                                 if state == "done")
        before = self.prober.stats.tables_loaded
        for name in names:
            if not isinstance(name, str):  # (check_table's regular expressions take text)
                raise InvalidOptionError(f"{g.name} load: a table name is text, not "
                                         f"{quote(name)}")
            table = g.check_table(name)
            with self._reading():
                t = self.prober.table(g, table, f"table {table!r}", full=True)
            if self.probe_files and hasattr(t, "index"):
                t.index()  # (key and run tables are views of their files: nothing to read)
        return len(names) if self.probe_files else self.prober.stats.tables_loaded - before

    def stats(self) -> ProbeStats:
        """Probes made, answered (hits), refused for a missing table (misses), tables loaded."""
        return self.prober.stats

    def tables(self, game: str | None = None) -> list[dict]:
        """The catalogue: one dict per stored table (game, table_name, params, counts, ...)."""
        self._check_open()
        return self.store.tables(None if game is None else games.get(game).name)

    def sql(self, query: str, params=None):
        """A DuckDB relation over the file (``.fetchall()``, ``.df()``, ``.arrow()``, ...);
        read-only like the file."""
        self._check_open()
        self._need_database("SQL")
        self.store.prepare_for_sql()
        return self.store.con.sql(query, params=params)

    def _need_database(self, what: str) -> None:
        if self.probe_files:
            raise ProbeFileError(f"{self.path!r} is a directory of probe files, which answer "
                                 f"lookups only: {what} needs the DuckDB database they were "
                                 f"exported from")

    def close(self) -> None:
        with self._making:
            if self._prober is None:  # only C answered: nothing of the Python path to close
                if not self.closed:
                    self._text.close()
                    self.closed = True
                return
        # under the prober's lock: a lookup running in another thread finishes first (it may be
        # reading a mapped file, or inside libtbprobe, which must not see its base freed)
        with self.prober._lock:
            if not self.closed:
                self.prober.close()  # first: results read through it (ClosedError after)
                if self._functions is not None:
                    self._functions.release()
                self.store.close()
                self.closed = True
                self._routes.clear()  # they hold libtbprobe's base: it closes with the last

    def __enter__(self) -> Tablebase:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        if self.closed:
            return f"<tbdb.Tablebase {self.path!r} (closed)>"
        if self.probe_files:
            return f"<tbdb.Tablebase {self.path!r} (probe files: {len(self.store.entries)} tables)>"
        rows = self.store.query("SELECT game, count(*) FROM build_checkpoints WHERE state = "
                                "'done' GROUP BY game ORDER BY game")
        tables = ", ".join(f"{g}: {n} tables" for g, n in rows) or "no tables"
        return f"<tbdb.Tablebase {self.path!r} ({tables})>"


def _reraise(path: str, exc: Exception) -> None:
    """DuckDB's error for a block it cannot read (the file cut short or overwritten) raised as
    ``DamagedDatabaseError`` naming the file; any other exception is left to the caller."""
    import sys
    duckdb = sys.modules.get("duckdb")  # (an error of DuckDB's means it is loaded)
    if duckdb is not None and isinstance(exc, duckdb.Error):
        from tbdb.db.connect import damaged, is_damage
        if is_damage(exc):
            raise damaged(path, exc) from exc


def _check_arity(g, arrays: tuple, options: dict) -> None:
    """``InvalidArrayError`` unless ``arrays`` are as many as ``g.batch_locate`` takes (its
    own TypeError named a method the caller never called)."""
    sig = inspect.signature(g.batch_locate)
    try:
        sig.bind(*arrays, **options)
    except TypeError:
        names = [p.name for p in sig.parameters.values()
                 if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        raise InvalidArrayError(f"{g.name} lookup_arrays takes the arrays ({', '.join(names)}); "
                                f"got {len(arrays)}{': ' if arrays else ''}"
                                f"{', '.join(_described(a) for a in arrays)}") from None


def _described(value) -> str:
    """An argument for a message, in one line: an array by its type and shape."""
    if hasattr(value, "dtype") and hasattr(value, "shape"):
        return f"{value.dtype}[{', '.join(map(str, value.shape))}]"
    return quote(value, 60)


def open(path: str | None = None) -> Tablebase:  # noqa: A001 - mirrors builtins.open on purpose
    """Open a tablebase file (default: $TBDB_DB, else ./tbdb.duckdb), or a directory of probe
    files written by ``tbdb export`` (lookups only, no DuckDB)."""
    return Tablebase(path)


_default: Tablebase | None = None


def lookup(position: Any, **options) -> LookupResult:
    """``open().lookup(...)`` on the default database, kept open between calls."""
    global _default
    from tbdb.db.connect import default_db_path
    if _default is None or _default.path != default_db_path():
        if _default is not None:
            _default.close()
        _default = Tablebase()
    return _default.lookup(position, **options)
