"""Chess table index: a material's ``desc``, placements <-> slots, canonical form.

``desc`` int64[DESC_LEN]: [pieces k, has pawns 0/1, piece code of each table slot (k of them,
then 0)].  Slot order: the first side's king, the second side's king, then the first side's
other pieces (queens, rooks, bishops, knights, pawns), then the second side's: identical pieces
are adjacent.  The first side plays as white (its pawns move up the board).

A placement's index: the king pair's number (``KPAIRS``: every non-adjacent pair with the first
king in the a1-d1-d4 triangle, and the second king on or below the a1-h8 diagonal when the first
is on it: 462 pairs; with pawns the first king on files a-d: 1806 pairs), then each other piece's
square in mixed radix (64; pawns 48, ranks 2-7).  Several slots stand for one position
(identical pieces, or a symmetric king pair): the canonical one is the smallest index over the
board symmetries that put the kings in canonical pairs, identical pieces' squares ascending.
A table's slot is ``side_to_move * half + index``.

Symmetries ``SYM[s, sq]``: bit 0 mirrors files, bit 1 mirrors ranks, bit 2 transposes (applied
last); without pawns all 8, with pawns 0 and 1 only.
"""
import numpy as np

from tbdb.solvers.jit import inline_kernel, kernel
from tbdb.solvers.chess.moves import PAWN

DESC_LEN = 8
MAX_PIECES = 6


def _sym_table():
    sym = np.zeros((8, 64), np.int8)
    for s in range(8):
        for sq in range(64):
            f, r = sq % 8, sq // 8
            if s & 1:
                f = 7 - f
            if s & 2:
                r = 7 - r
            if s & 4:
                f, r = r, f
            sym[s, sq] = r * 8 + f
    inverse = np.zeros(8, np.int8)
    for s in range(8):
        for t in range(8):
            if all(sym[t, sym[s, q]] == q for q in range(64)):
                inverse[s] = t
    return sym, inverse


def _king_pairs(pawns: bool):
    """(pair number per (first, second) square or -1, the squares of each pair)."""
    pairs = []
    for a in range(64):
        fa, ra = a % 8, a // 8
        if pawns:
            if fa > 3:
                continue
        elif not (fa <= 3 and ra <= fa):
            continue
        for b in range(64):
            fb, rb = b % 8, b // 8
            if max(abs(fa - fb), abs(ra - rb)) <= 1:
                continue  # the same square or touching kings
            if not pawns and fa == ra and rb > fb:
                continue  # first king on the diagonal: the second on or below it
            pairs.append((a, b))
    number = np.full(4096, -1, np.int32)
    for i, (a, b) in enumerate(pairs):
        number[a * 64 + b] = i
    return number, np.array(pairs, np.int8)


def _stabilisers(number, squares, nsym):
    """Per canonical pair: how many of the ``nsym`` symmetries keep both kings where they are
    (1 for all but the pairs with both kings on the a1-h8 diagonal).  A placement whose pair
    has 1 is canonical as soon as its identical pieces stand in ascending order, and its orbit
    is all ``nsym`` images: the census and ``canonical_fast`` skip the search then."""
    stab = np.zeros(len(squares), np.int8)
    for p, (a, b) in enumerate(squares):
        for s in range(nsym):
            if SYM[s, a] == a and SYM[s, b] == b:
                stab[p] += 1
    return stab


SYM, INVERSE = _sym_table()
KPAIR_NUMBER, KPAIR_SQUARES = _king_pairs(False)
PKPAIR_NUMBER, PKPAIR_SQUARES = _king_pairs(True)
assert len(KPAIR_SQUARES) == 462 and len(PKPAIR_SQUARES) == 1806
KPAIR_STAB = _stabilisers(KPAIR_NUMBER, KPAIR_SQUARES, 8)
PKPAIR_STAB = _stabilisers(PKPAIR_NUMBER, PKPAIR_SQUARES, 2)
assert (PKPAIR_STAB == 1).all()


def _first_symmetry(number, nsym):
    """Per king squares a * 64 + b: the first symmetry putting them in a canonical pair (-1:
    the kings touch or share a square)."""
    first = np.full(4096, -1, np.int8)
    for ab in range(4096):
        a, b = divmod(ab, 64)
        for s in range(nsym):
            if number[int(SYM[s, a]) * 64 + int(SYM[s, b])] >= 0:
                first[ab] = s
                break
    return first


