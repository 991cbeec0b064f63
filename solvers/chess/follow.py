"""How the chess kernels list a position's moves and follow them to child slots: the value
codes the kernels write, the scratch a chunk of positions needs (``move_scratch``), a slot's
legal moves (``listed_moves``), a move's child slot in the table or in a solved child table
and that child's value (``follow_move``, ``follow_slot``), and whether two moves can meet in
one child (``may_repeat``).  ``edges`` (children) and ``parents`` build on these.
"""
import numpy as np

from tbdb.solvers.jit import inline_kernel, kernel
from tbdb.solvers.chess.ep import ep_right, ep_square, find_key
from tbdb.solvers.chess.index import MAX_PIECES, SYM, canonical_index, canonical_with, \
    identity_pair, slot_weights, unrank
from tbdb.solvers.chess.keys import key_kind, move_key
from tbdb.solvers.retrograde.exits import exit_value
from tbdb.solvers.chess.pieces import bit, fill, table_moves, unfill
from tbdb.solvers.chess.moves import MAX_MOVES, PAWN

NONE = np.int8(-3)
ILLEGAL = np.int8(-2)
DRAW = np.int8(0)
WIN = np.int8(1)
LOSS = np.int8(-1)
NO_MOVE = np.int32(-1)
NO_EXT = np.int16(32767)
CHUNK = 4096


@inline_kernel
def move_scratch(desc):
    """The scratch of a kernel that lists moves and follows them (``listed_moves``,
    ``follow_move``), one set per chunk: sq, after, csq, t, order, syms, pairs, board, moves,
    victims, and the table's slot weights and lone slots (``slot_weights``)."""
    weight = np.empty(MAX_PIECES, np.int64)
    lone = np.empty(MAX_PIECES, np.bool_)
    slot_weights(desc, weight, lone)
    return (np.empty(MAX_PIECES, np.int64), np.empty(MAX_PIECES, np.int64),
            np.empty(MAX_PIECES, np.int64), np.empty(MAX_PIECES, np.int64),
            np.empty(MAX_PIECES, np.int64), np.empty(8, np.int64), np.empty(8, np.int64),
            np.zeros(64, np.int8), np.empty(MAX_MOVES, np.int32), np.empty(MAX_MOVES, np.int64),
            weight, lone)


@kernel
def listed_moves(desc, keys, half, slot, sq, board, moves, victims, order, limit, count_quiet):
    """The position of ``slot`` (an en passant slot's board and capture included) into
    ``sq`` and its legal moves into ``moves``/``victims`` (the first ``limit`` or more; with
    ``count_quiet`` the quiet ones counted, not listed: ``table_moves``): (side to move, its
    index, its occupied squares, how many moves listed, how many counted).  A called kernel,
    not inlined: the generator inside (``table_moves``, its legality test inlined at each of
    its eight places) was copied into every kernel that lists moves, and compiling a KPvK
    build took twice as long; one call a position costs little beside its twenty moves (a
    call a move cost far more)."""
    p = slot
    ep = -1
    if p >= 2 * half:
        p, ep = ep_square(desc, half, keys[p - 2 * half])
    side = p // half
    here = p % half
    unrank(desc, here, sq)
    occ = fill(desc, sq, board)
    m, quiet = table_moves(desc, sq, side, ep, board, occ, moves, victims, order, limit,
                           count_quiet)
    unfill(desc, sq, board)
    return side, here, occ, m, quiet


@inline_kernel
def follow_move(desc, keys, half, here, sq, side, occ, mv, victim, keyed, after, t, csq, syms,
                pairs, nsym, weight, lone, change_table, change_map, cdesc, cflip, coff, chalf,
                cres, cdist, crank):
    """Where the move ``mv`` (taking slot ``victim``, -1 none) of the position ``sq`` (index
    ``here``, ``side`` to move, ``occ`` its occupied squares; its kings' symmetries ``syms``/
    ``pairs``, ``nsym`` of them) leads: (the move's number: its code, or with ``keyed`` its
    order key; the in-table child slot, -1 outside; outside, the child's result and distance,
    read whole or through ``crank``: ``solvers/retrograde/exits.py``).  ``after``, ``t``,
    ``csq``: scratch."""
    number, c, at = follow_slot(desc, keys, half, here, sq, side, occ, mv, victim, keyed, after,
                                t, csq, syms, pairs, nsym, weight, lone, change_table,
                                change_map, cdesc, cflip, coff, chalf)
    if c >= 0 or at < 0:  # in the table, or bare kings
        return number, c, DRAW, np.int16(0)
    r, d = exit_value(cres, cdist, crank, at)
    return number, np.int64(-1), r, d


