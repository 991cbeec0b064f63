"""Chinese Dark Chess table edges, as docs/kernel-contract.md asks of a game's kernels.

A table's slots are ``side * size + idx`` (side to move 0 red, 1 black; idx the placement
index of ``index``, the material given by its ``desc``).
"""
import numpy as np

from tbdb.solvers.jit import kernel, parallel_kernel, prange
from tbdb.solvers.cdc.index import canonical, stabiliser, unrank
from tbdb.solvers.cdc.moves import CAPTURE_FLAG, NEIGHBOUR, NSQ, moves_of_board


@parallel_kernel
def census(desc, size, lo, hi):
    """kind int8 (0 a position, -3 a non-canonical index) and multiplicity int16 (placements
    the slot stands for) of slots lo..hi."""
    n = hi - lo
    kind = np.empty(n, np.int8)
    mult = np.zeros(n, np.int16)
    nchunk = (n + 4095) // 4096
    scratch = np.empty((nchunk, 2, 16), np.int64)
    for ch in prange(nchunk):
        sq = scratch[ch, 0]
        tmp = scratch[ch, 1]
        for r in range(ch * 4096, min(n, (ch + 1) * 4096)):
            idx = (lo + r) % size
            unrank(idx, desc, sq)
            is_canonical, fixed = stabiliser(idx, desc, sq, tmp)
            if is_canonical:
                kind[r] = 0
                mult[r] = 4 // fixed
            else:
                kind[r] = -3
    return kind, mult


@kernel
def _lookup_child(csq, cdesc, side, swap, cres, cdist, coff, csize, tmp):
    """Value of a capture child (its slots' squares in csq) in an already-solved table."""
    idx, _ = canonical(csq, cdesc, tmp)
    stored_side = side ^ swap
    i = coff + stored_side * csize + idx
    return cres[i], cdist[i]


@parallel_kernel
def children(desc, size, positions, slot_child, cdesc, cswap, ckind, coff, csize, cres, cdist,
              count, child, move, ext_result, ext_distance):
    """Every legal move of each position (slots), in ``moves_of_board`` order.

    A step leads to a slot of this table.  A capture of slot o leads to table ``cdesc[o]``
    (values at ``cres/cdist[coff[o]:]``, ``csize[o]`` indices per side, colours swapped if
    ``cswap[o]``) where parent slot j becomes child slot ``slot_child[o, j]``; ``ckind[o] == 1``
    means the victim's side has no piece left (the child is lost for its mover at distance 0).
    """
    k = desc[0]
    n = positions.shape[0]
    nchunk = (n + 255) // 256
    iscratch = np.empty((nchunk, 3, 16), np.int64)
    bscratch = np.empty((nchunk, 2, NSQ), np.int8)
    mscratch = np.empty((nchunk, 64), np.int16)
    for ch in prange(nchunk):
        sq = iscratch[ch, 0]
        tmp = iscratch[ch, 1]
        csq = iscratch[ch, 2]
        board = bscratch[ch, 0]  # slots: which piece stands where
        codes = bscratch[ch, 1]  # piece codes: what the move generator reads
        moves = mscratch[ch]
        for r in range(ch * 256, min(n, (ch + 1) * 256)):
            side = positions[r] // size
            unrank(positions[r] % size, desc, sq)
            for s in range(NSQ):
                board[s] = -1
                codes[s] = -1
            for j in range(k):
                board[sq[j]] = j
                codes[sq[j]] = desc[12 + j]
            nmoves = moves_of_board(codes, side, moves)
            count[r] = nmoves
            for e in range(nmoves):
                mv = moves[e]
                move[r, e] = mv
                s = (mv % CAPTURE_FLAG) // 32
                t = mv % 32
                j = board[s]
                if mv < CAPTURE_FLAG:
                    sq[j] = t
                    c, _ = canonical(sq, desc, tmp)
                    sq[j] = s
                    child[r, e] = (1 - side) * size + c
                    continue
                child[r, e] = -1
                o = board[t]
                if ckind[o] == 1:
                    ext_result[r, e] = -1
                    ext_distance[r, e] = 0
                    continue
                for f in range(k):
                    if f != o:
                        csq[slot_child[o, f]] = t if f == j else sq[f]
                res, dist = _lookup_child(csq, cdesc[o], 1 - side, cswap[o], cres, cdist, coff[o],
                                          csize[o], tmp)
                ext_result[r, e] = res
                ext_distance[r, e] = dist


@parallel_kernel
def parents(desc, size, positions, count, parent):
    """Every in-table parent slot of each position: the side that just moved steps one of its
    pieces back to an adjacent empty square (captures leave the table, so no un-capture)."""
    k = desc[0]
    n = positions.shape[0]
    nchunk = (n + 255) // 256
    iscratch = np.empty((nchunk, 2, 16), np.int64)
    bscratch = np.empty((nchunk, NSQ), np.int8)
    for ch in prange(nchunk):
        sq = iscratch[ch, 0]
        tmp = iscratch[ch, 1]
        board = bscratch[ch]
        for r in range(ch * 256, min(n, (ch + 1) * 256)):
            side = positions[r] // size
            mover = 1 - side
            unrank(positions[r] % size, desc, sq)
            for s in range(NSQ):
                board[s] = -1
            for j in range(k):
                board[sq[j]] = j
            m = 0
            for j in range(k):
                if desc[12 + j] // 7 != mover:
                    continue
                t = sq[j]
                for d in range(4):
                    s = NEIGHBOUR[t, d]
                    if s < 0 or board[s] >= 0:
                        continue
                    sq[j] = s
                    p, _ = canonical(sq, desc, tmp)
                    sq[j] = t
                    parent[r, m] = mover * size + p
                    m += 1
            count[r] = m
