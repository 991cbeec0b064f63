"""The DuckDB store: opening files safely, the table catalogue, checkpoints, atomic bulk loads.

Two ways to open a file:

* ``Store(path)`` (a build): creates the file if needed, migrates it to the current schema with
  Alembic, and (re)creates the games' readable views.  Only builds (and ``tbdb upgrade``) do it.
* ``Store(path, read_only=True)`` (everything else): the file must already be a tbdb database at
  the current schema.  It is opened read-only with external access, extension loading and
  configuration changes switched off, so reading never changes a byte of the file.

Every table is written with its catalogue row, statistics and 'done' checkpoint in one
transaction, so a build killed at any moment leaves whole tables only.
"""
from __future__ import annotations

import copy
import datetime as dt
import json
import os
import re
import shutil
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

import duckdb
import numpy as np
import pyarrow as pa

from tbdb.errors import (DamagedDatabaseError, DamagedTableError, DatabaseBusyError,
                         MissingTableError, MissingValuesFileError, NotADatabaseError)
from tbdb.safe_files import kind, plain_mode

DEFAULT_DB_ENV = "TBDB_DB"
DEFAULT_DB = "tbdb.duckdb"
PACKAGE = Path(__file__).resolve().parent
# no extension is ever installed or loaded behind the user's back; tbdb draws its own progress
_NO_EXTENSIONS = {"autoinstall_known_extensions": False, "autoload_known_extensions": False}
# files a build creates are written in the storage format of DuckDB 1.0, which every DuckDB
# client from 1.0 on reads (the CLI, R, Java, other tools); a newer default format would lock
# them out.  The setting only shapes new files and new data; it never rewrites an old file.
STORAGE_COMPATIBILITY = "v1.0.0"
# what read-only connections may not do: touch other files or load code (``tbdb sql`` also locks
# the configuration, so no statement can switch these back on)
READ_CONFIG = {**_NO_EXTENSIONS, "enable_external_access": False}
# DuckDB's own buffers when writing: a build writes each table once and reads back little, but
# DuckDB keeps every block it wrote cached up to its limit (80% of RAM by default), so the whole
# file ended up resident (823 MB of a 4-piece CDC build's 1.38 GiB peak).  Sorts and joins
# beyond the limit spill to disk; 512 MB costs the CDC build no time and leaves it at 1.05 GiB.
WRITE_MEMORY_LIMIT = "512MB"
# rows per Arrow batch when an index table streams into its dense arrays (about 17 MB a batch)
LOAD_BATCH_ROWS = 1 << 20
# what builds write with (the DuckDB connection and Alembic's engine alike)
WRITE_CONFIG = {**_NO_EXTENSIONS, "storage_compatibility_version": STORAGE_COMPATIBILITY,
                "memory_limit": WRITE_MEMORY_LIMIT}


def default_db_path() -> str:
    """The database used when none is named: $TBDB_DB, else ./tbdb.duckdb."""
    return os.environ.get(DEFAULT_DB_ENV) or DEFAULT_DB


def _migrations_dir() -> Path:
    import tbdb.migrations
    return Path(tbdb.migrations.__file__).resolve().parent


def _alembic_config(connection=None):
    from alembic.config import Config
    cfg = Config()
    cfg.set_main_option("script_location", str(_migrations_dir()))
    if connection is not None:
        cfg.attributes["connection"] = connection
    return cfg


_REVISION = re.compile(r'^(down_revision|revision)\s*=\s*(?:"([^"]*)"|None)', re.M)


def revisions() -> list[str]:
    """Every schema revision this tbdb knows, oldest first.  Read from the migration files
    directly: importing Alembic (and SQLAlchemy) would cost read commands a second at start;
    tests/test_store.py checks the answer against Alembic's own."""
    parent: dict[str | None, str] = {}
    for f in sorted((_migrations_dir() / "versions").glob("*.py")):
        found = dict((k, v or None) for k, v in _REVISION.findall(f.read_text()))
        if "revision" in found:
            parent[found.get("down_revision")] = found["revision"]
    out, rev = [], parent.get(None)
    while rev is not None:
        out.append(rev)
        rev = parent.get(rev)
    return out


def head_revision() -> str:
    return revisions()[-1]


def _busy(path: str, exc: Exception):
    pid = re.search(r"\(PID (\d+)\)", str(exc))
    holder = f"process {pid.group(1)}" if pid else "another process"
    raise DatabaseBusyError(
        f"database {path!r} is held by {holder} (a build, or another program with the file "
        f"open for writing): DuckDB lets one process write a file and no other open it "
        f"meanwhile; wait for it to finish or stop it, then try again") from exc


