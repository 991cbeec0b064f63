"""A chess table's parents (docs/kernel-contract.md, ``parents``): each position's in-table
parent slots, the other side's last move undone, with the order key of the move from each
parent and its en passant slots, leaving out the slots the engine has settled.  The table's
slots and children: ``edges``.
"""
import numpy as np

from tbdb.solvers.jit import inline_kernel, parallel_kernel, prange
from tbdb.solvers.chess.ep import ep_right, ep_square, find_key
from tbdb.solvers.chess.index import MAX_PIECES, SYM, index_of, sort_groups, half_size, \
    identity_pair, pair_symmetries, pair_symmetries_inline, set_board, slot_weights, unrank
from tbdb.solvers.chess.keys import key_kind, move_key
from tbdb.solvers.retrograde.edge_free import is_settled
from tbdb.solvers.chess.pieces import attacked, bit, piece_attacks
from tbdb.solvers.chess.moves import BLACK_BIT, KING_TO, KNIGHT, KNIGHT_TO, PAWN, RAYS, RAY_LEN, \
    ROOK, BISHOP
from tbdb.solvers.chess.follow import CHUNK, may_repeat


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
    count (rows that may repeat are few: ``may_repeat``, the king that does not move
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
        sort_groups(desc, t)
        idx = index_of(desc, t, pairs[e])
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
                        # moved): most king moves, which a search for the index made a
                        # large part of this kernel's time
                        idx, s = here + (pn - pair) * weight[1], 0
                        key = move_key(kind, f, q, 0)
                    elif i < 2:  # a king moved: the symmetries that fit change
                        kn = pair_symmetries_inline(desc, before, ksyms, kpairs)
                        idx, s, key = _keyed_index(desc, before, t, ksyms, kpairs, kn, kind, f,
                                                   q)
                    elif nsym == 1 and lone[i]:
                        # only the identity keeps the kings canonical (the position is stored
                        # canonically) and no identical piece to reorder: the parent's index
                        # differs in this piece's digit alone, as ``follow_move``'s children do
                        idx, s = here + (f - q) * weight[i], syms[0]
                        key = move_key(key_kind(code, mover), f, q, 0)
                    else:
                        idx, s, key = _keyed_index(desc, before, t, syms, pairs, nsym,
                                                   key_kind(code, mover), f, q)
                    got = _emit(desc, half, keys, before, mover, idx, s, bocc, key, parent,
                                codes, r, got, settled)
            if may_repeat(desc, sq, mover):
                got = _drop_repeats(parent, codes, r, got)
            count[r] = got
