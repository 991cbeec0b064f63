"""The C prober (native/, issue 25): probe speed in the array form and from text, the
WebAssembly build's beside it, and the library's size.

    python benchmarks/native.py                                  # CDC 2-3 pieces, CC 5x5-2 (built here)
    python benchmarks/native.py --db cdc4.duckdb --game cdc      # the issue's CDC 4-piece target
    python benchmarks/native.py --db cc.duckdb --game chinese-checkers --out /tmp/cc-probe
    python benchmarks/native.py --db probe/ --game cdc --texts cdc.txt   # files exported already
    python benchmarks/native.py --db cdc4.duckdb --game cdc --direct     # in direct cells

Each database is exported to probe files (``--out``, kept if given; ``--db`` may also be such a
directory, with ``--texts`` a file of "GAME<TAB>POSITION" lines to probe; ``--direct``: index
tables exported in direct cells, a slot's value read with one load, where the compressed streams
wait on a chain of cache misses), ``--samples`` random stored positions are drawn
(``benchmarks/probe_files.py``'s sampler), and
``native/tests/bench.c`` times every probe on its own after a warm-up pass (page cache warm),
each form in passes of its own (a position was last probed a whole pass earlier: CPU caches
cold for its table): the median in the array form (``tb_probe_position`` on a parsed position)
and from text (``tb_parse`` + probe), the median of a probe repeated at once (CPU caches warm:
the decoding alone), and the rate of back-to-back probes; all of it twice, on a base opened
with ``tb_open`` and on one opened with ``TB_OPEN_INDEX`` (checkpoints in every block, built at
opening: the opening's time and memory beside), and the machine's floor under them: a load
that depends on the one before, over memory as large as the files (a cold probe makes a few
in a row: its block's checkpoint, the block's bits, the decoding tables), and the median probe
counted in such loads.  ``native/wasm/bench.mjs`` measures the
WebAssembly build under Node (back-to-back, the loop inside the module and one JavaScript call a
probe).  Issue 25's targets,
on CDC 4-piece and Chinese Checkers 7x7-3: median <= 0.5 us in the array form, <= 2 us from text;
WebAssembly within 3x of native; libtbprobe under 200 KB.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NATIVE = os.path.join(ROOT, "native")
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))


def _make(*targets: str) -> None:
    subprocess.run(["make", "-s", "-C", NATIVE, *targets], check=True)


def _bench(out: str, lines: str, rounds: int, flags: int) -> dict:
    _make("build/bench")
    return json.loads(subprocess.run([os.path.join(NATIVE, "build", "bench"), out, lines,
                                      str(rounds), str(flags)], capture_output=True, text=True,
                                     check=True).stdout)


def run(db: str, game: str, out: str, samples: int, rounds: int, texts: str | None,
        direct: bool = False) -> list[dict]:
    if os.path.isdir(db):
        if not texts:
            raise SystemExit("--db DIR (probe files) needs --texts FILE (GAME<TAB>POSITION lines)")
        out = db
    else:
        from tbdb.probe_files import export
        export(db, out, game, progress=False, direct=direct)
    if texts:
        lines = texts
    else:
        from probe_files import _sample
        lines = os.path.join(out, "..", f"bench-{game}.txt")
        with open(lines, "w") as f:
            f.writelines(f"{game}\t{t}\n" for t in _sample(db, game, samples))
    rows = []
    c = None
    for flags, how in ((0, "tb_open"), (1, "TB_OPEN_INDEX")):
        c = _bench(out, lines, rounds, flags)
        if flags == 0:
            rows.append({"name": f"{game}: positions probed", "value": c["positions"], "unit": ""})
        rows += [
            {"name": f"{how}: opening", "value": c["open_ms"], "unit": "ms"},
            {"name": f"{how}: probe, array form, median", "value": c["array_median_ns"] / 1e3,
             "unit": "us"},
            {"name": f"{how}: probe, array form, 90th percentile",
             "value": c["array_p90_ns"] / 1e3, "unit": "us"},
            {"name": f"{how}: probe from text, median", "value": c["text_median_ns"] / 1e3,
             "unit": "us"},
            {"name": f"{how}: probe repeated at once (cache warm), median",
             "value": c["repeat_median_ns"] / 1e3, "unit": "us"},
            {"name": f"{how}: back-to-back probes", "value": c["rate_per_s"], "unit": "probes/s"},
        ]
        rows.append({"name": f"{how}: memory besides the files", "value":
                     c["table_bytes"] / 2**20, "unit": "MB"})
        # the floor under a cold probe: a load that waits for the one before, over memory as
        # large as the files (a probe of a table not probed lately makes a few in a row)
        rows += [{"name": f"{how}: machine, a dependent load over {c['file_bytes'] >> 20} MB",
                  "value": c["dependent_load_ns"] / 1e3, "unit": "us"},
                 {"name": f"{how}: array-form median in dependent loads", "value":
                  c["array_median_ns"] / max(c["dependent_load_ns"], 1e-9), "unit": "loads"}]
    rows.append({"name": "probe files", "value": c["file_bytes"] / 2**20, "unit": "MB"})
    if shutil.which("node") and shutil.which("clang") and shutil.which("wasm-ld"):
        _make("wasm")
        w = json.loads(subprocess.run(["node", os.path.join(NATIVE, "wasm", "bench.mjs"), out,
                                       lines, str(rounds), "1"], capture_output=True, text=True,
                                      check=True).stdout)
        rows += [
            {"name": "WebAssembly (indexed): probe, array form, median (a JS call each)",
             "value": w["array_median_ns"] / 1e3, "unit": "us"},
            {"name": "WebAssembly (indexed): probe, loop in the module", "value":
             w["loop_mean_ns"] / 1e3, "unit": "us (mean)"},
            {"name": "WebAssembly (indexed): probe from text, with its move text",
             "value": w["text_mean_ns"] / 1e3, "unit": "us (mean)"},
            {"name": "WebAssembly / C (indexed), array-form medians",
             "value": w["array_median_ns"] / c["array_median_ns"], "unit": "x slower"},
        ]
    return rows


def main() -> int:
    from run import report
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", action="append", help="a built database (repeatable; default: "
                    "build CDC 2-3 pieces and Chinese Checkers 5x5-2 here)")
    ap.add_argument("--game", action="append", help="the game of each --db")
    ap.add_argument("--out", help="probe file directory (default: a temporary one)")
    ap.add_argument("--texts", action="append", help="positions to probe for each --db "
                    "(GAME<TAB>POSITION lines; default: --samples drawn from the database)")
    ap.add_argument("--direct", action="store_true", help="export index tables in direct "
                    "cells (tbdb export --direct)")
    ap.add_argument("--samples", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    _make()
    with tempfile.TemporaryDirectory() as tmp:
        pairs = list(zip(args.db or [], args.game or []))
        if not pairs:
            import tbdb
            db = os.path.join(tmp, "small.duckdb")
            tbdb.build("cdc", db=db, progress=False, max_pieces=3)
            tbdb.build("chinese-checkers", db=db, progress=False, board=5, pieces=2)
            pairs = [(db, "cdc"), (db, "chinese-checkers")]
        rows = [{"name": "libtbprobe.a", "value": os.path.getsize(
            os.path.join(NATIVE, "build", "libtbprobe.a")) / 1024, "unit": "KB"}]
        texts = args.texts or []
        for i, (db, game) in enumerate(pairs):
            out = os.path.join(args.out or tmp, game)
            rows += run(db, game, out, args.samples, args.rounds,
                        texts[i] if i < len(texts) else None, args.direct)
        report(rows, args.json)
        if not args.json:
            print(f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores: on a "
                  f"shared machine the timings are noisy)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
