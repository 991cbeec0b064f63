"""Shogi endgame tables: a dense index over two kings and a multiset of other pieces, and the
census / children / parents kernels of docs/kernel-contract.md.

A table is two kings plus non-king pieces of fixed types (``KRGK``: a rook and a gold).  Each
non-king piece is in one of its *states*: in black's hand (state 0), in white's hand (1), or on
a square, owned by either side, promoted or not, wherever such a piece can stand (an unpromoted
pawn or lance never on its owner's last rank, a knight never on its last two).  Captures and
drops keep the set of pieces, so a table is closed: every move leads into the same table.

Only positions with black to move are stored; a position with white to move is its colour swap
(board turned 180 degrees, owners and hands exchanged), which has black to move and the same
pieces.  The left-right mirror is folded in too: black's king stands on files 1-5.

Slot = ``kk * prod + sum(rank_g * stride_g)``: ``kk`` numbers the king pairs (black king on
files 1-5, kings not adjacent), ``rank_g`` is the rank of group g's states (identical pieces,
a multiset: hands may hold several, a square one) in the combinatorial number system.

``desc`` (int64[DESC_LEN]) describes a table to the kernels:

    desc[0] = k (non-king pieces)   desc[1] = groups   desc[2] = prod   desc[3] = size
    desc[4 + 5g ...] = type, count, first piece, radix, stride of group g
    desc[PIECES + j] = type of piece j (groups in order)

A decoded position is ``ksq`` int64[2] (black, white king squares) and per piece ``loc``
(square, or HAND), ``col`` (owner) and ``prom`` (0/1), int64[k] each.
"""
import numpy as np
from numba import njit, prange

from tbdb.solvers.shogi.moves import (DROP_BASE, KING, KNIGHT, KNIGHT_TO, MAX_MOVES, NEIGH, NSQ,
                                PAWN, PROMOTE_FLAG, PROMOTED, ROOK, SLIDE_MASK, STEP_MASK,
                                _attacked, _can_escape_pawn_check, _dead, _gen_legal, _in_zone,
                                _nifu)

HAND = 81
DESC_LEN = 64
PIECES = 48  # desc offset of the piece types
MAX_STATES = 2 + 2 * 2 * NSQ
NONE = -3
ILLEGAL = -2


def _state_tables():
    """ST_LOC/ST_COL/ST_PROM[type, state] and STATE[type, colour, prom, loc] (-1 impossible),
    N_STATES[type], for types 1..7."""
    st_loc = np.full((8, MAX_STATES), -1, np.int16)
    st_col = np.zeros((8, MAX_STATES), np.int8)
    st_prom = np.zeros((8, MAX_STATES), np.int8)
    state = np.full((8, 2, 2, NSQ + 1), -1, np.int16)
    n_states = np.zeros(8, np.int64)
    for t in range(1, 8):
        rows = [(HAND, 0, 0), (HAND, 1, 0)]
        for c in range(2):
            for prom in ((0, 1) if t <= ROOK else (0,)):
                for sq in range(NSQ):
                    if prom or not _dead.py_func(c, t, sq):
                        rows.append((sq, c, prom))
        for i, (loc, c, prom) in enumerate(rows):
            st_loc[t, i], st_col[t, i], st_prom[t, i] = loc, c, prom
            state[t, c, prom, loc] = i
        n_states[t] = len(rows)
    return st_loc, st_col, st_prom, state, n_states