KPAIR_FIRST = _first_symmetry(KPAIR_NUMBER, 8)
PKPAIR_FIRST = _first_symmetry(PKPAIR_NUMBER, 2)


@kernel
def half_size(desc):
    """Placements of one side to move."""
    k = desc[0]
    n = np.int64(1806 if desc[1] else 462)
    for i in range(2, k):
        n *= 48 if desc[2 + i] & 7 == PAWN else 64
    return n


@inline_kernel
def sort_groups(desc, t):
    """Sort the squares of each run of identical pieces ascending (insertion sort: runs are
    at most 4 long)."""
    k = desc[0]
    for i in range(3, k):
        v = t[i]
        j = i - 1
        while j >= 2 and desc[2 + j] == desc[2 + i] and t[j] > v:
            t[j + 1] = t[j]
            j -= 1
        t[j + 1] = v


@inline_kernel
def index_of(desc, t, pair):
    k = desc[0]
    idx = np.int64(pair)
    for i in range(2, k):
        if desc[2 + i] & 7 == PAWN:
            idx = idx * 48 + (t[i] - 8)
        else:
            idx = idx * 64 + t[i]
    return idx


@inline_kernel
def canonical(desc, sq, t):
    """(index, symmetry) of the placement ``sq`` (int64[k], table slot order): the smallest
    index over the symmetries whose image puts the kings in a canonical pair; ``t`` is scratch
    (int64[>= k]).  (-1, -1) if the kings touch or share a square."""
    k = desc[0]
    pawns = desc[1]
    nsym = 2 if pawns else 8
    best = np.int64(-1)
    best_s = -1
    for s in range(nsym):
        a = SYM[s, sq[0]]
        b = SYM[s, sq[1]]
        pair = PKPAIR_NUMBER[a * 64 + b] if pawns else KPAIR_NUMBER[a * 64 + b]
        if pair < 0:
            continue
        for i in range(2, k):
            t[i] = SYM[s, sq[i]]
        sort_groups(desc, t)
        idx = index_of(desc, t, pair)
        if best < 0 or idx < best:
            best = idx
            best_s = s
    return best, best_s


@inline_kernel
def canonical_index(desc, sq, t):
    """``canonical``'s index (not its symmetry) of ``sq``, the kings apart: the one symmetry
    that puts the kings in a pair no other symmetry keeps is looked up, not searched for."""
    pawns = desc[1]
    ab = sq[0] * 64 + sq[1]
    s = PKPAIR_FIRST[ab] if pawns else KPAIR_FIRST[ab]
    a = SYM[s, sq[0]]
    b = SYM[s, sq[1]]
    pair = PKPAIR_NUMBER[a * 64 + b] if pawns else KPAIR_NUMBER[a * 64 + b]
    if (PKPAIR_STAB[pair] if pawns else KPAIR_STAB[pair]) != 1:
        best, _ = canonical(desc, sq, t)
        return best
    for i in range(2, desc[0]):
        t[i] = SYM[s, sq[i]]
    sort_groups(desc, t)
    return index_of(desc, t, pair)


@inline_kernel
def identity_pair(desc, a, b):
    """The number of the king pair a, b (first king on a) if no symmetry but the identity puts
    those kings in a canonical pair, else -1: then a placement with them is canonical as its
    other pieces stand, and a move of a king that lands there changes the index's first digit
    alone.  With pawns the mirror never keeps the first king on files a-d (every pair's
    stabiliser is 1); without, a pair kept by the transposition (both kings on the diagonal)
    is searched."""
    ab = a * 64 + b
    if desc[1]:
        return np.int64(PKPAIR_NUMBER[ab])
    pn = np.int64(KPAIR_NUMBER[ab])
    return pn if pn < 0 or KPAIR_STAB[pn] == 1 else np.int64(-1)


@kernel
def pair_symmetries(desc, sq, syms, pairs):
    """The symmetries that put the kings of ``sq`` in a canonical pair, and the pair each
    makes (``syms``/``pairs`` int64[8]); returns how many.  Moves of other pieces keep them:
    ``canonical_with`` then skips the search."""
    nsym = 2 if desc[1] else 8
    n = 0
    for s in range(nsym):
        a = SYM[s, sq[0]]
        b = SYM[s, sq[1]]
        pair = PKPAIR_NUMBER[a * 64 + b] if desc[1] else KPAIR_NUMBER[a * 64 + b]
        if pair >= 0:
            syms[n] = s
            pairs[n] = pair
            n += 1
    return n


