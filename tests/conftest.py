import os
import shutil

# before tbdb is imported: compile inline_kernel helpers as plain kernels (solvers/jit.py), the
# same results compiled three times faster; subprocesses of the tests inherit it
os.environ.setdefault("TBDB_JIT_INLINE", "0")
# no test reads the user's default database (tbdb.db.connect.default_db_path: $TBDB_DB, else
# ./tbdb.duckdb): the README's first command leaves ./tbdb.duckdb in the clone, where the
# second runs the tests.  $TBDB_DB is gone for the session (and every process it starts), and
# each test runs in an empty directory of its own (``_no_default_database`` below)
os.environ.pop("TBDB_DB", None)

import pytest  # noqa: E402

import tbdb  # noqa: E402

try:
    import fcntl
except ImportError:  # (not on Windows: each worker builds its own)
    fcntl = None


def _built_once(tmp_path_factory, name: str, build) -> str:
    """A database ``build(path)`` makes, built once per test run rather than once per xdist
    worker: the first worker to ask builds it under a lock in the run's shared temporary
    directory, the others wait and reuse it.  Each worker gets its own copy, so no test of one
    worker can see what a test of another did to its file.  (The every-game build is two to
    three minutes of a worker's time in CI.)"""
    own = tmp_path_factory.mktemp(name) / "tb.duckdb"
    base = tmp_path_factory.getbasetemp()
    if fcntl is None or not os.environ.get("PYTEST_XDIST_WORKER"):
        build(str(own))
        return str(own)
    shared = base.parent / f"shared-{name}"
    with open(base.parent / f"shared-{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not (shared / "built").exists():
            shutil.rmtree(shared, ignore_errors=True)  # (a worker that failed half way)
            shared.mkdir()
            build(str(shared / "tb.duckdb"))
            (shared / "built").touch()
    for f in os.listdir(shared):
        if f.startswith("tb.duckdb"):  # (the database and any write-ahead log beside it)
            shutil.copyfile(shared / f, own.parent / f)
    return str(own)


@pytest.fixture(autouse=True)
def _no_default_database(tmp_path_factory, monkeypatch):
    """Each test, and what it starts, in an empty working directory with no $TBDB_DB, so that a
    tbdb.duckdb where the suite was started (or the user's $TBDB_DB) is never opened by
    default; a test that wants a default database sets one (monkeypatch.setenv, chdir)."""
    monkeypatch.delenv("TBDB_DB", raising=False)
    monkeypatch.chdir(tmp_path_factory.mktemp("cwd", numbered=True))


@pytest.fixture(scope="session")
def kcvp_db(tmp_path_factory):
    """A small database: KCvP and what it needs (CvP), built once per test session."""
    return _built_once(tmp_path_factory, "kcvp", lambda path: tbdb.build(
        "cdc", db=path, material="KCvP", progress=False))


@pytest.fixture(scope="session")
def every_game_db(tmp_path_factory):
    """Every registered game's example build in one file, built once per test session (the
    web tests)."""
    from tbdb import games
    def build(path):
        for g in games.all_games():
            for options in (g.example_build,) + g.more_example_builds:
                tbdb.build(g.name, db=path, progress=False, **options)
    return _built_once(tmp_path_factory, "every-game", build)


# the slowest files first (a CI run's --durations, 2026-11-29): xdist hands each worker whole
# files (--dist loadfile) in collection order, so a long file collected last ran alone at the
# end while the other worker sat idle (test_resume, about 50 s of a run)
SLOWEST_FIRST = ["test_games.py", "test_web_browser.py", "test_native.py", "test_cdc_vs_naive.py",
                 "test_docs_examples.py",
                 "test_probe_files.py", "test_cluster.py", "test_web_api.py",
                 "test_chess_sparse_exits.py", "test_uttt_game.py", "test_safety.py",
                 "test_resume.py", "test_oware_game.py", "test_build_probe_files.py",
                 "test_oware_changes.py", "test_oware_solver.py", "test_cdc_naive_rules.py"]


def pytest_collection_modifyitems(items):
    rank = {name: i for i, name in enumerate(SLOWEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # (a stable sort)
