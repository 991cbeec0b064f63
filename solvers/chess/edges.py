"""A chess table's slots, children and parents (docs/kernel-contract.md).

Slots ``side * half + index`` (side 0: the table's first side, playing white, to move).  A
move that captures or promotes changes the material: its child is in another, solved table,
found through the table's *changes*: for change number
``(captured slot or k) * (k + 1) * 6 + (promoted slot or k) * 6 + promotion type``,
``change_table[c]`` is the child table (-1: bare kings, a draw), and ``change_map[c, i]`` the
child table slot of this table's piece slot i (-1: captured).  Per child table: ``cdesc``,
``cflip`` (1: its first side is this table's second side: ranks mirrored, sides swapped),
``coff`` (where its values start in ``cres``/``cdist``) and ``chalf``.

A position with no legal move is checkmate (no children: lost at distance 0) or stalemate: one
pseudo-move ``STALEMATE_MOVE`` to a drawn child outside the table.

En passant (``ep.py``): a table with pawns of both colours has en passant slots after its
``2 * half`` ordinary ones (``keys``, sorted; empty for other tables).  A double step whose
position gives the opponent a legal en passant capture leads to that en passant slot, any
other move to an ordinary slot; an en passant slot's moves are its board's and the en passant
capture (into the table without the pawn taken).
"""
import numpy as np

from tbdb.solvers.jit import inline_kernel, kernel, parallel_kernel, prange
from tbdb.solvers.chess.ep import ep_right, ep_square, find_key
from tbdb.solvers.chess.index import KPAIR_NUMBER, KPAIR_STAB, MAX_PIECES, PKPAIR_NUMBER, \
    PKPAIR_STAB, SYM, _index_of, _sort_groups, canonical, canonical_index, canonical_with, \
    half_size, identity_pair, orbit, pair_symmetries, pair_symmetries_inline, set_board, \
    slot_weights, unrank
from tbdb.solvers.chess.keys import key_kind, move_key
from tbdb.solvers.retrograde.edge_free import is_settled
from tbdb.solvers.retrograde.exits import exit_value
from tbdb.solvers.retrograde.rows import sorted_unique
from tbdb.solvers.chess.pieces import attacked, bit, fill, piece_attacks, placement_occupancy, \
    table_moves, unfill
from tbdb.solvers.chess.moves import BLACK_BIT, KING_TO, KNIGHT, KNIGHT_TO, MAX_MOVES, PAWN, \
    RAYS, RAY_LEN, ROOK, BISHOP, STALEMATE_MOVE

NONE = np.int8(-3)
ILLEGAL = np.int8(-2)
DRAW = np.int8(0)
WIN = np.int8(1)
LOSS = np.int8(-1)
NO_MOVE = np.int32(-1)
NO_EXT = np.int16(32767)
CHUNK = 4096


@parallel_kernel
def census(desc, keys, lo, hi, kind, mult):
    """kind int8[hi - lo] (NONE, ILLEGAL or 0) and multiplicity int16[hi - lo] of slots lo..hi
    (ILLEGAL: the side not to move is in check; en passant slots are legal positions)."""
    half = half_size(desc)
    k = desc[0]
    pawns = desc[1]
    nsym = 2 if pawns else 8
    n = hi - lo
    chunks = (n + CHUNK - 1) // CHUNK
    for c in prange(chunks):
        sq = np.empty(MAX_PIECES, np.int64)
        t = np.empty(MAX_PIECES, np.int64)
        for r in range(c * CHUNK, min(n, (c + 1) * CHUNK)):
            p = lo + r
            if p >= 2 * half:  # an en passant slot: a legal position by its definition
                slot, _ = ep_square(desc, half, keys[p - 2 * half])
                unrank(desc, slot % half, sq)
                kind[r] = 0
                mult[r] = orbit(desc, sq, t)
                continue
            side = p // half
            idx = p % half
            unrank(desc, idx, sq)
            occ = placement_occupancy(desc, sq, k)
            if occ == 0:
                kind[r] = NONE
                mult[r] = 0
                continue
            a0 = sq[0] * 64 + sq[1]
            stab = PKPAIR_STAB[PKPAIR_NUMBER[a0]] if pawns else KPAIR_STAB[KPAIR_NUMBER[a0]]
            if stab == 1:  # only the identity keeps the kings canonical: see index.py
                mult[r] = nsym
            else:
                best, _ = canonical(desc, sq, t)
                if best != idx:
                    kind[r] = NONE
                    mult[r] = 0
                    continue
                mult[r] = orbit(desc, sq, t)
            kind[r] = ILLEGAL if attacked(desc, sq, sq[1 - side], side, occ, -1) else 0


