"""Shogi endgame tables as retrograde spaces: the census / children / parents kernels of
docs/kernel-contract.md over the index of ``solvers/shogi/index.py`` (slot, ``desc`` and decoded
position layouts described there).

Captures and drops keep the set of pieces, so every move (and every unmove) stays in the table.
"""
import numpy as np

from tbdb.solvers.jit import kernel, inline_kernel, parallel_kernel, prange
from tbdb.solvers.shogi.index import HAND, PIECES, canonical, decode, encode, place
from tbdb.solvers.shogi.moves import (DROP_BASE, KING, KNIGHT, KNIGHT_TO, MAX_MOVES, NEIGH, NSQ,
                                      PAWN, PROMOTE_FLAG, PROMOTED, ROOK, SLIDE_MASK, STEP_MASK,
                                      attacked, can_escape_pawn_check, dead, gen_legal, in_zone,
                                      nifu)

NONE = -3
ILLEGAL = -2


@inline_kernel
def _lift(ksq, loc, col, desc, board, hands):
    """Undo ``place``: the board and hands empty again."""
    board[ksq[0]] = 0
    board[ksq[1]] = 0
    for j in range(desc[0]):
        if loc[j] == HAND:
            hands[col[j], desc[PIECES + j]] = 0
        else:
            board[loc[j]] = 0


@inline_kernel
def _nifu_any(loc, col, prom, desc, board):
    for j in range(desc[0]):
        if desc[PIECES + j] == PAWN and prom[j] == 0 and loc[j] != HAND and \
                nifu(board, col[j], loc[j]):
            return True
    return False


# --------------------------------------------------------------------------- kernels

@parallel_kernel
def census(desc, lo, hi):
    """kind int8[hi - lo]: 0 a position, ILLEGAL (white, not to move, in check; or two
    unpromoted pawns of a side on a file), NONE (a square held twice, or a non-canonical
    mirror image); multiplicity int16[hi - lo]: raw positions the slot stands for (its
    mirror image unless symmetric, times 2 for the colour swap; 0 where NONE)."""
    n = hi - lo
    k = desc[0]
    kind = np.empty(n, np.int8)
    mult = np.zeros(n, np.int16)
    nchunk = (n + 4095) // 4096
    for ch in prange(nchunk):
        # scratch per chunk, not slices of one array: see parents
        loc = np.empty(max(k, 1), np.int64)
        col = np.empty(max(k, 1), np.int64)
        prom = np.empty(max(k, 1), np.int64)
        st = np.empty(max(k, 1), np.int64)
        ksq = np.empty(2, np.int64)
        board = np.zeros(NSQ, np.int8)
        hands = np.zeros((2, 8), np.int8)
        for r in range(ch * 4096, min(n, (ch + 1) * 4096)):
            slot = lo + r
            if not decode(slot, desc, ksq, loc, col, prom, st):
                kind[r] = NONE
                continue
            symmetric = False
            if ksq[0] // 9 == 4:
                m = encode(ksq, loc, col, prom, desc, 0, 1, st)
                if m < slot:
                    kind[r] = NONE
                    continue
                symmetric = m == slot
            place(ksq, loc, col, prom, desc, board, hands)
            if attacked(board, ksq[1], 0) or _nifu_any(loc, col, prom, desc, board):
                kind[r] = ILLEGAL
            else:
                kind[r] = 0
            _lift(ksq, loc, col, desc, board, hands)
            mult[r] = 2 if symmetric else 4
    return kind, mult


