"""The Oware book solver against the C++ reference of the article's algorithm, in one run.

    python benchmarks/oware_solver.py              # 9-seed book: tbdb vs C++; 12 and 16 seeds
    python benchmarks/oware_solver.py --max-n 12   # skip the 16-seed build (takes minutes)
    python benchmarks/oware_solver.py --max-n 9 --rounds 9
    python benchmarks/oware_solver.py --max-n 9 --build 15 16 17   # + whole builds: growth per seed
    python benchmarks/oware_solver.py --max-n 9 --old-reference d91a58e~1   # + an older reference

"The n-seed book" means every book of 0..n seeds, every ply-left level until the values stop
changing, with the runs recorded.  The C++ reference (``benchmarks/oware_reference.cpp``,
compiled here with ``g++ -O3 -march=native``) computes the transitions once (packed, one uint32
a move), then makes one pass over every position per plies-left level until the values repeat
(skipping the books whose values, and every smaller book's, already repeat); it reports the
runs, stable_from and score sums its levels imply, which must equal tbdb's books (checked: the
comparison is of the same work).  tbdb and the reference run in alternation, ``--rounds`` times each, and the best
of each is compared, so that both see the same machine load; the CPU seconds (all threads)
show how much of both cores tbdb used.  tbdb's previous solver (``solve_book_levels``) runs in
the same rounds.  Per-level work: positions evaluated at each plies-left step of the 9-seed
book, tbdb against the reference's every position of every book at every level.

``--old-reference REV``: the reference as it was at git revision REV, compiled as it was then
(``g++ -O2``), timed in the same rounds (the reference before 2026-12-02 was about twice as slow
as plain C++ of the same algorithm).

The 12- and 16-seed builds run in their own processes so that their peak RSS is their own.
``--build N ...``: ``tbdb build oware --max-seeds N`` (solve and DuckDB, into a fresh file) in a
child process for each N, with its wall time, CPU, peak RSS (the child's own), file size, and
the growth of each from the N before: what the README's projections to 19-22 seeds rest on.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REFERENCE = os.path.join(ROOT, "benchmarks", "oware_reference.cpp")
REFERENCE_FLAGS = ("-O3", "-march=native")

_CHILD = r"""
import json, resource, sys, time
sys.path.insert(0, {root!r})
t0 = time.perf_counter()
from tbdb.games.oware import book as oware
t1 = time.perf_counter()
c0 = time.process_time()
books = oware.solve_books({max_n})
t2 = time.perf_counter()
print(json.dumps({{
    "import_s": t1 - t0,
    "solve_s": t2 - t1,
    "cpu_s": time.process_time() - c0,
    "positions": int(sum(b.size for b in books)),
    "runs": int(sum(b.num_runs for b in books)),
    "stable_from": [b.stable_from for b in books],
    "moves_stable_from": [b.moves_stable_from for b in books],
    "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
}}))
"""


def _child(max_n: int, cache_dir: str | None = None) -> dict:
    env = dict(os.environ)
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = cache_dir
    out = subprocess.run([sys.executable, "-c", _CHILD.format(root=ROOT, max_n=max_n)],
                         env=env, check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def machine() -> str:
    try:
        import numba
        nb = f"numba {numba.__version__}, {numba.config.NUMBA_NUM_THREADS} threads"
    except Exception:  # pragma: no cover
        nb = "numba ?"
    load = ", load %.2f %.2f %.2f" % os.getloadavg() if hasattr(os, "getloadavg") else ""
    return (f"{platform.platform()}, {platform.processor() or platform.machine()}, "
            f"{os.cpu_count()} cpus, Python {platform.python_version()}, {nb}{load}")


def compile_reference(workdir: str, revision: str | None = None) -> str:
    """``g++ -O3 -march=native`` the reference into ``workdir``; the path of the program.
    ``revision``: the reference at that git revision instead, with ``g++ -O2``."""
    gxx = shutil.which("g++")
    if gxx is None:
        raise SystemExit("benchmarks/oware_solver.py needs g++ for the C++ reference")
    src, flags, exe = REFERENCE, REFERENCE_FLAGS, os.path.join(workdir, "oware_reference")
    if revision is not None:
        src = os.path.join(workdir, "oware_reference_old.cpp")
        with open(src, "wb") as f:
            f.write(subprocess.run(["git", "-C", ROOT, "show",
                                    f"{revision}:benchmarks/oware_reference.cpp"],
                                   check=True, capture_output=True).stdout)
        flags, exe = ("-O2",), exe + "_old"
    subprocess.run([gxx, *flags, "-o", exe, src], check=True)
    return exe


def run_reference(exe: str, max_n: int) -> dict:
    """One run of the reference: its JSON line, plus its CPU seconds."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run([exe, str(max_n), "1"], check=True, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = json.loads(out.stdout)
    r["cpu_s"] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return r