@inline_kernel
def _move_scratch(desc):
    """The scratch of a kernel that lists moves and follows them (``_listed``, ``_follow``),
    one set per chunk: sq, after, csq, t, order, syms, pairs, board, moves, victims, and the
    table's slot weights and lone slots (``slot_weights``)."""
    weight = np.empty(MAX_PIECES, np.int64)
    lone = np.empty(MAX_PIECES, np.bool_)
    slot_weights(desc, weight, lone)
    return (np.empty(MAX_PIECES, np.int64), np.empty(MAX_PIECES, np.int64),
            np.empty(MAX_PIECES, np.int64), np.empty(MAX_PIECES, np.int64),
            np.empty(MAX_PIECES, np.int64), np.empty(8, np.int64), np.empty(8, np.int64),
            np.zeros(64, np.int8), np.empty(MAX_MOVES, np.int32), np.empty(MAX_MOVES, np.int64),
            weight, lone)


@kernel
def _listed(desc, keys, half, slot, sq, board, moves, victims, order, limit, count_quiet):
    """The position of ``slot`` (an en passant slot's board and capture included) into
    ``sq`` and its legal moves into ``moves``/``victims`` (the first ``limit`` or more; with
    ``count_quiet`` the quiet ones counted, not listed: ``table_moves``): (side to move, its
    index, its occupied squares, how many moves listed, how many counted).  A called kernel,
    not inlined: the generator inside (``table_moves``, its legality test inlined at each of
    its eight places) was copied into every kernel that lists moves, and compiling a KPvK
    build took 133 s instead of 69; one call a position costs little beside its twenty moves
    (a call a move cost six times the time)."""
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
def _follow(desc, keys, half, here, sq, side, occ, mv, victim, keyed, after, t, csq, syms, pairs,
            nsym, weight, lone, change_table, change_map, cdesc, cflip, coff, chalf, cres, cdist,
            crank):
    """Where the move ``mv`` (taking slot ``victim``, -1 none) of the position ``sq`` (index
    ``here``, ``side`` to move, ``occ`` its occupied squares; its kings' symmetries ``syms``/
    ``pairs``, ``nsym`` of them) leads: (the move's number: its code, or with ``keyed`` its
    order key; the in-table child slot, -1 outside; outside, the child's result and distance,
    read whole or through ``crank``: ``solvers/retrograde/exits.py``).  ``after``, ``t``,
    ``csq``: scratch."""
    number, c, at = _follow_slot(desc, keys, half, here, sq, side, occ, mv, victim, keyed, after,
                                 t, csq, syms, pairs, nsym, weight, lone, change_table,
                                 change_map, cdesc, cflip, coff, chalf)
    if c >= 0 or at < 0:  # in the table, or bare kings
        return number, c, DRAW, np.int16(0)
    r, d = exit_value(cres, cdist, crank, at)
    return number, np.int64(-1), r, d


@inline_kernel
def _follow_slot(desc, keys, half, here, sq, side, occ, mv, victim, keyed, after, t, csq, syms,
                 pairs, nsym, weight, lone, change_table, change_map, cdesc, cflip, coff, chalf):
    """``_follow`` up to the value: (the move's number, the in-table child slot or -1, the
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


@parallel_kernel
def children(desc, keys, positions, change_table, change_map, cdesc, cflip, coff, chalf, cres,
             cdist, crank, keyed, count, child, move, ext_result, ext_distance):
    """Every legal move of each position, in move order (docs/kernel-contract.md); with
    ``keyed`` each move's order key (``keys.py``) in place of its code."""
    half = half_size(desc)
    n = positions.shape[0]
    chunks = (n + CHUNK - 1) // CHUNK
    for c in prange(chunks):
        sq, after, csq, t, order, syms, pairs, board, moves, victims, weight, lone = \
            _move_scratch(desc)
        for r in range(c * CHUNK, min(n, (c + 1) * CHUNK)):
            side, here, occ, m, _ = _listed(desc, keys, half, positions[r], sq, board, moves,
                                            victims, order, MAX_MOVES, False)
            if m == 0:
                if attacked(desc, sq, sq[side], 1 - side, occ, -1):
                    count[r] = 0
                else:
                    count[r] = 1
                    child[r, 0] = -1
                    move[r, 0] = STALEMATE_MOVE
                    ext_result[r, 0] = DRAW
                    ext_distance[r, 0] = 0
                continue
            nsym = pair_symmetries(desc, sq, syms, pairs)
            for e in range(m):
                number, at, er, ed = _follow(desc, keys, half, here, sq, side, occ, moves[e],
                                             victims[e], keyed, after, t, csq, syms, pairs,
                                             nsym, weight, lone, change_table, change_map, cdesc,
                                             cflip, coff, chalf, cres, cdist, crank)
                move[r, e] = number
                child[r, e] = at
                if at < 0:
                    ext_result[r, e] = er
                    ext_distance[r, e] = ed
            count[r] = m


