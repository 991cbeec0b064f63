"""Ctrl-C and SIGTERM stop every command at once, cleanly (issue 22, items 6 and 10-13).

Each long-running command is started in a subprocess and signalled at a few moments, from the
imports (the first ~0.3 s) to deep inside a Numba kernel or a DuckDB query: the process must be
gone within a couple of seconds with exit status 130 (143 for SIGTERM) and one line on stderr,
never a traceback.  Moments count from when tbdb's own handlers are in place (``ready``: the
process catches SIGTERM, which Python itself leaves alone); before that, in Python's start-up
and the first import of the entry point, no program of ours can handle a signal.  The imports
of NumPy, Numba and DuckDB come after, so a moment of 0 signals the command during them.
"""
import os
import signal
import subprocess
import sys
import time

import pytest

LONG_SQL = "SELECT count(*) FROM range(1000000000000) t(i) WHERE i % 7 = 3"
GONE_WITHIN = 2.0  # seconds from the signal to the exit (the 2-core CI box is busy)


def ready(proc, timeout: float = 60.0) -> None:
    """Wait until ``proc`` has installed tbdb's signal handlers: its SigCgt mask (Linux,
    /proc/PID/status) has SIGTERM, which only tbdb's handler catches."""
    bit = 1 << (signal.SIGTERM - 1)
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            with open(f"/proc/{proc.pid}/status") as f:
                caught = next(int(ln.split()[1], 16) for ln in f if ln.startswith("SigCgt:"))
        except (FileNotFoundError, StopIteration):
            caught = 0
        if caught & bit:
            return
        assert proc.poll() is None, "the command ended before its handlers were in place"
        time.sleep(0.002)
    pytest.fail(f"no signal handlers after {timeout} s")


