"""The star's single-agent distance tables: build time, peak memory, database size, view and
lookup speed.

    python benchmarks/chinese_checkers_distance.py            # k = 1..4 (a few minutes)
    python benchmarks/chinese_checkers_distance.py --k 5      # C(121, 5) = 198,792,594 rows

The build runs as the command line runs it, in a child process (its peak RSS is its own).
Per table: the breadth-first search time (the catalogue's seconds) and the write time (the
rest of the table's build), rows and the file's growth.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))

from run import machine_line, run_measured  # noqa: E402

TOP_TIP = ("star-distance-1 1/../.../..../............./............/.........../........../"
           "........./........../.........../............/............./..../.../../. 3")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--k", type=int, default=4, help="largest table (1..5)")
    ap.add_argument("--db", help="database to build into (default: a temporary file)")
    args = ap.parse_args()
    import tbdb
    with tempfile.TemporaryDirectory() as tmp:
        db = args.db or os.path.join(tmp, "cc.duckdb")
        t0 = time.perf_counter()
        peak = run_measured([sys.executable, "-m", "tbdb.cli.run", "build", "chinese-checkers",
                             "--distance", str(args.k), "--db", db, "--no-progress"])
        wall = time.perf_counter() - t0
        size = os.path.getsize(db)
        with tbdb.open(db) as tb:
            rows = tb.sql("SELECT t.table_name, t.positions, t.seconds, c.started, c.finished "
                          "FROM tb_tables t JOIN build_checkpoints c USING (game, table_name) "
                          "WHERE t.table_name LIKE 'star-distance-%' ORDER BY t.slots").fetchall()
            t1 = time.perf_counter()
            hist = tb.sql("SELECT moves, count(*) FROM cc_distance WHERE k = ? GROUP BY moves",
                          [args.k]).fetchall()
            view = time.perf_counter() - t1
            t1 = time.perf_counter()
            tb.lookup(TOP_TIP)
            first = time.perf_counter() - t1
            t1 = time.perf_counter()
            for _ in range(20):
                tb.lookup(TOP_TIP)
            warm = (time.perf_counter() - t1) / 20
    print(machine_line())
    print("(the machine may be shared with other jobs: timings are noisy)")
    print(f"{'table':<18}{'rows':>14}{'search s':>10}{'write s':>9}")
    for name, n, seconds, started, finished in rows:
        total = (finished - started).total_seconds()
        print(f"{name:<18}{n:>14,}{seconds:>10.1f}{max(total - seconds, 0):>9.1f}")
    total_rows = sum(r[1] for r in rows)
    print(f"build k = 1..{args.k}: {wall:.0f} s wall (compiling included), peak RSS "
          f"{peak:.2f} GiB, file {size / 1e6:.1f} MB ({size / total_rows:.2f} bytes a row)")
    print(f"cc_distance histogram of k = {args.k} ({len(hist)} distances): {view:.2f} s; "
          f"lookup of a 1-piece placement: first {first * 1e3:.0f} ms, warm "
          f"{warm * 1e3:.2f} ms")


if __name__ == "__main__":
    main()
