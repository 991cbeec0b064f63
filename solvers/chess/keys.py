"""Move order keys: a number per move that ascends in the move order, for the edge-free solve.

The edge-free solve records best moves on the way when ``parents`` gives each move with its
parent, keeping the smallest: that needs numbers that ascend in the move order (the best-move
rule's "first move"), which chess's codes (``from + 64 * to``) do not: the order is by
from-square, then the piece's directions (a pawn takes left before right, a rook goes up
before right), and no order of (from, to) pairs alone can follow it.  A key does:

    key = from << 13 | kind << 9 | rank << 3 | promotion

``kind`` the moving piece (``PAWN`` a white pawn, ``BLACK_PAWN`` a black one: they go opposite
ways; else the piece type), ``rank`` the target's place among every square that piece could
reach from ``from`` on an empty board, in the order the generator lists them (pawn: push,
double step, capture left, capture right; knight and king: their table; rook, bishop, queen:
direction by direction, nearest first), ``promotion`` 1-4 for queen, rook, bishop, knight (0
none).  From one square moves only one piece, and blockers only cut rays short, so keys
ascend in any position's move order.  A key is never 0 (``STALEMATE_MOVE``, which keys keep)
and turns back into its code without the position (``codes_of_keys``).
"""
import numpy as np

from tbdb.solvers.jit import inline_kernel, parallel_kernel, prange
from tbdb.solvers.chess.moves import BISHOP, KING, KING_TO, KNIGHT, KNIGHT_TO, PAWN, QUEEN, RAYS, \
    RAY_LEN, ROOK

BLACK_PAWN = 7  # a key's kind for a black pawn (piece types are 1-6)
PROMOTION_INDEX = np.array([0, 0, 4, 3, 2, 1, 0], np.int64)  # by type: the order Q, R, B, N
PROMOTION_TYPE = np.array([0, QUEEN, ROOK, BISHOP, KNIGHT, 0, 0, 0], np.int64)


def _build_ranks():
    """rank[kind, from, to] (-1: not a target) and target[kind, from, rank] (-1: none)."""
    rank = np.full((8, 64, 64), -1, np.int8)
    target = np.full((8, 64, 64), -1, np.int8)

    def put(kind, fr, tos):
        for r, to in enumerate(tos):
            if to is not None:
                rank[kind, fr, to] = r
                target[kind, fr, r] = to

    for fr in range(64):
        f = fr % 8
        for kind, step in ((PAWN, 8), (BLACK_PAWN, -8)):
            to = fr + step
            if 0 <= to < 64:
                double = to + step if 0 <= to + step < 64 else None
                put(kind, fr, [to, double, to - 1 if f > 0 else None,
                               to + 1 if f < 7 else None])
        put(KNIGHT, fr, [int(s) for s in KNIGHT_TO[fr] if s >= 0])
        put(KING, fr, [int(s) for s in KING_TO[fr] if s >= 0])
        for kind, d0, d1 in ((BISHOP, 4, 8), (ROOK, 0, 4), (QUEEN, 0, 8)):
            put(kind, fr, [int(RAYS[fr, d, j]) for d in range(d0, d1)
                           for j in range(RAY_LEN[fr, d])])
    return rank, target


RANK, TARGET = _build_ranks()


@inline_kernel
def key_kind(code, side):
    """The key's kind of a piece of ``code`` (a table's piece code) moving for ``side``."""
    t = code & 7
    return BLACK_PAWN if t == PAWN and side == 1 else t


@inline_kernel
def move_key(kind, fr, to, promotion):
    """The order key of a move from ``fr`` to ``to`` by a piece of key kind ``kind``
    (``promotion``: the piece type promoted to, 0 none)."""
    return np.int32((fr << 13) | (kind << 9) | (np.int64(RANK[kind, fr, to]) << 3)
                    | PROMOTION_INDEX[promotion])


@parallel_kernel
def codes_of_keys(moves):
    """Order keys (``moves`` int32, in place) back into move codes; 0 (the stalemate
    pseudo-move) and negative numbers (no move) stay."""
    for i in prange(moves.shape[0]):
        key = moves[i]
        if key > 0:
            fr = key >> 13
            to = np.int64(TARGET[(key >> 9) & 15, fr, (key >> 3) & 63])
            moves[i] = np.int32(fr + 64 * to + 4096 * PROMOTION_TYPE[key & 7])
