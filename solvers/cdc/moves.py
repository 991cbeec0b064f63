"""Chinese Dark Chess move generation.

Board: 32 squares, ``sq = row * 8 + col`` (a1 = 0, h1 = 7, a4 = 24, h4 = 31), int8 piece codes
(-1 empty).  Piece codes: ``colour * 7 + type`` with colour 0 red / 1 black and type
0 General, 1 Advisor, 2 Elephant, 3 Chariot, 4 Horse, 5 Cannon, 6 Soldier (rank = 7 - type).

Move codes (int16): ``from * 32 + to``, plus ``CAPTURE_FLAG`` for captures.
"""
import numpy as np

from tbdb.solvers.jit import kernel


NSQ = 32
GENERAL, ADVISOR, ELEPHANT, CHARIOT, HORSE, CANNON, SOLDIER = range(7)
CAPTURE_FLAG = 1024


def _step_capture_table():
    """STEP_CAPTURES[attacker_type, victim_type]: may a stepping piece take the victim."""
    table = np.zeros((7, 7), np.bool_)
    for a in range(7):
        for v in range(7):
            if a == CANNON:
                continue  # a cannon only captures by jumping
            if a == SOLDIER:
                table[a, v] = v in (SOLDIER, GENERAL)
            elif a == GENERAL and v == SOLDIER:
                table[a, v] = False
            else:
                table[a, v] = a <= v  # equal or lower rank
    return table


def _neighbour_table():
    """NEIGHBOUR[sq, d] for d = up, down, left, right; -1 off the board."""
    table = np.full((NSQ, 4), -1, np.int8)
    for sq in range(NSQ):
        r, c = divmod(sq, 8)
        for d, (dr, dc) in enumerate(((1, 0), (-1, 0), (0, -1), (0, 1))):
            rr, cc = r + dr, c + dc
            if 0 <= rr < 4 and 0 <= cc < 8:
                table[sq, d] = rr * 8 + cc
    return table


STEP_CAPTURES = _step_capture_table()
NEIGHBOUR = _neighbour_table()


@kernel
def _cannon_target(board, s, d):
    """Square a cannon on s would capture towards direction d, or -1: the first piece beyond
    the screen, whatever its colour (the board may hold piece codes or slots, -1 empty)."""
    t = NEIGHBOUR[s, d]
    while t >= 0 and board[t] < 0:
        t = NEIGHBOUR[t, d]
    if t < 0:
        return -1  # no screen
    t = NEIGHBOUR[t, d]
    while t >= 0 and board[t] < 0:
        t = NEIGHBOUR[t, d]
    return t


@kernel
def moves_of_board(board, side, out):
    """Legal moves of ``side`` on a board of piece codes (-1 empty); returns how many were
    written to ``out`` (move codes).  Order: squares ascending, then directions."""
    n = 0
    for s in range(NSQ):
        code = board[s]
        if code < 0 or code // 7 != side:
            continue
        kind = code % 7
        for d in range(4):
            t = NEIGHBOUR[s, d]
            if t < 0:
                continue
            other = board[t]
            if other < 0:
                out[n] = s * 32 + t
                n += 1
            elif kind != CANNON and other // 7 != side and STEP_CAPTURES[kind, other % 7]:
                out[n] = CAPTURE_FLAG + s * 32 + t
                n += 1
        if kind == CANNON:
            for d in range(4):
                t = _cannon_target(board, s, d)
                if t >= 0 and board[t] // 7 != side:
                    out[n] = CAPTURE_FLAG + s * 32 + t
                    n += 1
    return n