def _timed(solve, max_n):
    c = time.process_time()
    t = time.perf_counter()
    books = solve(max_n)
    return books, time.perf_counter() - t, time.process_time() - c


def _book_facts(books) -> dict:
    return {"runs": int(sum(b.num_runs for b in books)),
            "stable_from": [b.stable_from for b in books],
            "moves_stable_from": [b.moves_stable_from for b in books],
            "score_sum": [int(b.run_score[b.run_offsets[1:] - 1].astype(int).sum())
                          for b in books]}


def per_level(work, stop: int, positions: int) -> list[tuple[str, int, int]]:
    """Per-level work in bands of plies left: (band, positions tbdb evaluated, positions the
    reference evaluates: ``positions`` per level)."""
    bands = [(1, 1), (2, 2), (3, 10), (11, 25), (26, 50), (51, 100), (101, 150), (151, 200)]
    out = []
    for a, b in bands:
        b = min(b, stop)
        if a > b:
            continue
        out.append((f"t = {a}" if a == b else f"t = {a}..{b}", int(sum(work[a:b + 1])),
                    positions * (b - a + 1)))
    return out


def run(max_n: int = 16, rounds: int = 5, old_reference: str | None = None) -> list[dict]:
    results: list[dict] = []

    def add(name, value, unit):
        results.append({"name": name, "value": value, "unit": unit})

    # Compile: a fresh process with an empty cache builds the 3-seed book (compiles every kernel
    # of the build path); then a second process loads the kernels from that cache.
    with tempfile.TemporaryDirectory() as cache:
        t = time.perf_counter()
        _child(3, cache)
        add("compile (cold cache, incl. interpreter start)", time.perf_counter() - t, "s")
        t = time.perf_counter()
        _child(3, cache)
        add("start with warm cache (incl. interpreter start)", time.perf_counter() - t, "s")

    sys.path.insert(0, ROOT)
    import numba

    from tbdb.games.oware import book as oware

    def levels_solver(n):
        return oware.solve_books(n, solve=oware.solve_book_levels)

    oware.solve_books(9)
    levels_solver(9)
    with tempfile.TemporaryDirectory() as work:
        exe = compile_reference(work)
        old_exe = None if old_reference is None else compile_reference(work, old_reference)
        run_reference(exe, 9)
        ref, new, old, old_ref = [], [], [], []
        for _ in range(rounds):  # alternate, so that all of them see the same load
            ref.append(run_reference(exe, 9))
            new.append(_timed(oware.solve_books, 9))
            old.append(_timed(levels_solver, 9))
            if old_exe is not None:
                old_ref.append(run_reference(old_exe, 9))
    best_ref = min(ref, key=lambda r: r["seconds"])
    books, new_s, new_cpu = min(new, key=lambda r: r[1])
    _, old_s, old_cpu = min(old, key=lambda r: r[1])
    facts = _book_facts(books)
    same = all(facts[k] == best_ref[k] for k in facts)
    add("9-seed book, C++ reference g++ %s (best of %d): transitions + levels"
        % (" ".join(REFERENCE_FLAGS), rounds),
        best_ref["seconds"], "s")
    add("  its transitions / its levels", f"{best_ref['transitions_s']:.3f} / "
        f"{best_ref['levels_s']:.3f}", "s")
    add("  its CPU (one core)", best_ref["cpu_s"], "s")
    add(f"9-seed book, tbdb (best of {rounds})", new_s, "s")
    add(f"  its CPU, all threads ({numba.get_num_threads()} threads)", new_cpu, "s")
    add("  cores used (CPU / wall)", new_cpu / new_s, "cores")
    add(f"9-seed book, tbdb's previous solver (best of {rounds})", old_s, "s")
    add("C++ reference / tbdb (goal >= 6)", best_ref["seconds"] / new_s, "x")
    add("C++ reference CPU / tbdb CPU", best_ref["cpu_s"] / new_cpu, "x")
    add("previous solver / tbdb", old_s / new_s, "x")
    if old_ref:
        best_old = min(r["seconds"] for r in old_ref)
        add(f"9-seed book, the reference at {old_reference}, g++ -O2 (best of {rounds})",
            best_old, "s")
        add("  it / the reference now; it / tbdb",
            f"{best_old / best_ref['seconds']:.2f} / {best_old / new_s:.2f}", "x")
    add("same books (runs, stable_from, moves_stable_from, score sums)", same, "")
    add("9-seed book runs", facts["runs"], "runs")
    add("9-seed book stable_from (n=0..9)", facts["stable_from"], "plies")
    b9 = books[9]
    levels = best_ref["levels"]
    add("levels the reference computes (values repeat after)", levels, "levels")
    add("positions evaluated, book 9: tbdb / reference", f"{int(b9.work.sum()):,} / "
        f"{b9.size * levels:,}", "positions")
    add("positions evaluated, books 0..9: tbdb / reference",
        f"{int(sum(b.work.sum() for b in books)):,} / {best_ref['evaluated']:,}", "positions")
    for band, got, ref_work in per_level(b9.work, b9.stable_from + 1, b9.size):
        add(f"  book 9 per level, {band}: tbdb / reference", f"{got:,} / {ref_work:,}",
            "positions")

    for n in (12, 16):
        if n > max_n:
            continue
        r = _child(n)
        add(f"{n}-seed book (books 0..{n})", r["solve_s"], "s")
        add(f"  its CPU / cores used", f"{r['cpu_s']:.1f} s / {r['cpu_s'] / r['solve_s']:.2f}",
            "")
        add(f"{n}-seed book positions per second", r["positions"] / r["solve_s"], "positions/s")
        add(f"{n}-seed book runs", r["runs"], "runs")
        add(f"{n}-seed book peak RSS", r["peak_rss_mb"], "MB")
        add(f"{n}-seed book stable_from (n=0..{n})", r["stable_from"], "plies")
    return results


