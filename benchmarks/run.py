"""tbdb benchmarks: build speed and memory, lookup latency and batch throughput, file size.

    python benchmarks/run.py                 # everything (the CDC 4-piece build takes minutes)
    python benchmarks/run.py --quick         # CDC up to 3 pieces
    python benchmarks/run.py --json          # one JSON object per result
    python benchmarks/run.py --only lookup   # a section: cdc-build, lookup, views, modes, oware,
                                             # export, chinese-checkers (7x7-3, 6x6-3 --quick)

Targets (issue #2, #3): CDC 4-piece build <= 15 min and <= 8 GB; warm lookup median <= 20 us;
batch >= 1M positions/s; Oware 9-seed book (warm) <= 0.25 s.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))



def cli_child(args: list[str]) -> tuple[float, float, int]:
    """(wall s, CPU s, peak RSS bytes) of one ``tbdb`` CLI run in a child process (its own
    rusage, from wait4: the child's peak, not this process's)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "tbdb.cli.run", *args],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"tbdb {' '.join(args)} failed: {proc.stderr.read()[-500:]!r}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024

def machine_line() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    import duckdb
    import numba
    return (f"machine: {cpu}, {os.cpu_count()} cores, {mem:.0f} GiB; Python "
            f"{platform.python_version()}, numba {numba.__version__}, duckdb {duckdb.__version__}")


MEASURE = ("import resource, subprocess, sys; r = subprocess.run(sys.argv[1:]); "
           "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr); "
           "sys.exit(r.returncode)")


def run_measured(args: list[str]) -> float:
    """Run a command; its peak RSS in GiB (through a wrapper process, so that earlier children
    of this script do not count)."""
    r = subprocess.run([sys.executable, "-c", MEASURE, *args], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} failed: {r.stderr[-500:]}")
    return int(r.stderr.strip().splitlines()[-1]) / 2**20


def cdc_build(db: str, max_pieces: int) -> list[dict]:
    """The whole CDC build as the CLI runs it (a child process, so its peak RSS is its own)."""
    for suffix in ("", ".wal"):
        if os.path.exists(db + suffix):
            os.remove(db + suffix)
    # compile (and cache) the kernels first so the timed build measures run time
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "tbdb.cli.run", "build", "cdc", "--material", "KCvP",
                    "--db", db + ".warm", "--no-progress"], check=True, capture_output=True)
    compile_s = time.perf_counter() - t0
    os.remove(db + ".warm")
    t0 = time.perf_counter()
    peak = run_measured([sys.executable, "-m", "tbdb.cli.run", "build", "cdc", "--max-pieces",
                         str(max_pieces), "--db", db, "--no-progress"])
    seconds = time.perf_counter() - t0
    import duckdb
    con = duckdb.connect(db, read_only=True)
    rows, placements = con.execute("SELECT count(*), sum(multiplicity) FROM cdc_values").fetchone()
    answered = con.execute("SELECT sum(positions_answered) FROM symmetry_stats").fetchone()[0]
    con.close()
    size = os.path.getsize(db)
    tag = f"cdc-{max_pieces}"
    return [
        {"name": f"{tag} first run incl. Numba compile (KCvP)", "value": round(compile_s, 1), "unit": "s"},
        {"name": f"{tag} build", "value": round(seconds, 1), "unit": "s"},
        {"name": f"{tag} build peak memory", "value": round(peak, 2), "unit": "GiB"},
        {"name": f"{tag} positions answered per second", "value": round(answered / seconds),
         "unit": "positions/s"},
        {"name": f"{tag} canonical rows per second", "value": round(rows / seconds), "unit": "rows/s"},
        {"name": f"{tag} canonical rows", "value": int(rows), "unit": "rows"},
        {"name": f"{tag} file size", "value": round(size / 2**20, 1), "unit": "MiB"},
        {"name": f"{tag} bits per stored row", "value": round(8 * size / rows, 2), "unit": "bits"},
        {"name": f"{tag} bits per position answered", "value": round(8 * size / answered, 3),
         "unit": "bits"},
    ]


def call_seconds(call, repeats: int = 5) -> list[float]:
    """Wall seconds of each of ``repeats`` calls of ``call()``."""
    out = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        call()
        out.append(time.perf_counter() - t0)
    return out


def lookup_median_us(tb, texts: list[str], warm: int = 50, **options) -> float:
    """Median microseconds of ``tb.lookup`` over ``texts``, after the first ``warm`` of them
    (the table in memory, the kernels compiled)."""
    for t in texts[:warm]:
        tb.lookup(t, **options)
    times = []
    for t in texts:
        t0 = time.perf_counter_ns()
        tb.lookup(t, **options)
        times.append(time.perf_counter_ns() - t0)
    return statistics.median(times) / 1000


