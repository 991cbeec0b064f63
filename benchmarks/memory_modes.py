"""Bytes per slot and time of each retrograde mode, and what a build would take elsewhere.

    python benchmarks/memory_modes.py                             # CC 6x6-3 and 4x4-6, each mode
    python benchmarks/memory_modes.py --table cc:7x7-3 --modes compact
    python benchmarks/memory_modes.py --table shogi:KGK --table cdc:KGvRN
    python benchmarks/memory_modes.py --table cdc:KGMvRN --modes auto --memory 2G
    python benchmarks/memory_modes.py --project cc:5x5-6          # estimate from the runs

Each build runs as ``tbdb build`` in a child process after a small build of the same game and
mode has compiled the kernels, so ``os.wait4`` gives its own peak resident memory and CPU
time.  Reported per (table, mode): slots, wall and CPU seconds, the build's peak RSS, peak per
slot, and the peak above a warm process's baseline per slot (what the mode itself costs), as
well as the mode, estimate and peak the catalogue (``tb_tables``) recorded for the table.
``--project`` scales the compact runs' CPU seconds and bytes per slot to another table's slot
count: a rough estimate (moves per position and the number of distances differ by table).
Timings on a shared machine are noisy: the machine line gives the load.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
from run import cli_child  # noqa: E402  (benchmarks/ on the path just above)

WARM = {"chinese-checkers": ["--board", "4", "--pieces", "2"], "cdc": ["--material", "KvP"],
        "shogi": ["--table", "KGK"]}


def build_args(spec: str) -> tuple[str, str, list[str]]:
    """('game', 'table', build options) of 'cc:7x7-3', 'cdc:KGvRN' or 'shogi:KRGK'."""
    game, _, table = spec.partition(":")
    if game in ("cc", "chinese-checkers"):
        m, pieces = table.split("-")
        return "chinese-checkers", table, ["--board", m.split("x")[0], "--pieces", pieces]
    if game == "cdc":
        return "cdc", table, ["--material", table]
    if game == "shogi":
        return "shogi", table, ["--table", table]
    raise SystemExit(f"unknown table {spec!r}: expected cc:MxM-P, cdc:MATERIAL or shogi:TABLE")


def slots_of(game: str, table: str) -> int:
    from tbdb import games
    g = games.get(game)
    return int(g.weight(g.check_table(table)))


def catalogue(db: str, table: str) -> tuple:
    import duckdb
    con = duckdb.connect(db, read_only=True)
    try:
        return con.execute("SELECT mode, estimate_bytes, peak_bytes FROM tb_tables WHERE "
                           "table_name = ?", [table]).fetchone()
    finally:
        con.close()


def measure(spec: str, mode: str, memory: str | None, workdir: str) -> dict:
    game, table, opts = build_args(spec)
    extra = ["--mode", mode] + (["--memory", memory] if memory else [])
    warm = os.path.join(workdir, f"warm-{game}-{mode}.duckdb")
    _, _, base = cli_child(["build", game, *WARM[game], *extra, "--db", warm, "--no-progress"])
    db = os.path.join(workdir, f"{table}-{mode}.duckdb")
    wall, cpu, peak = cli_child(["build", game, *opts, *extra, "--db", db, "--no-progress"])
    slots = slots_of(game, table)
    chosen, estimate, recorded = catalogue(db, table)
    return {"table": f"{game} {table}", "mode": mode, "chosen": chosen, "slots": slots,
            "wall": wall, "cpu": cpu, "peak": peak, "base": base, "estimate": estimate,
            "recorded": recorded}


def report(rows: list[dict], projections: list[str]) -> None:
    from run import machine_line
    print(machine_line() + ", load %.1f %.1f %.1f (shared machine: times are noisy)"
          % os.getloadavg())
    head = ("table", "mode", "slots", "wall s", "CPU s", "peak GiB", "B/slot", "above base "
            "B/slot", "estimate GiB", "tb_tables peak GiB")
    print(" | ".join(head))
    for r in rows:
        mode = r["mode"] if r["mode"] == r["chosen"] else f"{r['mode']} -> {r['chosen']}"
        print(" | ".join([r["table"], mode, f"{r['slots']:,}", f"{r['wall']:.1f}",
                          f"{r['cpu']:.1f}", f"{r['peak'] / 2**30:.2f}",
                          f"{r['peak'] / r['slots']:.1f}",
                          f"{(r['peak'] - r['base']) / r['slots']:.1f}",
                          f"{(r['estimate'] or 0) / 2**30:.2f}",
                          f"{(r['recorded'] or 0) / 2**30:.2f}"]))
    compact = [r for r in rows if r["chosen"] == "compact"]
    for spec in projections:
        game, table, _ = build_args(spec)
        slots = slots_of(game, table)
        for r in compact:
            per_slot_cpu = r["cpu"] / r["slots"]
            above = (r["peak"] - r["base"]) / r["slots"]
            print(f"projection {game} {table} ({slots:,} slots) from {r['table']}: "
                  f"{per_slot_cpu * slots / 3600:.1f} CPU-hours "
                  f"({per_slot_cpu * slots / 3600 / (os.cpu_count() or 1):.1f} h on "
                  f"{os.cpu_count()} cores if it parallelised fully), peak about "
                  f"{(r['base'] + above * slots) / 2**30:.1f} GiB")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--table", action="append", help="cc:MxM-P, cdc:MATERIAL, shogi:TABLE "
                    "(repeatable; default cc:6x6-3 and cc:4x4-6)")
    ap.add_argument("--modes", default="edges,edge-free,compact",
                    help="comma-separated modes (auto too)")
    ap.add_argument("--memory", help="--memory for the builds (e.g. 2G)")
    ap.add_argument("--project", action="append", default=[],
                    help="a table to project the compact runs to (e.g. cc:5x5-6)")
    args = ap.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory(dir=os.environ.get("TMPDIR")) as workdir:
        for spec in args.table or ["cc:6x6-3", "cc:4x4-6"]:
            for mode in args.modes.split(","):
                rows.append(measure(spec, mode, args.memory, workdir))
                print(f"  ... {spec} {mode}: {rows[-1]['wall']:.1f} s", file=sys.stderr,
                      flush=True)
    report(rows, args.project)
    return 0


if __name__ == "__main__":
    sys.exit(main())
