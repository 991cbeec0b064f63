"""Ultimate Tic-Tac-Toe batch form: many positions given as arrays -> canonical keys, for bots.

Rows are ``cells`` int8[n, 81] (index ``9 * b + c``: 0 empty, 1 X, 2 O; a closed small board
may instead be given by its status alone, all nine cells 3 = won by X, 4 = won by O, 5 =
drawn), ``side`` int8[n] (0 X, 1 O to move) and ``con`` int8[n] (0..8, or -1 for any board).
"""
import numpy as np

from tbdb.solvers.jit import kernel, parallel_kernel, prange
from tbdb.solvers.uttt.keys import board_code, canonical_codes
from tbdb.solvers.uttt.levels import legal
from tbdb.solvers.uttt.moves import (FULL, HAS_LINE, NS, POPCOUNT, S_CLOSED, S_CON, S_EMPTY,
                                     S_SIDE, S_WON_O, S_WON_X, game_over, terminal_value)

# why a row was refused (0: fine)
BAD_VALUE, BAD_BLOCK, BAD_LINES, BAD_COUNT, ILLEGAL = 1, 2, 3, 4, 5
REASONS = {BAD_VALUE: "cells are 0 (empty), 1 (x) or 2 (o), or a closed board's nine cells all "
                      "3 (won by x), 4 (won by o) or 5 (drawn); side is 0 or 1; the constraint "
                      "is 0..8 or -1",
           BAD_BLOCK: "a small board mixes status values 3-5 with other cells",
           BAD_LINES: "a small board has lines that no single last move completes (or lines of "
                      "both sides)",
           BAD_COUNT: "the numbers of x and o do not fit the side to move (as many x as o with x "
                      "to move, one x more with o to move)",
           ILLEGAL: "the position cannot arise in a game (mark counts, constraint or a move "
                    "after the end)"}


@kernel
def _closing_ok(mine):
    """A line in ``mine`` that one move made: some mark whose removal leaves no line."""
    for c in range(9):
        if (mine >> c) & 1 and not HAS_LINE[mine & ~(1 << c)]:
            return True
    return False


@kernel
def _row_state(cells, side, con, st):
    """Fill st (int16[NS]) from one row; returns 0 or a refusal code."""
    if side < 0 or side > 1 or con < -1 or con > 8:
        return BAD_VALUE
    for i in range(NS):
        st[i] = 0
    by_status = False
    diff = 0
    for b in range(9):
        first = cells[9 * b]
        if first >= 3:
            for c in range(9):
                if cells[9 * b + c] != first:
                    return BAD_BLOCK
            if first > 5:
                return BAD_VALUE
            st[S_CLOSED] |= 1 << b
            by_status = True
            if first == 3:
                st[S_WON_X] |= 1 << b
            elif first == 4:
                st[S_WON_O] |= 1 << b
            continue
        xm = 0
        om = 0
        for c in range(9):
            v = cells[9 * b + c]
            if v == 1:
                xm |= 1 << c
            elif v == 2:
                om |= 1 << c
            elif v != 0:
                return BAD_VALUE if v < 3 or v > 5 else BAD_BLOCK
        hx = HAS_LINE[xm]
        ho = HAS_LINE[om]
        if (hx and ho) or (hx and not _closing_ok(xm)) or (ho and not _closing_ok(om)):
            return BAD_LINES
        st[b] = xm
        st[9 + b] = om
        diff += POPCOUNT[xm] - POPCOUNT[om]
        if hx:
            st[S_WON_X] |= 1 << b
            st[S_CLOSED] |= 1 << b
        elif ho:
            st[S_WON_O] |= 1 << b
            st[S_CLOSED] |= 1 << b
        elif (xm | om) == FULL:
            st[S_CLOSED] |= 1 << b
        else:
            st[S_EMPTY] += 9 - POPCOUNT[xm | om]
    if not by_status and diff != side:  # every mark given: the counts are exact
        return BAD_COUNT
    st[S_SIDE] = side
    st[S_CON] = con
    return 0


@parallel_kernel
def locate_rows(cells, side, con, scoring, keys, sym, over, done, err):
    """For each row: err int8 (0 or a refusal code); done bool (the game is over: value for the
    side to move in over int8); else keys int64[n, 3] (word0, word1, canonical constraint, -1
    any) and sym int8 (the symmetry carrying the row onto its canonical representative)."""
    n = cells.shape[0]
    nchunk = (n + 1023) // 1024
    st_s = np.empty((nchunk, NS), np.int16)
    codes_s = np.empty((nchunk, 9), np.int16)
    for ch in prange(nchunk):
        st = st_s[ch]
        codes = codes_s[ch]
        for i in range(ch * 1024, min(n, (ch + 1) * 1024)):
            done[i] = False
            over[i] = 0
            sym[i] = 0
            keys[i, 0] = -1
            keys[i, 1] = -1
            keys[i, 2] = -1
            e = _row_state(cells[i], side[i], con[i], st)
            if e == 0:
                for b in range(9):
                    codes[b] = board_code(st, b)
                if not legal(codes, st[S_SIDE], st[S_CON]):
                    e = ILLEGAL
            err[i] = e
            if e != 0:
                continue
            if game_over(st):
                done[i] = True
                over[i] = terminal_value(st, scoring)
                continue
            w0, w1, g = canonical_codes(codes, st[S_SIDE], st[S_CON])
            keys[i, 0] = w0
            keys[i, 1] = w1
            k = w1 % 10
            keys[i, 2] = -1 if k == 9 else k
            sym[i] = g
