"""The DuckDB store: opening (with migrations), checkpoints, atomic bulk loads through Arrow."""
from __future__ import annotations

import datetime as dt
import os
import re
from pathlib import Path
from typing import Iterable

import duckdb
import pyarrow as pa
from sqlalchemy import create_engine

import tbdb.migrations as migrations

MIGRATIONS_DIR = Path(migrations.__file__).resolve().parent
DEFAULT_DB_ENV = "TBDB_DB"
DEFAULT_DB = "tbdb.duckdb"


def _busy(path: str, exc: Exception):
    from tbdb.errors import DatabaseBusyError
    pid = re.search(r"\(PID (\d+)\)", str(exc))
    holder = f"process {pid.group(1)}" if pid else "another process"
    raise DatabaseBusyError(
        f"database {path!r} is in use by {holder}: DuckDB lets one process write a file and no "
        f"other open it meanwhile; try again when that process (a build?) has finished") from exc


def default_db_path() -> str:
    """The database used when none is named: $TBDB_DB, else ./tbdb.duckdb."""
    return os.environ.get(DEFAULT_DB_ENV) or DEFAULT_DB


def _alembic_config(connection=None):
    from alembic.config import Config
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    if connection is not None:
        cfg.attributes["connection"] = connection
    return cfg


def head_revision() -> str:
    from alembic.script import ScriptDirectory
    return ScriptDirectory.from_config(_alembic_config()).get_current_head()


class Store:
    """One open DuckDB file.  ``Store(path)`` creates it if needed and migrates it to head.

    With ``read_only=True`` the file must exist and already be at head (a database written by
    an older tbdb is migrated once by opening it writable); read-only stores can be opened by
    many processes while no build writes to the file.
    """

    def __init__(self, path: str | os.PathLike, *, read_only: bool = False, create: bool = True):
        self.path = str(path)
        if not create or read_only:
            if not os.path.exists(self.path):
                raise FileNotFoundError(f"no tbdb database at {self.path!r}")
        self.read_only = read_only
        if read_only:
            self.con = self._connect(read_only=True)
            if self.revision() != head_revision():
                self.con.close()
                self.read_only = False
                self._open_and_migrate()
        else:
            self._open_and_migrate()

    def _open_and_migrate(self) -> None:
        from alembic import command
        from sqlalchemy.exc import OperationalError
        engine = create_engine(f"duckdb:///{self.path}")
        try:
            connection = engine.connect()
        except OperationalError as exc:
            if "lock" not in str(exc):
                raise
            _busy(self.path, exc.orig)
        with connection:
            command.upgrade(_alembic_config(connection), "head")
            connection.commit()
        engine.dispose()
        self.con = self._connect(read_only=False)

    def _connect(self, read_only: bool) -> duckdb.DuckDBPyConnection:
        try:
            con = duckdb.connect(self.path, read_only=read_only)
        except duckdb.IOException as exc:
            if "lock" not in str(exc):
                raise
            _busy(self.path, exc)
        # tbdb draws its own progress; DuckDB's bar would interleave with it on stderr
        con.execute("SET enable_progress_bar = false")
        return con

    # ------------------------------------------------------------------ plain queries

    def revision(self) -> str | None:
        try:
            row = self.con.execute("SELECT version_num FROM alembic_version").fetchone()
        except duckdb.CatalogException:
            return None
        return row[0] if row else None

    def query(self, sql: str, params: Iterable | None = None) -> list[tuple]:
        return self.con.execute(sql, params).fetchall() if params else self.con.execute(sql).fetchall()

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ------------------------------------------------------------------ checkpoints

    def states(self, game: str) -> dict[str, str]:
        rows = self.query("SELECT table_name, state FROM build_checkpoints WHERE game = ?", [game])
        return dict(rows)

    def require_done(self, game: str, table: str, what: str, how: str) -> None:
        """Raise MissingTableError unless ``table`` of ``game`` is completely built."""
        state = self.states(game).get(table)
        if state != "done":
            from tbdb.errors import MissingTableError
            raise MissingTableError(f"{what} is not built in {self.path!r}"
                                    + (f" (state: {state})" if state else "")
                                    + f"; build it with: {how}")

    def plan(self, game: str, tables: Iterable[str]) -> None:
        """Record the tables a build will make (pending), leaving known ones as they are."""
        known = self.states(game)
        new = [name for name in tables if name not in known]
        if new:
            self.con.register("_tbdb_plan", pa.table({"table_name": new}))
            try:
                self.con.execute("INSERT INTO build_checkpoints (game, table_name, state) "
                                 "SELECT ?, table_name, 'pending' FROM _tbdb_plan", [game])
            finally:
                self.con.unregister("_tbdb_plan")

    def mark_building(self, game: str, table: str) -> None:
        self.con.execute(
            "UPDATE build_checkpoints SET state = 'building', started = ?, finished = NULL, "
            "seconds = NULL, rows = NULL WHERE game = ? AND table_name = ?",
            [dt.datetime.now(), game, table])

    def write_table(self, game: str, table: str, deletes: Iterable[tuple[str, list]],
                    loads: Iterable[tuple[str, object]], rows: int, seconds: float) -> None:
        """Replace a table's rows and mark it done, all in one transaction: a build killed at
        any moment leaves either the whole table or none of it (a half-written table is
        rolled back by DuckDB's write-ahead log).  Each load is an INSERT statement reading
        from ``{src}`` and the Arrow table or RecordBatchReader that ``{src}`` stands for."""
        con = self.con
        con.begin()
        try:
            for sql, params in deletes:
                con.execute(sql, params)
            for i, (sql, arrow) in enumerate(loads):
                name = f"_tbdb_load_{i}"
                con.register(name, arrow)
                try:
                    con.execute(sql.format(src=name))
                finally:
                    con.unregister(name)
            con.execute(
                "UPDATE build_checkpoints SET state = 'done', rows = ?, finished = ?, seconds = ? "
                "WHERE game = ? AND table_name = ?",
                [rows, dt.datetime.now(), seconds, game, table])
            con.commit()
        except BaseException as exc:
            try:
                con.rollback()
            except duckdb.TransactionException:
                pass  # DuckDB already aborted it (an interrupted statement does)
            if isinstance(exc, (duckdb.InterruptException, RuntimeError)) and \
                    "interrupted" in str(exc):
                # Ctrl-C while DuckDB runs a statement surfaces as DuckDB's error
                raise KeyboardInterrupt from exc
            raise
