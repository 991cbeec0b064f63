"""The schema: migrations bring a new file to head, and the views are exactly those of sql/."""
import re
from pathlib import Path

import duckdb
import pytest

from tbdb.migrations.versions import __path__ as _versions_path  # noqa: F401 - import check
from tbdb.store import Store, head_revision

SQL_DIR = Path(__file__).resolve().parent.parent / "sql"


def _split(text):
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("--")]
    return [s.strip() for s in "\n".join(lines).split(";") if s.strip()]


def _defined(kind):
    names = set()
    for f in sorted(SQL_DIR.glob("*.sql")):
        names |= set(re.findall(rf"CREATE OR REPLACE {kind} (\w+)", f.read_text()))
    return names


def _catalog(con):
    views = {r[0]: r[1] for r in con.execute(
        "SELECT view_name, sql FROM duckdb_views() WHERE NOT internal").fetchall()}
    macros = {r[0] for r in con.execute(
        "SELECT function_name FROM duckdb_functions() WHERE function_type = 'macro' "
        "AND NOT internal").fetchall()}
    return views, macros


def test_new_file_migrates_to_head(tmp_path):
    path = tmp_path / "new.duckdb"
    with Store(path) as store:
        assert store.revision() == head_revision()
        views, macros = _catalog(store.con)
    assert set(views) == _defined("VIEW")
    assert _defined("MACRO") <= macros


def test_migrated_views_are_the_views_in_sql_dir(tmp_path):
    """The frozen copies in the migrations equal sql/ as it is now."""
    with Store(tmp_path / "migrated.duckdb") as store:
        migrated, _ = _catalog(store.con)
        tables = store.query("SELECT sql FROM duckdb_tables() WHERE table_name <> 'alembic_version'")
    fresh = duckdb.connect()
    for (ddl,) in tables:
        fresh.execute(ddl)
    for f in sorted(SQL_DIR.glob("*.sql")):
        for statement in _split(f.read_text()):
            fresh.execute(statement)
    current, _ = _catalog(fresh)
    assert migrated == current


def test_views_answer(kcvp_db):
    with Store(kcvp_db, read_only=True) as store:
        for view in _defined("VIEW"):
            store.query(f"SELECT * FROM {view} LIMIT 3")
        assert store.query("SELECT count(*) FROM cdc_positions")[0][0] > 0


def test_models_match_migrations(tmp_path):
    """Every model table exists in a migrated file with the same columns, types and NULLs."""
    from tbdb.models import metadata
    with Store(tmp_path / "cmp.duckdb") as store:
        rows = store.query("SELECT table_name, column_name, data_type, is_nullable "
                           "FROM information_schema.columns JOIN information_schema.tables USING (table_name) "
                           "WHERE table_type = 'BASE TABLE' AND table_name <> 'alembic_version'")
    migrated = {(t, c): (ty, n == "YES") for t, c, ty, n in rows}
    names = {"BigInteger": "BIGINT", "Integer": "INTEGER", "SmallInteger": "SMALLINT",
             "String": "VARCHAR", "DateTime": "TIMESTAMP", "Float": "FLOAT"}
    modelled = {(t.name, c.name): (names[type(c.type).__name__], bool(c.nullable))
                for t in metadata.tables.values() for c in t.columns}
    assert modelled == migrated


def test_read_only_open_of_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope.duckdb"):
        Store(tmp_path / "nope.duckdb", read_only=True)
