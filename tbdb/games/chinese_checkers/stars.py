"""The small stars' placements (issue 63): which cells each player may rest on, and the index
the star games' tables will be laid out by (``solvers/chinese_checkers/star_index.py`` says
how a placement is ranked).  The rules: docs/rules/chinese_checkers.md, "The small stars"."""
from __future__ import annotations

from functools import cached_property, lru_cache
from itertools import combinations, product
from math import comb, factorial

import numpy as np

from tbdb.errors import InvalidOptionError, quote
from tbdb.solvers.chinese_checkers.geometry import STAR_SIZES, star
from tbdb.solvers.chinese_checkers import star_index, star_moves, star_solve

#: the points each player count sits on, clockwise from the top, in turn order
SEATS = {2: (0, 3), 3: (0, 2, 4), 4: (0, 1, 3, 4), 6: (0, 1, 2, 3, 4, 5)}


class StarSpace:
    """Placements of ``marbles`` marbles for each of ``players`` players on the star of
    ``holes`` holes (13, 37, 73 or 121) that the resting rule allows, and their index."""

    def __init__(self, holes: int, players: int, marbles: int):
        if holes not in STAR_SIZES:
            raise InvalidOptionError(f"a star has {sorted(STAR_SIZES)} holes, not {quote(holes)}")
        if players not in SEATS:
            raise InvalidOptionError(f"a star is played by {sorted(SEATS)} players, not "
                                     f"{quote(players)}")
        k = STAR_SIZES[holes]
        if not 1 <= marbles <= k * (k + 1) // 2:
            raise InvalidOptionError(f"a player of the {holes}-hole star has 1 to "
                                     f"{k * (k + 1) // 2} marbles, not {quote(marbles)}")
        self.holes, self.players, self.marbles, self.k = holes, players, marbles, k
        self.geo = geo = star(k)
        seats = SEATS[players]
        # region 0 the hexagon, then one region per point some player rests on, by point
        used = sorted({s for s in seats} | {(s + 3) % 6 for s in seats})
        self.region_points = [-1] + used
        cells_of = [np.flatnonzero(geo.point == p) for p in self.region_points]
        size = max(len(c) for c in cells_of)
        self.region_cells = np.full((len(cells_of), size), -1, np.int16)
        for r, cs in enumerate(cells_of):
            self.region_cells[r, :len(cs)] = cs
        self.region_size = np.array([len(c) for c in cells_of], np.int16)
        region_of_point = {p: r for r, p in enumerate(self.region_points)}
        self.player_regions = np.array(
            [[0, region_of_point[s], region_of_point[(s + 3) % 6]] for s in seats], np.int8)
        allowed = [[p for p in range(players) if r in self.player_regions[p]]
                   for r in range(len(cells_of))]
        self.region_players = np.full((len(cells_of), players), -1, np.int8)
        self.player_slot = np.full((len(cells_of), players), -1, np.int8)
        for r, ps in enumerate(allowed):
            for j, p in enumerate(ps):
                self.region_players[r, j] = p
                self.player_slot[r, p] = j
        self.region_np = np.array([len(ps) for ps in allowed], np.int8)
        self.cell_region = np.full(geo.cells, -1, np.int8)
        for r, cs in enumerate(cells_of):
            self.cell_region[cs] = r
        comps = [(a, b, marbles - a - b) for a in range(marbles + 1)
                 for b in range(marbles + 1 - a)]
        self.comps = np.array(comps, np.int8)
        self.comp_id = np.full((marbles + 1, marbles + 1), -1, np.int16)
        for i, (a, b, _) in enumerate(comps):
            self.comp_id[a, b] = i
        self.binom = np.array([[comb(i, j) for j in range(players * marbles + 1)]
                               for i in range(size + 1)], np.int64)

    @cached_property
    def offsets(self) -> np.ndarray:
        """int64[V + 1]: the placements before each vector (one composition per player), and
        the total; made when first asked for (28^6 vectors for a full start of six players on
        the 73-hole star: its moves and perft need no index)."""
        return np.array(self._offsets([tuple(c) for c in self.comps.tolist()]), np.int64)

    def _offsets(self, comps: list) -> list[int]:
        sizes = self.region_size.tolist()
        out = [0]
        for vector in product(range(len(comps)), repeat=self.players):
            in_region = [[] for _ in sizes]
            for p, c in enumerate(vector):
                for j, r in enumerate(self.player_regions[p].tolist()):
                    in_region[r].append(comps[c][j])
            ways = 1
            for s, parts in zip(sizes, in_region):
                if sum(parts) > s:
                    ways = 0
                    break
                ways *= factorial(s) // factorial(s - sum(parts))
                for a in parts:
                    ways //= factorial(a)
            out.append(out[-1] + ways)
        if out[-1] >= 1 << 62:
            raise InvalidOptionError(f"{out[-1]:,} placements: too many to index")
        return out

    @property
    def placements(self) -> int:
        return int(self.offsets[-1])

    @cached_property
    def _rank_args(self) -> tuple:
        return (self.players, self.marbles, self.region_cells, self.region_size,
                self.region_np, self.player_slot, self.player_regions, self.cell_region,
                self.comp_id, self.offsets, self.binom, self._work())

    def rank(self, cells) -> int:
        """The rank of a placement (cells: 0 or the player 1..n on each), -1 if it breaks the
        resting rule or gives a player other than ``marbles`` marbles."""
        return int(star_index.rank_placement(np.asarray(cells, np.int8), *self._rank_args))

    def rank_rows(self, boards: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """int64 ranks of ``boards[rows]`` (int8[n, cells]; -1 where ``rank`` says so)."""
        out = np.empty(len(rows), np.int64)
        star_index.rank_rows(boards, rows.astype(np.int64), *self._rank_args, out)
        return out

    def unrank(self, index: int) -> list[int]:
        if not 0 <= index < self.placements:
            raise InvalidOptionError(f"placement {quote(index)} is outside 0..{self.placements - 1}")
        out = np.zeros(self.geo.cells, np.int8)
        star_index.unrank_placement(index, self.players, self.marbles, self.region_cells,
                                    self.region_size, self.region_players, self.region_np,
                                    self.player_regions, self.comps, self.offsets, self.binom,
                                    out, self._work())
        return out.tolist()


    def _work(self) -> np.ndarray:
        return np.zeros(star_index.work_size(self.players, len(self.region_size)), np.int64)

    @cached_property
    def masks(self) -> tuple[np.ndarray, np.ndarray]:
        """(can_rest, in_goal) int8[players + 1, cells]: where each player may rest, its goal."""
        return star_moves.rest_masks(self.players, self.geo.cells, self.geo.point,
                                     np.array(SEATS[self.players], np.int64))

    def perft(self, cells, mover: int, depth: int) -> int:
        """Leaf positions ``depth`` plies below (the pass of a player with no move a ply)."""
        can_rest, in_goal = self.masks
        board = np.array(cells, np.int8)
        most = self.players * self.marbles * self.geo.cells
        return int(star_moves.perft(board, mover, depth, self.players, self.geo.nbr,
                                    can_rest, in_goal, most))

    def _arrays(self) -> tuple:
        return (self.region_cells, self.region_size, self.region_players, self.region_np,
                self.player_slot, self.player_regions, self.cell_region, self.comp_id,
                self.comps, self.offsets, self.binom)

    def check(self, lone: int, result: np.ndarray, distance: np.ndarray) -> int:
        """The first slot whose value its children contradict, or -1."""
        can_rest, in_goal = self.masks
        return int(star_solve.check_coalition(lone, self.players, self.marbles,
                                              self.placements, self.geo.nbr, can_rest,
                                              in_goal, self._arrays(), result, distance))

    def solve(self, lone: int) -> tuple[np.ndarray, np.ndarray]:
        """(result int8, distance int16) of every slot (placement * players + mover - 1) for
        lone player ``lone``: +1 its win, -1 the coalition's, 0 a draw, ILLEGAL_RESULT."""
        slots = self.placements * self.players
        result = np.zeros(slots, np.int8)
        distance = np.zeros(slots, np.int16)
        can_rest, in_goal = self.masks
        star_solve.solve_coalition(lone, self.players, self.marbles, self.placements,
                                   self.geo.nbr, can_rest, in_goal, self._arrays(), result,
                                   distance)
        return result, distance

    @cached_property
    def compact_tables(self) -> tuple:
        """``star_compact``'s bitboard tables (its module comment); the board has at most 64
        cells."""
        geo, n = self.geo, self.players
        if geo.cells > 64:
            raise InvalidOptionError(f"the one-byte solve takes boards of up to 64 cells, not "
                                     f"the {quote(self.holes)}-hole star")
        bit = [1 << c for c in range(geo.cells)]
        region_mask = np.array([sum(bit[c] for c in cs if c >= 0)
                                for cs in self.region_cells.tolist()], np.uint64)
        cell_j = np.full((n + 1, geo.cells), -1, np.int8)
        for p in range(n):
            for j, r in enumerate(self.player_regions[p].tolist()):
                cell_j[p + 1, self.cell_region == r] = j
        nbr = geo.nbr
        step = np.array([sum(bit[t] for t in row if t >= 0) for row in nbr.tolist()], np.uint64)
        hop_over = np.where(nbr >= 0, nbr, -1).astype(np.int16)
        hop_land = np.full(nbr.shape, -1, np.int16)
        for c in range(geo.cells):
            for d in range(6):
                o = nbr[c, d]
                if o >= 0:
                    hop_land[c, d] = nbr[o, d]
        can_rest, in_goal = self.masks
        rest = np.array([sum(bit[c] for c in np.flatnonzero(row)) for row in can_rest],
                        np.uint64)
        goal = np.array([sum(bit[c] for c in np.flatnonzero(row)) for row in in_goal],
                        np.uint64)
        return (region_mask, self.region_size, self.region_players, self.region_np, cell_j,
                self.comp_id, self.offsets, self.binom, step, hop_over, hop_land, rest, goal)

    @cached_property
    def unrank_tables(self) -> tuple:
        """``star_compact.unrank_masks``'s tables: the colex-ordered subsets, the (region,
        player) pairs in the rank's order, and each vector's marbles and radix per pair."""
        m, n = self.marbles, self.players
        size = int(self.region_size.max())
        subsets = np.zeros((m + 1, comb(size, m)), np.uint64)
        for a in range(m + 1):
            for r, places in enumerate(_colex(size, a)):
                subsets[a, r] = sum(1 << f for f in places)
        pairs = [(r, int(self.region_players[r, j])) for r in range(len(self.region_size))
                 for j in range(int(self.region_np[r]))]
        comps = self.comps.tolist()
        vectors = list(product(range(len(comps)), repeat=n))
        amount = np.zeros((len(vectors), len(pairs)), np.int8)
        radix = np.ones((len(vectors), len(pairs)), np.int64)
        for v, vector in enumerate(vectors):
            free = self.region_size.tolist()
            for k, (r, p) in enumerate(pairs):
                j = self.player_regions[p].tolist().index(r)
                a = comps[vector[p]][j]
                amount[v, k] = a
                radix[v, k] = comb(free[r], a) if a <= free[r] else 0
                free[r] -= a
        return (subsets, np.array([p for _, p in pairs], np.int8),
                np.array([r for r, _ in pairs], np.int8), amount, radix)


def _colex(size: int, a: int) -> list[tuple[int, ...]]:
    """The a-subsets of range(size) in colex order (the rank ``star_index`` gives them)."""
    return sorted(combinations(range(size), a), key=lambda c: c[::-1])


@lru_cache(maxsize=None)
def star_space(holes: int, players: int, marbles: int) -> StarSpace:
    return StarSpace(holes, players, marbles)