def check_path(path: str, create: bool) -> None:
    """Clear errors for paths DuckDB would answer with a cryptic one, or hang on: only a
    regular file (or, to create, a new path) is ever opened.  ``os.stat`` only: opening a FIFO
    would wait for a writer forever."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise NotADatabaseError(f"cannot open {path!r}: {exc.strerror}") from None
    if mode is not None and stat.S_ISDIR(mode):
        raise NotADatabaseError(f"{path!r} is a directory, not a database file")
    if mode is not None and not stat.S_ISREG(mode):
        raise NotADatabaseError(f"{path!r} is {kind(mode)}, not a database file; tbdb opens "
                                f"only regular files")
    parent = os.path.dirname(os.path.abspath(path))
    if mode is None:
        if not create:
            raise FileNotFoundError(f"no tbdb database at {path!r}")
        if not os.path.isdir(parent):
            raise FileNotFoundError(f"cannot create {path!r}: directory {parent!r} does not exist")
        if not os.access(parent, os.W_OK):
            raise PermissionError(f"cannot create {path!r}: directory {parent!r} is not writable")
        return
    if os.path.getsize(path) == 0:
        # not created over: an empty file may be someone's placeholder, and DuckDB refuses it
        raise NotADatabaseError(f"{path!r} is an empty file (0 bytes), not a tbdb database: "
                                f"remove it, or name a new path, for `tbdb build` to create one")
    if create and (not os.access(path, os.W_OK) or not os.stat(path).st_mode & 0o222):
        # the mode bits too: root may write anything, but a file made read-only means "keep"
        raise PermissionError(f"database {path!r} is read-only; a build needs to write it")


# what DuckDB says of a file cut short or with blocks overwritten
_DAMAGE = ("corrupt database file", "could not read enough bytes", "does not match stored checksum")


def is_damage(exc: BaseException) -> bool:
    return any(d in str(exc).lower() for d in _DAMAGE)


def damaged(path: str, exc: BaseException) -> DamagedDatabaseError:
    """The error for a database file DuckDB cannot read whole (``exc``: what DuckDB said)."""
    return DamagedDatabaseError(
        f"database {path!r} is damaged (cut short or overwritten: {_first_line(str(exc))}): "
        f"not a tbdb database tbdb can read; restore it from a copy, or build its tables "
        f"again into a new file")


def check_blocks(con, path: str) -> None:
    """Read every row of every table once, so DuckDB checks every block's checksum: what a
    build, an upgrade or an import does before writing a byte (a file with a block overwritten
    is refused, not built on).  Linear in the file's size; readers skip it (a lookup reads a
    few blocks, and a damaged one fails then)."""
    tables = con.execute("SELECT schema_name, table_name FROM duckdb_tables() WHERE "
                         "database_name = current_database()").fetchall()
    try:
        for schema, table in tables:
            con.execute(f'SELECT count(hash(t)) FROM "{schema}"."{table}" AS t').fetchall()
    except duckdb.Error as exc:
        if is_damage(exc):
            raise damaged(path, exc) from None
        raise


def connect(path: str, read_only: bool, values: bool = True) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection with tbdb's settings; DuckDB's errors turned into tbdb's.
    ``values=False``: a read-only connection that will not read tables' values (a look at the
    schema), so the values files are not verified and stay closed to it."""
    # read-only: external access is switched off once the Parquet files the catalogue records
    # that verify are allowed (``_seal``): DuckDB takes that list only while access is still on
    config = dict(_NO_EXTENSIONS if read_only else WRITE_CONFIG)
    try:
        con = duckdb.connect(path, read_only=read_only, config=config)
    except duckdb.IOException as exc:
        text = str(exc)
        if "lock" in text:
            _busy(path, exc)
        if is_damage(exc):
            raise damaged(path, exc) from exc
        raise NotADatabaseError(f"{path!r} is not a tbdb database: DuckDB cannot open it "
                                f"({_first_line(text)})") from exc
    except (duckdb.Error, RuntimeError) as exc:
        if is_damage(exc):
            raise damaged(path, exc) from exc
        raise NotADatabaseError(f"{path!r} is not a tbdb database: DuckDB cannot open it "
                                f"({_first_line(str(exc))})") from exc
    try:
        con.execute("SET enable_progress_bar = false")  # tbdb draws its own
    except duckdb.InvalidInputException:
        pass  # this process already holds the file with its configuration locked (tbdb sql)
    if read_only:
        try:
            from tbdb.untrusted import check_catalogue, readable_paths
            check_catalogue(con, path)  # before any query on the file's tables
            _seal(con, readable_paths(con, path) if values else [])
        except BaseException:
            con.close()
            raise
    return con


def values_files(con) -> list[str]:
    """The Parquet files (absolute paths) holding tables' values outside the database."""
    try:
        return [p for (p,) in con.execute("SELECT path FROM tb_index_files ORDER BY table_id"
                                          ).fetchall()]
    except duckdb.CatalogException:  # a schema before 0004 (or not tbdb's): none
        return []


