"""Shogi move generation on a mailbox board: legal moves of any position, make/unmake, perft.

Squares: ``sq = (file - 1) * 9 + rank`` with file 1..9 and rank 0..8 for USI ranks a..i, so
USI ``7g`` is square 60 and ``1a`` is 0.  Black (sente, upper case, moves first) plays towards
rank a; white (gote) towards rank i.

Board: int8[81] of piece codes, 0 empty, ``colour * 16 + type`` with colour 0 black, 1 white and
type 1 P, 2 L, 3 N, 4 S, 5 B, 6 R, 7 G, 8 K, 9 +P, 10 +L, 11 +N, 12 +S, 13 +B, 14 +R (a
promotable type plus 8 is its promoted form).  Hands: int8[2, 8], hands[colour, type] for
types 1..7 (index 0 unused).

Move codes (int32 >= 0): ``to | from << 7 | promote << 14``; a drop has ``from = 80 + type``
(81..87).  Codes are below 32768.

Legality: a move may not leave the mover's king attacked (so kings are never adjacent); a piece
may not stand where it could never move again (pawn, lance on the last rank, knight on the last
two); no two unpromoted pawns of one side on a file; a pawn drop may not mate.
"""
import numpy as np

from tbdb.solvers.jit import kernel, inline_kernel, nogil_kernel

NSQ = 81
PAWN, LANCE, KNIGHT, SILVER, BISHOP, ROOK, GOLD, KING = 1, 2, 3, 4, 5, 6, 7, 8
PROMOTED = 8  # type + PROMOTED is the promoted type of a promotable type (1..6)
DROP_BASE = 80  # a drop's "from" field is DROP_BASE + type
PROMOTE_FLAG = 1 << 14
MAX_MOVES = 600  # the most legal moves of any shogi position is 593

# Directions (file step, rank step) as black sees them: 0 is forward (towards rank a).
DIRS = ((0, -1), (1, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1))


def _tables():
    """NEIGH[sq, d]: the square one step in direction d (-1 off the board);
    KNIGHT_TO[colour, sq, k]: a knight's two targets (-1 off the board);
    LINE_DIR[a, b]: the direction from a to b if they share a line (any distance), else -1;
    STEP_MASK/SLIDE_MASK[colour, type]: bit d set if the type steps/slides in direction d
    (white's directions are black's turned by 180 degrees)."""
    neigh = np.full((NSQ, 8), -1, np.int16)
    knight = np.full((2, NSQ, 2), -1, np.int16)
    line = np.full((NSQ, NSQ), -1, np.int8)
    for sq in range(NSQ):
        f, r = divmod(sq, 9)
        for d, (df, dr) in enumerate(DIRS):
            if 0 <= f + df < 9 and 0 <= r + dr < 9:
                neigh[sq, d] = (f + df) * 9 + r + dr
            ff, rr = f + df, r + dr
            while 0 <= ff < 9 and 0 <= rr < 9:
                line[sq, ff * 9 + rr] = d
                ff += df
                rr += dr
        for c, dr in ((0, -2), (1, 2)):
            for k, df in enumerate((-1, 1)):
                if 0 <= f + df < 9 and 0 <= r + dr < 9:
                    knight[c, sq, k] = (f + df) * 9 + r + dr
    steps = {PAWN: (0,), SILVER: (0, 1, 7, 3, 5), GOLD: (0, 1, 7, 2, 6, 4),
             KING: tuple(range(8)), BISHOP + PROMOTED: (0, 2, 4, 6),
             ROOK + PROMOTED: (1, 3, 5, 7)}
    for t in (PAWN, LANCE, KNIGHT, SILVER):
        steps[t + PROMOTED] = steps[GOLD]
    slides = {LANCE: (0,), BISHOP: (1, 3, 5, 7), ROOK: (0, 2, 4, 6),
              BISHOP + PROMOTED: (1, 3, 5, 7), ROOK + PROMOTED: (0, 2, 4, 6)}
    step_mask = np.zeros((2, 16), np.int32)
    slide_mask = np.zeros((2, 16), np.int32)
    for c in range(2):
        for t in range(1, 15):
            for d in steps.get(t, ()):
                step_mask[c, t] |= 1 << ((d + 4 * c) % 8)
            for d in slides.get(t, ()):
                slide_mask[c, t] |= 1 << ((d + 4 * c) % 8)
    return neigh, knight, line, step_mask, slide_mask


NEIGH, KNIGHT_TO, LINE_DIR, STEP_MASK, SLIDE_MASK = _tables()


