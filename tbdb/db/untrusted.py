"""A database file is untrusted input: what a read-only connection checks before it believes
anything the file holds.

Whoever wrote the file may have recorded any path as a values file (``tb_index_files``),
redefined tbdb's views to read files, replaced a table by a view, given a table a generated
column, or defined a macro named like a DuckDB function (a macro in the file's schema is found
before DuckDB's own function).  So a read-only connection:

* checks the catalogue first (``check_catalogue``), with DuckDB's own system functions named in
  full, before it runs any query on the file's tables: it still has external access then;
* lets DuckDB open only the Parquet files that verify (``ValuesFile.check``): recorded at
  ``DIR/<game>/<table>.values.parquet`` for a table of the file, and with the sha256 recorded at
  the build;
* reads through tbdb's own views, recreated as TEMP views on the connection
  (``apply_own_views``; the games' views before it runs SQL it is given,
  ``apply_own_game_views``): DuckDB resolves a name in the temporary schema first, so every
  query naming ``draw_analysis`` or ``cdc_positions`` (tbdb's and the user's alike) runs
  tbdb's SQL.
"""
from __future__ import annotations

import hashlib
import os
import re

import duckdb

from tbdb.errors import MissingValuesFileError, NotADatabaseError

# tbdb's tables (``tbdb.db.models``) with their columns and DuckDB types at the current schema
# (tests/test_untrusted_db.py checks them against a file the migrations make).  Its code and
# views read them, so each must be a plain table of plain columns, and a table without one of
# these columns, or with another type, would break them with DuckDB's binder errors
COLUMNS = {
    "alembic_version": {"version_num": "VARCHAR"},
    "tb_tables": {"table_id": "INTEGER", "game": "VARCHAR", "table_name": "VARCHAR",
        "storage": "VARCHAR", "params": "VARCHAR", "layout": "VARCHAR", "slots": "BIGINT",
        "positions": "BIGINT", "raw_positions": "BIGINT", "positions_answered": "BIGINT",
        "fixed_positions": "BIGINT", "illegal": "BIGINT", "mode": "VARCHAR", "seconds": "FLOAT",
        "built": "TIMESTAMP", "estimate_bytes": "BIGINT", "peak_bytes": "BIGINT"},
    "tb_stats": {"table_id": "INTEGER", "label": "VARCHAR", "pieces": "SMALLINT",
        "side_to_move": "VARCHAR", "positions": "BIGINT", "wins": "BIGINT", "draws": "BIGINT",
        "losses": "BIGINT", "illegal": "BIGINT", "longest_win": "SMALLINT",
        "longest_loss": "SMALLINT"},
    "tb_index_rows": {"table_id": "INTEGER", "idx": "BIGINT", "result": "SMALLINT",
        "distance": "SMALLINT", "best_move": "INTEGER", "multiplicity": "SMALLINT"},
    "tb_index_files": {"table_id": "INTEGER", "path": "VARCHAR", "rows": "BIGINT",
        "bytes": "BIGINT", "sha256": "VARCHAR"},
    "tb_key_values": {"table_id": "INTEGER", "level": "SMALLINT", "key0": "BIGINT",
        "key1": "BIGINT", "key_constraint": "SMALLINT", "result": "SMALLINT",
        "distance": "SMALLINT", "best_move": "INTEGER", "multiplicity": "SMALLINT"},
    "tb_score_runs": {"table_id": "INTEGER", "idx": "BIGINT", "turns_left_from": "SMALLINT",
        "turns_left_to": "SMALLINT", "score": "SMALLINT", "best_move": "INTEGER"},
    "tb_texts": {"layout": "VARCHAR", "idx": "BIGINT", "text": "VARCHAR"},
    "build_checkpoints": {"game": "VARCHAR", "table_name": "VARCHAR", "state": "VARCHAR",
        "rows": "BIGINT", "started": "TIMESTAMP", "finished": "TIMESTAMP", "seconds": "FLOAT"},
    "build_levels": {"game": "VARCHAR", "table_name": "VARCHAR", "level": "SMALLINT",
        "rows": "BIGINT", "seconds": "FLOAT", "finished": "TIMESTAMP"},
}
TABLES = tuple(COLUMNS)
VALUES_SUFFIX = ".values.parquet"
# the view tb_index_values with no files (``tbdb.db.values_files.index_view_sql`` adds them)
INDEX_VIEW_FILE = "04_index_values.sql"
# {(real path, device, inode, size, mtime, ctime): sha256} of files hashed by this process: a
# file is hashed once however often it is opened (the server, lookups of one table); any
# change to the file changes its ctime
_HASHED: dict[tuple, str] = {}


