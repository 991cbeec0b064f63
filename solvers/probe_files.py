"""Kernels of the probe files' stream coder (``tbdb.probe_files.coder``,
``docs/probe-format.md``, "Streams"): pair substitution, then one canonical Huffman code.

A stream holds ``n`` slot values.  Terminal symbols ``0..k-1`` are the distinct values; pair
symbols ``k..K-1`` each stand for two symbols, ``left`` then ``right``, so a symbol stands for a
run of ``size[s]`` consecutive slots.  The slots are cut into blocks of ``block_slots``; no
symbol crosses a block's end, so a block decodes on its own.

Layouts the kernels share:

* ``seq`` int32[m]: a stream as symbols; ``size`` int64[K]: slots each symbol stands for.
* ``codes`` uint64[K], ``lengths`` uint8[K]: symbol s's Huffman code is the low ``lengths[s]``
  bits of ``codes[s]`` (0 = the symbol does not occur).
* ``bits`` uint8[...]: the bit stream read most significant bit first: bit i is bit
  ``7 - (i & 7)`` of byte ``i >> 3``; each block starts on a byte, at ``starts[b]`` (uint32,
  bytes), and ends 8 bytes before the array does at the latest (room to read a word).
* decoding tables (in one int64 ``table``, see "decoding" below): ``fast``[2**bits]: for
  the next ``bits`` bits (``fast_bits``), the symbol, its length and its size as
  ``size << 24 | symbol << 8 | length``, or -1 if the code is longer; longer codes by length
  ``l``: those whose 32-bit prefix lies below ``limit[l]`` and at or above ``limit[l - 1]``,
  the first ``first_code[l]`` (an l-bit integer), the others following it, their symbols
  ``order[first_index[l]:...]``.
"""
import numpy as np

from tbdb.solvers.jit import inline_kernel, kernel, nogil_kernel, parallel_kernel, prange

FAST_BITS = 12  # one table lookup decodes a code of at most this many bits (a large stream)
SMALL_FAST_BITS = 10  # ... in a stream of fewer than FAST_SLOTS slots
FAST_SLOTS = 1 << 22


@inline_kernel
def fast_bits(n):
    """The bits of a stream of ``n`` slots' one-lookup table.  A large stream is probed often
    and its table stays in the caches: 12 bits decode most codes at once (a fresh probe of CC
    7x7-3's two streams 4.9 -> 3.9 us).  A small one is opened for a few probes while a
    thousand others are used (CDC's tables): building and missing a 32 KiB table cost more
    than its longer codes (a lookup over CDC 2-4, 54 -> 67 us with 12 bits everywhere)."""
    return FAST_BITS if n >= FAST_SLOTS else SMALL_FAST_BITS

# The encoding kernels release the GIL: an export codes a table's values and best moves on two
# threads at once (``tbdb.probe_files.format.write_table``).


# --------------------------------------------------------------------------- pair substitution
#
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
            if created >= 0:  # (written out here: a helper costs 7x on this loop)
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


