"""The tables page's histogram on big tables: time of GET /api/tables/GAME/TABLE/histogram's
query (``tbdb.web.histogram.histogram``), exact and capped, against the stored rows.

Builds tic-tac-toe into a temporary file (for its schema and catalogue), then appends synthetic
index tables of N rows each (random results and distances, as a solved table stores them) under
made-up names with plain DuckDB, and times the GROUP BY exact (no cap) and with the default cap
(10^7 rows, sampled above).  The first call of each is cold (the column data is read from disk),
the second warm.  Timings on a shared 2-core machine are noisy.

    python benchmarks/histogram.py [--rows 10000000 30000000]
"""
from __future__ import annotations

import argparse
import datetime as dt
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from run import machine_line  # noqa: E402


def _add_table(db: str, table_id: int, name: str, rows: int) -> None:
    import duckdb
    con = duckdb.connect(db)
    con.execute("INSERT INTO tb_tables (table_id, game, table_name, storage, params, slots, "
                "positions, raw_positions, positions_answered, fixed_positions, illegal, mode, "
                "seconds, built) VALUES (?, 'tictactoe', ?, 'index', '{}', ?, ?, ?, ?, 0, 0, "
                "'edges', 0, ?)", [table_id, name, rows, rows, rows, rows, dt.datetime.now()])
    con.execute(f"INSERT INTO tb_index_values SELECT {table_id}, i, "
                f"(hash(i) % 3)::TINYINT - 1, (hash(i * 7) % 200)::SMALLINT, 0, 1 "
                f"FROM range({rows}) t(i)")
    con.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, nargs="+", default=[10_000_000, 30_000_000])
    args = ap.parse_args()
    import tbdb
    from tbdb.web.histogram import histogram
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "tb.duckdb")
        tbdb.build("tictactoe", db=db, progress=False)
        for i, n in enumerate(args.rows):
            _add_table(db, 1000 + i, f"synthetic-{n}", n)
        print(f"{'rows':>12} {'exact cold s':>13} {'exact warm s':>13} {'capped s':>9} "
              f"{'sample':>7} {'bins':>5}")
        with tbdb.open(db) as tb:
            for n in args.rows:
                name = f"synthetic-{n}"
                times = []
                for _ in range(2):
                    t0 = time.perf_counter()
                    exact = histogram(tb, "tictactoe", name, cap=10 ** 12)
                    times.append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                capped = histogram(tb, "tictactoe", name)
                t_cap = time.perf_counter() - t0
                sample = f"{capped.sample:.2f}" if capped.sample else "-"
                print(f"{n:>12,} {times[0]:>13.2f} {times[1]:>13.2f} {t_cap:>9.2f} {sample:>7} "
                      f"{len(exact.bins):>5}")
    print("(the app computes each table's histogram once and keeps it; the shared machine "
          "makes timings noisy)")
    print(machine_line())
    return 0


if __name__ == "__main__":
    sys.exit(main())
