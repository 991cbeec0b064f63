"""Compact (``cp_init`` + ``cp_scan`` + ``cp_apply`` + ``cp_losses`` + ``cp_unpack``): while it
solves, a slot holds one packed state word and one counter, nothing else.

**State words** (``state``, uint8 or uint16 per slot; ``top`` = 255 or 65535 is its largest
value): LOSS at distance d is 2d, WIN at d is 2d + 1, for d <= ``limit(top)``; then, from the
top: NONE ``top``, ILLEGAL ``top - 1``, UNKNOWN ``top - 2``, PENDING ``top - 3`` (every in-table
child is won, the loss distance still needs the largest external win).  A uint8 state holds
distances up to 125; the driver widens it to uint16 before a pass could write a larger one, so
a distance never wraps.

**Counters** (``remaining``, uint8 or uint16): distinct in-table children not yet won; the
largest value of the dtype means "cannot lose" (an external child is drawn), so the counter is
never decremented.

Best moves are not held: a final pass picks them from the solved values (``pick_best``), and
multiplicities come from the census again.  A game whose moves fit a byte (``move_bytes``)
has the best move of each position won in the table kept in its counter, which a won position
no longer needs (``cp_apply``): the final pass then picks only the others' (lost, drawn, won
through an external loss).  The backup is the edge-free mode's: a lost child
makes a parent won at level + 1 (an earlier tentative win from an external loss is shortened),
a won child decrements the parent's counter and at zero the parent is lost at
1 + max(level, largest external win).  Where no position of the table has both in-table
children and an external win, that maximum is the level and the loss is written at once;
otherwise the parent becomes PENDING and the driver asks the game for its largest external
win (``cp_losses``).
"""
import numpy as np

from tbdb.solvers.jit import kernel, parallel_kernel, prange
from tbdb.solvers.prefetch import prefetch
from tbdb.solvers.retrograde.edge_free import owner
from tbdb.solvers.retrograde.rows import sorted_unique
from tbdb.solvers.retrograde.values import (DRAW, ILLEGAL, LOSS, NO_EXT, NO_MOVE, NONE, WIN,
                                            realises)

AHEAD = 4  # rows of parents prefetched ahead in cp_apply


@kernel
def limit(top):
    """The largest distance a state word of largest value ``top`` holds (125 or 32765)."""
    return (top - 4) // 2


@kernel
def _set(p, n, lo, hi, dr, top, state, remaining, never):
    """A position's state from its children: n distinct in-table children, the smallest
    external loss lo (NO_EXT none), the largest external win hi (-1 none), an external child
    drawn.  Returns (distance set or 0, whether its loss will need hi)."""
    if lo != NO_EXT:
        state[p] = 2 * (lo + 1) + 1
        remaining[p] = never  # won: no counter; and its best move (a byte) not known here
        return lo + 1, False
    if n == 0 and not dr:
        state[p] = 2 * (hi + 1)
        remaining[p] = 0
        return hi + 1, False
    state[p] = top - 2
    remaining[p] = never if dr else n
    return 0, hi >= 0 and not dr


@parallel_kernel
def cp_init(positions, count, child, ext_result, ext_distance, width, top, state, remaining,
            never):
    """Set each position of a ``children`` batch (``_set``).  Returns int64[3]: the largest
    distance set, the largest distance an external child gives + 1 (what the state must hold),
    and 1 if some unknown position has an external win (its loss then waits as PENDING)."""
    k = positions.shape[0]
    nchunk = (k + 1023) // 1024
    scratch = np.empty((nchunk, 2, max(width, 1)), np.int64)
    out = np.zeros((nchunk, 3), np.int64)
    for ch in prange(nchunk):
        buf = scratch[ch, 0]
        uniq = scratch[ch, 1]
        for r in range(ch * 1024, min(k, (ch + 1) * 1024)):
            m = 0
            lo = NO_EXT
            hi = np.int16(-1)
            dr = False
            for e in range(count[r]):
                c = child[r, e]
                if c >= 0:
                    buf[m] = c
                    m += 1
                    continue
                d = ext_distance[r, e]
                if ext_result[r, e] == LOSS:
                    if d < lo:
                        lo = d
                elif ext_result[r, e] == WIN:
                    if d > hi:
                        hi = d
                else:
                    dr = True
                if ext_result[r, e] != DRAW and d + 1 > out[ch, 1]:
                    out[ch, 1] = d + 1
            n = sorted_unique(buf, m, uniq)
            d, waits = _set(positions[r], n, lo, hi, dr, top, state, remaining, never)
            if d > out[ch, 0]:
                out[ch, 0] = d
            if waits:
                out[ch, 2] = 1
    res = np.zeros(3, np.int64)
    for ch in range(nchunk):
        for j in range(3):
            if out[ch, j] > res[j]:
                res[j] = out[ch, j]
    return res