@inline_kernel
def _may_repeat(desc, sq, side):
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


@parallel_kernel
def summaries(desc, keys, positions, change_table, change_map, cdesc, cflip, coff, chalf, cres,
              cdist, crank, keyed, distinct, ext_loss, ext_loss_move, ext_win, ext_win_move,
              ext_draw):
    """What the edge-free solve needs of each position's children (docs/kernel-contract.md),
    without rows: the captures and promotions first, and where one leads to a lost child the
    position is won and its in-table children are not indexed (``distinct`` 0); else they
    are, and sorted to drop repeats only where two can meet (``_may_repeat``): the sort of
    every row cost half as much as listing the children.  Where none can meet, the count is
    that of the quiet moves, and they are not indexed at all."""
    half = half_size(desc)
    n = positions.shape[0]
    chunks = (n + CHUNK - 1) // CHUNK
    for c in prange(chunks):
        sq, after, csq, t, order, syms, pairs, board, moves, victims, weight, lone = \
            _move_scratch(desc)
        found = np.empty(MAX_MOVES, np.int64)
        unique = np.empty(MAX_MOVES, np.int64)
        for r in range(c * CHUNK, min(n, (c + 1) * CHUNK)):
            # the quiet moves counted, not listed (most positions need only their number)
            side, here, occ, m, quiet = _listed(desc, keys, half, positions[r], sq, board,
                                                moves, victims, order, MAX_MOVES, True)
            lo = NO_EXT
            lo_move = NO_MOVE
            hi = np.int16(-1)
            hi_move = NO_MOVE
            dr = 0
            if m + quiet == 0 and not attacked(desc, sq, sq[side], 1 - side, occ, -1):
                dr = 1  # stalemate: its pseudo-move leads to a drawn child outside
            nsym = 0  # the kings' symmetries: only quiet moves' children need them
            for e in range(m):  # captures and promotions: children in other tables
                number, _, er, ed = _follow(desc, keys, half, here, sq, side, occ, moves[e],
                                            victims[e], keyed, after, t, csq, syms, pairs, nsym,
                                            weight, lone, change_table, change_map, cdesc,
                                            cflip, coff, chalf, cres, cdist, crank)
                if er == LOSS:
                    if ed < lo:
                        lo = ed
                        lo_move = number
                elif er == WIN:
                    if ed > hi:
                        hi = ed
                        hi_move = number
                else:
                    dr = 1
            got = 0
            if lo == NO_EXT and quiet > 0 and _may_repeat(desc, sq, side):
                # listed again, the quiet moves too, to index their children
                _, _, _, m, _ = _listed(desc, keys, half, positions[r], sq, board, moves,
                                        victims, order, MAX_MOVES, False)
                nsym = pair_symmetries(desc, sq, syms, pairs)
                for e in range(m):
                    if victims[e] >= 0 or moves[e] >> 12 != 0:
                        continue
                    _, at, _, _ = _follow(desc, keys, half, here, sq, side, occ, moves[e],
                                          victims[e], keyed, after, t, csq, syms, pairs, nsym,
                                          weight, lone, change_table, change_map, cdesc, cflip,
                                          coff, chalf, cres, cdist, crank)
                    found[got] = at
                    got += 1
                got = sorted_unique(found, got, unique)
            elif lo == NO_EXT:
                # no two quiet moves can meet in one child (``_may_repeat``), so the distinct
                # children are the quiet moves: counted, not indexed (indexing them was most
                # of this pass's work beside listing the moves)
                got = quiet
            distinct[r] = got
            ext_loss[r] = lo
            ext_loss_move[r] = lo_move
            ext_win[r] = hi
            ext_win_move[r] = hi_move
            ext_draw[r] = dr


