"""An engine's first answer: `tbdb.open(DIR)` and the first `tb.lookup(text)` in a fresh
process, nothing warmed (issue 66: within 50 ms).

    python benchmarks/first_answer.py                  # CC 5x5-3 probe files, built here
    python benchmarks/first_answer.py --dir cc73 --text "7x7-3 1/11/.../..../...../....../......./....../...../..../.../22/2 1"
    python benchmarks/first_answer.py --dir cc73 --text "..." --rounds 15

Each round runs, alternated, in fresh `python -c` processes:
- **tbdb**: `import tbdb; tb = tbdb.open(DIR); tb.lookup(TEXT)`, timed inside the process from
  before `import tbdb` to the answer (split into import, open and lookup), and the whole
  process's wall time;
- **the Python path** the same lookup took before libtbprobe answered text first (the same
  program with `text_lookups.GAMES` emptied: NumPy, Numba, DuckDB and the game imported, the
  answer still from C), as the peer;
- **`python -c pass`**: the interpreter's own start, which no library can shorten.

The modules' byte code is compiled first (`compileall`, as `pip install` does), since this
machine sets PYTHONDONTWRITEBYTECODE and would otherwise compile tbdb's sources in every run.
Printed: the median, min and max of each over the rounds, and which of NumPy, Numba and DuckDB
the first answer loaded.
"""
from __future__ import annotations

import argparse
import compileall
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CHILD = r"""
import sys, time
t0 = time.perf_counter()
import tbdb
t1 = time.perf_counter()
if sys.argv[3] == "python-path":
    from tbdb.probe_files import text_lookups
    text_lookups.GAMES = frozenset()
tb = tbdb.open(sys.argv[1])
t2 = time.perf_counter()
r = tb.lookup(sys.argv[2])
t3 = time.perf_counter()
import json
print(json.dumps({"import": t1 - t0, "open": t2 - t1, "lookup": t3 - t2, "total": t3 - t0,
                  "answer": [r.outcome, r.distance, r.best_move],
                  "loaded": [m for m in ("numpy", "numba", "duckdb") if m in sys.modules]}))
"""


def machine_line() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f
                       if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    load = "load %.2f %.2f %.2f" % os.getloadavg()
    return (f"machine: {cpu}, {os.cpu_count()} cores; Python {platform.python_version()}; "
            f"{load}")


def _run(args: list[str]) -> tuple[float, str]:
    import time
    t0 = time.perf_counter()
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    return time.perf_counter() - t0, out


def _default_dir(work: str) -> tuple[str, str]:
    """CC 5x5-3's probe files, built here, and a position of it."""
    out = os.path.join(work, "cc55")
    subprocess.run([sys.executable, "-m", "tbdb.cli", "build", "chinese-checkers", "--board",
                    "5", "--pieces", "3", "--probe-files", out, "--db", out, "--no-progress"],
                   check=True, capture_output=True)
    sys.path.insert(0, ROOT)
    from tbdb import games
    return out, str(games.get("chinese-checkers").start(board="5", pieces=3))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dir", help="a directory of probe files (default: CC 5x5-3, built here)")
    ap.add_argument("--text", help="the position to look up (with --dir)")
    ap.add_argument("--rounds", type=int, default=11)
    args = ap.parse_args()
    compileall.compile_dir(os.path.join(ROOT, "tbdb"), quiet=1)
    compileall.compile_dir(os.path.join(ROOT, "solvers"), quiet=1)
    with tempfile.TemporaryDirectory() as work:
        if args.dir is None:
            path, text = _default_dir(work)
        else:
            if not args.text:
                ap.error("--dir needs --text")
            path, text = args.dir, args.text
        runs: dict[str, list] = {"tbdb": [], "python-path": [], "pass": []}
        for _ in range(args.rounds):
            for kind in ("tbdb", "python-path"):
                wall, out = _run([sys.executable, "-c", CHILD, path, text, kind])
                got = json.loads(out.strip().splitlines()[-1])
                got["wall"] = wall
                runs[kind].append(got)
            runs["pass"].append({"wall": _run([sys.executable, "-c", "pass"])[0]})
    print(machine_line())
    print(f"directory {path!r}, position {text!r}, {args.rounds} rounds, fresh processes")
    print(f"answer: {runs['tbdb'][0]['answer']} (the Python path's: "
          f"{runs['python-path'][0]['answer']})")
    print(f"{'':38} {'median':>9} {'min':>9} {'max':>9}")

    def row(name: str, values: list[float]) -> None:
        ms = [1e3 * v for v in values]
        print(f"{name:38} {statistics.median(ms):7.1f}ms {min(ms):7.1f}ms {max(ms):7.1f}ms")
    for kind, label in (("tbdb", "tbdb"), ("python-path", "the Python path (before)")):
        for part in ("import", "open", "lookup", "total"):
            row(f"{label}: {part}", [r[part] for r in runs[kind]])
        row(f"{label}: whole process", [r["wall"] for r in runs[kind]])
        print(f"{label}: loaded {sorted(set(m for r in runs[kind] for m in r['loaded']))}")
    row("python -c pass: whole process", [r["wall"] for r in runs["pass"]])


if __name__ == "__main__":
    main()
