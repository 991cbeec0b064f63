"""Decoding whole blocks of a probe-file stream, every slot of each, on every core
(``decode_blocks``): what reading a table's values back in full does (a build resumed from
its files, ``verify``).  A run a symbol stands for is expanded left to right with a stack
made before the tasks run (``decoding_stacks``), not descended from the top per slot.
"""
import numpy as np

from tbdb.solvers.jit import inline_kernel, kernel, parallel_kernel, prange
from tbdb.solvers.probe_files.layout import T_ALPHABET, T_BITS, T_BLOCK, T_K, T_N, T_NODES, T_SHIFT
from tbdb.solvers.probe_files.slots import next_code, start_bit, stream_word


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
    pos = start_bit(buf, table, b)
    end = start_bit(buf, table, b + 1)
    at = b << shift
    stop = min(n, at + table[T_BLOCK])
    base = table[T_BITS] * 8
    wpos = pos
    w = stream_word(buf, base + wpos)
    while at < stop and pos < end:
        if pos - wpos > 32:
            wpos = pos & ~np.int64(7)
            w = stream_word(buf, base + wpos)
        s, length, sz = next_code(table, w << np.uint64(pos - wpos))
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
