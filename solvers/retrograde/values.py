"""Values and the rules every mode shares: the value codes, THE child-value reduction (the
value of a position from its children's values), THE best-move rule and the tally of a table.

Value codes (int8, for the side to move): WIN 1, DRAW 0, LOSS -1, ILLEGAL -2 (a position the
rules forbid: stored, counted apart, never a child), NONE -3 (a slot that is not a position);
UNKNOWN 2 only while solving.  Distances are int16 plies; moves are int32 codes (-1: none).

The value rule: a position is won if some child is lost (distance 1 + the smallest such child's
distance), lost if every child is won (1 + the largest; 0 with no move at all), drawn otherwise.
The best move is the first move in the game's move order that realises the value.
"""
import numpy as np

from tbdb.solvers.jit import kernel

WIN = np.int8(1)
DRAW = np.int8(0)
LOSS = np.int8(-1)
ILLEGAL = np.int8(-2)
NONE = np.int8(-3)
UNKNOWN = np.int8(2)
NO_EXT = np.int16(32767)  # "no such child" for the smallest external loss distance
EXT_DRAW = np.int16(-2)  # an external child is drawn, so the position cannot lose
NO_MOVE = np.int32(-1)


@kernel
def add_child(cr, cd, min_loss, max_win, any_draw):
    """One child of value (cr, cd) folded into the reduction (smallest lost child's distance,
    NO_EXT if none; largest won child's distance, -1 if none; whether a child is neither won
    nor lost): start from (NO_EXT, -1, False), finish with ``reduced_value``."""
    if cr == LOSS:
        if cd < min_loss:
            min_loss = cd
    elif cr == WIN:
        if cd > max_win:
            max_win = cd
    else:
        any_draw = True
    return min_loss, max_win, any_draw


@kernel
def reduced_value(min_loss, max_win, any_draw):
    """(result, distance) of a position from its children folded by ``add_child``."""
    if min_loss != NO_EXT:
        return WIN, np.int16(min_loss + 1)
    if any_draw:
        return DRAW, np.int16(0)
    return LOSS, np.int16(max_win + 1)


@kernel
def row_value(count, child, ext_result, ext_distance, result, distance):
    """(result, distance) of one position from its children's values (child[e] >= 0: a row of
    result/distance; else the external value ext_result/ext_distance[e]); an UNKNOWN child
    counts as a draw (as it is when solving has finished)."""
    min_loss = np.int32(NO_EXT)
    max_win = np.int32(-1)
    any_draw = False
    for e in range(count):
        c = child[e]
        if c >= 0:
            r = result[c]
            d = np.int32(distance[c])
        else:
            r = ext_result[e]
            d = np.int32(ext_distance[e])
        min_loss, max_win, any_draw = add_child(r, d, min_loss, max_win, any_draw)
    return reduced_value(min_loss, max_win, any_draw)


@kernel
def realises(r, d, cr, cd):
    """Whether a move to a child of value (cr, cd) realises value (r, d) for the mover: a win
    in d goes to a child lost in d - 1, a loss in d to a child won in d - 1, a draw to a child
    neither won nor lost (drawn, or not yet decided where cycles are draws)."""
    if r == WIN:
        return cr == LOSS and cd == d - 1
    if r == LOSS:
        return cr == WIN and cd == d - 1
    return cr != WIN and cr != LOSS


@kernel
def row_best(count, child, move, ext_result, ext_distance, result, distance, r, d):
    """The first move realising value (r, d) (``realises``); -1 if there is none."""
    for e in range(count):
        c = child[e]
        if c >= 0:
            if realises(r, d, result[c], distance[c]):
                return move[e]
        elif realises(r, d, ext_result[e], ext_distance[e]):
            return move[e]
    return NO_MOVE


@kernel
def tally(result, distance, multiplicity, full_orbit):
    """One pass over solved slots: int64[8] = positions, wins, draws, losses (each weighted by
    multiplicity), longest win, longest loss (-1 if none), illegal slots (weighted), and the
    weight of positions with multiplicity below ``full_orbit`` (symmetric ones; 0 counts none)."""
    out = np.zeros(8, np.int64)
    out[4] = -1
    out[5] = -1
    for i in range(result.shape[0]):
        r = result[i]
        w = np.int64(multiplicity[i])
        if r == ILLEGAL:
            out[6] += w
            continue
        if r != WIN and r != DRAW and r != LOSS:
            continue
        out[0] += w
        if w < full_orbit:
            out[7] += w
        if r == WIN:
            out[1] += w
            if distance[i] > out[4]:
                out[4] = distance[i]
        elif r == LOSS:
            out[3] += w
            if distance[i] > out[5]:
                out[5] = distance[i]
        else:
            out[2] += w
    return out