def _seal(con, paths: list[str]) -> None:
    """READ_CONFIG on a read-only connection, with exactly the verified Parquet files ``paths``
    readable (the view ``tb_index_values`` reads them) and nothing else outside."""
    try:
        if paths:
            con.execute("SET allowed_paths = ?", [paths])
        con.execute("SET enable_external_access = false")
    except duckdb.InvalidInputException:
        pass  # an earlier connection of this process to the file sealed it (and maybe locked it)
    (on,), = con.execute("SELECT system.main.current_setting('enable_external_access')"
                         ).fetchall()
    if on:  # never leave a reader able to touch other files
        raise NotADatabaseError("cannot switch off DuckDB's external access for a read-only "
                                "connection")


def remove_stale_creations(path: str) -> None:
    """Remove what builds killed while creating ``path`` left beside it
    (``<path>.creating-<pid>...``), but only where that process is gone: a live build's is
    in use."""
    head, name = os.path.split(os.path.abspath(path))
    found = re.compile(re.escape(name) + r"\.creating-(\d+)")
    for entry in os.listdir(head):
        m = found.match(entry)
        if m is None or _alive(int(m.group(1))):
            continue
        leftover = os.path.join(head, entry)
        if os.path.isdir(leftover) and not os.path.islink(leftover):
            shutil.rmtree(leftover, ignore_errors=True)
        else:
            try:
                os.remove(leftover)
            except OSError:
                pass


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True  # this process's own (a thread of it creating the file now)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process
    except OverflowError:
        return False
    return True


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else text


