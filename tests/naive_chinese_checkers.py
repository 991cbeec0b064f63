"""Slow, obviously correct Chinese Checkers references, written apart from the kernels.

The boards are built from their row lengths in the plane: a cell is (X, Y) with Y its row from
the top tip and X = 2 * (place in row) - (row length - 1), so neighbours are the six cells at
offsets (+-2, 0) and (+-1, +-1), and a hop over a neighbour lands at twice the offset.  Moves
enumerate every chain of hops explicitly (no cell visited twice).  Positions are plain tuples
(0 empty, player numbers otherwise); the solver walks all of them without any symmetry.
"""
from __future__ import annotations

from itertools import combinations

import numpy as np

OFFSETS = ((2, 0), (-2, 0), (1, 1), (-1, 1), (1, -1), (-1, -1))
START = {1: (0,), 2: (0, 1), 3: (0, 1, 2), 4: (0, 1, 2, 4), 6: (0, 1, 2, 3, 4, 5)}
STAR_ROWS = (1, 2, 3, 4, 13, 12, 11, 10, 9, 10, 11, 12, 13, 4, 3, 2, 1)
WIN, DRAW, LOSS, ILLEGAL = 1, 0, -1, -2


class Board:
    def __init__(self, row_lengths):
        self.xy = [(2 * i - (n - 1), y) for y, n in enumerate(row_lengths) for i in range(n)]
        self.at = {p: i for i, p in enumerate(self.xy)}
        self.size = len(self.xy)

    def step(self, cell, offset, times=1):
        x, y = self.xy[cell]
        return self.at.get((x + times * offset[0], y + times * offset[1]))

    def turned(self, cell):
        """The cell 180 degrees round the centre."""
        x, y = self.xy[cell]
        return self.at[(-x, self.xy[-1][1] - y)]

    def mirrored(self, cell):
        x, y = self.xy[cell]
        return self.at[(-x, y)]


def rhombus(m):
    return Board(list(range(1, m + 1)) + list(range(m - 1, 0, -1)))


def star():
    return Board(STAR_ROWS)


def moves(board: Board, cells, player):
    """Set of (from, to): steps, and the end of every chain of hops over any piece."""
    out = set()
    for s in range(board.size):
        if cells[s] != player:
            continue
        lifted = list(cells)
        lifted[s] = 0
        for off in OFFSETS:
            t = board.step(s, off)
            if t is not None and lifted[t] == 0:
                out.add((s, t))

        def chains(u, visited):
            for off in OFFSETS:
                over = board.step(u, off)
                land = board.step(u, off, 2)
                if over is None or land is None or lifted[over] == 0 or lifted[land] != 0:
                    continue
                if land in visited:
                    continue
                out.add((s, land))
                chains(land, visited | {land})

        chains(s, {s})
    return out


def apply(cells, s, t):
    out = list(cells)
    out[t], out[s] = out[s], 0
    return tuple(out)


# ------------------------------------------------------------------------------ rhombus rules

class Rules:
    def __init__(self, m, pieces):
        self.m, self.pieces = m, pieces
        self.board = rhombus(m)
        start1 = set(START[pieces])
        start2 = {self.board.turned(c) for c in start1}
        self.goal = {1: start2, 2: start1}

    def won(self, cells, player):
        goal = self.goal[player]
        return all(cells[g] != 0 for g in goal) and any(cells[g] == player for g in goal)

    def walled_tip(self, cells, player):
        """Whether ``player``'s goal has its tip walled in (the 6-piece rule): the goal cell
        farthest from the centre row is empty and the other player holds the cells one and two
        steps from it along both edges of the board that meet there."""
        tip = max(self.goal[player], key=lambda c: abs(self.board.xy[c][1] - (self.m - 1)))
        other = 3 - player
        if cells[tip] != 0:
            return False
        lines = [off for off in OFFSETS if self.board.step(tip, off) is not None]
        assert len(lines) == 2, "a rhombus tip is a corner with two neighbours"
        return all(cells[self.board.step(tip, off, n)] == other if
                   self.board.step(tip, off, n) is not None else False
                   for off in lines for n in (1, 2))

    def status(self, cells, mover):
        if self.won(cells, mover):
            return "illegal"
        if self.pieces == 6 and (self.walled_tip(cells, 1) or self.walled_tip(cells, 2)):
            return "illegal"
        if self.won(cells, 3 - mover):
            return "over"
        return "playing"

    def legal_moves(self, cells, mover):
        """Sorted (from, to) of the legal moves (none when the position is not 'playing')."""
        if self.status(cells, mover) != "playing":
            return []
        return sorted((s, t) for s, t in moves(self.board, cells, mover)
                      if self.status(apply(cells, s, t), 3 - mover) != "illegal")

    def positions(self):
        n, p = self.board.size, self.pieces
        for mover in (1, 2):
            for first in combinations(range(n), p):
                rest = [c for c in range(n) if c not in first]
                for second in combinations(rest, p):
                    cells = [0] * n
                    for c in first:
                        cells[c] = 1
                    for c in second:
                        cells[c] = 2
                    yield tuple(cells), mover


