"""Shogi endgame tables indexed: a dense index over two kings and a multiset of other pieces,
its rank / unrank, canonical form (colour swap, mirror) and the probing kernels.

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

from tbdb.solvers.jit import kernel, inline_kernel, parallel_kernel, prange
from tbdb.solvers.shogi.moves import KING, NSQ, PROMOTED, ROOK, dead

HAND = 81
DESC_LEN = 64
PIECES = 48  # desc offset of the piece types
MAX_STATES = 2 + 2 * 2 * NSQ


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
                    if prom or not dead.py_func(c, t, sq):
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

@inline_kernel
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


@inline_kernel
def decode(slot, desc, ksq, loc, col, prom, st):
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


@inline_kernel
def encode(ksq, loc, col, prom, desc, swap, mirror, st):
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


@inline_kernel
def canonical(ksq, loc, col, prom, desc, swap, st):
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
        e = encode(ksq, loc, col, prom, desc, swap, mirror, st)
        if best < 0 or e < best:
            best = e
            mirrored = mirror
        elif e == best:
            symmetric = True
    return best, mirrored, symmetric


@inline_kernel
def place(ksq, loc, col, prom, desc, board, hands):
    """Put a decoded position on an empty board (int8[81]) and zeroed hands (int8[2, 8])."""
    board[ksq[0]] = KING
    board[ksq[1]] = KING + 16
    for j in range(desc[0]):
        t = desc[PIECES + j]
        if loc[j] == HAND:
            hands[col[j], t] += 1
        else:
            board[loc[j]] = t + PROMOTED * prom[j] + 16 * col[j]


# --------------------------------------------------------------------------- probing

@kernel
def slot_of(desc, board, hands, side, ksq, loc, col, prom, st):
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
    slot, mirrored, _ = canonical(ksq, loc, col, prom, desc, side, st)
    return slot, mirrored


@kernel
def locate(desc, board, hands, side):
    """``slot_of`` with its scratch made here: one lookup's call, fewer arguments to pass."""
    k = max(desc[0], 1)
    return slot_of(desc, board, hands, side, np.empty(2, np.int64), np.empty(k, np.int64),
                    np.empty(k, np.int64), np.empty(k, np.int64), np.empty(k, np.int64))


@kernel
def position_of(desc, slot, board, hands):
    """Board and hands (black to move) of a slot; False if the slot is no board."""
    k = max(desc[0], 1)
    ksq = np.empty(2, np.int64)
    loc = np.empty(k, np.int64)
    col = np.empty(k, np.int64)
    prom = np.empty(k, np.int64)
    st = np.empty(k, np.int64)
    board[:] = 0
    hands[:] = 0
    if not decode(slot, desc, ksq, loc, col, prom, st):
        return False
    place(ksq, loc, col, prom, desc, board, hands)
    return True


@parallel_kernel
def slots_of_many(desc, boards, hands, sides, slots, mirrored):
    """``slot_of`` for many positions of one table: boards int8[n, 81], hands int8[n, 2, 8],
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
            s, m = slot_of(desc, boards[r], hands[r], sides[r], ksq, loc, col, prom, st)
            slots[r] = s
            mirrored[r] = m


@parallel_kernel
def batch_keys(boards, hands, sides, keys):
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
