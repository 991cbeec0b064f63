"""A multi-player engine's search with and without the coalition table (issue 63, item 4): the
seed engine's pessimistic search, paranoid alpha-beta (the player to choose assumes every other
player plays against it) with the distance-to-goal heuristic, playing three-player games on the
37-hole star from random midgame positions, at equal time per move.

    python benchmarks/cc_star_paranoid.py --db star37.duckdb        # builds star37 3x2 if missing
    python benchmarks/cc_star_paranoid.py --db D --games 30 --ms 30

The table is the 37-hole star with three players of two marbles each (``tbdb build
chinese-checkers --board star37 --players 3 --pieces 2``, about 80 s): every position of those
games is in it.  Three ways to use it: at the search's leaves, in place of the heuristic
wherever the table says a side forces a win against the root player's coalition of opponents
(the paranoid value itself; a draw keeps the heuristic); at the leaves, only where the root
player or another single player forces its own win; at the root only, playing the table's move
where the mover forces its own win and else searching only the moves after which no other
player forces its own win.  For each start position and way, three games are played with one
engine using the table (in each seat in turn) against two that do not, and one game of three
plain engines (a seat's share without any table).  Columns:
games, wins of the engine in the seats it held, draws (150 plies without a winner), and each
kind of engine's nodes and table probes per move.
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import machine_line  # noqa: E402

GAME = "chinese-checkers"
HOLES, PLAYERS, MARBLES = 37, 3, 2
WIN = 10_000
MAX_PLIES = 150


class OutOfTime(Exception):
    pass


class Engine:
    """Paranoid alpha-beta by iterative deepening within ``seconds`` a move; ``tb``: a
    tablebase probed at the leaves (None: the heuristic alone); ``others``: also ask whether
    another player forces its own win as the lone player (then the leaf is lost)."""

    def __init__(self, seconds: float, tb=None, others: bool = False, root: bool = False):
        self.seconds, self.tb, self.others, self.root = seconds, tb, others, root
        self.nodes = self.probes = self.moves = 0
        self.goal_distance = _goal_distances()

    def heuristic(self, pos, root: int) -> int:
        """The others' mean distance to their goals minus the root player's (in steps)."""
        d = [0] * (PLAYERS + 1)
        for c, p in enumerate(pos.cells):
            if p:
                d[p] += self.goal_distance[p][c]
        others = sum(d[1:]) - d[root]
        return 10 * others // (PLAYERS - 1) - 10 * d[root]

    def own_win(self, pos, lone: int) -> int | None:
        """The plies in which ``lone`` forces its own win against all the others, or None."""
        self.probes += 1
        r = self.tb.lookup(pos, game=GAME, lone=lone)
        lone_wins = r.outcome != "draw" and (r.outcome == "win") == (pos.mover == lone)
        return r.distance if lone_wins else None

    def leaf(self, pos, root: int) -> int:
        if self.tb is None or self.root:
            return self.heuristic(pos, root)
        if not self.others:  # the paranoid value itself: the coalition's wins count as lost
            self.probes += 1
            r = self.tb.lookup(pos, game=GAME, lone=root)
            if r.outcome != "draw":
                lone_wins = (r.outcome == "win") == (pos.mover == root)
                return WIN - r.distance if lone_wins else -WIN + r.distance
            return self.heuristic(pos, root)
        d = self.own_win(pos, root)
        if d is not None:
            return WIN - d
        for q in range(1, PLAYERS + 1):  # another player wins whatever the rest do
            if q != root and (d := self.own_win(pos, q)) is not None:
                return -WIN + d
        return self.heuristic(pos, root)

    def search(self, pos, depth: int, alpha: int, beta: int, root: int, ply: int) -> int:
        self.nodes += 1
        if self.nodes % 256 == 0 and time.perf_counter() > self.deadline:
            raise OutOfTime
        if pos.status == "over":
            return WIN - ply if pos.last == root else -WIN + ply
        if depth == 0:
            return self.leaf(pos, root)
        children = [pos.after_pair(s, t) for s, t in pos.pairs]
        mine = pos.mover == root
        children.sort(key=lambda c: self.heuristic(c, pos.mover), reverse=True)
        if mine:
            best = -WIN * 2
            for c in children:
                best = max(best, self.search(c, depth - 1, alpha, beta, root, ply + 1))
                alpha = max(alpha, best)
                if alpha >= beta:
                    break
            return best
        best = WIN * 2
        for c in children:
            best = min(best, self.search(c, depth - 1, alpha, beta, root, ply + 1))
            beta = min(beta, best)
            if alpha >= beta:
                break
        return best

    def root_moves(self, pos) -> list:
        """With the table at the root: the table's best move where the mover forces its own
        win, else the moves after which no other player forces its own win (all of them if
        every move lets one)."""
        me = pos.mover
        if self.own_win(pos, me) is not None:
            best = self.tb.lookup(pos, game=GAME, lone=me).best_move
            return [next(p for p in pos.pairs if str(pos.move_of(*p)) == best)]
        safe = [p for p in pos.pairs
                if not any(self.own_win(pos.after_pair(*p), q) is not None
                           for q in range(1, PLAYERS + 1) if q != me)]
        return safe or pos.pairs

    def choose(self, pos):
        """The move (from, to) to play, deepening until the time is up."""
        self.moves += 1
        self.deadline = time.perf_counter() + self.seconds
        pairs = self.root_moves(pos) if self.root and self.tb is not None else pos.pairs
        if len(pairs) == 1:
            return pairs[0]
        best = pairs[0]
        order = list(pairs)
        root = pos.mover
        try:
            for depth in range(1, 64):
                scored = []
                alpha = -WIN * 2
                for pair in order:
                    v = self.search(pos.after_pair(*pair), depth - 1, alpha, WIN * 2, root, 1)
                    scored.append((v, pair))
                    alpha = max(alpha, v)
                scored.sort(key=lambda x: -x[0])
                best, order = scored[0][1], [p for _, p in scored]
                if scored[0][0] >= WIN - 64:  # a forced win found: no deeper search needed
                    break
        except OutOfTime:
            pass
        return best


def _goal_distances() -> list[list[int]]:
    """Per player, each cell's hex distance to the tip of its goal point."""
    from tbdb.games.chinese_checkers.stars import SEATS
    from tbdb.solvers.chinese_checkers.geometry import STAR_SIZES, star
    geo = star(STAR_SIZES[HOLES])
    out = [[0] * geo.cells]
    for seat in SEATS[PLAYERS]:
        goal = geo.point_cells((seat + 3) % 6).tolist()
        tip = max(goal, key=lambda c: sum(abs(v) for v in geo.coords[c]))
        tx, ty, tz = geo.coords[tip]
        out.append([max(abs(x - tx), abs(y - ty), abs(z - tz)) for x, y, z in geo.coords])
    return out


