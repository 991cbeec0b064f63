"""Oware (Abapa) index kernels: rank / unrank of seed compositions.

A position is 12 house counts seen from the player to move (houses 0-5 the mover's, 6-11 the
opponent's; rules: docs/rules/oware.md).  Book ``n`` holds the ``C(n + 11, 11)`` positions with
``n`` seeds, indexed by lexicographic rank (house 0 most significant; rank 0 = all seeds in
house 11).

Global index space used by the solver for book ``n`` (``levels``): books ``0 .. n`` laid end to
end (``base[m] = sum_{j < m} C(j + 11, 11)``, ``book_bases``; global index of position ``i`` of
book ``m`` is ``base[m] + i``), followed by two constant cells: ``ZERO = base[n + 1]`` (always 0)
and ``HIGH = base[n + 1] + 1`` (always 127).
"""
from __future__ import annotations

from math import comb

import numpy as np

from tbdb.solvers.jit import kernel

HOUSES = 12
#: Largest seed count the index tables cover (all 48 seeds of a full game).
NMAX = 48

# AT_MOST[k, r] = C(r + k, k): the number of ways to put at most r seeds into k houses, i.e. exactly
# r seeds into k + 1 houses.  rank() sums differences of these (hockey-stick identity).
AT_MOST = np.zeros((HOUSES, NMAX + 1), dtype=np.int64)
for _k in range(HOUSES):
    for _r in range(NMAX + 1):
        AT_MOST[_k, _r] = comb(_r + _k, _k)
del _k, _r

#: Positions per book: ``BOOK_SIZES[n] = C(n + 11, 11)``.
BOOK_SIZES = np.array([comb(n + 11, 11) for n in range(NMAX + 1)], dtype=np.int64)


def book_size(n: int) -> int:
    """Number of positions with ``n`` seeds: ``C(n + 11, 11)``."""
    if n < 0:
        raise ValueError(f"seed count must be >= 0, got {n!r}")
    return comb(n + 11, 11)


def book_bases(n: int) -> np.ndarray:
    """``base int64[n + 2]``: ``base[m]`` = first global index of book ``m`` (books 0..n laid end
    to end); ``base[n + 1]`` = total size of books 0..n (the solver's ZERO cell index)."""
    out = np.zeros(n + 2, dtype=np.int64)
    out[1:] = np.cumsum(BOOK_SIZES[: n + 1])
    return out


@kernel
def rank(houses):
    """Lexicographic rank of ``houses`` (int8[12]) among positions with the same seed count."""
    r = 0
    for i in range(HOUSES):
        r += houses[i]
    idx = 0
    for i in range(HOUSES - 1):
        k = HOUSES - 1 - i
        a = houses[i]
        # positions with the same prefix and a smaller digit at house i
        idx += AT_MOST[k, r] - AT_MOST[k, r - a]
        r -= a
    return idx


@kernel
def rank_flipped_n(board, r):
    """``rank`` of a board known to hold ``r`` seeds, seen from the other side (house i <-
    board[(i + 6) % 12])."""
    idx = AT_MOST[11, r] - AT_MOST[11, r - board[6]]
    r -= board[6]
    idx += AT_MOST[10, r] - AT_MOST[10, r - board[7]]
    r -= board[7]
    idx += AT_MOST[9, r] - AT_MOST[9, r - board[8]]
    r -= board[8]
    idx += AT_MOST[8, r] - AT_MOST[8, r - board[9]]
    r -= board[9]
    idx += AT_MOST[7, r] - AT_MOST[7, r - board[10]]
    r -= board[10]
    idx += AT_MOST[6, r] - AT_MOST[6, r - board[11]]
    r -= board[11]
    idx += AT_MOST[5, r] - AT_MOST[5, r - board[0]]
    r -= board[0]
    idx += AT_MOST[4, r] - AT_MOST[4, r - board[1]]
    r -= board[1]
    idx += AT_MOST[3, r] - AT_MOST[3, r - board[2]]
    r -= board[2]
    idx += AT_MOST[2, r] - AT_MOST[2, r - board[3]]
    r -= board[3]
    idx += AT_MOST[1, r] - AT_MOST[1, r - board[4]]
    return idx


@kernel
def unrank(n, idx, out):
    """Write into ``out`` (int8[12]) the position of rank ``idx`` in book ``n``."""
    r = n
    for i in range(HOUSES - 1):
        k = HOUSES - 1 - i
        a = 0
        while a < r and AT_MOST[k, r] - AT_MOST[k, r - a - 1] <= idx:
            a += 1
        idx -= AT_MOST[k, r] - AT_MOST[k, r - a]
        out[i] = a
        r -= a
    out[HOUSES - 1] = r


@kernel
def next_composition(h, last):
    """Advance ``h[0..last]`` (int8) in place to the next composition of its seeds in
    lexicographic order (house 0 most significant).  Must not be the last, ``(n, 0, ..., 0)``."""
    if h[last] > 0:
        h[last - 1] += 1
        h[last] -= 1
        return
    j = last - 1
    while h[j] == 0:
        j -= 1
    s = h[j]
    h[j] = 0
    h[j - 1] += 1
    h[last] = s - 1


@kernel
def next_position(h):
    """Advance ``h`` (int8[12]) in place to the next position of its book (lexicographic order).
    Must not be called on the last position ``(n, 0, ..., 0)``."""
    next_composition(h, 11)


@kernel
def rank_many(houses_2d):
    """``int8[M, 12]`` positions -> ``int64[M]`` ranks (each within its own seed count)."""
    m = houses_2d.shape[0]
    out = np.empty(m, dtype=np.int64)
    for j in range(m):
        out[j] = rank(houses_2d[j])
    return out


@kernel
def unrank_many(n, idx):
    """``int64[M]`` ranks in book ``n`` -> ``int8[M, 12]`` positions."""
    m = idx.shape[0]
    out = np.empty((m, HOUSES), dtype=np.int8)
    for j in range(m):
        unrank(n, idx[j], out[j])
    return out
