"""Opening a tbdb database file: paths checked, connections with tbdb's settings, DuckDB's
errors turned into tbdb's, schema revisions and Alembic migrations, the views (re)created.

Two ways to open a file:

* ``Store(path)`` (a build): creates the file if needed, migrates it to the current schema with
  Alembic, and (re)creates the games' readable views.  Only builds (and ``tbdb upgrade``) do it.
* ``Store(path, read_only=True)`` (everything else): the file must already be a tbdb database at
  the current schema.  It is opened read-only with external access, extension loading and
  configuration changes switched off, so reading never changes a byte of the file.

``Database`` is that part of ``tbdb.db.store.Store``; ``tbdb.db.catalogue`` holds the catalogue and
checkpoints, ``tbdb.storage`` the values.
"""
from __future__ import annotations

import copy
import hashlib
import os
import re
import shlex
import shutil
import stat
import tempfile
import threading
from pathlib import Path
from typing import Iterable

import duckdb

from tbdb.errors import (DamagedDatabaseError, DatabaseBusyError, MissingValuesFileError,
                         NotADatabaseError)
from tbdb.safe_files import kind, plain_mode
from tbdb.db.values_files import ValuesFile, index_view_sql

DEFAULT_DB_ENV = "TBDB_DB"
DEFAULT_DB = "tbdb.duckdb"
PACKAGE = Path(__file__).resolve().parent
_CREATE_VIEW = re.compile(r"CREATE OR REPLACE VIEW (\w+)", re.I)
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
# file ended up resident (most of a 4-piece CDC build's peak).  Sorts and joins beyond the
# limit spill to disk; this limit costs the CDC build no time and lowers its peak.
WRITE_MEMORY_LIMIT = "512MB"
# what builds write with (the DuckDB connection and Alembic's engine alike)
WRITE_CONFIG = {**_NO_EXTENSIONS, "storage_compatibility_version": STORAGE_COMPATIBILITY,
                "memory_limit": WRITE_MEMORY_LIMIT}


def default_db_path() -> str:
    """The database used when none is named: $TBDB_DB, else ./tbdb.duckdb."""
    return os.environ.get(DEFAULT_DB_ENV) or DEFAULT_DB


def _migrations_dir() -> Path:
    import tbdb.migrations
    return Path(tbdb.migrations.__file__).resolve().parent


def alembic_config(connection=None):
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
        if os.path.islink(path):
            # a dangling link: DuckDB would create the file wherever it points (and
            # ``_create``'s link into place fails on the name the link holds)
            where = f"{path!r} is a symbolic link to {os.readlink(path)!r}, which does not exist"
            if create:
                raise NotADatabaseError(f"{where}; tbdb creates a database only at a new path: "
                                        f"name the file itself, or remove the link") from None
            raise FileNotFoundError(f"no tbdb database at {path!r}: {where}") from None
    except OSError as exc:
        raise NotADatabaseError(f"cannot open {path!r}: {exc.strerror}") from None
    except ValueError:  # os.stat's "embedded null byte", naming no file
        raise NotADatabaseError(f"{path!r} names no file: a path cannot hold a null byte") \
            from None
    if mode is not None and stat.S_ISDIR(mode):
        raise NotADatabaseError(f"{path!r} is a directory, not a database file")
    if mode is not None and not stat.S_ISREG(mode):
        raise NotADatabaseError(f"{path!r} is {kind(mode)}, not a database file; tbdb opens "
                                f"only regular files")
    parent = os.path.dirname(os.path.abspath(path))
    if mode is None:
        if not create:
            raise FileNotFoundError(f"no tbdb database at {path!r}: build one with `tbdb build "
                                    f"GAME --db {shlex.quote(path)}`, or name another database "
                                    f"with --db (or ${DEFAULT_DB_ENV})")
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


def _check_magic(path: str) -> None:
    """Refuse a file that is not a DuckDB file by its header (bytes 8-11 are ``DUCK``) before
    DuckDB reads it: DuckDB's own words for some such files name something else (a path ending in
    ``.json`` gives "Cannot launch in-memory database in read-only mode")."""
    try:
        with open(path, "rb") as f:
            head = f.read(12)
    except OSError:
        return  # DuckDB says why (a directory, no permission)
    if len(head) == 12 and head[8:12] != b"DUCK":
        hint = ""
        if os.path.basename(path) == "manifest.json":
            hint = (f"; a directory of probe files is opened as the directory: "
                    f"--db {os.path.dirname(path) or '.'}")
        raise NotADatabaseError(f"{path!r} is not a tbdb database: not a DuckDB file{hint}")