@parallel_kernel
def first_draws(desc, keys, positions, change_table, change_map, cdesc, cflip, coff, chalf, cres,
                cdist, crank, keyed, result, best):
    """best[p] of each drawn position p of ``positions``: its first move (code, or with
    ``keyed`` order key) in move order to a drawn child, in the table (``result``) or out of
    it; a stalemate's pseudo-move.  ``children``'s work, but a draw's first move nearly always
    draws too, so the children after it are never indexed."""
    half = half_size(desc)
    n = positions.shape[0]
    chunks = (n + CHUNK - 1) // CHUNK
    for c in prange(chunks):
        sq, after, csq, t, order, syms, pairs, board, moves, victims, weight, lone = \
            _move_scratch(desc)
        for r in range(c * CHUNK, min(n, (c + 1) * CHUNK)):
            slot = positions[r]
            # the first piece's moves only: the first move nearly always draws
            side, here, occ, m, _ = _listed(desc, keys, half, slot, sq, board, moves, victims,
                                            order, 1, False)
            b = NO_MOVE
            if m == 0:
                if not attacked(desc, sq, sq[side], 1 - side, occ, -1):
                    b = STALEMATE_MOVE
                best[slot] = b
                continue
            nsym = pair_symmetries(desc, sq, syms, pairs)
            listed_all = False
            e = 0
            while True:
                if e == m:
                    if listed_all:
                        break
                    # no move of the first piece draws: every move (the same ones first)
                    _, _, _, m, _ = _listed(desc, keys, half, slot, sq, board, moves,
                                            victims, order, MAX_MOVES, False)
                    listed_all = True
                    if e == m:
                        break
                number, ch, er, _ = _follow(desc, keys, half, here, sq, side, occ, moves[e],
                                            victims[e], keyed, after, t, csq, syms, pairs, nsym,
                                            weight, lone, change_table, change_map, cdesc,
                                            cflip, coff, chalf, cres, cdist, crank)
                if (result[ch] if ch >= 0 else er) == DRAW:
                    b = number
                    break
                e += 1
            best[slot] = b


@parallel_kernel
def exit_marks(desc, keys, positions, change_table, change_map, cdesc, cflip, coff, chalf,
               marks):
    """Mark the child slot of every capture and promotion of each position (``positions``,
    every legal one of the table) among the child tables' slots laid end to end: the slots
    the table's kernels will read (``solvers/retrograde/exits.py``).  Row t of ``marks``
    (int64 bit words) is part t's: parts take chunks in turn and never write the same row,
    so no bit is lost to another thread's write (``merge_marks`` joins the rows)."""
    half = half_size(desc)
    n = positions.shape[0]
    chunks = (n + CHUNK - 1) // CHUNK
    parts = marks.shape[0]
    for part in prange(parts):
        sq, after, csq, t, order, syms, pairs, board, moves, victims, weight, lone = \
            _move_scratch(desc)
        for c in range(part, chunks, parts):
            for r in range(c * CHUNK, min(n, (c + 1) * CHUNK)):
                # the quiet moves counted, not listed: only captures and promotions leave
                side, here, occ, m, _ = _listed(desc, keys, half, positions[r], sq, board,
                                                moves, victims, order, MAX_MOVES, True)
                for e in range(m):
                    _, _, at = _follow_slot(desc, keys, half, here, sq, side, occ, moves[e],
                                            victims[e], False, after, t, csq, syms, pairs, 0,
                                            weight, lone, change_table, change_map, cdesc,
                                            cflip, coff, chalf)
                    if at >= 0:
                        marks[part, at >> 6] |= np.int64(1) << (at & 63)


@inline_kernel
def _unsettled(settled, slot):
    """Whether ``slot`` is not marked in ``settled`` (the engine's bitmap, ``is_settled``;
    empty: none settled)."""
    return settled.shape[0] == 0 or not is_settled(settled, slot)


