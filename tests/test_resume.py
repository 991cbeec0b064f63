"""Interrupted builds resume: kill -9 or Ctrl-C mid-build, rerun, and get the same database."""
import os
import signal
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

import tbdb
import tbdb.cli.run as cli

BUILD = ["build", "cdc", "--max-pieces", "3", "--no-progress"]
FINGERPRINT = ("SELECT count(*), sum(hash(t.table_name, v.idx, v.result, v.distance, v.best_move, "
               "v.multiplicity)) FROM tb_index_values v JOIN tb_tables t USING (table_id)")


def fingerprint(path):
    con = duckdb.connect(str(path), read_only=True)
    try:
        values = con.execute(FINGERPRINT).fetchall()
        tables = con.execute("SELECT count(*), count(DISTINCT table_name) FROM tb_tables"
                             ).fetchall()
        states = dict(con.execute("SELECT state, count(*) FROM build_checkpoints GROUP BY state")
                      .fetchall())
        dupes = con.execute("SELECT count(*) FROM (SELECT table_id, idx FROM tb_index_values "
                            "GROUP BY ALL HAVING count(*) > 1)").fetchall()[0][0]
    finally:
        con.close()
    return values, tables, states, dupes


def interrupt(path, sig, delay, build=BUILD, env=None):
    """Start ``tbdb <build>`` on a new file (``env``: extra environment) and send ``sig``
    after ``delay`` seconds unless it has ended: (return code, the checkpoint states the file
    holds afterwards or None if it has no schema yet, stderr)."""
    for suffix in ("", ".wal"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    proc = subprocess.Popen([sys.executable, "-m", "tbdb.cli.run", *build, "--db", str(path)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=None if env is None else {**os.environ, **env})
    try:
        proc.wait(timeout=delay)
    except subprocess.TimeoutExpired:
        proc.send_signal(sig)
    out, err = proc.communicate(timeout=120)
    if not path.exists():
        return proc.returncode, None, err
    try:
        return proc.returncode, checkpoint_states(path), err
    except duckdb.CatalogException:
        return proc.returncode, None, err  # killed while the schema was being created (one
        # transaction: no trace)


def checkpoint_states(path) -> dict[str, str]:
    """table name -> checkpoint state ('pending', 'building', 'done') of a database file."""
    con = duckdb.connect(str(path), read_only=True)
    try:
        return dict(con.execute("SELECT table_name, state FROM build_checkpoints").fetchall())
    finally:
        con.close()


def interrupted_build(path, sig, delays, build=BUILD):
    """Start a build on a new file and send ``sig`` after each delay until it dies mid-build
    (some tables done, not all)."""
    states = {}
    for delay in delays:
        code, tables, err = interrupt(path, sig, delay, build)
        if tables is None:
            continue
        states = {}
        for state in tables.values():
            states[state] = states.get(state, 0) + 1
        if code != 0 and 0 < states.get("done", 0) < sum(states.values()):
            return code, states, err
    raise AssertionError(f"could not interrupt the build mid-way (states {states})")


# slow (42 s of CI's time, which ran within a minute of its 20): CI keeps a kill between
# tables of a many-table build resumed to the reference (test_oware_game.py), a kill inside a
# table of every game (test_games.py), SIGTERM mid-build (test_safety.py) and Ctrl-C stopping a
# build (test_signals.py); this one kills CDC's 217 tables blindly, by SIGKILL and by Ctrl-C
@pytest.mark.slow
def test_kill_and_resume_gives_the_uninterrupted_result(tmp_path, capsys):
    reference = tmp_path / "reference.duckdb"
    tbdb.build("cdc", db=str(reference), max_pieces=3, progress=False)
    ref_values, ref_tables, ref_states, _ = fingerprint(reference)
    assert ref_states == {"done": 217}

    delays = [3, 4, 2, 5, 6, 1.5, 8]
    killed = tmp_path / "killed.duckdb"
    code, states, _ = interrupted_build(killed, signal.SIGKILL, delays)
    assert code == -signal.SIGKILL

    stopped = tmp_path / "ctrl-c.duckdb"
    code, states, err = interrupted_build(stopped, signal.SIGINT, delays)
    assert code == 130 and "resume" in err, err[-3000:]

    for path in (killed, stopped):
        # status and the resumed build in this process (the kills needed their own; a process
        # start is imports and kernels loaded from the cache: 4 s of CI's time each)
        assert cli.main(["status", "--db", str(path)]) == 0
        assert "cdc" in capsys.readouterr().out
        assert cli.main([*BUILD, "--db", str(path)]) == 0
        assert "already done" in capsys.readouterr().out
        values, tables, states, dupes = fingerprint(path)
        assert (values, tables, states, dupes) == (ref_values, ref_tables, ref_states, 0)
