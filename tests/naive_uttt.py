"""Slow, obviously correct reference for Ultimate Tic-Tac-Toe, written apart from the kernels.

Standard library only; shares no code with ``tbdb`` or ``solvers``.  A position is a tuple
``(cells, side, con)``: ``cells`` a string of 81 characters ``x``, ``o`` or ``.`` (character
``9 * b + c`` is cell ``c`` of small board ``b``; boards and cells are numbered row by row),
``side`` ``'x'`` or ``'o'``, ``con`` the board the mover must play in (0..8) or ``None``.

Rules (/work/shared/rules/uttt.md): a move in cell c sends the opponent to board c; if that
board is closed (won, or full) the opponent may play in any empty cell of any open board.  A
small board with three in a row is won (even if the move also fills it); a full board without
a line is drawn.  Three won boards in a row on the meta-board win the game; with no open board
left and no such line the game is drawn (``standard``) or won by the side with more won boards
(``codingame``; equal counts draw).
"""
from __future__ import annotations

from functools import lru_cache

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]
START = ("." * 81, "x", None)


def other(side: str) -> str:
    return "o" if side == "x" else "x"


def small(cells: str, b: int) -> str:
    return cells[9 * b:9 * b + 9]


def has_line(board: str, mark: str) -> bool:
    return any(all(board[i] == mark for i in line) for line in LINES)


def status(cells: str, b: int) -> str:
    """'x' or 'o' (won), 'd' (full, drawn) or '.' (open)."""
    board = small(cells, b)
    for mark in "xo":
        if has_line(board, mark):
            return mark
    return "d" if "." not in board else "."


@lru_cache(maxsize=1 << 20)
def meta(cells: str) -> str:
    """The nine board statuses (cached: the same boards are looked at again and again)."""
    return "".join(status(cells, b) for b in range(9))


def game_over(pos) -> bool:
    m = meta(pos[0])
    return has_line(m, "x") or has_line(m, "o") or "." not in m


def legal_moves(pos) -> list[tuple[int, int]]:
    """(board, cell) pairs, boards then cells in increasing order."""
    cells, side, con = pos
    if game_over(pos):
        return []
    boards = [con] if con is not None else range(9)
    m = meta(cells)
    return [(b, c) for b in boards if m[b] == "."
            for c in range(9) if cells[9 * b + c] == "."]


def play(pos, move):
    cells, side, con = pos
    b, c = move
    assert move in legal_moves(pos), (pos, move)
    cells = cells[:9 * b + c] + side + cells[9 * b + c + 1:]
    nxt = c if status(cells, c) == "." else None
    return cells, other(side), nxt


def terminal_value(pos, scoring: str) -> int:
    """+1/0/-1 for the side to move of a finished game."""
    cells, side, _ = pos
    m = meta(cells)
    if has_line(m, other(side)):
        return -1
    if has_line(m, side):
        return 1
    if scoring == "codingame":
        mine, theirs = m.count(side), m.count(other(side))
        return (mine > theirs) - (mine < theirs)
    return 0


def perft(pos, depth: int) -> int:
    if depth == 0:
        return 1
    return sum(perft(play(pos, m), depth - 1) for m in legal_moves(pos))


def solve(pos, scoring: str) -> tuple[int, int]:
    """(value, distance) by plain negamax: a win as quick as possible, a loss as slow as
    possible, distance 0 for a draw and for a finished game."""
    return _solve(pos, scoring)


@lru_cache(maxsize=None)
def _solve(pos, scoring):
    if game_over(pos):
        return terminal_value(pos, scoring), 0
    wins, losses, draw = [], [], False
    for m in legal_moves(pos):
        v, d = _solve(play(pos, m), scoring)
        if v == -1:
            wins.append(d + 1)
        elif v == 1:
            losses.append(d + 1)
        else:
            draw = True
    if wins:
        return 1, min(wins)
    if draw:
        return 0, 0
    return -1, max(losses)


def subtree(pos) -> set:
    """Every position reachable from pos (pos included)."""
    seen, stack = {pos}, [pos]
    while stack:
        p = stack.pop()
        for m in legal_moves(p):
            q = play(p, m)
            if q not in seen:
                seen.add(q)
                stack.append(q)
    return seen


# --------------------------------------------------------------------------- symmetry

def _grid_maps():
    """The eight symmetries of the 3x3 grid as lists: new index of each index."""
    def rot(i):  # quarter turn clockwise: (r, c) -> (c, 2 - r)
        r, c = divmod(i, 3)
        return 3 * c + (2 - r)

    def mirror(i):
        r, c = divmod(i, 3)
        return 3 * r + (2 - c)

    maps = []
    for flip in (False, True):
        for turns in range(4):
            m = []
            for i in range(9):
                j = mirror(i) if flip else i
                for _ in range(turns):
                    j = rot(j)
                m.append(j)
            maps.append(m)
    return maps


GRID_MAPS = _grid_maps()


def image(pos, g: list[int]):
    """The position moved by grid map g (boards, cells and constraint alike)."""
    cells, side, con = pos
    out = ["."] * 81
    for b in range(9):
        for c in range(9):
            out[9 * g[b] + g[c]] = cells[9 * b + c]
    return "".join(out), side, (None if con is None else g[con])


def reduced(pos):
    """The position with every closed board replaced by its status: ('x', 'o' or 'd') as a
    9-character block 'X########', 'O########' or 'D########' (symmetric under every map)."""
    cells, side, con = pos
    out = []
    for b in range(9):
        s = status(cells, b)
        out.append(small(cells, b) if s == "." else s.upper() * 9)
    return "".join(out), side, con


def same_up_to_symmetry(p, q) -> bool:
    """p and q are the same reduced position up to one of the eight symmetries."""
    rq = reduced(q)
    return any(reduced(image(p, g)) == rq for g in GRID_MAPS)
