"""Ultimate Tic-Tac-Toe level tables: ``expand`` for the level-by-level engine, and the legal
positions with at most K empty cells in open boards.

Keys are the exact canonical keys of ``keys`` (int64[n, 2]); the level of a key
is the number of empty cells in its open boards, and every move lowers it (by one, or by more
when the move closes a board that still had empty cells).

Legal positions (for the exhaustive tables)
-------------------------------------------
A key stands for a *reduced* position: open boards cell by cell, closed boards by status alone
(X won, O won, drawn), the side to move s and the constraint t.  It is **legal** when it is the
empty board with X to move and any board, or when some last move m = (board b, cell c) by the
other side L fits it:

(a) constraint: t = c if board c is open, and t = any if board c is closed;
(b) the move is there: if board b is open, L has a mark in its cell c; if board b is closed,
    the move closed it, so b is won by L or drawn;
(c) the game was not over before m: s has no three won boards in a row, and L has none unless
    b is won by L and lies on every one of L's lines (m made them) -- if b is open, nobody has
    a line;
(d) the marks can be counted: some filling of each closed board that a game can close with its
    status (X won: an X line, no O line, and an X mark whose removal leaves no line; O won
    alike; drawn: full without a line), with board b's filling having L's mark in cell c
    removable as in (b) when b is closed, gives #X - #O = 0 with X to move, 1 with O to move.

These are necessary: every position a game reaches satisfies them (its actual last move and
its actual board fillings are witnesses), and each child of a legal position is legal (the
move just played is its witness for (a)-(c); the parent's fillings plus the new mark for (d)).
The conditions look one move back; the forced routing of earlier moves (each move sends the
opponent to a board) is not checked.  The fillings in (d) have these differences #X - #O
(computed from all 3**9 fillings by ``_closing_diffs``): X won -3..7, O won -7..3, drawn -1 or
+1; closed by a last move in an edge cell (1, 3, 5, 7): X won -1..6, O won -6..1.
"""
import numpy as np

from tbdb.solvers.jit import kernel, parallel_kernel, prange
from tbdb.solvers.uttt.keys import (CODE_EMPTIES, FIRST_OPEN, OPEN_O, OPEN_X, board_code,
                                    canonical_codes, child_canonical, decode, encode,
                                    image_words)
from tbdb.solvers.uttt.moves import (FULL, HAS_LINE, MAX_MOVES, NS, POPCOUNT, S_CON, S_SIDE,
                                     game_over, legal_moves, play, terminal_value)

NOT_OVER = np.int8(2)


