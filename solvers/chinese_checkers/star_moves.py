"""Moves on the small stars (issue 63): the moves of a player with the resting rule, their
reversal (the positions a move may have come from), and a position's status.

Arrays: ``nbr`` int16[cells, 6] (geometry), ``can_rest`` int8[n + 1, cells] (1 where player p
may rest: the hexagon and its own two points), ``in_goal`` int8[n + 1, cells]; scratch
``visit`` int64[cells] (stamps: nothing is cleared between calls, and a big solve takes more
than 2^31 of them) and ``stack`` int16[cells].  A move is (from, to); a chain of hops may pass
over any cell and through any point, and a move ends only where its player may rest.
"""
import numpy as np

from tbdb.solvers.jit import kernel
from tbdb.solvers.chinese_checkers.moves import destinations

PLAY, FINISHED, ILLEGAL = 0, 1, 2


@kernel
def reach(cells, s, who, nbr, can_rest, visit, stack, stamp, out, count):
    """Append to ``out[count:]`` the cells a marble of ``who`` on ``s`` may move to, ascending:
    the rhombus game's destinations (a step, or a chain of hops over any cells) where ``who``
    may rest.  Returns the new count; ``stamp`` is this call's own (unused before)."""
    found = destinations(cells, nbr, s, visit, stamp, stack, out[count:])
    end = count
    for i in range(count, count + found):
        if can_rest[who, out[i]]:
            out[end] = out[i]
            end += 1
    return end


@kernel
def moves_of(cells, mover, nbr, can_rest, visit, stack, stamp, out_from, out_to):
    """The mover's moves in (from, to) order into out_from / out_to; returns (count, stamp)."""
    count = 0
    for s in range(cells.shape[0]):
        if cells[s] != mover:
            continue
        cells[s] = 0
        stamp += 1
        end = reach(cells, s, mover, nbr, can_rest, visit, stack, stamp, out_to, count)
        cells[s] = mover
        for i in range(count, end):
            out_from[i] = s
        count = end
    return count, stamp


@kernel
def has_move(cells, who, nbr, can_rest, visit, stack, stamp, out_from, out_to):
    """(whether ``who`` has a move, stamp): a step settles it for nearly every position, the
    hop chains are searched only when no marble can step."""
    for s in range(cells.shape[0]):
        if cells[s] == who:
            for d in range(6):
                t = nbr[s, d]
                if t >= 0 and cells[t] == 0 and can_rest[who, t]:
                    return True, stamp
    count, stamp = moves_of(cells, who, nbr, can_rest, visit, stack, stamp, out_from,
                            out_to)
    return count > 0, stamp


@kernel
def status(cells, mover, players, in_goal):
    """PLAY, FINISHED (the player who moved last has all its marbles on its goal) or ILLEGAL
    (another player has: the game would have ended before)."""
    last = (mover - 2) % players + 1
    result = PLAY
    for p in range(1, players + 1):
        won = False
        for c in range(cells.shape[0]):
            if cells[c] == p:
                if not in_goal[p, c]:
                    won = False
                    break
                won = True
        if won:
            if p != last:
                return ILLEGAL
            result = FINISHED
    return result


@kernel
def rest_masks(players, cells, point, seats):
    """(can_rest, in_goal) int8[players + 1, cells] of the seats (points, in turn order)."""
    can_rest = np.zeros((players + 1, cells), np.int8)
    in_goal = np.zeros((players + 1, cells), np.int8)
    for p in range(players):
        for c in range(cells):
            q = point[c]
            if q == -1 or q == seats[p] or q == (seats[p] + 3) % 6:
                can_rest[p + 1, c] = 1
            if q == (seats[p] + 3) % 6:
                in_goal[p + 1, c] = 1
    return can_rest, in_goal


@kernel
def perft(cells, mover, depth, players, nbr, can_rest, in_goal, max_moves):
    """Leaf positions ``depth`` plies below (cells, mover): a finished game has no moves, a
    player with no move passes (one move).  ``cells`` is restored on return."""
    if depth == 0:
        return 1
    ncells = cells.shape[0]
    visit = np.zeros(ncells, np.int64)
    stack = np.zeros(ncells, np.int16)
    froms = np.zeros((depth, max_moves), np.int16)
    tos = np.zeros((depth, max_moves), np.int16)
    count = np.zeros(depth, np.int64)
    at = np.zeros(depth, np.int64)
    movers = np.zeros(depth + 1, np.int64)
    movers[0] = mover
    stamp = 0
    total = 0
    level = 0
    fresh = True  # the moves of ``level`` are still to be made
    while level >= 0:
        if fresh:
            who = movers[level]
            if status(cells, who, players, in_goal) != PLAY:
                count[level] = 0
            else:
                c, stamp = moves_of(cells, who, nbr, can_rest, visit, stack, stamp,
                                    froms[level], tos[level])
                if c == 0:  # the pass
                    froms[level, 0] = -1
                    c = 1
                count[level] = c
            at[level] = 0
            fresh = False
            if level == depth - 1:
                total += count[level]
                level -= 1
                if level >= 0:  # undo the move that led here
                    _undo(cells, froms, tos, at, movers, level)
                    at[level] += 1
                continue
        if at[level] == count[level]:
            level -= 1
            if level >= 0:
                _undo(cells, froms, tos, at, movers, level)
                at[level] += 1
            continue
        i = at[level]
        who = movers[level]
        if froms[level, i] >= 0:
            cells[froms[level, i]] = 0
            cells[tos[level, i]] = who
        movers[level + 1] = who % players + 1
        level += 1
        fresh = True
    return total


@kernel
def _undo(cells, froms, tos, at, movers, level):
    i = at[level]
    if froms[level, i] >= 0:
        cells[tos[level, i]] = 0
        cells[froms[level, i]] = movers[level]
