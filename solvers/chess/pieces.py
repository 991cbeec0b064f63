"""Move generation over a table's piece list, for the table kernels: a position of a table is a
few pieces (``desc`` codes, ``sq`` squares), so whether a king is attacked is asked of those
pieces (attack bitboards, the squares between two squares) instead of scanning the board.

``table_moves`` lists exactly the moves ``moves.legal_moves`` lists, in the same order (by
from-square, then direction; promotions queen, rook, bishop, knight), without en passant
(table positions have no en passant right).
"""
import numpy as np
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros

from tbdb.solvers.bits import popcount
from tbdb.solvers.jit import inline_kernel, kernel
from tbdb.solvers.chess.moves import BISHOP, BLACK_BIT, KING, KING_TO, KNIGHT, KNIGHT_TO, PAWN, \
    QUEEN, RAYS, RAY_LEN, ROOK


def _build():
    one = np.uint64(1)
    att_n = np.zeros(64, np.uint64)
    att_k = np.zeros(64, np.uint64)
    att_p = np.zeros((2, 64), np.uint64)  # squares a pawn of each colour attacks
    line = np.zeros((64, 64), np.int8)  # 1 same rank/file, 2 same diagonal
    between = np.zeros((64, 64), np.uint64)
    ray = np.zeros((64, 8), np.uint64)  # the squares along each direction (moves.py's)
    for a in range(64):
        for t in KNIGHT_TO[a]:
            if t >= 0:
                att_n[a] |= one << np.uint64(t)
        for t in KING_TO[a]:
            if t >= 0:
                att_k[a] |= one << np.uint64(t)
        f, r = a % 8, a // 8
        for colour, dr in ((0, 1), (1, -1)):
            for df in (-1, 1):
                if 0 <= f + df < 8 and 0 <= r + dr < 8:
                    att_p[colour, a] |= one << np.uint64((r + dr) * 8 + f + df)
        for d in range(8):
            mask = np.uint64(0)
            for j in range(RAY_LEN[a, d]):
                b = RAYS[a, d, j]
                line[a, b] = 1 if d < 4 else 2
                between[a, b] = mask
                mask |= one << np.uint64(b)
            ray[a, d] = mask
    return att_n, att_k, att_p, line, between, ray


ATT_N, ATT_K, ATT_P, LINE, BETWEEN, RAY = _build()
# directions whose squares ascend (north, east, north-east, north-west): the first piece on
# such a ray is its lowest set bit, on the others its highest
ASCENDING = np.array([1, 1, 0, 0, 1, 0, 0, 1], np.bool_)


@inline_kernel
def bit(sq):
    return np.uint64(1) << np.uint64(sq)


@inline_kernel
def placement_occupancy(desc, sq, k):
    """The occupied squares of pieces ``sq[:k]`` (an unranked slot), or 0 when the slot is not
    a placement's canonical one: two pieces on a square, or identical pieces not ascending.
    Never 0 otherwise: the two kings are always there."""
    occ = np.uint64(0)
    for i in range(k):
        b = bit(sq[i])
        if occ & b or (i > 2 and desc[2 + i] == desc[1 + i] and sq[i] < sq[i - 1]):
            return np.uint64(0)
        occ |= b
    return occ


@inline_kernel
def attacked(desc, sq, target, by, occ, skip):
    """Whether a piece of colour ``by`` among the table's pieces (squares ``sq``; slot ``skip``
    just captured, or -1) attacks ``target``, ``occ`` the occupied squares."""
    want = by * BLACK_BIT
    for i in range(desc[0]):
        c = desc[2 + i]
        if i == skip or (c & BLACK_BIT) != want:
            continue
        if piece_attacks(c & 7, by, sq[i], target, occ):
            return True
    return False


@inline_kernel
def piece_attacks(t, by, a, target, occ):
    """Whether a piece of type ``t`` and colour ``by`` on ``a`` attacks ``target``, ``occ``
    the occupied squares."""
    tb = bit(target)
    if t == KNIGHT:
        return ATT_N[a] & tb != 0
    if t == KING:
        return ATT_K[a] & tb != 0
    if t == PAWN:
        return ATT_P[by, a] & tb != 0
    ln = LINE[a, target]
    if ln == 0 or (t == ROOK and ln == 2) or (t == BISHOP and ln == 1):
        return False
    return BETWEEN[a, target] & occ == 0


@inline_kernel
def _add(out, victims, n, desc, sq, side, i, to, victim, occ, king, promo_rank, safe):
    """Append piece ``i``'s move to ``to`` (taking slot ``victim`` or -1) if it leaves the king
    (on ``king`` after it) safe; returns the new count.  ``safe``: the move is known to leave
    the king safe (see ``table_moves``), no test needed."""
    old = sq[i]
    if not safe and exposes(desc, sq, side, i, to, occ, king, victim):
        return n
    m = np.int32(old + 64 * to)
    if promo_rank:
        for p in (QUEEN, ROOK, BISHOP, KNIGHT):
            out[n] = m + 4096 * p
            victims[n] = victim
            n += 1
        return n
    out[n] = m
    victims[n] = victim
    return n + 1