# --------------------------------------------------------------------------- small rules

@inline_kernel
def in_zone(colour, sq):
    r = sq % 9
    return r <= 2 if colour == 0 else r >= 6


@inline_kernel
def dead(colour, ptype, sq):
    """Whether an unpromoted ``ptype`` of ``colour`` could never move again from ``sq``."""
    r = sq % 9 if colour == 0 else 8 - sq % 9
    if ptype == PAWN or ptype == LANCE:
        return r == 0
    if ptype == KNIGHT:
        return r <= 1
    return False


@kernel
def attacked(board, sq, by):
    """Whether a piece of colour ``by`` attacks square ``sq`` (looking outwards from sq)."""
    for d in range(8):
        back = (d + 4) & 7  # an attacker in direction d moves in direction back
        t = NEIGH[sq, d]
        if t < 0:
            continue
        p = board[t]
        if p != 0:
            if (p >> 4) == by and ((STEP_MASK[by, p & 15] | SLIDE_MASK[by, p & 15]) >> back) & 1:
                return True
            continue
        t = NEIGH[t, d]
        while t >= 0:
            p = board[t]
            if p != 0:
                if (p >> 4) == by and (SLIDE_MASK[by, p & 15] >> back) & 1:
                    return True
                break
            t = NEIGH[t, d]
    knight = KNIGHT + 16 * by
    for k in range(2):
        t = KNIGHT_TO[1 - by, sq, k]  # a knight of `by` there jumps to sq
        if t >= 0 and board[t] == knight:
            return True
    return False


@kernel
def _has_pawn_on_file(board, colour, f):
    pawn = PAWN + 16 * colour
    for sq in range(f * 9, f * 9 + 9):
        if board[sq] == pawn:
            return True
    return False


@kernel
def nifu(board, colour, sq):
    """Whether ``colour`` has an unpromoted pawn on the file of ``sq`` other than at ``sq``."""
    pawn = PAWN + 16 * colour
    f = sq // 9
    for t in range(f * 9, f * 9 + 9):
        if t != sq and board[t] == pawn:
            return True
    return False


# --------------------------------------------------------------------------- make / unmake

@kernel
def do_move(board, hands, colour, code):
    """Play ``code`` for ``colour``; returns the captured piece code (0 if none)."""
    to = code & 127
    frm = (code >> 7) & 127
    if frm > DROP_BASE:
        t = frm - DROP_BASE
        board[to] = t + 16 * colour
        hands[colour, t] -= 1
        return 0
    captured = board[to]
    if captured != 0:
        t = captured & 15
        if t > KING:
            t -= PROMOTED
        hands[colour, t] += 1
    p = board[frm]
    if code & PROMOTE_FLAG:
        p += PROMOTED
    board[to] = p
    board[frm] = 0
    return captured


@kernel
def _undo_move(board, hands, colour, code, captured):
    to = code & 127
    frm = (code >> 7) & 127
    if frm > DROP_BASE:
        board[to] = 0
        hands[colour, frm - DROP_BASE] += 1
        return
    p = board[to]
    if code & PROMOTE_FLAG:
        p -= PROMOTED
    board[frm] = p
    board[to] = captured
    if captured != 0:
        t = captured & 15
        if t > KING:
            t -= PROMOTED
        hands[colour, t] -= 1


# --------------------------------------------------------------------------- generation

@inline_kernel
def _emit(out, n, frm, to, ptype, colour):
    """Append the move(s) of a ``ptype`` from ``frm`` to ``to``: promoted first where it may
    promote, unpromoted unless promotion is forced."""
    code = to | (frm << 7)
    if ptype <= ROOK and (in_zone(colour, frm) or in_zone(colour, to)):
        out[n] = code | PROMOTE_FLAG
        n += 1
        if dead(colour, ptype, to):
            return n
    out[n] = code
    return n + 1


@kernel
def _pseudo_from(board, colour, frm, out, n):
    """Append every pseudo-legal board move of the piece on ``frm`` (own king safety not
    checked)."""
    p = board[frm]
    t = p & 15
    steps = STEP_MASK[colour, t]
    slides = SLIDE_MASK[colour, t]
    for d in range(8):
        if (steps >> d) & 1:
            to = NEIGH[frm, d]
            if to >= 0 and (board[to] == 0 or (board[to] >> 4) != colour):
                n = _emit(out, n, frm, to, t, colour)
        elif (slides >> d) & 1:
            to = NEIGH[frm, d]
            while to >= 0:
                q = board[to]
                if q != 0:
                    if (q >> 4) != colour:
                        n = _emit(out, n, frm, to, t, colour)
                    break
                n = _emit(out, n, frm, to, t, colour)
                to = NEIGH[to, d]
    if t == KNIGHT:
        for k in range(2):
            to = KNIGHT_TO[colour, frm, k]
            if to >= 0 and (board[to] == 0 or (board[to] >> 4) != colour):
                n = _emit(out, n, frm, to, t, colour)
    return n


