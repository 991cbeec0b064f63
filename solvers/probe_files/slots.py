"""Decoding the values at given slots of a probe-file stream: one slot (``decode_slot``, and a
value and best move in one call), a sorted run of slots (``decode_sorted``, ``decode_rows``,
each block decoded at most once), on one core or on all, and ``index_stream``, which records
every block's checkpoints.  Each decode starts from the last checkpoint recorded before its
slot and records those it passes (layout in ``layout``).
"""
import numpy as np

from tbdb.solvers.jit import inline_kernel, kernel, nogil_kernel, parallel_kernel, prange
from tbdb.solvers.probe_files.layout import (CHECKPOINTS, MAX_CODE, T_ALPHABET, T_BITS, T_BLOCK,
                                             T_FAST, T_FAST_BITS, T_FIRST_CODE,
                                             T_FIRST_INDEX, T_K, T_LIMIT, T_MARK_SHIFT,
                                             T_MARKS, T_MAXLEN, T_N, T_NODES, T_ORDER,
                                             T_SHIFT, T_SIZE, T_STARTS)


@inline_kernel
def start_bit(buf, table, block):
    """Bit where ``block``'s codes start (its u32 byte start, little-endian, times 8)."""
    at = table[T_STARTS] + 4 * block
    return (np.int64(buf[at]) | (np.int64(buf[at + 1]) << 8) | (np.int64(buf[at + 2]) << 16)
            | (np.int64(buf[at + 3]) << 24)) * 8


@inline_kernel
def stream_word(buf, at):
    """The 64 bits of the bit stream from its bit ``at`` on, first bit highest."""
    byte = at >> 3
    w = np.uint64(0)
    for i in range(8):
        w = (w << np.uint64(8)) | np.uint64(buf[byte + i])
    return w << np.uint64(at & 7)


@inline_kernel
def next_code(table, x):
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
    first = start_bit(buf, table, block)
    end = start_bit(buf, table, block + 1)
    rem = slot - (block << shift)
    off, at = _nearest_mark(table, block, rem)
    pos = first + off
    rem -= at
    nxt = _pending(table, at)
    cs = table[T_MARK_SHIFT]
    base = table[T_BITS] * 8
    wpos = pos
    w = stream_word(buf, base + wpos)
    while pos < end:
        if pos - wpos > 32:
            wpos = pos & ~np.int64(7)
            w = stream_word(buf, base + wpos)
        s, length, sz = next_code(table, w << np.uint64(pos - wpos))
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
            first = start_bit(buf, table, b)
            end = start_bit(buf, table, b + 1)
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
                w = stream_word(buf, base + wpos)
            s, length, sz = next_code(table, w << np.uint64(pos - wpos))
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