def check_catalogue(con: duckdb.DuckDBPyConnection, db: str,
                    identity: tuple | None = None) -> None:
    """``NotADatabaseError`` unless the names tbdb reads in the file are what tbdb made: its
    tables plain tables without generated columns or defaults, and no macro named like a DuckDB
    function.  Runs only DuckDB's system functions, named in full (a macro in the file cannot
    stand in for them).  ``identity``: the file's ``file_identity`` taken before ``con`` was
    opened.  A file found clean is not checked again by this process while its identity is
    unchanged: its catalogue cannot have changed."""
    if identity is not None and identity in _CLEAN:
        return

    # macros first: one named like an operator ('+', '||') or a function stands in for it in
    # any later query, these two excepted (comparisons, NOT and IN are no functions to shadow).
    # Listing the functions is most of the check's time: one scan for the file's own, compared
    # in Python with DuckDB's, listed once per process
    own = con.execute(
        "SELECT DISTINCT function_name FROM system.main.duckdb_functions() WHERE NOT internal "
        "AND database_name <> 'temp'").fetchall()
    found = sorted(name for (name,) in own if name in _internal_functions(con))
    if found:
        _refuse(db, f"it defines a macro {found[0]!r} in place of DuckDB's function of that name")
    names = ", ".join(f"'{t}'" for t in TABLES)
    found = con.execute(
        f"SELECT view_name FROM system.main.duckdb_views() WHERE NOT internal AND NOT temporary "
        f"AND schema_name = 'main' AND view_name IN ({names}) ORDER BY view_name").fetchall()
    if found:
        _refuse(db, f"{found[0][0]!r} is a view where tbdb keeps a table")
    found = con.execute(
        f"SELECT table_name, column_name FROM system.main.duckdb_columns() WHERE database_name "
        f"<> 'temp' AND schema_name = 'main' AND table_name IN ({names}) "
        f"AND column_default IS NOT NULL ORDER BY table_name, column_index").fetchall()
    if found:
        _refuse(db, f"table {found[0][0]!r} has a computed column {found[0][1]!r}")
    if identity is not None and identity == file_identity(db):  # (not written meanwhile)
        _CLEAN.add(identity)


# DuckDB's own function names (a read-only connection loads no extension, so every connection
# of this process has the same), and the identities of files ``check_catalogue`` found clean
_INTERNAL: list[frozenset] = []
_CLEAN: set[tuple] = set()


def _internal_functions(con: duckdb.DuckDBPyConnection) -> frozenset:
    if not _INTERNAL:
        _INTERNAL.append(frozenset(name for (name,) in con.execute(
            "SELECT DISTINCT function_name FROM system.main.duckdb_functions() WHERE internal"
        ).fetchall()))
    return _INTERNAL[0]


def file_identity(db: str) -> tuple | None:
    """The database file and its write-ahead log as they are on disk now (path, device, inode,
    size, modification and change times; any write changes the change time), or None when the
    file cannot be looked at."""
    try:
        st = os.stat(db)
    except OSError:
        return None
    try:
        wal = os.stat(db + ".wal")
        wal_key = (wal.st_ino, wal.st_size, wal.st_mtime_ns, wal.st_ctime_ns)
    except OSError:
        wal_key = None
    return (os.path.realpath(db), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns,
            st.st_ctime_ns, wal_key)


def check_columns(con: duckdb.DuckDBPyConnection, db: str) -> None:
    """``NotADatabaseError`` unless each of tbdb's tables has the columns of the current schema
    with their types (``COLUMNS``; more columns do no harm).  For a file of the current
    schema revision: an older one lacks the newer columns until ``tbdb upgrade``."""
    names = ", ".join(f"'{t}'" for t in COLUMNS)
    have = {(t, c): ty for t, c, ty in con.execute(
        f"SELECT table_name, column_name, data_type FROM system.main.duckdb_columns() WHERE "
        f"database_name <> 'temp' AND schema_name = 'main' AND table_name IN ({names})"
    ).fetchall()}
    tables = {t for t, _ in have}
    for table, columns in COLUMNS.items():
        if table not in tables:
            _refuse(db, f"it has no table {table!r}")
        for column, kind in columns.items():
            got = have.get((table, column))
            if got is None:
                _refuse(db, f"table {table!r} has no column {column!r}")
            if got != kind:
                _refuse(db, f"column {table}.{column} is {got}, not {kind}")


def _refuse(db: str, what: str):
    raise NotADatabaseError(f"{db!r} is not a tbdb database as tbdb writes it: {what}; tbdb "
                            f"does not read such a file")


def recorded_files(con: duckdb.DuckDBPyConnection) -> list[tuple]:
    """(game or None, table or None, path, rows, bytes, sha256) of every ``tb_index_files``
    row, joined to its table by id (none for a file of no table); ``check_catalogue`` first."""
    (catalog,), = con.execute("SELECT system.main.current_database()").fetchall()
    where = '"' + catalog.replace('"', '""') + '".main'
    try:
        return con.execute(
            f"SELECT t.game, t.table_name, f.path, f.rows, f.bytes, f.sha256 "
            f"FROM {where}.tb_index_files AS f LEFT JOIN {where}.tb_tables AS t "
            f"ON t.table_id = f.table_id ORDER BY f.path").fetchall()
    except duckdb.CatalogException:  # a schema before 0004 (or not tbdb's): none
        return []


