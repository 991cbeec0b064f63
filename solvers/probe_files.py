"""Kernels of the probe files' block coder (``tbdb.probe_files``, ``docs/probe-format.md``).

A stream is a sequence of symbol numbers (0..k-1, in the canonical order of a table-wide
canonical Huffman code), cut into blocks of ``block_slots`` symbols.  Layouts:

* ``codes`` uint64[k], ``lengths`` uint8[k]: symbol s's code is the low ``lengths[s]`` bits of
  ``codes[s]``, written most significant bit first.
* ``bits`` uint8[...]: the bit stream; bit i is bit ``i & 7`` (least significant first) of
  byte ``i >> 3``.
* ``offsets`` int64[blocks + 1]: the bit where each block starts (the last: the stream's end).
* decoding tables, indexed by code length l (1..maxlen, index 0 unused): ``count[l]`` codes of
  length l, the first of them ``first_code[l]`` (as an integer of l bits), which is symbol
  ``first_symbol[l]``.
"""
import numpy as np

from tbdb.solvers.jit import kernel


@kernel
def block_bits(symbols, lengths, block_slots):
    """int64[blocks + 1]: the bit offset where each block starts (from the code lengths)."""
    n = len(symbols)
    blocks = (n + block_slots - 1) // block_slots
    out = np.zeros(blocks + 1, np.int64)
    total = 0
    for i in range(n):
        if i % block_slots == 0:
            out[i // block_slots] = total
        total += lengths[symbols[i]]
    out[blocks] = total
    return out


@kernel
def encode(symbols, codes, lengths, offsets):
    """The bit stream of ``symbols`` (int32[n] symbol numbers): uint8[bytes], zero-padded to a
    multiple of 8 bytes with 8 more."""
    total = offsets[len(offsets) - 1]
    size = ((total + 63) // 64) * 8 + 8  # room to read a code past the end
    bits = np.zeros(size, np.uint8)
    pos = 0
    for i in range(len(symbols)):
        s = symbols[i]
        c = codes[s]
        for b in range(lengths[s] - 1, -1, -1):
            if (c >> np.uint64(b)) & np.uint64(1):
                bits[pos >> 3] |= np.uint8(1 << (pos & 7))
            pos += 1
    return bits


@kernel
def _next_symbol(bits, pos, count, first_code, first_symbol, maxlen):
    """(symbol, position after it) of the code starting at bit ``pos``; symbol -1 if no code of
    at most ``maxlen`` bits matches (a damaged stream)."""
    code = 0
    for length in range(1, maxlen + 1):
        code = (code << 1) | ((bits[pos >> 3] >> (pos & 7)) & 1)
        pos += 1
        d = code - first_code[length]
        if 0 <= d < count[length]:
            return first_symbol[length] + d, pos
    return -1, pos


@kernel
def decode_slot(bits, offsets, block_slots, count, first_code, first_symbol, maxlen, slot):
    """The symbol number at ``slot`` (-1: the stream is damaged there)."""
    block = slot // block_slots
    pos = offsets[block]
    end = offsets[block + 1]
    s = -1
    for _ in range(slot - block * block_slots + 1):
        if pos >= end:
            return -1
        s, pos = _next_symbol(bits, pos, count, first_code, first_symbol, maxlen)
        if s < 0:
            return -1
    return s


@kernel
def decode_sorted(bits, offsets, block_slots, count, first_code, first_symbol, maxlen, slots):
    """The symbol numbers at ``slots`` (int64[m], ascending): each block is decoded once, up to
    the last slot asked in it (-1 where the stream is damaged)."""
    out = np.full(len(slots), -1, np.int32)
    block = -1
    at = 0  # the slot the next symbol decoded belongs to
    pos = 0
    s = -1
    broken = False
    for i in range(len(slots)):
        slot = slots[i]
        b = slot // block_slots
        if b != block or slot < at - 1:
            block = b
            at = b * block_slots
            pos = offsets[b]
            broken = False
        if slot == at - 1 and not broken:  # the same slot as the row before
            out[i] = s
            continue
        end = offsets[b + 1]
        while at <= slot and not broken:
            if pos >= end:
                broken = True
                break
            s, pos = _next_symbol(bits, pos, count, first_code, first_symbol, maxlen)
            if s < 0:
                broken = True
            at += 1
        out[i] = -1 if broken else s
    return out


@kernel
def decode_all(bits, offsets, block_slots, count, first_code, first_symbol, maxlen, n):
    """Every symbol number of a stream of ``n`` symbols (int32[n]; -1 past a damaged place)."""
    out = np.full(n, -1, np.int32)
    for b in range(len(offsets) - 1):
        pos = offsets[b]
        end = offsets[b + 1]
        for i in range(b * block_slots, min(n, (b + 1) * block_slots)):
            if pos >= end:
                break
            s, pos = _next_symbol(bits, pos, count, first_code, first_symbol, maxlen)
            if s < 0:
                break
            out[i] = s
    return out