def _king_tables():
    """KK_LIST[kk] = (black king, white king) with the black king on files 1-5 and the kings
    apart; KK_INDEX[b, w] its number (-1 otherwise); MIRROR[sq] the left-right mirror."""
    mirror = np.array([(8 - sq // 9) * 9 + sq % 9 for sq in range(NSQ)], np.int64)
    pairs = []
    index = np.full((NSQ, NSQ), -1, np.int64)
    for b in range(45):
        for w in range(NSQ):
            if max(abs(b // 9 - w // 9), abs(b % 9 - w % 9)) >= 2:
                index[b, w] = len(pairs)
                pairs.append((b, w))
    return np.array(pairs, np.int64), index, mirror


def _binomials(n=MAX_STATES + 8, k=8):
    table = np.zeros((n, k), np.int64)
    for i in range(n):
        table[i, 0] = 1
        for j in range(1, min(i, k - 1) + 1):
            table[i, j] = table[i - 1, j - 1] + (table[i - 1, j] if j <= i - 1 else 0)
    return table


ST_LOC, ST_COL, ST_PROM, STATE, N_STATES = _state_tables()
KK_LIST, KK_INDEX, MIRROR = _king_tables()
N_KK = len(KK_LIST)
BINOM = _binomials()
POW19 = np.array([19 ** i for i in range(8)], np.int64)  # material keys: a digit per type


def make_desc(types):
    """desc of a table whose non-king pieces have the given types (strongest group first)."""
    desc = np.zeros(DESC_LEN, np.int64)
    groups = []
    for t in types:
        if groups and groups[-1][0] == t:
            groups[-1][1] += 1
        else:
            groups.append([t, 1])
    desc[0] = len(types)
    desc[1] = len(groups)
    first = 0
    radices = []
    for g, (t, n) in enumerate(groups):
        m = int(N_STATES[t])
        radix = int(BINOM[m + n - 1, n])
        radices.append(radix)
        desc[4 + 5 * g: 4 + 5 * g + 4] = (t, n, first, radix)
        first += n
    stride = 1
    for g in range(len(groups) - 1, -1, -1):
        desc[4 + 5 * g + 4] = stride
        stride *= radices[g]
    desc[2] = stride
    desc[3] = N_KK * stride
    for j, t in enumerate(types):
        desc[PIECES + j] = t
    return desc


# --------------------------------------------------------------------------- index

@njit(cache=True, inline="always")
def _unrank_group(rank, n, m, out, first):
    """States (ascending, repeats allowed) of a group of n pieces over m states from its rank."""
    for i in range(n - 1, -1, -1):
        lo = i
        hi = m + n - 2
        while lo < hi:  # largest c with BINOM[c, i + 1] <= rank
            mid = (lo + hi + 1) // 2
            if BINOM[mid, i + 1] <= rank:
                lo = mid
            else:
                hi = mid - 1
        rank -= BINOM[lo, i + 1]
        out[first + i] = lo - i


@njit(cache=True, inline="always")
def _decode(slot, desc, ksq, loc, col, prom, st):
    """Fill a decoded position from a slot; False if the slot is no board (a square held by
    two pieces)."""
    prod = desc[2]
    kk = slot // prod
    rest = slot - kk * prod
    ksq[0] = KK_LIST[kk, 0]
    ksq[1] = KK_LIST[kk, 1]
    k = desc[0]
    for g in range(desc[1]):
        base = 4 + 5 * g
        t = desc[base]
        n = desc[base + 1]
        first = desc[base + 2]
        stride = desc[base + 4]
        r = rest // stride
        rest -= r * stride
        _unrank_group(r, n, N_STATES[t], st, first)
        for i in range(first, first + n):
            s = st[i]
            if i > first and s == st[i - 1] and s >= 2:
                return False  # two identical pieces on one square
            loc[i] = ST_LOC[t, s]
            col[i] = ST_COL[t, s]
            prom[i] = ST_PROM[t, s]
    for i in range(k):
        if loc[i] == HAND:
            continue
        if loc[i] == ksq[0] or loc[i] == ksq[1]:
            return False
        for j in range(i):
            if loc[j] == loc[i]:
                return False
    return True


@njit(cache=True, inline="always")
def _encode(ksq, loc, col, prom, desc, swap, mirror, st):
    """Slot of a decoded position seen through the colour swap (``swap``: turn the board,
    exchange owners; used for white to move) and then the mirror; -1 if the kings are not a
    stored pair (black king on files 6-9)."""
    b = ksq[swap]
    w = ksq[1 - swap]
    if swap:
        b = 80 - b
        w = 80 - w
    if mirror:
        b = MIRROR[b]
        w = MIRROR[w]
    kk = KK_INDEX[b, w]
    if kk < 0:
        return np.int64(-1)
    slot = kk * desc[2]
    for g in range(desc[1]):
        base = 4 + 5 * g
        t = desc[base]
        n = desc[base + 1]
        first = desc[base + 2]
        rank = np.int64(0)
        for i in range(first, first + n):
            sq = loc[i]
            if sq != HAND:
                if swap:
                    sq = 80 - sq
                if mirror:
                    sq = MIRROR[sq]
            s = STATE[t, col[i] ^ swap, prom[i], sq]
            j = i
            while j > first and st[j - 1] > s:  # insertion sort within the group
                st[j] = st[j - 1]
                j -= 1
            st[j] = s
        for i in range(n):
            rank += BINOM[st[first + i] + i, i + 1]
        slot += rank * desc[base + 4]
    return slot


@njit(cache=True, inline="always")
def _canonical(ksq, loc, col, prom, desc, swap, st):
    """(slot, mirrored, symmetric) of a decoded position, black to move if ``swap`` is 0 and
    white to move if 1."""
    b = ksq[swap]
    if swap:
        b = 80 - b
    f = b // 9
    # black's king on files 1-4: as it is; 6-9: mirrored; 5: whichever slot is smaller
    best = np.int64(-1)
    mirrored = 0
    symmetric = False
    for mirror in range(1 if f > 4 else 0, 1 if f < 4 else 2):
        e = _encode(ksq, loc, col, prom, desc, swap, mirror, st)
        if best < 0 or e < best:
            best = e
            mirrored = mirror
        elif e == best:
            symmetric = True
    return best, mirrored, symmetric


@njit(cache=True, inline="always")
def _place(ksq, loc, col, prom, desc, board, hands):
    """Put a decoded position on an empty board (int8[81]) and zeroed hands (int8[2, 8])."""
    board[ksq[0]] = KING
    board[ksq[1]] = KING + 16
    for j in range(desc[0]):
        t = desc[PIECES + j]
        if loc[j] == HAND:
            hands[col[j], t] += 1
        else:
            board[loc[j]] = t + PROMOTED * prom[j] + 16 * col[j]


@njit(cache=True, inline="always")
def _lift(ksq, loc, col, desc, board, hands):
    """Undo ``_place``: the board and hands empty again."""
    board[ksq[0]] = 0
    board[ksq[1]] = 0
    for j in range(desc[0]):
        if loc[j] == HAND:
            hands[col[j], desc[PIECES + j]] = 0
        else:
            board[loc[j]] = 0


@njit(cache=True, inline="always")
def _nifu_any(loc, col, prom, desc, board):
    for j in range(desc[0]):
        if desc[PIECES + j] == PAWN and prom[j] == 0 and loc[j] != HAND and \
                _nifu(board, col[j], loc[j]):
            return True
    return False


# --------------------------------------------------------------------------- kernels

@njit(cache=True, parallel=True)
def _census(desc, lo, hi):
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
        # scratch per chunk, not slices of one array: see _parents
        loc = np.empty(max(k, 1), np.int64)
        col = np.empty(max(k, 1), np.int64)
        prom = np.empty(max(k, 1), np.int64)
        st = np.empty(max(k, 1), np.int64)
        ksq = np.empty(2, np.int64)
        board = np.zeros(NSQ, np.int8)
        hands = np.zeros((2, 8), np.int8)
        for r in range(ch * 4096, min(n, (ch + 1) * 4096)):
            slot = lo + r
            if not _decode(slot, desc, ksq, loc, col, prom, st):
                kind[r] = NONE
                continue
            symmetric = False
            if ksq[0] // 9 == 4:
                m = _encode(ksq, loc, col, prom, desc, 0, 1, st)
                if m < slot:
                    kind[r] = NONE
                    continue
                symmetric = m == slot
            _place(ksq, loc, col, prom, desc, board, hands)
            if _attacked(board, ksq[1], 0) or _nifu_any(loc, col, prom, desc, board):
                kind[r] = ILLEGAL
            else:
                kind[r] = 0
            _lift(ksq, loc, col, desc, board, hands)
            mult[r] = 2 if symmetric else 4
    return kind, mult


@njit(cache=True, parallel=True)
def _children(desc, positions, count, child, move):
    """Every legal move of each position (black to move): count int16[k], child int64[k, W]
    (the slot after the move: white to move there, stored through the colour swap), move
    int32[k, W] (codes on the stored board), in the order of ``_legal_moves``: board moves by
    origin square, then drops."""
    n = positions.shape[0]
    k = desc[0]
    nchunk = (n + 255) // 256
    for ch in prange(nchunk):
        # scratch per chunk, not slices of one array: see _parents
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
            _decode(positions[r], desc, ksq, loc, col, prom, st)
            _place(ksq, loc, col, prom, desc, board, hands)
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
            nm = _gen_legal(board, hands, 0, ksq[0], ksq[1], origins, no, eorigins, ne, amap,
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
                c, _, _ = _canonical(ksq, loc, col, prom, desc, 1, st)
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


@njit(cache=True, inline="always")
def _parent_ok(ksq, loc, col, prom, desc, board):
    """Whether a parent (white to move) is a legal position: black not in check, no nifu."""
    return not _attacked(board, ksq[0], 1) and not _nifu_any(loc, col, prom, desc, board)


@njit(cache=True, inline="always")
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
            if cp == 0 and _dead(0, th, t):
                continue
            board[t] = th + PROMOTED * cp
            loc[jh] = t
            col[jh] = 0
            prom[jh] = cp
            if _parent_ok(ksq, loc, col, prom, desc, board):
                p, _, _ = _canonical(ksq, loc, col, prom, desc, 1, st)
                parent[r, m] = p
                m += 1
            board[t] = 0
            loc[jh] = HAND
            col[jh] = 1
            prom[jh] = 0
    return m


@njit(cache=True, inline="always")
def _origins_back(board, before, t, orig):
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


@njit(cache=True)
def _unmoves_to(ksq, loc, col, prom, desc, board, j, t, st, orig, parent, r, m):
    """Parents where white's piece j (-1: the king) moved to ``t`` from an empty square,
    promoting on the way or not, capturing or not; appended from ``m``, returns the count."""
    now = KING if j < 0 else desc[PIECES + j] + PROMOTED * prom[j]
    for variant in range(2):
        if variant == 1 and (j < 0 or prom[j] == 0):
            break
        before = now - PROMOTED * variant
        no = _origins_back(board, before, t, orig)
        for i in range(no):
            s = orig[i]
            if variant == 1:
                if not (_in_zone(1, s) or _in_zone(1, t)) or _dead(1, before, s):
                    continue
            elif before <= ROOK and _dead(1, before, s):
                continue
            board[t] = 0
            board[s] = before + 16
            if j < 0:
                ksq[1] = s
            else:
                loc[j] = s
                prom[j] -= variant
            if _parent_ok(ksq, loc, col, prom, desc, board):
                p, _, _ = _canonical(ksq, loc, col, prom, desc, 1, st)
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


@njit(cache=True, parallel=True)
def _parents(desc, positions, count, parent):
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
            _decode(positions[r], desc, ksq, loc, col, prom, st)
            _place(ksq, loc, col, prom, desc, board, hands)
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
                        mated = 0 if _can_escape_pawn_check(board, hands, 0, ksq[0], buf) else 1
                    if mated == 1:
                        continue  # a pawn drop that mates is not a legal move
                board[t] = 0
                loc[j] = HAND
                if _parent_ok(ksq, loc, col, prom, desc, board):
                    p, _, _ = _canonical(ksq, loc, col, prom, desc, 1, st)
                    parent[r, m] = p
                    m += 1
                loc[j] = t
                board[t] = tp + 16
            _lift(ksq, loc, col, desc, board, hands)
            count[r] = m


# --------------------------------------------------------------------------- probing

@njit(cache=True)
def _slot_of(desc, board, hands, side, ksq, loc, col, prom, st):
    """(slot, mirrored) of a position given as board/hands/side (side 1: through the colour
    swap); slot -1 if it does not hold exactly the table's pieces.  ksq int64[2] and loc, col,
    prom, st int64[k]: scratch."""
    k = desc[0]
    ksq[:] = -1
    loc[:] = -1
    col[:] = 0
    prom[:] = 0
    for sq in range(NSQ):
        p = board[sq]
        if p == 0:
            continue
        t = p & 15
        c = p >> 4
        if t == KING:
            ksq[c] = sq
            continue
        base = t - PROMOTED if t > KING else t
        placed = False
        for j in range(k):
            if loc[j] < 0 and desc[PIECES + j] == base:
                loc[j] = sq
                col[j] = c
                prom[j] = 1 if t > KING else 0
                placed = True
                break
        if not placed:
            return np.int64(-1), 0
    for c in range(2):
        for t in range(1, 8):
            for _ in range(hands[c, t]):
                placed = False
                for j in range(k):
                    if loc[j] < 0 and desc[PIECES + j] == t:
                        loc[j] = HAND
                        col[j] = c
                        placed = True
                        break
                if not placed:
                    return np.int64(-1), 0
    for j in range(k):
        if loc[j] < 0:
            return np.int64(-1), 0
    slot, mirrored, _ = _canonical(ksq, loc, col, prom, desc, side, st)
    return slot, mirrored


@njit(cache=True)
def _locate(desc, board, hands, side):
    """``_slot_of`` with its scratch made here: one lookup's call, fewer arguments to pass."""
    k = max(desc[0], 1)
    return _slot_of(desc, board, hands, side, np.empty(2, np.int64), np.empty(k, np.int64),
                    np.empty(k, np.int64), np.empty(k, np.int64), np.empty(k, np.int64))


@njit(cache=True)
def _position_of(desc, slot, board, hands):
    """Board and hands (black to move) of a slot; False if the slot is no board."""
    k = max(desc[0], 1)
    ksq = np.empty(2, np.int64)
    loc = np.empty(k, np.int64)
    col = np.empty(k, np.int64)
    prom = np.empty(k, np.int64)
    st = np.empty(k, np.int64)
    board[:] = 0
    hands[:] = 0
    if not _decode(slot, desc, ksq, loc, col, prom, st):
        return False
    _place(ksq, loc, col, prom, desc, board, hands)
    return True


@njit(cache=True, parallel=True)
def _slots_of_many(desc, boards, hands, sides, slots, mirrored):
    """``_slot_of`` for many positions of one table: boards int8[n, 81], hands int8[n, 2, 8],
    sides int8[n] -> slots int64[n] (-1: not this table's pieces), mirrored int8[n]."""
    n = boards.shape[0]
    nchunk = (n + 4095) // 4096
    for ch in prange(nchunk):
        k = max(desc[0], 1)
        ksq = np.empty(2, np.int64)
        loc = np.empty(k, np.int64)
        col = np.empty(k, np.int64)
        prom = np.empty(k, np.int64)
        st = np.empty(k, np.int64)
        for r in range(ch * 4096, min(n, (ch + 1) * 4096)):
            s, m = _slot_of(desc, boards[r], hands[r], sides[r], ksq, loc, col, prom, st)
            slots[r] = s
            mirrored[r] = m


@njit(cache=True, parallel=True)
def _batch_keys(boards, hands, sides, keys):
    """Material key of each row for grouping a batch by table, and a check of the row:
    boards int8[n, 81], hands int8[n, 2, 8], sides int8[n] -> keys int64[n] = sum over types
    t = 1..7 of count_t * 19**(t - 1) (pieces of the type anywhere, base type of a promoted
    piece), or a negative error: -1 a bad piece code, -2 not one king of each colour, -3 a
    hand count outside 0..18 (or at index 0), -4 a side other than 0/1."""
    n = boards.shape[0]
    for r in prange(n):
        key = np.int64(0)
        bad = 0
        kings0 = 0
        kings1 = 0
        if sides[r] != 0 and sides[r] != 1:
            bad = -4
        for c in range(2):
            if hands[r, c, 0] != 0:
                bad = -3
            for t in range(1, 8):
                h = hands[r, c, t]
                if h < 0 or h > 18:
                    bad = -3
                else:
                    key += h * POW19[t - 1]
        for sq in range(NSQ):
            p = np.int64(boards[r, sq])
            if p == 0:
                continue
            t = p & 15
            c = p >> 4
            if p < 0 or c > 1 or t == 0 or t == 15:
                bad = -1
                continue
            if t == KING:
                if c == 0:
                    kings0 += 1
                else:
                    kings1 += 1
                continue
            if t > KING:
                t -= PROMOTED
            key += POW19[t - 1]
        if bad == 0 and (kings0 != 1 or kings1 != 1):
            bad = -2
        keys[r] = bad if bad < 0 else key
