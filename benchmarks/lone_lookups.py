"""A small star's lookups with ``lone=`` on probe files, through libtbprobe (a route per lone
player) beside the Python path (``TBDB_NATIVE=0``), each in its own child process, alternated:

    python benchmarks/lone_lookups.py                 # builds star37-3-1 into a temporary dir
    python benchmarks/lone_lookups.py --dir DIR --table star37-3-2-lone1 --rounds 9

Each child looks up ``--positions`` random legal positions of the table (position objects, as
an engine passes them), once per lone player, warm; it prints the median and the best round's
microseconds a lookup.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import machine_line  # noqa: E402

CHILD = r"""
import random, statistics, sys, time
import tbdb
from tbdb import games
directory, table, count, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
g = games.get("chinese-checkers")
tb = tbdb.open(directory)
players = int(table.split("-")[1])
slots = next(r["positions"] for r in tb.tables() if r["table_name"] == table)
rng = random.Random(1)
positions = []
while len(positions) < count:
    try:
        p = g.coerce(g.slot_text(table, rng.randrange(slots)))
        tb.lookup(p, game="chinese-checkers", lone=1)
        positions.append(p)
    except (ValueError, KeyError, IndexError):
        pass  # an illegal slot, or past the table
times = []
for _ in range(rounds + 1):  # the first round warms the caches
    t0 = time.perf_counter()
    for lone in range(1, players + 1):
        for p in positions:
            tb.lookup(p, game="chinese-checkers", lone=lone)
    times.append((time.perf_counter() - t0) / (players * len(positions)) * 1e6)
print(f"{statistics.median(times[1:]):.1f} {min(times[1:]):.1f}")
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", help="probe files holding --table (default: build star37-3-1)")
    ap.add_argument("--table", default="star37-3-1-lone1")
    ap.add_argument("--positions", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--runs", type=int, default=2, help="alternations of the two children")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        directory = args.dir
        if directory is None:
            directory = os.path.join(tmp, "star")
            holes, players, marbles = args.table.split("-")[:3]
            subprocess.run([sys.executable, "-m", "tbdb.cli.run", "build", "chinese-checkers",
                            "--board", holes, "--players", players, "--pieces", marbles,
                            "--probe-files", directory, "--no-progress"], check=True,
                           stdout=subprocess.DEVNULL)
        print(machine_line())
        print(f"{args.table}: {args.positions} positions x every lone player, {args.rounds} "
              "rounds, us a lookup")
        print(f"{'run':>3}  {'route':<26} {'median':>7} {'best':>7}")
        for run in range(1, args.runs + 1):
            for label, native in (("libtbprobe (a lone route)", "1"),
                                  ("Python (TBDB_NATIVE=0)", "0")):
                out = subprocess.run([sys.executable, "-c", CHILD, directory, args.table,
                                      str(args.positions), str(args.rounds)],
                                     env={**os.environ, "TBDB_NATIVE": native}, check=True,
                                     capture_output=True, text=True).stdout.split()
                print(f"{run:>3}  {label:<26} {out[0]:>7} {out[1]:>7}")


if __name__ == "__main__":
    main()
