"""The small stars' coalition retrograde on every core, one byte a slot (issue 63).

Slots and values are ``star_solve``'s (slot = placement * n + mover - 1, values for the lone
player L), which stays as the reference this solver is compared with.  What differs:

* **One byte a slot** (``state`` uint8), which is both the value and the counter:
  1 .. ``cap``: undecided, that many children not yet won by the mover's opponents' side;
  MANY: undecided with more than ``cap`` children (settled by looking at them all, ``_pull``);
  DECIDED + 2 d + w: decided at distance d (at most MAX_DISTANCE), w = 0 L's win, 1 the
  coalition's; ILLEGAL_CODE.  Whatever is undecided at the end is a draw.  The 37-hole star
  with 3 players of 3 marbles, 14.8e9 slots, takes 14.8 GB.
* **Bitboards**: a placement is one uint64 per player (``masks[p]``, cells below 64: the 13-
  and 37-hole stars); moves are hop chains over them (``reach``) and the rank is computed
  from the bits (``rank_masks``: a popcount a marble instead of a walk over every cell).
* **Every core**: the passes run over ``prange`` tasks, each a stride of blocks spread over
  the table (the frontier is not spread evenly); a slot is updated by compare-and-swap
  (``cas_u8``), since two threads may back up into the same parent at once.

``tables`` (``tbdb.games.chinese_checkers.stars.StarSpace.compact_tables``)::

    region_mask uint64[R]      cells of each region     region_size int16[R]
    region_players int8[R, P]  region_np int8[R]        cell_j int8[n + 1, cells]: the place
                               (0 centre, 1 start, 2 goal) of cell c among p's regions, or -1
    comp_id int16[m + 1, m + 1]   offsets int64[V + 1]   binom int64[S + 1, K + 1]
    step uint64[cells]         the cells one step away  hop_over, hop_land int16[cells, 6]
    rest uint64[n + 1]         where p may rest         goal uint64[n + 1]: p's goal point

and ``unrank_tables`` (``StarSpace.unrank_tables``, read by ``unrank_masks``).
"""
import numpy as np

from tbdb.solvers.bits import cas_u8, low_bit, popcount
from tbdb.solvers.jit import inline_kernel, kernel, parallel_kernel, prange
from tbdb.solvers.prefetch import prefetch

#: the largest child count a state byte holds; a position with more is MANY
COUNT_CAP = 63
MANY = 64
DECIDED = 65
MAX_DISTANCE = 94  # DECIDED + 2 * 94 + 1 = 254
ILLEGAL_CODE = 255
#: prange tasks per pass: each takes blocks task, task + TASKS, ... of BLOCK slots
TASKS = 256
BLOCK = 1 << 12

ONE = np.uint64(1)


@kernel
def reach(s, occ, rest, step, hop_over, hop_land):
    """The cells a marble on ``s`` may move to (``occ``: the other marbles): one step, or a
    chain of hops over any marbles through any cells, ending where ``rest`` allows."""
    seen = ONE << np.uint64(s)
    todo = seen
    hops = np.uint64(0)
    while todo != 0:
        u = low_bit(todo)
        todo &= todo - ONE
        for d in range(6):
            t = hop_land[u, d]
            if t < 0:
                continue
            bt = ONE << np.uint64(t)
            if (occ >> np.uint64(hop_over[u, d])) & ONE and (occ | seen) & bt == 0:
                seen |= bt
                todo |= bt
                hops |= bt
    return (hops | (step[s] & ~occ)) & rest


@kernel
def count_moves(masks, p, occ, rest, step, hop_over, hop_land):
    """The moves of player ``p`` (each a distinct child)."""
    total = 0
    w = masks[p]
    while w != 0:
        s = low_bit(w)
        w &= w - ONE
        total += popcount(reach(s, occ & ~(ONE << np.uint64(s)), rest[p], step, hop_over,
                                hop_land))
    return total


