"""The values of the other tables' slots a table's moves reach, kept sparse.

A table's captures and promotions (its *exits*) lead into other, solved tables; its kernels
read the child's result and distance there.  Kept whole, those tables can outweigh the table
itself many times: a chess table with a pawn on each side reads eight tables with a pawn, 17 GB
at 3 bytes a slot, of which its promotions reach about one slot in twenty (the new piece stands
on the last rank: KBPvKP marks 4.4% of its children's slots).  So the exits can be marked
first (a bit a slot, over the child tables' slots laid end to end) and only the marked slots'
values kept, found by the rank of their bit:

    ``rank`` int64[2 * words]: at ``2 * w`` the marked slots before word w, at ``2 * w + 1``
    word w's bits (slot ``64 * w + b`` is marked if bit b is set).

16 bytes a 64 slots (2 bits a slot) and the values' 3 bytes a marked slot: a lookup is a word
read and a popcount.  ``exit_value`` reads either form (an empty ``rank``: values whole).
"""
import numpy as np

from tbdb.solvers.bits import popcount
from tbdb.solvers.jit import inline_kernel, kernel

@inline_kernel
def exit_value(cres, cdist, rank, at):
    """(result, distance) of child slot ``at``: ``cres[at]`` if ``rank`` is empty, else the
    value of the marked slot ``at`` (which must be marked)."""
    if rank.shape[0] == 0:
        return cres[at], cdist[at]
    j = _rank(rank, at)
    return cres[j], cdist[j]


@kernel
def rank_words(words):
    """The ``rank`` array of the marked bits ``words`` (int64[words]), and how many are set."""
    n = words.shape[0]
    rank = np.empty(2 * n, np.int64)
    total = np.int64(0)
    for w in range(n):
        rank[2 * w] = total
        rank[2 * w + 1] = words[w]
        total += popcount(words[w])
    return rank, total


@inline_kernel
def _rank(rank, at):
    """The marked slots before slot ``at`` (a slot of the marks: ``at >> 6`` one of its
    words)."""
    w = at >> 6
    return rank[2 * w] + popcount(rank[2 * w + 1] & ((np.int64(1) << (at & 63)) - 1))


@inline_kernel
def _rank_up_to(rank, at):
    """``_rank`` for ``at`` up to the marks' end (the slot after their last word's)."""
    if at >> 6 >= rank.shape[0] // 2:
        return rank[rank.shape[0] - 2] + popcount(rank[rank.shape[0] - 1])
    return _rank(rank, at)


@kernel
def rank_of(rank, at):
    """The marked slots before slot ``at``: where its values start in ``cres``/``cdist``."""
    return _rank_up_to(rank, at)


@kernel
def marked_slots(rank, lo, n):
    """The marked slots among ``lo .. lo + n`` (a child table's, which start at slot ``lo`` of
    the marks), as offsets from ``lo`` (int64, ascending): their values go to ``cres`` and
    ``cdist`` from ``rank_of(lo)`` on, in this order.  Word by word, a set bit at a time:
    most words are empty."""
    out = np.empty(_rank_up_to(rank, lo + n) - _rank_up_to(rank, lo), np.int64)
    j = 0
    hi = lo + n
    for w in range(lo >> 6, (hi + 63) >> 6):
        word = rank[2 * w + 1]
        base = w << 6
        if base < lo:  # the bits below ``lo``
            word &= ~((np.int64(1) << (lo - base)) - 1)
        if hi - base < 64:  # the bits from ``hi`` on
            word &= (np.int64(1) << (hi - base)) - 1
        while word != 0:
            low = word & -word  # the lowest set bit (bit 63 too: the arithmetic wraps)
            out[j] = base + popcount(low - 1) - lo
            j += 1
            word ^= low
    return out


@kernel
def merge_marks(marks):
    """marks[0] |= every other row (each thread of a marking kernel sets its own row)."""
    for t in range(1, marks.shape[0]):
        for w in range(marks.shape[1]):
            marks[0, w] |= marks[t, w]
