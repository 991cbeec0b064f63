"""Tic-tac-toe, the worked example, against facts and a naive minimax written here.

Known facts: 5,478 positions are reachable from the empty board, 765 up to the 8 symmetries of
the square, 958 of them terminal; the empty board is a draw.  Every stored value and distance
(quickest win, longest loss, in plies) equals plain minimax.  The level-by-level mode agrees
with the edges-in-memory and edge-free modes run over the same positions as an index space.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
import pytest

import tbdb
from tbdb.retrograde import driver
from tbdb.games.tictactoe import TicTacToeGame, TicTacToeSpace
from tbdb.solvers.retrograde import DRAW, LOSS, WIN

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def winner(cells: str):
    for a, b, c in LINES:
        if cells[a] != "." and cells[a] == cells[b] == cells[c]:
            return cells[a]
    return None


def mover(cells: str) -> str:
    return "x" if cells.count("x") == cells.count("o") else "o"


def children(cells: str) -> list[str]:
    if winner(cells) or "." not in cells:
        return []
    m = mover(cells)
    return [cells[:i] + m + cells[i + 1:] for i in range(9) if cells[i] == "."]


@lru_cache(maxsize=None)
def minimax(cells: str) -> tuple[int, int]:
    """(value for the side to move, plies to the end): quickest win, longest loss."""
    if winner(cells):
        return -1, 0  # the player who just moved has a line
    kids = children(cells)
    if not kids:
        return 0, 0
    values = [minimax(k) for k in kids]
    wins = [d for v, d in values if v == -1]
    if wins:
        return 1, min(wins) + 1
    if any(v == 0 for v, _ in values):
        return 0, 0
    return -1, max(d for _, d in values) + 1


def reachable() -> set[str]:
    seen, todo = set(), ["." * 9]
    while todo:
        c = todo.pop()
        if c not in seen:
            seen.add(c)
            todo += children(c)
    return seen


def images(cells: str) -> set[str]:
    grid = [cells[0:3], cells[3:6], cells[6:9]]
    out = set()
    for _ in range(4):
        grid = ["".join(grid[2 - r][c] for r in range(3)) for c in range(3)]  # rotate
        out.add("".join(grid))
        out.add("".join(row[::-1] for row in grid))  # mirror
    return out


def test_known_counts():
    positions = reachable()
    assert len(positions) == 5478
    assert len({min(images(p)) for p in positions}) == 765
    assert sum(1 for p in positions if not children(p)) == 958
    assert minimax("." * 9) == (0, 0)


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("ttt") / "tb.duckdb")
    tbdb.build("tictactoe", db=path, progress=False)
    return path


def test_every_position_matches_minimax(db):
    names = {1: "win", 0: "draw", -1: "loss"}
    with tbdb.open(db) as tb:
        (rows,), = tb.sql("SELECT count(*) FROM tb_key_values").fetchall()
        assert rows == 765
        for p in sorted(reachable()):
            r = tb.lookup(p, game="tictactoe")
            v, d = minimax(p)
            assert (r.outcome, r.distance) == (names[v], d), p
            if children(p):  # the best move reaches a child of the right value
                child = p[:int(r.best_move)] + mover(p) + p[int(r.best_move) + 1:]
                cv, cd = minimax(child)
                assert -cv == v and (v == 0 or cd + 1 == d), (p, r.best_move)


class LevelsAsIndex:
    """The tic-tac-toe level space seen as an index space (slots = sorted canonical keys), so the
    two index modes can solve the same positions.  A finished game is a position whose one
    'move' leaves the table with the value the game ended on."""

    def __init__(self):
        space = TicTacToeSpace()
        levels = driver.enumerate_levels(space)
        self.keys = np.concatenate([levels[lv] for lv in sorted(levels)])
        order = np.lexsort((self.keys[:, 1], self.keys[:, 0]))
        self.keys = self.keys[order]
        terminal, count, child, move = space.expand(self.keys)
        n, w = len(self.keys), space.max_children
        self.size, self.max_children = n, w
        self.count = np.where(terminal == 2, count, np.where(terminal == LOSS, 0, 1))
        self.child = np.full((n, w), -1, np.int64)
        self.move = np.zeros((n, w), np.int32)
        self.ext_r = np.zeros((n, w), np.int8)
        self.ext_d = np.zeros((n, w), np.int16)
        code = self.keys[:, 0]
        for i in range(n):
            if terminal[i] == 2:
                c = child[i, :count[i], 0]
                self.child[i, :count[i]] = np.searchsorted(code, c)
                self.move[i, :count[i]] = move[i, :count[i]]
            elif terminal[i] == DRAW:
                self.ext_r[i, 0] = DRAW
            elif terminal[i] == WIN:
                self.ext_r[i, 0], self.ext_d[i, 0] = LOSS, -1
        self.terminal = terminal
        parents = [[] for _ in range(n)]
        for i in range(n):
            for c in self.child[i, :self.count[i]]:
                if c >= 0:
                    parents[c].append(i)
        self.parents_of = parents
        self.max_parents = max(len(x) for x in parents)

    def census(self, lo, hi):
        return np.zeros(hi - lo, np.int8), np.ones(hi - lo, np.int16)

    def children(self, positions):
        p = np.asarray(positions)
        return (self.count[p].astype(np.int16), self.child[p], self.move[p], self.ext_r[p],
                self.ext_d[p])

    def parents(self, positions):
        k = len(positions)
        count = np.zeros(k, np.int32)
        parent = np.full((k, self.max_parents), -1, np.int64)
        for r, c in enumerate(positions):
            count[r] = len(self.parents_of[c])
            parent[r, :count[r]] = self.parents_of[c]
        return count, parent


@pytest.mark.parametrize("mode", ["edges", "edge-free"])
def test_the_three_modes_agree(mode):
    space = TicTacToeSpace()
    levels = driver.solve_levels(space, driver.enumerate_levels(space))
    by_key = {}
    for v in levels.values():
        for key, r, d, b in zip(v.keys[:, 0].tolist(), v.result.tolist(), v.distance.tolist(),
                                v.best.tolist()):
            by_key[key] = (r, d, b)
    index = LevelsAsIndex()
    got = driver.solve_index(index, mode)
    playing = index.terminal == 2
    for i, key in enumerate(index.keys[:, 0].tolist()):
        r, d, b = by_key[key]
        assert (got.result[i], got.distance[i]) == (r, d), key
        if playing[i]:
            assert got.best[i] == b, key


def test_the_game_plugin_reports_the_same_counts(db):
    with tbdb.open(db) as tb:
        (raw, canonical), = tb.sql("SELECT raw_positions, canonical_rows FROM symmetry_stats "
                                   "WHERE game = 'tictactoe'").fetchall()
    assert (raw, canonical) == (5478, 765)
    assert TicTacToeGame().perft(TicTacToeGame().start(), 9) == 127872