def builds(counts: list[int]) -> list[dict]:
    """Whole builds, one child process and one fresh database each (``--build``)."""
    sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
    from run import cli_child
    results, before = [], None
    for n in counts:
        with tempfile.TemporaryDirectory(prefix="oware-build-") as tmp:
            db = os.path.join(tmp, "b.duckdb")
            wall, cpu, peak = cli_child(["build", "oware", "--max-seeds", str(n), "--db", db,
                                         "--no-progress"])
            size = os.path.getsize(db)
        row = {"n": n, "wall": wall, "cpu": cpu, "peak": peak, "size": size}
        growth = "" if before is None else (
            f" (x{wall / before['wall']:.2f} time, x{peak / before['peak']:.2f} peak, "
            f"x{size / before['size']:.2f} file)")
        results.append({"name": f"build --max-seeds {n}: wall / CPU / peak / file",
                        "value": f"{wall:.0f} s / {cpu:.0f} s / {peak / 2**30:.2f} GiB / "
                                 f"{size / 2**30:.2f} GiB{growth}", "unit": ""})
        before = row
    return results


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-n", type=int, default=16, help="largest book to time (9, 12 or 16)")
    ap.add_argument("--rounds", type=int, default=5, help="runs of each solver on 9 seeds")
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    ap.add_argument("--old-reference", metavar="REV",
                    help="also time the reference as it was at git revision REV (g++ -O2)")
    ap.add_argument("--build", type=int, nargs="*", default=[], metavar="N",
                    help="also time whole builds of 0..N seeds (minutes from 15 on)")
    args = ap.parse_args(argv)
    results = run(args.max_n, args.rounds, args.old_reference) + builds(args.build)
    if args.json:
        print(json.dumps({"machine": machine(), "results": results}, indent=1))
        return
    print(f"machine: {machine()}")
    width = max(len(r["name"]) for r in results)
    for r in results:
        v = r["value"]
        if isinstance(v, float):
            v = f"{v:,.3f}" if v < 1000 else f"{v:,.0f}"
        print(f"{r['name']:<{width}}  {v}  {r['unit']}")


if __name__ == "__main__":
    main()