def connect(path: str, read_only: bool, values: bool = True) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection with tbdb's settings; DuckDB's errors turned into tbdb's.
    ``values=False``: a read-only connection that will not read tables' values (a look at the
    schema), so the values files are not verified and stay closed to it."""
    # read-only: external access is switched off once the Parquet files the catalogue records
    # that verify are allowed (``_seal``): DuckDB takes that list only while access is still on
    config = dict(_NO_EXTENSIONS if read_only else WRITE_CONFIG)
    if read_only:
        from tbdb.db.untrusted import file_identity
        _check_magic(path)
        identity = file_identity(path)  # before it is opened: what the check will have seen
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
            from tbdb.db.untrusted import check_catalogue, readable_paths
            check_catalogue(con, path, identity)  # before any query on the file's tables
            _seal(con, readable_paths(con, path) if values else [])
        except BaseException:
            con.close()
            raise
    return con


def sibling(path: str) -> duckdb.DuckDBPyConnection:
    """Another connection to the instance a read-only connection of this process holds on
    ``path`` (the same configuration: DuckDB hands back that instance, sealed as it is), which
    stays open when that one closes, as its cursors do not."""
    return duckdb.connect(path, read_only=True, config=dict(_NO_EXTENSIONS))


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


class Database:
    """One open tbdb database file (see the module docstring for the two ways to open it)."""

    def __init__(self, path: str | os.PathLike, *, read_only: bool = False):
        self.path = str(path)
        self.read_only = read_only
        check_path(self.path, create=not read_only)
        if read_only:
            self.con = connect(self.path, read_only=True)
            try:
                self._require_current()
                from tbdb.db.untrusted import apply_own_views
                apply_own_views(self.con, index_view_sql(self._require_values_files()))
            except BaseException:
                self.con.close()
                raise
            self._game_views = False  # made by ``prepare_for_sql`` (the web server's threads)
            self._game_views_lock = threading.Lock()
        else:
            if not os.path.exists(self.path):
                self._create()
            self._migrate()
            self.con = connect(self.path, read_only=False)
            if values_files(self.con):
                self.refresh_index_view()  # without files gone missing (the views would not bind)
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
        from tbdb.db.untrusted import check_columns
        check_columns(self.con, self.path)  # (the views bind to them: no binder error later)

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
        from tbdb.db.untrusted import recorded_files
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
                command.upgrade(alembic_config(connection), "head")
                connection.commit()
        finally:
            engine.dispose()

    def apply_game_views(self) -> None:
        """(Re)create every registered game's readable views (``sql/games/<file>``), unless the
        file holds them as this tbdb writes them already: the last view made carries a comment
        with the digest of all their statements.  (Making them takes a good part of a second,
        and every build opens its file for writing; read-only connections make their own either
        way.)"""
        from tbdb.db.sql_files import game_view_files, statements
        todo = [st for path in game_view_files() for st in statements(path)]
        views = [m.group(1) for m in map(_CREATE_VIEW.match, todo) if m]
        if not views:
            return
        digest = hashlib.sha256("\n;\n".join(todo).encode()).hexdigest()[:16]
        marker = f"tbdb game views {digest}"
        found = self.con.execute(
            "SELECT comment FROM system.main.duckdb_views() WHERE database_name = "
            "system.main.current_database() AND schema_name = 'main' AND view_name = ?",
            [views[-1]]).fetchall()
        if found == [(marker,)]:
            return
        for statement in todo:
            self.con.execute(statement)
        self.con.execute(f"COMMENT ON VIEW {views[-1]} IS '{marker}'")  # (after all of them)

    def prepare_for_sql(self) -> None:
        """Make the connection ready to run SQL given to it (``Tablebase.sql``, ``tbdb sql``):
        on a read-only connection, every game's views made as tbdb writes them, in front of the
        file's (``tbdb.db.untrusted``); a connection that writes has them in the file already."""
        if self.read_only and not self._game_views:
            from tbdb.db.untrusted import apply_own_game_views
            with self._game_views_lock:
                if not self._game_views:
                    apply_own_game_views(self.con)
                    self._game_views = True

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

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def sibling(self) -> Database:
        """A second connection to the same open database (its own transactions), for a thread
        that writes while this one reads; closing it leaves this one open."""
        other = copy.copy(self)
        other.con = self.con.cursor()
        return other

    def refresh_index_view(self) -> None:
        """Rewrite the view ``tb_index_values`` with every recorded file there (files not
        there are left out: a read-only open refuses the database until they are back or
        imported (``_require_values_files``), a build or import can still open it)."""
        self.con.execute(index_view_sql([p for p in values_files(self.con)
                                         if os.path.exists(p)]))


def is_disk_full(exc: Exception) -> bool:
    text = str(exc).lower()
    return "no space left" in text or "disk is full" in text or "not enough space" in text
