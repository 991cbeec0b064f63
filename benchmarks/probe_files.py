"""Probe files (issue 24): size, export time and lookup speed of `tbdb export` on a build.

    python benchmarks/probe_files.py                          # CDC 2-3 pieces (built here)
    python benchmarks/probe_files.py --db cdc4.duckdb --game cdc --out /tmp/cdc4-probe
    python benchmarks/probe_files.py --db cc.duckdb --game chinese-checkers --json

Reported: bits per stored slot of the values stream (result + distance) and of the whole
export with best moves, bits per stored row and per position answered, beside the DuckDB file;
export time; open + first lookup in a fresh process (imports and Numba's compile excluded);
the median single lookup (``tb.lookup``, nothing loaded before, page cache warm; split into
lookups that opened their table and the others) and the ``lookup_arrays`` rate on distinct
random stored positions (blocks not probed before, the same positions again, and after
``tb.load``, which records every checkpoint), in batches of 20,000 (mostly a block each) and
of a million (an engine's batch: several rows a block).  Issue 24's targets: values <= 2 bits a
slot, whole export <= 6 bits a row, first lookup <= 50 ms, single lookup <= 10-15 us,
lookup_arrays >= 2M positions/s, 10^6 random lookups in under 400 MB.
"""
from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))

FIRST = """
import sys, time
import tbdb
import tbdb.api  # the library's imports (DuckDB, Arrow) are not the file's opening
from tbdb.solvers import probe_files, lookup  # imported (and compiled) before the clock starts
import numpy as np
# Numba sets its compiler target up on the first call of any kernel in a process (about 0.5 s,
# scipy's BLAS check included): a cost of the library, not of opening the files
probe_files.pair_sizes(1, np.zeros(0, np.int64), np.zeros(0, np.int64))
from tbdb import games
g = games.get(sys.argv[2])
p = g.parse(sys.argv[3])
t0 = time.perf_counter()
with tbdb.open(sys.argv[1]) as tb:
    tb.lookup(p, game=g.name)
    print(time.perf_counter() - t0)
"""


RSS = """
import sys, pickle
import numpy as np
import tbdb
from tbdb import games
g = games.get(sys.argv[2])
with open(sys.argv[3], "rb") as f:
    arrays = pickle.load(f)
n = len(arrays[0])
rng = np.random.default_rng(11)
with tbdb.open(sys.argv[1]) as tb:
    done = 0
    while done < int(sys.argv[4]):
        pick = rng.integers(0, n, 100_000)
        tb.lookup_arrays(g.name, *(a[pick] for a in arrays))
        done += len(pick)
# VmHWM, not ru_maxrss: Linux carries ru_maxrss over from the parent through fork and exec,
# so a child of a big benchmark process would report the parent's size
with open("/proc/self/status") as f:
    print(next(int(line.split()[1]) for line in f if line.startswith("VmHWM:")) / 1024)
"""


def _sample(db: str, game: str, n: int, seed: int = 7) -> list[str]:
    """Texts of ``n`` random stored positions (index tables: any slot with a value)."""
    import numpy as np

    from tbdb import games
    from tbdb.storage import storage_of
    from tbdb.db.store import Store
    g = games.get(game)
    rng = random.Random(seed)
    picks = []
    with Store(db, read_only=True) as store:
        rows = [store.table(game, r["table_name"]) for r in store.tables(game)]
        rows = [r for r in rows if r is not None and r["positions"] > 0]
        weights = [r["positions"] for r in rows]
        chosen = rng.choices(range(len(rows)), weights, k=n)
        for i in sorted(set(chosen)):
            row = rows[i]
            if storage_of(row).name != "index":
                raise SystemExit("this benchmark samples index tables only")
            v = storage_of(row).load(store, row)
            filled = np.flatnonzero(v.result >= -1)
            for _ in range(chosen.count(i)):
                picks.append(g.slot_text(row["table_name"], int(filled[rng.randrange(len(filled))])))
    rng.shuffle(picks)
    return picks


