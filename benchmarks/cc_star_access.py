"""Where a backed-up slot's time goes in the small stars' one-byte solve, on a table of the
real size (issue 63: 37-3-3, 14.8 GB), one thread, steps added one at a time:

    python benchmarks/cc_star_access.py                  # 37-3-3: allocates 14.8 GB
    python benchmarks/cc_star_access.py --star 37-3-2 --slots 200000

1. unrank a random placement (``unrank_masks``);
2. + the cells player 1's marbles came from (``reach``, moves being reversible);
3. + every parent's slot (``moved_slots``: ``reach`` and ``rank_masks``), its byte prefetched;
4. + every parent's state byte, asked for at once (prefetch) then swapped (``cas_u8``), as
   ``back_up_level`` does: the table's layout today, where a parent lies anywhere;
5. the same number of bytes swapped, but each slot's parents inside one 8 KB span: what a layout
   with the moving player's marbles as the lowest digits would give (a parent differs from its
   child by one of the mover's marbles only).

The difference of 4 and 5 is what memory locality could save; 3 is the arithmetic.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import machine_line  # noqa: E402

from tbdb.games.chinese_checkers.stars import StarSpace  # noqa: E402
from tbdb.solvers.bits import cas_u8, low_bit  # noqa: E402
from tbdb.solvers.chinese_checkers import star_compact as sc  # noqa: E402
from tbdb.solvers.jit import kernel  # noqa: E402
from tbdb.solvers.prefetch import prefetch  # noqa: E402

ONE = np.uint64(1)
LINE = 7770  # C(37, 3): the placements of one player's three marbles, the others fixed
STEPS = ("unrank", "+ sources", "+ parents' slots (ranked, each byte prefetched)",
         "+ parents' bytes swapped (today's layout)",
         "the same, each slot's parents in one 8 KB span")


@kernel
def _walk(step, placements, n, tables, unrank_tables, state, buf, moved):
    (region_mask, region_size, region_players, region_np, cell_j, comp_id, offsets, binom,
     reach_step, hop_over, hop_land, rest, goal) = tables
    ranks = np.zeros(unrank_tables[1].shape[0], np.int64)
    masks = np.zeros(n + 1, np.uint64)
    spans = state.shape[0] // 8192 - 1
    empty = state[:0]  # step 4 asks for its own span's bytes, not the scattered ones
    acc = 0
    for pl in placements:
        occ = sc.unrank_masks(pl, n, region_mask, offsets, unrank_tables, ranks, masks)
        if step == 0:
            acc += occ & ONE
            continue
        if step == 1:
            w = masks[1]
            while w != 0:
                t = low_bit(w)
                w &= w - ONE
                acc += sc.reach(t, occ & ~(ONE << np.uint64(t)), rest[1], reach_step, hop_over,
                                hop_land) & ONE
            continue
        found = sc.moved_slots(masks, 1, occ, n, 1, tables, state if step < 4 else empty, buf,
                               moved)
        if step == 2:
            acc += buf[0]
            continue
        if step == 4:
            span = (pl * 40503) % spans * 8192
            for i in range(found):
                buf[i] = span + (buf[i] * 2654435761) % LINE
                prefetch(state, buf[i])
        for i in range(found):
            acc += cas_u8(state, buf[i], 1, 1)
    return acc


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--star", default="37-3-3", metavar="HOLES-PLAYERS-MARBLES")
    ap.add_argument("--slots", type=int, default=1_000_000, help="random placements a step")
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    holes, players, marbles = map(int, args.star.split("-"))
    space = StarSpace(holes, players, marbles)
    tables, unrank = space.compact_tables, space.unrank_tables
    state = np.ones(space.placements * players, np.uint8)
    picks = np.random.default_rng(5).integers(0, space.placements, args.slots)
    buf = np.zeros(marbles * space.geo.cells, np.int64)
    moved = np.zeros(marbles * space.geo.cells, np.int16)
    for step in range(len(STEPS)):  # compiled outside the clock
        _walk(step, picks[:10], players, tables, unrank, state, buf, moved)
    best = [float("inf")] * len(STEPS)
    for _ in range(args.rounds):  # the steps alternated, the best of each kept
        for step in range(len(STEPS)):
            t0 = time.perf_counter()
            _walk(step, picks, players, tables, unrank, state, buf, moved)
            best[step] = min(best[step], time.perf_counter() - t0)
    print(machine_line() + f"; load {os.getloadavg()[0]:.1f}")
    print(f"{args.star}: {len(state):,} slots ({len(state) / 2**30:.1f} GiB), "
          f"{args.slots:,} random placements, one thread, the best of {args.rounds} rounds")
    print("| step | ns a slot |")
    print("|---|---|")
    for name, t in zip(STEPS, best):
        print(f"| {name} | {t / args.slots * 1e9:.0f} |")


if __name__ == "__main__":
    main()