@parallel_kernel
def cp_init_summaries(positions, distinct, ext_loss, ext_win, ext_draw, top, state, remaining,
                      never):
    """``cp_init`` from a game's ``summaries`` in place of its children (same result)."""
    k = positions.shape[0]
    nchunk = (k + 4095) // 4096
    out = np.zeros((nchunk, 3), np.int64)
    for ch in prange(nchunk):
        for r in range(ch * 4096, min(k, (ch + 1) * 4096)):
            lo = ext_loss[r]
            hi = ext_win[r]
            if lo != NO_EXT and lo + 1 > out[ch, 1]:
                out[ch, 1] = lo + 1
            if hi + 1 > out[ch, 1]:
                out[ch, 1] = hi + 1
            d, waits = _set(positions[r], distinct[r], lo, hi, ext_draw[r] != 0, top, state,
                            remaining, never)
            if d > out[ch, 0]:
                out[ch, 0] = d
            if waits:
                out[ch, 2] = 1
    res = np.zeros(3, np.int64)
    for ch in range(nchunk):
        for j in range(3):
            if out[ch, j] > res[j]:
                res[j] = out[ch, j]
    return res


@parallel_kernel
def cp_census(kind, lo, top, state):
    """Census kinds (0 a position, ILLEGAL, NONE) of slots lo.. into their state words
    (positions UNKNOWN until ``cp_init`` sets them)."""
    for i in prange(kind.shape[0]):
        kd = kind[i]
        state[lo + i] = top - 2 if kd == 0 else (top - 1 if kd == ILLEGAL else top)


@parallel_kernel
def cp_scan(state, want_a, want_b, lo, hi):
    """Slots in lo..hi whose state word is ``want_a`` or ``want_b``, ascending (the positions
    resolved at one distance: 2d and 2d + 1; or PENDING twice)."""
    n = hi - lo
    nchunk = (n + 65535) // 65536
    counts = np.zeros(nchunk + 1, np.int64)
    for ch in prange(nchunk):
        c = 0
        for i in range(lo + ch * 65536, min(hi, lo + (ch + 1) * 65536)):
            s = state[i]
            if s == want_a or s == want_b:
                c += 1
        counts[ch + 1] = c
    for ch in range(nchunk):
        counts[ch + 1] += counts[ch]
    out = np.empty(counts[nchunk], np.int64)
    for ch in prange(nchunk):
        j = counts[ch]
        for i in range(lo + ch * 65536, min(hi, lo + (ch + 1) * 65536)):
            s = state[i]
            if s == want_a or s == want_b:
                out[j] = i
                j += 1
    return out


@parallel_kernel
def cp_apply(batch, count, parent, codes, state, remaining, level, top, never, direct, parts,
             bytes_given):
    """Back up a batch of positions resolved at ``level`` to their deduplicated parents (the
    rule in the module docstring).  ``direct``: no position waits for an external win, so a
    loss is written at level + 1 at once; else it becomes PENDING.  Split by parent slot
    (``owner``) as in ``ef_apply``.  Returns the largest distance written.

    ``bytes_given``: ``codes[r, e]`` is the move from parent[r, e] to batch[r] as its byte
    (``move_bytes`` in docs/kernel-contract.md), and a won parent's counter, which it no longer
    needs, keeps the best move's byte: the smallest among its children lost at ``level``, as
    ``ef_apply`` keeps the smallest code.  ``never`` there means not known (a win through an
    external loss, whose move the final pass picks)."""
    tops = np.zeros(parts, np.int64)
    n = batch.shape[0]
    unknown = top - 2
    pending = top - 3
    won_next = 2 * (level + 1) + 1
    for t in prange(parts):
        best = 0
        for r in range(n):
            if r + AHEAD < n:
                for e in range(count[r + AHEAD]):
                    p = parent[r + AHEAD, e]
                    if owner(p, parts) == t:
                        prefetch(state, p)
                        prefetch(remaining, p)
            lost = state[batch[r]] % 2 == 0
            for e in range(count[r]):
                p = parent[r, e]
                if owner(p, parts) != t:
                    continue
                s = state[p]
                if lost:
                    # unknown, or won later than level + 1 through an external loss
                    if s == unknown or (s < pending and s % 2 == 1 and s > won_next):
                        state[p] = won_next
                        if bytes_given:
                            remaining[p] = codes[r, e]
                        if level + 1 > best:
                            best = level + 1
                    elif bytes_given and s == won_next and remaining[p] != never and \
                            codes[r, e] < remaining[p]:
                        remaining[p] = codes[r, e]
                elif s == unknown and remaining[p] != never:
                    remaining[p] -= 1
                    if remaining[p] == 0:
                        if direct:
                            state[p] = 2 * (level + 1)
                            if level + 1 > best:
                                best = level + 1
                        else:
                            state[p] = pending
        tops[t] = best
    return tops.max()


