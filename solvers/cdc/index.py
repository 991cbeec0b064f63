"""Chinese Dark Chess (revealed endgames) kernels: indexing, symmetry, moves, table edges.

Board: 32 squares, ``sq = row * 8 + col`` (a1 = 0, h1 = 7, a4 = 24, h4 = 31).
Piece codes: ``colour * 7 + type`` with colour 0 red / 1 black and type
0 General, 1 Advisor, 2 Elephant, 3 Chariot, 4 Horse, 5 Cannon, 6 Soldier (rank = 7 - type).

A material is described to the kernels by ``desc`` (int64[DESC_LEN]):

    desc[0] = k (pieces)   desc[1] = mode   desc[2] = number of groups
    desc[4 + g] = size of group g            desc[12 + j] = piece code of slot j

Slots are the pieces in *index order*: groups of identical pieces, the lead group first.
The index of a placement ``sq[0..k)`` (a square per slot) is a mixed-radix number:
the lead digit, then per further group the combination rank of its squares among the squares
left free by the earlier groups.  The lead makes the index canonical under the four board
symmetries (identity, left-right, up-down, 180 degrees):

* mode 0: the lead is a single piece, confined to the 8 squares a1-d1, a2-d2 (no square of a
  4x8 board is fixed by a symmetry, so exactly one symmetry brings it there, and every index
  is a canonical position whose orbit has 4 placements);
* mode 1: no piece is alone of its kind (``XXvYY``): the lead is the first pair, confined to the
  136 orbit representatives of the 496 pairs.  A pair fixed by a symmetry leaves two indices per
  orbit; the canonical one is the smaller, and only it is ``valid``.

Move codes (int16): ``from * 32 + to``, plus ``CAPTURE_FLAG`` for captures.
"""
import numpy as np
from numba import njit, prange


NSQ = 32
DESC_LEN = 24
GENERAL, ADVISOR, ELEPHANT, CHARIOT, HORSE, CANNON, SOLDIER = range(7)
CAPTURE_FLAG = 1024


def _step_capture_table():
    """STEP_CAPTURES[attacker_type, victim_type]: may a stepping piece take the victim."""
    table = np.zeros((7, 7), np.bool_)
    for a in range(7):
        for v in range(7):
            if a == CANNON:
                continue  # a cannon only captures by jumping
            if a == SOLDIER:
                table[a, v] = v in (SOLDIER, GENERAL)
            elif a == GENERAL and v == SOLDIER:
                table[a, v] = False
            else:
                table[a, v] = a <= v  # equal or lower rank
    return table


def _symmetry_table():
    """SYM[s, sq]: square sq under symmetry s (0 id, 1 left-right, 2 up-down, 3 rotation)."""
    table = np.empty((4, NSQ), np.int8)
    for sq in range(NSQ):
        r, c = divmod(sq, 8)
        table[0, sq] = sq
        table[1, sq] = r * 8 + (7 - c)
        table[2, sq] = (3 - r) * 8 + c
        table[3, sq] = (3 - r) * 8 + (7 - c)
    return table


def _neighbour_table():
    """NEIGHBOUR[sq, d] for d = up, down, left, right; -1 off the board."""
    table = np.full((NSQ, 4), -1, np.int8)
    for sq in range(NSQ):
        r, c = divmod(sq, 8)
        for d, (dr, dc) in enumerate(((1, 0), (-1, 0), (0, -1), (0, 1))):
            rr, cc = r + dr, c + dc
            if 0 <= rr < 4 and 0 <= cc < 8:
                table[sq, d] = rr * 8 + cc
    return table


def _pair_tables(sym):
    """Orbit representatives of unordered square pairs under the four symmetries."""
    index = np.full(NSQ * NSQ, -1, np.int16)
    reps = []
    for a in range(NSQ):
        for b in range(a + 1, NSQ):
            images = [tuple(sorted((int(sym[s, a]), int(sym[s, b])))) for s in range(4)]
            if min(images) == (a, b):
                index[a * NSQ + b] = len(reps)
                reps.append((a, b))
    return index, np.array(reps, np.int8)


