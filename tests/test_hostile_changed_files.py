"""Probe files changed under an open reader (issue 61, item 1): truncated, shrunk, rewritten in
place with the same size or by ``cp``, or replaced by rename.  A changed file fails the lookup
with one ``ProbeFileError`` naming it, and the process lives: never "Bus error", a segfault or a
value read from the new bytes.  A file replaced by rename (a new inode; the reader keeps its
mapping of the old one) keeps answering.  Each case runs in a subprocess, so that a crash fails
its test instead of killing pytest; on the Python path (``TBDB_NATIVE=0``) and the default one
(libtbprobe where it is built)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

import tbdb
from tbdb.probe_files import export
from tbdb.probe_files.format import guard_extension

A, B = "8/8/8/pKC5 r", "8/8/1K6/6pC b"  # two positions of KCvP
TABLE = "cdc/KCvP.tbp"


@pytest.fixture(scope="module")
def exported(kcvp_db, tmp_path_factory):
    out = str(tmp_path_factory.mktemp("changed") / "probe")
    export(kcvp_db, out, progress=False)
    return out


@pytest.fixture(scope="module")
def truth(kcvp_db):
    """What the database (not the probe files) says of the positions asked, with their moves."""
    with tbdb.open(kcvp_db) as tb:
        return {t: _answer(tb.lookup(t)) for t in (A, B)}


def _answer(r) -> list:
    return [r.outcome, r.distance, r.best_move, [[m.move, m.outcome, m.distance] for m in r.moves]]


# the reader: opens the directory, looks A up (its table's file is opened and mapped), lets the
# test change the file, then asks again in every way and prints one JSON line per way
READER = textwrap.dedent("""
    import json, os, sys
    import numpy as np
    import tbdb
    from tbdb import games
    path, change, load = sys.argv[1], sys.argv[2], sys.argv[3] == "load"
    A, B = %r, %r
    tb = tbdb.open(path)
    if load:
        tb.load("cdc")
    tb.lookup(A)
    g = games.get("cdc")
    tb.lookup_arrays("cdc", *g.encode_batch([g.coerce(A)]))
    exec(change)
    def answer(r):
        return [r.outcome, r.distance, r.best_move,
                [(m.move, m.outcome, m.distance) for m in r.moves]]
    ways = {"lookup B": lambda: answer(tb.lookup(B)),
            "lookup A": lambda: answer(tb.lookup(A)),
            "object B": lambda: answer(tb.lookup(g.coerce(B), game="cdc")),
            "line A": lambda: [s.move for s in tb.lookup(A).line()],
            "arrays": lambda: [c.tolist() for c in tb.lookup_arrays(
                "cdc", *g.encode_batch([g.coerce(A), g.coerce(B)]))]}
    for name, way in ways.items():
        try:
            out = {"ok": way()}
        except Exception as exc:
            out = {"error": type(exc).__name__, "text": str(exc)}
        print(json.dumps({name: out}), flush=True)
    print("alive", flush=True)