@kernel
def can_move(masks, p, occ, rest, step, hop_over, hop_land):
    """Whether player ``p`` has a move: a step settles it for nearly every position."""
    w = masks[p]
    while w != 0:
        s = low_bit(w)
        w &= w - ONE
        if step[s] & ~occ & rest[p] != 0:
            return True
    return count_moves(masks, p, occ, rest, step, hop_over, hop_land) > 0


@kernel
def position_status(masks, n, mover, goal):
    """0 play, 1 finished (the last mover has every marble on its goal), 2 illegal (another
    player has: the game would have ended before)."""
    last = (mover - 2) % n + 1
    out = 0
    for p in range(1, n + 1):
        if masks[p] & ~goal[p] == 0:
            if p != last:
                return 2
            out = 1
    return out


@kernel
def rank_masks(masks, n, region_mask, region_size, region_players, region_np, cell_j, comp_id,
               offsets, binom):
    """``star_index.rank_placement`` of the placement ``masks`` (trusted: every marble where
    its player may rest, m each)."""
    ncomp = comp_id.shape[0] * (comp_id.shape[0] + 1) // 2
    vid = 0
    for p in range(1, n + 1):
        a0 = 0
        a1 = 0
        w = masks[p]
        while w != 0:
            c = low_bit(w)
            w &= w - ONE
            j = cell_j[p, c]
            a0 += j == 0
            a1 += j == 1
        vid = vid * ncomp + comp_id[a0, a1]
    within = 0
    for r in range(region_mask.shape[0]):
        rm = region_mask[r]
        taken = np.uint64(0)
        free = region_size[r]
        for j in range(region_np[r]):
            bits = masks[region_players[r, j] + 1] & rm
            a = 0
            rank = 0
            w = bits
            while w != 0:
                c = low_bit(w)
                w &= w - ONE
                a += 1
                rank += binom[popcount(rm & ~taken & ((ONE << np.uint64(c)) - ONE)), a]
            within = within * binom[free, a] + rank
            free -= a
            taken |= bits
    return offsets[vid] + within


@kernel
def _deposit(places, free):
    """The cells of mask ``free`` at the places set in ``places`` (place 0: its lowest)."""
    out = np.uint64(0)
    at = 0
    w = places
    while w != 0:
        k = low_bit(w)
        w &= w - ONE
        while at < k:  # drop the free cells below the k-th
            free &= free - ONE
            at += 1
        out |= free & (~free + ONE)
    return out


@kernel
def unrank_masks(index, n, region_mask, offsets, unrank_tables, ranks, masks):
    """``masks`` of the placement of rank ``index`` (``star_index.unrank_placement`` from the
    bits); returns the occupancy.  ``unrank_tables``: (subsets uint64[m + 1, C(S, m)]: the
    subsets of each size in colex order, as masks of places; pair_player int8[K],
    pair_region int8[K]: the (region, player) pairs in the rank's order; pair_amount
    int8[V, K] and pair_radix int64[V, K]: each vector's marbles and radix per pair).
    ``ranks``: int64[K] scratch."""
    subsets, pair_player, pair_region, pair_amount, pair_radix = unrank_tables
    vid = np.searchsorted(offsets, index, side="right") - 1
    within = index - offsets[vid]
    pairs = pair_player.shape[0]
    for k in range(pairs - 1, -1, -1):  # the mixed radix's digits, the last pair's first
        radix = pair_radix[vid, k]
        if radix > 1:
            ranks[k] = within % radix
            within //= radix
        else:
            ranks[k] = 0
    masks[:] = 0
    occ = np.uint64(0)
    last = -1
    for k in range(pairs):  # a region's players in order, each on the cells left to it
        r = pair_region[k]
        if r != last:
            taken = np.uint64(0)
            last = r
        a = pair_amount[vid, k]
        if a == 0:
            continue
        cells = _deposit(subsets[a, ranks[k]], region_mask[r] & ~taken)
        masks[pair_player[k] + 1] |= cells
        taken |= cells
        occ |= cells
    return occ


@kernel
def task_scratch(n, pairs):
    """Each task's unranking scratch and masks (made before the loop)."""
    return np.zeros((TASKS, pairs), np.int64), np.zeros((TASKS, n + 1), np.uint64)


