"""The small stars' coalition solve (issue 63): the one-byte, every-core solve
(``solvers/chinese_checkers/star_compact.py``) beside the plain one (``star_solve.py``, two bytes
of value and distance and one of counter a slot, one thread), in one run.

    python benchmarks/cc_star_solve.py                    # 37-2-2, 37-4-1, 37-3-2
    python benchmarks/cc_star_solve.py --configs 37-6-1   # any HOLES-PLAYERS-MARBLES
    python benchmarks/cc_star_solve.py --plain-limit 0    # the compact solve alone

Each configuration runs in its own process (its peak RSS its own): lone player 1, the tables
made and every kernel compiled on the 13-hole star first, outside the clock.  The plain solve
runs only up to ``--plain-limit`` slots (37-3-2's 55M take it about four minutes) and its values
must be the compact solve's, slot by slot.  Columns: slots (placements times players to move),
the compact solve's first pass (every slot's first state) and back-up levels, its time per slot
(CPU: both threads), the plain solve's time, their ratio, and each one's peak memory.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import machine_line  # noqa: E402

DEFAULT = ["37-2-2", "37-4-1", "37-3-2"]


def _child(config: str, plain: bool) -> dict:
    import numpy as np
    from tbdb.games.chinese_checkers.star_build import solve_compact, unpack
    from tbdb.games.chinese_checkers.stars import StarSpace
    from tbdb.solvers.chinese_checkers import star_compact

    solve_compact(StarSpace(13, 3, 1), 1)
    if plain:
        StarSpace(13, 3, 1).solve(1)
    holes, players, marbles = map(int, config.split("-"))
    space = StarSpace(holes, players, marbles)
    tables, unrank = space.compact_tables, space.unrank_tables
    slots = space.placements * players
    cpu0, t0 = time.process_time(), time.perf_counter()
    state = np.empty(slots, np.uint8)
    star_compact.init_states(1, players, space.placements, star_compact.COUNT_CAP, tables,
                             unrank, state)
    t_init = time.perf_counter() - t0
    level = 0
    while star_compact.back_up_level(1, players, level, tables, unrank, state)[0]:
        level += 1
    out = {"config": config, "slots": slots, "init": t_init,
           "compact": time.perf_counter() - t0, "cpu": time.process_time() - cpu0,
           "levels": level, "peak_compact": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}
    result, distance = unpack(state)
    del state
    out["draws"] = int((result == 0).sum())
    out["longest"] = int(distance.max())
    if plain:
        t0 = time.perf_counter()
        want = space.solve(1)
        out["plain"] = time.perf_counter() - t0
        out["same"] = bool(np.array_equal(want[0], result) and np.array_equal(want[1], distance))
        out["peak_plain"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--configs", nargs="+", default=DEFAULT, metavar="HOLES-PLAYERS-MARBLES")
    ap.add_argument("--plain-limit", type=float, default=6e7,
                    help="run the plain solve beside it up to this many slots")
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(_child(args.child[0], args.child[1] == "1")))
        return
    from tbdb.games.chinese_checkers.stars import StarSpace
    print(machine_line() + f"; load {os.getloadavg()[0]:.1f}")
    print("| star | slots | compact: first pass | total | CPU us/slot | levels | plain "
          "| plain / compact | peak compact | peak plain | draws | longest (plies) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for config in args.configs:
        holes, players, marbles = map(int, config.split("-"))
        plain = StarSpace(holes, players, marbles).placements * players <= args.plain_limit
        run = subprocess.run([sys.executable, __file__, "--child", config, str(int(plain))],
                             capture_output=True, text=True, check=True)
        r = json.loads(run.stdout.splitlines()[-1])
        if plain and not r["same"]:
            raise SystemExit(f"{config}: the compact solve's values differ from the plain's")
        gib = 2**20  # ru_maxrss is in KiB
        cells = [config, f"{r['slots']:,}", f"{r['init']:.1f} s", f"{r['compact']:.1f} s",
                 f"{r['cpu'] / r['slots'] * 1e6:.2f}", str(r["levels"])]
        cells += ([f"{r['plain']:.1f} s", f"{r['plain'] / r['compact']:.1f}x"] if plain
                  else ["-", "-"])
        cells += [f"{r['peak_compact'] / gib:.2f} GiB",
                  f"{r['peak_plain'] / gib:.2f} GiB" if plain else "-",
                  f"{r['draws']:,}", str(r["longest"])]
        print("| " + " | ".join(cells) + " |", flush=True)

if __name__ == "__main__":
    main()
