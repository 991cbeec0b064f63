"""uttt benchmarks: perft from the start (the move generator), subtree builds (stored
positions, time and peak memory against the root's number of empty cells in open boards), and
the exhaustive tables of every legal position with at most K empty cells (positions per level).

    python benchmarks/uttt.py                    # perft 8 and subtree roots of 10..20 empties
    python benchmarks/uttt.py --perft 8 --empties 12 14 16 --roots 2 --json
    python benchmarks/uttt.py --perft 0 --empties --max-empties 1 --bound 3

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

EXHAUSTIVE = """
import json, resource, sys, time
import tbdb
t0 = time.perf_counter()
s = tbdb.build("uttt", db=sys.argv[1], progress=False, max_empties=int(sys.argv[2]))
seconds = time.perf_counter() - t0
with tbdb.open(sys.argv[1]) as tb:
    levels = tb.sql("SELECT empties, sum(canonical_rows), sum(positions), sum(wins), sum(draws), "
                    "sum(losses) FROM uttt_draw_analysis GROUP BY empties ORDER BY empties"
                    ).fetchall()
print(json.dumps({"rows": s.rows, "seconds": seconds,
                  "rss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                  "levels": [[int(x or 0) for x in row] for row in levels]}))
"""


def perft(depth: int) -> dict:
    from tbdb.games.uttt.position import Position, perft as count
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


def exhaustive(k: int) -> list[dict]:
    """``tbdb build uttt --max-empties K`` in a child process: time, peak memory, file size and
    the stored rows and positions of each level."""
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "e.duckdb")
        out = json.loads(subprocess.run([sys.executable, "-c", EXHAUSTIVE, db, str(k)],
                                        check=True, capture_output=True, text=True).stdout)
        size = os.path.getsize(db)
    rows = [{"bench": "uttt max-empties", "K": k, "rows": out["rows"],
             "seconds": round(out["seconds"], 1), "peak_rss_mb": round(out["rss_kb"] / 1024),
             "file_mb": round(size / 1e6, 1)}]
    for level, canonical, positions, wins, draws, losses in out["levels"]:
        rows.append({"bench": "uttt max-empties level", "K": k, "empties": level,
                     "rows": canonical, "positions": positions, "wins": wins, "draws": draws,
                     "losses": losses})
    return rows


def count_legal(k: int) -> dict:
    """Canonical legal positions with at most K empty cells, counted by the enumeration's
    counting pass only (nothing stored): what ``--max-empties K`` would hold."""
    import numpy as np
    from tbdb.solvers.uttt import levels as kernels
    firsts = kernels.ALPHA[:kernels.UPTO[k]]
    e = kernels.CODE_EMPTIES
    pairs = np.array([(a, b) for a in firsts for b in firsts if e[a] + e[b] <= k], np.int16)
    counts = np.zeros(len(pairs), np.int64)
    t0 = time.perf_counter()
    kernels.legal_keys_pass(pairs, k, counts, np.empty((0, 2), np.int64), False)
    n = int(counts.sum())
    # a build holds each key (16 bytes) several times over: sorted levels, values, children
    return {"bench": "uttt max-empties count", "K": k, "rows": n,
            "count_seconds": round(time.perf_counter() - t0, 1),
            "keys_gb": round(16 * n / 1e9, 1)}


def level_bounds(k: int) -> list[dict]:
    """Per level e <= K, an upper bound on the positions (closed boards by status) with e empty
    cells in open boards: boards coded independently (the coefficient of x^e y^j in
    (3 + y * sum_e c_e x^e)^9, c_e open board codes with e empties, j open boards), times the
    constraints (any or one of the j open boards) and the two sides; and rows ~ bound / 8 (the
    symmetries), before legality.  At K = 1 the build stores 0.83 of that."""
    import numpy as np
    from tbdb.solvers.uttt.keys import CODE_EMPTIES
    c = np.bincount(CODE_EMPTIES, minlength=10).astype(object)
    poly = {(0, 0): 1}  # (empties, open boards) -> assignments, exact integers
    for _ in range(9):
        nxt: dict = {}
        for (e, j), n in poly.items():
            nxt[(e, j)] = nxt.get((e, j), 0) + 3 * n
            for ee in range(1, 10):
                if e + ee <= k:
                    nxt[(e + ee, j + 1)] = nxt.get((e + ee, j + 1), 0) + n * int(c[ee])
        poly = nxt
    out = []
    for e in range(k + 1):
        bound = sum(n * (1 + j) * 2 for (ee, j), n in poly.items() if ee == e)
        out.append({"bench": "uttt max-empties bound", "empties": e, "positions_bound": bound,
                    "rows_estimate": bound // 8, "keys_gb_estimate": round(2 * bound / 1e9, 1)})
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--perft", type=int, default=8, help="perft depth (0: skip)")
    ap.add_argument("--empties", type=int, nargs="*", default=[10, 12, 14, 16, 18, 20])
    ap.add_argument("--roots", type=int, default=2, help="roots per number of empties")
    ap.add_argument("--max-empties", type=int, nargs="*", default=[],
                    help="build --max-empties K for each K (positions per level)")
    ap.add_argument("--count", type=int, nargs="*", default=[],
                    help="count the rows --max-empties K would store, building nothing")
    ap.add_argument("--bound", type=int, default=None, metavar="K",
                    help="upper bounds per level up to K (instant)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    results = []
    if not args.json:
        sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
        from run import machine_line
        print(machine_line() + " (shared with other jobs: timings are noisy)", flush=True)
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
    for k in args.max_empties:
        for r in exhaustive(k):
            results.append(r)
            show(r, args.json)
    for k in args.count:
        results.append(count_legal(k))
        show(results[-1], args.json)
    if args.bound is not None:
        for r in level_bounds(args.bound):
            results.append(r)
            show(r, args.json)
    return 0


def show(r: dict, as_json: bool) -> None:
    if as_json:
        print(json.dumps(r), flush=True)
    else:
        print("  ".join(f"{k}={v}" for k, v in r.items() if k != "root"), flush=True)


if __name__ == "__main__":
    sys.exit(main())
