"""The memory of `tbdb export` on a big table: whole against streamed.  Index tables (issue 26:
5x5-6's 2.4·10^9 slots must export on a 24 GB machine) and score-run tables (issue 27: Oware's
19- and 20-seed books, 1.2 and 1.9·10^9 runs, were killed at 12 GB exported whole).

    python benchmarks/probe_export_memory.py --db cc73.duckdb --game chinese-checkers \
        --table 7x7-3 --chunks 1M,4M,16M
    python benchmarks/probe_export_memory.py --db oware15.duckdb --game oware \
        --table seeds-15 --chunks 1M,4M,16M

Each export runs in a child process (peak RSS from its rusage).  An index table: once whole
(``tbdb export`` with ``TBDB_EXPORT_STREAM_SLOTS`` above the table), then streamed with each
chunk size of slots (the table forced onto the streamed path).  A score-run table is always
exported by ranges of positions (``TBDB_EXPORT_CHUNK_RUNS``: each chunk size a count of runs);
its "whole" run is the export that held the book (``load_runs``, then ``start_table``'s
views of its arrays hashed and written: what ``tbdb export`` did before), run in a child of its
own.  Reported per run: wall and CPU time, peak RSS and bytes of it per slot (per run for a
score-run table), the file's size against the whole run's, and whether the streamed files of
every chunk size are byte-identical (they must be; a score-run table's also to the whole
file).  Timings on a shared machine are noisy: the machine line gives the load.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))


def _size(text: str) -> int:
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    text = text.strip().upper()
    return int(text[:-1]) * units[text[-1]] if text[-1] in units else int(text)


def export_once(db: str, game: str, table: str, out: str, env: dict) -> dict:
    from run import cli_child
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
    return _result(out, table, wall, cpu, peak)


# the export of a score-run table as it was before ``streamed_runs``: the whole book loaded,
# its arrays' byte views hashed and written (``directory.export``'s ``finish``)
WHOLE_RUNS = """
import hashlib, json, os, sys
from tbdb.probe_files.directory import file_name, meta_of
from tbdb.probe_files.format import start_table
from tbdb.probe_files.header import VERSION
from tbdb.storage import storage_of
from tbdb.db.store import Store
db, game, table, out = sys.argv[1:]
with Store(db, read_only=True) as store:
    row = store.table(game, table)
    parts = start_table(game, row, storage_of(row).load(store, row), True, None)()
    rel = file_name(game, table)
    os.makedirs(os.path.dirname(os.path.join(out, rel)), exist_ok=True)
    digest = hashlib.sha256()
    with open(os.path.join(out, rel), "wb") as f:
        for part in parts:
            digest.update(part)
            f.write(part)
    entry = {"game": game, "table": table, "path": rel, "size": os.path.getsize(
        os.path.join(out, rel)), "sha256": digest.hexdigest(), "format_version": VERSION,
        **{k: v for k, v in meta_of(game, row).items() if k not in ("game", "table")}}
with open(os.path.join(out, "manifest.json"), "w") as f:
    json.dump({"format": "tbdb-probe-files", "version": VERSION, "files": [entry]}, f)
"""


def whole_runs_once(db: str, game: str, table: str, out: str) -> dict:
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", WHOLE_RUNS, db, game, table, out],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"the whole export failed: {proc.stderr.read()[-500:]!r}")
    return _result(out, table, time.perf_counter() - t0, usage.ru_utime + usage.ru_stime,
                   usage.ru_maxrss * 1024)


def _result(out: str, table: str, wall: float, cpu: float, peak: int) -> dict:
    from tbdb.probe_files import ProbeFile, read_manifest
    e = next(e for e in read_manifest(out)["files"] if e["table"] == table)
    f = ProbeFile(os.path.join(out, e["path"]))
    vals = f.sections["VALS"][1] if "VALS" in f.sections else None
    f.close()
    return {"wall": wall, "cpu": cpu, "peak": peak, "slots": e["slots"], "rows": f.rows,
            "storage": e["storage"], "size": e["size"], "vals": vals, "sha256": e["sha256"]}


def main(argv=None) -> int:
    from run import machine_line
    from tbdb.probe_files.streamed import ENV
    from tbdb.db.store import Store
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", required=True, help="a built database")
    ap.add_argument("--game", required=True)
    ap.add_argument("--table", required=True)
    ap.add_argument("--chunks", default="1M,4M,16M",
                    help="chunk sizes of the streamed runs (slots; runs for a score-run table)")
    ap.add_argument("--sample", help="slots of the streamed runs' sample (default: tbdb's)")
    ap.add_argument("--no-whole", action="store_true", help="skip the whole run")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    with Store(args.db, read_only=True) as store:
        row = store.table(args.game, args.table)
    if row is None:
        ap.error(f"no table {args.table!r} of {args.game} in {args.db!r}")
    by_runs = row["storage"] == "runs"
    runs = []
    with tempfile.TemporaryDirectory(dir=os.environ.get("TMPDIR", "/tmp")) as tmp:
        if not args.no_whole:
            whole_dir = os.path.join(tmp, "whole")
            runs.append(("whole", whole_runs_once(args.db, args.game, args.table, whole_dir)
                         if by_runs else export_once(args.db, args.game, args.table, whole_dir,
                                                     {ENV["stream"]: str(1 << 62)})))
        for c in args.chunks.split(","):
            env = {ENV["runs"]: str(_size(c))} if by_runs else \
                {ENV["stream"]: "0", ENV["chunk"]: str(_size(c))}
            if args.sample and not by_runs:
                env[ENV["sample"]] = str(_size(args.sample))
            runs.append((f"streamed, chunk {c}", export_once(
                args.db, args.game, args.table, os.path.join(tmp, f"chunk{c}"), env)))
    whole = runs[0][1] if not args.no_whole else None
    streamed = [r for name, r in runs if name.startswith("streamed")]
    identical = len({r["sha256"] for r in streamed}) == 1
    if by_runs and whole is not None:  # the same layout, written by ranges: the same bytes
        identical = identical and streamed[0]["sha256"] == whole["sha256"]
    if args.json:
        print(json.dumps({"runs": dict(runs), "identical": identical}, indent=1))
        return 0 if identical else 1
    load = os.getloadavg()
    print(machine_line() + f", load {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} (shared machine: "
          f"times are noisy)")
    first = runs[0][1]
    per = "run" if by_runs else "slot"
    print(f"{args.game} {args.table}: {first['slots']:,} slots" +
          (f", {first['rows']:,} runs" if by_runs else ""))
    print(f"{'run':<22} {'wall s':>8} {'CPU s':>8} {'peak MiB':>9} {'B/' + per:>7} "
          + ("" if by_runs else f"{'vals b/slot':>11} ") + f"{'file b/' + per:>11} "
          f"{'vs whole':>9}")
    for name, r in runs:
        n = r["rows"] if by_runs else r["slots"]
        vs = f"{100 * (r['size'] / whole['size'] - 1):+.2f}%" if whole else "-"
        vals = "" if by_runs else f"{8 * r['vals'] / n:11.3f} "
        print(f"{name:<22} {r['wall']:8.1f} {r['cpu']:8.1f} {r['peak'] / 2**20:9.0f} "
              f"{r['peak'] / n:7.2f} {vals}{8 * r['size'] / n:11.3f} {vs:>9}")
    what = "and the whole file " if by_runs and whole is not None else ""
    print(f"streamed files of every chunk size {what}byte-identical: {identical}")
    return 0 if identical else 1


if __name__ == "__main__":
    sys.exit(main())
