"""The decoding table of a probe-file stream: the int64 array a decoder reads beside the
section's bytes, its field numbers (``T_*``), its checkpoints' layout, the size of its
one-lookup table (``fast_bits``), and the kernel that checks a stream's header and fills the
table (``decoding_table``, whose errors are the ``BAD_*`` codes).  The decoders in ``slots``,
``blocks`` and ``slot_orders`` read tables laid out here.
"""
import numpy as np

from tbdb.solvers.jit import inline_kernel, kernel

FAST_BITS = 12  # one table lookup decodes a code of at most this many bits (a large stream)
SMALL_FAST_BITS = 10  # ... in a stream of fewer than FAST_SLOTS slots
FAST_SLOTS = 1 << 22


@inline_kernel
def fast_bits(n):
    """The bits of a stream of ``n`` slots' one-lookup table.  A large stream is probed often
    and its table stays in the caches: 12 bits decode most codes at once.  A small one is
    opened for a few probes while a thousand others are used (CDC's tables): building and
    missing a 32 KiB table cost more than its longer codes (benchmarks/RESULTS.md)."""
    return FAST_BITS if n >= FAST_SLOTS else SMALL_FAST_BITS


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
T_NODES = 18  # pair j: left | right << 16 | size[left] << 32: one load a step (slots._terminal)
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
    more than a table's first probe."""
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
