"""The index of marble placements on the small stars (issue 63): rank and unrank.

A placement gives each of n players its marbles on cells it may rest on: the central hexagon
(region 0) and its own start and goal points (one region per point someone uses; a point is
one player's with 3 players, two opposite players' with 2, 4 or 6).  A placement's rank is

    offset[vector] + the mixed-radix number of its regions' arrangements

where ``vector`` says how many marbles each player keeps in each of its (up to) three regions
(one composition of its marbles per player, numbered ``comp_id``), ``offset`` sums the
placements of the vectors before it, and a region's arrangement is, for each player allowed
there in turn, the colex rank of its marbles' cells among the region's cells the players
before it left free.  Every number from 0 to ``offset[-1] - 1`` is one placement: the index
has no holes, and its size is the published count of placements.

The arrays (``tbdb.games.chinese_checkers.stars.StarSpace``):

    region_cells int16[R, S]   each region's cells, ascending (-1 after its size)
    region_size int16[R]       region_players int8[R, P]: players (0-based) allowed, in order
    region_np int8[R]          player_slot int8[R, n]: a player's place in that order, or -1
    player_regions int8[n, 3]  a player's regions (centre, start point, goal point)
    cell_region int8[cells]    the region of each cell (-1: a point no one may rest on)
    comp_id int16[m + 1, m + 1]  a composition (a0, a1, m - a0 - a1)'s number; comps int8[C, 3]
    offsets int64[V + 1]       binom int64[S + 1, K + 1]: C(i, j)

Both kernels take ``work``, int64[work_size(n, R)] of scratch: they run once or twice for
every move a solve looks at, where allocating their small arrays was most of the cost.
"""
import numpy as np

from tbdb.solvers.jit import kernel


def work_size(n: int, regions: int) -> int:
    return 3 * n + 3 * regions * n


@kernel
def rank_placement(cells, n, m, region_cells, region_size, region_np, player_slot,
                   player_regions, cell_region, comp_id, offsets, binom, work):
    """The rank of ``cells`` (int8[cells]: 0 empty, else the player 1..n), or -1 if a marble
    rests where its player may not or a player has other than ``m`` marbles."""
    counts = work[:3 * n].reshape((n, 3))
    counts[:] = 0
    for c in range(cells.shape[0]):
        p = cells[c]
        if p == 0:
            continue
        r = cell_region[c]
        if r < 0:
            return -1
        j = 0
        while j < 3 and player_regions[p - 1, j] != r:
            j += 1
        if j == 3:
            return -1
        counts[p - 1, j] += 1
    ncomp = comp_id.shape[0] * (comp_id.shape[0] + 1) // 2
    vid = 0
    for p in range(n):
        if counts[p, 0] + counts[p, 1] + counts[p, 2] != m:
            return -1
        vid = vid * ncomp + comp_id[counts[p, 0], counts[p, 1]]
    within = 0
    for r in range(region_size.shape[0]):
        free = region_size[r]
        for j in range(region_np[r]):
            a = 0
            rank = 0
            fi = 0
            for s in range(region_size[r]):
                q = cells[region_cells[r, s]]
                if q > 0 and 0 <= player_slot[r, q - 1] < j:
                    continue  # taken by a player before this one
                if q > 0 and player_slot[r, q - 1] == j:
                    a += 1
                    rank += binom[fi, a]
                fi += 1
            within = within * binom[free, a] + rank
            free -= a
    return offsets[vid] + within


@kernel
def unrank_placement(index, n, m, region_cells, region_size, region_players, region_np,
                     player_regions, comps, offsets, binom, out, work):
    """The placement of rank ``index`` written into ``out`` (int8[cells], zeroed here)."""
    out[:] = 0
    vid = np.searchsorted(offsets, index, side="right") - 1
    ncomp = comps.shape[0]
    counts = work[:3 * n].reshape((n, 3))
    v = vid
    for p in range(n - 1, -1, -1):
        c = v % ncomp
        v //= ncomp
        for j in range(3):
            counts[p, j] = comps[c, j]
    # each (region, player) pair's count and radix, in the order the rank multiplies them
    nreg = region_size.shape[0]
    pairs = 0
    for r in range(nreg):
        pairs += region_np[r]
    amount = work[3 * n:3 * n + pairs]
    radix = work[3 * n + pairs:3 * n + 2 * pairs]
    k = 0
    for r in range(nreg):
        free = region_size[r]
        for j in range(region_np[r]):
            p = region_players[r, j]
            a = 0
            for t in range(3):
                if player_regions[p, t] == r:
                    a = counts[p, t]
            amount[k] = a
            radix[k] = binom[free, a]
            free -= a
            k += 1
    ranks = work[3 * n + 2 * pairs:3 * n + 3 * pairs]
    within = index - offsets[vid]
    for k in range(pairs - 1, -1, -1):
        ranks[k] = within % radix[k]
        within //= radix[k]
    k = 0
    for r in range(nreg):
        for j in range(region_np[r]):
            p = region_players[r, j]
            rank = ranks[k]
            a = amount[k]
            k += 1
            # the colex subset: largest free index f with C(f, i + 1) <= rank, from the top
            f = region_size[r]
            for i in range(a - 1, -1, -1):
                f -= 1
                while binom[f, i + 1] > rank:
                    f -= 1
                rank -= binom[f, i + 1]
                # free index f -> the f-th cell of the region no player before this one holds
                fi = -1
                for s in range(region_size[r]):
                    cell = region_cells[r, s]
                    q = out[cell]
                    if q > 0 and q != p + 1:
                        continue
                    if q == p + 1:
                        fi += 1  # (placed by this player already: still a free cell for it)
                        continue
                    fi += 1
                    if fi == f:
                        out[cell] = p + 1
                        break


@kernel
def rank_rows(boards, rows, n, m, region_cells, region_size, region_np, player_slot,
              player_regions, cell_region, comp_id, offsets, binom, work, out):
    """``rank_placement`` of each board ``boards[rows[i]]`` into ``out[i]`` (the batch form)."""
    for i in range(rows.shape[0]):
        out[i] = rank_placement(boards[rows[i]], n, m, region_cells, region_size, region_np,
                                player_slot, player_regions, cell_region, comp_id, offsets,
                                binom, work)
