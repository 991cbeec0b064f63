"""Ultimate Tic-Tac-Toe kernels: the position state, move generation, playing a move, perft.

Board: nine small 3x3 boards ``b`` in a 3x3 meta-board, nine cells ``c`` in each, both numbered
``3 * row + column`` (0 top left, 8 bottom right).  A move is the code ``9 * b + c`` (0..80);
the game's move order is ascending code.

A position is one row of ``int16[NS]`` (the *state*):

    st[b]          b = 0..8   cells of small board b taken by X (9-bit mask, bit c = cell c)
    st[9 + b]                 cells of small board b taken by O
    st[S_SIDE]                side to move, 0 X, 1 O
    st[S_CON]                 the small board the mover must play in, 0..8, or -1 for any
    st[S_WON_X]               small boards won by X (9-bit mask over b)
    st[S_WON_O]               small boards won by O
    st[S_CLOSED]              closed small boards: won by either side, or full (drawn)
    st[S_EMPTY]               empty cells in open small boards (the *level*)

The cell masks of a closed board are not read by any kernel (a state decoded from a canonical
key keeps them 0: once a board is closed only its status matters).

Rules (``docs/rules/uttt.md``): a move in cell c sends the opponent to board c; if board c is
closed the opponent may play in any empty cell of any open board.  A board closes when a line
is made in it (a move that makes a line and fills the board is a win) or when it is full.  The
game is over when the side that just moved has three won boards in a row, or when no open
board remains (then a draw under the standard scoring; under the CodinGame scoring the side
with more won boards wins, equal counts draw).
"""
import numpy as np

from tbdb.solvers.jit import kernel, parallel_nogil_kernel, prange

NS = 24
S_SIDE, S_CON, S_WON_X, S_WON_O, S_CLOSED, S_EMPTY = 18, 19, 20, 21, 22, 23
X, O = 0, 1
ANY = -1
FULL = 511
MAX_MOVES = 81
STANDARD, CODINGAME = 0, 1
SCORINGS = ("standard", "codingame")

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


def _line_table():
    """HAS_LINE[mask]: the 9-bit mask of cells holds three in a row."""
    table = np.zeros(512, np.bool_)
    for m in range(512):
        table[m] = any(all(m >> i & 1 for i in line) for line in LINES)
    return table


HAS_LINE = _line_table()
POPCOUNT = np.array([bin(m).count("1") for m in range(512)], np.int8)


# --------------------------------------------------------------------------- state

@kernel
def game_over(st):
    """The game is over: a side has three won boards in a row, or no board is open."""
    return HAS_LINE[st[S_WON_X]] or HAS_LINE[st[S_WON_O]] or st[S_CLOSED] == FULL


@kernel
def terminal_value(st, scoring):
    """Value for the side to move of a finished game (1 win, 0 draw, -1 loss)."""
    me = st[S_WON_X + st[S_SIDE]]
    them = st[S_WON_X + 1 - st[S_SIDE]]
    if HAS_LINE[them]:
        return np.int8(-1)
    if HAS_LINE[me]:  # not reachable in play (the mover's line ends the game), kept total
        return np.int8(1)
    if scoring == CODINGAME:
        a = POPCOUNT[me]
        b = POPCOUNT[them]
        if a > b:
            return np.int8(1)
        if a < b:
            return np.int8(-1)
    return np.int8(0)


@kernel
def play(st, b, c):
    """Play cell c of board b for the side to move, in place (the move must be legal)."""
    side = st[S_SIDE]
    bit = np.int16(1 << c)
    m = st[9 * side + b] | bit
    st[9 * side + b] = m
    st[S_EMPTY] -= 1
    taken = st[b] | st[9 + b]
    if HAS_LINE[m]:
        st[S_WON_X + side] |= np.int16(1 << b)
        st[S_CLOSED] |= np.int16(1 << b)
        st[S_EMPTY] -= 9 - POPCOUNT[taken]
    elif taken == FULL:
        st[S_CLOSED] |= np.int16(1 << b)
    st[S_CON] = ANY if (st[S_CLOSED] >> c) & 1 else c
    st[S_SIDE] = 1 - side