class Store:
    """One open tbdb database file (see the module docstring for the two ways to open it)."""

    def __init__(self, path: str | os.PathLike, *, read_only: bool = False):
        self.path = str(path)
        self.read_only = read_only
        check_path(self.path, create=not read_only)
        if read_only:
            self.con = connect(self.path, read_only=True)
            try:
                self._require_current()
                from tbdb.untrusted import apply_own_views
                apply_own_views(self.con, index_view_sql(self._require_values_files()))
            except BaseException:
                self.con.close()
                raise
        else:
            if not os.path.exists(self.path):
                self._create()
            self._migrate()
            self.con = connect(self.path, read_only=False)
            if values_files(self.con):
                self._index_view()  # without files gone missing (the views would not bind)
            self.apply_game_views()

    # ------------------------------------------------------------------ schema

    def _require_current(self) -> None:
        rev = self.revision()
        if rev is None:
            raise NotADatabaseError(f"{self.path!r} is a DuckDB file but not a tbdb database "
                                    f"(it has no tbdb schema); only `tbdb build` creates one")
        known = revisions()
        if rev not in known:
            raise NotADatabaseError(f"database {self.path!r} was written by a newer tbdb "
                                    f"(schema {rev!r}; this tbdb knows up to {known[-1]!r}): "
                                    f"upgrade tbdb to read it")
        if rev != known[-1]:
            raise NotADatabaseError(f"database {self.path!r} was written by an older tbdb "
                                    f"(schema {rev!r}); upgrade the file once with: "
                                    f"tbdb upgrade --db {self.path}")

    def _create(self) -> None:
        """A new file appears with its whole schema or not at all: the schema is made in a
        fresh private directory beside it (``<path>.creating-<pid>-<random>``, made
        exclusively: no link planted there is followed), and the file is then linked into
        place (a build killed while creating leaves no half-made database behind, and of two
        builds creating the same file at once the second finds the first's).  What builds
        killed while creating left (their process is gone) is removed first."""
        path = self.path
        remove_stale_creations(path)
        head, name = os.path.split(os.path.abspath(path))
        work = tempfile.mkdtemp(prefix=f"{name}.creating-{os.getpid()}-", dir=head)
        tmp = os.path.join(work, name)
        self.path = tmp
        try:
            self._migrate()
            if os.path.exists(tmp + ".wal"):  # closed cleanly, so folded in already; be sure
                con = connect(tmp, read_only=False)
                con.execute("CHECKPOINT")
                con.close()
            os.chmod(tmp, plain_mode())  # not the directory's 0700 privacy: a plain file's
            try:
                os.link(tmp, path)
            except FileExistsError:
                pass  # another build made it first: use that one
            except OSError:  # a file system without hard links
                if not os.path.exists(path):
                    os.replace(tmp, path)
        finally:
            self.path = path
            shutil.rmtree(work, ignore_errors=True)

    def _require_values_files(self) -> list[str]:
        """The Parquet files the catalogue records, else ``MissingValuesFileError`` naming the
        first that is not there as recorded (every query of ``tb_index_values`` reads them
        all), or ``NotADatabaseError`` for one recorded where tbdb never puts one."""
        from tbdb.untrusted import recorded_files
        bad, paths = [], []
        for game, table, *f in recorded_files(self.con):
            try:
                ValuesFile(*f).check(self.path, game, table)
                paths.append(f[0])
            except MissingValuesFileError as exc:
                bad.append(exc)
        if len(bad) == 1:
            raise bad[0]
        if bad:
            what, _, how = str(bad[0]).partition(": put it back")
            raise MissingValuesFileError(f"{what}, and {len(bad) - 1} more of its tables' files "
                                         f"are not there either: put them back{how}")
        return paths

    def _migrate(self) -> None:
        """Create or migrate the file to the current schema (builds and ``tbdb upgrade``)."""
        if os.path.exists(self.path):
            con = connect(self.path, read_only=True, values=False)
            try:
                rev = self.revision(con)
                tables = con.execute("SELECT count(*) FROM duckdb_tables()").fetchall()[0][0]
                if rev is not None:
                    check_blocks(con, self.path)  # whole before a byte is written
            finally:
                con.close()
            if rev is None and tables:
                raise NotADatabaseError(f"{self.path!r} is a DuckDB file with other tables, not "
                                        f"a tbdb database; tbdb will not add its tables to it")
            if rev is None:  # an empty DuckDB file is someone else's too: only new paths
                raise NotADatabaseError(f"{self.path!r} is a DuckDB file without tables, not a "
                                        f"tbdb database; tbdb creates its databases only at "
                                        f"new paths: remove it or name another")
            if rev is not None and rev not in revisions():
                raise NotADatabaseError(f"database {self.path!r} was written by a newer tbdb "
                                        f"(schema {rev!r}): upgrade tbdb to build into it")
            if rev == head_revision():
                return
        from alembic import command
        from sqlalchemy import create_engine
        from sqlalchemy.exc import OperationalError
        engine = create_engine(f"duckdb:///{self.path}",
                               connect_args={"config": dict(WRITE_CONFIG)})
        try:
            try:
                connection = engine.connect()
            except OperationalError as exc:
                if "lock" not in str(exc):
                    raise
                _busy(self.path, exc.orig)
            with connection:
                command.upgrade(_alembic_config(connection), "head")
                connection.commit()
        finally:
            engine.dispose()

    def apply_game_views(self) -> None:
        """(Re)create every registered game's readable views (``sql/games/<file>``)."""
        from tbdb import games
        from tbdb.sql_files import statements
        for game in games.all_games():
            if game.views:
                for statement in statements(game_view_path(game.views)):
                    self.con.execute(statement)

    def revision(self, con=None) -> str | None:
        con = con or self.con
        try:
            rows = con.execute("SELECT version_num FROM alembic_version").fetchall()
        except duckdb.CatalogException:
            return None
        return rows[0][0] if rows else None

    # ------------------------------------------------------------------ plain queries

    def query(self, sql: str, params: Iterable | None = None) -> list[tuple]:
        return self.con.execute(sql, params).fetchall() if params else \
            self.con.execute(sql).fetchall()

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ------------------------------------------------------------------ catalogue

    def tables(self, game: str | None = None) -> list[dict]:
        """Catalogue rows (dicts, params decoded), of one game or all."""
        where, args = ("WHERE game = ?", [game]) if game else ("", [])
        cur = self.con.execute(f"SELECT * FROM tb_tables {where} ORDER BY game, table_name", args)
        cols = [d[0] for d in cur.description]
        out = []
        for row in cur.fetchall():
            item = dict(zip(cols, row))
            item["params"] = json.loads(item["params"])
            out.append(item)
        return out

    def table(self, game: str, table: str) -> dict | None:
        """The catalogue row of a table that is completely built, or None."""
        rows = self.query(
            "SELECT t.table_id, t.storage, t.params, t.layout, t.slots, t.positions "
            "FROM tb_tables t JOIN build_checkpoints c ON c.game = t.game AND "
            "c.table_name = t.table_name AND c.state = 'done' "
            "WHERE t.game = ? AND t.table_name = ?", [game, table])
        if not rows:
            return None
        table_id, storage, params, layout, slots, positions = rows[0]
        return {"table_id": table_id, "storage": storage, "params": json.loads(params),
                "layout": layout, "slots": slots, "positions": positions, "table_name": table}

    def require_table(self, game: str, table: str, what: str, how: str) -> dict:
        """The catalogue row of a built table, else ``MissingTableError`` saying how to build
        it (``what`` names what needs it, ``how`` is the build command, None: there is none)."""
        row = self.table(game, table)
        if row is None:
            state = self.states(game).get(table)
            raise MissingTableError(
                f"{what} needs table {table!r} of {game}, which is not built in {self.path!r}"
                + (f" (state: {state})" if state and state != "done" else "")
                + (f"; build it with: {how} --db {self.path}" if how else
                   "; this tbdb builds no such table"))
        return row

    # ------------------------------------------------------------------ checkpoints

    def states(self, game: str) -> dict[str, str]:
        rows = self.query("SELECT table_name, state FROM build_checkpoints WHERE game = ?", [game])
        return dict(rows)

    def plan(self, game: str, tables: Iterable[str]) -> None:
        """Record the tables a build will make (pending), leaving known ones as they are."""
        known = self.states(game)
        new = [name for name in tables if name not in known]
        if new:
            self._insert("INSERT INTO build_checkpoints (game, table_name, state) "
                         "SELECT ?, table_name, 'pending' FROM {src}",
                         pa.table({"table_name": new}), [game])

    def mark_building(self, game: str, table: str) -> None:
        self.con.execute(
            "UPDATE build_checkpoints SET state = 'building', started = ?, finished = NULL, "
            "seconds = NULL, rows = NULL WHERE game = ? AND table_name = ?",
            [dt.datetime.now(), game, table])

    def levels_done(self, game: str, table: str) -> dict[int, int]:
        """Levels of a level-by-level table already stored: {level: rows}."""
        return dict(self.query("SELECT level, rows FROM build_levels WHERE game = ? AND "
                               "table_name = ?", [game, table]))

    # ------------------------------------------------------------------ writing

    def _insert(self, sql: str, arrow: Any, params: list | None = None) -> None:
        name = "_tbdb_load"
        self.con.register(name, arrow)
        try:
            self.con.execute(sql.format(src=name), params or [])
        except BaseException:
            try:  # an aborted transaction refuses even this; the caller rolls back
                self.con.unregister(name)
            except duckdb.Error:
                pass
            raise
        self.con.unregister(name)

    def _transaction(self, work) -> None:
        con = self.con
        con.begin()
        try:
            work()
            con.commit()
        except BaseException as exc:
            try:
                con.rollback()
            except duckdb.TransactionException:
                pass  # DuckDB already aborted it (an interrupted statement does)
            if isinstance(exc, (duckdb.InterruptException, RuntimeError)) and \
                    "interrupted" in str(exc):
                raise KeyboardInterrupt from exc  # Ctrl-C inside a DuckDB statement
            if isinstance(exc, duckdb.Error) and is_disk_full(exc):
                raise OSError(28, f"the disk holding {self.path!r} is full; nothing of the table "
                                  f"being written was kept: free space and run the same build "
                                  f"again to resume") from exc
            raise

    def _table_id(self, game: str, table: str) -> tuple[int | None, int]:
        """(the table's current id or None, a fresh id)."""
        old = self.query("SELECT table_id FROM tb_tables WHERE game = ? AND table_name = ?",
                         [game, table])
        (top,), = self.query("SELECT coalesce(max(table_id), 0) FROM tb_tables")
        return (old[0][0] if old else None), top + 1

    def _delete_table(self, table_id: int) -> None:
        for t in ("tb_index_rows", "tb_key_values", "tb_score_runs", "tb_stats", "tb_tables"):
            self.con.execute(f"DELETE FROM {t} WHERE table_id = ?", [table_id])
        if self.query("SELECT 1 FROM tb_index_files WHERE table_id = ?", [table_id]):
            self.con.execute("DELETE FROM tb_index_files WHERE table_id = ?", [table_id])
            self._index_view()

    def sibling(self) -> Store:
        """A second connection to the same open database (its own transactions), for a thread
        that writes while this one reads; closing it leaves this one open."""
        other = copy.copy(self)
        other.con = self.con.cursor()
        return other

    def _index_view(self) -> None:
        """Rewrite the view ``tb_index_values`` with every recorded file there (files not
        there are left out: a read-only open refuses the database until they are back or
        imported (``_require_values_files``), a build or import can still open it)."""
        self.con.execute(index_view_sql([p for p in values_files(self.con)
                                         if os.path.exists(p)]))

    def write_table(self, game: str, table: str, data, seconds: float,
                    next_table: str | None = None, values_file: ValuesFile | None = None) -> int:
        """Replace a table (catalogue row, statistics, values, texts) and mark it done, all in
        one transaction; ``next_table``, if given, is marked 'building' in the same
        transaction (one commit per table, and never two 'building' rows).  Returns the
        number of value rows.  ``values_file`` (index tables): the values stay in this Parquet
        file, which the database records and reads through the view ``tb_index_values``,
        instead of being copied in."""
        from tbdb import tables as layouts
        rows = [0]

        def work():
            old, new = self._table_id(game, table)
            if old is not None and data.storage != "key":
                self._delete_table(old)
            table_id = old if (old is not None and data.storage == "key") else new
            if values_file is not None:
                self._insert("INSERT INTO tb_index_files SELECT * FROM {src}",
                             values_file.record(table_id))
                self._index_view()
                rows[0] = values_file.rows
            elif data.storage == "key":
                # levels were stored as they were solved; only the catalogue row is replaced
                self.con.execute("DELETE FROM tb_stats WHERE table_id = ?", [table_id])
                self.con.execute("DELETE FROM tb_tables WHERE table_id = ?", [table_id])
                (rows[0],), = self.query("SELECT count(*) FROM tb_key_values WHERE table_id = ?",
                                         [table_id])
            else:
                for sql, stream in layouts.value_streams(table_id, data):
                    self._insert(sql, stream)
                rows[0] = layouts.row_count(data)
            self._insert("INSERT INTO tb_tables SELECT * FROM {src}",
                         layouts.catalogue_row(table_id, game, table, data, rows[0], seconds))
            if data.stats:
                self._insert("INSERT INTO tb_stats SELECT * FROM {src}",
                             layouts.stats_rows(table_id, data.stats))
            if data.layout and data.texts:
                known = self.query("SELECT 1 FROM tb_texts WHERE layout = ? LIMIT 1",
                                   [data.layout])
                if not known:
                    self._insert("INSERT INTO tb_texts SELECT * FROM {src}",
                                 layouts.text_stream(data.layout, data.texts))
            self.con.execute(
                "UPDATE build_checkpoints SET state = 'done', rows = ?, finished = ?, "
                "seconds = ? WHERE game = ? AND table_name = ?",
                [rows[0], dt.datetime.now(), seconds, game, table])
            if next_table is not None:
                self.mark_building(game, next_table)

        self._transaction(work)
        return rows[0]

    def copy_values_in(self, table_id: int, rows: pa.RecordBatchReader) -> None:
        """Store an index table's values, until now in its recorded Parquet file, in the
        database (``rows``: tb_index_rows batches) and forget the file: one transaction."""
        def work():
            self._insert("INSERT INTO tb_index_rows SELECT * FROM {src}", rows)
            self.con.execute("DELETE FROM tb_index_files WHERE table_id = ?", [table_id])
            self._index_view()
        self._transaction(work)

    def begin_key_table(self, game: str, table: str) -> int:
        """The id under which a level-by-level table's levels are stored (kept across resumes:
        a placeholder catalogue row marks it until the table is done)."""
        old, new = self._table_id(game, table)
        if old is not None:
            return old
        from tbdb.tables import placeholder_row

        def work():
            self._insert("INSERT INTO tb_tables SELECT * FROM {src}",
                         placeholder_row(new, game, table))
        self._transaction(work)
        return new

    def write_level(self, game: str, table: str, table_id: int, values, constraints,
                    multiplicity, seconds: float) -> None:
        """Store one solved level of a key table and its checkpoint in one transaction."""
        from tbdb.tables import level_table

        def work():
            self.con.execute("DELETE FROM tb_key_values WHERE table_id = ? AND level = ?",
                             [table_id, values.level])
            self.con.execute("DELETE FROM build_levels WHERE game = ? AND table_name = ? AND "
                             "level = ?", [game, table, values.level])
            self._insert("INSERT INTO tb_key_values SELECT * FROM {src}",
                         level_table(table_id, values, constraints, multiplicity))
            self.con.execute("INSERT INTO build_levels VALUES (?, ?, ?, ?, ?, ?)",
                             [game, table, values.level, len(values.keys), seconds,
                              dt.datetime.now()])
        self._transaction(work)

    def forget_levels(self, game: str, table: str) -> None:
        """Drop a key table's stored levels (a rebuild from scratch)."""
        def work():
            old, _ = self._table_id(game, table)
            if old is not None:
                self._delete_table(old)
            self.con.execute("DELETE FROM build_levels WHERE game = ? AND table_name = ?",
                             [game, table])
        self._transaction(work)

    # ------------------------------------------------------------------ reading

    def values_file(self, table_id: int) -> ValuesFile | None:
        """The Parquet file holding an index table's values, if they are not in the database."""
        rows = self.query("SELECT path, rows, bytes, sha256 FROM tb_index_files "
                          "WHERE table_id = ?", [table_id])
        return ValuesFile(*rows[0]) if rows else None

    def _checked_file(self, table_id: int) -> ValuesFile | None:
        f = self.values_file(table_id)
        if f is not None:
            rows = self.query("SELECT game, table_name FROM tb_tables WHERE table_id = ?",
                              [table_id])
            f.check(self.path, *(rows[0] if rows else (None, None)))
        return f

    def _table_name(self, table_id: int) -> str:
        rows = self.query("SELECT game, table_name FROM tb_tables WHERE table_id = ?", [table_id])
        return f"{rows[0][0]} table {rows[0][1]!r}" if rows else f"table id {table_id}"

    def load_index(self, table_id: int, slots: int):
        """An index table's values as arrays over its slots (NONE where no row).  The rows
        stream in batches into the dense arrays: reading them whole first held about 40 bytes
        per row beside the 9 bytes per slot of the arrays (6.6 GiB to verify 7x7-3)."""
        from tbdb.retrograde import IndexValues
        from tbdb.solvers.retrograde import NONE
        f = self._checked_file(table_id)
        name = self._table_name(table_id)  # for a damage report: not while the rows stream
        if f is not None:
            batches = f.batches(LOAD_BATCH_ROWS)
        else:
            batches = _arrow_batches(self.con.sql(
                "SELECT idx, result, distance, best_move, multiplicity FROM tb_index_rows "
                "WHERE table_id = $table_id", params={"table_id": table_id}), LOAD_BATCH_ROWS)
        result = np.full(slots, NONE, np.int8)
        distance = np.zeros(slots, np.int16)
        best = np.full(slots, -1, np.int32)
        multiplicity = np.zeros(slots, np.int16)
        rows = 0
        for batch in batches:
            at = batch.column("idx").to_numpy()
            if len(at) and (at.min() < 0 or at.max() >= slots):
                # numpy would wrap a negative idx or raise IndexError past the end
                bad = int(at[(at < 0) | (at >= slots)][0])
                raise self._damaged(table_id, f"a row at idx {bad}, outside its {slots} slots",
                                    name)
            rows += len(at)
            result[at] = batch.column("result").to_numpy()
            distance[at] = batch.column("distance").to_numpy()
            best[at] = batch.column("best_move").to_numpy()
            multiplicity[at] = batch.column("multiplicity").to_numpy()
        # a slot stored twice is silently overwritten above; count what is left, by chunks (no
        # whole-table mask beside a 10^9-slot table)
        filled = sum(int(np.count_nonzero(result[lo:lo + LOAD_BATCH_ROWS] != NONE))
                     for lo in range(0, slots, LOAD_BATCH_ROWS))
        if filled != rows:
            raise self._damaged(table_id, f"{rows} rows for {filled} slots (a slot stored twice, "
                                          f"or a row with no value)", name)
        return IndexValues(result, distance, best, multiplicity)

    def _damaged(self, table_id: int, what: str, name: str | None = None) -> DamagedTableError:
        name = name or self._table_name(table_id)
        return DamagedTableError(f"{name} in {self.path!r} is damaged: it holds {what}; build "
                                 f"it again with --rebuild")

    def index_row(self, table_id: int, idx: int) -> tuple[int, int, int] | None:
        """(result, distance, best move) of one slot, straight from the file (large tables)."""
        f = self._checked_file(table_id)
        if f is not None:
            return f.value(int(idx))
        rows = self.query("SELECT result, distance, best_move FROM tb_index_rows "
                          "WHERE table_id = ? AND idx = ?", [table_id, int(idx)])
        return rows[0] if rows else None

    def load_keys(self, table_id: int, level: int | None = None):
        """A key table's rows (all levels, or one), sorted by key: (keys int64[n, 3] with the
        constraint last, result, distance, best move, multiplicity, level)."""
        where = "table_id = ?" + (" AND level = ?" if level is not None else "")
        args = [table_id] + ([level] if level is not None else [])
        cols = self.con.execute(
            f"SELECT key0, key1, key_constraint, result, distance, best_move, multiplicity, "
            f"level FROM tb_key_values WHERE {where} ORDER BY key0, key1, key_constraint",
            args).fetchnumpy()
        keys = np.stack([np.asarray(cols[c], np.int64)
                         for c in ("key0", "key1", "key_constraint")], axis=1) \
            if len(cols["key0"]) else np.zeros((0, 3), np.int64)
        twice = np.flatnonzero((keys[1:] == keys[:-1]).all(axis=1))  # sorted: twins are adjacent
        if len(twice):
            raise self._damaged(table_id, f"{len(twice)} keys stored twice, e.g. key "
                                          f"{tuple(int(k) for k in keys[twice[0]])}")
        return (keys, np.asarray(cols["result"], np.int8), np.asarray(cols["distance"], np.int16),
                np.asarray(cols["best_move"], np.int32),
                np.asarray(cols["multiplicity"], np.int16), np.asarray(cols["level"], np.int16))

    def key_row(self, table_id: int, key) -> tuple[int, int, int] | None:
        rows = self.query("SELECT result, distance, best_move FROM tb_key_values WHERE "
                          "table_id = ? AND key0 = ? AND key1 = ? AND key_constraint = ?",
                          [table_id, int(key[0]), int(key[1]), int(key[2])])
        return rows[0] if rows else None

    def load_runs(self, table_id: int, positions: int, horizon: int):
        """A score table's runs (``tbdb.games.base.RunValues``)."""
        from tbdb.games.base import RunValues
        cols = self.con.execute(
            "SELECT idx, turns_left_from, turns_left_to, score, best_move FROM tb_score_runs "
            "WHERE table_id = ? ORDER BY idx, turns_left_from", [table_id]).fetchnumpy()
        idx = np.asarray(cols["idx"], np.int64)
        if len(idx) and (idx[0] < 0 or idx[-1] >= positions):
            bad = int(idx[0] if idx[0] < 0 else idx[-1])
            raise self._damaged(table_id, f"runs at idx {bad}, outside its {positions} positions")
        self._check_runs(table_id, idx, np.asarray(cols["turns_left_from"], np.int64),
                         np.asarray(cols["turns_left_to"], np.int64), positions, horizon)
        offsets = np.zeros(positions + 1, np.int64)
        np.cumsum(np.bincount(idx, minlength=positions), out=offsets[1:])
        return RunValues(offsets, np.asarray(cols["turns_left_from"], np.int16),
                         np.asarray(cols["score"], np.int8),
                         np.asarray(cols["best_move"], np.int8), horizon)

    def _check_runs(self, table_id: int, idx, start, end, positions: int, horizon: int) -> None:
        """Each position's runs (sorted by idx, then start) must tile 1..horizon turns left
        exactly: a lookup takes the run whose [from, to] holds its turns left, so a gap or an
        overlap answers nothing or two values."""
        first = np.ones(len(idx), bool)
        first[1:] = idx[1:] != idx[:-1]
        last = np.ones(len(idx), bool)
        last[:-1] = first[1:]
        wrong = np.zeros(len(idx), bool)
        wrong[first] = start[first] != 1
        wrong[last] |= end[last] != horizon
        follows = ~last[:-1]  # run i is followed by run i + 1 of the same position
        wrong[:-1][follows] |= end[:-1][follows] != start[1:][follows] - 1
        wrong |= end < start
        if wrong.any():
            at = int(np.argmax(wrong))
            raise self._damaged(table_id, f"{int(np.count_nonzero(wrong))} runs that do not tile "
                                          f"1..{horizon} turns left, e.g. at idx {int(idx[at])} "
                                          f"turns {int(start[at])}..{int(end[at])}")
        if np.count_nonzero(first) != positions:
            raise self._damaged(table_id, f"runs for {int(np.count_nonzero(first))} of its "
                                          f"{positions} positions")

    def run_row(self, table_id: int, idx: int, plies: int) -> tuple[int, int] | None:
        rows = self.query("SELECT score, best_move FROM tb_score_runs WHERE table_id = ? AND "
                          "idx = ? AND ? BETWEEN turns_left_from AND turns_left_to",
                          [table_id, int(idx), int(plies)])
        return rows[0] if rows else None