@nogil_kernel
def huffman_depths(counts):
    """Huffman code lengths (int64) of symbols seen ``counts`` times (int64[k], k >= 2): the
    two lightest nodes are merged first, ties to the lower node number (leaves ``0..k-1``, then
    merged nodes in the order made), so the lengths do not depend on anything else."""
    k = len(counts)
    nodes = 2 * k - 1
    weight = np.empty(nodes, np.int64)
    parent = np.full(nodes, -1, np.int64)
    weight[:k] = counts
    heap = np.empty(k, np.int64)  # node numbers, a binary min-heap on (weight, node)
    for i in range(k):
        heap[i] = i  # ascending by node; sift each down to make it a heap
    size = k
    for start in range(size // 2 - 1, -1, -1):
        _sift_down(heap, size, start, weight)
    made = k
    while size > 1:
        a = heap[0]
        size -= 1
        heap[0] = heap[size]
        _sift_down(heap, size, 0, weight)
        b = heap[0]
        weight[made] = weight[a] + weight[b]
        parent[a] = made
        parent[b] = made
        heap[0] = made  # replaces b at the top
        _sift_down(heap, size, 0, weight)
        made += 1
    depth = np.zeros(nodes, np.int64)
    for node in range(nodes - 2, -1, -1):  # a parent is made after its children
        depth[node] = depth[parent[node]] + 1
    return depth[:k].copy()


@inline_kernel
def _sift_down(heap, size, at, weight):
    node = heap[at]
    while True:
        child = 2 * at + 1
        if child >= size:
            break
        other = child + 1
        if other < size and (weight[heap[other]] < weight[heap[child]]
                             or (weight[heap[other]] == weight[heap[child]]
                                 and heap[other] < heap[child])):
            child = other
        c = heap[child]
        if weight[c] < weight[node] or (weight[c] == weight[node] and c < node):
            heap[at] = c
            at = child
        else:
            break
    heap[at] = node


# --------------------------------------------------------------------------- encoding

@nogil_kernel
def block_starts(seq, m, size, lengths, block_slots, blocks):
    """uint64[blocks + 1]: the byte where each block's codes start (blocks start on a byte);
    the last entry: the bytes of all blocks."""
    out = np.zeros(blocks + 1, np.uint64)
    at = 0
    bit = 0
    b = 0
    for i in range(m):
        if at & (block_slots - 1) == 0:
            bit = (bit + 7) // 8 * 8
            out[b] = bit // 8
            b += 1
        bit += lengths[seq[i]]
        at += size[seq[i]]
    out[blocks] = (bit + 7) // 8
    return out


@nogil_kernel
def encode(seq, m, size, codes, lengths, block_slots, starts):
    """The bit stream: uint8[bytes + 8], each block from its start byte, zero-padded."""
    total = starts[len(starts) - 1]
    bits = np.zeros(total + 8, np.uint8)
    at = 0
    pos = 0
    b = 0
    for i in range(m):
        s = seq[i]
        if at & (block_slots - 1) == 0:
            pos = starts[b] * 8
            b += 1
        c = codes[s]
        for k in range(lengths[s] - 1, -1, -1):
            if (c >> np.uint64(k)) & np.uint64(1):
                bits[pos >> 3] |= np.uint8(0x80 >> (pos & 7))
            pos += 1
        at += size[s]
    return bits


# --------------------------------------------------------------------------- decoding
#
# A stream is decoded from two arrays: ``buf``, the section's bytes as mapped (block starts and
# bit stream inside it), and ``table``, int64: the fields below, then the arrays they point at
# (``tbdb.probe_files.coder.decoding_table`` builds it).  Two arguments, not fifteen: a Numba
# call pays for every argument it checks, and a single lookup makes two of these calls.

T_K, T_BLOCK, T_SHIFT, T_MAXLEN, T_N, T_STARTS, T_BITS = 0, 1, 2, 3, 4, 5, 6
T_LEFT, T_RIGHT, T_SIZE, T_FAST, T_LIMIT, T_FIRST_CODE, T_FIRST_INDEX, T_ORDER = (
    7, 8, 9, 10, 11, 12, 13, 14)  # (T_LEFT, T_RIGHT unused: a pair's parts are in T_NODES)
# T_LIMIT: per code length l, (first_code[l] + count[l]) << (32 - l): the 32-bit prefixes of
# the codes of length l lie below it and at or above the one of length l - 1 (canonical codes)
T_ALPHABET = 15
T_MARKS, T_MARK_SHIFT = 16, 17
T_NODES = 18  # pair j: left | right << 16 | size[left] << 32, one load a step down (see _terminal)
T_FAST_BITS = 19  # the look-up table's bits (``fast_bits``)
T_FIELDS = 20

# Checkpoints ("marks"): a probe decodes from the last checkpoint before its slot, not from its
# block's start.  A block of ``block_slots`` slots has CHECKPOINTS - 1 of them, at its slots
# ``c * chunk`` (c = 1..CHECKPOINTS-1, chunk = block_slots / CHECKPOINTS: every 64 slots in
# 1024-slot blocks): checkpoint c is the code covering slot ``c * chunk``, as a 32-bit word
# ``(its first bit - the block's first bit) | (its first slot in the block) << 16``.  Two words
# an int64 of ``table`` from ``table[T_MARKS]`` on, CHECKPOINTS words a block (word 0 unused, so
# that no two blocks share an int64 and threads indexing neighbouring blocks never write the
# same word): word ``e = block * CHECKPOINTS + c`` in ``table[T_MARKS + (e >> 1)]``, bits
# ``32 * (e & 1)``.  ``T_MARK_SHIFT`` is log2(chunk), -1 for a stream without checkpoints
# (blocks too small or too large for 16-bit fields).
#
# The file holds no checkpoints (the format is unchanged): decoding records each checkpoint it
# passes, so a block's first probe costs what it did and later ones at most a chunk.  A word 0
# means "not recorded" and is also a true checkpoint (the block's start), and any other value
# is the one every decoder would write, so threads recording into the same word at once (a
# parallel gather) can only lose a record, never make a wrong one: no locks needed.
CHECKPOINT_BITS = 4
CHECKPOINTS = 1 << CHECKPOINT_BITS


MAX_CODE = 32  # bits of the longest code (the format's limit)

# what ``decoding_table`` found wrong (0: nothing)
BAD_PAIR, BAD_SIZE, BAD_CODE, BAD_STARTS = 1, 2, 3, 4


def decoding_table_words(k, n_symbols, present, blocks, block_slots):
    """How long (int64 words) ``decoding_table``'s table is: the fields, the arrays of a stream
    of ``k`` terminals, ``n_symbols`` symbols of which ``present`` have codes, and its
    checkpoints."""
    shift = max(0, int(block_slots).bit_length() - 1)
    marks = blocks * CHECKPOINTS // 2 if CHECKPOINT_BITS <= shift <= 16 else 0
    return (T_FIELDS + n_symbols + (1 << fast_bits(blocks * block_slots))
            + 3 * (MAX_CODE + 1) + present + k
            + (n_symbols - k) + marks)


@kernel
def decoding_table(alphabet, pairs, lengths, starts, bit_bytes, block_slots, maxlen, n,
                   starts_at, bits_at, table):
    """Fill ``table`` (int64, zeros, ``decoding_table_words`` long: made by the caller with
    NumPy, whose zeros leave a large stream's checkpoint pages unmapped until a probe records
    one; Numba's would write them all) with the decoding table of a stream (layout above) from
    its header's arrays as mapped (``alphabet`` i32[k], ``pairs`` u16[K - k, 2], ``lengths``
    u8[K], ``starts`` u32[blocks + 1]), its grammar and code checked: returns 0, or BAD_* if a
    pair
    names a later symbol (BAD_PAIR), a symbol stands for more than a block or a code is longer
    than ``maxlen`` (BAD_SIZE), the lengths are no prefix code (BAD_CODE), or the block starts
    do not ascend inside the bit stream (BAD_STARTS).  One call: the same steps in NumPy cost
    half a millisecond a stream, twice a table's first probe."""
    k = len(alphabet)
    n_symbols = len(lengths)
    size = np.ones(n_symbols, np.int64)
    for j in range(n_symbols - k):
        a, b = np.int64(pairs[j, 0]), np.int64(pairs[j, 1])
        if a >= k + j or b >= k + j:
            return BAD_PAIR
        size[k + j] = size[a] + size[b]
        if size[k + j] > block_slots:
            return BAD_SIZE
    count = np.zeros(MAX_CODE + 1, np.int64)
    kraft = np.int64(0)  # sum of 2 ** (MAX_CODE - length): a prefix code keeps it <= 2 ** 32
    for s in range(n_symbols):
        length = np.int64(lengths[s])
        if length > maxlen:
            return BAD_SIZE
        if length:
            count[length] += 1
            kraft += np.int64(1) << (MAX_CODE - length)
    count[0] = 0
    present = 0
    for length in range(1, MAX_CODE + 1):
        present += count[length]
    if (present == 0 and n > 0) or kraft > (np.int64(1) << MAX_CODE):
        return BAD_CODE
    blocks = len(starts) - 1
    if starts[0] != 0 or np.int64(starts[blocks]) + 8 > bit_bytes:
        return BAD_STARTS
    for b in range(blocks):
        if starts[b + 1] < starts[b]:
            return BAD_STARTS
    first_index = np.zeros(MAX_CODE + 1, np.int64)
    first_code = np.zeros(MAX_CODE + 1, np.int64)
    code = np.int64(0)
    for length in range(1, MAX_CODE + 1):
        if length > 1:
            first_index[length] = first_index[length - 1] + count[length - 1]
        first_code[length] = code
        code = (code + count[length]) << 1
    order = np.empty(present, np.int64)  # canonical order: by (length, symbol)
    fill = first_index.copy()
    for s in range(n_symbols):
        length = lengths[s]
        if length:
            order[fill[length]] = s
            fill[length] += 1
    shift = np.int64(0)
    while (np.int64(1) << shift) < block_slots:
        shift += 1
    # the checkpoints (see "Checkpoints"): zero until recorded (64 bytes a block)
    marked = CHECKPOINT_BITS <= shift <= 16
    n_pairs = n_symbols - k
    # (a pair's parts live in its node only: T_LEFT and T_RIGHT are no longer laid out)
    fb = fast_bits(blocks * block_slots)
    lens = (n_symbols, 1 << fb, MAX_CODE + 1, MAX_CODE + 1, MAX_CODE + 1, present, k,
            n_pairs)
    total = T_FIELDS
    for x in lens:
        total += x
    if len(table) != total + (blocks * CHECKPOINTS // 2 if marked else 0):
        return BAD_SIZE  # (not the caller's size: never written past its end)
    at = T_FIELDS
    for f, x in zip((T_SIZE, T_FAST, T_LIMIT, T_FIRST_CODE, T_FIRST_INDEX, T_ORDER, T_ALPHABET,
                     T_NODES), lens):
        table[f] = at
        at += x
    for j in range(n_pairs):
        a, b = np.int64(pairs[j, 0]), np.int64(pairs[j, 1])
        table[table[T_NODES] + j] = a | b << 16 | size[a] << 32
    for s in range(n_symbols):
        table[table[T_SIZE] + s] = size[s]
    # canonical codes of at most ``fb`` bits fill the look-up table from its start, in
    # order, each over 2 ** (fb - length) entries; the rest -1 (a longer code)
    fast = table[T_FAST]
    at = 0
    for i in range(present):
        s = order[i]
        length = np.int64(lengths[s])
        if length > fb:
            break
        entry = size[s] << 24 | s << 8 | length
        for _ in range(1 << (fb - length)):
            table[fast + at] = entry
            at += 1
    for i in range(at, 1 << fb):
        table[fast + i] = -1
    for length in range(MAX_CODE + 1):
        table[table[T_LIMIT] + length] = ((first_code[length] + count[length])
                                          << (MAX_CODE - length))
        table[table[T_FIRST_CODE] + length] = first_code[length]
        table[table[T_FIRST_INDEX] + length] = first_index[length]
    for i in range(present):
        table[table[T_ORDER] + i] = order[i]
    for t in range(k):
        table[table[T_ALPHABET] + t] = alphabet[t]
    table[T_K] = k
    table[T_BLOCK] = block_slots
    table[T_SHIFT] = shift
    table[T_MAXLEN] = maxlen
    table[T_N] = n
    table[T_STARTS] = starts_at
    table[T_BITS] = bits_at
    table[T_MARKS] = total
    table[T_MARK_SHIFT] = shift - CHECKPOINT_BITS if marked else -1
    table[T_FAST_BITS] = fb
    return 0


@inline_kernel
def _start(buf, table, block):
    """Bit where ``block``'s codes start (its u32 byte start, little-endian, times 8)."""
    at = table[T_STARTS] + 4 * block
    return (np.int64(buf[at]) | (np.int64(buf[at + 1]) << 8) | (np.int64(buf[at + 2]) << 16)
            | (np.int64(buf[at + 3]) << 24)) * 8


@inline_kernel
def _word(buf, at):
    """The 64 bits of the bit stream from its bit ``at`` on, first bit highest."""
    byte = at >> 3
    w = np.uint64(0)
    for i in range(8):
        w = (w << np.uint64(8)) | np.uint64(buf[byte + i])
    return w << np.uint64(at & 7)


@inline_kernel
def _code(table, x):
    """(symbol, its code's length, the slots it stands for) of the code at the top of the
    64-bit word ``x``; symbol -1 if none matches (damaged)."""
    fb = table[T_FAST_BITS]
    t = table[table[T_FAST] + np.int64(x >> np.uint64(64 - fb))]
    if t >= 0:
        return (t >> 8) & 0xFFFF, t & 255, t >> 24
    # a longer code: its length is the first whose limit lies above the word's top 32 bits
    # (one load and compare a length; the fast table's -1 means the code is longer)
    top = np.int64(x >> np.uint64(64 - MAX_CODE))
    limit = table[T_LIMIT]
    maxlen = table[T_MAXLEN]
    length = fb + 1
    while length <= maxlen and top >= table[limit + length]:
        length += 1
    if length > maxlen:
        return -1, 0, 0
    d = (top >> (MAX_CODE - length)) - table[table[T_FIRST_CODE] + length]
    s = table[table[T_ORDER] + table[table[T_FIRST_INDEX] + length] + d]
    return s, length, table[table[T_SIZE] + s]


# The block loops below keep the 64 bits from a byte boundary at ``wpos`` in a word and load
# the next 8 bytes only when a code may reach past them (codes are at most 32 bits): loading
# 8 bytes for every code was most of a probe's time.


@inline_kernel
def _terminal(table, symbol, rem):
    """The value at slot ``rem`` of the run ``symbol`` stands for (descending its pairs)."""
    k = table[T_K]
    nodes = table[T_NODES] - k
    while symbol >= k:
        # one word a step (left, right and the left part's size): a probe in a table not used
        # lately misses the cache once a step, not three times (the step's three arrays)
        node = table[nodes + symbol]
        left_size = node >> 32
        if rem < left_size:
            symbol = node & 0xFFFF
        else:
            rem -= left_size
            symbol = (node >> 16) & 0xFFFF
    return table[table[T_ALPHABET] + symbol]


@inline_kernel
def _mark(table, block, c):
    """Checkpoint ``c`` (1..CHECKPOINTS-1) of ``block``: 0 if not recorded (or at the block's
    start), else ``bit offset | slot << 16`` (see "Checkpoints" above)."""
    e = block * CHECKPOINTS + c
    return (table[table[T_MARKS] + (e >> 1)] >> (32 * (e & 1))) & 0xFFFFFFFF


@inline_kernel
def _record(table, block, c, value):
    """Record checkpoint ``c`` of ``block`` (``value`` as ``_mark`` returns it)."""
    e = block * CHECKPOINTS + c
    at = table[T_MARKS] + (e >> 1)
    shift = 32 * (e & 1)
    table[at] = (table[at] & ~(np.int64(0xFFFFFFFF) << shift)) | (value << shift)


@inline_kernel
def _nearest_mark(table, block, rem):
    """(bit offset, slot) in ``block`` of the last recorded checkpoint at or before its slot
    ``rem`` ((0, 0): the block's start)."""
    cs = table[T_MARK_SHIFT]
    if cs < 0:
        return np.int64(0), np.int64(0)
    c = rem >> cs
    while c > 0:
        m = _mark(table, block, c)
        if m != 0:
            return m & 0xFFFF, m >> 16
        c -= 1
    return np.int64(0), np.int64(0)


@inline_kernel
def _pending(table, at):
    """The first checkpoint not before slot ``at`` of a block (CHECKPOINTS: none left, or the
    stream keeps none)."""
    cs = table[T_MARK_SHIFT]
    if cs < 0:
        return np.int64(CHECKPOINTS)
    return max(np.int64(1), (at + (np.int64(1) << cs) - 1) >> cs)


@kernel
def decode_slot(buf, table, slot, damaged):
    """The value at ``slot`` (``damaged`` if the stream is damaged there), decoded from the
    checkpoint before it; records the checkpoints it passes."""
    shift = table[T_SHIFT]
    block = slot >> shift
    first = _start(buf, table, block)
    end = _start(buf, table, block + 1)
    rem = slot - (block << shift)
    off, at = _nearest_mark(table, block, rem)
    pos = first + off
    rem -= at
    nxt = _pending(table, at)
    cs = table[T_MARK_SHIFT]
    base = table[T_BITS] * 8
    wpos = pos
    w = _word(buf, base + wpos)
    while pos < end:
        if pos - wpos > 32:
            wpos = pos & ~np.int64(7)
            w = _word(buf, base + wpos)
        s, length, sz = _code(table, w << np.uint64(pos - wpos))
        if s < 0:
            return damaged
        # the checkpoints this code covers: it starts at slot ``at`` of the block
        while nxt < CHECKPOINTS and (nxt << cs) < at + sz:
            if pos - first <= 0xFFFF:
                _record(table, block, nxt, (pos - first) | (at << 16))
            nxt += 1
        if rem < sz:
            return _terminal(table, s, rem)
        rem -= sz
        at += sz
        pos += length
    return damaged


@kernel
def decode_slot_pair(buf, table, moves_buf, moves_table, slot, damaged):
    """(value, best move) at ``slot`` of an index table's two streams: one call, not two."""
    return (decode_slot(buf, table, slot, damaged),
            decode_slot(moves_buf, moves_table, slot, damaged))


@parallel_kernel
def index_stream(buf, table):
    """Record every checkpoint of every block (``tbdb.probe_files.coder.Stream.index``: what
    ``tb.load`` does to probe files): each block decoded once, on every core.  Returns the
    number of blocks that do not decode (damaged)."""
    n = table[T_N]
    shift = table[T_SHIFT]
    blocks = (n + table[T_BLOCK] - 1) >> shift
    bad = np.zeros(blocks, np.int64)
    if table[T_MARK_SHIFT] >= 0:
        for block in prange(blocks):
            b = np.int64(block)
            last = min(n, (b + 1) << shift) - 1  # decoding up to it passes every checkpoint
            if decode_slot(buf, table, last, -(np.int64(1) << 40)) == -(np.int64(1) << 40):
                bad[b] = 1
    return bad.sum()


@kernel
def _decode_run(buf, table, slots, out, lo, hi, damaged):
    """``out[i]`` = the value at ``slots[i]`` for i in lo..hi-1 (``slots`` ascending): a block
    is decoded at most once, from the checkpoint before the first slot asked in it up to the
    last, jumping ahead to a recorded checkpoint when one is nearer than the next code;
    ``damaged`` where it is damaged.  Records the checkpoints it passes."""
    shift = table[T_SHIFT]
    cs = table[T_MARK_SHIFT]
    base = table[T_BITS] * 8
    block = -1
    first = np.int64(0)  # the block's first bit
    pos = np.int64(0)
    end = np.int64(0)
    at = np.int64(0)  # the first slot (in the block) of the symbol at ``pos``
    nxt = np.int64(0)  # the next checkpoint to record
    wpos = np.int64(0)
    w = np.uint64(0)
    for i in range(lo, hi):
        slot = slots[i]
        if i > lo and slot == slots[i - 1] and out[i - 1] != damaged:
            out[i] = out[i - 1]  # the same slot again (a batch repeats positions)
            continue
        b = slot >> shift
        rem = slot - (b << shift)
        if b != block or rem < at:
            block = b
            first = _start(buf, table, b)
            end = _start(buf, table, b + 1)
            pos = first
            at = 0
            wpos = -64  # no word loaded
        off, mark_at = _nearest_mark(table, block, rem)
        if mark_at > at:  # a recorded checkpoint is nearer than the next code
            pos = first + off
            at = mark_at
            wpos = -64
        nxt = _pending(table, at)
        got = damaged
        while pos < end:
            if pos - wpos > 32 or pos < wpos:
                wpos = pos & ~np.int64(7)
                w = _word(buf, base + wpos)
            s, length, sz = _code(table, w << np.uint64(pos - wpos))
            if s < 0:
                break
            while nxt < CHECKPOINTS and (nxt << cs) < at + sz:
                if pos - first <= 0xFFFF:
                    _record(table, block, nxt, (pos - first) | (at << 16))
                nxt += 1
            if rem < at + sz:
                got = _terminal(table, s, rem - at)
                break
            at += sz
            pos += length
        if got == damaged:
            block = -1  # start the block again for the next slot
        out[i] = got


@kernel
def decode_sorted(buf, table, slots, damaged):
    """The values (int64) at ``slots`` (int64[m], ascending), on one core: for a few thousand
    slots, waking the other threads costs more than it saves."""
    out = np.empty(len(slots), np.int64)
    _decode_run(buf, table, slots, out, 0, len(slots), damaged)
    return out


@parallel_kernel
def decode_sorted_parallel(buf, table, slots, damaged):
    """The values (int64) at ``slots`` (int64[m], ascending), in chunks on every core."""
    m = len(slots)
    out = np.empty(m, np.int64)
    chunk = 4096
    for c in prange((m + chunk - 1) // chunk):
        _decode_run(buf, table, slots, out, c * chunk, min(m, (c + 1) * chunk), damaged)
    return out


@inline_kernel
def _expand(table, symbol, out, at, stack):
    """The values of the run ``symbol`` stands for into ``out[at:]``, left to right: each pair
    visited once (``_terminal`` per slot descends from the top every time, ``depth`` loads a
    slot).  ``stack``: room for the right parts pending (a run's depth is below its size, at
    most a block's slots)."""
    k = table[T_K]
    nodes = table[T_NODES] - k
    alphabet = table[T_ALPHABET]
    stack[0] = symbol
    top = 1
    while top > 0:
        top -= 1
        s = np.int64(stack[top])
        while s >= k:
            node = table[nodes + s]
            stack[top] = (node >> 16) & 0xFFFF  # the right part, after the left
            top += 1
            s = node & 0xFFFF
        out[at] = table[alphabet + s]
        at += 1


@inline_kernel
def _decode_block(buf, table, b, out, first, stack):
    """Every slot of block ``b`` into ``out[slot - first]``, up to a damaged place (whose
    slots keep what ``out`` held); whether the block was whole."""
    n = table[T_N]
    shift = table[T_SHIFT]
    pos = _start(buf, table, b)
    end = _start(buf, table, b + 1)
    at = b << shift
    stop = min(n, at + table[T_BLOCK])
    base = table[T_BITS] * 8
    wpos = pos
    w = _word(buf, base + wpos)
    while at < stop and pos < end:
        if pos - wpos > 32:
            wpos = pos & ~np.int64(7)
            w = _word(buf, base + wpos)
        s, length, sz = _code(table, w << np.uint64(pos - wpos))
        if s < 0 or at + sz > stop:
            break
        _expand(table, s, out, at - first, stack)
        at += sz
        pos += length
    return at >= stop


# blocks a decoding task takes in turn, with one stack (``_expand``) made before the tasks run
TASK_BLOCKS = 256


@kernel
def decoding_stacks(table, slots):
    """One ``_expand`` stack (uint16, as symbols are) per task of ``TASK_BLOCKS`` blocks of a
    decode of ``slots`` slots from a block's start: made before the tasks run."""
    blocks = (slots + table[T_BLOCK] - 1) >> table[T_SHIFT]
    return np.empty(((blocks + TASK_BLOCKS - 1) // TASK_BLOCKS, table[T_BLOCK] + 1), np.uint16)


@parallel_kernel
def decode_blocks(buf, table, lo, hi, out, stacks):
    """The values of slots ``lo .. hi`` (each a block's first slot, or ``hi`` the last slot
    + 1) into ``out`` (int32[hi - lo]), on every core; how many of their blocks are damaged.
    ``stacks`` from ``decoding_stacks``."""
    shift = table[T_SHIFT]
    b0 = lo >> shift
    blocks = ((hi - lo) + table[T_BLOCK] - 1) >> shift
    bad = np.zeros(stacks.shape[0], np.int64)
    for task in prange(stacks.shape[0]):
        for b in range(np.int64(task) * TASK_BLOCKS, min(blocks, (task + 1) * TASK_BLOCKS)):
            if not _decode_block(buf, table, b0 + b, out, lo, stacks[task]):
                bad[task] += 1
    return bad.sum()


@nogil_kernel
def decode_rows(buf, table, slots, out, lo, hi, damaged):
    """``out[i]`` = the value at ``slots[i]`` for i in lo..hi-1 (ascending), on one core:
    ``lookup_arrays`` over many tables calls it once per table on its rows of one sorted
    batch (a table's share of a batch over a thousand CDC tables is a few hundred rows), from
    two threads at once on a large batch (it releases the GIL)."""
    _decode_run(buf, table, slots, out, lo, hi, damaged)


@parallel_kernel
def decode_rows_parallel(buf, table, slots, out, lo, hi, damaged):
    """``decode_rows`` in chunks on every core (a table's share of a batch of many rows)."""
    chunk = 4096
    for c in prange((hi - lo + chunk - 1) // chunk):
        _decode_run(buf, table, slots, out, lo + c * chunk, min(hi, lo + (c + 1) * chunk),
                    damaged)


# --------------------------------------------------------------------------- slot orders
#
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
    CDC tables, where a NumPy pass per table cost about 30 us each."""
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
    counting every sample's pair for every order was half of an export's time).  The entropy
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


@nogil_kernel
def pack_into(result, distance, out):
    """out[i] = result[i] << 16 | distance[i] & 0xFFFF (int32): one pass, the GIL released
    (numpy's five passes and their temporaries were a build's coding thread's main work)."""
    for i in range(out.shape[0]):
        out[i] = (np.int32(result[i]) << 16) | (np.int32(distance[i]) & 0xFFFF)


@nogil_kernel
def unpack_into(values, result, distance):
    """``pack_into`` undone: result[i] = values[i] >> 16 (int8), distance[i] its low 16 bits
    as int16."""
    for i in range(values.shape[0]):
        v = np.int32(values[i])
        result[i] = np.int8(v >> 16)
        low = v & 0xFFFF
        distance[i] = np.int16(low - 0x10000 if low >= 0x8000 else low)