def start(*args, stdin=subprocess.DEVNULL, command=None):
    """``python -m tbdb.cli.run ARGS`` (or ``command``), stdout and stderr piped."""
    return subprocess.Popen(command or [sys.executable, "-m", "tbdb.cli.run", *args], stdin=stdin,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def stop(proc, moment: float, sig=signal.SIGINT) -> tuple[str, str]:
    """Signal ``proc`` ``moment`` seconds after its handlers are in place; its output once it
    has exited, after checking that it was still running then and exited within
    GONE_WITHIN."""
    ready(proc)
    time.sleep(moment)
    assert proc.poll() is None, "the command ended before the signal: make it longer"
    proc.send_signal(sig)
    sent = time.monotonic()
    try:
        out, err = proc.communicate(timeout=GONE_WITHIN + 5)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        pytest.fail(f"still running {GONE_WITHIN + 5} s after the signal: {err[-2000:]!r}")
    took = time.monotonic() - sent
    assert took < GONE_WITHIN, f"took {took:.1f} s to stop"
    return out.decode(errors="replace"), err.decode(errors="replace")


def _interrupted(proc, err: str, sig=signal.SIGINT) -> None:
    assert proc.returncode == (130 if sig == signal.SIGINT else 143), (proc.returncode, err)
    assert "Traceback" not in err and "Error" not in err, err
    lines = err.strip().splitlines()
    progress = [ln for ln in lines[:-1] if " build: " in ln]  # build --no-progress: a line a table
    assert len(lines) == len(progress) + 1 and "interrupted" in lines[-1], err


MOMENTS = [0.0, 0.3, 1.0, 2.0]


@pytest.mark.parametrize("moment", MOMENTS)
@pytest.mark.parametrize("args", [
    ["perft", "shogi", "start", "64"],
    ["perft", "uttt", "start", "64"],
    ["perft", "chinese-checkers", "start", "64"],
], ids=lambda a: a[1] if isinstance(a, list) else a)
def test_ctrl_c_stops_a_deep_perft(args, moment):
    proc = start(*args)
    out, err = stop(proc, moment)
    _interrupted(proc, err)


@pytest.mark.parametrize("moment", MOMENTS)
def test_ctrl_c_stops_a_long_sql_query(kcvp_db, moment):
    before = open(kcvp_db, "rb").read()
    proc = start("sql", "--db", kcvp_db, LONG_SQL)
    out, err = stop(proc, moment)
    _interrupted(proc, err)
    assert open(kcvp_db, "rb").read() == before


@pytest.mark.parametrize("moment", [0.0, 0.3, 1.0, 1.7])
def test_ctrl_c_stops_verify(every_game_db, moment):
    proc = start("verify", "--db", every_game_db, "--no-progress")
    out, err = stop(proc, moment)
    _interrupted(proc, err)


@pytest.mark.parametrize("moment", [0.0, 0.3, 1.5])
def test_ctrl_c_stops_a_lookup_reading_stdin(kcvp_db, moment):
    proc = start("lookup", "cdc", "-", "--db", kcvp_db, stdin=subprocess.PIPE)
    out, err = stop(proc, moment)
    _interrupted(proc, err)


@pytest.mark.parametrize("moment", [0.0, 1.0])
def test_ctrl_c_stops_a_build(tmp_path, moment):
    proc = start("build", "cdc", "--material", "KGvRN", "--db", str(tmp_path / "tb.duckdb"),
                 "--no-progress")
    out, err = stop(proc, moment)
    _interrupted(proc, err)


@pytest.mark.parametrize("args", [
    ["perft", "shogi", "start", "64"],
    ["sql", "--db", "{db}", LONG_SQL],
    ["verify", "--db", "{every}", "--no-progress"],
], ids=lambda a: a[0])
@pytest.mark.parametrize("moment", [0.2, 1.5])
def test_sigterm_stops_a_command(args, moment, kcvp_db, every_game_db):
    proc = start(*[a.format(db=kcvp_db, every=every_game_db) for a in args])
    out, err = stop(proc, moment, signal.SIGTERM)
    _interrupted(proc, err, signal.SIGTERM)


def test_the_tbdb_script_handles_ctrl_c_during_its_imports():
    script = os.path.join(os.path.dirname(sys.executable), "tbdb")
    if not os.path.exists(script):
        pytest.skip("tbdb is not installed as a command beside this Python")
    proc = start(command=[script, "perft", "shogi", "start", "64"])
    out, err = stop(proc, 0.0)  # NumPy, Numba and DuckDB are still loading
    _interrupted(proc, err)


# --------------------------------------------------------------------------- the sql prompt

def test_ctrl_c_at_the_sql_prompt_cancels_the_query_and_keeps_the_prompt(kcvp_db):
    proc = start(command=[sys.executable, "-u", "-m", "tbdb.cli.run", "sql", "--db", kcvp_db],
                 stdin=subprocess.PIPE)  # -u: each row is written when printed
    proc.stdin.write(b"SELECT 'ready' AS state;\n")
    proc.stdin.flush()
    assert proc.stdout.readline() == b"state\n"  # the prompt runs queries: the imports are done
    proc.stdin.write(f"{LONG_SQL};\n".encode())
    proc.stdin.flush()
    time.sleep(1.0)
    assert proc.poll() is None
    proc.send_signal(signal.SIGINT)
    time.sleep(0.5)
    out, err = proc.communicate(b"SELECT 6 * 7 AS answer;\n", timeout=30)
    out, err = out.decode(), err.decode()
    assert proc.returncode == 0, err
    assert "Traceback" not in err and "interrupted" in err and len(err.strip().splitlines()) == 1
    assert "42" in out.split()


def test_invalid_utf8_at_the_sql_prompt_is_an_error_line_and_the_prompt_goes_on(kcvp_db):
    proc = start("sql", "--db", kcvp_db, stdin=subprocess.PIPE)
    out, err = proc.communicate(b"SELECT '\xff' AS bad;\nSELECT 6 * 7 AS answer;\n", timeout=60)
    out, err = out.decode(), err.decode()
    assert proc.returncode == 0, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert "UTF-8" in err and "\\udcff" in err, err
    assert "42" in out.split()


def test_invalid_utf8_in_a_sql_argument_is_a_one_line_error(kcvp_db):
    before = open(kcvp_db, "rb").read()
    r = subprocess.run([sys.executable, "-m", "tbdb.cli.run", "sql", "--db", kcvp_db,
                        b"SELECT '\xff' AS bad"], capture_output=True, timeout=60)
    err = r.stderr.decode()
    assert r.returncode == 2, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert "UTF-8" in err and "SELECT '\\udcff' AS bad" in err, err
    assert open(kcvp_db, "rb").read() == before