@kernel
def legal_moves(st, out):
    """Legal move codes of a position into out (int16[>= 81]), ascending; returns how many
    (0 when the game is over)."""
    if game_over(st):
        return 0
    n = 0
    con = st[S_CON]
    lo = 0 if con < 0 else con
    hi = 9 if con < 0 else con + 1
    closed = st[S_CLOSED]
    for b in range(lo, hi):
        if (closed >> b) & 1:
            continue
        free = FULL & ~(st[b] | st[9 + b])
        for c in range(9):
            if (free >> c) & 1:
                out[n] = 9 * b + c
                n += 1
    return n


@kernel
def _count_moves(st):
    """How many legal moves a position has (the last ply of a perft, without playing them)."""
    if game_over(st):
        return 0
    con = st[S_CON]
    if con < 0:
        return np.int64(st[S_EMPTY])
    return np.int64(9 - POPCOUNT[st[con] | st[9 + con]])


# --------------------------------------------------------------------------- perft

@kernel
def _perft_one(root, depth, stack, moves, nmov, idx):
    """Leaves of the move tree of ``depth`` plies below ``root`` (int16[NS]); the last ply is
    counted without being played.  Scratch: stack int16[depth + 1, NS], moves
    int16[depth + 1, 81], nmov and idx int32[depth + 1]."""
    if depth == 0:
        return np.int64(1)
    if depth == 1:
        return _count_moves(root)
    stack[0, :] = root
    nmov[0] = legal_moves(stack[0], moves[0])
    idx[0] = 0
    d = 0
    total = np.int64(0)
    while d >= 0:
        if idx[d] == nmov[d]:
            d -= 1
            continue
        m = moves[d, idx[d]]
        idx[d] += 1
        nxt = stack[d + 1]
        nxt[:] = stack[d]
        play(nxt, m // 9, m % 9)
        if d + 2 == depth:
            total += _count_moves(nxt)
        else:
            d += 1
            nmov[d] = legal_moves(nxt, moves[d])
            idx[d] = 0
    return total


@kernel
def _expand_states(states):
    """Every child of every state (int16[n, NS] -> int16[m, NS]), in order, repeats kept."""
    n = states.shape[0]
    buf = np.empty(MAX_MOVES, np.int16)
    total = 0
    for i in range(n):
        total += _count_moves(states[i])
    out = np.empty((total, NS), np.int16)
    k = 0
    for i in range(n):
        cnt = legal_moves(states[i], buf)
        for e in range(cnt):
            out[k, :] = states[i]
            play(out[k], buf[e] // 9, buf[e] % 9)
            k += 1
    return out


# nogil: a deep perft runs for minutes; `tbdb perft` waits for it on another thread and
# stays interruptible (tbdb/command.py in_worker)
@parallel_nogil_kernel
def _perft_states(states, depth, chunk):
    """Sum of ``_perft_one(state, depth)`` over states int16[n, NS], in parallel over chunks of
    ``chunk`` states (one scratch slice per chunk)."""
    n = states.shape[0]
    nchunk = (n + chunk - 1) // chunk
    d1 = max(depth, 1) + 1
    stack = np.empty((nchunk, d1, NS), np.int16)
    moves = np.empty((nchunk, d1, MAX_MOVES), np.int16)
    nmov = np.empty((nchunk, d1), np.int32)
    idx = np.empty((nchunk, d1), np.int32)
    sums = np.zeros(nchunk, np.int64)
    for ch in prange(nchunk):
        s = np.int64(0)
        for i in range(ch * chunk, min(n, (ch + 1) * chunk)):
            s += _perft_one(states[i], depth, stack[ch], moves[ch], nmov[ch], idx[ch])
        sums[ch] = s
    return sums.sum()


def perft(state: np.ndarray, depth: int, split: int = 4096) -> int:
    """Leaves of the move tree ``depth`` plies deep below ``state`` (int16[NS]).  The first
    plies are expanded until at least ``split`` subtrees exist (or one ply remains); the
    subtrees are counted in parallel."""
    if depth < 0:
        raise ValueError(f"perft depth must be >= 0, got {depth}")
    states = np.ascontiguousarray(state, np.int16).reshape(1, NS)
    left = depth
    while left > 2 and len(states) < split:
        states = _expand_states(states)
        left -= 1
    chunk = max(1, len(states) // 256)
    return int(_perft_states(states, left, chunk))