@inline_kernel
def _attacks(desc, sq, by, occ, skip):
    """The squares the pieces of colour ``by`` (squares ``sq``; slot ``skip`` left out, or -1)
    attack, sliders stopping at the first occupied square of ``occ``."""
    want = by * BLACK_BIT
    out = np.uint64(0)
    for i in range(desc[0]):
        c = desc[2 + i]
        if i == skip or (c & BLACK_BIT) != want:
            continue
        a = sq[i]
        t = c & 7
        if t == KNIGHT:
            out |= ATT_N[a]
        elif t == KING:
            out |= ATT_K[a]
        elif t == PAWN:
            out |= ATT_P[by, a]
        else:
            d0 = 4 if t == BISHOP else 0
            d1 = 4 if t == ROOK else 8
            for d in range(d0, d1):
                out |= _ray_attacks(a, d, occ)
    return out


@inline_kernel
def _ray_attacks(a, d, occ):
    """The squares a slider on ``a`` attacks in direction ``d``: its ray up to and including
    the first occupied square (the ray beyond that square cut off; walking the ray a square at
    a time cost a large part of listing a position's moves)."""
    r = RAY[a, d]
    block = r & occ
    if block == 0:
        return r
    if ASCENDING[d]:
        b = np.int64(trailing_zeros(block))
    else:
        b = 63 - np.int64(leading_zeros(block))
    return r ^ RAY[b, d]


@inline_kernel
def _pinned(desc, sq, side, occ, king):
    """The squares that may hold a piece pinned to ``side``'s king (on ``king``): the one
    occupied square between the king and an enemy slider that moves along their line."""
    want = (1 - side) * BLACK_BIT
    out = np.uint64(0)
    for i in range(desc[0]):
        c = desc[2 + i]
        t = c & 7
        if (c & BLACK_BIT) != want or t < BISHOP or t > QUEEN:
            continue
        ln = LINE[king, sq[i]]
        if ln == 0 or (t == ROOK and ln == 2) or (t == BISHOP and ln == 1):
            continue
        inside = BETWEEN[king, sq[i]] & occ
        if inside != 0 and inside & (inside - np.uint64(1)) == 0:  # exactly one
            out |= inside
    return out