@dataclass(frozen=True)
class ValuesFile:
    """A Parquet file that holds one index table's values outside the database: columns idx,
    result, distance, best_move, multiplicity (``tb_index_rows`` less table_id)."""
    path: str  # absolute
    rows: int
    bytes: int
    sha256: str

    def record(self, table_id: int) -> pa.Table:
        """Its ``tb_index_files`` row."""
        return pa.table({"table_id": pa.array([table_id], pa.int32()), "path": [self.path],
                         "rows": pa.array([self.rows], pa.int64()),
                         "bytes": pa.array([self.bytes], pa.int64()),
                         "sha256": [self.sha256]})

    def check(self, db: str, game: str | None, table: str | None) -> None:
        """Errors unless this is the values file of ``game`` table ``table`` of ``db`` as
        recorded, sha256 included: the database is untrusted input, and the file was hashed
        once by this process (``tbdb.untrusted.check_values_file``)."""
        from tbdb.untrusted import check_values_file
        check_values_file(self.path, self.bytes, self.sha256, db, game, table)

    def batches(self, rows: int):
        """Its rows as Arrow record batches of at most ``rows`` rows."""
        import pyarrow.parquet as pq
        return pq.ParquetFile(self.path).iter_batches(batch_size=rows)

    def value(self, idx: int) -> tuple[int, int, int] | None:
        import pyarrow.parquet as pq
        t = pq.read_table(self.path, columns=["result", "distance", "best_move"],
                          filters=[("idx", "==", idx)])
        return tuple(int(t.column(c)[0].as_py()) for c in t.column_names) if len(t) else None