@kernel
def can_escape_pawn_check(board, hands, colour, ksq, buf):
    """After a pawn drop checking ``colour``'s king on ``ksq``: has ``colour`` a legal board
    move?  (Drops never answer a pawn's check: it is adjacent.)  ``buf``: int32 scratch of at
    least MAX_MOVES."""
    for frm in range(NSQ):
        p = board[frm]
        if p == 0 or (p >> 4) != colour:
            continue
        n = _pseudo_from(board, colour, frm, buf, 0)
        for e in range(n):
            code = buf[e]
            cap = do_move(board, hands, colour, code)
            k = (code & 127) if frm == ksq else ksq
            safe = not attacked(board, k, 1 - colour)
            _undo_move(board, hands, colour, code, cap)
            if safe:
                return True
    return False


@kernel
def _mark_attacks(board, frm, colour, amap, stamp):
    """Set amap[sq] = stamp on every square the piece on ``frm`` (of ``colour``) attacks,
    including the first occupied square of each slide."""
    t = board[frm] & 15
    steps = STEP_MASK[colour, t]
    slides = SLIDE_MASK[colour, t]
    for d in range(8):
        if (steps >> d) & 1:
            to = NEIGH[frm, d]
            if to >= 0:
                amap[to] = stamp
        elif (slides >> d) & 1:
            to = NEIGH[frm, d]
            while to >= 0:
                amap[to] = stamp
                if board[to] != 0:
                    break
                to = NEIGH[to, d]
    if t == KNIGHT:
        for k in range(2):
            to = KNIGHT_TO[colour, frm, k]
            if to >= 0:
                amap[to] = stamp


@kernel
def gen_legal(board, hands, colour, ksq, eksq, origins, norigins, eorigins, neorigins, amap,
               out, buf):
    """Every legal move of ``colour`` into ``out`` (int32[MAX_MOVES]); returns the count.

    ``origins[:norigins]``: the squares of colour's pieces on the board (any order; the move
    order follows it), ``eorigins[:neorigins]`` the opponent's; ``ksq``/``eksq``: the mover's
    and the opponent's king squares; ``amap``: int32[82] scratch, zero at first, whose last
    entry counts calls (squares attacked by the opponent are marked with that count);
    ``buf``: int32 scratch of MAX_MOVES for the pawn-drop-mate test.  Order: board moves by
    origin, then drops by type (P L N S B R G) and square.
    """
    enemy = 1 - colour
    stamp = amap[NSQ] + 1
    amap[NSQ] = stamp
    board[ksq] = 0  # the king does not shield the squares behind it from a slider
    for i in range(neorigins):
        _mark_attacks(board, eorigins[i], enemy, amap, stamp)
    board[ksq] = KING + 16 * colour
    in_check = amap[ksq] == stamp
    n = 0
    for i in range(norigins):
        frm = origins[i]
        start = n
        n = _pseudo_from(board, colour, frm, out, n)
        if frm == ksq:
            m = start
            for e in range(start, n):
                if amap[out[e] & 127] != stamp:
                    out[m] = out[e]
                    m += 1
            n = m
            continue
        if in_check:
            m = start
            for e in range(start, n):
                code = out[e]
                cap = do_move(board, hands, colour, code)
                ok = not attacked(board, ksq, enemy)
                _undo_move(board, hands, colour, code, cap)
                if ok:
                    out[m] = code
                    m += 1
            n = m
            continue
        # not in check, not the king: only a pinned piece can be illegal; it must stay on
        # the line between the king and its pinner
        pin = LINE_DIR[ksq, frm]
        if pin < 0:
            continue
        t = NEIGH[frm, pin]
        blocked = False
        s = NEIGH[ksq, pin]
        while s != frm:
            if board[s] != 0:
                blocked = True
                break
            s = NEIGH[s, pin]
        if blocked:
            continue
        while t >= 0 and board[t] == 0:
            t = NEIGH[t, pin]
        if t < 0:
            continue
        q = board[t]
        if (q >> 4) != enemy or not (SLIDE_MASK[enemy, q & 15] >> ((pin + 4) & 7)) & 1:
            continue
        m = start
        for e in range(start, n):
            if LINE_DIR[ksq, out[e] & 127] == pin:
                out[m] = out[e]
                m += 1
        n = m
    # drops
    for t in range(1, 8):
        if hands[colour, t] == 0:
            continue
        frm = DROP_BASE + t
        for f in range(9):
            if t == PAWN and _has_pawn_on_file(board, colour, f):
                continue
            for to in range(f * 9, f * 9 + 9):
                if board[to] != 0 or dead(colour, t, to):
                    continue
                code = to | (frm << 7)
                if in_check:
                    if LINE_DIR[ksq, to] < 0:
                        continue  # cannot block anything
                    board[to] = t + 16 * colour
                    ok = not attacked(board, ksq, enemy)
                    board[to] = 0
                    if not ok:
                        continue
                if t == PAWN and NEIGH[to, 0 if colour == 0 else 4] == eksq:
                    board[to] = PAWN + 16 * colour
                    escapes = can_escape_pawn_check(board, hands, enemy, eksq, buf)
                    board[to] = 0
                    if not escapes:
                        continue  # uchifuzume
                out[n] = code
                n += 1
    return n


