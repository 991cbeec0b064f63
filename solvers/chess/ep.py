"""En passant slots of a chess table with pawns of both colours.

A position where the side to move may capture en passant differs from the same board without
that right (it has one move more), so a double step next to an enemy pawn must lead to a
position of its own.  Such a table has, after its ``2 * half`` ordinary slots, one *en passant
slot* per legal position (canonical placement, side to move) and file of an enemy pawn that
can just have double-stepped there: the pawn on its fourth rank (rank 5 for a black pawn with
white to move, rank 4 for a white one), the two squares it crossed empty, and at least one
legal en passant capture onto the square it skipped (as python-chess and FEN count a right).

Keys: ``(side * half + index) * 8 + file`` (the ordinary slot of the board and the file of the
pawn in that canonical placement: with pawns the board symmetry a placement's kings fix is
unique, so the file is well defined).  ``keys`` int64[n] sorted ascending; key number e is slot
``2 * half + e``.  An en passant slot's moves are its board's moves plus the en passant
capture(s); its only in-table parent is the double step (and the en passant slots of that
double step's position, which have the same move).
"""
import numpy as np

from tbdb.solvers.chess.index import MAX_PIECES, canonical, half_size, unrank
from tbdb.solvers.chess.moves import BLACK_BIT, PAWN
from tbdb.solvers.chess.pieces import attacked, bit, placement_occupancy
from tbdb.solvers.jit import inline_kernel, kernel, parallel_kernel, prange

CHUNK = 4096


@kernel
def both_pawns(desc):
    """Whether the table has pawns of both colours (only those have en passant slots)."""
    white = black = False
    for i in range(desc[0]):
        c = desc[2 + i]
        if c & 7 == PAWN:
            if c & BLACK_BIT:
                black = True
            else:
                white = True
    return white and black


@inline_kernel
def ep_right(desc, sq, side, occ, j):
    """Whether ``side`` to move in placement ``sq`` (occupied squares ``occ``) may capture the
    pawn of slot ``j`` en passant: an enemy pawn on its fourth rank, the squares it crossed
    empty, a pawn of ``side`` beside it whose capture leaves its king safe.  ``sq`` is
    scratch, restored."""
    code = desc[2 + j]
    if code & 7 != PAWN or (code & BLACK_BIT) == side * BLACK_BIT:
        return False
    p = sq[j]
    if side == 0:  # a black pawn from rank 7 to rank 5
        if p // 8 != 4:
            return False
        skip = p + 8
        origin = p + 16
    else:
        if p // 8 != 3:
            return False
        skip = p - 8
        origin = p - 16
    if occ & (bit(skip) | bit(origin)):
        return False
    own = side * BLACK_BIT + PAWN
    king = sq[side]
    for i in range(desc[0]):
        s = sq[i]
        if desc[2 + i] != own or s // 8 != p // 8 or abs(s % 8 - p % 8) != 1:
            continue
        after = (occ ^ bit(s) ^ bit(p)) | bit(skip)
        sq[i] = skip
        bad = attacked(desc, sq, king, 1 - side, after, j)
        sq[i] = s
        if not bad:
            return True
    return False


@inline_kernel
def ep_square(desc, half, key):
    """(ordinary slot, en passant square) of an en passant key."""
    slot = key >> 3
    f = key & 7
    return slot, (40 + f) if slot < half else (16 + f)


@inline_kernel
def find_key(keys, key):
    """The number of ``key`` in the sorted ``keys``, or -1."""
    lo = 0
    hi = keys.shape[0]
    while lo < hi:
        mid = (lo + hi) >> 1
        if keys[mid] < key:
            lo = mid + 1
        else:
            hi = mid
    if lo < keys.shape[0] and keys[lo] == key:
        return lo
    return -1


@parallel_kernel
def _flags(desc, side, j, flags):
    """flags uint8[n] over the indices whose pawn slot ``j`` stands on its fourth rank
    (``r = (hi * 8 + file) * w + lo`` for index ``(hi * 48 + rank4 + file) * w + lo``, w the
    radix below slot j): 1 where that placement, ``side`` to move, is an en passant slot."""
    k = desc[0]
    w = np.int64(1)
    for i in range(k - 1, j, -1):
        w *= 48 if desc[2 + i] & 7 == PAWN else 64
    base = 24 if side == 0 else 16  # rank 5 (a black pawn) or rank 4, less 8
    half = half_size(desc)
    n = flags.shape[0]
    chunks = (n + CHUNK - 1) // CHUNK
    for c in prange(chunks):
        sq = np.empty(MAX_PIECES, np.int64)
        t = np.empty(MAX_PIECES, np.int64)
        for r in range(c * CHUNK, min(n, (c + 1) * CHUNK)):
            flags[r] = 0
            lo = r % w
            hf = r // w
            idx = ((hf // 8) * 48 + base + hf % 8) * w + lo
            if idx >= half:
                continue
            unrank(desc, idx, sq)
            occ = placement_occupancy(desc, sq, k)
            if occ == 0:
                continue
            best, _ = canonical(desc, sq, t)
            if best != idx:
                continue
            if attacked(desc, sq, sq[1 - side], side, occ, -1):
                continue  # the side not to move in check: illegal
            if ep_right(desc, sq, side, occ, j):
                flags[r] = 1


def enumerate_keys(desc: np.ndarray) -> np.ndarray:
    """The sorted en passant keys of the table ``desc`` (empty unless both colours have
    pawns)."""
    if not both_pawns(desc):
        return np.zeros(0, np.int64)
    k = int(desc[0])
    half = int(half_size(desc))
    codes = [int(c) for c in desc[2:2 + k]]
    out = []
    for side in (0, 1):
        for j in range(2, k):
            c = codes[j]
            if c & 7 != PAWN or (c & BLACK_BIT) == side * BLACK_BIT:
                continue
            w = 1
            for i in range(k - 1, j, -1):
                w *= 48 if codes[i] & 7 == PAWN else 64
            n = half // (48 * w) * 8 * w
            flags = np.empty(n, np.uint8)
            _flags(desc, side, j, flags)
            r = np.flatnonzero(flags).astype(np.int64)
            del flags
            lo, hf = r % w, r // w
            f = hf % 8
            idx = ((hf // 8) * 48 + (24 if side == 0 else 16) + f) * w + lo
            out.append((side * half + idx) * 8 + f)
    if not out:
        return np.zeros(0, np.int64)
    return np.unique(np.concatenate(out))