def _arrow_batches(relation, rows: int):
    """A DuckDB relation streamed as Arrow record batches of at most ``rows`` rows (a relation,
    not an executed cursor: DuckDB 2 copies a cursor's whole result first).  DuckDB 2 calls the
    relation's reader ``to_arrow_reader``, DuckDB 1 ``fetch_arrow_reader``."""
    reader = getattr(relation, "to_arrow_reader", None) or relation.fetch_arrow_reader
    return reader(rows)


def index_view_sql(paths: list[str]) -> str:
    """``CREATE OR REPLACE VIEW tb_index_values``: the stored rows and the rows of the Parquet
    files ``paths`` (``read_parquet`` takes its list of files as a constant)."""
    from tbdb.sql_files import statements
    from tbdb.untrusted import INDEX_VIEW_FILE
    sql, = statements(sql_dir_file(INDEX_VIEW_FILE))
    if paths:
        files = ", ".join("'" + p.replace("'", "''") + "'" for p in paths)
        sql += (
            "\nUNION ALL\n"
            "SELECT f.table_id, p.idx, CAST(p.result AS SMALLINT), p.distance, p.best_move, "
            "p.multiplicity\n"
            f"FROM read_parquet([{files}], filename = true) AS p\n"
            "JOIN tb_index_files AS f ON f.path = p.filename")
    return sql


def sql_dir_file(name: str) -> Path:
    from tbdb.sql_files import sql_dir
    return sql_dir() / name


def is_disk_full(exc: Exception) -> bool:
    text = str(exc).lower()
    return "no space left" in text or "disk is full" in text or "not enough space" in text


def game_view_path(name: str) -> Path:
    from tbdb.sql_files import sql_dir
    return sql_dir() / "games" / name