@parallel_kernel
def init_states(lone, n, placements, cap, tables, unrank_tables, state):
    """Every slot's first state: ILLEGAL_CODE, decided at 0 (finished: the last mover won),
    or its children's count (MANY above ``cap``; a player without a move has its pass).
    Returns the positions with more than ``cap`` children."""
    (region_mask, region_size, region_players, region_np, cell_j, comp_id, offsets, binom,
     step, hop_over, hop_land, rest, goal) = tables
    many = np.zeros(TASKS, np.int64)
    blocks = (placements + BLOCK - 1) // BLOCK
    ranks_of, masks_of = task_scratch(n, unrank_tables[1].shape[0])
    for task in prange(TASKS):
        ranks, masks = ranks_of[task], masks_of[task]
        for b in range(task, blocks, TASKS):
            for pl in range(b * BLOCK, min(placements, (b + 1) * BLOCK)):
                occ = unrank_masks(pl, n, region_mask, offsets, unrank_tables, ranks, masks)
                for mover in range(1, n + 1):
                    slot = pl * n + mover - 1
                    st = position_status(masks, n, mover, goal)
                    if st == 2:
                        state[slot] = ILLEGAL_CODE
                    elif st == 1:
                        state[slot] = DECIDED + (0 if (mover - 2) % n + 1 == lone else 1)
                    else:
                        k = count_moves(masks, mover, occ, rest, step, hop_over, hop_land)
                        if k > cap:
                            state[slot] = MANY
                            many[task] += 1
                        else:
                            state[slot] = max(k, 1)
    return many.sum()


@inline_kernel
def moved_slots(masks, q, occ, n, mover, tables, state, slots_out, moved_out):
    """The placements one move of player ``q`` leads to from ``masks`` (moves are reversible:
    also the ones such a move came from): their slots with ``mover`` to move in ``slots_out``,
    each asked for from memory at once (they scatter over ``state``: the loads overlap with
    the ranking of the next), each move (from * 64 + to) in ``moved_out``; returns how many.
    ``masks`` is left as it was."""
    (region_mask, region_size, region_players, region_np, cell_j, comp_id, offsets, binom,
     step, hop_over, hop_land, rest, goal) = tables
    own = masks[q]
    found = 0
    w = own
    while w != 0:
        s = low_bit(w)
        w &= w - ONE
        bs = ONE << np.uint64(s)
        dest = reach(s, occ & ~bs, rest[q], step, hop_over, hop_land)
        while dest != 0:
            t = low_bit(dest)
            dest &= dest - ONE
            masks[q] = own & ~bs | (ONE << np.uint64(t))
            slot = rank_masks(masks, n, region_mask, region_size, region_players, region_np,
                              cell_j, comp_id, offsets, binom) * n + mover - 1
            if slot < state.shape[0]:  # (an empty ``state``: the slots only, none asked for)
                prefetch(state, slot)
            slots_out[found] = slot
            moved_out[found] = s * 64 + t
            found += 1
    masks[q] = own
    return found