def readable_paths(con: duckdb.DuckDBPyConnection, db: str) -> list[str]:
    """The recorded values files that verify (the ones a read-only connection may open);
    ``Store`` names the others when it opens the file.  ``check_catalogue`` first."""
    out = []
    for game, table, path, _, size, sha256 in recorded_files(con):
        try:
            check_values_file(path, size, sha256, db, game, table)
        except (MissingValuesFileError, NotADatabaseError):
            continue
        out.append(path)
    return out


def file_stem(name: str) -> str:
    """A game or table name as a file name: kept as it is when it is plain, else
    percent-quoted (cluster builds name their files so)."""
    from urllib.parse import quote
    return quote(name, safe="-_.+=,")


def values_file_parts(game: str, table: str) -> tuple[str, str]:
    """Where a cluster build keeps a table's values below its directory: (folder, file)."""
    return file_stem(game), file_stem(table) + VALUES_SUFFIX


def check_values_file(path: str, size: int, sha256: str, db: str, game: str | None,
                      table: str | None) -> None:
    """Errors unless ``path`` is the values file of ``game`` table ``table`` as a build
    records it: ``DIR/<game>/<table>.values.parquet``, a file inside DIR (no link out of it),
    of ``size`` bytes and the sha256 recorded."""
    what = f"{game} table {table!r}"
    if game is None or table is None:
        raise NotADatabaseError(f"{db!r} records a values file {path!r} for a table it does not "
                                f"have; tbdb does not read such a file")
    home = os.path.dirname(os.path.dirname(path))
    if not os.path.isabs(path) or os.path.normpath(path) != path or \
            os.path.join(home, *values_file_parts(game, table)) != path:
        raise NotADatabaseError(f"{db!r} records {path!r} as the values file of {what}, which "
                                f"tbdb keeps only as DIR/{game}/<table>{VALUES_SUFFIX}; tbdb "
                                f"does not read such a file")
    real = os.path.realpath(path)
    if not real.startswith(os.path.realpath(home) + os.sep):
        raise NotADatabaseError(f"{db!r} records {path!r} as the values file of {what}, a link "
                                f"out of its directory; tbdb does not read such a file")
    how = (f"put it back, or copy the tables into the database from where they are now "
           f"with: tbdb import DIR --db {db}")
    try:
        st = os.stat(real)
    except OSError:
        raise MissingValuesFileError(f"{what} keeps its values in {path!r}, which is missing "
                                     f"(moved or deleted?): {how}") from None
    if st.st_size != size:
        raise MissingValuesFileError(f"{what} keeps its values in {path!r}, which is "
                                     f"{st.st_size} bytes, not the {size} recorded "
                                     f"(changed since it was built?): {how}")
    if _sha256(real, st) != sha256:
        raise MissingValuesFileError(f"{what} keeps its values in {path!r}, whose sha256 is not "
                                     f"the one recorded (changed since it was built?): {how}")


def _sha256(real: str, st: os.stat_result) -> str:
    key = (real, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    if key not in _HASHED:
        h = hashlib.sha256()
        with open(real, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 22), b""):
                h.update(chunk)
        _HASHED[key] = h.hexdigest()
    return _HASHED[key]


_CREATE = re.compile(r"^CREATE OR REPLACE (VIEW|MACRO)\b", re.I)


def temporary(statement: str) -> str:
    """A ``CREATE OR REPLACE VIEW|MACRO`` statement of ``sql/`` as its TEMP form."""
    if not _CREATE.match(statement):
        raise ValueError(f"not a CREATE OR REPLACE VIEW or MACRO statement: "
                         f"{statement[:60]!r}")
    return _CREATE.sub(lambda m: f"CREATE OR REPLACE TEMP {m.group(1).upper()}", statement, 1)


def apply_own_views(con: duckdb.DuckDBPyConnection, index_view: str) -> None:
    """tbdb's generic views as TEMP views of this connection, in front of whatever the file
    defines by those names: ``index_view`` (``tb_index_values`` over the verified files), then
    the others (``sql/*.sql``).  The games' views: ``apply_own_game_views``."""
    from tbdb.db.sql_files import sql_dir, statements
    con.execute(temporary(index_view))
    for f in sorted(sql_dir().glob("*.sql")):
        if f.name != INDEX_VIEW_FILE:
            for st in statements(f):
                con.execute(temporary(st))


def apply_own_game_views(con: duckdb.DuckDBPyConnection) -> None:
    """Every game's views (``sql/games``) as TEMP views of this connection, like
    ``apply_own_views``.  Made only before a connection runs SQL it is given
    (``Database.prepare_for_sql``): tbdb's own code reads no game view, and making them was
    most of what opening a file for lookups took."""
    from tbdb.db.sql_files import drop_copies_the_file_matches, game_view_files, statements
    for path in game_view_files():
        for st in statements(path):
            con.execute(temporary(st))
    # the copies of views the file defines as tbdb does are not needed (and listed each view
    # twice in information_schema.tables); those of views it redefines stay
    drop_copies_the_file_matches(con)