@parallel_kernel
def cp_losses(positions, ext_win, level, state):
    """PENDING positions lost at 1 + max(level, largest external win).  Returns the largest
    distance written."""
    k = positions.shape[0]
    out = np.zeros(k, np.int64)
    for r in prange(k):
        d = max(level, np.int64(ext_win[r])) + 1
        state[positions[r]] = 2 * d
        out[r] = d
    return out.max() if k else 0


@parallel_kernel
def cp_widen(state, wide, old_top, new_top):
    """A uint8 state copied into a uint16 one (values kept, the four codes moved to the top)."""
    shift = new_top - old_top
    for i in prange(state.shape[0]):
        s = np.int64(state[i])
        wide[i] = s + shift if s >= old_top - 3 else s


@kernel
def unpacked(s, top):
    """(result, distance) of a finished state word ``s`` (whatever is still unknown is a
    draw)."""
    if s == top:
        return NONE, 0
    if s == top - 1:
        return ILLEGAL, 0
    if s >= top - 3:
        return DRAW, 0
    return (WIN if s % 2 == 1 else LOSS), s // 2


@parallel_kernel
def cp_pack(result, distance, lo, top, state):
    """Stored values of slots lo.. (``result`` int8, ``distance`` int16) into finished state
    words; a value no word of largest value ``top`` holds (a distance out of range, an unknown
    result code: a damaged table) becomes ``top - 3``, which reads as a draw.  Returns how many
    did."""
    wrong = 0
    for i in prange(result.shape[0]):
        r = result[i]
        d = np.int64(distance[i])
        if r == NONE:
            s = top
        elif r == ILLEGAL:
            s = top - 1
        elif r == DRAW and d == 0:
            s = top - 2
        elif (r == WIN or r == LOSS) and 0 <= d <= (top - 4) // 2:
            s = 2 * d + (1 if r == WIN else 0)
        else:
            s = top - 3
            wrong += 1
        state[lo + i] = s
    return wrong


@kernel
def child_value(state, top, c, ext_r, ext_d):
    """(result, distance) of a ``children`` row's child: its finished state word when it is
    in the table (c >= 0), else the external value the row gives."""
    if c >= 0:
        return unpacked(np.int64(state[c]), top)
    return ext_r, ext_d


@parallel_kernel
def cp_unpack(state, lo, top, result, distance):
    """Slots lo.. of a finished state into ``result`` int8 / ``distance`` int16."""
    for i in prange(result.shape[0]):
        r, d = unpacked(np.int64(state[lo + i]), top)
        result[i] = r
        distance[i] = d


@parallel_kernel
def cp_pick_best_state(positions, lo, count, child, move, ext_result, ext_distance, state, top,
                       out):
    """``pick_best`` into a buffer of one chunk, out[p - lo] for each position p of the batch
    (the first move realising its value, -1 none), every value read from the finished state
    words: the output streams chunk by chunk while only the state (1-2 bytes a slot) is
    held."""
    for r in prange(positions.shape[0]):
        p = positions[r]
        pr, pd = unpacked(np.int64(state[p]), top)
        best = NO_MOVE
        for e in range(count[r]):
            cr, cd = child_value(state, top, child[r, e], ext_result[r, e], ext_distance[r, e])
            if realises(pr, pd, cr, cd):
                best = move[r, e]
                break
        out[p - lo] = best