@parallel_kernel
def children(desc, positions, count, child, move):
    """Every legal move of each position (black to move): count int16[k], child int64[k, W]
    (the slot after the move: white to move there, stored through the colour swap), move
    int32[k, W] (codes on the stored board), in the order of ``legal_moves``: board moves by
    origin square, then drops."""
    n = positions.shape[0]
    k = desc[0]
    nchunk = (n + 255) // 256
    for ch in prange(nchunk):
        # scratch per chunk, not slices of one array: see parents
        loc = np.empty(max(k, 1), np.int64)
        col = np.empty(max(k, 1), np.int64)
        prom = np.empty(max(k, 1), np.int64)
        st = np.empty(max(k, 1), np.int64)
        ksq = np.empty(2, np.int64)
        origins = np.empty(k + 1, np.int16)
        eorigins = np.empty(k + 1, np.int16)
        amap = np.zeros(NSQ + 1, np.int32)
        moves = np.empty(MAX_MOVES, np.int32)
        buf = np.empty(MAX_MOVES, np.int32)
        board = np.zeros(NSQ, np.int8)
        hands = np.zeros((2, 8), np.int8)
        for r in range(ch * 256, min(n, (ch + 1) * 256)):
            decode(positions[r], desc, ksq, loc, col, prom, st)
            place(ksq, loc, col, prom, desc, board, hands)
            origins[0] = ksq[0]
            eorigins[0] = ksq[1]
            no = 1
            ne = 1
            for j in range(k):
                if loc[j] != HAND:
                    if col[j] == 0:
                        sq = loc[j]
                        i = no
                        while i > 0 and origins[i - 1] > sq:  # squares ascending: the move
                            origins[i] = origins[i - 1]      # order of Position.legal_moves
                            i -= 1
                        origins[i] = sq
                        no += 1
                    else:
                        eorigins[ne] = loc[j]
                        ne += 1
            nm = gen_legal(board, hands, 0, ksq[0], ksq[1], origins, no, eorigins, ne, amap,
                            moves, buf)
            _lift(ksq, loc, col, desc, board, hands)
            count[r] = nm
            for e in range(nm):
                code = moves[e]
                to = code & 127
                frm = (code >> 7) & 127
                moved = -1
                taken = -1
                taken_col = 0
                taken_prom = 0
                if frm > DROP_BASE:
                    t = frm - DROP_BASE
                    for j in range(k):
                        if desc[PIECES + j] == t and loc[j] == HAND and col[j] == 0:
                            moved = j
                            break
                    loc[moved] = to
                else:
                    for j in range(k):
                        if loc[j] == to:
                            taken = j
                            taken_col = col[j]
                            taken_prom = prom[j]
                            loc[j] = HAND
                            col[j] = 0
                            prom[j] = 0
                            break
                    if frm == ksq[0]:
                        ksq[0] = to
                    else:
                        for j in range(k):
                            if loc[j] == frm:
                                moved = j
                                break
                        loc[moved] = to
                        if code & PROMOTE_FLAG:
                            prom[moved] = 1
                c, _, _ = canonical(ksq, loc, col, prom, desc, 1, st)
                child[r, e] = c
                move[r, e] = code
                # undo on the piece list
                if frm > DROP_BASE:
                    loc[moved] = HAND
                else:
                    if moved >= 0:
                        loc[moved] = frm
                        if code & PROMOTE_FLAG:
                            prom[moved] = 0
                    else:
                        ksq[0] = frm
                    if taken >= 0:
                        loc[taken] = to
                        col[taken] = taken_col
                        prom[taken] = taken_prom


@inline_kernel
def _parent_ok(ksq, loc, col, prom, desc, board):
    """Whether a parent (white to move) is a legal position: black not in check, no nifu."""
    return not attacked(board, ksq[0], 1) and not _nifu_any(loc, col, prom, desc, board)


@inline_kernel
def _uncaptures(ksq, loc, col, prom, desc, board, t, st, parent, r, m):
    """Parents where the white piece just moved to ``t`` captured a black piece there (a piece
    of a type in white's hand, promoted or not): append their slots, return the new count."""
    k = desc[0]
    for jh in range(k):
        if loc[jh] != HAND or col[jh] != 1:
            continue
        th = desc[PIECES + jh]
        dup = False
        for j2 in range(jh):
            if loc[j2] == HAND and col[j2] == 1 and desc[PIECES + j2] == th:
                dup = True  # an identical piece in hand gives the same parents
        if dup:
            continue
        for cp in range(2 if th <= ROOK else 1):
            if cp == 0 and dead(0, th, t):
                continue
            board[t] = th + PROMOTED * cp
            loc[jh] = t
            col[jh] = 0
            prom[jh] = cp
            if _parent_ok(ksq, loc, col, prom, desc, board):
                p, _, _ = canonical(ksq, loc, col, prom, desc, 1, st)
                parent[r, m] = p
                m += 1
            board[t] = 0
            loc[jh] = HAND
            col[jh] = 1
            prom[jh] = 0
    return m


@inline_kernel
def origins_back(board, before, t, orig):
    """Empty squares from which a white piece of type ``before`` reaches ``t`` in one move
    (into ``orig``); returns how many."""
    n = 0
    steps = STEP_MASK[1, before]
    slides = SLIDE_MASK[1, before]
    for d in range(8):
        back = (d + 4) & 7
        if (steps >> d) & 1:
            s = NEIGH[t, back]
            if s >= 0 and board[s] == 0:
                orig[n] = s
                n += 1
        elif (slides >> d) & 1:
            s = NEIGH[t, back]
            while s >= 0 and board[s] == 0:
                orig[n] = s
                n += 1
                s = NEIGH[s, back]
    if before == KNIGHT:
        for kn in range(2):
            s = KNIGHT_TO[0, t, kn]  # a white knight's jump, reversed
            if s >= 0 and board[s] == 0:
                orig[n] = s
                n += 1
    return n


