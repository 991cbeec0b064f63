"""Where an edge-free solve's time goes: run one ``tbdb`` command in this process and print, per
kernel and per call the engine makes of the table's space, its wall and CPU seconds and calls.

    python benchmarks/solve_phases.py build chess --material KRBvKN --probe-files DIR --no-moves

Build the table's dependencies first (the same command with a smaller material, or a directory
that holds them): every table the command solves is summed.  Each kernel's first call is timed
apart ("first"), so a cold Numba cache's compiling shows there, not in the sums.  CPU seconds
count every thread: twice the wall on two busy cores.  ``edge-free`` is the whole solve; the
difference from the sum of the rest is the engine's own Python and NumPy work.
"""
from __future__ import annotations

import collections
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))

from run import machine_line  # noqa: E402

from tbdb import engine  # noqa: E402

KERNELS = ("ef_census", "ef_init", "ef_init_summaries", "ef_resolved", "ef_live", "settle",
           "drop_settled", "ef_apply", "ef_finish", "ef_unpack", "dedupe_rows")
SPACE_CALLS = ("census", "children", "summaries", "parents", "first_draws")

wall: dict[str, float] = collections.defaultdict(float)
cpu: dict[str, float] = collections.defaultdict(float)
calls: dict[str, int] = collections.defaultdict(int)
first: dict[str, float] = {}


def timed(label: str, fn):
    def call(*args, **kwargs):
        t, c = time.perf_counter(), time.process_time()
        try:
            return fn(*args, **kwargs)
        finally:
            dt = time.perf_counter() - t
            if label in first:
                wall[label] += dt
                cpu[label] += time.process_time() - c
            else:
                first[label] = dt
            calls[label] += 1
    return call


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__)
        return 2
    for name in KERNELS:
        setattr(engine.k, name, timed(name, getattr(engine.k, name)))
    solve = engine._edge_free

    def edge_free(space, progress):
        for name in SPACE_CALLS:  # the space's own methods, shadowed on this instance
            if getattr(space, name, None) is not None:
                setattr(space, name, timed(f"space.{name}", getattr(space, name)))
        t, c = time.perf_counter(), time.process_time()
        try:
            return solve(space, progress)
        finally:
            wall["edge-free"] += time.perf_counter() - t
            cpu["edge-free"] += time.process_time() - c
            calls["edge-free"] += 1

    engine._edge_free = edge_free
    from tbdb.cli.run import main as cli
    try:
        code = cli(argv)
    except SystemExit as exit:
        code = exit.code
    print(machine_line())
    print(f"{'phase':<24} {'wall s':>9} {'cpu s':>9} {'calls':>7} {'first s':>8}")
    for label in sorted(wall, key=lambda k: -wall[k]):
        print(f"{label:<24} {wall[label]:>9.2f} {cpu[label]:>9.2f} {calls[label]:>7} "
              f"{first.get(label, 0.0):>8.2f}")
    return int(code or 0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
