"""Chess move generation over a 64-square mailbox: legal moves (en passant, every promotion; no
castling), make/unmake, attacks, perft.

Board: int8[64], a1 = 0, b1 = 1, .., h8 = 63; piece code ``colour * 8 + type`` with types
PAWN 1, KNIGHT 2, BISHOP 3, ROOK 4, QUEEN 5, KING 6 (white 1..6, black 9..14), 0 empty.
Side: 0 white, 1 black.  En passant square: the square a pawn skipped, or -1.

Move code (int32): ``from + 64 * to + 4096 * promotion`` (promotion: the piece type, 0 none).
A code never equals ``STALEMATE_MOVE`` (0: from a1 to a1), which the tables use for the one
pseudo-move of a stalemated position (a draw at distance 0).
Move order (the best-move rule's "first move"): by from-square ascending, then the piece's
directions in the fixed order below, promotions queen, rook, bishop, knight.
"""
import numpy as np

from tbdb.solvers.jit import kernel, nogil_kernel

PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING = 1, 2, 3, 4, 5, 6
BLACK_BIT = 8
EP_FLAG = 16  # in make_move's undo code: the capture was en passant
STALEMATE_MOVE = np.int32(0)
MAX_MOVES = 256  # more than any legal chess position has (218)


def _build_tables():
    knight = np.full((64, 8), -1, np.int8)
    king = np.full((64, 8), -1, np.int8)
    rays = np.full((64, 8, 7), -1, np.int8)
    ray_len = np.zeros((64, 8), np.int8)
    kd = [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)]
    # directions 0-3 straight (rook), 4-7 diagonal (bishop)
    dirs = [(0, 1), (1, 0), (0, -1), (-1, 0), (1, 1), (1, -1), (-1, -1), (-1, 1)]
    for sq in range(64):
        f, r = sq % 8, sq // 8
        n = 0
        for df, dr in kd:
            if 0 <= f + df < 8 and 0 <= r + dr < 8:
                knight[sq, n] = (r + dr) * 8 + f + df
                n += 1
        n = 0
        for df, dr in dirs:
            if 0 <= f + df < 8 and 0 <= r + dr < 8:
                king[sq, n] = (r + dr) * 8 + f + df
                n += 1
        for d, (df, dr) in enumerate(dirs):
            k = 0
            ff, rr = f + df, r + dr
            while 0 <= ff < 8 and 0 <= rr < 8:
                rays[sq, d, k] = rr * 8 + ff
                k += 1
                ff += df
                rr += dr
            ray_len[sq, d] = k
    return knight, king, rays, ray_len


KNIGHT_TO, KING_TO, RAYS, RAY_LEN = _build_tables()


@kernel
def is_attacked(board, sq, by):
    """Whether side ``by`` attacks square ``sq``."""
    base = by * BLACK_BIT
    for i in range(8):
        t = KNIGHT_TO[sq, i]
        if t < 0:
            break
        if board[t] == base + KNIGHT:
            return True
    for i in range(8):
        t = KING_TO[sq, i]
        if t < 0:
            break
        if board[t] == base + KING:
            return True
    for d in range(8):
        for k in range(RAY_LEN[sq, d]):
            t = RAYS[sq, d, k]
            c = board[t]
            if c == 0:
                continue
            if c == base + QUEEN or (d < 4 and c == base + ROOK) or \
                    (d >= 4 and c == base + BISHOP):
                return True
            break
    f = sq % 8
    # a white pawn attacks from one rank below, a black one from one rank above
    src = sq - 8 if by == 0 else sq + 8
    if 0 <= src < 64:
        if f > 0 and board[src - 1] == base + PAWN:
            return True
        if f < 7 and board[src + 1] == base + PAWN:
            return True
    return False


@kernel
def king_square(board, side):
    want = side * BLACK_BIT + KING
    for sq in range(64):
        if board[sq] == want:
            return sq
    return -1


@kernel
def in_check(board, side):
    k = king_square(board, side)
    return k >= 0 and is_attacked(board, k, 1 - side)


@kernel
def make_move(board, move, side):
    """Play ``move`` (pseudo-legal) for ``side``: (undo, en passant square it creates or -1);
    undo = the code of the piece it removed (0 none) + EP_FLAG if it captured en passant (the
    pawn beside the target square), what ``unmake_move`` needs."""
    fr = move & 63
    to = (move >> 6) & 63
    promo = move >> 12
    piece = board[fr]
    undo = board[to]
    new_ep = -1
    if piece & 7 == PAWN:
        if undo == 0 and (to - fr) % 8 != 0:  # diagonal onto an empty square: en passant
            victim = to - 8 if side == 0 else to + 8
            undo = board[victim] + EP_FLAG
            board[victim] = 0
        elif to - fr == 16 or fr - to == 16:
            new_ep = (fr + to) // 2
    board[to] = piece if promo == 0 else side * BLACK_BIT + promo
    board[fr] = 0
    return undo, new_ep