def _midgame(rng: random.Random):
    """Two marbles of each player on the outer cells of its start point, then 6 to 12 random
    plies; again if the game is over by then."""
    from tbdb.games.chinese_checkers.small_star import SmallStarPosition
    from tbdb.games.chinese_checkers.stars import SEATS
    from tbdb.solvers.chinese_checkers.geometry import STAR_SIZES, star
    geo = star(STAR_SIZES[HOLES])
    while True:
        cells = [0] * geo.cells
        for p, seat in enumerate(SEATS[PLAYERS], 1):
            own = sorted(geo.point_cells(seat).tolist(),
                         key=lambda c: -sum(abs(v) for v in geo.coords[c]))
            for c in own[:MARBLES]:
                cells[c] = p
        pos = SmallStarPosition(HOLES, PLAYERS, tuple(cells), 1)
        for _ in range(rng.randint(6, 12)):
            if pos.status != "playing":
                break
            pos = pos.after_pair(*rng.choice(pos.pairs))
        if pos.status == "playing":
            return pos


def play(start, engines) -> int:
    """The winner (0: none within MAX_PLIES) of the game from ``start``, engines[p - 1] moving
    for player p."""
    pos = start
    for _ in range(MAX_PLIES):
        if pos.status == "over":
            return pos.last
        pos = pos.after_pair(*engines[pos.mover - 1].choose(pos))
    return pos.last if pos.status == "over" else 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--probe-files", default="star37-3x2",
                    help="the table's probe files (built there when missing)")
    ap.add_argument("--games", type=int, default=20, help="start positions")
    ap.add_argument("--ms", type=float, default=20.0, help="milliseconds a move")
    ap.add_argument("--seed", type=int, default=63)
    args = ap.parse_args()
    import tbdb
    tbdb.build(GAME, probe_files=args.probe_files, progress=False, board=f"star{HOLES}",
               players=PLAYERS, pieces=MARBLES)
    rng = random.Random(args.seed)
    seconds = args.ms / 1000
    with tbdb.open(args.probe_files) as tb:
        tb.lookup(_midgame(rng), game=GAME, lone=1)  # the table read and kernels loaded
        kinds = {"leaves: own value": (False, False), "leaves: + others' own wins": (True, False),
                 "root: own win, others' wins": (False, True)}
        rows = {k: {"games": 0, "wins": 0, "draws": 0, "engines": []} for k in kinds}
        plain = {"games": 0, "wins": 0, "draws": 0, "engines": []}
        t0 = time.perf_counter()
        for _ in range(args.games):
            start = _midgame(rng)
            for kind, (others, at_root) in kinds.items():
                row = rows[kind]
                for seat in range(1, PLAYERS + 1):
                    engines = [Engine(seconds, tb if p == seat else None, others, at_root)
                               for p in range(1, PLAYERS + 1)]
                    winner = play(start, engines)
                    row["engines"].append(engines[seat - 1])
                    plain["engines"] += [e for p, e in enumerate(engines, 1) if p != seat]
                    row["games"] += 1
                    row["wins"] += winner == seat
                    row["draws"] += winner == 0
            engines = [Engine(seconds) for _ in range(PLAYERS)]
            winner = play(start, engines)
            plain["engines"] += engines
            for seat in range(1, PLAYERS + 1):  # each seat's share without any table
                plain["games"] += 1
                plain["wins"] += winner == seat
                plain["draws"] += winner == 0
        elapsed = time.perf_counter() - t0

    def per_move(engines, what):
        moves = sum(e.moves for e in engines)
        return sum(getattr(e, what) for e in engines) / max(moves, 1)

    print(machine_line())
    print(f"star{HOLES}, {PLAYERS} players of {MARBLES} marbles; {args.games} random midgame "
          f"starts, {args.ms:g} ms a move, paranoid alpha-beta ({elapsed:.0f} s)")
    print(f"{'engine':28} {'games':>6} {'wins':>6} {'win rate':>9} {'draws':>6} "
          f"{'nodes/move':>11} {'probes/move':>12}")
    for label, row in list(rows.items()) + [("plain engines only", plain)]:
        rate = row["wins"] / max(row["games"], 1)
        print(f"{label:28} {row['games']:6} {row['wins']:6} {rate:9.1%} {row['draws']:6} "
              f"{per_move(row['engines'], 'nodes'):11.0f} "
              f"{per_move(row['engines'], 'probes'):12.0f}")

if __name__ == "__main__":
    main()