def lookups(db: str) -> list[dict]:
    import tbdb
    from tbdb.games.cdc import Position
    tb = tbdb.open(db)
    material = tb.sql("SELECT material FROM cdc_tables ORDER BY pieces DESC, material "
                      "LIMIT 1").fetchall()[0][0]
    texts = [r[0] for r in tb.sql("SELECT position FROM cdc_positions WHERE material = ? "
                                  "AND idx % 101 = 7 LIMIT 4000", params=[material]).fetchall()]
    median_us = lookup_median_us(tb, texts)
    # the batch form: a million random placements of the materials of the sample
    positions = [Position.parse(t) for t in texts]
    rng = np.random.default_rng(0)
    n = 1_000_000
    boards = np.full((n, 32), -1, np.int8)
    sides = rng.integers(0, 2, n).astype(np.int8)
    pieces = [[c for c in p.board if c >= 0] for p in positions]
    for i in range(n):
        codes = pieces[i % len(pieces)]
        boards[i, rng.choice(32, len(codes), replace=False)] = codes
    tb.lookup_arrays("cdc", boards[:1000], sides[:1000])
    # the first million-row call can also pay for fresh pages from the OS (before the batch
    # kernels stopped copying the boards, 1.7x as long as later calls); an engine probes over
    # and over, so the median of five is reported beside it
    batch_s = call_seconds(lambda: tb.lookup_arrays("cdc", boards, sides))
    tb.close()
    return [
        {"name": f"lookup median, warm table ({material})", "value": round(median_us, 2),
         "unit": "us"},
        {"name": "lookup_arrays batch (1M random positions), first call", "value":
         round(n / batch_s[0]), "unit": "positions/s"},
        {"name": "lookup_arrays batch (1M random positions), median of 5", "value":
         round(n / statistics.median(batch_s)), "unit": "positions/s"},
    ]


def views(db: str) -> list[dict]:
    """The generic views over the whole database, as an analyst runs them."""
    import tbdb
    out = []
    with tbdb.open(db) as tb:
        for view in ("draw_analysis", "symmetry_stats", "build_progress"):
            t0 = time.perf_counter()
            n = len(tb.sql(f"SELECT * FROM {view}").fetchall())
            out.append({"name": f"SELECT * FROM {view} ({n:,} rows)",
                        "value": round(time.perf_counter() - t0, 3), "unit": "s"})
        # the readable per-game view over every row, each position's text written (its joins
        # once ran as a product of rows and texts: 82 s for the 2.5M rows of 3 pieces)
        t0 = time.perf_counter()
        n = tb.sql("SELECT count(position) FROM cdc_positions").fetchall()[0][0]
        out.append({"name": f"SELECT count(position) FROM cdc_positions ({n:,} rows)",
                    "value": round(time.perf_counter() - t0, 2), "unit": "s"})
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "tbdb.cli.run", "verify", "--db", db, "--no-progress"],
                       capture_output=True, text=True)
    out.append({"name": "tbdb verify of that database" + ("" if r.returncode == 0 else
                                                           " (FAILED)"),
                "value": round(time.perf_counter() - t0, 1), "unit": "s"})
    return out


def sql_export(db: str, rows: int) -> list[dict]:
    """``tbdb sql --csv`` of ``rows`` rows: the memory must not grow with the result."""
    out = []
    query = f"SELECT * FROM tb_index_values LIMIT {rows}"
    for flag in ("--csv", "--parquet"):
        target = os.path.join(tempfile.mkdtemp(), "export.parquet")
        args = [sys.executable, "-m", "tbdb.cli.run", "sql", "--db", db, flag] + \
            ([target] if flag == "--parquet" else []) + [query]
        t0 = time.perf_counter()
        if flag == "--csv":
            args = ["sh", "-c", " ".join(f"'{a}'" for a in args) + " > /dev/null"]
        peak = run_measured(args)
        out += [{"name": f"tbdb sql {flag} of {rows:,} rows: time",
                 "value": round(time.perf_counter() - t0, 1), "unit": "s"},
                {"name": f"tbdb sql {flag} of {rows:,} rows: peak memory",
                 "value": round(peak * 1024, 0), "unit": "MiB"}]
    return out


EDGE_FREE_PROBE = """
import sys, time
import numpy as np
from tbdb.retrograde import driver
from tbdb.games.cdc import CdcGame
g = CdcGame()
table, mode = sys.argv[1], sys.argv[2]
deps, order, todo = {}, [], [table]
while todo:
    t = todo.pop()
    if t not in order:
        order.append(t)
        todo += g.dependencies(t)
order.sort(key=lambda t: (len(t), t))
for t in order[:-1]:
    deps[t] = g.from_stored(t, None, driver.solve_index(
        g.space(t, {d: deps[d] for d in g.dependencies(t)}), "auto"))
space = g.space(table, {d: deps[d] for d in g.dependencies(table)})
driver.solve_index(g.space(order[0], {}), mode)  # compile


def status(field):
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(field))


with open("/proc/self/clear_refs", "w") as f:
    f.write("5")  # reset the peak RSS to the current RSS (Linux)
base = status("VmRSS:")
t0 = time.perf_counter()
v = driver.solve_index(space, mode)
dt = time.perf_counter() - t0
print(space.size, dt, base, status("VmHWM:"))
"""


