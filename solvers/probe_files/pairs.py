"""Pair substitution, the first step of coding a probe-file stream (``tbdb.probe_files.coder``):
a stream's slot values become terminal symbols (``value_places``), then Re-Pair rounds replace
frequent adjacent pairs inside a block by new symbols (``substitute``, or ``replay`` of rounds
made on other blocks); ``symbol_counts`` and ``pair_sizes`` give what the Huffman step and the
decoder need.  The kernels release the GIL: an export codes a table's values and best moves
on two threads at once (``tbdb.probe_files.format.write_table``).  Layouts: the package's
docstring.
"""
import numpy as np

from tbdb.solvers.jit import kernel, nogil_kernel

# Re-Pair in rounds: each round takes the most frequent adjacent pairs inside a block (at most
# ``per_round``, each seen ``min_pair`` times or more and at least 1/``ratio`` as often as the
# most frequent, ratio 0: no such limit; ties to the lower pair number ``a * stride + b``),
# makes them new symbols in that order and replaces them left to right.
# The pair counts are not recounted each round: the replacing pass takes off the pairs a
# replacement destroys and adds those it creates, so a round costs one sequential pass over the
# stream plus a few counter updates per replacement (recounting cost a random access per
# symbol and round: most of the coder's time on CDC tables), and the counts are kept in a list
# of the pairs seen that a round scans in order.


@nogil_kernel
def _grown(pair, count, new_of, least):
    """``pair``, ``count`` and ``new_of`` in arrays of at least ``least`` entries (at least
    twice as long; the new entries of ``new_of`` -1)."""
    n = max(least, 2 * len(pair))
    p = np.empty(n, pair.dtype)
    c = np.empty(n, count.dtype)
    w = np.full(n, -1, new_of.dtype)
    p[:len(pair)] = pair
    c[:len(count)] = count
    w[:len(new_of)] = new_of
    return p, c, w


@nogil_kernel
def substitute(seq, k, block_slots, limit, per_round, min_pair, ratio, where, pair, count,
               new_of, left, right, size, rounds):
    """Pair substitution of ``seq`` (int32, symbols ``0..k-1``, rewritten in place) inside
    blocks of ``block_slots`` slots, up to ``limit`` symbols in all.  Pair ``a, b`` is number
    ``a * stride + b``, ``stride * stride = len(where)``, ``stride >= limit``.  Scratch arrays,
    reused from call to call (their pages stay mapped: touching fresh pages cost as much as the
    coding): ``where`` int32, zero on entry and on return (a pair's entry in the list of pairs
    seen, plus one); ``pair``, ``count`` (int32) that list and its counts; ``new_of`` (int32,
    as long, -1 on entry and on return) the new symbol of a chosen pair's entry; all three
    at least ``min(len(seq), k * k) + 2`` long (they are grown when a round needs more, and
    returned).  ``left``/``right`` (int32) get the parts of pair symbol ``k + j`` at ``j``;
    ``size`` (int64[limit], ones) the slots of each symbol; ``rounds`` (int64[limit]) gets the
    number of symbols after each round (``replay`` makes the same substitution on other
    blocks).  Returns (the rewritten length, the number of symbols, the number of rounds, pair,
    count, new_of)."""
    m = len(seq)
    n_rounds = 0
    if k >= limit or m < 2:
        return m, k, n_rounds, pair, count, new_of
    stride = np.int64(np.sqrt(len(where)) + 0.5)
    mask = block_slots - 1
    n_pairs = 0
    at = 0
    for i in range(m - 1):
        at += size[seq[i]]
        if at & mask != 0:
            p = np.int64(seq[i]) * stride + seq[i + 1]
            e = where[p]
            if e == 0:  # a pair never seen before gets the next entry
                pair[n_pairs] = p
                count[n_pairs] = 1
                n_pairs += 1
                where[p] = n_pairs
            else:
                count[e - 1] += 1
    n_symbols = k
    best_c = np.empty(per_round, np.int64)
    best_p = np.empty(per_round, np.int64)
    chosen = np.empty(per_round, np.int64)
    leads = np.zeros(limit, np.bool_)
    while n_symbols < limit and m > 1:
        # the most frequent pairs, by (count descending, pair ascending): a sorted short list
        take = min(per_round, limit - n_symbols)
        got = 0
        for i in range(n_pairs):
            c = np.int64(count[i])
            if c < min_pair:
                continue
            p = np.int64(pair[i])
            if got == take and (c < best_c[got - 1]
                                or (c == best_c[got - 1] and p > best_p[got - 1])):
                continue
            at_ = got if got < take else take - 1
            while at_ > 0 and (best_c[at_ - 1] < c
                               or (best_c[at_ - 1] == c and best_p[at_ - 1] > p)):
                best_c[at_] = best_c[at_ - 1]
                best_p[at_] = best_p[at_ - 1]
                at_ -= 1
            best_c[at_] = c
            best_p[at_] = p
            if got < take:
                got += 1
        # and of those only the pairs seen at least 1/ratio as often as the first: a pair far
        # down the list waits for a later round, where the pairs this round makes may beat it
        while ratio > 0 and got > 1 and best_c[got - 1] * ratio < best_c[0]:
            got -= 1
        if got == 0:
            break
        for i in range(got):
            a, b = best_p[i] // stride, best_p[i] % stride
            left[n_symbols - k + i] = a
            right[n_symbols - k + i] = b
            size[n_symbols + i] = size[a] + size[b]
            leads[a] = True
        # a replacement creates at most two pairs: room for them before the pass (the arrays
        # are not grown inside it: an array reassigned in a loop costs on every step)
        need = n_pairs + 2
        for i in range(got):
            need += 2 * best_c[i]
        if need > len(pair):
            pair, count, new_of = _grown(pair, count, new_of, need)
        # a chosen pair's entry holds its new symbol (-1: not chosen)
        for i in range(got):
            chosen[i] = where[best_p[i]] - 1
            new_of[chosen[i]] = n_symbols + i
        # replace left to right, keeping the counts those of the rewritten stream
        i = 0
        j = 0
        at = 0
        prev_in = np.int64(-1)  # the input symbol before i, and whether a pair took it
        prev_taken = False
        prev_out = np.int64(-1)  # the output symbol before j, and whether it is new
        prev_new = False
        while i < m:
            a = np.int64(seq[i])
            c = np.int64(-1)
            created = np.int64(-1)
            if leads[a] and i + 1 < m and (at + size[a]) & mask != 0:
                c = new_of[where[a * stride + seq[i + 1]] - 1]
            if c >= 0:
                b = np.int64(seq[i + 1])
                count[where[a * stride + b] - 1] -= 1
                if i > 0 and not prev_taken and at & mask != 0:
                    # (taken: the replacement of that symbol took the pair off)
                    count[where[prev_in * stride + a] - 1] -= 1
                end = at + size[a] + size[b]
                if i + 2 < m and end & mask != 0:
                    count[where[b * stride + seq[i + 2]] - 1] -= 1
                if j > 0 and at & mask != 0:
                    created = prev_out * stride + c
                seq[j] = c
                prev_out, prev_new, prev_in, prev_taken = c, True, b, True
                at = end
                i += 2
            else:
                if prev_new and at & mask != 0:
                    created = prev_out * stride + a
                seq[j] = a
                prev_out, prev_new, prev_in, prev_taken = a, False, a, False
                at += size[a]
                i += 1
            j += 1
            if created >= 0:  # (written out here: a helper call slows this loop down a lot)
                e = where[created]
                if e == 0:
                    pair[n_pairs] = created
                    count[n_pairs] = 1
                    n_pairs += 1
                    where[created] = n_pairs
                else:
                    count[e - 1] += 1
        m = j
        for i in range(got):
            leads[left[n_symbols - k + i]] = False
            new_of[chosen[i]] = -1
        n_symbols += got
        rounds[n_rounds] = n_symbols
        n_rounds += 1
    for i in range(n_pairs):
        where[pair[i]] = 0
    return m, n_symbols, n_rounds, pair, count, new_of


