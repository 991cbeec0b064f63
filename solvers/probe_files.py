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
* decoding tables (in one int64 ``table``, see "decoding" below): ``fast``[2**FAST_BITS]: for
  the next FAST_BITS bits, the symbol and its length as ``symbol << 8 | length``, or -1 if the
  code is longer; longer codes by length ``l``: ``count[l]`` codes, the first ``first_code[l]``
  (an l-bit integer), the others following it, their symbols ``order[first_index[l]:...]``.
"""
import numpy as np

from tbdb.solvers.jit import inline_kernel, kernel, nogil_kernel, parallel_kernel, prange

FAST_BITS = 10  # one table lookup decodes a code of at most this many bits

# The encoding kernels release the GIL: an export codes a table's values and best moves on two
# threads at once (``tbdb.probe_files.format.write_table``).


# --------------------------------------------------------------------------- pair substitution

@nogil_kernel
def count_pairs(seq, m, size, block_slots, stride, counts, touched):
    """Count in ``counts`` (int64[stride * stride], zero on entry) every adjacent pair
    ``a * stride + b`` of ``seq[:m]`` that lies inside one block; the pairs seen are listed in
    ``touched`` (int64[m]); returns how many."""
    at = 0
    t = 0
    for i in range(m - 1):
        at += size[seq[i]]
        if at & (block_slots - 1) != 0:
            p = seq[i] * stride + seq[i + 1]
            if counts[p] == 0:
                touched[t] = p
                t += 1
            counts[p] += 1
    return t


@nogil_kernel
def replace_pairs(seq, m, size, block_slots, stride, chosen, new):
    """Replace, left to right, each adjacent pair inside a block that is one of ``chosen``
    (int64, ascending pair numbers ``a * stride + b``) by its new symbol ``new[i]``; returns the
    new length."""
    leads = np.zeros(stride, np.bool_)  # symbols that begin a chosen pair: most do not
    for c in chosen:
        leads[c // stride] = True
    at = 0
    i = 0
    j = 0
    last = len(chosen) - 1
    while i < m:
        a = seq[i]
        if leads[a] and i + 1 < m and (at + size[a]) & (block_slots - 1) != 0:
            p = a * stride + seq[i + 1]
            if chosen[0] <= p <= chosen[last]:
                lo, hi = 0, last  # binary search: a round chooses at most a few dozen pairs
                while lo < hi:
                    mid = (lo + hi) >> 1
                    if chosen[mid] < p:
                        lo = mid + 1
                    else:
                        hi = mid
                if chosen[lo] == p:
                    seq[j] = new[lo]
                    at += size[new[lo]]
                    i += 2
                    j += 1
                    continue
        seq[j] = a
        at += size[a]
        i += 1
        j += 1
    return j


@nogil_kernel
def symbol_counts(seq, m, n_symbols):
    out = np.zeros(n_symbols, np.int64)
    for i in range(m):
        out[seq[i]] += 1
    return out


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
T_LEFT, T_RIGHT, T_SIZE, T_FAST, T_COUNT, T_FIRST_CODE, T_FIRST_INDEX, T_ORDER = (
    7, 8, 9, 10, 11, 12, 13, 14)
T_ALPHABET = 15
T_FIELDS = 16


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
def _next(buf, table, pos):
    """(symbol, its code's length) of the code at bit ``pos`` of the bit stream; symbol -1 if
    none matches (damaged)."""
    w = _word(buf, table[T_BITS] * 8 + pos)
    t = table[table[T_FAST] + np.int64(w >> np.uint64(64 - FAST_BITS))]
    if t >= 0:
        return t >> 8, t & 255
    for length in range(FAST_BITS + 1, table[T_MAXLEN] + 1):
        d = np.int64(w >> np.uint64(64 - length)) - table[table[T_FIRST_CODE] + length]
        if 0 <= d < table[table[T_COUNT] + length]:
            return table[table[T_ORDER] + table[table[T_FIRST_INDEX] + length] + d], length
    return -1, 0


@inline_kernel
def _terminal(table, symbol, rem):
    """The value at slot ``rem`` of the run ``symbol`` stands for (descending its pairs)."""
    k = table[T_K]
    size = table[T_SIZE]
    while symbol >= k:
        a = table[table[T_LEFT] + symbol - k]
        if rem < table[size + a]:
            symbol = a
        else:
            rem -= table[size + a]
            symbol = table[table[T_RIGHT] + symbol - k]
    return table[table[T_ALPHABET] + symbol]


@kernel
def decode_slot(buf, table, slot, damaged):
    """The value at ``slot`` (``damaged`` if the stream is damaged there)."""
    block = slot >> table[T_SHIFT]
    pos = _start(buf, table, block)
    end = _start(buf, table, block + 1)
    rem = slot - (block << table[T_SHIFT])
    size = table[T_SIZE]
    while pos < end:
        s, length = _next(buf, table, pos)
        if s < 0:
            return damaged
        if rem < table[size + s]:
            return _terminal(table, s, rem)
        rem -= table[size + s]
        pos += length
    return damaged


@kernel
def decode_slot_pair(buf, table, moves_buf, moves_table, slot, damaged):
    """(value, best move) at ``slot`` of an index table's two streams: one call, not two."""
    return (decode_slot(buf, table, slot, damaged),
            decode_slot(moves_buf, moves_table, slot, damaged))


@kernel
def _decode_run(buf, table, slots, out, lo, hi, damaged):
    """``out[i]`` = the value at ``slots[i]`` for i in lo..hi-1 (``slots`` ascending): a block
    is decoded once, up to the last slot asked in it; ``damaged`` where it is damaged."""
    shift = table[T_SHIFT]
    size = table[T_SIZE]
    block = -1
    pos = np.int64(0)
    end = np.int64(0)
    at = np.int64(0)  # the first slot of the symbol at ``pos``
    for i in range(lo, hi):
        slot = slots[i]
        b = slot >> shift
        if b != block or slot < at:
            block = b
            pos = _start(buf, table, b)
            end = _start(buf, table, b + 1)
            at = b << shift
        got = damaged
        while pos < end:
            s, length = _next(buf, table, pos)
            if s < 0:
                break
            if slot < at + table[size + s]:
                got = _terminal(table, s, slot - at)
                break
            at += table[size + s]
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


@parallel_kernel
def decode_all(buf, table, damaged):
    """Every slot's value (int64[n]; ``damaged`` in a block from a damaged place on)."""
    n = table[T_N]
    shift = table[T_SHIFT]
    size = table[T_SIZE]
    out = np.full(n, damaged, np.int64)
    blocks = (n + table[T_BLOCK] - 1) >> shift
    for block in prange(blocks):
        b = np.int64(block)  # prange's index may be unsigned: keep the slot arithmetic signed
        pos = _start(buf, table, b)
        end = _start(buf, table, b + 1)
        at = b << shift
        stop = min(n, at + table[T_BLOCK])
        while at < stop and pos < end:
            s, length = _next(buf, table, pos)
            if s < 0 or at + table[size + s] > stop:
                break
            for r in range(table[size + s]):
                out[at + r] = _terminal(table, s, r)
            at += table[size + s]
            pos += length
    return out