@inline_kernel
def _emit(desc, half, keys, before, mover, idx, s, occ, key, parent, codes, r, got, settled):
    """Append the parent ``before`` (``mover`` to move; its canonical index ``idx`` through
    symmetry ``s``; ``occ`` its occupied squares) and its en passant slots, which have the
    same moves, each with the order key ``key`` of its move here, leaving out the slots
    ``settled`` marks; returns the new count."""
    slot = mover * half + idx
    if _unsettled(settled, slot):
        parent[r, got] = slot
        codes[r, got] = key
        got += 1
    if keys.shape[0] == 0:
        return got
    for j in range(2, desc[0]):
        if ep_right(desc, before, mover, occ, j):
            e = find_key(keys, slot * 8 + SYM[s, before[j]] % 8)
            if e >= 0 and _unsettled(settled, 2 * half + e):
                parent[r, got] = 2 * half + e
                codes[r, got] = key
                got += 1
    return got


@inline_kernel
def _drop_repeats(parent, codes, r, n):
    """Row r's first n parents without repeated slots, each keeping its smallest key; the new
    count (rows that may repeat are few: ``_may_repeat``, the king that does not move
    being the side to move's here)."""
    w = 0
    for a in range(n):
        p = parent[r, a]
        seen = False
        for b in range(w):
            if parent[r, b] == p:
                if codes[r, a] < codes[r, b]:
                    codes[r, b] = codes[r, a]
                seen = True
                break
        if not seen:
            parent[r, w] = p
            codes[r, w] = codes[r, a]
            w += 1
    return w


@inline_kernel
def _keyed_index(desc, sq, t, syms, pairs, n, kind, fr, to):
    """``canonical_with``'s index of the parent ``sq`` (kings as ``syms``/``pairs`` found
    them), the symmetry that gives it, and the smallest order key of its move ``fr`` -> ``to``
    (by a piece of key kind ``kind``) over the symmetries that give it: more than one when the
    parent is its own image, and then each image of the move leads to the same child, the
    first of them in the move order being the one the best-move rule names."""
    k = desc[0]
    best = np.int64(-1)
    best_s = syms[0]
    key = np.int32(0)
    for e in range(n):
        s = syms[e]
        for i in range(2, k):
            t[i] = SYM[s, sq[i]]
        _sort_groups(desc, t)
        idx = _index_of(desc, t, pairs[e])
        mk = move_key(kind, SYM[s, fr], SYM[s, to], 0)
        if best < 0 or idx < best:
            best = idx
            best_s = s
            key = mk
        elif idx == best and mk < key:
            key = mk
    return best, best_s, key