@inline_kernel
def table_moves(desc, sq, side, ep, board, occ, out, victims, order, limit, count_quiet):
    """Every legal move of ``side`` in the table position ``sq`` (``ep``: the en passant
    square, -1 none; ``board``: its slot number + 1 on each occupied square, 0 empty; ``occ``
    the occupied squares) into ``out``, and the slot each takes (-1 none) into ``victims``;
    returns (how many listed, how many counted) (``order``: scratch, int64[>= k]).  Stops
    after the first piece whose moves make ``limit`` or more: the first moves in the order are
    listed all the same.  With ``count_quiet`` the quiet moves (no capture, no promotion) are
    counted, not listed: the others are listed in their order, and an unpinned piece's quiet
    moves are counted from its attack set without walking them (listing them was most of the
    first pass's work, which only needs their number)."""
    k = desc[0]
    own = side * BLACK_BIT
    # own pieces by square: the move order is by from-square
    m = 0
    for i in range(k):
        if (desc[2 + i] & BLACK_BIT) == own:
            j = m
            while j > 0 and sq[order[j - 1]] > sq[i]:
                order[j] = order[j - 1]
                j -= 1
            order[j] = i
            m += 1
    king = sq[side]
    # what the other side attacks through the king's square (a king stepping back along a
    # slider's line stays attacked): a king's step that takes nothing is legal where this
    # is not; asking ``attacked`` of each step cost a large part of listing a position's moves
    threat = _attacks(desc, sq, 1 - side, occ ^ bit(king), -1)
    free = threat & bit(king) == 0
    # a side not in check whose piece is not pinned cannot expose its king by moving that
    # piece (it opens no line to the king; a capture only removes an attacker): such moves
    # need no test
    pins = _pinned(desc, sq, side, occ, king) if free else np.uint64(0)
    empty = ~occ
    n = 0
    quiet = 0
    for o in range(m):
        if n + quiet >= limit:
            break
        i = order[o]
        fr = sq[i]
        t = desc[2 + i] & 7
        safe = free and t != KING and pins & bit(fr) == 0
        fast = count_quiet and safe  # quiet moves counted from the attack set
        if t == PAWN:
            step = 8 if side == 0 else -8
            to = fr + step
            last = (to // 8 == 7) if side == 0 else (to // 8 == 0)
            if board[to] == 0:
                if count_quiet and not last:
                    quiet += _legal(desc, sq, side, i, to, occ, king, safe)
                else:
                    n = _add(out, victims, n, desc, sq, side, i, to, -1, occ, king, last, safe)
                start = (fr // 8 == 1) if side == 0 else (fr // 8 == 6)
                if start and board[to + step] == 0:
                    if count_quiet:
                        quiet += _legal(desc, sq, side, i, to + step, occ, king, safe)
                    else:
                        n = _add(out, victims, n, desc, sq, side, i, to + step, -1, occ, king,
                                 False, safe)
            f = fr % 8
            for df in (-1, 1):
                if (df < 0 and f == 0) or (df > 0 and f == 7):
                    continue
                tc = to + df
                v = board[tc] - 1
                if v >= 0 and (desc[2 + v] & BLACK_BIT) != own:
                    n = _add(out, victims, n, desc, sq, side, i, tc, v, occ, king, last, safe)
                elif tc == ep and v < 0:
                    # en passant: the pawn taken stands beside, not on the target; its square
                    # empties too, which can open a line to the king along the rank, so the
                    # test is never skipped
                    gone = tc - step
                    n = _add(out, victims, n, desc, sq, side, i, tc, board[gone] - 1,
                             occ ^ bit(gone), king, False, False)
        elif t == KNIGHT:
            if fast:
                quiet += popcount(ATT_N[fr] & empty)
                if ATT_N[fr] & occ == 0:
                    continue
            for d in range(8):
                to = KNIGHT_TO[fr, d]
                if to < 0:
                    break
                v = board[to] - 1
                if v < 0:
                    if fast:
                        continue
                    if count_quiet:
                        quiet += _legal(desc, sq, side, i, to, occ, king, safe)
                    else:
                        n = _add(out, victims, n, desc, sq, side, i, to, v, occ, king, False,
                                 safe)
                elif (desc[2 + v] & BLACK_BIT) != own:
                    n = _add(out, victims, n, desc, sq, side, i, to, v, occ, king, False, safe)
        elif t == KING:
            if count_quiet:
                quiet += popcount(ATT_K[fr] & empty & ~threat)
            for d in range(8):
                to = KING_TO[fr, d]
                if to < 0:
                    break
                v = board[to] - 1
                if v < 0:
                    if threat & bit(to) == 0 and not count_quiet:
                        n = _add(out, victims, n, desc, sq, side, i, to, v, occ, to, False,
                                 True)
                elif (desc[2 + v] & BLACK_BIT) != own:
                    # a capture: the map counted the taken piece's attacks, so ask
                    n = _add(out, victims, n, desc, sq, side, i, to, v, occ, to, False, False)
        else:
            d0 = 4 if t == BISHOP else 0
            d1 = 4 if t == ROOK else 8
            for d in range(d0, d1):
                if fast:
                    reach = _ray_attacks(fr, d, occ)
                    quiet += popcount(reach & empty)
                    hit = reach & occ
                    if hit != 0:
                        to = np.int64(trailing_zeros(hit))
                        v = board[to] - 1
                        if (desc[2 + v] & BLACK_BIT) != own:
                            n = _add(out, victims, n, desc, sq, side, i, to, v, occ, king,
                                     False, True)
                    continue
                for j in range(RAY_LEN[fr, d]):
                    to = RAYS[fr, d, j]
                    v = board[to] - 1
                    if v >= 0 and (desc[2 + v] & BLACK_BIT) == own:
                        break
                    if v < 0 and count_quiet:
                        quiet += _legal(desc, sq, side, i, to, occ, king, safe)
                    else:
                        n = _add(out, victims, n, desc, sq, side, i, to, v, occ, king, False,
                                 safe)
                    if v >= 0:
                        break
    return n, quiet


@kernel
def exposes(desc, sq, side, i, to, occ, king, victim):
    """Whether piece ``i``'s move to ``to`` (taking slot ``victim``, or -1) leaves its king (on
    ``king`` after it) attacked.  A called kernel, not inlined: only unsafe moves (in check, a
    pinned piece, a king's capture) ask, and the generator asks at thirteen places, each of
    which inlined would be compiled again."""
    old = sq[i]
    sq[i] = to
    bad = attacked(desc, sq, king, 1 - side, (occ ^ bit(old)) | bit(to), victim)
    sq[i] = old
    return bad


@inline_kernel
def _legal(desc, sq, side, i, to, occ, king, safe):
    """1 if piece ``i``'s quiet move to ``to`` leaves the king (on ``king``) safe, else 0."""
    if safe or not exposes(desc, sq, side, i, to, occ, king, -1):
        return 1
    return 0


@inline_kernel
def fill(desc, sq, board):
    """``board``: slot number + 1 on each occupied square (cleared first); the occupancy."""
    board[:] = 0
    occ = np.uint64(0)
    for i in range(desc[0]):
        board[sq[i]] = i + 1
        occ |= bit(sq[i])
    return occ


@inline_kernel
def unfill(desc, sq, board):
    """Clear the squares ``fill`` set (cheaper than clearing the board)."""
    for i in range(desc[0]):
        board[sq[i]] = 0