def _binomials(n=64, k=13):
    table = np.zeros((n + 1, k + 1), np.int64)
    for i in range(n + 1):
        table[i, 0] = 1
        for j in range(1, min(i, k) + 1):
            table[i, j] = table[i - 1, j - 1] + (table[i - 1, j] if j <= i - 1 else 0)
    return table


STEP_CAPTURES = _step_capture_table()
SYM = _symmetry_table()
NEIGHBOUR = _neighbour_table()
PAIR_INDEX, PAIR_REPS = _pair_tables(SYM)
N_PAIR_REPS = len(PAIR_REPS)  # 136
DOMAIN_INDEX = np.array([(sq // 8) * 4 + sq % 8 if sq % 8 < 4 and sq // 8 < 2 else -1
                         for sq in range(NSQ)], np.int8)
DOMAIN_SQ = np.array([r * 8 + c for r in range(2) for c in range(4)], np.int8)
# The symmetry that brings a square into the domain (each is its own inverse).
TO_DOMAIN = np.array([(1 if sq % 8 > 3 else 0) + (2 if sq // 8 > 1 else 0) for sq in range(NSQ)],
                     np.int8)
BINOM = _binomials()


# --------------------------------------------------------------------------- indexing

@njit(cache=True)
def _lead_radix(desc):
    return 8 if desc[1] == 0 else N_PAIR_REPS


@njit(cache=True)
def _table_size(desc):
    """Indices per side to move."""
    size = _lead_radix(desc)
    occ = desc[4]
    for g in range(1, desc[2]):
        m = desc[4 + g]
        size *= BINOM[NSQ - occ, m]
        occ += m
    return size


@njit(cache=True)
def _index_of(sq, desc):
    """Index of a placement given in slot order, or -1 if its lead is not in the domain."""
    if desc[1] == 0:
        idx = np.int64(DOMAIN_INDEX[sq[0]])
        if idx < 0:
            return -1
    else:
        a = sq[0]
        b = sq[1]
        if a > b:
            a, b = b, a
        idx = np.int64(PAIR_INDEX[a * NSQ + b])
        if idx < 0:
            return -1
    pos = desc[4]
    for g in range(1, desc[2]):
        m = desc[4 + g]
        rank = np.int64(0)
        for e in range(pos, pos + m):
            s = sq[e]
            compact = s
            for f in range(pos):
                if sq[f] < s:
                    compact -= 1
            order = 1
            for f in range(pos, pos + m):
                if sq[f] < s:
                    order += 1
            rank += BINOM[compact, order]
        idx = idx * BINOM[NSQ - pos, m] + rank
        pos += m
    return idx


@njit(cache=True)
def _unrank(idx, desc, sq):
    """Inverse of ``_index_of``: fill ``sq`` (slot order) from an index."""
    ng = desc[2]
    # digits are read most significant first: divide by the radices of the later groups
    later = np.int64(1)
    occ = desc[4]
    for g in range(1, ng):
        later *= BINOM[NSQ - occ, desc[4 + g]]
        occ += desc[4 + g]
    lead = idx // later
    rest = idx - lead * later
    if desc[1] == 0:
        sq[0] = DOMAIN_SQ[lead]
    else:
        sq[0] = PAIR_REPS[lead, 0]
        sq[1] = PAIR_REPS[lead, 1]
    pos = desc[4]
    for g in range(1, ng):
        m = desc[4 + g]
        radix = BINOM[NSQ - pos, m]
        later //= radix
        rank = rest // later
        rest -= rank * later
        # combinatorial number system: largest c with C(c, j) <= rank, for j = m .. 1
        c = NSQ - pos
        for j in range(m, 0, -1):
            c -= 1
            while BINOM[c, j] > rank:
                c -= 1
            rank -= BINOM[c, j]
            # c is a compacted square: the c-th square not taken by earlier groups
            free = -1
            s = -1
            while free < c:
                s += 1
                taken = False
                for f in range(pos):
                    if sq[f] == s:
                        taken = True
                        break
                if not taken:
                    free += 1
            sq[pos + j - 1] = s
        pos += m


@njit(cache=True)
def _canonical(sq, desc, tmp):
    """Canonical index of a placement and the symmetry that produces it (tmp: scratch, len>=k)."""
    k = desc[0]
    if desc[1] == 0:
        s = TO_DOMAIN[sq[0]]
        for j in range(k):
            tmp[j] = SYM[s, sq[j]]
        return _index_of(tmp, desc), s
    best = np.int64(-1)
    best_sym = 0
    for s in range(4):
        for j in range(k):
            tmp[j] = SYM[s, sq[j]]
        idx = _index_of(tmp, desc)
        if idx >= 0 and (best < 0 or idx < best):
            best = idx
            best_sym = s
    return best, best_sym


@njit(cache=True)
def _stabiliser(idx, desc, sq, tmp):
    """For a placement (slot order) with index idx: (is canonical, size of its stabiliser)."""
    k = desc[0]
    if desc[1] == 0:
        return True, 1
    canonical = True
    fixed = 0
    for s in range(4):
        for j in range(k):
            tmp[j] = SYM[s, sq[j]]
        other = _index_of(tmp, desc)
        if other >= 0:
            if other < idx:
                canonical = False
            if other == idx:
                fixed += 1
    return canonical, fixed


@njit(cache=True, parallel=True)
def _unrank_many(desc, idx):
    """Squares (slot order) of many indices: int8[n, k]."""
    k = desc[0]
    out = np.empty((idx.shape[0], k), np.int8)
    nchunk = (idx.shape[0] + 4095) // 4096
    scratch = np.empty((nchunk, 16), np.int64)
    for ch in prange(nchunk):
        sq = scratch[ch]
        for i in range(ch * 4096, min(idx.shape[0], (ch + 1) * 4096)):
            _unrank(idx[i], desc, sq)
            for j in range(k):
                out[i, j] = sq[j]
    return out


# --------------------------------------------------------------------------- moves

@njit(cache=True)
def _cannon_target(board, s, d):
    """Square a cannon on s would capture towards direction d, or -1: the first piece beyond
    the screen, whatever its colour (the board may hold piece codes or slots, -1 empty)."""
    t = NEIGHBOUR[s, d]
    while t >= 0 and board[t] < 0:
        t = NEIGHBOUR[t, d]
    if t < 0:
        return -1  # no screen
    t = NEIGHBOUR[t, d]
    while t >= 0 and board[t] < 0:
        t = NEIGHBOUR[t, d]
    return t


@njit(cache=True)
def _moves_of_board(board, side, out):
    """Legal moves of ``side`` on a board of piece codes (-1 empty); returns how many were
    written to ``out`` (move codes).  Order: squares ascending, then directions."""
    n = 0
    for s in range(NSQ):
        code = board[s]
        if code < 0 or code // 7 != side:
            continue
        kind = code % 7
        for d in range(4):
            t = NEIGHBOUR[s, d]
            if t < 0:
                continue
            other = board[t]
            if other < 0:
                out[n] = s * 32 + t
                n += 1
            elif kind != CANNON and other // 7 != side and STEP_CAPTURES[kind, other % 7]:
                out[n] = CAPTURE_FLAG + s * 32 + t
                n += 1
        if kind == CANNON:
            for d in range(4):
                t = _cannon_target(board, s, d)
                if t >= 0 and board[t] // 7 != side:
                    out[n] = CAPTURE_FLAG + s * 32 + t
                    n += 1
    return n


# --------------------------------------------------------------------------- tables
# A table's slots are ``side * size + idx`` (side to move 0 red, 1 black; idx the placement
# index).  These kernels follow docs/kernel-contract.md.

@njit(cache=True, parallel=True)
def _census(desc, size, lo, hi):
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
            _unrank(idx, desc, sq)
            canonical, fixed = _stabiliser(idx, desc, sq, tmp)
            if canonical:
                kind[r] = 0
                mult[r] = 4 // fixed
            else:
                kind[r] = -3
    return kind, mult


@njit(cache=True)
def _lookup_child(csq, cdesc, side, swap, cres, cdist, coff, csize, tmp):
    """Value of a capture child (its slots' squares in csq) in an already-solved table."""
    idx, _ = _canonical(csq, cdesc, tmp)
    stored_side = side ^ swap
    i = coff + stored_side * csize + idx
    return cres[i], cdist[i]


@njit(cache=True, parallel=True)
def _children(desc, size, positions, slot_child, cdesc, cswap, ckind, coff, csize, cres, cdist,
              count, child, move, ext_result, ext_distance):
    """Every legal move of each position (slots), in ``_moves_of_board`` order.

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
            _unrank(positions[r] % size, desc, sq)
            for s in range(NSQ):
                board[s] = -1
                codes[s] = -1
            for j in range(k):
                board[sq[j]] = j
                codes[sq[j]] = desc[12 + j]
            nmoves = _moves_of_board(codes, side, moves)
            count[r] = nmoves
            for e in range(nmoves):
                mv = moves[e]
                move[r, e] = mv
                s = (mv % CAPTURE_FLAG) // 32
                t = mv % 32
                j = board[s]
                if mv < CAPTURE_FLAG:
                    sq[j] = t
                    c, _ = _canonical(sq, desc, tmp)
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


@njit(cache=True, parallel=True)
def _parents(desc, size, positions, count, parent):
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
            _unrank(positions[r] % size, desc, sq)
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
                    p, _ = _canonical(sq, desc, tmp)
                    sq[j] = t
                    parent[r, m] = mover * size + p
                    m += 1
            count[r] = m


# --------------------------------------------------------------------------- probing

@njit(cache=True)
def _slots_of_board(board, desc, swap, sq):
    """Fill ``sq`` (slot order) from a board of piece codes; colours swapped if ``swap``.
    Returns False if the board does not hold exactly the material's pieces."""
    k = desc[0]
    for j in range(k):
        sq[j] = -1
    count = 0
    for s in range(NSQ):
        code = board[s]
        if code < 0:
            continue
        if swap:
            code = (1 - code // 7) * 7 + code % 7
        placed = False
        for j in range(k):
            if sq[j] < 0 and desc[12 + j] == code:
                sq[j] = s
                placed = True
                break
        if not placed:
            return False
        count += 1
    return count == k


@njit(cache=True)
def _locate_one(board, side, desc, swap, size):
    """(slot, symmetry) of one board of the material ``desc`` describes (see _locate_many)."""
    sq = np.empty(16, np.int64)
    tmp = np.empty(16, np.int64)
    _slots_of_board(board, desc, swap, sq)
    idx, s = _canonical(sq, desc, tmp)
    return (side ^ swap) * size + idx, s


@njit(cache=True, parallel=True)
def _locate_many(boards, sides, rows, desc, swap, size, out_slot, out_sym):
    """Slots (``side * size + canonical idx`` in the stored orientation) and symmetries of the
    boards ``rows`` names, all of one material: boards int8[n, 32] piece codes, sides int8[n];
    row ``rows[j]`` is written at ``out_slot[rows[j]]`` (no gathered copy of the boards)."""
    n = rows.shape[0]
    nchunk = (n + 4095) // 4096
    scratch = np.empty((nchunk, 2, 16), np.int64)
    for ch in prange(nchunk):
        sq = scratch[ch, 0]
        tmp = scratch[ch, 1]
        for j in range(ch * 4096, min(n, (ch + 1) * 4096)):
            r = rows[j]
            _slots_of_board(boards[r], desc, swap, sq)
            idx, s = _canonical(sq, desc, tmp)
            out_slot[r] = (sides[r] ^ swap) * size + idx
            out_sym[r] = s


@njit(cache=True, parallel=True)
def _map_moves(codes, syms, out):
    """Move codes on the canonical board mapped back through each row's symmetry (symmetries
    are their own inverses); -1 stays -1."""
    for r in prange(codes.shape[0]):
        mv = codes[r]
        if mv >= 0:
            s = syms[r]
            a = SYM[s, (mv % CAPTURE_FLAG) // 32]
            b = SYM[s, mv % 32]
            mv = (mv // CAPTURE_FLAG) * CAPTURE_FLAG + a * 32 + b
        out[r] = mv


@njit(cache=True, parallel=True)
def _patterns(squares):
    """Board text of many placements with slot j written as chr(65 + j) ('A', 'B', ...):
    squares int8[n, k] -> uint8[n, 36] ASCII, zero padded (ranks 4 to 1, digits for empties)."""
    n, k = squares.shape
    out = np.zeros((n, 36), np.uint8)
    nchunk = (n + 4095) // 4096
    cells = np.empty((nchunk, NSQ), np.int8)
    for ch in prange(nchunk):
        cell = cells[ch]
        for i in range(ch * 4096, min(n, (ch + 1) * 4096)):
            for s in range(NSQ):
                cell[s] = -1
            for j in range(k):
                cell[squares[i, j]] = j
            p = 0
            for row in range(3, -1, -1):
                if row < 3:
                    out[i, p] = 47  # '/'
                    p += 1
                empty = 0
                for col in range(8):
                    j = cell[row * 8 + col]
                    if j < 0:
                        empty += 1
                        continue
                    if empty:
                        out[i, p] = 48 + empty
                        p += 1
                        empty = 0
                    out[i, p] = 65 + j
                    p += 1
                if empty:
                    out[i, p] = 48 + empty
                    p += 1
    return out


POW6 = np.array([6 ** c for c in range(14)], np.int64)  # a material key's term per piece code


@njit(cache=True, parallel=True)
def _material_keys(boards):
    """A number per board naming its material: sum over pieces of 6 ** code (int64[n]).
    Boards with a side that has no piece get -1 (red missing) or -2 (black missing)."""
    n = boards.shape[0]
    keys = np.empty(n, np.int64)
    for i in prange(n):
        key = np.int64(0)
        red = 0
        black = 0
        for s in range(NSQ):
            c = boards[i, s]
            if c >= 0:
                key += POW6[c]
                if c < 7:
                    red += 1
                else:
                    black += 1
        keys[i] = key if red and black else (-1 if red == 0 else -2)
    return keys


@njit(cache=True, parallel=True)
def _first_overfull(boards, limit, max_pieces):
    """The first row (int8[n, 32], codes already known to be -1..13) with more pieces of a kind
    than ``limit[code]`` or more than ``max_pieces`` pieces; -1 if there is none.  Chunks of
    rows are searched in parallel, each for its own first such row."""
    n = boards.shape[0]
    nchunk = (n + 4095) // 4096
    first = np.full(nchunk, -1, np.int64)
    counts = np.zeros((nchunk, 14), np.int64)
    for ch in prange(nchunk):
        count = counts[ch]
        for r in range(ch * 4096, min(n, (ch + 1) * 4096)):
            count[:] = 0
            total = 0
            bad = False
            for s in range(boards.shape[1]):
                c = boards[r, s]
                if c >= 0:
                    count[c] += 1
                    total += 1
            if total > max_pieces:
                bad = True
            for c in range(14):
                if count[c] > limit[c]:
                    bad = True
            if bad:
                first[ch] = r
                break
    for ch in range(nchunk):
        if first[ch] >= 0:
            return first[ch]
    return -1