@inline_kernel
def follow_slot(desc, keys, half, here, sq, side, occ, mv, victim, keyed, after, t, csq, syms,
                pairs, nsym, weight, lone, change_table, change_map, cdesc, cflip, coff, chalf):
    """``follow_move`` up to the value: (the move's number, the in-table child slot or -1, the
    child's slot among the child tables' or -1 for bare kings)."""
    k = desc[0]
    fr = mv & 63
    to = (mv >> 6) & 63
    promo = mv >> 12
    mover = 0
    for i in range(k):
        after[i] = sq[i]
        if sq[i] == fr:
            mover = i
    after[mover] = to
    number = move_key(key_kind(desc[2 + mover], side), fr, to, promo) if keyed else mv
    if victim < 0 and promo == 0:
        pn = identity_pair(desc, after[0], after[1]) if mover < 2 else -1
        if pn >= 0:
            # only the identity puts the kings in a canonical pair: the pair's digit changes
            idx = here + (pn - here // weight[1]) * weight[1]
        elif mover < 2:  # a king moved: the symmetries that fit change
            idx = canonical_index(desc, after, t)
        elif nsym == 1 and lone[mover]:
            # only the identity keeps the kings canonical and no identical piece to reorder:
            # the index changes in the mover's digit alone
            idx = here + (to - fr) * weight[mover]
        else:
            idx = canonical_with(desc, after, t, syms, pairs, nsym)
        c = (1 - side) * half + idx
        if keys.shape[0] and (to - fr == 16 or fr - to == 16) and \
                desc[2 + mover] & 7 == PAWN and \
                ep_right(desc, after, 1 - side, (occ ^ bit(fr)) | bit(to), mover):
            # the opponent may take en passant: its en passant slot (with pawns the one
            # symmetry fitting the kings, syms[0], places the file)
            got = find_key(keys, c * 8 + SYM[syms[0], to] % 8)
            if got >= 0:  # always (the keys are these positions): see ep.py
                c = 2 * half + got
        return number, c, np.int64(-1)
    if victim < 0:
        victim = k
    ch = victim * (k + 1) * 6 + (mover if promo else k) * 6 + promo
    ct = change_table[ch]
    if ct < 0:  # bare kings
        return number, np.int64(-1), np.int64(-1)
    flip = cflip[ct]
    for i in range(k):
        j = change_map[ch, i]
        if j >= 0:
            csq[j] = after[i] ^ 56 if flip else after[i]
    idx = canonical_index(cdesc[ct], csq, t)
    cside = side if flip else 1 - side
    return number, np.int64(-1), coff[ct] + cside * chalf[ct] + idx


@inline_kernel
def may_repeat(desc, sq, side):
    """Whether two moves of ``side`` in ``sq`` can lead to one canonical child: to images of
    each other under a symmetry, which must keep the king that does not move on its square:
    only a diagonal reflection can, in a table without pawns, with that king on its diagonal
    (with pawns the one symmetry, the mirror, keeps no square).  And only in a position that
    reflection nearly keeps: if moves a -> b and a' -> b' of position P meet, S(P - a + b) =
    P - a' + b', so the pieces of P that S sends where P has no piece of their kind are among
    S(a) and b': at most two.  Most positions with the king on a diagonal have three or more
    (every one of them was indexed and sorted for nothing; the same holds of a child's
    unmoves in ``parents``)."""
    if desc[1]:
        return False
    s = sq[1 - side]
    main = s % 8 == s // 8
    if not main and s % 8 + s // 8 != 7:
        return False
    k = desc[0]
    off = 0
    for j in range(k):
        a = sq[j]
        r = (a % 8) * 8 + a // 8 if main else (7 - a % 8) * 8 + 7 - a // 8
        kept = False
        for i in range(k):
            if sq[i] == r and desc[2 + i] == desc[2 + j]:
                kept = True
        if not kept:
            off += 1
    return off <= 2
