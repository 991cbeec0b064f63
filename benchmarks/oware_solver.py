"""Micro-benchmark of the Oware book solver (tbdb/games/oware/book.py over solvers/oware/).

    python benchmarks/oware_solver.py            # compile, 9-, 12- and 16-seed builds
    python benchmarks/oware_solver.py --max-n 12 # skip the 16-seed build (takes minutes)

"The n-seed book" means every book of 0..n seeds, every ply-left level until the values stop
changing, with the runs recorded.  Compile time is measured in a fresh process with an empty
Numba cache; the 12- and 16-seed builds run in their own processes so that their peak RSS is
their own.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

_CHILD = r"""
import json, resource, sys, time
sys.path.insert(0, {root!r})
t0 = time.perf_counter()
from tbdb.games.oware import book as oware
t1 = time.perf_counter()
books = oware.solve_books({max_n})
t2 = time.perf_counter()
print(json.dumps({{
    "import_s": t1 - t0,
    "solve_s": t2 - t1,
    "positions": int(sum(b.size for b in books)),
    "runs": int(sum(b.num_runs for b in books)),
    "stable_from": [b.stable_from for b in books],
    "moves_stable_from": [b.moves_stable_from for b in books],
    "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
}}))
"""


def _child(max_n: int, cache_dir: str | None = None) -> dict:
    env = dict(os.environ)
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = cache_dir
    out = subprocess.run([sys.executable, "-c", _CHILD.format(root=ROOT, max_n=max_n)],
                         env=env, check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def machine() -> str:
    try:
        import numba
        nb = f"numba {numba.__version__}, {numba.config.NUMBA_NUM_THREADS} threads"
    except Exception:  # pragma: no cover
        nb = "numba ?"
    load = ", load %.2f %.2f %.2f" % os.getloadavg() if hasattr(os, "getloadavg") else ""
    return (f"{platform.platform()}, {platform.processor() or platform.machine()}, "
            f"{os.cpu_count()} cpus, Python {platform.python_version()}, {nb}{load}")


def run(max_n: int = 16) -> list[dict]:
    results: list[dict] = []

    def add(name, value, unit):
        results.append({"name": name, "value": value, "unit": unit})

    # Compile: a fresh process with an empty cache builds the 3-seed book (compiles every kernel
    # of the build path); then a second process loads the kernels from that cache.
    with tempfile.TemporaryDirectory() as cache:
        t = time.perf_counter()
        _child(3, cache)
        add("compile (cold cache, incl. interpreter start)", time.perf_counter() - t, "s")
        t = time.perf_counter()
        _child(3, cache)
        add("start with warm cache (incl. interpreter start)", time.perf_counter() - t, "s")

    # Warm 9-seed book, in this process.
    sys.path.insert(0, ROOT)
    from tbdb.games.oware import book as oware

    oware.solve_books(9)
    times = []
    for _ in range(5):
        t = time.perf_counter()
        books = oware.solve_books(9)
        times.append(time.perf_counter() - t)
    best = min(times)
    positions9 = sum(b.size for b in books)
    add("9-seed book, warm (best of 5)", best, "s")
    add("9-seed book, warm (median of 5)", sorted(times)[2], "s")
    add("9-seed book positions per second", positions9 / best, "positions/s")
    add("9-seed book stable_from (n=0..9)", [b.stable_from for b in books], "plies")

    for n in (12, 16):
        if n > max_n:
            continue
        r = _child(n)
        add(f"{n}-seed book (books 0..{n})", r["solve_s"], "s")
        add(f"{n}-seed book positions per second", r["positions"] / r["solve_s"], "positions/s")
        add(f"{n}-seed book runs", r["runs"], "runs")
        add(f"{n}-seed book peak RSS", r["peak_rss_mb"], "MB")
        add(f"{n}-seed book stable_from (n=0..{n})", r["stable_from"], "plies")
    return results


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-n", type=int, default=16, help="largest book to time (12 or 16)")
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    args = ap.parse_args(argv)
    results = run(args.max_n)
    if args.json:
        print(json.dumps({"machine": machine(), "results": results}, indent=1))
        return
    print(f"machine: {machine()}")
    width = max(len(r["name"]) for r in results)
    for r in results:
        v = r["value"]
        if isinstance(v, float):
            v = f"{v:,.3f}" if v < 1000 else f"{v:,.0f}"
        print(f"{r['name']:<{width}}  {v}  {r['unit']}")


if __name__ == "__main__":
    main()
