"""The README's two commands in order, as a new user runs them: the first leaves ./tbdb.duckdb in
the clone, the second runs the tests there.  No test may open that file, or $TBDB_DB, by
default (tests/conftest.py: each test in an empty directory, $TBDB_DB unset)."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

from tbdb.db.connect import default_db_path

ROOT = Path(__file__).resolve().parents[1]
PROBE = "tests/test_new_user.py::test_no_test_sees_a_default_database"
# a test that opens the default database (UciEngine(None)); it failed with ./tbdb.duckdb there
UCI = "tests/test_chess_uci.py::test_the_losing_side_and_unknown_positions"


def test_no_test_sees_a_default_database():
    """The test's working directory holds no database, $TBDB_DB is unset, and the same holds in
    a process the test starts."""
    assert "TBDB_DB" not in os.environ
    assert not os.path.exists(default_db_path()) and os.listdir(".") == []
    r = subprocess.run([sys.executable, "-c", "import os; from tbdb.db.connect import "
                        "default_db_path as d; print(os.environ.get('TBDB_DB'), "
                        "os.path.exists(d()))"], capture_output=True, text=True, timeout=120)
    assert r.stdout.split() == ["None", "False"], (r.stdout, r.stderr)


def test_the_suite_ignores_the_database_where_it_is_run(kcvp_db, tmp_path):
    """pytest run from a directory holding tbdb.duckdb, with $TBDB_DB naming another database
    (both a CDC build, as `tbdb build cdc` leaves): the tests above still see neither."""
    shutil.copyfile(kcvp_db, tmp_path / "tbdb.duckdb")
    shutil.copyfile(kcvp_db, tmp_path / "env.duckdb")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTEST_", "PYTHONPATH"))}  # (not as an xdist worker)
    env["TBDB_DB"] = str(tmp_path / "env.duckdb")
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider",
                        "--basetemp", str(tmp_path / "inner"), "--rootdir", str(ROOT),
                        *(str(ROOT / test) for test in (PROBE, UCI))],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0 and "2 passed" in r.stdout, r.stdout[-3000:] + r.stderr[-2000:]


def _views(tb) -> dict[str, int]:
    return dict(tb.sql("SELECT table_name, count(*) FROM information_schema.tables WHERE "
                       "table_type = 'VIEW' GROUP BY 1").fetchall())


# the UTTT views whose text, as DuckDB renders it from a file in DuckDB 1.0's format, uses the
# `->` lambdas DuckDB 2 no longer parses: their copies stay (tbdb.db.sql_files)
NOT_REPARSED = {"uttt_board_codes", "uttt_positions"}


def test_information_schema_lists_each_view_once(kcvp_db):
    """A read-only connection's TEMP copies of tbdb's views (made in front of the file's, which
    may be redefined) are dropped where the file defines the view as tbdb does."""
    import tbdb
    with tbdb.open(kcvp_db) as tb:
        views = _views(tb)
        assert {"draw_analysis", "cdc_positions", "tb_index_values", "symmetry_stats"} <= set(views)
        assert {name for name, n in views.items() if n > 1} <= NOT_REPARSED, views
        (draws,), = tb.sql("SELECT sum(draws) FROM draw_analysis WHERE table_name = 'KCvP'"
                           ).fetchall()
        # what the rows say, counted from the values themselves (KCvP and its colour swap
        # PvKC); on tbdb's connection: another test of this process may hold the file open,
        # and DuckDB refuses a second, differently configured connection to it
        (placements,), = tb.sql(
            "SELECT sum(multiplicity) FROM tb_index_rows JOIN tb_tables USING (table_id) WHERE "
            "table_name = 'KCvP' AND result = 0").fetchall()
    assert draws == 2 * placements


def test_a_redefined_view_still_answers_with_tbdbs(kcvp_db, tmp_path):
    import duckdb

    import tbdb
    crafted = tmp_path / "crafted.duckdb"
    shutil.copyfile(kcvp_db, crafted)
    con = duckdb.connect(str(crafted))
    con.execute("CREATE OR REPLACE VIEW draw_analysis AS SELECT 'crafted' AS game")
    con.execute("CREATE OR REPLACE VIEW cdc_tables AS SELECT 1 AS table_id, 'crafted' AS material")
    con.close()
    with tbdb.open(str(crafted)) as tb:
        assert tb.sql("SELECT DISTINCT game FROM draw_analysis").fetchall() == [("cdc",)]
        assert "crafted" not in {m for (m,) in tb.sql(
            "SELECT DISTINCT material FROM cdc_positions").fetchall()}
        views = _views(tb)
        assert views["draw_analysis"] == 2 and views["cdc_tables"] == 2   # the file's and tbdb's
        assert views["cdc_positions"] == 1, views   # the file's text, reading tbdb's cdc_tables
