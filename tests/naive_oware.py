"""Slow, obviously correct Oware (Abapa) reference, written straight from shared/rules/oware.md.

Independent of ``solvers``: its own sowing, capture, index and value code.  A board is a tuple of
12 ints seen from the player to move: houses 0-5 are the mover's, 6-11 the opponent's, and sowing
runs 0 -> 1 -> ... -> 11 -> 0.
"""

from __future__ import annotations

import sys
from functools import lru_cache

HOUSES = 12
OWN = range(0, 6)
OPPONENT = range(6, 12)

sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))


def sow(houses, h):
    """Play house ``h`` for the mover. Returns ``(board_after, captured)`` in the mover's own
    orientation (not flipped), or ``None`` if the move is illegal."""
    if h not in OWN or houses[h] == 0:
        return None
    board = list(houses)
    seeds = board[h]
    board[h] = 0
    pos = h
    while seeds > 0:
        pos = (pos + 1) % HOUSES
        if pos == h:  # the origin house is skipped when passed
            continue
        board[pos] += 1
        seeds -= 1
    # Feeding rule: the opponent must have a seed after the move.  (A capture can never empty the
    # opponent's side: that would be a grand slam, which captures nothing.)
    opponent_seeds = sum(board[j] for j in OPPONENT)
    if opponent_seeds == 0:
        return None
    # Capture: last seed in an opponent house now holding 2 or 3, then backwards.
    taken = []
    j = pos
    while j in OPPONENT and board[j] in (2, 3):
        taken.append(j)
        j -= 1
    total = sum(board[j] for j in taken)
    if taken and total == opponent_seeds:  # grand slam: played, nothing captured
        return tuple(board), 0
    for j in taken:
        board[j] = 0
    return tuple(board), total


def flip(board):
    """The board seen from the other player: new house i is old house (i + 6) % 12."""
    return tuple(board[(i + 6) % HOUSES] for i in range(HOUSES))


def legal_moves(houses) -> list[int]:
    return [h for h in OWN if sow(houses, h) is not None]


def play(houses, h):
    """``(child seen from the new mover, captured)``; raises ValueError if illegal."""
    result = sow(tuple(houses), h)
    if result is None:
        raise ValueError(f"illegal move {h} in {tuple(houses)!r}")
    board, captured = result
    return flip(board), captured


@lru_cache(maxsize=None)
def value(houses, t):
    """V(s, t): net seeds still to be won by the mover with t plies left."""
    houses = tuple(houses)
    if t == 0:
        return 0
    moves = legal_moves(houses)
    if not moves:
        return sum(houses[h] for h in OWN)
    best = None
    for h in moves:
        child, captured = play(houses, h)
        v = captured - value(child, t - 1)
        if best is None or v > best:
            best = v
    return best


def optimal_moves(houses, t) -> list[int]:
    """All moves reaching V(s, t) (empty if the mover has no legal move); t >= 1."""
    houses = tuple(houses)
    target = value(houses, t)
    out = []
    for h in legal_moves(houses):
        child, captured = play(houses, h)
        if captured - value(child, t - 1) == target:
            out.append(h)
    return out


@lru_cache(maxsize=None)
def compositions(n):
    """All ways to put n seeds in 12 houses, in lexicographic order (house 0 most significant)."""

    def rec(prefix, left, houses_left):
        if houses_left == 1:
            yield prefix + (left,)
            return
        for d in range(left + 1):
            yield from rec(prefix + (d,), left - d, houses_left - 1)

    return tuple(rec((), n, HOUSES))


@lru_cache(maxsize=None)
def _rank_table(n):
    return {c: i for i, c in enumerate(compositions(n))}


def rank(houses) -> int:
    houses = tuple(int(x) for x in houses)
    return _rank_table(sum(houses))[houses]


def unrank(n, idx):
    return compositions(n)[idx]
