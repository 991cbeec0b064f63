"""Chinese Checkers boards as arrays: the m x m rhombus and the stars of 13, 37, 73 and 121 holes.

Both boards are pieces of one hexagonal grid.  A cell has *cube coordinates* (x, y, z) with
x + y + z = 0; ``y`` is the row (8 at the star's top tip, -8 at its bottom tip) and ``x`` grows
to the right along a row.  Cells are numbered row by row from the top tip, left to right.

The six directions (index, name, (dx, dy, dz)):

    0 W  (-1, 0, +1)    1 E  (+1, 0, -1)        same row
    2 NW (-1, +1, 0)    3 NE (0, +1, -1)        row above
    4 SW (0, -1, +1)    5 SE (+1, -1, 0)        row below

Direction ``d ^ 1`` is the opposite of ``d``.

The rhombus m x m is the set of cells (r, c), 0 <= r, c < m, with x = c, z = r (shifted so the
top tip is (0, 0)): its rows ``r + c = 0 .. 2m - 2`` have 1, 2, .., m, .., 2, 1 cells.  Its
left-right mirror swaps r and c; the 180-degree rotation maps cell k to N - 1 - k.

The star of size k is the union of the two big triangles {x, y, z <= k} and {x, y, z >= -k}:
the hexagon |x|, |y|, |z| <= k (3k^2 + 3k + 1 cells) and six points of k(k + 1)/2 cells,
numbered clockwise from the top: 0 top (y > k), 1 upper right (z < -k), 2 lower right (x > k),
3 bottom (y < -k), 4 lower left (z > k), 5 upper left (x < -k).  k = 1, 2, 3, 4 give 13, 37,
73 and 121 holes; the usual board is k = 4, whose hexagon plus points 0 and 3 is the 9 x 9
rhombus, in the same orientation.

Everything here is plain numpy, built once per board in Python; the kernels read the arrays.
"""
from __future__ import annotations

from functools import lru_cache
from math import comb

import numpy as np

DIRECTIONS = ((-1, 0, 1), (1, 0, -1), (-1, 1, 0), (0, 1, -1), (0, -1, 1), (1, -1, 0))
DIRECTION_NAMES = ("W", "E", "NW", "NE", "SW", "SE")
STAR_CELLS = 121
STAR_SIZES = {13: 1, 37: 2, 73: 3, 121: 4}  # holes -> the star's size k
STAR_POINT_NAMES = ("top", "upper right", "lower right", "bottom", "lower left", "upper left")
# start areas of the two-player rhombus game, cell numbers counted from the player's own tip
START_AREAS = {1: (0,), 2: (0, 1), 3: (0, 1, 2), 4: (0, 1, 2, 4), 6: (0, 1, 2, 3, 4, 5)}
PIECE_COUNTS = tuple(sorted(START_AREAS))
BOARD_SIZES = tuple(range(3, 10))


def _neighbours(coords: list[tuple[int, int, int]]) -> np.ndarray:
    """int16[n, 6]: the neighbour of each cell in each direction, -1 off the board."""
    where = {c: i for i, c in enumerate(coords)}
    nbr = np.full((len(coords), 6), -1, np.int16)
    for i, (x, y, z) in enumerate(coords):
        for d, (dx, dy, dz) in enumerate(DIRECTIONS):
            nbr[i, d] = where.get((x + dx, y + dy, z + dz), -1)
    return nbr


class Rhombus:
    """The m x m rhombus: ``cells`` (N), ``nbr`` int16[N, 6], ``mirror`` int16[N] (left-right),
    ``rows`` (cell numbers per row), ``start`` int16[p] and ``goal`` int16[p] of the first
    player (top tip, heading down) for p pieces a side."""

    def __init__(self, m: int):
        if m not in BOARD_SIZES:
            raise ValueError(f"rhombus size must be one of {BOARD_SIZES}, not {m!r}")
        self.m = m
        rc = [(r, d - r) for d in range(2 * m - 1)
              for r in range(min(d, m - 1), max(0, d - m + 1) - 1, -1)]
        self.rc = rc  # (r, c) per cell, row by row, left (large r) to right (large c)
        self.cells = len(rc)
        self.coords = [(c, -(r + c), r) for r, c in rc]
        self.nbr = _neighbours(self.coords)
        index = {p: i for i, p in enumerate(rc)}
        self.mirror = np.array([index[(c, r)] for r, c in rc], np.int16)
        self.rows = [[i for i, (r, c) in enumerate(rc) if r + c == d] for d in range(2 * m - 1)]

    def start(self, pieces: int) -> np.ndarray:
        return np.array(START_AREAS[pieces], np.int16)

    def goal(self, pieces: int) -> np.ndarray:
        return np.array(sorted(self.cells - 1 - k for k in START_AREAS[pieces]), np.int16)


class Star:
    """The star of size ``k`` (``STAR_SIZES``): ``cells``, ``nbr`` int16[cells, 6], ``point``
    int8[cells] (0..5, -1 in the hexagon), ``rows`` (cell numbers per row), ``rotate``
    int16[cells] (60 degrees clockwise)."""

    def __init__(self, k: int = 4):
        coords = []
        for y in range(2 * k, -2 * k - 1, -1):
            for x in range(-2 * k, 2 * k + 1):
                z = -x - y
                if (x <= k and y <= k and z <= k) or (x >= -k and y >= -k and z >= -k):
                    coords.append((x, y, z))
        self.k = k
        self.coords = coords
        self.cells = len(coords)
        self.nbr = _neighbours(coords)
        where = {c: i for i, c in enumerate(coords)}
        point = np.full(self.cells, -1, np.int8)
        for i, (x, y, z) in enumerate(coords):
            for p, inside in enumerate((y > k, z < -k, x > k, y < -k, z > k, x < -k)):
                if inside:
                    point[i] = p
        self.point = point
        self.rotate = np.array([where[(-z, -x, -y)] for x, y, z in coords], np.int16)
        self.rows = [[i for i, c in enumerate(coords) if c[1] == y]
                     for y in range(2 * k, -2 * k - 1, -1)]

    def point_cells(self, p: int) -> np.ndarray:
        return np.flatnonzero(self.point == p).astype(np.int16)


@lru_cache(maxsize=None)
def rhombus(m: int) -> Rhombus:
    return Rhombus(m)


def star(k: int = 4) -> Star:
    """The star of size ``k``; ``star()`` is the usual 121-hole board."""
    return _star(k)


@lru_cache(maxsize=None)
def _star(k: int) -> Star:
    return Star(k)


def binomials(n: int, k: int) -> np.ndarray:
    """int64[n + 1, k + 1]: C(i, j) (0 where j > i)."""
    out = np.zeros((n + 1, k + 1), np.int64)
    for i in range(n + 1):
        for j in range(min(i, k) + 1):
            out[i, j] = comb(i, j)
    return out


def sublattice_max(nbr: np.ndarray, coords) -> int:
    """Cells of the largest class a hop chain can stay in (hops keep x and z modulo 2)."""
    counts: dict[tuple[int, int], int] = {}
    for x, _, z in coords:
        counts[(x % 2, z % 2)] = counts.get((x % 2, z % 2), 0) + 1
    return max(counts.values())
