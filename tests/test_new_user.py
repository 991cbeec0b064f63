"""The README's two commands in order, as a new user runs them: the first leaves ./tbdb.duckdb in
the clone, the second runs the tests there.  No test may open that file, or $TBDB_DB, by
default (tests/conftest.py: each test in an empty directory, $TBDB_DB unset)."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

from tbdb.database import default_db_path

ROOT = Path(__file__).resolve().parents[1]
PROBE = "tests/test_new_user.py::test_no_test_sees_a_default_database"
# a test that opens the default database (UciEngine(None)); it failed with ./tbdb.duckdb there
UCI = "tests/test_chess_uci.py::test_the_losing_side_and_unknown_positions"


def test_no_test_sees_a_default_database():
    """The test's working directory holds no database, $TBDB_DB is unset, and the same holds in
    a process the test starts."""
    assert "TBDB_DB" not in os.environ
    assert not os.path.exists(default_db_path()) and os.listdir(".") == []
    r = subprocess.run([sys.executable, "-c", "import os; from tbdb.database import "
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