def solve(m, pieces):
    """{(cells, mover): (result, distance)} for every position of the table, by value
    iteration: after round n every position won or lost within n plies is known.  A position
    where the other player has just won, or without a legal move, is lost at distance 0."""
    rules = Rules(m, pieces)
    keys = list(rules.positions())
    index = {key: i for i, key in enumerate(keys)}
    n = len(keys)
    result = np.full(n, 2, np.int64)  # 2: not known yet
    distance = np.zeros(n, np.int64)
    rows = []
    for i, (cells, mover) in enumerate(keys):
        status = rules.status(cells, mover)
        if status == "illegal":
            result[i] = ILLEGAL
            rows.append([])
            continue
        kids = [index[(apply(cells, s, t), 3 - mover)] for s, t in
                rules.legal_moves(cells, mover)]
        rows.append(kids)
        if not kids:
            result[i] = LOSS
    width = max(1, max(len(r) for r in rows))
    kids = np.full((n, width), -1, np.int64)
    for i, r in enumerate(rows):
        kids[i, :len(r)] = r
    present = kids >= 0
    safe = np.where(present, kids, 0)
    while True:
        res = np.where(present, result[safe], 99)
        dist = np.where(present, distance[safe], 0)
        open_ = result == 2
        lost_child = present & (res == LOSS)
        any_lost = lost_child.any(axis=1)
        win_at = np.where(lost_child, dist, 1 << 30).min(axis=1) + 1
        all_won = (np.where(present, res == WIN, True)).all(axis=1) & present.any(axis=1)
        loss_at = np.where(present, dist, -1).max(axis=1) + 1
        new_win = open_ & any_lost
        new_loss = open_ & ~any_lost & all_won
        if not (new_win.any() or new_loss.any()):
            break
        result = np.where(new_win, WIN, np.where(new_loss, LOSS, result))
        distance = np.where(new_win, win_at, np.where(new_loss, loss_at, distance))
    result[result == 2] = DRAW
    return {key: (int(result[i]), int(distance[i])) for i, key in enumerate(keys)}


# ------------------------------------------------------------------------------ the star

STAR_SEATS = {2: (0, 3), 3: (0, 2, 4), 4: (0, 1, 3, 4), 6: (0, 1, 2, 3, 4, 5)}


def star_points(board: Board):
    """The six points (10 cells each) clockwise from the top: found as the cells outside the
    central hexagon, grouped by which corner they lie beyond."""
    import math
    points = {k: [] for k in range(6)}
    for i, (x, y) in enumerate(board.xy):
        px, py = x / 2.0, (y - 8) * math.sqrt(3) / 2.0  # plane coordinates, centre at 0
        r = math.hypot(px, py)
        if r < 4.2:  # the hexagon's cells lie within 4 units of the centre, the points' beyond
            continue
        angle = math.degrees(math.atan2(px, -py)) % 360  # 0 at the top, clockwise
        points[int(((angle + 30) % 360) // 60)].append(i)
    return points


def star_start(players):
    board = star()
    points = star_points(board)
    cells = [0] * board.size
    for player, seat in enumerate(STAR_SEATS[players], 1):
        for c in points[seat]:
            cells[c] = player
    return tuple(cells)


def star_perft(cells, players, mover, depth, board=None, goals=None):
    """Leaves ``depth`` plies below; a player who fills its goal point (with one own piece at
    least) ends the game."""
    board = board or star()
    if goals is None:
        points = star_points(board)
        goals = {p: points[(seat + 3) % 6] for p, seat in enumerate(STAR_SEATS[players], 1)}
    if depth == 0:
        return 1
    total = 0
    for s, t in moves(board, cells, mover):
        if depth == 1:
            total += 1
            continue
        child = apply(cells, s, t)
        goal = goals[mover]
        if all(child[g] for g in goal) and any(child[g] == mover for g in goal):
            continue
        total += star_perft(child, players, mover % players + 1, depth - 1, board, goals)
    return total


def star_distances(k, goal_point=3):
    """{frozenset of cells: fewest moves into ``goal_point``} for every placement of k pieces of
    one player alone on the star: a breadth-first search over frozensets from the placements
    inside the goal (a lone player's moves are reversible, so searching outwards from the goal
    gives the distance to it)."""
    from collections import deque
    board = star()
    goal = sorted(star_points(board)[goal_point])
    dist = {frozenset(c): 0 for c in combinations(goal, k)}
    queue = deque(dist)
    while queue:
        here = queue.popleft()
        cells = [0] * board.size
        for c in here:
            cells[c] = 1
        for s, t in moves(board, cells, 1):
            nxt = (here - {s}) | {t}
            if nxt not in dist:
                dist[nxt] = dist[here] + 1
                queue.append(nxt)
    return dist