@nogil_kernel
def replay(seq, m, k, block_slots, left, right, size, rounds, n_rounds, where, leads):
    """Pair substitution of ``seq[:m]`` (int32, terminals ``0..k-1``, rewritten in place; its
    start is a block's) by the rounds ``substitute`` made on other blocks: round ``r`` made
    symbols ``rounds[r - 1]..rounds[r] - 1`` (``rounds[-1]`` = k), pair symbol ``s`` stands
    for ``left[s - k]``, ``right[s - k]``.  Each round's pairs are replaced left to right,
    inside blocks, exactly as ``substitute``'s pass does: on the blocks it was made from, the
    same sequence.  Scratch: ``where`` (int32[stride * stride], zero on entry and on return),
    ``leads`` (bool[K], False on entry and on return).  Returns the rewritten length."""
    stride = np.int64(np.sqrt(len(where)) + 0.5)
    mask = block_slots - 1
    lo = k
    for r in range(n_rounds):
        hi = rounds[r]
        for s in range(lo, hi):
            a = np.int64(left[s - k])
            where[a * stride + right[s - k]] = s + 1
            leads[a] = True
        i = 0
        j = 0
        at = 0
        while i < m:
            a = np.int64(seq[i])
            c = 0
            if leads[a] and i + 1 < m and (at + size[a]) & mask != 0:
                c = where[a * stride + seq[i + 1]]
            if c > 0:
                at += size[a] + size[seq[i + 1]]
                seq[j] = c - 1
                i += 2
            else:
                at += size[a]
                seq[j] = a
                i += 1
            j += 1
        m = j
        for s in range(lo, hi):
            where[np.int64(left[s - k]) * stride + right[s - k]] = 0
            leads[left[s - k]] = False
        lo = hi
    return m


@nogil_kernel
def value_places(values, lo, span):
    """(counts int64[span] of each value ``lo + v``, each element's place among the values
    present in ascending order, int32[n]): ``values`` all in ``lo .. lo + span - 1``."""
    counts = np.zeros(span, np.int64)
    for i in range(len(values)):
        counts[np.int64(values[i]) - lo] += 1
    place = np.full(span, -1, np.int32)
    k = 0
    for v in range(span):
        if counts[v]:
            place[v] = k
            k += 1
    out = np.empty(len(values), np.int32)
    for i in range(len(values)):
        out[i] = place[np.int64(values[i]) - lo]
    return counts, out


@nogil_kernel
def symbol_counts(seq, m, n_symbols):
    out = np.zeros(n_symbols, np.int64)
    for i in range(m):
        out[seq[i]] += 1
    return out


@kernel
def pair_sizes(k, left, right):
    """int64[k + len(left)]: the slots each symbol stands for (terminals 1; pair j, symbol
    k + j, the sum of its parts, which are earlier symbols: checked by the caller)."""
    size = np.ones(k + len(left), np.int64)
    for j in range(len(left)):
        size[k + j] = size[left[j]] + size[right[j]]
    return size
