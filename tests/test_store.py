"""The schema: migrations bring a file to head, views are exactly those of sql/, a database of
release 0.1.0 upgrades with its data, and opening a file never harms it."""
import json
import re
import shutil
from pathlib import Path

import duckdb
import pytest

import tbdb
import tbdb.games  # the test below lists the games: imported here, not by an earlier test
from tbdb.db.store import Store
from tbdb.db.connect import STORAGE_COMPATIBILITY, head_revision

ROOT = Path(__file__).resolve().parent.parent
SQL_DIR = ROOT / "sql"
DATA = Path(__file__).resolve().parent / "data"


def _split(text):
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("--")]
    return [s.strip() for s in "\n".join(lines).split(";") if s.strip()]


def _files(games=True):
    files = sorted(SQL_DIR.glob("*.sql"))
    return files + (sorted((SQL_DIR / "games").glob("*.sql")) if games else [])


def _defined(kind, games=True):
    names = set()
    for f in _files(games):
        names |= set(re.findall(rf"CREATE OR REPLACE {kind} (\w+)", f.read_text()))
    return names


def _catalog(con):
    views = {r[0]: r[1] for r in con.execute(
        "SELECT view_name, sql FROM duckdb_views() WHERE NOT internal").fetchall()}
    macros = {r[0] for r in con.execute(
        "SELECT function_name FROM duckdb_functions() WHERE function_type = 'macro' "
        "AND NOT internal").fetchall()}
    return views, macros


def test_new_file_has_exactly_the_views_of_sql_dir(tmp_path):
    with Store(tmp_path / "new.duckdb") as store:
        assert store.revision() == head_revision()
        views, macros = _catalog(store.con)
    assert set(views) == _defined("VIEW")
    assert _defined("MACRO") <= macros
    assert _defined("VIEW", games=False) == {"draw_analysis", "symmetry_stats", "build_progress",
                                             "tb_index_values"}


def test_migrated_views_are_the_views_in_sql_dir(tmp_path):
    """The frozen copies in the migrations (and the game files applied on open) equal sql/ as
    it is now."""
    with Store(tmp_path / "migrated.duckdb") as store:
        migrated, _ = _catalog(store.con)
        tables = store.query("SELECT sql FROM duckdb_tables() WHERE table_name <> "
                             "'alembic_version'")
    # the same storage format as tbdb's files (it shapes how DuckDB renders a view's SQL)
    fresh = duckdb.connect(config={"storage_compatibility_version": STORAGE_COMPATIBILITY})
    for (ddl,) in tables:
        fresh.execute(ddl)
    for f in _files():
        for statement in _split(f.read_text()):
            fresh.execute(statement)
    current, _ = _catalog(fresh)

    def norm(sql):  # DuckDB 1.0's storage format re-renders a view's SQL with other brackets
        return re.sub(r"[()\s]", "", sql)

    assert {k: norm(v) for k, v in migrated.items()} == {k: norm(v) for k, v in current.items()}


def test_a_build_remakes_the_game_views_unless_they_are_this_tbdb_s(tmp_path):
    """Opening a file to write makes the games' views again only when they are not marked as
    this tbdb's (a comment with the digest of sql/games on the last one made)."""
    db = str(tmp_path / "views.duckdb")
    Store(db).close()

    def change_a_view(drop_mark: bool):
        con = duckdb.connect(db)
        if drop_mark:
            (marked,), = con.execute("SELECT view_name FROM duckdb_views() WHERE comment LIKE "
                                     "'tbdb game views %'").fetchall()
            con.execute(f"COMMENT ON VIEW {marked} IS NULL")  # as an older tbdb leaves it
        con.execute("CREATE OR REPLACE VIEW cdc_tables AS SELECT 1 AS changed")
        con.close()

    def columns():
        with Store(db) as store:
            return [c for (c,) in store.query("SELECT column_name FROM (DESCRIBE cdc_tables)")]

    change_a_view(drop_mark=False)
    assert columns() == ["changed"]  # marked as current: not made again
    change_a_view(drop_mark=True)
    assert "material" in columns()  # unmarked: made again, and marked
    change_a_view(drop_mark=False)
    assert columns() == ["changed"]


def test_views_answer(kcvp_db):
    with Store(kcvp_db, read_only=True) as store:
        for view in _defined("VIEW"):
            store.query(f"SELECT * FROM {view} LIMIT 3")
        assert store.query("SELECT count(*) FROM cdc_positions")[0][0] == 14880 + 496


