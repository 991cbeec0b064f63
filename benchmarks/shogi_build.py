"""Build shogi tables and report time, peak memory, positions and throughput.

    python benchmarks/shogi_build.py                 # the seven 3-piece tables (edges mode)
    python benchmarks/shogi_build.py --four          # and KGGK, KRGK (edge-free mode)
    python benchmarks/shogi_build.py --table KGGK --mode edge-free
    python benchmarks/shogi_build.py --lookup DB     # lookups on the built tables of DB

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

    from tbdb.games.shogi.tables import ShogiTable
    from tbdb.retrograde.driver import solve_index

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
    from tbdb.games.shogi.tables import ShogiTable
    from tbdb.retrograde.driver import solve_index

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


def _lookup_samples(tb, n: int, seed: int = 1) -> list[str]:
    """SFENs of ``n`` stored positions of the built shogi tables of ``tb``, half of them turned
    into their colour swap (white to move), in random order."""
    import random

    from tbdb.games.shogi.game import swapped
    from tbdb.games.shogi.tables import ShogiTable

    rng = random.Random(seed)
    built = [t for t in tb.tables("shogi") if tb.store.table("shogi", t["table_name"])]
    if not built:
        raise SystemExit("no built shogi table in the database: build one first "
                         "(tbdb build shogi --table KGK)")
    out = []
    for t in built:
        per_table = int(n // len(built) + 1)  # DuckDB takes only a constant sample size
        rows = tb.sql(f"SELECT idx FROM (SELECT idx FROM tb_index_values WHERE table_id = ? "
                      f"AND result BETWEEN -1 AND 1) USING SAMPLE reservoir({per_table} ROWS) "
                      f"REPEATABLE (1)", params=[t["table_id"]]).fetchall()
        space = ShogiTable(t["table_name"])
        for (idx,) in rows:
            p = space.position(idx)
            out.append((swapped(p) if rng.random() < 0.5 else p).sfen)
    rng.shuffle(out)
    return out[:n]


def _per_call(fn, items, rounds: int = 5) -> tuple[float, float, float]:
    """(median wall µs, mean CPU µs, median over items of the best of ``rounds`` calls) of
    ``fn(item)``, after a warm-up pass.  The CPU time is what a call costs when other jobs
    share the cores; the best of several calls of one item, what it costs uninterrupted."""
    for item in items:
        fn(item)
    times = []
    best = [float("inf")] * len(items)
    perf = time.perf_counter
    cpu = time.process_time()
    for _ in range(rounds):
        for i, item in enumerate(items):
            t = perf()
            fn(item)
            t = perf() - t
            times.append(t)
            best[i] = min(best[i], t)
    cpu = time.process_time() - cpu
    times.sort()
    best.sort()
    return times[len(times) // 2] * 1e6, cpu / len(times) * 1e6, best[len(best) // 2] * 1e6


def lookup_benchmark(db: str, n: int = 5000, batch: int = 1_000_000) -> None:
    """Single lookups (SFEN text, Position, cshogi and python-shogi boards) and the batch form
    on the built tables of ``db``, warm."""
    import numpy as np

    import tbdb
    from tbdb import games
    from tbdb.games.shogi import Position

    with tbdb.open(db) as tb:
        start = time.perf_counter()
        loaded = tb.load("shogi")  # large tables too: an engine keeps them in memory
        print(f"{loaded} tables read into memory in {time.perf_counter() - start:.1f} s",
              flush=True)
        sfens = _lookup_samples(tb, n)
        tables = sorted({t["table_name"] for t in tb.tables("shogi")})
        print(f"{len(sfens):,} positions of {', '.join(tables)}, half with white to move",
              flush=True)
        print(f"{'lookup of':34} {'median µs':>10} {'CPU µs':>8} {'best-of-5 µs':>13}")
        rows = [("tb.lookup(sfen)", tb.lookup, sfens),
                ("tb.lookup(sfen, game='shogi')", lambda s: tb.lookup(s, game="shogi"), sfens),
                ("tb.lookup(Position)", tb.lookup, [Position.parse(s) for s in sfens])]
        try:
            import cshogi
            rows.append(("tb.lookup(cshogi.Board)", tb.lookup, [cshogi.Board(s) for s in sfens]))
        except ImportError:
            pass
        try:
            import shogi
            rows.append(("tb.lookup(shogi.Board)  python-shogi", tb.lookup,
                         [shogi.Board(s) for s in sfens[:1000]]))
        except ImportError:
            pass
        # two rounds, the second reported: the first row of a first round ran slower in
        # every try, whichever row it was
        for final in (False, True):
            for label, fn, items in rows:
                median, cpu, best = _per_call(fn, items)
                if final:
                    print(f"{label:34} {median:>10.1f} {cpu:>8.1f} {best:>13.1f}", flush=True)
        g = games.get("shogi")
        boards, hands, sides = g.encode_batch([Position.parse(s) for s in sfens])
        reps = -(-batch // len(sfens))
        boards, hands, sides = (np.tile(boards, (reps, 1))[:batch],
                                np.tile(hands, (reps, 1, 1))[:batch], np.tile(sides, reps)[:batch])
        tb.lookup_arrays("shogi", boards[:1000], hands[:1000], sides[:1000])  # warm
        start = time.perf_counter()
        tb.lookup_arrays("shogi", boards, hands, sides)
        seconds = time.perf_counter() - start
        print(f"tb.lookup_arrays: {len(boards):,} positions in {seconds:.2f} s = "
              f"{len(boards) / seconds:,.0f} positions/s")
        s = tb.stats()
        print(f"tb.stats(): {s.probes:,} probes, {s.hits:,} hits, {s.misses:,} misses, "
              f"{s.tables_loaded} tables loaded")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--four", action="store_true", help="also build KGGK and KRGK")
    parser.add_argument("--only-four", action="store_true", help="only KGGK and KRGK")
    parser.add_argument("--table", action="append", help="build just this table (repeatable)")
    parser.add_argument("--mode", default=None, help="edges, edge-free or auto (default: "
                        "edges for 3 pieces, edge-free for more)")
    parser.add_argument("--lookup", metavar="DB", help="measure lookups on the built shogi "
                        "tables of DB instead of building")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.lookup:
        print(machine_line(), flush=True)
        return lookup_benchmark(args.lookup)
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
