"""Single-agent distance tables of the star: for one player alone on the 121 holes, the fewest
moves that bring its k pieces into its goal point, from every placement.

Layout: ``dist`` uint8[C(121, k)], indexed by the colex rank of the placement's cells in
ascending order (``sum C(cell_i, i + 1)``, cells numbered row by row from the top tip), with
the goal the bottom point (cells 111..120).  Other goals are the same table after turning the
board (``tbdb.games.chinese_checkers.tables.distance_rank``).

A lone player's moves are reversible (a step back, a hop chain run backwards), so the table is a
breadth-first search from the placements already in the goal, level by level: every placement
at distance d hands d + 1 to its unvisited neighbours.  Threads may write the same d + 1 to one
entry at the same time, which is harmless.
"""
import numpy as np

from tbdb.solvers.jit import kernel, parallel_kernel, prange
from tbdb.solvers.chinese_checkers.index import rank, replace_sorted
from tbdb.solvers.chinese_checkers.moves import destinations

UNSEEN = np.uint8(255)
CHUNK = 1 << 16


@kernel
def _unrank(r, k, ncell, binom, cells):
    """cells[:k] (ascending) of colex rank r."""
    x = ncell - 1
    for i in range(k - 1, -1, -1):
        while binom[x, i + 1] > r:
            x -= 1
        cells[i] = x
        r -= binom[x, i + 1]
        x -= 1


@parallel_kernel
def seed(dist, k, goal, binom):
    """dist = UNSEEN everywhere but 0 on the placements inside ``goal`` (int16[g])."""
    for i in prange(dist.shape[0]):
        dist[i] = UNSEEN
    g = goal.shape[0]
    cells = np.empty(k, np.int64)
    idx = np.arange(k)
    # every k-subset of the goal cells, as index tuples into ``goal``
    while True:
        for i in range(k):
            cells[i] = goal[idx[i]]
        dist[rank(cells, k, binom)] = 0
        i = k - 1
        while i >= 0 and idx[i] == g - k + i:
            i -= 1
        if i < 0:
            break
        idx[i] += 1
        for j in range(i + 1, k):
            idx[j] = idx[j - 1] + 1


@parallel_kernel
def expand(dist, level, k, nbr, binom):
    """Give level + 1 to every unseen neighbour of the placements at ``level``; returns how
    many entries were set (an overcount when two threads set one entry together)."""
    n = dist.shape[0]
    ncell = nbr.shape[0]
    nchunk = (n + CHUNK - 1) // CHUNK
    found = np.zeros(nchunk, np.int64)
    cells_s = np.empty((nchunk, 2, 8), np.int64)
    boards = np.zeros((nchunk, ncell), np.int8)
    marks = np.zeros((nchunk, ncell), np.int32)
    stacks = np.empty((nchunk, 2, ncell), np.int64)
    nxt = np.uint8(level + 1)
    for ch in prange(nchunk):
        cells = cells_s[ch, 0]
        moved = cells_s[ch, 1]
        board = boards[ch]
        stamp = 0
        for r in range(ch * CHUNK, min(n, (ch + 1) * CHUNK)):
            if dist[r] != level:
                continue
            _unrank(r, k, ncell, binom, cells)
            for i in range(k):
                board[cells[i]] = 1
            for i in range(k):
                s = cells[i]
                stamp += 1
                nd = destinations(board, nbr, s, marks[ch], stamp, stacks[ch, 0],
                                   stacks[ch, 1])
                for j in range(nd):
                    replace_sorted(cells, k, i, stacks[ch, 1, j], moved)
                    c = rank(moved, k, binom)
                    if dist[c] == UNSEEN:
                        dist[c] = nxt
                        found[ch] += 1
            for i in range(k):
                board[cells[i]] = 0
    return found.sum()


@parallel_kernel
def check(dist, k, nbr, binom, in_goal):
    """What is wrong with each entry of a stored table, as uint8[n]: 0 nothing, 1 the entry is
    0 off the goal or not 0 inside it, 2 a neighbour is more than one move closer, 3 the entry
    is above 0 but no neighbour is one move closer.  Together these say ``dist`` is the
    breadth-first distance (the only function that is 0 exactly on the goal and one more than
    its smallest neighbour elsewhere)."""
    n = dist.shape[0]
    ncell = nbr.shape[0]
    nchunk = (n + CHUNK - 1) // CHUNK
    bad = np.zeros(n, np.uint8)
    cells_s = np.empty((nchunk, 2, 8), np.int64)
    boards = np.zeros((nchunk, ncell), np.int8)
    marks = np.zeros((nchunk, ncell), np.int32)
    stacks = np.empty((nchunk, 2, ncell), np.int64)
    for ch in prange(nchunk):
        cells = cells_s[ch, 0]
        moved = cells_s[ch, 1]
        board = boards[ch]
        stamp = 0
        for r in range(ch * CHUNK, min(n, (ch + 1) * CHUNK)):
            _unrank(r, k, ncell, binom, cells)
            inside = True
            for i in range(k):
                board[cells[i]] = 1
                if in_goal[cells[i]] == 0:
                    inside = False
            d = np.int64(dist[r])
            if inside != (d == 0):
                bad[r] = 1
            closest = np.int64(1 << 30)
            for i in range(k):
                stamp += 1
                nd = destinations(board, nbr, cells[i], marks[ch], stamp, stacks[ch, 0],
                                   stacks[ch, 1])
                for j in range(nd):
                    replace_sorted(cells, k, i, stacks[ch, 1, j], moved)
                    c = np.int64(dist[rank(moved, k, binom)])
                    if c < closest:
                        closest = c
            for i in range(k):
                board[cells[i]] = 0
            if bad[r] == 0 and closest < d - 1:
                bad[r] = 2
            if bad[r] == 0 and d > 0 and closest != d - 1:
                bad[r] = 3
    return bad
