"""A slow, obviously correct reference for Chinese Checkers with 2, 3, 4 or 6 players on the
small stars (issue 63; the rules: docs/rules/chinese_checkers.md, "The small stars"), written
from the rules alone, sharing no code with tbdb:

- the star of size k from cube coordinates, numbered as tbdb numbers it (row by row from the top
  tip, left to right), its six points and the seats;
- the moves, with the resting rule (a marble stops only in the central hexagon or on its own
  start or goal point; a hop chain may pass through any point), the pass of a player with no
  move, and the end (all of a player's marbles on its goal point);
- every position reachable from the start, by breadth-first search;
- the coalition value of each for each lone player L, by plain level-by-level retrograde
  analysis: L's turns take the best for L, every other player's the worst for L.

A position is ``(cells, mover)``: ``cells`` a tuple with 0 (empty) or the player 1..n on each
cell, ``mover`` 1..n.  A value for L is ``(+1, d)`` (L forces its own win in d plies), ``(-1, d)``
(the coalition forces a win of one of its members in d plies) or ``(0, 0)`` (neither).
"""
from __future__ import annotations

from collections import deque
from math import comb, factorial
from itertools import product

DIRECTIONS = ((-1, 0, 1), (1, 0, -1), (-1, 1, 0), (0, 1, -1), (0, -1, 1), (1, -1, 0))
SEATS = {2: (0, 3), 3: (0, 2, 4), 4: (0, 1, 3, 4), 6: (0, 1, 2, 3, 4, 5)}  # points, clockwise


class Star:
    """The star of size k (13, 37, 73, 121 holes for k = 1..4) and the seats of n players."""

    def __init__(self, k: int, players: int):
        self.k, self.players = k, players
        self.coords = [(x, y, -x - y) for y in range(2 * k, -2 * k - 1, -1)
                       for x in range(-2 * k, 2 * k + 1)
                       if max(x, y, -x - y) <= k or min(x, y, -x - y) >= -k]
        self.where = {c: i for i, c in enumerate(self.coords)}
        self.cells = len(self.coords)
        self.point = [self._point(c) for c in self.coords]
        seats = SEATS[players]
        # per player 1..n: its start point, goal point and the cells it may rest on
        self.start_point = {p + 1: s for p, s in enumerate(seats)}
        self.goal_point = {p + 1: (s + 3) % 6 for p, s in enumerate(seats)}
        self.rest = {p: {i for i, q in enumerate(self.point)
                         if q == -1 or q == self.start_point[p] or q == self.goal_point[p]}
                     for p in range(1, players + 1)}
        self.goal = {p: {i for i, q in enumerate(self.point) if q == self.goal_point[p]}
                     for p in range(1, players + 1)}

    def _point(self, c) -> int:
        x, y, z = c
        k = self.k
        for p, inside in enumerate((y > k, z < -k, x > k, y < -k, z > k, x < -k)):
            if inside:
                return p
        return -1

    def step(self, i: int, d: int) -> int | None:
        x, y, z = self.coords[i]
        dx, dy, dz = DIRECTIONS[d]
        return self.where.get((x + dx, y + dy, z + dz))

    def start(self, marbles: int) -> tuple:
        """Each player's marbles on its start point, tip first (the cells farthest from the
        centre), then by cell number."""
        cells = [0] * self.cells
        for p in range(1, self.players + 1):
            own = [i for i, q in enumerate(self.point) if q == self.start_point[p]]
            own.sort(key=lambda i: (-max(map(abs, self.coords[i])), i))
            for i in own[:marbles]:
                cells[i] = p
        return tuple(cells)


def moves(star: Star, cells: tuple, mover: int) -> list[tuple[int, int]]:
    """The (from, to) pairs of the mover: a step to an adjacent empty cell, or a chain of hops
    over one adjacent marble onto the empty cell behind it (the origin counts as empty), ending
    on a cell the mover may rest on; sorted."""
    out = set()
    for s in range(star.cells):
        if cells[s] != mover:
            continue
        board = list(cells)
        board[s] = 0
        for d in range(6):
            t = star.step(s, d)
            if t is not None and board[t] == 0 and t in star.rest[mover]:
                out.add((s, t))
        seen, todo = {s}, [s]
        while todo:
            u = todo.pop()
            for d in range(6):
                over = star.step(u, d)
                land = star.step(over, d) if over is not None else None
                if land is None or board[over] == 0 or board[land] != 0 or land in seen:
                    continue
                seen.add(land)
                todo.append(land)
                if land in star.rest[mover]:
                    out.add((s, land))
    return sorted(out)


