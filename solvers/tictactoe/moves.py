"""Tic-tac-toe move generation: terminal values, every move of many positions, perft.

Boards and keys as in ``index``; x moves first, so the side to move follows from the counts.
Move codes are cells 0..8.  Every move fills a cell: it lowers the level (empty cells) by one.
"""
import numpy as np

from tbdb.solvers.jit import kernel, nogil_kernel, parallel_kernel, prange
from tbdb.solvers.tictactoe.index import canonical, decode

LINES = np.array([[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8],
                  [0, 4, 8], [2, 4, 6]], np.int8)

UNKNOWN = np.int8(2)
LOSS = np.int8(-1)
DRAW = np.int8(0)


@kernel
def has_line(board, mark):
    for ln in range(8):
        if board[LINES[ln, 0]] == mark and board[LINES[ln, 1]] == mark and \
                board[LINES[ln, 2]] == mark:
            return True
    return False


@kernel
def status(board):
    """(mark to move 1/2, terminal value for the mover: LOSS if the last mover made a line,
    DRAW if the board is full, UNKNOWN otherwise)."""
    xs = 0
    os = 0
    for i in range(9):
        if board[i] == 1:
            xs += 1
        elif board[i] == 2:
            os += 1
    mover = 1 if xs == os else 2
    if has_line(board, 3 - mover):
        return mover, LOSS
    if xs + os == 9:
        return mover, DRAW
    return mover, UNKNOWN


@parallel_kernel
def expand(keys, terminal, count, child, move):
    """For keys int64[k, 2]: the terminal value (or UNKNOWN) and, for positions not over, every
    move (cells ascending) with the canonical key of the position after it."""
    n = keys.shape[0]
    boards = np.empty((n, 9), np.int8)
    for r in prange(n):
        board = boards[r]
        decode(keys[r, 0], board)
        mover, term = status(board)
        terminal[r] = term
        m = 0
        if term == UNKNOWN:
            for cell in range(9):
                if board[cell] == 0:
                    board[cell] = mover
                    code, _ = canonical(board)
                    board[cell] = 0
                    child[r, m, 0] = code
                    child[r, m, 1] = 0
                    move[r, m] = cell
                    m += 1
        count[r] = m


# nogil: a deep perft runs for minutes; `tbdb perft` waits for it on another thread and
# stays interruptible (tbdb/command.py in_worker)
@nogil_kernel
def perft(board, depth):
    """Leaves of the move tree ``depth`` plies deep (a finished game is a leaf only at depth 0)."""
    if depth == 0:
        return np.int64(1)
    mover, term = status(board)
    if term != UNKNOWN:
        return np.int64(0)
    total = np.int64(0)
    for cell in range(9):
        if board[cell] == 0:
            if depth == 1:
                total += 1
                continue
            board[cell] = mover
            total += perft(board, depth - 1)
            board[cell] = 0
    return total
