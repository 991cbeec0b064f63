"""The memory of `tbdb export` on a big index table: the whole-stream coder against the streamed
export (issue 26: 5x5-6's 2.4·10^9 slots must export on a 24 GB machine).

    python benchmarks/probe_export_memory.py --db cc73.duckdb --game chinese-checkers \
        --table 7x7-3 --chunks 1M,4M,16M

Each export runs in a child process (``tbdb export``; peak RSS from its rusage): once whole
(``TBDB_EXPORT_STREAM_SLOTS`` above the table), then streamed with each chunk size (the table
forced onto the streamed path).  Reported per run: wall and CPU time, peak RSS and bytes of it
per slot, bits per slot of the values stream and of the whole file, the file against the
whole-stream coder's (what the sampled grammar costs), and whether the streamed files of every
chunk size are byte-identical (they must be).  Timings on a shared machine are noisy: the
machine line gives the load.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))


def _size(text: str) -> int:
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    text = text.strip().upper()
    return int(text[:-1]) * units[text[-1]] if text[-1] in units else int(text)


def export_once(db: str, game: str, table: str, out: str, env: dict) -> dict:
    from run import cli_child
    from tbdb.probe_files import ProbeFile, read_manifest
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        wall, cpu, peak = cli_child(["export", "--db", db, "--out", out, "--game", game,
                                     "--table", table])
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    e = next(e for e in read_manifest(out)["files"] if e["table"] == table)
    f = ProbeFile(os.path.join(out, e["path"]))
    vals = f.sections["VALS"][1]
    f.close()
    return {"wall": wall, "cpu": cpu, "peak": peak, "slots": e["slots"], "size": e["size"],
            "vals": vals, "sha256": e["sha256"]}


def main(argv=None) -> int:
    from run import machine_line
    from tbdb.probe_files.streamed import ENV
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", required=True, help="a built database")
    ap.add_argument("--game", required=True)
    ap.add_argument("--table", required=True)
    ap.add_argument("--chunks", default="1M,4M,16M", help="chunk sizes of the streamed runs")
    ap.add_argument("--sample", help="slots of the streamed runs' sample (default: tbdb's)")
    ap.add_argument("--no-whole", action="store_true", help="skip the whole-stream run")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    runs = []
    with tempfile.TemporaryDirectory(dir=os.environ.get("TMPDIR", "/tmp")) as tmp:
        if not args.no_whole:
            runs.append(("whole stream", export_once(
                args.db, args.game, args.table, os.path.join(tmp, "whole"),
                {ENV["stream"]: str(1 << 62)})))
        for c in args.chunks.split(","):
            env = {ENV["stream"]: "0", ENV["chunk"]: str(_size(c))}
            if args.sample:
                env[ENV["sample"]] = str(_size(args.sample))
            runs.append((f"streamed, chunk {c}", export_once(
                args.db, args.game, args.table, os.path.join(tmp, f"chunk{c}"), env)))
    whole = runs[0][1] if not args.no_whole else None
    streamed = [r for name, r in runs if name.startswith("streamed")]
    identical = len({r["sha256"] for r in streamed}) == 1
    if args.json:
        print(json.dumps({"runs": dict(runs), "identical": identical}, indent=1))
        return 0
    load = os.getloadavg()
    print(machine_line() + f", load {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} (shared machine: "
          f"times are noisy)")
    print(f"{args.game} {args.table}: {runs[0][1]['slots']:,} slots")
    print(f"{'run':<22} {'wall s':>8} {'CPU s':>8} {'peak MiB':>9} {'B/slot':>7} "
          f"{'vals b/slot':>11} {'file b/slot':>11} {'vs whole':>9}")
    for name, r in runs:
        n = r["slots"]
        vs = f"{100 * (r['size'] / whole['size'] - 1):+.2f}%" if whole else "-"
        print(f"{name:<22} {r['wall']:8.1f} {r['cpu']:8.1f} {r['peak'] / 2**20:9.0f} "
              f"{r['peak'] / n:7.2f} {8 * r['vals'] / n:11.3f} {8 * r['size'] / n:11.3f} "
              f"{vs:>9}")
    print(f"streamed files of every chunk size byte-identical: {identical}")
    return 0 if identical else 1


if __name__ == "__main__":
    sys.exit(main())
