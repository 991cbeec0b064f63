"""What Oware books are worth to a search: an alpha-beta player with a fixed node budget per
move, with and without the books probed inside its search, in matches from random openings.

    tbdb build oware --max-seeds 12 --db oware.duckdb
    nice -n 10 python benchmarks/oware_search.py --db oware.duckdb            # 400 games a match
    python benchmarks/oware_search.py --db oware.duckdb --games 40 --nodes 2000   # a quick look

The player: negamax alpha-beta on the net number of seeds still to be gained (the books' own
value: captures minus the opponent's captures, with the 200-ply limit), iterative deepening
until its node budget per move is spent (the last finished depth's move is played), captures
ordered first and the previous depth's best move first at the root; a leaf counts nothing
more (a pure material search).  The probing player, at any node holding at most N seeds, reads
the exact value for the plies left from the book instead of searching (at the root it plays the
book's move); the other player searches everywhere.  Both count a node per position visited,
probes included, so each spends the same budget.

Each match plays every random opening (``--opening-plies`` random moves from the start,
seeded) twice, colours swapped.  Scores are for the probing player (1 a win, 0.5 a draw: equal
captures at the end), with a 95% interval.  The search and the probes are Numba kernels over
the books' runs arrays, as an engine in C would read a probe file; the same seed gives the same
games.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time

import numpy as np
from numba import njit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from search_common import Match, print_table  # noqa: E402

from tbdb.solvers.lookup import run_value  # noqa: E402
from tbdb.solvers.oware.index import rank  # noqa: E402
from tbdb.solvers.oware.moves import flip, sow  # noqa: E402

MAX_T = 200        # plies in a game of Oware under tbdb's rules (docs/rules/oware.md)
MAX_PLY = 64       # search depth at most
INF = 1 << 20


@njit(cache=False)  # a recursive kernel read back from the cache crashes (numba 0.68)
def _value(stack, kids, caps, order, ply, t, depth, alpha, beta, probe_max, base, offsets,
           start, score, move, stats, budget):
    """Net seeds the mover of ``stack[ply]`` gains with ``t`` plies left, searched ``depth``
    plies (0 beyond); stats: nodes, probes, aborted (the budget ran out: the value is void)."""
    stats[0] += 1
    if stats[0] > budget:
        stats[2] = 1
        return 0
    if t == 0:
        return 0
    board = stack[ply]
    seeds = 0
    for i in range(12):
        seeds += board[i]
    if seeds <= probe_max:
        stats[1] += 1
        s, m = run_value(offsets, start, score, move, base[seeds] + rank(board), t)
        return np.int64(s)
    # the moves, captures first (insertion sort of six)
    n = 0
    for h in range(6):
        c = sow(board, h, kids[ply, h])
        if c >= 0:
            j = n
            while j > 0 and caps[ply, order[ply, j - 1]] < c:
                order[ply, j] = order[ply, j - 1]
                j -= 1
            order[ply, j] = h
            caps[ply, h] = c
            n += 1
    if n == 0:  # no legal move: the mover takes the seeds on its side
        own = 0
        for i in range(6):
            own += board[i]
        return np.int64(own)
    if depth == 0:
        return np.int64(0)
    best = -INF
    for k in range(n):
        h = order[ply, k]
        flip(kids[ply, h], stack[ply + 1])
        # v = captured - (the child's value): the child's window is (c - beta, c - alpha)
        c = caps[ply, h]
        v = c - _value(stack, kids, caps, order, ply + 1, t - 1, depth - 1,
                       c - beta, c - (alpha if alpha > best else best),
                       probe_max, base, offsets, start, score, move, stats, budget)
        if stats[2]:
            return 0
        if v > best:
            best = v
            if best >= beta:
                return best
    return best


@njit(cache=False)  # a recursive kernel read back from the cache crashes (numba 0.68)
def choose(board, t, budget, probe_max, base, offsets, start, score, move, stats):
    """(house, value, depth reached, from the book) for the mover of ``board`` with ``t``
    plies left (at least one legal move)."""
    stack = np.zeros((MAX_PLY + 2, 12), np.int8)
    kids = np.zeros((MAX_PLY + 1, 6, 12), np.int8)
    caps = np.zeros((MAX_PLY + 1, 6), np.int64)
    order = np.zeros((MAX_PLY + 1, 6), np.int64)
    stack[0] = board
    seeds = 0
    for i in range(12):
        seeds += board[i]
    if seeds <= probe_max:
        stats[0] += 1
        stats[1] += 1
        s, m = run_value(offsets, start, score, move, base[seeds] + rank(board), t)
        return np.int64(m), np.int64(s), 0, True
    n = 0
    root = np.empty(6, np.int64)
    rcap = np.empty(6, np.int64)
    for h in range(6):
        c = sow(board, h, kids[0, h])
        if c >= 0:
            j = n
            while j > 0 and rcap[j - 1] < c:
                root[j] = root[j - 1]
                rcap[j] = rcap[j - 1]
                j -= 1
            root[j] = h
            rcap[j] = c
            n += 1
    best_move = root[0]
    best_value = np.int64(0)
    reached = 0
    limit = min(t, MAX_PLY)
    for depth in range(1, limit + 1):
        stats[2] = 0
        alpha = -INF
        it_move = root[0]
        for k in range(n):
            h = root[k]
            flip(kids[0, h], stack[1])
            v = rcap[k] - _value(stack, kids, caps, order, 1, t - 1, depth - 1, -INF,
                                 -alpha + rcap[k], probe_max, base, offsets, start, score,
                                 move, stats, budget)
            if stats[2]:
                break
            if v > alpha:
                alpha = v
                it_move = h
        if stats[2]:
            break
        best_move, best_value, reached = it_move, alpha, depth
        # the best move first at the next depth
        for k in range(n):
            if root[k] == it_move:
                c = rcap[k]
                for j in range(k, 0, -1):
                    root[j] = root[j - 1]
                    rcap[j] = rcap[j - 1]
                root[0] = it_move
                rcap[0] = c
                break
    return best_move, best_value, reached, False


class Books:
    """The runs of books 0..N, concatenated so one kernel probes any of them: position ``idx``
    of book ``n`` is global position ``base[n] + idx``."""

    def __init__(self, tb, max_seeds: int):
        from tbdb import games
        from tbdb.games.oware.tables import table_name
        g = games.get("oware")
        offsets, start, score, move = [np.zeros(1, np.int64)], [], [], []
        base = np.zeros(max_seeds + 2, np.int64)
        runs_so_far = 0
        for n in range(max_seeds + 1):
            t = tb.prober.table(g, table_name(n), f"book {n}", full=True)
            r = t.runs
            base[n + 1] = base[n] + len(r.offsets) - 1
            offsets.append(np.asarray(r.offsets[1:], np.int64) + runs_so_far)
            runs_so_far += int(r.offsets[-1])
            start.append(np.asarray(r.start, np.int16))
            score.append(np.asarray(r.score, np.int16))
            move.append(np.asarray(r.move, np.int32))
        self.base = base
        self.offsets = np.concatenate(offsets)
        self.start = np.concatenate(start)
        self.score = np.concatenate(score)
        self.move = np.concatenate(move)
        self.max_seeds = max_seeds

    def arrays(self):
        return self.base, self.offsets, self.start, self.score, self.move


def openings(rng: random.Random, count: int, plies: int) -> list[tuple[np.ndarray, list[int]]]:
    """``count`` random openings: (board seen by the side to move, captures of the first and
    second player so far)."""
    out = []
    while len(out) < count:
        board = np.full(12, 4, np.int8)
        caps = [0, 0]
        tmp = np.empty(12, np.int8)
        ok = True
        for ply in range(plies):
            legal = [h for h in range(6) if sow(board, h, tmp) >= 0]
            if not legal:
                ok = False
                break
            h = rng.choice(legal)
            caps[ply % 2] += int(sow(board, h, tmp))
            nxt = np.empty(12, np.int8)
            flip(tmp, nxt)
            board = nxt
        if ok:
            out.append((board, caps))
    return out


def play(board, caps, plies_done, players, arrays, budget, match: Match) -> float:
    """One game from an opening; ``players[i]`` (the probe limit, -1 for none, and its side
    name) moves when ``(plies_done + k) % 2 == i``.  The score of the probing player."""
    board = board.copy()
    caps = list(caps)  # by who moved first in the game
    t = MAX_T - plies_done
    mover = plies_done % 2
    tmp = np.empty(12, np.int8)
    stats = np.zeros(3, np.int64)
    while t > 0:
        if all(sow(board, h, tmp) < 0 for h in range(6)):
            caps[mover] += int(board[:6].sum())
            break
        probe_max, side = players[mover]
        stats[:] = 0
        t0 = time.perf_counter()
        house, _, _, from_book = choose(board, t, budget, probe_max, *arrays, stats)
        match.seconds[side] += time.perf_counter() - t0
        match.nodes[side] += int(stats[0])
        match.moves[side] += 1
        if side == "with":
            match.probes += int(stats[1])
            match.table_moves += int(from_book)
        got = sow(board, int(house), tmp)
        assert got >= 0, (board, house)
        caps[mover] += int(got)
        flip(tmp, board)
        mover ^= 1
        t -= 1
    prober = 0 if players[0][1] == "with" else 1
    diff = caps[prober] - caps[1 - prober]
    return 1.0 if diff > 0 else 0.5 if diff == 0 else 0.0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", required=True, help="a database (or probe-file directory) with the "
                                                "Oware books up to the largest --probe-seeds")
    ap.add_argument("--games", type=int, default=400, help="games a match (even: each opening "
                                                          "twice, colours swapped)")
    ap.add_argument("--nodes", type=int, default=4000, help="node budget per move")
    ap.add_argument("--probe-seeds", type=int, nargs="+", default=[9, 12],
                    help="probe the books at positions of at most N seeds (one match each)")
    ap.add_argument("--opening-plies", type=int, default=8, help="random plies from the start")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true", help="one JSON object per match")
    args = ap.parse_args(argv)
    import tbdb
    from run import machine_line

    tb = tbdb.open(args.db)
    books = Books(tb, max(args.probe_seeds))
    arrays = books.arrays()
    rng = random.Random(args.seed)
    starts = openings(rng, args.games // 2, args.opening_plies)
    # compile outside the clock
    choose(starts[0][0], MAX_T, 10, max(args.probe_seeds), *arrays, np.zeros(3, np.int64))
    matches = []
    wall = time.perf_counter()
    for n in args.probe_seeds:
        match = Match(f"books <= {n} seeds vs none")
        for board, caps in starts:
            for prober_first in (True, False):
                players = [(n, "with"), (-1, "without")]
                if not prober_first:
                    players.reverse()
                match.scores.append(play(board, caps, args.opening_plies, players, arrays,
                                         args.nodes, match))
        matches.append(match)
        if args.json:
            print(json.dumps({**match.to_dict(), "nodes_budget": args.nodes}))
    wall = time.perf_counter() - wall
    if not args.json:
        print(f"Oware: {args.games} games a match from {args.games // 2} random openings "
              f"({args.opening_plies} plies, seed {args.seed}), colours swapped; "
              f"{args.nodes:,} nodes a move; {wall:.0f} s")
        print_table(matches)
        print(machine_line() + f"; load {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
