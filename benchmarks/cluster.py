"""Cluster build (Dask LocalCluster) against the embedded build of the same CDC 5-piece tables.

    python benchmarks/cluster.py                  # 20 5-piece tables (the issue's number)
    python benchmarks/cluster.py --tables 8       # fewer, on a busy machine
    python benchmarks/cluster.py --json

The tables are the 5-piece ones whose lower tables (their capture closure) are smallest, so the
machine spends its time on the tables measured.  Steps: build the lower tables once (embedded),
copy that database twice, build the 5-piece tables into one copy embedded and into the other
on a LocalCluster (one worker process per core, each with one Numba thread; the lower tables
are exported to Parquet for the workers first; the values stay in Parquet).  Printed: positions
(slots) per second per core/worker, the cluster's overhead against the embedded build in wall
time and in CPU time (every process's user + system seconds: on a shared machine the wall
time follows the other jobs' load, the CPU time much less), where the workers' time went,
Parquet bytes per position, warm lookup medians in one of the tables (values in DuckDB against
values in Parquet), and the time for all 5-piece tables on 1, 8 and 64 workers extrapolated
from the per-worker rate (perfect scaling, no dependency stalls: a lower bound).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))


def pick(g, count: int) -> tuple[list[str], list[str]]:
    """(``count`` 5-piece tables, the lower tables they need) greedily keeping the lower small."""
    five = [t for t in g.plan(max_pieces=5) if g.check_table(t) == t and
            sum(c.isalpha() and c != "v" for c in t) == 5]
    closure = {t: set(g.plan(material=t)) - {t} for t in five}
    five = [t for t in five if closure[t]]  # no capture at all: not a typical table
    chosen: list[str] = []
    lower: set[str] = set()
    for _ in range(count):
        best = min((t for t in five if t not in chosen),
                   key=lambda t: (sum(g.weight(x) for x in closure[t] - lower), t))
        chosen.append(best)
        lower |= closure[best]
    order = {t: i for i, t in enumerate(g.plan(max_pieces=4))}
    return chosen, sorted(lower, key=order.__getitem__)


def _cpu_seconds() -> float:
    import resource
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def lookup_times(db: str, material: str, count: int = 2000) -> tuple[float, float]:
    """(first lookup ms: the table read into memory, median warm lookup us) in one table."""
    import statistics
    import tbdb
    from tbdb import games
    g = games.get("cdc")
    with tbdb.open(db) as tb:
        slots = tb.sql("SELECT v.idx FROM tb_index_values v JOIN tb_tables t USING (table_id) "
                       "WHERE t.game = 'cdc' AND t.table_name = ? AND v.result >= -1 "
                       "AND v.idx % 37 = 5 LIMIT ?", params=[material, count]).fetchall()
        texts = [g.slot_text(material, idx) for (idx,) in slots]
        t0 = time.perf_counter()
        tb.lookup(texts[0])
        first_ms = (time.perf_counter() - t0) * 1000
        for t in texts[:50]:
            tb.lookup(t)
        times = []
        for t in texts:
            t0 = time.perf_counter_ns()
            tb.lookup(t)
            times.append(time.perf_counter_ns() - t0)
    return first_ms, statistics.median(times) / 1000


def main() -> int:
    from run import machine_line

    import tbdb
    from tbdb import games
    from tbdb.cluster.dask_build import build_cluster
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tables", type=int, default=20)
    p.add_argument("--workers", type=int, default=os.cpu_count())
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    load_before = os.getloadavg()[0]  # other jobs on the machine skew the wall times
    g = games.get("cdc")
    chosen, lower = pick(g, args.tables)
    all_five = [t for t in g.plan(max_pieces=5) if sum(c.isalpha() and c != "v" for c in t) == 5]
    five_slots = sum(g.weight(t) for t in all_five)
    slots = sum(g.weight(t) for t in chosen)
    work = tempfile.mkdtemp(prefix="tbdb-cluster-bench-")
    try:
        base = os.path.join(work, "lower.duckdb")
        t0 = time.perf_counter()
        for t in lower:
            tbdb.build("cdc", db=base, material=t, progress=False)
        lower_s = time.perf_counter() - t0
        emb, clu = os.path.join(work, "embedded.duckdb"), os.path.join(work, "cluster.duckdb")
        shutil.copy(base, emb)
        shutil.copy(base, clu)

        t0, c0 = time.perf_counter(), time.process_time()
        for t in chosen:
            tbdb.build("cdc", db=emb, material=t, progress=False)
        emb_s, emb_cpu = time.perf_counter() - t0, time.process_time() - c0

        import distributed
        out = os.path.join(work, "out")
        t0, c0 = time.perf_counter(), time.process_time()
        local = distributed.LocalCluster(n_workers=args.workers, threads_per_worker=1,
                                         processes=True, dashboard_address=None)
        client = distributed.Client(local)
        start_s = time.perf_counter() - t0
        try:
            s = build_cluster("cdc", db=clu, out=out, client=client,
                              threads=max(1, (os.cpu_count() or 1) // args.workers),
                              progress=False, tables=chosen)
            s.start_seconds, s.workers = start_s, args.workers
            # every CPU second the cluster spent: its worker processes from their start, the
            # coordinator (which also runs the scheduler)
            worker_cpu = sum(client.run(_cpu_seconds).values())
        finally:
            client.close()
            local.close()
        clu_s, clu_cpu = time.perf_counter() - t0, time.process_time() - c0 + worker_cpu
        assert sorted(s.built) == sorted(chosen), s.built
        rows = s.rows
        print(f"built: embedded {emb_s:.1f} s, cluster {clu_s:.1f} s (CPU {emb_cpu:.1f} s, "
              f"{clu_cpu:.1f} s)", file=sys.stderr, flush=True)
        lookup_emb = lookup_times(emb, chosen[0])
        lookup_clu = lookup_times(clu, chosen[0])
        value_bytes = sum(os.path.getsize(os.path.join(out, "cdc", f"{t}.values.parquet"))
                          for t in chosen)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    cores = os.cpu_count() or 1
    per_worker = slots / s.solve_seconds  # slots per second of a worker solving
    result = {
        "tables": len(chosen), "first": chosen[:3], "lower_tables": len(lower),
        "lower_build_s": round(lower_s, 1), "positions": slots, "rows": rows,
        "embedded_s": round(emb_s, 1), "cluster_s": round(clu_s, 1), "workers": s.workers,
        "cluster_start_s": round(s.start_seconds, 1), "export_s": round(s.export_seconds, 1),
        "import_s": round(s.import_seconds, 1), "worker_solve_s": round(s.solve_seconds, 1),
        "embedded_pos_per_s_per_core": round(slots / emb_s / cores),
        "cluster_pos_per_s_per_worker_wall": round(slots / clu_s / s.workers),
        "cluster_pos_per_s_per_worker_solving": round(per_worker),
        "overhead_vs_embedded": round(clu_s / emb_s - 1, 3),
        "embedded_cpu_s": round(emb_cpu, 1), "cluster_cpu_s": round(clu_cpu, 1),
        "cpu_overhead_vs_embedded": round(clu_cpu / emb_cpu - 1, 3),
        "worker_read_dependencies_s": round(s.read_seconds, 1),
        "worker_write_parquet_s": round(s.write_seconds, 1),
        "values_in": s.values_in,
        "lookup_first_ms_embedded": round(lookup_emb[0], 1),
        "lookup_first_ms_parquet": round(lookup_clu[0], 1),
        "lookup_median_us_warm_embedded": round(lookup_emb[1], 1),
        "lookup_median_us_warm_parquet": round(lookup_clu[1], 1),
        "parquet_bytes_per_position": round(s.parquet_bytes / slots, 3),
        "parquet_value_bytes_per_row": round(value_bytes / max(rows, 1), 3),
        "all_5_piece_tables": len(all_five), "all_5_piece_positions": five_slots,
        "all_5_piece_parquet_gb": round(five_slots * s.parquet_bytes / slots / 1e9, 1),
        # from the cluster's CPU seconds per position, every overhead included (a worker is
        # one core): less sensitive to the other jobs on a shared machine than wall time
        "cluster_cpu_us_per_position": round(clu_cpu / slots * 1e6, 2),
        **{f"all_5_piece_hours_{n}_workers": round(five_slots * clu_cpu / slots / n / 3600, 1)
           for n in (1, 8, 64)},
    }
    if args.json:
        print(json.dumps(result))
        return 0
    print(machine_line())
    print(f"load average (1 min) before the run: {load_before:.2f} on {os.cpu_count()} cores "
          f"(above about 0.5 other jobs were running: wall times are noisy, CPU times less)")
    w = max(len(k) for k in result)
    for k, v in result.items():
        print(f"{k:<{w}}  {v:,}" if isinstance(v, (int, float)) else f"{k:<{w}}  {v}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