def retrograde_modes(table: str) -> list[dict]:
    """One big table solved in each index mode in a fresh process: time and the memory the
    solve adds (peak RSS over the RSS before it, so dependencies and compiled code are out)."""
    out = []
    for mode in ("edges", "edge-free"):
        r = subprocess.run([sys.executable, "-c", EDGE_FREE_PROBE, table, mode],
                           capture_output=True, text=True, check=True)
        size, dt, base, peak = r.stdout.split()
        size, extra = int(size), (int(peak) - int(base)) * 1024
        out += [{"name": f"{table} ({size:,} slots) solve, {mode}", "value": round(float(dt), 1),
                 "unit": "s"},
                {"name": f"{table} solve, {mode}: memory added",
                 "value": round(extra / 2**20, 1), "unit": "MiB"},
                # small tables: mostly the fixed batch buffers (96 MiB), not per-slot state
                {"name": f"{table} solve, {mode}: memory added per slot",
                 "value": round(extra / size, 1), "unit": "bytes"}]
    return out


def oware(db: str, max_seeds: int) -> list[dict]:
    """The solver alone (benchmarks/oware_solver.py), then the whole CLI build with storage."""
    import oware_solver
    results = oware_solver.run(max_n=max_seeds)
    for suffix in ("", ".wal"):
        if os.path.exists(db + suffix):
            os.remove(db + suffix)
    t0 = time.perf_counter()
    peak = run_measured([sys.executable, "-m", "tbdb.cli.run", "build", "oware", "--max-seeds",
                         str(max_seeds), "--db", db, "--no-progress"])
    seconds = time.perf_counter() - t0
    tag = f"oware-{max_seeds} tbdb build (solve + DuckDB load)"
    results += [
        {"name": tag, "value": round(seconds, 1), "unit": "s"},
        {"name": f"{tag} peak memory", "value": round(peak, 2), "unit": "GiB"},
        {"name": f"oware-{max_seeds} file size", "value": round(os.path.getsize(db) / 2**20, 1),
         "unit": "MiB"},
    ]
    # the batch form: a million random 12-seed positions at random plies left
    import tbdb
    rng = np.random.default_rng(1)
    n = 1_000_000
    houses = rng.multinomial(12, [1 / 12] * 12, size=n).astype(np.int8)
    turns = rng.integers(1, 201, n).astype(np.int16)
    with tbdb.open(db) as tb:
        tb.lookup_arrays("oware", houses[:10], turns[:10])  # loads book 12, compiles
        t0 = time.perf_counter()
        tb.lookup_arrays("oware", houses, turns)
        results.append({"name": "oware lookup_arrays batch (1M positions, 12 seeds)",
                        "value": round(n / (time.perf_counter() - t0)), "unit": "positions/s"})
    return results


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true", help="one JSON object per result")
    ap.add_argument("--quick", action="store_true", help="CDC up to 3 pieces only")
    ap.add_argument("--db", help="keep the CDC database here (default: a temporary file)")
    ap.add_argument("--only", choices=["cdc-build", "lookup", "views", "modes", "oware",
                                       "export", "chinese-checkers"])
    ap.add_argument("--export-db", help="a big database for the export section (default: the "
                                        "CDC one); --export-rows N rows are exported")
    ap.add_argument("--export-rows", type=int, default=70_000_000)
    args = ap.parse_args(argv)
    tmp = tempfile.mkdtemp()
    db = args.db or os.path.join(tmp, "bench.duckdb")
    results: list[dict] = []
    if args.only in (None, "cdc-build"):
        results += cdc_build(db, 3 if args.quick else 4)
    if args.only in (None, "lookup"):
        if not os.path.exists(db):
            results += cdc_build(db, 3)
        results += lookups(db)
    if args.only in (None, "views"):
        if not os.path.exists(db):
            results += cdc_build(db, 3)
        results += views(db)
    if args.only in (None, "export"):
        if args.export_db is None and not os.path.exists(db):
            results += cdc_build(db, 3)
        results += sql_export(args.export_db or db, args.export_rows)
    if args.only in (None, "modes"):
        results += retrograde_modes("KGvRN" if args.quick else "KGMvRN")
    if args.only in (None, "oware"):
        results += oware(os.path.join(tmp, "oware.duckdb"), 12 if args.quick else 16)
    if args.only in (None, "chinese-checkers"):
        import chinese_checkers  # 7x7 with 3 pieces; 6x6 with --quick
        results += chinese_checkers.run(6 if args.quick else 7, 3, tmp)
    report(results, args.json)
    return 0


def report(results: list[dict], as_json: bool) -> None:
    """One JSON object per result, or a table under the machine line."""
    if as_json:
        for r in results:
            print(json.dumps(r))
        return
    print(machine_line())
    width = max(len(r["name"]) for r in results)
    for r in results:
        value = r["value"]
        if isinstance(value, float):
            value = f"{value:,.3f}" if value < 100 else f"{value:,.0f}"
        elif isinstance(value, int):
            value = f"{value:,}"
        print(f"{r['name']:<{width}}  {str(value):>14}  {r['unit']}")


if __name__ == "__main__":
    sys.exit(main())