def has_won(star: Star, cells: tuple, player: int) -> bool:
    own = [i for i, c in enumerate(cells) if c == player]
    return bool(own) and all(i in star.goal[player] for i in own)


def previous(star: Star, mover: int) -> int:
    return (mover - 2) % star.players + 1


def status(star: Star, cells: tuple, mover: int) -> str | int:
    """'illegal' (a player other than the last to move has won), the winner (the last to move
    has won: the game is over), or 'play'."""
    last = previous(star, mover)
    for p in range(1, star.players + 1):
        if p != last and has_won(star, cells, p):
            return "illegal"
    return last if has_won(star, cells, last) else "play"


def children(star: Star, cells: tuple, mover: int) -> list[tuple[tuple, int]]:
    """The positions after each move of the mover (its pass if it has none); none once the game
    is over."""
    if status(star, cells, mover) != "play":
        return []
    nxt = mover % star.players + 1
    out = []
    for s, t in moves(star, cells, mover):
        board = list(cells)
        board[s], board[t] = 0, mover
        out.append((tuple(board), nxt))
    return out or [(cells, nxt)]


def reachable(star: Star, marbles: int) -> list[tuple[tuple, int]]:
    """Every position reachable from the start (player 1 to move), in breadth-first order."""
    first = (star.start(marbles), 1)
    seen, order, todo = {first}, [first], deque([first])
    while todo:
        for c in children(star, *todo.popleft()):
            if c not in seen:
                seen.add(c)
                order.append(c)
                todo.append(c)
    return order


def coalition_values(star: Star, positions: list, lone: int) -> dict:
    """The value for lone player ``lone`` of every position of ``positions`` (closed under
    moves), level by level: at level n a position is decided from its children decided before
    n (its side's quickest win, or, when every child is a win of the other side, the longest)."""
    kids = {p: children(star, *p) for p in positions}
    value = {}
    for p in positions:
        st = status(star, *p)
        if st not in ("play", "illegal"):
            value[p] = (1 if st == lone else -1, 0)
    n = 0
    while True:
        n += 1
        decided = {}
        for p in positions:
            if p in value:
                continue
            ours = 1 if p[1] == lone else -1  # the side to move: L, or the coalition
            got = [value.get(c) for c in kids[p]]
            wins = [d for v in got if v is not None for r, d in [v] if r == ours]
            if wins and min(wins) == n - 1:
                decided[p] = (ours, n)
            elif all(v is not None and v[0] == -ours for v in got) and \
                    max(v[1] for v in got) == n - 1:
                decided[p] = (-ours, n)
        if not decided:
            break
        value.update(decided)
    return {p: value.get(p, (0, 0)) for p in positions}


def placements(holes: int, players: int, marbles: int) -> int:
    """Placements the resting rule allows, counted by brute force (small stars only)."""
    star = Star({13: 1, 37: 2, 73: 3, 121: 4}[holes], players)
    count = 0

    def place(p: int, used: frozenset, first: int, left: int) -> None:
        nonlocal count
        if p > players:
            count += 1
            return
        if left == 0:
            place(p + 1, used, 0, marbles)
            return
        for i in range(first, star.cells):
            if i not in used and i in star.rest[p]:
                place(p, used | {i}, i + 1, left - 1)
    place(1, frozenset(), 0, marbles)
    return count


def placements_by_formula(k: int, players: int, marbles: int) -> int:
    """The same count in closed form, for seats whose every point is one player's alone (3
    players): the marbles each player keeps on its two points, times their arrangements in the
    centre (3k^2 + 3k + 1 cells)."""
    assert players == 3
    centre, private = 3 * k * k + 3 * k + 1, k * (k + 1)
    total = 0
    for inside in product(range(marbles + 1), repeat=players):
        s = sum(inside)
        if s > centre:
            continue
        ways = factorial(centre) // factorial(centre - s)
        for a in inside:
            ways = ways // factorial(a) * comb(private, marbles - a)
        total += ways
    return total
