"""Slow, obviously correct tic-tac-toe, written from the rules (docs/rules/tictactoe.md) apart
from the kernels.  Standard library only.  A position is its text: nine characters ``x``, ``o``
or ``.`` row by row from the top left; x moves first, so the counts say who is to move."""
from __future__ import annotations

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


def mover(cells: str) -> str:
    return "x" if cells.count("x") == cells.count("o") else "o"


def has_line(cells: str, mark: str) -> bool:
    return any(all(cells[i] == mark for i in line) for line in LINES)


def legal_moves(cells: str) -> list[int]:
    """Empty cells, none once a player has a line."""
    if has_line(cells, "x") or has_line(cells, "o"):
        return []
    return [i for i, ch in enumerate(cells) if ch == "."]


def play(cells: str, cell: int) -> str:
    return cells[:cell] + mover(cells) + cells[cell + 1:]


def perft(cells: str, depth: int) -> int:
    if depth == 0:
        return 1
    return sum(perft(play(cells, m), depth - 1) for m in legal_moves(cells))
