"""Build shogi tables and report time, peak memory, positions and throughput.

    python benchmarks/shogi_build.py                 # the seven 3-piece tables (edges mode)
    python benchmarks/shogi_build.py --four          # and KGGK, KRGK (edge-free mode)
    python benchmarks/shogi_build.py --table KGGK --mode edge-free

Each table is built in a child process of its own, so its peak memory (the child's maximum
resident set, from ``os.wait4``) is its own; Numba compilation is done (and timed) first in a
child of its own, so the table times are run times with a warm cache.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time

THREE = ["KRK", "KBK", "KGK", "KSK", "KNK", "KLK", "KPK"]
FOUR = ["KGGK", "KRGK"]


def _child_build(name: str, mode: str) -> None:
    """Build one table here and print one JSON line."""
    import numpy as np

    from tbdb.games.shogi_tables import ShogiTable
    from tbdb.retrograde import solve_index

    table = ShogiTable(name)
    start = time.perf_counter()

    def progress(stage, done, total):
        if os.environ.get("SHOGI_BENCH_PROGRESS"):
            print(f"  {name} {stage} {done}/{total} {time.perf_counter() - start:.0f}s",
                  file=sys.stderr, flush=True)

    values = solve_index(table, mode, progress)
    seconds = time.perf_counter() - start
    real = (values.result >= -1) & (values.result <= 1)
    counts = {k: int(np.count_nonzero(values.result == v))
              for k, v in (("win", 1), ("draw", 0), ("loss", -1), ("illegal", -2))}
    print(json.dumps({"table": name, "mode": mode, "slots": table.size,
                      "positions": int(real.sum()),
                      "raw": int(values.multiplicity[real].sum()),
                      "seconds": seconds, "max_distance": int(values.distance.max()),
                      **counts}), flush=True)


def _child_compile() -> None:
    import numpy as np

    from tbdb.games.shogi import perft
    from tbdb.games.shogi_tables import ShogiTable
    from tbdb.retrograde import solve_index

    start = time.perf_counter()
    perft("start", 1)
    table = ShogiTable("KGK")
    kind, _ = table.census(0, 4096)
    real = np.flatnonzero(kind == 0)[:8]
    table.children(real)
    table.parents(real)
    solve_index(ShogiTable("KGK"), "edge-free")  # the engine's kernels too
    print(json.dumps({"compile_seconds": time.perf_counter() - start}), flush=True)


def _run_child(args: list[str]) -> tuple[dict, float, int]:
    """(JSON output, wall seconds, peak resident KiB) of a child of this script."""
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, __file__, *args], stdout=subprocess.PIPE,
                            text=True)
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"child {args} failed with exit code {proc.returncode}")
    return json.loads(out.strip().splitlines()[-1]), time.perf_counter() - start, usage.ru_maxrss


def machine_line() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
        with open("/proc/meminfo") as f:
            mem = int(f.readline().split()[1]) // (1 << 20)
    except OSError:
        mem = 0
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    import numba
    return (f"machine: {cpu}, {os.cpu_count()} cores, {mem} GiB RAM, numba "
            f"{numba.__version__} with {numba.config.NUMBA_NUM_THREADS} threads, load average "
            f"{load:.1f} at the start (other jobs share this machine: timings are noisy)")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--four", action="store_true", help="also build KGGK and KRGK")
    parser.add_argument("--only-four", action="store_true", help="only KGGK and KRGK")
    parser.add_argument("--table", action="append", help="build just this table (repeatable)")
    parser.add_argument("--mode", default=None, help="edges, edge-free or auto (default: "
                        "edges for 3 pieces, edge-free for more)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child == "compile":
        return _child_compile()
    if args.child:
        return _child_build(args.child, args.mode)

    tables = args.table or ([] if args.only_four else THREE) + \
        (FOUR if args.four or args.only_four else [])
    print(machine_line(), flush=True)
    out, _, _ = _run_child(["--child", "compile"])
    print(f"numba compilation (cold cache or not, see NUMBA_CACHE_DIR): "
          f"{out['compile_seconds']:.1f} s", flush=True)
    header = (f"{'table':6} {'mode':9} {'slots':>12} {'positions':>12} {'raw':>13} "
              f"{'time s':>8} {'peak MiB':>9} {'B/pos':>7} {'pos/s':>10} {'win':>11} "
              f"{'draw':>11} {'loss':>11} {'max d':>5}")
    print(header, flush=True)
    total = 0.0
    for name in tables:
        mode = args.mode or ("edges" if len(name) <= 3 else "edge-free")
        row, wall, peak_kib = _run_child(["--child", name, "--mode", mode])
        total += row["seconds"]
        peak = peak_kib * 1024
        print(f"{name:6} {mode:9} {row['slots']:>12,} {row['positions']:>12,} "
              f"{row['raw']:>13,} {row['seconds']:>8.1f} {peak / (1 << 20):>9.0f} "
              f"{peak / row['positions']:>7.1f} {row['positions'] / row['seconds']:>10,.0f} "
              f"{row['win']:>11,} {row['draw']:>11,} {row['loss']:>11,} "
              f"{row['max_distance']:>5}", flush=True)
    print(f"total solve time {total:.1f} s for {len(tables)} tables")


if __name__ == "__main__":
    main()