""" % (A, B))

CHANGES = {
    "truncate": "os.truncate(os.path.join(path, %r), 0)" % TABLE,
    "shrink": "os.truncate(os.path.join(path, %r), 3000)" % TABLE,
    # the same size, other bytes: every byte after the header's 1 KB reversed in place
    "same-size": "p = os.path.join(path, %r); d = open(p, 'rb').read()\n"
                 "with open(p, 'r+b') as f: f.write(d[:1024] + d[1024:][::-1])" % TABLE,
    # cp other.tbp KCvP.tbp: truncated, then the other table's bytes written
    "cp-over": "import shutil; shutil.copyfile(os.path.join(path, 'cdc/CvP.tbp'), "
               "os.path.join(path, %r))" % TABLE,
}


def _run(directory: str, change: str, native_env: str, load: bool = False) -> dict:
    env = dict(os.environ, TBDB_NATIVE=native_env)
    p = subprocess.run([sys.executable, "-W", "ignore", "-c", READER, directory, change,
                        "load" if load else "-"], capture_output=True, text=True, env=env,
                       timeout=300)
    assert p.returncode == 0, f"the reader died (status {p.returncode}): {p.stderr[-2000:]}"
    lines = p.stdout.splitlines()
    assert lines[-1] == "alive", p.stdout
    out = {}
    for line in lines[:-1]:
        out.update(json.loads(line))
    return out


@pytest.mark.parametrize("load", [False, True], ids=["mapped", "loaded"])
@pytest.mark.parametrize("native_env", ["0", "1"], ids=["python", "default"])
@pytest.mark.parametrize("change", sorted(CHANGES))
def test_a_changed_file_fails_its_lookups_in_one_line(exported, tmp_path, change, native_env,
                                                       load, truth):
    d = str(tmp_path / "probe")
    shutil.copytree(exported, d)
    got = _run(d, CHANGES[change], native_env, load)
    path = os.path.join(d, TABLE)
    for way, out in got.items():
        assert "error" in out, f"{way} answered from a changed file: {out}"
        assert out["error"] == "ProbeFileError", (way, out)
        assert "\n" not in out["text"] and repr(path) in out["text"], (way, out)
        # changed, not "damaged": the file is sound, it is not the one opened
        assert "open the directory again" in out["text"], (way, out)


@pytest.mark.parametrize("native_env", ["0", "1"], ids=["python", "default"])
def test_a_file_replaced_by_rename_keeps_answering(exported, tmp_path, native_env, truth):
    d = str(tmp_path / "probe")
    shutil.copytree(exported, d)
    # the same table written anew and renamed over the old (what tbdb export does)
    change = ("import shutil; p = os.path.join(path, %r); shutil.copyfile(p, p + '.new'); "
              "os.rename(p + '.new', p)" % TABLE)
    got = _run(d, change, native_env)
    assert got["lookup A"] == {"ok": truth[A]}
    assert got["lookup B"] == {"ok": truth[B]}
    assert got["object B"] == {"ok": truth[B]}
    assert got["line A"] == {"ok": [truth[A][2]]}  # a win in 1
    assert "ok" in got["arrays"], got["arrays"]


@pytest.mark.skipif(guard_extension() is None, reason="tbdb._tbprobe without its SIGBUS guard")
def test_a_truncation_during_a_read_is_absorbed_and_refused(exported, tmp_path):
    """The race no fstat closes: the file truncated after the check before a read and before
    the read touches the page.  The guard maps zeros there (no SIGBUS), and ``leave`` refuses
    the read."""
    d = str(tmp_path / "probe")
    shutil.copytree(exported, d)
    script = textwrap.dedent("""
        import os, sys
        from tbdb.probe_files.format import ProbeFile
        from tbdb.probe_files.header import ProbeFileError
        f = ProbeFile(sys.argv[1])
        before = f.enter()
        os.truncate(sys.argv[1], 0)
        print(int(f.buf[-1]), flush=True)  # a page past the new end: SIGBUS without the guard
        try:
            f.leave(before)
            print("accepted")
        except ProbeFileError as exc:
            print("refused", exc)
    """)
    p = subprocess.run([sys.executable, "-c", script, os.path.join(d, TABLE)],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, f"status {p.returncode}: {p.stderr[-2000:]}"
    assert p.stdout.splitlines()[0] == "0"
    assert p.stdout.splitlines()[1].startswith("refused probe file"), p.stdout


@pytest.mark.parametrize("native_env", ["0", "1"], ids=["python", "default"])
def test_the_web_server_survives_a_changed_file(exported, tmp_path, truth, native_env,
                                                 monkeypatch):
    pytest.importorskip("starlette")
    monkeypatch.setenv("TBDB_NATIVE", native_env)
    from starlette.testclient import TestClient
    from tbdb.web.app import create_app
    d = str(tmp_path / "probe")
    shutil.copytree(exported, d)
    url = "/api/cdc?position="
    with TestClient(create_app(d)) as c:
        first = c.get(url + A.replace("/", "%2F").replace(" ", "+"))
        assert first.status_code == 200 and first.json()["outcome"] == truth[A][0]
        os.truncate(os.path.join(d, TABLE), 0)
        for _ in range(3):
            r = c.get(url + B.replace("/", "%2F").replace(" ", "+"))
            assert 400 <= r.status_code < 500, r.text
            assert os.path.join(d, TABLE) in r.json()["error"]
            assert "open the directory again" in r.json()["error"]
        # the other table is still served
        r = c.get(url + "8/8/8/pC6 b".replace("/", "%2F").replace(" ", "+"))
        assert r.status_code == 200 and r.json()["outcome"] == "draw", r.text


def test_the_check_costs_little(exported):
    """``ProbeFile.enter``/``leave`` on an unchanged file: two fstats; generous bound so that a
    slow machine does not fail it, tight enough to catch a check that reads the file."""
    import time
    from tbdb.probe_files.format import ProbeFile
    f = ProbeFile(os.path.join(exported, TABLE))
    try:
        n = 2000
        t = time.perf_counter()
        for _ in range(n):
            f.leave(f.enter())
        assert (time.perf_counter() - t) / n < 50e-6
    finally:
        f.close()


def test_many_open_files_raise_a_low_descriptor_limit(exported):
    """Each open probe file holds two descriptors (its own for the check, the mapping's): a
    soft limit too low for them is raised to the hard one; past the hard one, one line."""
    script = textwrap.dedent("""
        import os, resource, sys
        from tbdb.probe_files.format import ProbeFile
        from tbdb.probe_files.header import ProbeFileError
        path = sys.argv[1]
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if hard < 400:
            print("skip"); sys.exit()
        resource.setrlimit(resource.RLIMIT_NOFILE, (64, hard))
        files = [ProbeFile(path) for _ in range(100)]  # 200 descriptors
        print(resource.getrlimit(resource.RLIMIT_NOFILE)[0] == hard)
        used = len(os.listdir("/proc/self/fd"))  # (one of them the listing's own)
        resource.setrlimit(resource.RLIMIT_NOFILE, (used, used))  # room for one, not two
        try:
            ProbeFile(path)
        except ProbeFileError as exc:
            print("refused", exc)
    """)
    p = subprocess.run([sys.executable, "-c", script, os.path.join(exported, TABLE)],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    if p.stdout.strip() == "skip":
        pytest.skip("a hard limit on descriptors below 400")
    lines = p.stdout.splitlines()
    assert lines[0] == "True"
    assert lines[1].startswith("refused probe file") and "ulimit -n" in lines[1], p.stdout