@kernel
def unmake_move(board, move, side, undo):
    fr = move & 63
    to = (move >> 6) & 63
    promo = move >> 12
    board[fr] = board[to] if promo == 0 else side * BLACK_BIT + PAWN
    if undo >= EP_FLAG:
        board[to] = 0
        board[to - 8 if side == 0 else to + 8] = undo - EP_FLAG
    else:
        board[to] = undo


@kernel
def _legal_after(board, side, m, king):
    """Whether pseudo-legal move ``m`` leaves ``side``'s king (on ``king`` after it) safe."""
    undo, _ = make_move(board, m, side)
    ok = not is_attacked(board, king, 1 - side)
    unmake_move(board, m, side, undo)
    return ok


@kernel
def _push(out, n, board, side, fr, to, promo_rank, king):
    """Append the pseudo-legal move fr->to if legal for ``side`` (its king on ``king`` after
    the move); returns the new count.  A pawn reaching the last rank appends its four
    promotions (queen, rook, bishop, knight), legal alike."""
    m = np.int32(fr + 64 * to)
    if not _legal_after(board, side, m, king):
        return n
    if promo_rank:
        for p in (QUEEN, ROOK, BISHOP, KNIGHT):
            out[n] = m + 4096 * p
            n += 1
        return n
    out[n] = m
    return n + 1


@kernel
def legal_moves(board, side, ep, out):
    """Every legal move of ``side`` (``ep``: the en passant square or -1) into ``out``
    (int32[>= MAX_MOVES]), in the module's move order; returns how many.  ``board`` is used as
    scratch and restored."""
    n = 0
    own = side * BLACK_BIT
    king = king_square(board, side)
    for fr in range(64):
        c = board[fr]
        if c == 0 or (c & BLACK_BIT) != own:
            continue
        t = c & 7
        if t == PAWN:
            step = 8 if side == 0 else -8
            to = fr + step
            last = (to // 8 == 7) if side == 0 else (to // 8 == 0)
            if board[to] == 0:
                n = _push(out, n, board, side, fr, to, last, king)
                start = (fr // 8 == 1) if side == 0 else (fr // 8 == 6)
                if start and board[to + step] == 0:
                    n = _push(out, n, board, side, fr, to + step, False, king)
            f = fr % 8
            for df in (-1, 1):
                if (df < 0 and f == 0) or (df > 0 and f == 7):
                    continue
                tc = to + df
                v = board[tc]
                if (v != 0 and (v & BLACK_BIT) != own) or (tc == ep and v == 0):
                    n = _push(out, n, board, side, fr, tc, last, king)
        elif t == KNIGHT or t == KING:
            for i in range(8):
                to = KNIGHT_TO[fr, i] if t == KNIGHT else KING_TO[fr, i]
                if to < 0:
                    break
                v = board[to]
                if v == 0 or (v & BLACK_BIT) != own:
                    n = _push(out, n, board, side, fr, to, False, to if t == KING else king)
        else:
            d0 = 4 if t == BISHOP else 0
            d1 = 4 if t == ROOK else 8
            for d in range(d0, d1):
                for k in range(RAY_LEN[fr, d]):
                    to = RAYS[fr, d, k]
                    v = board[to]
                    if v != 0 and (v & BLACK_BIT) == own:
                        break
                    n = _push(out, n, board, side, fr, to, False, king)
                    if v != 0:
                        break
    return n


@kernel
def legal_ep(board, side, ep):
    """``ep`` if ``side`` has a legal en passant capture onto it, else -1 (an en passant square
    that no legal capture uses is no right at all: FEN and the tables drop it)."""
    if ep < 0:
        return -1
    moves = np.empty(MAX_MOVES, np.int32)
    n = legal_moves(board, side, ep, moves)
    for i in range(n):
        m = moves[i]
        if (m >> 6) & 63 == ep and board[m & 63] & 7 == PAWN:
            return ep
    return -1


@nogil_kernel
def perft(board, side, ep, depth):
    """Leaves of the legal move tree ``depth`` plies deep (an explicit stack, no recursion)."""
    if depth == 0:
        return np.int64(1)
    b = board.copy()
    moves = np.empty((depth, MAX_MOVES), np.int32)
    count = np.zeros(depth, np.int32)
    at = np.zeros(depth, np.int32)
    caps = np.zeros(depth, np.int8)
    eps = np.full(depth + 1, -1, np.int32)
    eps[0] = ep
    count[0] = legal_moves(b, side, ep, moves[0])
    if depth == 1:
        return np.int64(count[0])
    total = np.int64(0)
    level = 0
    while level >= 0:
        s = (side + level) & 1
        if at[level] == count[level]:
            level -= 1
            if level >= 0:
                unmake_move(b, moves[level, at[level]], (side + level) & 1, caps[level])
                at[level] += 1
            continue
        m = moves[level, at[level]]
        caps[level], eps[level + 1] = make_move(b, m, s)
        if level + 2 == depth:
            total += legal_moves(b, 1 - s, eps[level + 1], moves[level + 1])
            unmake_move(b, m, s, caps[level])
            at[level] += 1
        else:
            level += 1
            count[level] = legal_moves(b, 1 - s, eps[level], moves[level])
            at[level] = 0
    return total
