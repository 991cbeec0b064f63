"""Chinese Dark Chess index functions: placements of a material <-> indices, canonical under
the four board symmetries (board and piece codes: ``moves``).

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
"""
import numpy as np

from tbdb.solvers.jit import kernel, parallel_kernel, prange
from tbdb.solvers.cdc.moves import NSQ

DESC_LEN = 24


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


SYM = _symmetry_table()
PAIR_INDEX, PAIR_REPS = _pair_tables(SYM)
N_PAIR_REPS = len(PAIR_REPS)  # 136
DOMAIN_INDEX = np.array([(sq // 8) * 4 + sq % 8 if sq % 8 < 4 and sq // 8 < 2 else -1
                         for sq in range(NSQ)], np.int8)
DOMAIN_SQ = np.array([r * 8 + c for r in range(2) for c in range(4)], np.int8)
# The symmetry that brings a square into the domain (each is its own inverse).
TO_DOMAIN = np.array([(1 if sq % 8 > 3 else 0) + (2 if sq // 8 > 1 else 0) for sq in range(NSQ)],
                     np.int8)
BINOM = _binomials()


@kernel
def lead_radix(desc):
    """Values of the lead digit: 8 domain squares, or the 136 pair orbits."""
    return 8 if desc[1] == 0 else N_PAIR_REPS


@kernel
def table_size(desc):
    """Indices per side to move."""
    size = lead_radix(desc)
    occ = desc[4]
    for g in range(1, desc[2]):
        m = desc[4 + g]
        size *= BINOM[NSQ - occ, m]
        occ += m
    return size


@kernel
def index_of(sq, desc):
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


@kernel
def unrank(idx, desc, sq):
    """Inverse of ``index_of``: fill ``sq`` (slot order) from an index."""
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


@kernel
def canonical(sq, desc, tmp):
    """Canonical index of a placement and the symmetry that produces it (tmp: scratch, len>=k)."""
    k = desc[0]
    if desc[1] == 0:
        s = TO_DOMAIN[sq[0]]
        for j in range(k):
            tmp[j] = SYM[s, sq[j]]
        return index_of(tmp, desc), s
    best = np.int64(-1)
    best_sym = 0
    for s in range(4):
        for j in range(k):
            tmp[j] = SYM[s, sq[j]]
        idx = index_of(tmp, desc)
        if idx >= 0 and (best < 0 or idx < best):
            best = idx
            best_sym = s
    return best, best_sym


@kernel
def stabiliser(idx, desc, sq, tmp):
    """For a placement (slot order) with index idx: (is canonical, size of its stabiliser)."""
    k = desc[0]
    if desc[1] == 0:
        return True, 1
    is_canonical = True
    fixed = 0
    for s in range(4):
        for j in range(k):
            tmp[j] = SYM[s, sq[j]]
        other = index_of(tmp, desc)
        if other >= 0:
            if other < idx:
                is_canonical = False
            if other == idx:
                fixed += 1
    return is_canonical, fixed


@parallel_kernel
def unrank_many(desc, idx):
    """Squares (slot order) of many indices: int8[n, k]."""
    k = desc[0]
    out = np.empty((idx.shape[0], k), np.int8)
    nchunk = (idx.shape[0] + 4095) // 4096
    scratch = np.empty((nchunk, 16), np.int64)
    for ch in prange(nchunk):
        sq = scratch[ch]
        for i in range(ch * 4096, min(idx.shape[0], (ch + 1) * 4096)):
            unrank(idx[i], desc, sq)
            for j in range(k):
                out[i, j] = sq[j]
    return out