@parallel_kernel
def parents(desc, keys, positions, settled, count, parent, codes):
    """Every in-table parent slot of each (legal) position: the other side's last move undone
    (no uncaptures or unpromotions: those come from bigger tables), the parent legal (its side
    not to move not in check), and each parent's en passant slots; ``codes`` the order key
    (``keys.py``) of the move from each parent here.  A double step after which the side to
    move may take en passant led to an en passant slot, not here; an en passant slot's one
    parent move is that double step.  Repeats possible (symmetric positions).  The slots
    ``settled`` marks (``_unsettled``; empty: none) are left out, not written."""
    half = half_size(desc)
    k = desc[0]
    n = positions.shape[0]
    chunks = (n + CHUNK - 1) // CHUNK
    for c in prange(chunks):
        sq = np.empty(MAX_PIECES, np.int64)
        before = np.empty(MAX_PIECES, np.int64)
        t = np.empty(MAX_PIECES, np.int64)
        board = np.zeros(64, np.int8)
        origins = np.empty(32, np.int64)
        syms = np.empty(8, np.int64)
        pairs = np.empty(8, np.int64)
        ksyms = np.empty(8, np.int64)  # a king's move: the symmetries fitting its parent
        kpairs = np.empty(8, np.int64)
        weight = np.empty(MAX_PIECES, np.int64)
        lone = np.empty(MAX_PIECES, np.bool_)
        slot_weights(desc, weight, lone)
        for r in range(c * CHUNK, min(n, (c + 1) * CHUNK)):
            p = positions[r]
            ep = -1
            if p >= 2 * half:
                p, ep = ep_square(desc, half, keys[p - 2 * half])
            side = p // half
            mover = 1 - side
            here = p % half
            pair = here // weight[1]  # the king pair's number: the index's first digit
            unrank(desc, here, sq)
            set_board(desc, sq, board)
            occ = np.uint64(0)
            for j in range(k):
                occ |= bit(sq[j])
            nsym = pair_symmetries(desc, sq, syms, pairs)
            got = 0
            if ep >= 0:
                # the double step onto the square beside ``ep``, from two squares behind it
                q = ep - 8 if side == 0 else ep + 8
                f = ep + 8 if side == 0 else ep - 8
                for i in range(2, k):
                    if sq[i] == q:
                        for j in range(k):
                            before[j] = sq[j]
                        before[i] = f
                        bocc = (occ ^ bit(q)) | bit(f)
                        if not attacked(desc, before, sq[side], mover, bocc, -1):
                            idx, s, key = _keyed_index(desc, before, t, syms, pairs, nsym,
                                                       key_kind(desc[2 + i], mover), f, q)
                            got = _emit(desc, half, keys, before, mover, idx, s, bocc, key,
                                        parent, codes, r, got, settled)
                count[r] = got
                continue
            for i in range(k):
                code = desc[2 + i]
                if (code & BLACK_BIT) != mover * BLACK_BIT:
                    continue
                q = sq[i]
                kind = code & 7
                no = 0
                if kind == PAWN:
                    back = -8 if mover == 0 else 8
                    f1 = q + back
                    home = 1 if mover == 0 else 6
                    if f1 // 8 >= 1 and f1 // 8 <= 6 and board[f1] == 0:
                        origins[no] = f1
                        no += 1
                        f2 = f1 + back
                        # a double step that gives an en passant right led to the en
                        # passant slot instead
                        if f2 // 8 == home and board[f2] == 0 and not (
                                keys.shape[0] and ep_right(desc, sq, side, occ, i)):
                            origins[no] = f2
                            no += 1
                elif kind == KNIGHT or kind == 6:
                    for d in range(8):
                        f = KNIGHT_TO[q, d] if kind == KNIGHT else KING_TO[q, d]
                        if f < 0:
                            break
                        if board[f] == 0:
                            origins[no] = f
                            no += 1
                else:
                    d0 = 4 if kind == BISHOP else 0
                    d1 = 4 if kind == ROOK else 8
                    for d in range(d0, d1):
                        for j in range(RAY_LEN[q, d]):
                            f = RAYS[q, d, j]
                            if board[f] != 0:
                                break
                            origins[no] = f
                            no += 1
                # the parent is legal if the side that did not move was not in check.  When
                # no other piece of the mover attacks that king with this one gone, putting it
                # back on f can only block lines: then only the piece itself on f can check
                alone = not attacked(desc, sq, sq[side], mover, occ ^ bit(q), i)
                for o in range(no):
                    f = origins[o]
                    for j in range(k):
                        before[j] = sq[j]
                    before[i] = f
                    bocc = (occ ^ bit(q)) | bit(f)
                    if piece_attacks(kind, mover, f, sq[side], bocc) if alone else \
                            attacked(desc, before, sq[side], mover, bocc, -1):
                        continue
                    pn = identity_pair(desc, before[0], before[1]) if i < 2 else -1
                    if pn >= 0:
                        # no symmetry but the identity puts the parent's kings in a canonical
                        # pair, so its index differs in the pair's digit alone (nothing else
                        # moved): most king moves.  Searched for, a 242M-slot table's took 4.5
                        # s of this kernel's 20
                        idx, s = here + (pn - pair) * weight[1], 0
                        key = move_key(kind, f, q, 0)
                    elif i < 2:  # a king moved: the symmetries that fit change
                        kn = pair_symmetries_inline(desc, before, ksyms, kpairs)
                        idx, s, key = _keyed_index(desc, before, t, ksyms, kpairs, kn, kind, f,
                                                   q)
                    elif nsym == 1 and lone[i]:
                        # only the identity keeps the kings canonical (the position is stored
                        # canonically) and no identical piece to reorder: the parent's index
                        # differs in this piece's digit alone, as ``_follow``'s children do
                        idx, s = here + (f - q) * weight[i], syms[0]
                        key = move_key(key_kind(code, mover), f, q, 0)
                    else:
                        idx, s, key = _keyed_index(desc, before, t, syms, pairs, nsym,
                                                   key_kind(code, mover), f, q)
                    got = _emit(desc, half, keys, before, mover, idx, s, bocc, key, parent,
                                codes, r, got, settled)
            if _may_repeat(desc, sq, mover):
                got = _drop_repeats(parent, codes, r, got)
            count[r] = got
