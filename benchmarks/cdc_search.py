"""What the 2-4 piece Chinese Dark Chess tables are worth to a search: an alpha-beta player with
a fixed node budget per move, with and without the tables probed inside its search, in games
from random 5-piece positions.

    tbdb build cdc --max-pieces 4 --db cdc.duckdb
    nice -n 10 python benchmarks/cdc_search.py --db cdc.duckdb               # 400 games
    python benchmarks/cdc_search.py --db cdc.duckdb --games 40 --nodes 2000   # a quick look

The player: negamax alpha-beta, iterative deepening until its node budget per move is spent
(the last finished depth's move is played), captures first (the most valuable victim first) and
the previous depth's best move first at the root; a leaf is worth the material balance, a side
with no piece or no legal move has lost (mate scores: a win at ply p of the search, d plies
after it, is MATE - p - d).  The probing player reads any position of at most 4 pieces from the
tables instead of searching it (win: MATE - p - distance, loss: -MATE + p + distance, draw 0),
so at a root of 4 pieces it plays the table's fastest win or longest resistance.  Both count a
node per position visited, probes included.

Every random 5-piece position (a random material of 5 pieces, both sides present, pieces on
random squares, a random side to move, one that has a move) is played twice, colours swapped.
A game ends when the side to move has no piece or no legal move (it has lost) or after
``--max-plies`` plies (a draw: the tables' cycles are draws, and these players do not detect
repetitions).  Scores are for the probing player with a 95% interval; the same seed gives the
same games.
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

from tbdb.solvers.cdc.locate import POW6, locate_one  # noqa: E402
from tbdb.solvers.cdc.moves import CAPTURE_FLAG, moves_of_board  # noqa: E402

MATE = 100_000
INF = 1 << 30
MAX_PLY = 64
MAX_MOVES = 64
# material values, K G M R N C P (the general falls to a soldier; a cannon captures by jumping)
VALUE = np.array([100, 50, 25, 15, 10, 30, 8], np.int64)
PROBE_PIECES = 4


@njit(cache=True)
def _evaluate(board, side):
    v = 0
    for s in range(32):
        c = board[s]
        if c >= 0:
            if c // 7 == side:
                v += VALUE[c % 7]
            else:
                v -= VALUE[c % 7]
    return v


@njit(cache=True)
def _probe(board, side, keys, desc, swap, size, offset, result, distance, ply, stats):
    """The table value of ``board`` (at most 4 pieces, both sides present) as a search score
    for ``side`` to move at ``ply``."""
    key = np.int64(0)
    for s in range(32):
        if board[s] >= 0:
            key += POW6[board[s]]
    i = np.searchsorted(keys, key)
    slot, _ = locate_one(board, side, desc[i], swap[i], size[i])
    stats[1] += 1
    r = result[offset[i] + slot]
    d = np.int64(distance[offset[i] + slot])
    if r == 1:
        return MATE - ply - d
    if r == -1:
        return -MATE + ply + d
    return np.int64(0)


@njit(cache=True)
def _order(board, moves, n):
    """Captures first, the most valuable victim first (a stable insertion sort)."""
    for i in range(1, n):
        m = moves[i]
        key = VALUE[board[m % 32] % 7] if m >= CAPTURE_FLAG else -1
        j = i
        while j > 0:
            o = moves[j - 1]
            okey = VALUE[board[o % 32] % 7] if o >= CAPTURE_FLAG else -1
            if okey >= key:
                break
            moves[j] = o
            j -= 1
        moves[j] = m


@njit(cache=False)  # a recursive kernel read back from the cache crashes (numba 0.68)
def _value(boards, moves, ply, side, depth, alpha, beta, probe, keys, desc, swap, size,
           offset, result, distance, stats, budget):
    stats[0] += 1
    if stats[0] > budget:
        stats[2] = 1
        return np.int64(0)
    board = boards[ply]
    red = 0
    black = 0
    for s in range(32):
        if board[s] >= 0:
            if board[s] < 7:
                red += 1
            else:
                black += 1
    if (red if side == 0 else black) == 0:
        return np.int64(-MATE + ply)
    n = moves_of_board(board, side, moves[ply])
    if n == 0:
        return np.int64(-MATE + ply)
    if probe and red + black <= PROBE_PIECES:
        return _probe(board, side, keys, desc, swap, size, offset, result, distance, ply,
                      stats)
    if depth == 0 or ply >= MAX_PLY:
        return _evaluate(board, side)
    _order(board, moves[ply], n)
    best = np.int64(-INF)
    child = boards[ply + 1]
    for k in range(n):
        m = moves[ply, k]
        for s in range(32):
            child[s] = board[s]
        a = (m % CAPTURE_FLAG) // 32
        b = m % 32
        child[b] = child[a]
        child[a] = -1
        v = -_value(boards, moves, ply + 1, 1 - side, depth - 1, -beta,
                    -(alpha if alpha > best else best), probe, keys, desc, swap, size, offset,
                    result, distance, stats, budget)
        if stats[2]:
            return np.int64(0)
        if v > best:
            best = v
            if best >= beta:
                return best
    return best


@njit(cache=False)
def choose(board, side, budget, probe, keys, desc, swap, size, offset, result, distance,
           stats):
    """(move code, value, depth reached, from the tables) for ``side`` to move on ``board``
    (which has a legal move)."""
    boards = np.empty((MAX_PLY + 2, 32), np.int8)
    moves = np.empty((MAX_PLY + 1, MAX_MOVES), np.int64)
    boards[0] = board
    pieces = 0
    for s in range(32):
        if board[s] >= 0:
            pieces += 1
    n = moves_of_board(board, side, moves[0])
    _order(board, moves[0], n)
    root = moves[0, :n].copy()
    from_table = probe and pieces <= PROBE_PIECES
    best_move = root[0]
    best_value = np.int64(0)
    reached = 0
    for depth in range(1, MAX_PLY):
        stats[2] = 0
        alpha = np.int64(-INF)
        it_move = root[0]
        for k in range(n):
            m = root[k]
            child = boards[1]
            for s in range(32):
                child[s] = board[s]
            a = (m % CAPTURE_FLAG) // 32
            b = m % 32
            child[b] = child[a]
            child[a] = -1
            v = -_value(boards, moves, 1, 1 - side, depth - 1, -INF, -alpha, probe, keys,
                        desc, swap, size, offset, result, distance, stats, budget)
            if stats[2]:
                break
            if v > alpha:
                alpha = v
                it_move = m
        if stats[2]:
            break
        best_move, best_value, reached = it_move, alpha, depth
        if from_table:  # every child was read from a table: exact already
            break
        for k in range(n):
            if root[k] == it_move:
                for j in range(k, 0, -1):
                    root[j] = root[j - 1]
                root[0] = it_move
                break
    return best_move, best_value, reached, from_table


def _sub_materials(material, out: set) -> None:
    """Every material of 2+ pieces (both sides present) reachable by captures, canonical."""
    from tbdb.games.cdc.material import Material
    for colour in (0, 1):
        pieces = (material.red, material.black)[colour]
        for i in range(len(pieces)):
            rest = pieces[:i] + pieces[i + 1:]
            if not rest:
                continue
            m = Material(rest, material.black) if colour == 0 else Material(material.red, rest)
            cm, _ = m.canonical()
            if cm.name not in out:
                out.add(cm.name)
                _sub_materials(cm, out)


class Tables:
    """The tables of the materials given, for one kernel to probe: per orientation of each
    material (colours as on the board), its key (sum of 6 ** code), description, colour swap,
    size and where its values start in the concatenated ``result`` / ``distance``."""

    def __init__(self, tb, names: set[str]):
        from tbdb import games
        from tbdb.games.cdc.material import Material
        g = games.get("cdc")
        entries, results, distances, at = [], [], [], 0
        for name in sorted(names):
            t = tb.prober.table(g, name, f"table {name}", full=True)
            results.append(np.asarray(t.result, np.int8))
            distances.append(np.asarray(t.distance, np.int16))
            cm = Material.parse(name)
            for oriented in (cm, cm.swapped()):
                key = sum(6 ** c for c in oriented.codes)
                swap = int(oriented.canonical()[1])
                entries.append((key, cm.desc, swap, cm.size, at))
            at += len(t.result)
        dedup = {e[0]: e for e in entries}  # a symmetric material's two are one
        entries = [dedup[k] for k in sorted(dedup)]
        self.keys = np.array([e[0] for e in entries], np.int64)
        self.desc = np.stack([e[1] for e in entries]).astype(np.int64)
        self.swap = np.array([e[2] for e in entries], np.int64)
        self.size = np.array([e[3] for e in entries], np.int64)
        self.offset = np.array([e[4] for e in entries], np.int64)
        self.result = np.concatenate(results)
        self.distance = np.concatenate(distances)
        self.rows = at

    def arrays(self):
        return (self.keys, self.desc, self.swap, self.size, self.offset, self.result,
                self.distance)


def random_materials(rng: random.Random):
    from tbdb.games.cdc.material import MAX_PER_SIDE, Material
    while True:
        red = [t for t in range(7) for _ in range(MAX_PER_SIDE[t])]
        pool = [(0, t) for t in red] + [(1, t) for t in red]
        picked = rng.sample(pool, 5)
        r = tuple(sorted(t for c, t in picked if c == 0))
        b = tuple(sorted(t for c, t in picked if c == 1))
        if r and b:
            yield Material(r, b)


def random_positions(rng: random.Random, count: int):
    """``count`` (board, side to move, material) with a legal move for the side to move."""
    out = []
    materials = random_materials(rng)
    buf = np.empty(MAX_MOVES, np.int64)
    while len(out) < count:
        m = next(materials)
        board = np.full(32, -1, np.int8)
        for code, sq in zip(m.codes, rng.sample(range(32), 5)):
            board[sq] = code
        side = rng.randrange(2)
        if moves_of_board(board, side, buf) > 0:
            out.append((board, side, m))
    return out


def play(board, side, players, arrays, budget, max_plies, match: Match) -> float:
    """One game; ``players[colour]`` is (probes?, its name).  The probing player's score."""
    board = board.copy()
    stats = np.zeros(3, np.int64)
    buf = np.empty(MAX_MOVES, np.int64)
    prober = 0 if players[0][1] == "with" else 1
    for _ in range(max_plies):
        mine = sum(1 for c in board if c >= 0 and c // 7 == side)
        if mine == 0 or moves_of_board(board, side, buf) == 0:
            return 0.0 if side == prober else 1.0
        probe, name = players[side]
        stats[:] = 0
        t0 = time.perf_counter()
        move, _, _, from_table = choose(board, side, budget, probe, *arrays, stats)
        match.seconds[name] += time.perf_counter() - t0
        match.nodes[name] += int(stats[0])
        match.moves[name] += 1
        if probe:
            match.probes += int(stats[1])
            match.table_moves += int(from_table)
        a, b = (int(move) % CAPTURE_FLAG) // 32, int(move) % 32
        board[b] = board[a]
        board[a] = -1
        side ^= 1
    return 0.5


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", required=True, help="a database (or probe-file directory) with "
                                                "the CDC tables of 2 to 4 pieces")
    ap.add_argument("--games", type=int, default=400, help="games (even: each position twice, "
                                                          "colours swapped)")
    ap.add_argument("--nodes", type=int, default=5000, help="node budget per move")
    ap.add_argument("--max-plies", type=int, default=200, help="a draw after this many plies")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true", help="one JSON object")
    args = ap.parse_args(argv)
    import tbdb
    from run import machine_line

    rng = random.Random(args.seed)
    starts = random_positions(rng, args.games // 2)
    names: set[str] = set()
    for _, _, m in starts:
        _sub_materials(m, names)
    tb = tbdb.open(args.db)
    t0 = time.perf_counter()
    tables = Tables(tb, names)
    load_s = time.perf_counter() - t0
    arrays = tables.arrays()
    choose(starts[0][0], starts[0][1], 10, True, *arrays, np.zeros(3, np.int64))  # compile
    match = Match("2-4 piece tables vs none")
    wall = time.perf_counter()
    for board, side, _ in starts:
        for prober in (0, 1):
            players = [(True, "with"), (False, "without")]
            if prober == 1:
                players.reverse()
            match.scores.append(play(board, side, players, arrays, args.nodes, args.max_plies,
                                     match))
    wall = time.perf_counter() - wall
    if args.json:
        print(json.dumps({**match.to_dict(), "nodes_budget": args.nodes, "tables": len(names),
                          "rows": tables.rows}))
        return 0
    print(f"CDC: {args.games} games from {args.games // 2} random 5-piece positions (seed "
          f"{args.seed}), colours swapped, a draw after {args.max_plies} plies; "
          f"{args.nodes:,} nodes a move; {len(names)} tables ({tables.rows:,} rows) read in "
          f"{load_s:.1f} s; {wall:.0f} s of games")
    print_table([match])
    print(machine_line() + f"; load {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