# the same, inlined into a loop over parents (a king's move changes the symmetries that fit)
pair_symmetries_inline = inline_kernel(pair_symmetries.py_func)


@inline_kernel
def canonical_with(desc, sq, t, syms, pairs, n):
    """``canonical``'s index of ``sq`` when its kings stand as when ``pair_symmetries`` gave
    ``syms``/``pairs`` (n of them)."""
    k = desc[0]
    best = np.int64(-1)
    for e in range(n):
        s = syms[e]
        for i in range(2, k):
            t[i] = SYM[s, sq[i]]
        sort_groups(desc, t)
        idx = index_of(desc, t, pairs[e])
        if best < 0 or idx < best:
            best = idx
    return best


@kernel
def slot_weights(desc, weight, lone):
    """Per slot: what a step of one square adds to the index (``weight``, the radices of the
    slots after it) and whether no identical piece shares its kind (``lone``: moving it never
    reorders a run of identical pieces)."""
    k = desc[0]
    w = np.int64(1)
    for i in range(k - 1, -1, -1):
        weight[i] = w
        w *= 48 if desc[2 + i] & 7 == PAWN else 64
        lone[i] = (i == 0 or desc[2 + i] != desc[1 + i]) and \
            (i == k - 1 or desc[2 + i] != desc[3 + i])


@kernel
def unrank(desc, idx, sq):
    """The placement of index ``idx`` into ``sq`` (int64[>= k])."""
    k = desc[0]
    for i in range(k - 1, 1, -1):
        if desc[2 + i] & 7 == PAWN:
            sq[i] = idx % 48 + 8
            idx //= 48
        else:
            sq[i] = idx % 64
            idx //= 64
    if desc[1]:
        sq[0] = PKPAIR_SQUARES[idx, 0]
        sq[1] = PKPAIR_SQUARES[idx, 1]
    else:
        sq[0] = KPAIR_SQUARES[idx, 0]
        sq[1] = KPAIR_SQUARES[idx, 1]


@kernel
def is_canonical(desc, idx, sq, t):
    """Whether index ``idx`` is a placement (pieces on distinct squares) and the canonical slot
    of its position; ``sq`` receives the placement."""
    k = desc[0]
    unrank(desc, idx, sq)
    for i in range(2, k):
        for j in range(i):
            if sq[i] == sq[j]:
                return False
        if i > 2 and desc[2 + i] == desc[1 + i] and sq[i] < sq[i - 1]:
            return False
    c, _ = canonical(desc, sq, t)
    return c == idx


@kernel
def orbit(desc, sq, t):
    """Distinct placements the symmetries make of the canonical placement ``sq`` (8 / fixed
    symmetries without pawns, 2 / fixed with them): the raw positions a slot stands for."""
    k = desc[0]
    nsym = 2 if desc[1] else 8
    fixed = 0
    for s in range(nsym):
        for i in range(k):
            t[i] = SYM[s, sq[i]]
        sort_groups(desc, t)
        same = True
        for i in range(k):
            if t[i] != sq[i]:
                same = False
                break
        if same:
            fixed += 1
    return nsym // fixed


@kernel
def set_board(desc, sq, board):
    """Clear ``board`` (int8[64]) and put the pieces of placement ``sq`` on it."""
    board[:] = 0
    for i in range(desc[0]):
        board[sq[i]] = desc[2 + i]


@kernel
def locate_many(desc, squares, sides, slots, syms):
    """Slots and symmetries of placements squares int64[n, k] (table slot order, pieces on
    distinct squares, kings apart), sides int8[n] (0: the first side to move)."""
    half = half_size(desc)
    t = np.empty(MAX_PIECES, np.int64)
    for r in range(squares.shape[0]):
        idx, s = canonical(desc, squares[r], t)
        slots[r] = sides[r] * half + idx
        syms[r] = s


@kernel
def unrank_many(desc, idx, out):
    """Placements of indices idx int64[n] into out int64[n, k]."""
    for r in range(idx.shape[0]):
        unrank(desc, idx[r], out[r])
