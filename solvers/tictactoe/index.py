"""Tic-tac-toe index functions: boards <-> codes, canonical keys under the 8 symmetries.

A board is int8[9] (cells row by row from the top left; 0 empty, 1 x, 2 o).  Its code is the
base-3 number sum(cell[i] * 3**i) (``encode``; ``decode`` is the inverse).  The canonical key of
a position is the smallest code among the 8 images of its board under the symmetries of the
square (``SYM[s, i]``: the cell that cell i goes to under symmetry s); it is exact (the code is a
bijection of boards) and needs one word: key = (code, 0).  The level of a key is the number of
empty cells of its board.
"""
import numpy as np

from tbdb.solvers.jit import kernel, parallel_kernel, prange

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


@kernel
def decode(code, board):
    """Fill ``board`` (int8[9]) with the cells of ``code``."""
    for i in range(9):
        board[i] = code % 3
        code //= 3


@kernel
def encode(board):
    """The code of a board: sum(cell[i] * 3**i)."""
    code = np.int64(0)
    for i in range(9):
        code += board[i] * POW3[i]
    return code


@kernel
def canonical(board):
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


@parallel_kernel
def canonical_many(boards, keys, sym):
    """Canonical keys (column 0; columns 1, 2 stay 0) and symmetries of boards int8[n, 9]."""
    for r in prange(boards.shape[0]):
        code, s = canonical(boards[r])
        keys[r, 0] = code
        sym[r] = s


@parallel_kernel
def levels(keys):
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


@parallel_kernel
def orbits(keys):
    """How many distinct boards each canonical key stands for (8 / its stabiliser)."""
    out = np.empty(keys.shape[0], np.int16)
    boards = np.empty((keys.shape[0], 9), np.int8)
    for r in prange(keys.shape[0]):
        board = boards[r]
        decode(keys[r, 0], board)
        fixed = 0
        for s in range(8):
            code = np.int64(0)
            for i in range(9):
                code += board[i] * POW3[SYM[s, i]]
            if code == keys[r, 0]:
                fixed += 1
        out[r] = 8 // fixed
    return out
