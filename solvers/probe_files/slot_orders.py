"""Slot orders: an index table's file may hold its slots in another order than the game's
index, a permutation of the index's mixed-radix digits (``tbdb.probe_files.order``).  Here:
a game slot's place in the streams (``positions_by_table``, ``decode_slot_at``,
``decode_slot_pair_at``) and the entropy score an export picks the order by
(``order_scores``).
"""
import numpy as np

from tbdb.solvers.jit import inline_kernel, kernel, nogil_kernel
from tbdb.solvers.probe_files.slots import decode_slot

# An index table's file may hold its slots in another order than the game's index: a
# permutation of the index's mixed-radix digits (``tbdb.probe_files.order``).  ``order`` is
# int64[digits, 2]: per digit of the game's index, most significant first, its radix and its
# place (what the digit is worth) in the stream order.

@inline_kernel
def _position(order, slot):
    """The place in the streams of game slot ``slot``."""
    pos = np.int64(0)
    rest = slot
    for d in range(order.shape[0] - 1, -1, -1):
        r = order[d, 0]
        q = rest // r
        pos += (rest - q * r) * order[d, 1]
        rest = q
    return pos


@kernel
def positions_by_table(keys, bounds, orders, digits):
    """The places in their streams of game slots ``keys`` (int64[n]) whose rows are grouped by
    table: rows ``bounds[i]..bounds[i+1]-1`` of table i, whose order is ``orders[i, :digits[i]]``
    (int64[tables, MAX_DIGITS, 2], ``order`` as above).  One call for a batch over a thousand
    CDC tables, where a NumPy pass per table cost more than the lookups."""
    out = np.empty(len(keys), np.int64)
    for i in range(len(bounds) - 1):
        order = orders[i, :digits[i]]
        for r in range(bounds[i], bounds[i + 1]):
            out[r] = _position(order, keys[r])
    return out


@kernel
def decode_slot_at(buf, table, order, slot, damaged):
    """The value of game slot ``slot`` of a stream held in ``order``."""
    return decode_slot(buf, table, _position(order, slot), damaged)


@kernel
def decode_slot_pair_at(buf, table, moves_buf, moves_table, order, slot, damaged):
    """(value, best move) of game slot ``slot`` of an index table whose streams are held in
    ``order``: one call, not two."""
    pos = _position(order, slot)
    return (decode_slot(buf, table, pos, damaged),
            decode_slot(moves_buf, moves_table, pos, damaged))


@inline_kernel
def _add_pair(pair, row, clogc, k, x, y, h):
    """Count pair (``x``, ``y``) once more; ``h`` (the entropy as ``order_scores`` keeps it)
    after that."""
    cell = x * k + y
    h -= clogc[pair[cell] + 1] - clogc[pair[cell]]
    h += clogc[row[x] + 1] - clogc[row[x]]
    pair[cell] += 1
    row[x] += 1
    return h


@nogil_kernel
def order_scores(sym, k, radix, perms, samples):
    """Per candidate order (``perms`` int64[orders, digits]: the game's digits from the most
    significant of that order to the least), the entropy in bits of a slot's symbol given the
    symbol before it along that order, summed over neighbouring pairs that start at the
    ``samples`` (int64[m, digits]: digits of game slots, each below its ``radix``, the game's
    radices most significant first).  ``sym`` int32[n]: the slots' symbols ``0..k-1`` in game
    order.  A slot's next along an order adds one to that order's last digit, carrying into
    the digits before it; the stream's last slot (no next) is skipped.

    Orders that end in the same digit share every pair whose last digit does not wrap (all but
    1/radix of them), and orders that end in the same two digits every pair whose last two do
    not both wrap: those are counted once per ending, and an order counts only the samples
    that carry further (a 4-piece CDC table has 120 orders, 5 last digits and 20 last pairs;
    counting every sample's pair for every order was a large part of an export).  The entropy
    is kept as sums, -sum c log2 c over pairs + sum r log2 r over first symbols, so that a pair
    counted changes it by two differences of ``c log2 c``, and is taken off again the same
    way."""
    digits = len(radix)
    game_place = np.ones(digits, np.int64)
    for d in range(digits - 2, -1, -1):
        game_place[d] = game_place[d + 1] * radix[d + 1]
    m = len(samples)
    at = np.empty(m, np.int64)
    for i in range(m):
        a = np.int64(0)
        for d in range(digits):
            a += samples[i, d] * game_place[d]
        at[i] = a
    clogc = np.zeros(m + 2, np.float64)  # c log2 c
    for c in range(2, m + 2):
        clogc[c] = c * np.log2(c)
    out = np.zeros(len(perms), np.float64)
    pair = np.zeros(k * k, np.int64)
    row = np.zeros(k, np.int64)
    carries = np.empty(m, np.int64)  # samples whose last digit wraps
    carries2 = np.empty(m, np.int64)  # of those, the ones whose last two digits wrap
    added = np.empty(m, np.int64)  # pairs (first symbol * k + second) counted, to take off
    added2 = np.empty(m, np.int64)
    for last in range(digits):
        pair[:] = 0
        row[:] = 0
        n_carries = 0
        for i in range(m):
            if samples[i, last] + 1 < radix[last]:
                x = np.int64(sym[at[i]])
                pair[x * k + sym[at[i] + game_place[last]]] += 1
                row[x] += 1
            else:
                carries[n_carries] = i
                n_carries += 1
        base = 0.0
        for p in range(k * k):
            base -= clogc[pair[p]]
        for x in range(k):
            base += clogc[row[x]]
        if digits == 1:
            for o in range(len(perms)):
                out[o] = base
            continue
        for before in range(digits):
            ending = 0
            for o in range(len(perms)):
                if perms[o, digits - 1] == last and perms[o, digits - 2] == before:
                    ending += 1
            if ending == 0:
                continue
            h1 = base
            n_added = 0
            n_carries2 = 0
            for c in range(n_carries):
                i = carries[c]
                if samples[i, before] + 1 < radix[before]:
                    a = at[i]
                    b = a - samples[i, last] * game_place[last] + game_place[before]
                    x = np.int64(sym[a])
                    y = np.int64(sym[b])
                    h1 = _add_pair(pair, row, clogc, k, x, y, h1)
                    added[n_added] = x * k + y
                    n_added += 1
                else:
                    carries2[n_carries2] = i
                    n_carries2 += 1
            for o in range(len(perms)):
                if perms[o, digits - 1] != last or perms[o, digits - 2] != before:
                    continue
                h = h1
                n_added2 = 0
                for c in range(n_carries2):
                    i = carries2[c]
                    a = at[i]
                    # the last two digits wrap to 0
                    b = (a - samples[i, last] * game_place[last]
                         - samples[i, before] * game_place[before])
                    j = digits - 3
                    while j >= 0:
                        d = perms[o, j]
                        if samples[i, d] + 1 < radix[d]:
                            b += game_place[d]
                            break
                        b -= samples[i, d] * game_place[d]  # this digit wraps too: carry on
                        j -= 1
                    if j < 0:
                        continue
                    x = np.int64(sym[a])
                    y = np.int64(sym[b])
                    h = _add_pair(pair, row, clogc, k, x, y, h)
                    added2[n_added2] = x * k + y
                    n_added2 += 1
                out[o] = h
                for q in range(n_added2):
                    pair[added2[q]] -= 1
                    row[added2[q] // k] -= 1
            for q in range(n_added):
                pair[added[q]] -= 1
                row[added[q] // k] -= 1
    return out