def test_models_match_migrations(tmp_path):
    """Every model table exists in a migrated file with the same columns, types and NULLs."""
    from tbdb.db.models import metadata
    with Store(tmp_path / "cmp.duckdb") as store:
        rows = store.query("SELECT table_name, column_name, data_type, is_nullable "
                           "FROM information_schema.columns JOIN information_schema.tables "
                           "USING (table_name) WHERE table_type = 'BASE TABLE' "
                           "AND table_name <> 'alembic_version'")
    migrated = {(t, c): (ty, n == "YES") for t, c, ty, n in rows}
    names = {"BigInteger": "BIGINT", "Integer": "INTEGER", "SmallInteger": "SMALLINT",
             "String": "VARCHAR", "DateTime": "TIMESTAMP", "Float": "FLOAT"}
    modelled = {(t.name, c.name): (names[type(c.type).__name__], bool(c.nullable))
                for t in metadata.tables.values() for c in t.columns}
    assert modelled == migrated


def test_no_game_needs_a_migration():
    """The migrations after the generic schema, and the core modules, name no game."""
    core = ["api.py", "build.py", "results.py", "prober.py", "options.py",
            *(f"{room}/{f.name}" for room in ("storage", "db", "retrograde")
              for f in (ROOT / "tbdb" / room).glob("*.py"))]
    names = [n for n in tbdb.games.names()]
    for f in core:
        text = (ROOT / "tbdb" / f).read_text()
        for name in names + ["material", "seeds", "turns_left"]:
            assert not re.search(rf"\b{name}\b", text), (f, name)
    for f in _files(games=False):
        text = f.read_text()
        for name in names:
            assert not re.search(rf"'{name}'", text), (f.name, name)


def test_a_release_0_1_0_database_upgrades_and_answers_the_same(tmp_path):
    path = tmp_path / "old.duckdb"
    shutil.copy(DATA / "release-0.1.0.duckdb", path)
    before = path.read_bytes()
    with pytest.raises(tbdb.NotADatabaseError, match="older tbdb.*tbdb upgrade --db"):
        tbdb.open(str(path))
    assert path.read_bytes() == before  # reading never migrates
    Store(path).close()  # what `tbdb upgrade` and builds do
    expected = json.loads((DATA / "release-0.1.0-lookups.json").read_text())
    with tbdb.open(str(path)) as tb:
        for d in expected:
            if d["game"] == "cdc":
                r = tb.lookup(d["position"])
                assert (r.outcome, r.distance) == (d["outcome"], d["distance"])
                # 0.1.0 gave drawing moves distance 1; now a draw is 0 plies everywhere
                assert sorted([m.move, m.outcome, m.distance] for m in r.moves) == \
                    sorted([m, o, 0 if o == "draw" else n] for m, o, n in d["moves"])
            else:
                r = tb.lookup(d["position"], turns_left=d["turns_left"])
                assert (r.score, r.best_move) == (d["score"], d["best_move"])
                assert sorted([m.move, m.score] for m in r.moves) == d["moves"]
        counts = dict(tb.sql("SELECT game, sum(positions) FROM draw_analysis GROUP BY game"
                             ).fetchall())
    # what release 0.1.0's own draw_analysis summed to on this file
    assert counts == {"cdc": 1045568, "oware": 18564}
    report = tbdb.verify(str(path), progress=False)
    assert report.ok and report.checked == 11


def test_read_only_open_of_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope.duckdb"):
        Store(tmp_path / "nope.duckdb", read_only=True)


def test_revisions_read_from_files_are_alembics():
    from alembic.script import ScriptDirectory

    from tbdb.db.connect import alembic_config, revisions
    script = ScriptDirectory.from_config(alembic_config())
    assert revisions() == [r.revision for r in reversed(list(script.walk_revisions()))]
    assert revisions()[-1] == script.get_current_head()


def test_read_paths_do_not_import_alembic_or_sqlalchemy(kcvp_db):
    import subprocess
    import sys
    code = ("import sys, tbdb; tb = tbdb.open(sys.argv[1]); tb.lookup('8/8/8/pKC5 r'); "
            "print(sorted(m for m in ('alembic', 'sqlalchemy') if m in sys.modules))")
    r = subprocess.run([sys.executable, "-c", code, kcvp_db], capture_output=True, text=True)
    assert r.stdout.strip() == "[]", r.stderr
