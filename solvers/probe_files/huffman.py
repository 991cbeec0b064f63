"""The canonical Huffman code of a probe-file stream's symbols and the bit stream it writes:
code lengths from the symbols' counts (``huffman_depths``, ties broken by node number so the
lengths depend on nothing else), each block's first byte (``block_starts``) and the coded bits
(``encode``).  The kernels release the GIL (an export codes two streams on two threads).
Layouts: the package's docstring.
"""
import numpy as np

from tbdb.solvers.jit import inline_kernel, nogil_kernel


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