@kernel
def _origins_of(board, colour, origins):
    """Squares of ``colour``'s pieces (ascending) into ``origins`` and its king square:
    (count, king)."""
    n = 0
    k = -1
    for sq in range(NSQ):
        p = board[sq]
        if p != 0 and (p >> 4) == colour:
            origins[n] = sq
            n += 1
            if (p & 15) == KING:
                k = sq
    return n, k


@kernel
def legal_moves(board, hands, colour, out):
    """Legal moves of any position with both kings (board order, then drops)."""
    origins = np.empty(NSQ, np.int16)
    eorigins = np.empty(NSQ, np.int16)
    amap = np.zeros(NSQ + 1, np.int32)
    buf = np.empty(MAX_MOVES, np.int32)
    n, k = _origins_of(board, colour, origins)
    ne, ek = _origins_of(board, 1 - colour, eorigins)
    return gen_legal(board, hands, colour, k, ek, origins, n, eorigins, ne, amap, out, buf)


# nogil: a deep perft runs for minutes; `tbdb perft` waits for it on another thread and
# stays interruptible (tbdb/command.py in_worker)
@nogil_kernel
def perft(board, hands, colour, depth):
    """Leaf count of the move tree ``depth`` plies deep (iterative; bulk-counts the last ply)."""
    if depth <= 0:
        return np.int64(1)
    moves = np.empty((depth, MAX_MOVES), np.int32)
    count = np.zeros(depth, np.int64)
    at = np.zeros(depth, np.int64)
    captured = np.zeros(depth, np.int8)
    origins = np.empty(NSQ, np.int16)
    eorigins = np.empty(NSQ, np.int16)
    amap = np.zeros(NSQ + 1, np.int32)
    buf = np.empty(MAX_MOVES, np.int32)
    total = np.int64(0)
    ply = 0
    side = colour
    no, k = _origins_of(board, side, origins)
    ne, ek = _origins_of(board, 1 - side, eorigins)
    count[0] = gen_legal(board, hands, side, k, ek, origins, no, eorigins, ne, amap, moves[0],
                          buf)
    at[0] = 0
    while ply >= 0:
        if ply == depth - 1:
            total += count[ply]
            at[ply] = count[ply]
        if at[ply] >= count[ply]:
            ply -= 1
            if ply >= 0:
                side = 1 - side
                _undo_move(board, hands, side, moves[ply, at[ply]], captured[ply])
                at[ply] += 1
            continue
        captured[ply] = do_move(board, hands, side, moves[ply, at[ply]])
        side = 1 - side
        ply += 1
        no, k = _origins_of(board, side, origins)
        ne, ek = _origins_of(board, 1 - side, eorigins)
        count[ply] = gen_legal(board, hands, side, k, ek, origins, no, eorigins, ne, amap,
                                moves[ply], buf)
        at[ply] = 0
    return total


@kernel
def after_moves(board, hands, colour, codes, boards, hands_out):
    """The position after each move: board int8[81], hands int8[2, 8], codes int32[n] (legal
    moves of ``colour``) -> boards int8[n, 81], hands_out int8[n, 2, 8]."""
    for i in range(len(codes)):
        boards[i] = board
        hands_out[i] = hands
        do_move(boards[i], hands_out[i], colour, codes[i])
