"""Chinese Checkers move generation on any hexagonal board given by a neighbour table.

A board is ``board`` int8[N] (0 empty, otherwise the player number standing there) and
``nbr`` int16[N, 6] (the neighbour of each cell in each of the six directions, -1 off the board;
layouts in ``solvers.chinese_checkers.geometry``).

A move takes one piece either one step to an adjacent empty cell, or along a chain of hops:
each hop jumps over one adjacent piece of any colour onto the empty cell right behind it, and
the chain may stop after any hop.  No cell is visited twice within a move (the start cell
included), so a move always changes the position.  Moves are identified by (from, to): two
chains that end on the same cell are one move.  Because hops are reversible, the cells a chain
can reach are the connected component of the start cell in the hop graph of the empty cells.

Perft counts for the star (2, 3, 4 or 6 players) live here too: the first player to fill its
goal point wins (see ``_won``) and a won position has no moves.
"""
import numpy as np

from tbdb.solvers.jit import kernel, parallel_nogil_kernel, prange


@kernel
def sort_small(a, n):
    """Insertion sort of a[:n] in place (n is small: a piece's destinations, a piece set)."""
    for i in range(1, n):
        v = a[i]
        j = i - 1
        while j >= 0 and a[j] > v:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = v


@kernel
def destinations(board, nbr, s, mark, stamp, stack, out):
    """The cells the piece on ``s`` can move to, ascending, in out[:n]; returns n.

    ``mark`` int32[N] holds visit stamps: cells equal to ``stamp`` count as visited, so the
    caller passes a fresh stamp per call and never clears the array.  ``stack`` and ``out``
    need N entries.  The piece is lifted off ``s`` while its hops are explored (a chain may not
    hop over its own start cell)."""
    piece = board[s]
    board[s] = 0
    mark[s] = stamp
    n = 0
    stack[0] = s
    top = 1
    while top > 0:
        top -= 1
        u = stack[top]
        for d in range(6):
            o = nbr[u, d]
            if o < 0 or board[o] == 0:
                continue
            t = nbr[o, d]
            if t < 0 or board[t] != 0 or mark[t] == stamp:
                continue
            mark[t] = stamp
            stack[top] = t
            top += 1
            out[n] = t
            n += 1
    # a step lands on the other parity class of the hop lattice, never on a hop target
    for d in range(6):
        t = nbr[s, d]
        if t >= 0 and board[t] == 0:
            out[n] = t
            n += 1
    board[s] = piece
    sort_small(out, n)
    return n


@kernel
def moves_of_board(board, nbr, player, out_from, out_to):
    """Every move of ``player`` on ``board``: pieces by cell, destinations ascending.  Returns
    the count; out_from/out_to need room for every move (cells x cells is always enough)."""
    ncell = board.shape[0]
    mark = np.zeros(ncell, np.int32)
    stack = np.empty(ncell, np.int64)
    dest = np.empty(ncell, np.int64)
    n = 0
    stamp = 0
    for s in range(ncell):
        if board[s] != player:
            continue
        stamp += 1
        nd = destinations(board, nbr, s, mark, stamp, stack, dest)
        for j in range(nd):
            out_from[n] = s
            out_to[n] = dest[j]
            n += 1
    return n


@kernel
def _won(board, goal, player):
    """Has ``player`` met its win condition: every cell of ``goal`` (int16[g]) holds a piece of
    any colour and at least one of them is its own."""
    own = 0
    for i in range(goal.shape[0]):
        v = board[goal[i]]
        if v == 0:
            return False
        if v == player:
            own += 1
    return own > 0


@kernel
def _perft_line(board, nbr, goals, players, mover, depth, moves, nmoves, index, mark, stack,
                dest):
    """Leaves ``depth`` plies below ``board`` with ``mover`` (0-based turn index) to move.

    ``goals`` int16[players, g] holds each player's goal cells; a player who has just met its
    win condition ends the game (no moves below).  Scratch: moves int16[depth, M, 2],
    nmoves/index int64[depth], mark int32[N], stack/dest int64[N]."""
    if depth == 0:
        return 1
    ncell = board.shape[0]
    total = 0
    stamp = mark.max() + 1
    level = 0
    player = mover
    while True:
        if level >= 0 and index[level] == -1:
            # generate the moves of level ``level`` (player ``(mover + level) % players``)
            pl = (mover + level) % players
            n = 0
            for s in range(ncell):
                if board[s] != pl + 1:
                    continue
                nd = destinations(board, nbr, s, mark, stamp, stack, dest)
                stamp += 1
                for j in range(nd):
                    moves[level, n, 0] = s
                    moves[level, n, 1] = dest[j]
                    n += 1
            nmoves[level] = n
            index[level] = 0
        if index[level] == nmoves[level]:
            index[level] = -1
            level -= 1
            if level < 0:
                break
            # undo the move that led down
            i = index[level] - 1
            s = moves[level, i, 0]
            t = moves[level, i, 1]
            board[s] = board[t]
            board[t] = 0
            continue
        i = index[level]
        index[level] += 1
        s = moves[level, i, 0]
        t = moves[level, i, 1]
        if level + 1 == depth:
            total += 1
            continue
        pl = (mover + level) % players
        board[t] = board[s]
        board[s] = 0
        if _won(board, goals[pl], pl + 1):
            board[s] = board[t]
            board[t] = 0
            continue
        level += 1
        index[level] = -1
    return total


# nogil: a deep perft runs for minutes; `tbdb perft` waits for it on another thread and
# stays interruptible (tbdb/command.py in_worker)
@parallel_nogil_kernel
def perft(board, nbr, goals, players, mover, depth, max_moves):
    """Perft of a star (or any) position: leaf count ``depth`` plies below, with the game over
    once a player meets its win condition.  Parallel over the first move; returns (total,
    per-first-move counts int64[n], first moves int16[n, 2])."""
    ncell = board.shape[0]
    first = np.empty((max_moves, 2), np.int16)
    f_from = np.empty(max_moves, np.int64)
    f_to = np.empty(max_moves, np.int64)
    nroot = moves_of_board(board, nbr, mover + 1, f_from, f_to)
    for i in range(nroot):
        first[i, 0] = f_from[i]
        first[i, 1] = f_to[i]
    counts = np.zeros(nroot, np.int64)
    if depth == 0:
        return 1, counts, first[:nroot]
    width = max(depth - 1, 1)
    boards = np.empty((nroot, ncell), np.int8)
    moves = np.empty((nroot, width, max_moves, 2), np.int16)
    nmoves = np.empty((nroot, width), np.int64)
    index = np.empty((nroot, width), np.int64)
    marks = np.zeros((nroot, ncell), np.int32)
    stacks = np.empty((nroot, 2, ncell), np.int64)
    for i in prange(nroot):
        b = boards[i]
        b[:] = board
        s = first[i, 0]
        t = first[i, 1]
        b[t] = b[s]
        b[s] = 0
        if depth == 1:
            counts[i] = 1
        elif _won(b, goals[mover], mover + 1):
            counts[i] = 0
        else:
            index[i, 0] = -1
            counts[i] = _perft_line(b, nbr, goals, players, (mover + 1) % players, depth - 1,
                                    moves[i], nmoves[i], index[i], marks[i], stacks[i, 0],
                                    stacks[i, 1])
    return counts.sum(), counts, first[:nroot]