def run(db: str, game: str, out: str, samples: int = 2000, batch: int = 20_000,
        big_batch: int = 1_000_000) -> list[dict]:
    import numpy as np

    import tbdb
    from tbdb import games
    from tbdb.probe_files import ProbeFile, export, read_manifest
    g = games.get(game)
    t0, c0 = time.perf_counter(), time.process_time()
    export(db, out, game, progress=False)
    export_s, export_cpu = time.perf_counter() - t0, time.process_time() - c0
    m = read_manifest(out)
    files = [e for e in m["files"] if e["game"] == g.name]
    slots = sum(e["slots"] for e in files)
    total = sum(e["size"] for e in files)
    vals = rows = 0
    for e in files:
        f = ProbeFile(os.path.join(out, e["path"]))
        vals += f.sections["VALS"][1]
        rows += f.rows
        f.close()
    with tbdb.open(db) as tb:
        answered = sum(r["positions_answered"] or 0 for r in tb.tables(g.name))
    # distinct positions: a batch that repeats a few thousand lets each decoded slot serve many
    # rows (``lookup_arrays`` copies a repeated slot) and overstates the rate several times
    texts = _sample(db, g.name, max(samples, 3 * batch))
    first = float(subprocess.run([sys.executable, "-c", FIRST, out, g.name, texts[0]],
                                 capture_output=True, text=True, check=True).stdout)

    def rate(tb, arrays) -> tuple[float, float]:
        t1, c1 = time.perf_counter(), time.process_time()
        tb.lookup_arrays(g.name, *arrays)
        m = len(arrays[0])
        return m / (time.perf_counter() - t1), m / (time.process_time() - c1)

    def tables_open(tb) -> int:
        """Tables opened so far: by the Python reader, or by libtbprobe (which opens small
        files itself on their first single lookup)."""
        native = getattr(tb.store, "native", None)
        return len(tb.prober.tables) + len(tb.store.files) + \
            (native.base.table_count() if native is not None else 0)

    with tbdb.open(out) as tb:
        positions = [g.parse(t) for t in texts]
        times, cpu, opening = [], [], []
        for p in positions[:samples]:
            opened = tables_open(tb)
            t1, c1 = time.perf_counter(), time.thread_time()
            tb.lookup(p, game=g.name)
            times.append(time.perf_counter() - t1)
            cpu.append(time.thread_time() - c1)
            opening.append(tables_open(tb) > opened)
        opening = np.array(opening)
        again = np.array(cpu)[~opening] if (~opening).any() else np.zeros(1)
        # three batches of distinct random positions: the first opens the tables and loads
        # the kernels; the second meets blocks no probe has touched (no checkpoints recorded:
        # decoding starts at its block's start); the same batch again starts from the
        # checkpoints the second recorded; the third after ``tb.load`` (every checkpoint)
        sets = [g.encode_batch(positions[i * batch:(i + 1) * batch]) for i in range(3)]
        tb.lookup_arrays(g.name, *sets[0])
        fresh, again_rate = rate(tb, sets[1]), rate(tb, sets[1])
        t1, c1 = time.perf_counter(), time.process_time()
        tb.load(g.name)
        load_s, load_cpu = time.perf_counter() - t1, time.process_time() - c1
        loaded = rate(tb, sets[2])
        arrays = sets[1]
    # an engine's batch: a million random positions (a sample of their own), in a directory
    # opened afresh (tables opened in the call, no checkpoints: each block decoded from its
    # start), the same batch again, and after ``tb.load``
    big = g.encode_batch([g.parse(t) for t in _sample(db, g.name, big_batch, seed=8)])
    with tbdb.open(out) as tb:
        tb.lookup_arrays(g.name, *[a[:1] for a in big])
        big_batch_rates = [rate(tb, big), rate(tb, big)]
        tb.load(g.name)
        big_batch_rates.append(rate(tb, big))
    import pickle
    with tempfile.NamedTemporaryFile(suffix=".pickle") as f:
        pickle.dump(arrays, f)
        f.flush()
        rss = float(subprocess.run([sys.executable, "-c", RSS, out, g.name, f.name,
                                    str(10 ** 6)], capture_output=True, text=True,
                                   check=True).stdout)
    db_bytes = os.path.getsize(db)
    return [
        {"name": f"{g.name}: tables exported", "value": len(files), "unit": "files"},
        {"name": "stored slots / rows", "value": f"{slots:,} / {rows:,}", "unit": ""},
        {"name": "values stream", "value": 8 * vals / slots, "unit": "bits per slot"},
        {"name": "values stream", "value": 8 * vals / rows, "unit": "bits per stored row"},
        {"name": "whole export (with moves)", "value": 8 * total / rows,
         "unit": "bits per stored row"},
        {"name": "whole export (with moves)", "value": 8 * total / max(answered, 1),
         "unit": "bits per position answered"},
        {"name": "DuckDB file (for comparison)", "value": 8 * db_bytes / rows,
         "unit": "bits per stored row"},
        {"name": "export", "value": export_s, "unit": "s"},
        # CPU of every thread (the coder's two, DuckDB's): on a loaded machine the wall time
        # says more about the neighbours than about the export
        {"name": "export, CPU time", "value": export_cpu, "unit": "s"},
        {"name": "open + first lookup (fresh process)", "value": first * 1e3, "unit": "ms"},
        {"name": "single lookup, median", "value": 1e6 * float(np.median(times)), "unit": "us"},
        {"name": "single lookup, median CPU time", "value": 1e6 * float(np.median(cpu)),
         "unit": "us"},
        {"name": f"  lookups that opened their table ({int(opening.sum())} of {samples})",
         "value": 1e6 * float(np.median(np.array(cpu)[opening])) if opening.any() else 0.0,
         "unit": "us CPU, median"},
        {"name": "  lookups in a table already open", "value": 1e6 * float(np.median(again)),
         "unit": "us CPU, median"},
        {"name": f"lookup_arrays, {batch:,} fresh random positions", "value": fresh[0],
         "unit": "positions/s"},
        {"name": "  the same, per CPU-second", "value": fresh[1], "unit": "positions/s"},
        {"name": "lookup_arrays, the same positions again", "value": again_rate[0],
         "unit": "positions/s"},
        {"name": "  the same, per CPU-second", "value": again_rate[1], "unit": "positions/s"},
        {"name": "tb.load (every checkpoint of every table)", "value": load_s, "unit": "s"},
        {"name": "  the same, CPU time", "value": load_cpu, "unit": "s"},
        {"name": "lookup_arrays after tb.load, fresh positions", "value": loaded[0],
         "unit": "positions/s"},
        {"name": "  the same, per CPU-second", "value": loaded[1], "unit": "positions/s"},
        {"name": f"lookup_arrays, a batch of {big_batch:,} random positions (just opened)",
         "value": big_batch_rates[0][0], "unit": "positions/s"},
        {"name": "  the same batch again", "value": big_batch_rates[1][0], "unit": "positions/s"},
        {"name": "  the same batch after tb.load", "value": big_batch_rates[2][0],
         "unit": "positions/s"},
        {"name": "peak RSS, 10^6 random lookup_arrays (fresh process)", "value": rss,
         "unit": "MiB"},
    ]


def main() -> int:
    from run import report
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", help="a built database (default: build CDC 2-3 pieces here)")
    ap.add_argument("--game", default="cdc")
    ap.add_argument("--out", help="probe file directory (default: a temporary one)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = args.db
        if db is None:
            import tbdb
            db = os.path.join(tmp, "cdc3.duckdb")
            tbdb.build("cdc", db=db, progress=False, max_pieces=3)
        report(run(db, args.game, args.out or os.path.join(tmp, "probe")), args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
