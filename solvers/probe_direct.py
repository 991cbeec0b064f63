"""Kernels of the probe files' direct cells (``docs/probe-format.md``, layout 3): an index
table's slots as fixed-width cells, each the symbol of its value and of its best move.

A cell is ``width`` bits: the value's symbol in its low ``value_bits``, the best move's above
them.  Cell ``s`` is bits ``s * width .. s * width + width - 1`` of ``cells`` (uint8), read least
significant bit first: bit ``i`` is bit ``i & 7`` of byte ``i >> 3``.  ``width`` is at most 32,
so a cell lies in the five bytes from byte ``s * width >> 3`` on (the section ends with 8 zero
bytes: a reader may load a word at any cell).  A column (the values, or the best moves) is
``shift`` (0 or ``value_bits``), ``bits`` and its ``alphabet`` (int32, the symbols' values).
"""
import numpy as np

from tbdb.solvers.jit import inline_kernel, kernel, nogil_kernel


@nogil_kernel
def pack_cells(value_symbols, move_symbols, value_bits, width, out):
    """Write the cells of ``value_symbols`` and ``move_symbols`` (uint32, one each a slot;
    ``move_symbols`` is ignored when ``width == value_bits``) into ``out`` (uint8, zeroed,
    at least ``(len * width + 7) >> 3`` bytes).  A chunk of a multiple of 8 slots fills
    whole bytes, so a table is packed a chunk at a time into consecutive pieces."""
    acc = np.uint64(0)
    held = np.uint64(0)
    at = 0
    w = np.uint64(width)
    vb = np.uint64(value_bits)
    with_moves = width > value_bits
    for s in range(len(value_symbols)):
        cell = np.uint64(value_symbols[s])
        if with_moves:
            cell |= np.uint64(move_symbols[s]) << vb
        acc |= cell << held
        held += w
        while held >= np.uint64(8):
            out[at] = np.uint8(acc & np.uint64(0xFF))
            acc >>= np.uint64(8)
            held -= np.uint64(8)
            at += 1
    if held > np.uint64(0):
        out[at] = np.uint8(acc & np.uint64(0xFF))


@inline_kernel
def _symbol(cells, width, shift, bits, slot):
    """The column's symbol in cell ``slot``."""
    p = np.int64(slot) * np.int64(width) + np.int64(shift)
    b = p >> 3
    x = np.uint64(0)
    for i in range(5):  # 7 bits of offset + 32 of a cell fit in five bytes
        x |= np.uint64(cells[b + i]) << np.uint64(8 * i)
    return np.int64((x >> np.uint64(p & 7)) & ((np.uint64(1) << np.uint64(bits)) - np.uint64(1)))


@kernel
def column_at(cells, width, shift, bits, alphabet, slot, damaged):
    """The value of one column at ``slot`` (``damaged``: a symbol outside the alphabet)."""
    s = _symbol(cells, width, shift, bits, slot)
    if s >= len(alphabet):
        return damaged
    return np.int64(alphabet[s])


@kernel
def pair_at(cells, width, value_bits, values, moves, slot, damaged):
    """(value, best move) at ``slot``: one call for both columns."""
    return (column_at(cells, width, 0, value_bits, values, slot, damaged),
            column_at(cells, width, value_bits, width - value_bits, moves, slot, damaged))


@nogil_kernel
def column_gather(cells, width, shift, bits, alphabet, slots, out, damaged):
    """``out[i]`` = the column's value at ``slots[i]`` (``damaged`` where the symbol is
    outside the alphabet)."""
    k = len(alphabet)
    for i in range(len(slots)):
        s = _symbol(cells, width, shift, bits, slots[i])
        out[i] = damaged if s >= k else np.int64(alphabet[s])
