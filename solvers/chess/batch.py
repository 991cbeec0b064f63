"""Chess's batch form (``tb.lookup_arrays("chess", boards, turns, ep)``): the checks and the
placement of many boards at once.

Boards are int8[n, 64] (a1 = 0 .. h8 = 63) of ``moves.py``'s piece codes (0 empty, white
1..6 = P N B R Q K, black 9..14 the same + ``BLACK_BIT``); turns int8[n] (0 white to move);
ep int8[n] (-1, or the en passant square a FEN would name).
"""
import numpy as np

from tbdb.solvers.chess.moves import BLACK_BIT, KING, MAX_MOVES, PAWN, in_check, legal_ep, \
    legal_moves
from tbdb.solvers.jit import kernel

# why ``check_rows`` refused a row (its return's second value)
OK, BAD_CODE, KINGS, PAWN_RANK, NOT_TO_MOVE_IN_CHECK, EP_RANK = range(6)
# per row: what the row is (``check_rows``'s ``status``)
PLAYING, OVER_MATED, OVER_STALEMATE, BY_CHILDREN = range(4)


@kernel
def check_rows(boards, turns, ep, counts, status, ep_out):
    """Check every row as ``Position.read`` checks a FEN; fill ``counts`` int64[n, 16] (pieces
    per code), ``status`` int8[n] (PLAYING, OVER_*, BY_CHILDREN: a legal en passant capture)
    and ``ep_out`` int8[n] (the en passant square if a legal capture uses it, else -1).
    Returns (first bad row or -1, the reason)."""
    moves = np.empty(MAX_MOVES, np.int32)
    for r in range(boards.shape[0]):
        board = boards[r]
        for c in range(16):
            counts[r, c] = 0
        for sq in range(64):
            c = board[sq]
            if c < 0 or c > 14 or c & 7 == 7 or c == BLACK_BIT:
                return r, BAD_CODE
            counts[r, c] += 1
            if c & 7 == PAWN and (sq < 8 or sq >= 56):
                return r, PAWN_RANK
        if counts[r, KING] != 1 or counts[r, BLACK_BIT + KING] != 1:
            return r, KINGS
        side = turns[r]
        if in_check(board, 1 - side):
            return r, NOT_TO_MOVE_IN_CHECK
        e = ep[r]
        if e >= 0 and e // 8 != (5 if side == 0 else 2):
            return r, EP_RANK
        e = legal_ep(board, side, e)
        ep_out[r] = e
        if e >= 0:
            status[r] = BY_CHILDREN
        elif legal_moves(board, side, -1, moves) == 0:
            status[r] = OVER_MATED if in_check(board, side) else OVER_STALEMATE
        else:
            status[r] = PLAYING
    return -1, OK


@kernel
def placements(boards, rows, desc, flip, squares):
    """The squares of each row's pieces in the table's slot order (``index.py``), the board
    turned and colours swapped when ``flip`` (the table is the other way round); identical
    pieces in square order."""
    k = desc[0]
    for i in range(rows.shape[0]):
        board = boards[rows[i]]
        for j in range(k):
            squares[i, j] = -1
        for sq in range(64):
            c = board[sq]
            if c == 0:
                continue
            s = sq
            if flip:
                s = sq ^ 56
                c = c ^ BLACK_BIT
            for j in range(k):
                if squares[i, j] < 0 and desc[2 + j] == c:
                    squares[i, j] = s
                    break
