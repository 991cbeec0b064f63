"""Tic-tac-toe kernels: the smallest complete game on the level-by-level engine.

A board is int8[9] (cells row by row from the top left; 0 empty, 1 x, 2 o); x moves first, so
the side to move follows from the counts.  Its code is the base-3 number sum(cell[i] * 3**i).
The canonical key of a position is the smallest code among the 8 images of its board under the
symmetries of the square (``SYM[s, i]``: the cell that cell i goes to under symmetry s); it is
exact (the code is a bijection of boards) and needs one word: key = (code, 0).
Move codes are cells 0..8.  The level of a position is its number of empty cells; every move
lowers it by one.
"""
import numpy as np
from numba import njit, prange

LINES = np.array([[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8],
                  [0, 4, 8], [2, 4, 6]], np.int8)
POW3 = np.array([3 ** i for i in range(9)], np.int64)


def _symmetries() -> np.ndarray:
    """SYM[s, cell]: the 8 symmetries of the square (rotations, then reflected rotations)."""
    out = np.empty((8, 9), np.int8)
    for s in range(8):
        for cell in range(9):
            r, c = divmod(cell, 3)
            for _ in range(s % 4):  # rotate a quarter turn clockwise
                r, c = c, 2 - r
            if s >= 4:
                c = 2 - c
            out[s, cell] = r * 3 + c
    return out


SYM = _symmetries()
# INVERSE[s]: the symmetry that undoes s
INVERSE = np.array([next(t for t in range(8) if all(SYM[t, SYM[s, i]] == i for i in range(9)))
                    for s in range(8)], np.int8)

UNKNOWN = np.int8(2)
LOSS = np.int8(-1)
DRAW = np.int8(0)


@njit(cache=True)
def _decode(code, board):
    for i in range(9):
        board[i] = code % 3
        code //= 3


@njit(cache=True)
def _code(board):
    code = np.int64(0)
    for i in range(9):
        code += board[i] * POW3[i]
    return code


@njit(cache=True)
def _canonical(board):
    """(smallest code among the 8 images of board, the symmetry giving it)."""
    best = np.int64(-1)
    best_s = 0
    for s in range(8):
        code = np.int64(0)
        for i in range(9):
            code += board[i] * POW3[SYM[s, i]]
        if best < 0 or code < best:
            best = code
            best_s = s
    return best, best_s


@njit(cache=True, parallel=True)
def _canonical_many(boards, keys, sym):
    """Canonical keys (column 0; columns 1, 2 stay 0) and symmetries of boards int8[n, 9]."""
    for r in prange(boards.shape[0]):
        code, s = _canonical(boards[r])
        keys[r, 0] = code
        sym[r] = s


@njit(cache=True)
def _has_line(board, mark):
    for ln in range(8):
        if board[LINES[ln, 0]] == mark and board[LINES[ln, 1]] == mark and \
                board[LINES[ln, 2]] == mark:
            return True
    return False


@njit(cache=True)
def _status(board):
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
    if _has_line(board, 3 - mover):
        return mover, LOSS
    if xs + os == 9:
        return mover, DRAW
    return mover, UNKNOWN


@njit(cache=True, parallel=True)
def _expand(keys, terminal, count, child, move):
    """For keys int64[k, 2]: the terminal value (or UNKNOWN) and, for positions not over, every
    move (cells ascending) with the canonical key of the position after it."""
    n = keys.shape[0]
    boards = np.empty((n, 9), np.int8)
    for r in prange(n):
        board = boards[r]
        _decode(keys[r, 0], board)
        mover, term = _status(board)
        terminal[r] = term
        m = 0
        if term == UNKNOWN:
            for cell in range(9):
                if board[cell] == 0:
                    board[cell] = mover
                    code, _ = _canonical(board)
                    board[cell] = 0
                    child[r, m, 0] = code
                    child[r, m, 1] = 0
                    move[r, m] = cell
                    m += 1
        count[r] = m


@njit(cache=True, parallel=True)
def _levels(keys):
    """Empty cells of each key's board."""
    out = np.empty(keys.shape[0], np.int16)
    for r in prange(keys.shape[0]):
        code = keys[r, 0]
        empty = 0
        for _ in range(9):
            if code % 3 == 0:
                empty += 1
            code //= 3
        out[r] = empty
    return out


@njit(cache=True, parallel=True)
def _orbits(keys):
    """How many distinct boards each canonical key stands for (8 / its stabiliser)."""
    out = np.empty(keys.shape[0], np.int16)
    boards = np.empty((keys.shape[0], 9), np.int8)
    for r in prange(keys.shape[0]):
        board = boards[r]
        _decode(keys[r, 0], board)
        fixed = 0
        for s in range(8):
            code = np.int64(0)
            for i in range(9):
                code += board[i] * POW3[SYM[s, i]]
            if code == keys[r, 0]:
                fixed += 1
        out[r] = 8 // fixed
    return out


# nogil: a deep perft runs for minutes; `tbdb perft` waits for it on another thread and
# stays interruptible (tbdb/command.py in_worker)
@njit(cache=True, nogil=True)
def _perft(board, depth):
    """Leaves of the move tree ``depth`` plies deep (a finished game is a leaf only at depth 0)."""
    if depth == 0:
        return np.int64(1)
    mover, term = _status(board)
    if term != UNKNOWN:
        return np.int64(0)
    total = np.int64(0)
    for cell in range(9):
        if board[cell] == 0:
            if depth == 1:
                total += 1
                continue
            board[cell] = mover
            total += _perft(board, depth - 1)
            board[cell] = 0
    return total
