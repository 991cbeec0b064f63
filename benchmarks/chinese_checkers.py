"""Strongly solve a Chinese Checkers rhombus table through the CLI and report what it cost.

    python benchmarks/chinese_checkers.py                      # 7x7, 3 pieces (about 2 min)
    python benchmarks/chinese_checkers.py --board 6 --pieces 3 # 78M positions, about 20 s
    python benchmarks/chinese_checkers.py --json

The build runs as `tbdb build chinese-checkers` in a child process (``os.wait4`` gives its own
peak memory and CPU time) after a small build that compiles the kernels, so the times are run
times. Reported: wall and CPU time, peak memory, bytes per position (peak and the solver's
per-slot state), positions per CPU-second against the published solver (Sturtevant, ACG 2019:
7x7 with 4 pieces, 6.3e10 positions in 17 minutes on 64 threads, WLD only at 2 bits a state),
rows per second into DuckDB, and the file size.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
from run import cli_child  # noqa: E402  (benchmarks/ on the path just above)

PUBLISHED_PER_THREAD = 6.3e10 / (17 * 60 * 64)  # positions per thread-second
SOLVE_STATE_BYTES = 1 + 2 + 4 + 1 + 2  # result, distance, best move, counter, multiplicity


def run(board: int, pieces: int, workdir: str) -> list[dict]:
    from tbdb.games.chinese_checkers.tables import RhombusTable

    warm = os.path.join(workdir, "warm.duckdb")
    t0 = time.perf_counter()
    cli_child(["build", "chinese-checkers", "--board", "4", "--pieces", "3", "--mode", "edge-free",
               "--db", warm, "--no-progress"])
    compile_s = time.perf_counter() - t0
    db = os.path.join(workdir, "cc.duckdb")
    wall, cpu, peak = cli_child(["build", "chinese-checkers", "--board", str(board), "--pieces",
                                 str(pieces), "--mode", "edge-free", "--db", db, "--no-progress"])
    table = RhombusTable(board, pieces)
    import duckdb
    con = duckdb.connect(db, read_only=True)
    # the catalogue, not cc_positions: that view writes every position's text
    rows = con.execute("SELECT stored_rows FROM cc_tables WHERE table_name = ?",
                       [f"{board}x{board}-{pieces}"]).fetchone()[0]
    con.close()
    size = os.path.getsize(db)
    raw = table.raw_positions
    tag = f"cc {board}x{board}-{pieces}"
    return [
        {"name": "cc warm-up build (4x4-3) incl. Numba compile", "value": round(compile_s, 1),
         "unit": "s"},
        {"name": f"{tag} positions", "value": int(raw), "unit": "positions"},
        {"name": f"{tag} slots (one per mirror pair, player to move folded in)",
         "value": int(table.size), "unit": "slots"},
        {"name": f"{tag} build, wall", "value": round(wall, 1), "unit": "s"},
        {"name": f"{tag} build, CPU (user + sys)", "value": round(cpu, 1), "unit": "s"},
        {"name": f"{tag} peak memory", "value": round(peak / 2**30, 2), "unit": "GiB"},
        {"name": f"{tag} solver state per position", "value": round(
            SOLVE_STATE_BYTES * table.size / raw, 2), "unit": "bytes"},
        {"name": f"{tag} peak memory per position", "value": round(peak / raw, 2),
         "unit": "bytes"},
        {"name": f"{tag} positions per CPU-second", "value": round(raw / cpu),
         "unit": "positions/s"},
        {"name": "published solver, positions per thread-second (7x7-4, WLD only)",
         "value": round(PUBLISHED_PER_THREAD), "unit": "positions/s"},
        {"name": f"{tag} rows into DuckDB per second of build", "value": round(rows / wall),
         "unit": "rows/s"},
        {"name": f"{tag} file size", "value": round(size / 2**20, 1), "unit": "MiB"},
    ] + lookups(db, board, pieces, tag)


def lookups(db: str, board: int, pieces: int, tag: str, n: int = 1_000_000) -> list[dict]:
    """Load the table, then time single lookups (text in) and the batch form on n random
    placements (rows whose mover has already won dropped: the batch refuses them)."""
    import statistics

    import numpy as np

    import tbdb
    from run import call_seconds, lookup_median_us
    from tbdb.games.chinese_checkers.position import rhombus_rules

    cells = board * board
    rng = np.random.default_rng(0)
    boards = np.zeros((n, cells), np.int8)
    for i in range(n):
        c = rng.choice(cells, 2 * pieces, replace=False)
        boards[i, c[:pieces]] = 1
        boards[i, c[pieces:]] = 2
    movers = rng.integers(1, 3, n).astype(np.int8)
    _, _, goals = rhombus_rules(board, pieces)
    for player in (1, 2):
        at = boards[:, np.array(goals[player])]
        won = (at != 0).all(axis=1) & (at == player).any(axis=1)
        keep = ~(won & (movers == player))
        boards, movers = boards[keep], movers[keep]
    with tbdb.open(db) as tb:
        t0 = time.perf_counter()
        tb.load("chinese-checkers")
        load_s = time.perf_counter() - t0
        texts = [r[0] for r in tb.sql("SELECT position FROM cc_positions WHERE idx % 1009 = 3 "
                                      "AND result <> 'illegal' LIMIT 2000").fetchall()]
        median_us = lookup_median_us(tb, texts, game="chinese-checkers")
        tb.lookup_arrays("chinese-checkers", boards[:100], movers[:100])
        batch = call_seconds(lambda: tb.lookup_arrays("chinese-checkers", boards, movers))
    return [
        {"name": f"{tag} tb.load()", "value": round(load_s, 1), "unit": "s"},
        {"name": f"{tag} lookup median (text in, loaded)",
         "value": round(median_us, 1), "unit": "us"},
        {"name": f"{tag} lookup_arrays ({len(boards):,} random positions), median of 5",
         "value": round(len(boards) / statistics.median(batch)), "unit": "positions/s"},
    ]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--board", type=int, default=7)
    ap.add_argument("--pieces", type=int, default=3)
    ap.add_argument("--json", action="store_true", help="one JSON object per result")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as workdir:
        results = run(args.board, args.pieces, workdir)
    from run import report
    report(results, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
