"""A result read after its tablebase is closed (issue 61, item 2): ``r.line()``, ``r.moves`` and
``r.to_dict()`` read the tablebase when first asked for; after ``close`` (or the README's
``with tbdb.open(DIR) as tb:`` block) they raise ``tbdb.ClosedError`` in one line: never a
segfault in a decoder of an unmapped file, nor a false "damaged".  What a result read before
the close it keeps.  On probe directories (Python path, libtbprobe, loaded or not, direct
cells) and DuckDB databases; in a subprocess, so that a segfault fails the test."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

import tbdb
from tbdb.errors import TbdbError
from tbdb.probe_files import export

A = "8/8/8/pKC5 r"


@pytest.fixture(scope="module")
def stores(kcvp_db, tmp_path_factory):
    base = tmp_path_factory.mktemp("closed")
    export(kcvp_db, str(base / "probe"), progress=False)
    export(kcvp_db, str(base / "direct"), progress=False, direct=True)
    return {"probe": str(base / "probe"), "direct": str(base / "direct"), "duckdb": kcvp_db}


def test_closed_error_is_exported():
    assert issubclass(tbdb.ClosedError, TbdbError) and issubclass(tbdb.ClosedError, ValueError)
    assert "ClosedError" in tbdb.__all__


SCRIPT = textwrap.dedent("""
    import json, sys
    import tbdb
    from tbdb import games
    path, load, how = sys.argv[1], sys.argv[2] == "load", sys.argv[3]
    A = %r
    g = games.get("cdc")
    if how == "with":  # the README's pattern
        with tbdb.open(path) as tb:
            if load:
                tb.load("cdc")
            r = tb.lookup(A)
            kept = tb.lookup(A)
            kept_moves = [m.move for m in kept.moves]
    else:
        tb = tbdb.open(path)
        if load:
            tb.load("cdc")
        r = tb.lookup(A if how == "text" else g.coerce(A), game="cdc")
        tb.lookup_arrays("cdc", *g.encode_batch([g.coerce(A)]))
        kept = tb.lookup(A)
        kept_moves = [m.move for m in kept.moves]
        tb.close()
    ways = {"line": lambda: [s.move for s in r.line()],
            "moves": lambda: [m.move for m in r.moves],
            "to_dict": lambda: r.to_dict(),
            "lookup": lambda: tb.lookup(A).outcome,
            "arrays": lambda: tb.lookup_arrays("cdc", *g.encode_batch([g.coerce(A)])),
            "kept": lambda: [kept.outcome, [m.move for m in kept.moves] == kept_moves,
                             kept.to_dict(moves=False)["best_move"]]}
    for name, way in ways.items():
        try:
            out = {"ok": way()}
        except Exception as exc:
            out = {"error": type(exc).__name__, "text": str(exc)}
        print(json.dumps({name: out}, default=str), flush=True)
    print("alive", flush=True)
""" % A)


@pytest.mark.parametrize("how,load", [("text", False), ("text", True), ("object", False),
                                      ("with", False)],
                         ids=["text-mapped", "text-loaded", "object", "with-block"])
@pytest.mark.parametrize("native_env", ["0", "1"], ids=["python", "default"])
@pytest.mark.parametrize("kind", ["probe", "direct", "duckdb"])
def test_a_result_after_close_raises_closed_error(stores, kind, native_env, load, how):
    path = stores[kind]
    p = subprocess.run([sys.executable, "-W", "ignore", "-c", SCRIPT, path,
                        "load" if load else "-", how], capture_output=True, text=True,
                       env=dict(os.environ, TBDB_NATIVE=native_env), timeout=300)
    assert p.returncode == 0, f"died (status {p.returncode}): {p.stderr[-2000:]}"
    lines = p.stdout.splitlines()
    assert lines[-1] == "alive", p.stdout
    got = {}
    for line in lines[:-1]:
        got.update(json.loads(line))
    for way in ("line", "moves", "to_dict", "lookup", "arrays"):
        out = got[way]
        assert out.get("error") == "ClosedError", (way, out)
        assert "\n" not in out["text"] and repr(path) in out["text"], (way, out)
        assert "damaged" not in out["text"], (way, out)
    # read before the close: kept (a win in 1, its best move c1xa1)
    assert got["kept"] == {"ok": ["win", True, "c1xa1"]}