@kernel
def _pull(masks, occ, q, n, level, won_by, tables, state, children, moved):
    """Whether every child of the MANY position (``masks``, ``q`` to move) is decided for
    ``won_by`` at ``level`` or before (then it is lost at ``level + 1``; a child decided later
    in this pass brings the question again when its own level is backed up).  ``children``,
    ``moved``: scratch for ``moved_slots``."""
    for i in range(moved_slots(masks, q, occ, n, q % n + 1, tables, state, children, moved)):
        code = np.int64(state[children[i]])
        if not (DECIDED <= code < ILLEGAL_CODE and (code - DECIDED) % 2 == won_by
                and (code - DECIDED) // 2 <= level):
            return False
    return True


@kernel
def _back_up(parent, q, lone, won_by, level, masks, occ, n, tables, state, children, moved):
    """A child of ``parent`` (``q`` to move, its placement ``masks``) was decided for
    ``won_by`` at ``level``: the parent is won at level + 1 if that is its mover's side, else
    one child fewer is left to it (lost at level + 1 when none is).  Returns 1 if this decided
    the parent."""
    code = DECIDED + 2 * (level + 1) + won_by
    old = state[parent]
    if won_by == (0 if q == lone else 1):
        while old <= MANY:
            seen = cas_u8(state, parent, old, code)
            if seen == old:
                return 1
            old = seen
        return 0
    while old <= MANY:
        if old == MANY:
            if not _pull(masks, occ, q, n, level, won_by, tables, state, children, moved):
                return 0
            return 1 if cas_u8(state, parent, MANY, code) == MANY else 0
        new = code if old == 1 else old - 1
        seen = cas_u8(state, parent, old, new)
        if seen == old:
            return 1 if old == 1 else 0
        old = seen
    return 0


@parallel_kernel
def back_up_level(lone, n, level, tables, unrank_tables, state):
    """Back up every slot decided at ``level`` into the positions it may have come from.
    Returns (slots decided at ``level``, parents decided at level + 1); at MAX_DISTANCE the
    slots are only counted (a parent's distance would not fit its byte)."""
    (region_mask, region_size, region_players, region_np, cell_j, comp_id, offsets, binom,
     step, hop_over, hop_land, rest, goal) = tables
    slots = state.shape[0]
    blocks = (slots + BLOCK - 1) // BLOCK
    done = np.zeros(TASKS, np.int64)
    made = np.zeros(TASKS, np.int64)
    want = DECIDED + 2 * level
    backs = level < MAX_DISTANCE  # else only counted: the driver stops at a longer distance
    ranks_of, masks_of = task_scratch(n, unrank_tables[1].shape[0])
    most = (unrank_tables[0].shape[0] - 1) * step.shape[0]  # a marble's moves at most: cells
    parents_of = np.zeros((TASKS, most), np.int64)
    moved_of = np.zeros((TASKS, most), np.int16)
    children_of = np.zeros((TASKS, most), np.int64)  # a MANY parent's children (_pull)
    moved_back_of = np.zeros((TASKS, most), np.int16)
    for task in prange(TASKS):
        ranks, masks = ranks_of[task], masks_of[task]
        parents, moved = parents_of[task], moved_of[task]
        children, moved_back = children_of[task], moved_back_of[task]
        for b in range(task, blocks, TASKS):
            for slot in range(b * BLOCK, min(slots, (b + 1) * BLOCK)):
                code = np.int64(state[slot])
                if code != want and code != want + 1:
                    continue
                done[task] += 1
                if not backs:
                    continue
                won_by = code - want
                pl = slot // n
                mover = slot % n + 1
                q = (mover - 2) % n + 1  # who moved into this position
                occ = unrank_masks(pl, n, region_mask, offsets, unrank_tables, ranks, masks)
                own = masks[q]
                # every parent's slot first, then each backed up
                found = moved_slots(masks, q, occ, n, q, tables, state, parents, moved)
                for i in range(found):
                    t, s = moved[i] // 64, moved[i] % 64  # q's marble came from s to t
                    bt, bs = ONE << np.uint64(t), ONE << np.uint64(s)
                    masks[q] = own & ~bt | bs
                    made[task] += _back_up(parents[i], q, lone, won_by, level, masks,
                                           occ & ~bt | bs, n, tables, state, children,
                                           moved_back)
                masks[q] = own
                if not can_move(masks, q, occ, rest, step, hop_over, hop_land):
                    made[task] += _back_up(pl * n + q - 1, q, lone, won_by, level, masks, occ,
                                           n, tables, state, children, moved_back)
    return done.sum(), made.sum()


@parallel_kernel
def unpack_states(state, result, distance):
    """``star_solve``'s (result int8, distance int16) from the state bytes."""
    for i in prange(state.shape[0]):
        code = np.int64(state[i])
        if code == ILLEGAL_CODE:
            result[i] = -128
            distance[i] = 0
        elif code >= DECIDED:
            result[i] = 1 if (code - DECIDED) % 2 == 0 else -1
            distance[i] = (code - DECIDED) // 2
        else:
            result[i] = 0
            distance[i] = 0
