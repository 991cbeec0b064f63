"""Exact canonical keys of Ultimate Tic-Tac-Toe positions: two int64 words, no hashing.

Board codes
-----------
Each small board is given a *code* (0 .. R - 1, R = 11,096):

    0 won by X, 1 won by O, 2 drawn (full, no line)           -- a closed board: status only
    3 .. R - 1  an open board: one of the 11,093 fillings of its nine cells with X, O or empty
                that hold no line of either side and at least one empty cell, numbered in
                increasing order of their base-3 value sum(3**c * v), v = 0 empty, 1 X, 2 O.

Key layout
----------
With c0 .. c8 the codes of boards 0 .. 8, ``side`` 0 (X) or 1 (O) and ``con`` the constraint
(0 .. 8, or 9 for any board)::

    word0 = (((c0 * R + c1) * R + c2) * R + c3) * 584 + c4 // 19
    word1 = (((((c4 % 19) * R + c5) * R + c6) * R + c7) * R + c8) * 20 + side * 10 + con

Both words are below 2**63 (word0 < 584 R**4 = 8.85e18, word1 < 19 R**4 * 20 = 5.76e18), so
they are non-negative int64.  The board code c4 is split between the words (19 * 584 >= R).

Why the encoding is injective
-----------------------------
1. A *reduced position* is the tuple (c0 .. c8, side, con).  Two positions whose reduced
   positions are equal have the same future (the same legal moves, the same reduced children,
   the same game end and score): a closed board is never played in again and counts only by its
   status, for the meta lines and for the CodinGame count of won boards.  Nothing else of a
   position matters, and every field that does is in the tuple.
2. (c0 .. c8, side, con) -> (word0, word1) is injective: it is a mixed-radix numeral.  Every
   digit is below its radix (ci < R; c4 // 19 < 584 and c4 % 19 < 19; side * 10 + con < 20),
   so ``divmod`` by the radices, in reverse order, recovers every digit (``decode`` does
   exactly this), and c4 = 19 * (c4 // 19) + c4 % 19.  A function with a left inverse is
   injective.
3. The canonical key of a position is the smallest (word0, word1), in lexicographic order, of
   the keys of its eight images under the symmetries of the square (each symmetry g permutes
   board indices, cell indices inside every open board, and the constraint, all by the same
   permutation of 0..8; closed statuses do not move).  The images form the orbit of the
   reduced position under the group D4.  If two reduced positions P and Q have the same
   canonical key k, then k = key(g P) = key(h Q) for some g, h, and by 2 g P = h Q, so
   Q = h^-1 g P: Q is a symmetric image of P.  Symmetric images have the same value (the
   rules are invariant under D4: lines map to lines).  So two positions share a key exactly
   when they are the same reduced position up to symmetry -- never otherwise.

The side to move must be in the key: once closed boards are reduced to their status, the mark
counts no longer tell whose turn it is.
"""
import numpy as np

from tbdb.solvers.jit import kernel, parallel_kernel, prange
from tbdb.solvers.uttt.moves import (FULL, HAS_LINE, NS, POPCOUNT, S_CLOSED, S_CON, S_EMPTY,
                                     S_SIDE, S_WON_O, S_WON_X)

CLOSED_X, CLOSED_O, DRAWN = 0, 1, 2
FIRST_OPEN = 3
C4_HI, C4_LO = 584, 19
ANY_CODE = 9


def _symmetries():
    """SYM[g, i]: the index (board or cell, 3 * row + column) that i moves to under symmetry
    g: identity, rotations by 90, 180, 270 degrees (clockwise), mirror left-right, mirror
    up-down, transpose, anti-transpose."""
    maps = (lambda r, c: (r, c), lambda r, c: (c, 2 - r), lambda r, c: (2 - r, 2 - c),
            lambda r, c: (2 - c, r), lambda r, c: (r, 2 - c), lambda r, c: (2 - r, c),
            lambda r, c: (c, r), lambda r, c: (2 - c, 2 - r))
    table = np.empty((8, 9), np.int8)
    for g, f in enumerate(maps):
        for i in range(9):
            r, c = f(*divmod(i, 3))
            table[g, i] = 3 * r + c
    return table


