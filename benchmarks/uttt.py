"""uttt benchmarks: perft from the start (the move generator), and subtree builds (stored
positions, time and peak memory against the root's number of empty cells in open boards).

    python benchmarks/uttt.py                    # perft 8 and subtree roots of 10..20 empties
    python benchmarks/uttt.py --perft 8 --empties 12 14 16 --roots 2 --json

Each subtree build runs ``tbdb build uttt --from ROOT`` in a child process (its own peak RSS);
the kernels are compiled and cached by a first small build that is not timed.  Target (issue
10): perft 8 (281,067,408 leaves) faster than a plain recursive C program (8.6 s on one core
here); a root with 20 empty cells within 10 minutes.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

CHILD = """
import resource, sys, time
import tbdb
t0 = time.perf_counter()
s = tbdb.build("uttt", db=sys.argv[1], progress=False, **{"from": sys.argv[2]})
print(s.rows, time.perf_counter() - t0, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def perft(depth: int) -> dict:
    from tbdb.games.uttt import Position, perft as count
    count(Position.start(), 5)  # compile / load the cache
    t0 = time.perf_counter()
    n = count(Position.start(), depth)
    s = time.perf_counter() - t0
    return {"bench": "uttt perft", "depth": depth, "leaves": n, "seconds": round(s, 2),
            "leaves_per_s": round(n / s)}


def roots(empties: int, how_many: int, seed: int = 1):
    from tests.uttt_helpers import random_root
    rng = random.Random(seed * 1000 + empties)
    return [random_root(rng, empties, empties) for _ in range(how_many)]


def subtree(root_text: str, empties: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "b.duckdb")
        out = subprocess.run([sys.executable, "-c", CHILD, db, root_text], check=True,
                             capture_output=True, text=True).stdout.split()
        rows, seconds, rss_kb = int(out[0]), float(out[1]), int(out[2])
        size = os.path.getsize(db)
    return {"bench": "uttt subtree", "empties": empties, "root": root_text, "positions": rows,
            "seconds": round(seconds, 1), "peak_rss_mb": round(rss_kb / 1024),
            "file_mb": round(size / 1e6, 1)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--perft", type=int, default=8, help="perft depth (0: skip)")
    ap.add_argument("--empties", type=int, nargs="*", default=[10, 12, 14, 16, 18, 20])
    ap.add_argument("--roots", type=int, default=2, help="roots per number of empties")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    results = []
    if args.perft:
        results.append(perft(args.perft))
        show(results[-1], args.json)
    if args.empties:
        warm = roots(8, 1)[0].text
        subtree(warm, 8)  # compile and cache the kernels
        for e in args.empties:
            for r in roots(e, args.roots):
                results.append(subtree(r.text, e))
                show(results[-1], args.json)
    return 0


def show(r: dict, as_json: bool) -> None:
    if as_json:
        print(json.dumps(r), flush=True)
    else:
        print("  ".join(f"{k}={v}" for k, v in r.items() if k != "root"), flush=True)


if __name__ == "__main__":
    sys.exit(main())
