"""Slow, obviously correct reference for Oware (Abapa), written straight from the rules
(docs/rules/oware.md), independent of ``solvers``.  A board is a tuple of 12 ints seen from the
player to move: houses 0-5 are the mover's, 6-11 the opponent's, and sowing runs 0 -> 1 -> ...
-> 11 -> 0."""
from __future__ import annotations

import sys
from functools import lru_cache

OWARE_HOUSES = 12
OWARE_OWN = range(0, 6)
OWARE_OPPONENT = range(6, 12)

sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))


def oware_sow(houses, h):
    """Play house ``h`` for the mover. Returns ``(board_after, captured)`` in the mover's own
    orientation (not flipped), or ``None`` if the move is illegal."""
    if h not in OWARE_OWN or houses[h] == 0:
        return None
    board = list(houses)
    seeds = board[h]
    board[h] = 0
    pos = h
    while seeds > 0:
        pos = (pos + 1) % OWARE_HOUSES
        if pos == h:  # the origin house is skipped when passed
            continue
        board[pos] += 1
        seeds -= 1
    # Feeding rule: the opponent must have a seed after the move.  (A capture can never empty the
    # opponent's side: that would be a grand slam, which captures nothing.)
    opponent_seeds = sum(board[j] for j in OWARE_OPPONENT)
    if opponent_seeds == 0:
        return None
    # Capture: last seed in an opponent house now holding 2 or 3, then backwards.
    taken = []
    j = pos
    while j in OWARE_OPPONENT and board[j] in (2, 3):
        taken.append(j)
        j -= 1
    total = sum(board[j] for j in taken)
    if taken and total == opponent_seeds:  # grand slam: played, nothing captured
        return tuple(board), 0
    for j in taken:
        board[j] = 0
    return tuple(board), total


def oware_flip(board):
    """The board seen from the other player: new house i is old house (i + 6) % 12."""
    return tuple(board[(i + 6) % OWARE_HOUSES] for i in range(OWARE_HOUSES))


def oware_legal_moves(houses) -> list[int]:
    return [h for h in OWARE_OWN if oware_sow(houses, h) is not None]


def oware_play(houses, h):
    """``(child seen from the new mover, captured)``; raises ValueError if illegal."""
    result = oware_sow(tuple(houses), h)
    if result is None:
        raise ValueError(f"illegal move {h} in {tuple(houses)!r}")
    board, captured = result
    return oware_flip(board), captured


@lru_cache(maxsize=None)
def oware_value(houses, t):
    """V(s, t): net seeds still to be won by the mover with t plies left."""
    houses = tuple(houses)
    if t == 0:
        return 0
    moves = oware_legal_moves(houses)
    if not moves:
        return sum(houses[h] for h in OWARE_OWN)
    best = None
    for h in moves:
        child, captured = oware_play(houses, h)
        v = captured - oware_value(child, t - 1)
        if best is None or v > best:
            best = v
    return best


def oware_optimal_moves(houses, t) -> list[int]:
    """All moves reaching V(s, t) (empty if the mover has no legal move); t >= 1."""
    houses = tuple(houses)
    target = oware_value(houses, t)
    out = []
    for h in oware_legal_moves(houses):
        child, captured = oware_play(houses, h)
        if captured - oware_value(child, t - 1) == target:
            out.append(h)
    return out


@lru_cache(maxsize=None)
def oware_compositions(n):
    """All ways to put n seeds in 12 houses, in lexicographic order (house 0 most significant)."""

    def rec(prefix, left, houses_left):
        if houses_left == 1:
            yield prefix + (left,)
            return
        for d in range(left + 1):
            yield from rec(prefix + (d,), left - d, houses_left - 1)

    return tuple(rec((), n, OWARE_HOUSES))


@lru_cache(maxsize=None)
def _oware_rank_table(n):
    return {c: i for i, c in enumerate(oware_compositions(n))}


def oware_rank(houses) -> int:
    houses = tuple(int(x) for x in houses)
    return _oware_rank_table(sum(houses))[houses]


def oware_unrank(n, idx):
    return oware_compositions(n)[idx]