def _code_tables():
    """The open fillings and their codes (see the module docstring), computed with numpy."""
    bits = 1 << np.arange(9)
    powers = 3 ** np.arange(9)
    masks = np.arange(512)
    tern = (((masks[:, None] >> np.arange(9)) & 1) @ powers).astype(np.int32)
    digits = (np.arange(3 ** 9)[:, None] // powers) % 3
    xm = (digits == 1) @ bits
    om = (digits == 2) @ bits
    valid = ~HAS_LINE[xm] & ~HAS_LINE[om] & ((xm | om) != FULL)
    code_of_tern = np.full(3 ** 9, -1, np.int16)
    code_of_tern[valid] = FIRST_OPEN + np.arange(int(valid.sum()))
    open_x = np.concatenate([np.zeros(FIRST_OPEN, np.int64), xm[valid]]).astype(np.int16)
    open_o = np.concatenate([np.zeros(FIRST_OPEN, np.int64), om[valid]]).astype(np.int16)
    empties = (9 - POPCOUNT[open_x | open_o]).astype(np.int8)
    empties[:FIRST_OPEN] = 0
    return tern, code_of_tern, open_x, open_o, empties


def _permute_masks(masks, perm):
    """9-bit masks with bit c moved to bit perm[c]."""
    out = np.zeros_like(masks)
    for c in range(9):
        out |= ((masks >> c) & 1) << int(perm[c])
    return out


def _sym_code_table(sym, tern, code_of_tern, open_x, open_o):
    """SYM_CODE[g, code]: the code of board ``code`` with its cells moved by symmetry g."""
    table = np.empty((8, len(open_x)), np.int16)
    xm = open_x[FIRST_OPEN:].astype(np.int64)
    om = open_o[FIRST_OPEN:].astype(np.int64)
    for g in range(8):
        table[g, :FIRST_OPEN] = np.arange(FIRST_OPEN)
        table[g, FIRST_OPEN:] = code_of_tern[tern[_permute_masks(xm, sym[g])]
                                             + 2 * tern[_permute_masks(om, sym[g])]]
    return table


SYM = _symmetries()
INV_SYM = np.array([[int(np.where(SYM[g] == i)[0][0]) for i in range(9)] for g in range(8)],
                   np.int8)
INVERSE = np.array([next(h for h in range(8) if (SYM[h][SYM[g]] == np.arange(9)).all())
                    for g in range(8)], np.int8)  # INVERSE[g]: the symmetry undoing g
TERN, CODE_OF_TERN, OPEN_X, OPEN_O, CODE_EMPTIES = _code_tables()
R = len(OPEN_X)  # 11,096 board codes
SYM_CODE = _sym_code_table(SYM, TERN, CODE_OF_TERN, OPEN_X, OPEN_O)
assert C4_HI * C4_LO >= R and C4_HI * R ** 4 < 2 ** 63 and C4_LO * R ** 4 * 20 < 2 ** 63


# --------------------------------------------------------------------------- one position

@kernel
def board_code(st, b):
    closed = st[S_CLOSED]
    if (closed >> b) & 1:
        if (st[S_WON_X] >> b) & 1:
            return np.int16(CLOSED_X)
        if (st[S_WON_O] >> b) & 1:
            return np.int16(CLOSED_O)
        return np.int16(DRAWN)
    return CODE_OF_TERN[TERN[st[b]] + 2 * TERN[st[9 + b]]]


@kernel
def encode(codes, side, con):
    """(word0, word1) of board codes int16[9] in board order, side 0/1, con 0..8 or 9."""
    r = np.int64(R)
    c4 = np.int64(codes[4])
    w0 = np.int64(codes[0])
    w0 = w0 * r + codes[1]
    w0 = w0 * r + codes[2]
    w0 = w0 * r + codes[3]
    w0 = w0 * C4_HI + c4 // C4_LO
    w1 = c4 % C4_LO
    w1 = w1 * r + codes[5]
    w1 = w1 * r + codes[6]
    w1 = w1 * r + codes[7]
    w1 = w1 * r + codes[8]
    w1 = w1 * 20 + side * 10 + con
    return w0, w1


@kernel
def decode_codes(w0, w1, codes):
    """Board codes into codes int16[9]; returns (side, con) with con 0..8 or 9 (any)."""
    r = np.int64(R)
    sc = w1 % 20
    w1 //= 20
    for b in range(8, 4, -1):
        codes[b] = w1 % r
        w1 //= r
    lo = w1
    hi = w0 % C4_HI
    w0 //= C4_HI
    codes[4] = hi * C4_LO + lo
    for b in range(3, -1, -1):
        codes[b] = w0 % r
        w0 //= r
    return sc // 10, sc % 10


@kernel
def decode(w0, w1, st, codes):
    """Fill state st (int16[NS]) from a key; codes int16[9] is scratch."""
    side, con = decode_codes(w0, w1, codes)
    for i in range(NS):
        st[i] = 0
    for b in range(9):
        c = codes[b]
        if c < FIRST_OPEN:
            st[S_CLOSED] |= 1 << b
            if c == CLOSED_X:
                st[S_WON_X] |= 1 << b
            elif c == CLOSED_O:
                st[S_WON_O] |= 1 << b
        else:
            st[b] = OPEN_X[c]
            st[9 + b] = OPEN_O[c]
            st[S_EMPTY] += CODE_EMPTIES[c]
    st[S_SIDE] = side
    st[S_CON] = -1 if con == 9 else con


@kernel
def canonical_codes(codes, side, con):
    """(word0, word1, g): the canonical key of the reduced position (board codes int16[9],
    side, con 0..8 or -1) and the first symmetry g whose image has it.  Board i of image g is
    board INV_SYM[g, i] of the position with its cells moved; word0 is compared first and
    word1 is computed only when word0 does not already lose."""
    r = np.int64(R)
    best0 = np.int64(-1)
    best1 = np.int64(-1)
    best_g = 0
    for g in range(8):
        inv = INV_SYM[g]
        c4 = np.int64(SYM_CODE[g, codes[inv[4]]])
        w0 = np.int64(SYM_CODE[g, codes[inv[0]]])
        w0 = w0 * r + SYM_CODE[g, codes[inv[1]]]
        w0 = w0 * r + SYM_CODE[g, codes[inv[2]]]
        w0 = w0 * r + SYM_CODE[g, codes[inv[3]]]
        w0 = w0 * C4_HI + c4 // C4_LO
        if best0 >= 0 and w0 > best0:
            continue
        w1 = c4 % C4_LO
        w1 = w1 * r + SYM_CODE[g, codes[inv[5]]]
        w1 = w1 * r + SYM_CODE[g, codes[inv[6]]]
        w1 = w1 * r + SYM_CODE[g, codes[inv[7]]]
        w1 = w1 * r + SYM_CODE[g, codes[inv[8]]]
        w1 = w1 * 20 + side * 10 + (ANY_CODE if con < 0 else SYM[g, con])
        if best0 < 0 or w0 < best0 or w1 < best1:
            best0 = w0
            best1 = w1
            best_g = g
    return best0, best1, best_g


# Weights of image board position p (p != 4) in word0 / word1 (the key is linear in each code;
# the centre board is the centre in every image, so position 4 is only ever board 4).
WEIGHT0 = np.array([R ** 3 * C4_HI, R ** 2 * C4_HI, R * C4_HI, C4_HI, 0, 0, 0, 0, 0], np.int64)
WEIGHT1 = np.array([0, 0, 0, 0, 0, R ** 3 * 20, R ** 2 * 20, R * 20, 20], np.int64)
CENTRE_WEIGHT1 = np.int64(R ** 4 * 20)


@kernel
def image_words(codes, words):
    """words int64[8, 2]: for each symmetry g, the two words of the image's key without the
    side-and-constraint digit of word1 (a parent's images, for ``child_canonical``)."""
    r = np.int64(R)
    for g in range(8):
        inv = INV_SYM[g]
        c4 = np.int64(SYM_CODE[g, codes[4]])
        w0 = np.int64(SYM_CODE[g, codes[inv[0]]])
        w0 = w0 * r + SYM_CODE[g, codes[inv[1]]]
        w0 = w0 * r + SYM_CODE[g, codes[inv[2]]]
        w0 = w0 * r + SYM_CODE[g, codes[inv[3]]]
        words[g, 0] = w0 * C4_HI + c4 // C4_LO
        w1 = c4 % C4_LO
        w1 = w1 * r + SYM_CODE[g, codes[inv[5]]]
        w1 = w1 * r + SYM_CODE[g, codes[inv[6]]]
        w1 = w1 * r + SYM_CODE[g, codes[inv[7]]]
        w1 = w1 * r + SYM_CODE[g, codes[inv[8]]]
        words[g, 1] = w1 * 20


@kernel
def child_canonical(words, codes, b, new_code, side, con):
    """The canonical key (word0, word1) of a child that differs from its parent (board codes
    ``codes``, image words ``words`` from ``image_words``) only in board b, now ``new_code``,
    with side to move ``side`` and constraint ``con`` (-1 any): each image's words move by the
    change of one digit."""
    best0 = np.int64(-1)
    best1 = np.int64(-1)
    old = codes[b]
    for g in range(8):
        a = np.int64(SYM_CODE[g, new_code])
        z = np.int64(SYM_CODE[g, old])
        w0 = words[g, 0]
        w1 = words[g, 1]
        p = SYM[g, b]
        if p == 4:
            w0 += a // C4_LO - z // C4_LO
            w1 += (a % C4_LO - z % C4_LO) * CENTRE_WEIGHT1
        else:
            w0 += (a - z) * WEIGHT0[p]
            w1 += (a - z) * WEIGHT1[p]
        if best0 >= 0 and w0 > best0:
            continue
        w1 += side * 10 + (ANY_CODE if con < 0 else SYM[g, con])
        if best0 < 0 or w0 < best0 or w1 < best1:
            best0 = w0
            best1 = w1
    return best0, best1


@kernel
def canonical(st, codes):
    """(word0, word1, g) of a state (``canonical_codes``); codes is int16[9] scratch."""
    for b in range(9):
        codes[b] = board_code(st, b)
    return canonical_codes(codes, st[S_SIDE], st[S_CON])


@kernel
def _key_level(w0, w1, codes):
    """Empty cells in open boards of a key's position."""
    decode_codes(w0, w1, codes)
    n = 0
    for b in range(9):
        n += CODE_EMPTIES[codes[b]]
    return n


# --------------------------------------------------------------------------- batches

@parallel_kernel
def key_levels(keys, out):
    """out int16[n]: the level (empty cells in open boards) of keys int64[n, 2]."""
    n = keys.shape[0]
    nchunk = (n + 4095) // 4096
    scratch = np.empty((nchunk, 9), np.int16)
    for ch in prange(nchunk):
        for i in range(ch * 4096, min(n, (ch + 1) * 4096)):
            out[i] = _key_level(keys[i, 0], keys[i, 1], scratch[ch])


@parallel_kernel
def key_constraints(keys, out):
    """out int8[n]: the constraint (0..8, -1 any) of the canonical representative of each key."""
    for i in prange(keys.shape[0]):
        k = keys[i, 1] % 10
        out[i] = -1 if k == 9 else k


@parallel_kernel
def orbit_sizes(keys, out):
    """out int16[n]: how many distinct reduced positions each canonical key int64[n, 2] stands
    for (8 / the number of symmetries that fix its canonical representative)."""
    n = keys.shape[0]
    nchunk = (n + 1023) // 1024
    codes_s = np.empty((nchunk, 9), np.int16)
    words_s = np.empty((nchunk, 8, 2), np.int64)
    for ch in prange(nchunk):
        codes = codes_s[ch]
        words = words_s[ch]
        for i in range(ch * 1024, min(n, (ch + 1) * 1024)):
            side, con = decode_codes(keys[i, 0], keys[i, 1], codes)
            image_words(codes, words)
            fixed = 0
            for g in range(8):
                w1 = words[g, 1] + side * 10 + (ANY_CODE if con == 9 else SYM[g, con])
                if words[g, 0] == keys[i, 0] and w1 == keys[i, 1]:
                    fixed += 1
            out[i] = 8 // max(fixed, 1)