def _closing_diffs():
    """LAST_LO/HI/STEP[status, L, c]: the differences #X - #O of a board closed with ``status``
    (0 X won, 1 O won, 2 drawn) by a move of L (0 X, 1 O) in cell c.  STEP 1: every integer of
    lo..hi; 2: lo, lo + 2, .., hi; -1: impossible.  CLOSED_*[status]: the same over all last
    moves."""
    powers = 3 ** np.arange(9)
    digits = (np.arange(3 ** 9)[:, None] // powers) % 3
    bits = 1 << np.arange(9)
    xm = (digits == 1) @ bits
    om = (digits == 2) @ bits
    diff = POPCOUNT[xm].astype(np.int64) - POPCOUNT[om]
    hx, ho = HAS_LINE[xm], HAS_LINE[om]
    status = np.where(hx & ~ho, 0, np.where(ho & ~hx, 1,
                                            np.where(~hx & ~ho & ((xm | om) == FULL), 2, -1)))
    lo = np.zeros((3, 2, 9), np.int8)
    hi = np.zeros((3, 2, 9), np.int8)
    step = np.full((3, 2, 9), -1, np.int8)
    closed = [set() for _ in range(3)]
    for side, (mine, theirs) in enumerate(((xm, om), (om, xm))):
        for c in range(9):
            ok = ((mine >> c) & 1).astype(bool) & ~HAS_LINE[mine & ~(1 << c)] & ~HAS_LINE[theirs]
            for s in range(3):
                values = sorted(set(diff[ok & (status == s)].tolist()))
                if not values:
                    continue
                closed[s].update(values)
                lo[s, side, c], hi[s, side, c] = values[0], values[-1]
                step[s, side, c] = _step_of(values)
    clo = np.array([min(v) for v in closed], np.int8)
    chi = np.array([max(v) for v in closed], np.int8)
    cstep = np.array([_step_of(sorted(v)) for v in closed], np.int8)
    return lo, hi, step, clo, chi, cstep


def _step_of(values):
    if values == list(range(values[0], values[-1] + 1)) and len(values) > 1:
        return 1
    if values == list(range(values[0], values[-1] + 1, 2)):
        return 2 if len(values) > 1 else 0
    raise AssertionError(f"differences {values} are neither an interval nor one parity")


LAST_LO, LAST_HI, LAST_STEP, CLOSED_LO, CLOSED_HI, CLOSED_STEP = _closing_diffs()


# --------------------------------------------------------------------------- expand

@parallel_kernel
def expand(keys, scoring, terminal, count, child, move):
    """For keys int64[k, 2]: terminal int8[k] (the value for the side to move of a finished
    game, else NOT_OVER), count int16[k], child int64[k, W, 2] (canonical keys of the
    positions after each legal move) and move int32[k, W] (move codes 9 * board + cell on the
    key's canonical position, ascending).  W must be at least the largest level."""
    k = keys.shape[0]
    nchunk = (k + 255) // 256
    states = np.empty((nchunk, 2, NS), np.int16)
    codes = np.empty((nchunk, 9), np.int16)
    words = np.empty((nchunk, 8, 2), np.int64)
    buf = np.empty((nchunk, MAX_MOVES), np.int16)
    for ch in prange(nchunk):
        st = states[ch, 0]
        nxt = states[ch, 1]
        mv = buf[ch]
        parent = codes[ch]
        images = words[ch]
        for i in range(ch * 256, min(k, (ch + 1) * 256)):
            decode(keys[i, 0], keys[i, 1], st, parent)
            if game_over(st):
                terminal[i] = terminal_value(st, scoring)
                count[i] = 0
                continue
            terminal[i] = NOT_OVER
            n = legal_moves(st, mv)
            image_words(parent, images)
            for e in range(n):
                b = mv[e] // 9
                nxt[:] = st
                play(nxt, b, mv[e] % 9)
                w0, w1 = child_canonical(images, parent, b, board_code(nxt, b), nxt[S_SIDE],
                                          nxt[S_CON])
                child[i, e, 0] = w0
                child[i, e, 1] = w1
                move[i, e] = mv[e]
            count[i] = n


# --------------------------------------------------------------------------- legality

@kernel
def _in_sum(target, lo, hi, dense):
    """target is a sum of one difference per closed board (total range lo..hi; ``dense``: some
    board's set holds consecutive integers, so every integer in range is a sum; otherwise only
    those of lo's parity)."""
    if target < lo or target > hi:
        return False
    return dense or (target - lo) % 2 == 0


@kernel
def _con_fits(con, closed, c):
    """A move in cell c leaves constraint ``con`` (-1 any) when boards ``closed`` are closed."""
    if (closed >> c) & 1:
        return con < 0
    return con == c


@kernel
def legal(codes, side, con):
    """Is the reduced position (board codes int16[9], side 0/1, con 0..8 or -1) legal, as the
    module docstring defines it."""
    closed = 0
    won_x = 0
    won_o = 0
    open_diff = 0
    marks = 0
    lo = 0
    hi = 0
    dense = 0
    for b in range(9):
        c = codes[b]
        if c < FIRST_OPEN:
            closed |= 1 << b
            if c == 0:
                won_x |= 1 << b
            elif c == 1:
                won_o |= 1 << b
            lo += CLOSED_LO[c]
            hi += CLOSED_HI[c]
            if CLOSED_STEP[c] == 1:
                dense += 1
        else:
            open_diff += POPCOUNT[OPEN_X[c]] - POPCOUNT[OPEN_O[c]]
            marks += POPCOUNT[OPEN_X[c] | OPEN_O[c]]
    if closed == 0 and marks == 0:
        return side == 0 and con < 0
    if con >= 0 and (closed >> con) & 1:
        return False
    mover = won_x if side == 0 else won_o
    theirs = won_o if side == 0 else won_x
    if HAS_LINE[mover]:
        return False
    last = 1 - side
    lines = HAS_LINE[theirs]
    target = side - open_diff
    for b in range(9):
        s = codes[b]
        if s >= FIRST_OPEN:
            if lines or not _in_sum(target, lo, hi, dense > 0):
                continue
            mine = OPEN_X[s] if last == 0 else OPEN_O[s]
            for c in range(9):
                if (mine >> c) & 1 and _con_fits(con, closed, c):
                    return True
            continue
        if s != last and s != 2:
            continue
        if lines and (s != last or HAS_LINE[theirs & ~(1 << b)]):
            continue
        rest_lo = lo - CLOSED_LO[s]
        rest_hi = hi - CLOSED_HI[s]
        rest_dense = dense - (1 if CLOSED_STEP[s] == 1 else 0)
        for c in range(9):
            if LAST_STEP[s, last, c] < 0 or not _con_fits(con, closed, c):
                continue
            if _in_sum(target, rest_lo + LAST_LO[s, last, c], rest_hi + LAST_HI[s, last, c],
                       rest_dense > 0 or LAST_STEP[s, last, c] == 1):
                return True
    return False


# --------------------------------------------------------------------------- enumeration

def alphabet():
    """Board codes ordered by their empty cells (closed boards first, 0 empties), and
    UPTO[e]: how many codes have at most e empty cells."""
    order = np.argsort(CODE_EMPTIES, kind="stable").astype(np.int16)
    upto = np.searchsorted(CODE_EMPTIES[order], np.arange(10), side="right").astype(np.int64)
    return order, upto


ALPHA, UPTO = alphabet()


@kernel
def _emit(codes, fill, out, at):
    """For one assignment of board codes: every constraint and side whose position is legal and
    whose own key is its canonical key (so each orbit is counted once).  Writes keys into
    out[at..] when ``fill``; returns how many."""
    n = 0
    closed = 0
    for b in range(9):
        if codes[b] < FIRST_OPEN:
            closed |= 1 << b
    for con in range(-1, 9):
        if con >= 0 and (closed >> con) & 1:
            continue
        own0, own1 = encode(codes, 0, 9 if con < 0 else con)
        w0, w1, _ = canonical_codes(codes, 0, con)
        if w0 != own0 or w1 != own1:
            continue
        for side in range(2):
            if legal(codes, side, con):
                if fill:
                    out[at + n, 0] = own0
                    out[at + n, 1] = own1 + side * 10
                n += 1
    return n


@kernel
def _walk(budget, fill, out, at, codes, scratch):
    """Every assignment of codes to boards 2..8 (boards 0 and 1 already in ``codes``) with at
    most ``budget`` empty cells in all; returns the keys emitted (written from out[at] on when
    ``fill``).  scratch int64[2, 9] holds the odometer."""
    pos = scratch[0]
    left = scratch[1]
    n = 0
    b = 2
    pos[2] = -1
    left[2] = budget
    while b >= 2:
        pos[b] += 1
        if pos[b] >= UPTO[min(left[b], 9)]:
            b -= 1
            continue
        codes[b] = ALPHA[pos[b]]
        if b == 8:
            n += _emit(codes, fill, out, at + n)
        else:
            left[b + 1] = left[b] - CODE_EMPTIES[codes[b]]
            b += 1
            pos[b] = -1
    return n


@parallel_kernel
def legal_keys_pass(pairs, budget, counts, out, fill):
    """Keys of every legal canonical position whose level is at most ``budget``.  ``pairs``
    int16[t, 2]: the codes of boards 0 and 1 of each task.  First call with fill=False to get
    counts int64[t]; then with fill=True and out int64[counts.sum(), 2], written from the
    cumulative counts."""
    t = pairs.shape[0]
    codes = np.empty((t, 9), np.int16)
    scratch = np.empty((t, 2, 9), np.int64)
    starts = np.zeros(t, np.int64)
    if fill:
        for i in range(1, t):
            starts[i] = starts[i - 1] + counts[i - 1]
    for i in prange(t):
        codes[i, 0] = pairs[i, 0]
        codes[i, 1] = pairs[i, 1]
        left = budget - CODE_EMPTIES[pairs[i, 0]] - CODE_EMPTIES[pairs[i, 1]]
        n = _walk(left, fill, out, starts[i], codes[i], scratch[i])
        if not fill:
            counts[i] = n


def legal_keys(max_empties: int) -> np.ndarray:
    """Canonical keys int64[n, 2] of every legal position with at most ``max_empties`` empty
    cells in open boards, unsorted."""
    firsts = ALPHA[:UPTO[max_empties]]
    pairs = np.array([(a, b) for a in firsts for b in firsts
                      if CODE_EMPTIES[a] + CODE_EMPTIES[b] <= max_empties], np.int16)
    counts = np.zeros(len(pairs), np.int64)
    out = np.empty((0, 2), np.int64)
    legal_keys_pass(pairs, max_empties, counts, out, False)
    out = np.empty((int(counts.sum()), 2), np.int64)
    legal_keys_pass(pairs, max_empties, counts, out, True)
    return out