@kernel
def _unmoves_to(ksq, loc, col, prom, desc, board, j, t, st, orig, parent, r, m):
    """Parents where white's piece j (-1: the king) moved to ``t`` from an empty square,
    promoting on the way or not, capturing or not; appended from ``m``, returns the count."""
    now = KING if j < 0 else desc[PIECES + j] + PROMOTED * prom[j]
    for variant in range(2):
        if variant == 1 and (j < 0 or prom[j] == 0):
            break
        before = now - PROMOTED * variant
        no = origins_back(board, before, t, orig)
        for i in range(no):
            s = orig[i]
            if variant == 1:
                if not (in_zone(1, s) or in_zone(1, t)) or dead(1, before, s):
                    continue
            elif before <= ROOK and dead(1, before, s):
                continue
            board[t] = 0
            board[s] = before + 16
            if j < 0:
                ksq[1] = s
            else:
                loc[j] = s
                prom[j] -= variant
            if _parent_ok(ksq, loc, col, prom, desc, board):
                p, _, _ = canonical(ksq, loc, col, prom, desc, 1, st)
                parent[r, m] = p
                m += 1
            m = _uncaptures(ksq, loc, col, prom, desc, board, t, st, parent, r, m)
            board[s] = 0
            board[t] = now + 16
            if j < 0:
                ksq[1] = t
            else:
                loc[j] = t
                prom[j] += variant
    return m


@parallel_kernel
def parents(desc, positions, count, parent):
    """Every parent slot of each position (black to move): the positions, white to move, from
    which a legal white move leads to it.  White's last move is taken back as an un-step (or
    un-slide, un-jump), an un-promotion, an un-capture (a black piece of a type in white's
    hand, promoted or not, reappears on the square white moved to) or an un-drop (the piece
    goes back to white's hand; not for a pawn drop that mates).  Only parents that are legal
    positions (black not in check, no nifu) are listed.  count int32[k], parent int64[k, P]."""
    n = positions.shape[0]
    k = desc[0]
    nchunk = (n + 255) // 256
    for ch in prange(nchunk):
        # scratch per chunk, not slices of one array: slices share one reference count, and
        # two threads updating it on every helper call slow each other down several times
        loc = np.empty(max(k, 1), np.int64)
        col = np.empty(max(k, 1), np.int64)
        prom = np.empty(max(k, 1), np.int64)
        st = np.empty(max(k, 1), np.int64)
        ksq = np.empty(2, np.int64)
        buf = np.empty(MAX_MOVES, np.int32)
        orig = np.empty(32, np.int64)
        board = np.zeros(NSQ, np.int8)
        hands = np.zeros((2, 8), np.int8)
        for r in range(ch * 256, min(n, (ch + 1) * 256)):
            decode(positions[r], desc, ksq, loc, col, prom, st)
            place(ksq, loc, col, prom, desc, board, hands)
            m = _unmoves_to(ksq, loc, col, prom, desc, board, -1, ksq[1], st, orig, parent, r,
                            0)
            for j in range(k):
                if loc[j] != HAND and col[j] == 1:
                    m = _unmoves_to(ksq, loc, col, prom, desc, board, j, loc[j], st, orig,
                                    parent, r, m)
            mated = -1
            for j in range(k):
                if loc[j] == HAND or col[j] != 1 or prom[j] != 0:
                    continue
                t = loc[j]
                tp = desc[PIECES + j]
                if tp == PAWN and NEIGH[t, 4] == ksq[0]:
                    if mated < 0:
                        mated = 0 if can_escape_pawn_check(board, hands, 0, ksq[0], buf) else 1
                    if mated == 1:
                        continue  # a pawn drop that mates is not a legal move
                board[t] = 0
                loc[j] = HAND
                if _parent_ok(ksq, loc, col, prom, desc, board):
                    p, _, _ = canonical(ksq, loc, col, prom, desc, 1, st)
                    parent[r, m] = p
                    m += 1
                loc[j] = t
                board[t] = tp + 16
            _lift(ksq, loc, col, desc, board, hands)
            count[r] = m
