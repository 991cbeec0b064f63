"""The command line: every subcommand, and clear errors with non-zero exits."""
import json
import subprocess
import sys

import pytest

from tbdb.cli import main


def run(*args):
    return subprocess.run([sys.executable, "-m", "tbdb.cli", *args], capture_output=True,
                          text=True, timeout=600)


def test_lookup_prints_moves_best_first(kcvp_db, capsys):
    assert main(["lookup", "cdc", "8/8/8/pKC5 r", "--db", kcvp_db]) == 0
    out = capsys.readouterr().out
    assert "outcome:   win in 1 plies" in out and "best move: c1xa1" in out
    lines = [line.split() for line in out.splitlines() if line.startswith("  ")]
    assert lines[0][:2] == ["c1xa1", "win"]


def test_lookup_json(kcvp_db, capsys):
    assert main(["lookup", "cdc", "8/8/8/pKC5 r", "--db", kcvp_db, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["outcome"] == "win" and data["moves"][0]["move"] == "c1xa1"


def test_sql_status_verify(kcvp_db, capsys):
    assert main(["sql", "--db", kcvp_db, "SELECT count(*) AS n FROM cdc_positions "
                 "WHERE pieces = 3 AND result = 'draw'"]) == 0
    assert "(1 row)" in capsys.readouterr().out
    assert main(["status", "--db", kcvp_db]) == 0
    out = capsys.readouterr().out
    assert "cdc" in out and "2" in out
    assert main(["status", "--db", kcvp_db, "--all"]) == 0
    assert "KCvP" in capsys.readouterr().out
    assert main(["verify", "--db", kcvp_db, "--no-progress"]) == 0


def test_verify_catches_a_corrupted_value(kcvp_db, tmp_path, capsys):
    import shutil

    import duckdb
    bad = tmp_path / "bad.duckdb"
    shutil.copy(kcvp_db, bad)
    con = duckdb.connect(str(bad))
    con.execute("UPDATE cdc_values SET distance = distance + 2 WHERE result = 1 AND "
                "idx = (SELECT min(idx) FROM cdc_values WHERE result = 1)")
    con.close()
    assert main(["verify", "--db", str(bad), "--no-progress"]) == 1
    assert "inconsistent" in capsys.readouterr().out


@pytest.mark.parametrize("args, message", [
    (["build", "chess"], "unknown game 'chess'"),
    (["build", "cdc", "--max-pieces", "7"], "max_pieces must be an integer from 2 to 4"),
    (["build", "cdc", "--material", "KQvK"], "malformed material 'KQvK'"),
    (["build", "cdc", "--max-seeds", "3"], "does not take max_seeds=3"),
    (["lookup", "cdc", "4g2K/8/8 r"], "'4g2K/8/8 r'"),
    (["lookup", "cdc", "4g2K/8/8/8 r"], "'KvG' is not built"),
    (["sql", "SELEC nonsense"], "error"),
    (["build", "cdc", "--max-pieces", "two"], "expected a whole number, got 'two'"),
])
def test_bad_input_exits_non_zero_with_a_clear_message(args, message, kcvp_db, tmp_path,
                                                      capsys):
    db = kcvp_db if args[0] in ("lookup", "sql") else str(tmp_path / "fresh.duckdb")
    with pytest.raises(SystemExit) if "two" in args else _nothing():
        code = main(args + ["--db", db])
        assert code == 2
    err = capsys.readouterr().err
    assert message in err
    if args[0] == "build":
        import os
        assert not os.path.exists(db)  # bad options never touch (or create) the database


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_help_for_every_subcommand():
    for sub in ("build", "lookup", "sql", "status", "verify"):
        r = run(sub, "--help")
        assert r.returncode == 0 and "usage: tbdb " + sub in r.stdout


def test_a_database_held_by_another_process_is_a_clear_error(kcvp_db, tmp_path):
    import shutil
    held = tmp_path / "held.duckdb"
    shutil.copy(kcvp_db, held)
    holder = subprocess.Popen(
        [sys.executable, "-c", "import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); "
         "print('ready', flush=True); time.sleep(60)", str(held)],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "ready"
        r = run("status", "--db", str(held))
        assert r.returncode == 2
        assert f"is in use by process {holder.pid}" in r.stderr and "Traceback" not in r.stderr
    finally:
        holder.kill()
        holder.wait()
