"""The change-list solver's value array and the constants its modules share: the largest book
it solves (every cell of books 0 .. n in 28 bits), a compact move's fields, the prefetch
distance, and how a position is flagged dirty (``flag_dirty``: a byte, or a bit on one thread).

Cells (the solver's value array): books 0 .. n end to end (``index.book_bases``), then
``n + 1`` cells NEG[k] holding -k (k = 0 .. n) and one cell HIGH holding 127::

    base[m] .. base[m + 1] - 1   book m
    neg + k                      NEG[k] = -k      (neg = base[n + 1])
    neg + n + 1                  HIGH = 127

A move ``x`` reads cell ``x & CELL_MASK`` and gains ``f = x >> 28`` seeds.  The pseudo moves
gain 0 and read a constant cell (``>= neg``, so they have no parents): a position without a
legal move has ``cell = NEG[own seeds]`` in slot 0 (worth ``0 - (-own)`` = its own seeds; the
best move is then -1), an illegal move has ``cell = HIGH`` (worth -127, it never wins).
"""
import numpy as np

from tbdb.solvers.jit import kernel

MAX_T = 200
#: Largest seed count this solver takes: every cell of books 0 .. n must fit in 28 bits.
MAX_SOLVE_N = 20
CELL_BITS = 28
CELL_MASK = (1 << CELL_BITS) - 1
#: Positions (eval) or events (apply) a step's random reads are prefetched ahead.
AHEAD = 16


def cells(n: int, base: np.ndarray) -> tuple[int, int, int]:
    """``(neg, high, size)`` of book ``n``'s value array (``base`` from ``book_bases(n)``)."""
    neg = int(base[n + 1])
    return neg, neg + n + 1, neg + n + 2


@kernel
def flag_dirty(dirty, dirty64, p, bits):
    """Flag position ``p`` in ``dirty`` (uint8; ``dirty64`` its words): its byte set to 1, or
    with ``bits`` its bit
    (``eval_chunk``).  A bit is a read-modify-write of its word, so bit flags are for one
    thread; bytes may be set by several at once (the only value stored is 1).  One thread's
    flags of a 9-seed book take 21 KB as bits, in the first-level cache, 168 KB as bytes."""
    if bits:
        dirty64[p >> 6] |= np.uint64(1) << np.uint64(p & 63)
    else:
        dirty[p] = 1
