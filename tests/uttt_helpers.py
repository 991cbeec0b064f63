"""Seeded position generators and conversions shared by the uttt tests."""
from __future__ import annotations

import random

from tbdb.games.uttt import Position
from tests import naive_uttt as naive


def to_naive(p: Position):
    """The naive reference's tuple for a position written cell by cell."""
    return p.cells, p.side_name, p.constraint


def from_naive(q) -> Position:
    """A Position from a naive tuple, without the legality check (for bulk comparisons)."""
    return Position(q[0], "xo".index(q[1]), q[2])


def random_games(seed: int, games: int) -> list[Position]:
    """Every position of ``games`` random games from the start (finished ones included)."""
    rng = random.Random(seed)
    out = []
    for _ in range(games):
        p = Position.start()
        out.append(p)
        while not p.is_game_over():
            p = p.push(rng.choice(p.legal_moves()))
            out.append(p)
    return out


def random_root(rng: random.Random, lo: int, hi: int) -> Position:
    """A position of a random game, not finished, with lo..hi empty cells in open boards."""
    while True:
        p = Position.start()
        while not p.is_game_over() and p.empties > hi:
            p = p.push(rng.choice(p.legal_moves()))
        if not p.is_game_over() and lo <= p.empties <= hi:
            return p


def naive_canonical(q) -> tuple:
    """The naive reference's canonical form: the smallest reduced image (as a tuple)."""
    return min((c, s, -1 if k is None else k)
               for c, s, k in (naive.reduced(naive.image(q, g)) for g in naive.GRID_MAPS))
