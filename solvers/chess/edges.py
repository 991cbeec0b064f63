"""A chess table's slots, children and parents (docs/kernel-contract.md): ``census`` and the
forward kernels (``children``, ``summaries``, ``first_draws``, ``exit_marks``) here, over the
move following of ``follow``; ``parents`` in ``parents``, re-exported.

Slots ``side * half + index`` (side 0: the table's first side, playing white, to move).  A
move that captures or promotes changes the material: its child is in another, solved table,
found through the table's *changes*: for change number
``(captured slot or k) * (k + 1) * 6 + (promoted slot or k) * 6 + promotion type``,
``change_table[c]`` is the child table (-1: bare kings, a draw), and ``change_map[c, i]`` the
child table slot of this table's piece slot i (-1: captured).  Per child table: ``cdesc``,
``cflip`` (1: its first side is this table's second side: ranks mirrored, sides swapped),
``coff`` (where its values start in ``cres``/``cdist``) and ``chalf``.

A position with no legal move is checkmate (no children: lost at distance 0) or stalemate: one
pseudo-move ``STALEMATE_MOVE`` to a drawn child outside the table.

En passant (``ep.py``): a table with pawns of both colours has en passant slots after its
``2 * half`` ordinary ones (``keys``, sorted; empty for other tables).  A double step whose
position gives the opponent a legal en passant capture leads to that en passant slot, any
other move to an ordinary slot; an en passant slot's moves are its board's and the en passant
capture (into the table without the pawn taken).
"""
import numpy as np

from tbdb.solvers.jit import parallel_kernel, prange
from tbdb.solvers.chess.ep import ep_square
from tbdb.solvers.chess.index import KPAIR_NUMBER, KPAIR_STAB, MAX_PIECES, PKPAIR_NUMBER, \
    PKPAIR_STAB, canonical, half_size, orbit, pair_symmetries, unrank
from tbdb.solvers.retrograde.rows import sorted_unique
from tbdb.solvers.chess.pieces import attacked, placement_occupancy
from tbdb.solvers.chess.moves import MAX_MOVES, STALEMATE_MOVE
from tbdb.solvers.chess.follow import CHUNK, DRAW, ILLEGAL, LOSS, NO_EXT, NO_MOVE, NONE, WIN, \
    follow_move, follow_slot, listed_moves, may_repeat, move_scratch
from tbdb.solvers.chess.parents import parents  # noqa: F401  (the contract's third kernel)


@parallel_kernel
def census(desc, keys, lo, hi, kind, mult):
    """kind int8[hi - lo] (NONE, ILLEGAL or 0) and multiplicity int16[hi - lo] of slots lo..hi
    (ILLEGAL: the side not to move is in check; en passant slots are legal positions)."""
    half = half_size(desc)
    k = desc[0]
    pawns = desc[1]
    nsym = 2 if pawns else 8
    n = hi - lo
    chunks = (n + CHUNK - 1) // CHUNK
    for c in prange(chunks):
        sq = np.empty(MAX_PIECES, np.int64)
        t = np.empty(MAX_PIECES, np.int64)
        for r in range(c * CHUNK, min(n, (c + 1) * CHUNK)):
            p = lo + r
            if p >= 2 * half:  # an en passant slot: a legal position by its definition
                slot, _ = ep_square(desc, half, keys[p - 2 * half])
                unrank(desc, slot % half, sq)
                kind[r] = 0
                mult[r] = orbit(desc, sq, t)
                continue
            side = p // half
            idx = p % half
            unrank(desc, idx, sq)
            occ = placement_occupancy(desc, sq, k)
            if occ == 0:
                kind[r] = NONE
                mult[r] = 0
                continue
            a0 = sq[0] * 64 + sq[1]
            stab = PKPAIR_STAB[PKPAIR_NUMBER[a0]] if pawns else KPAIR_STAB[KPAIR_NUMBER[a0]]
            if stab == 1:  # only the identity keeps the kings canonical: see index.py
                mult[r] = nsym
            else:
                best, _ = canonical(desc, sq, t)
                if best != idx:
                    kind[r] = NONE
                    mult[r] = 0
                    continue
                mult[r] = orbit(desc, sq, t)
            kind[r] = ILLEGAL if attacked(desc, sq, sq[1 - side], side, occ, -1) else 0


@parallel_kernel
def children(desc, keys, positions, change_table, change_map, cdesc, cflip, coff, chalf, cres,
             cdist, crank, keyed, count, child, move, ext_result, ext_distance):
    """Every legal move of each position, in move order (docs/kernel-contract.md); with
    ``keyed`` each move's order key (``keys.py``) in place of its code."""
    half = half_size(desc)
    n = positions.shape[0]
    chunks = (n + CHUNK - 1) // CHUNK
    for c in prange(chunks):
        sq, after, csq, t, order, syms, pairs, board, moves, victims, weight, lone = \
            move_scratch(desc)
        for r in range(c * CHUNK, min(n, (c + 1) * CHUNK)):
            side, here, occ, m, _ = listed_moves(desc, keys, half, positions[r], sq, board, moves,
                                                 victims, order, MAX_MOVES, False)
            if m == 0:
                if attacked(desc, sq, sq[side], 1 - side, occ, -1):
                    count[r] = 0
                else:
                    count[r] = 1
                    child[r, 0] = -1
                    move[r, 0] = STALEMATE_MOVE
                    ext_result[r, 0] = DRAW
                    ext_distance[r, 0] = 0
                continue
            nsym = pair_symmetries(desc, sq, syms, pairs)
            for e in range(m):
                number, at, er, ed = follow_move(desc, keys, half, here, sq, side, occ, moves[e],
                                                 victims[e], keyed, after, t, csq, syms, pairs,
                                                 nsym, weight, lone, change_table, change_map,
                                                 cdesc, cflip, coff, chalf, cres, cdist, crank)
                move[r, e] = number
                child[r, e] = at
                if at < 0:
                    ext_result[r, e] = er
                    ext_distance[r, e] = ed
            count[r] = m


@parallel_kernel
def summaries(desc, keys, positions, change_table, change_map, cdesc, cflip, coff, chalf, cres,
              cdist, crank, keyed, distinct, ext_loss, ext_loss_move, ext_win, ext_win_move,
              ext_draw):
    """What the edge-free solve needs of each position's children (docs/kernel-contract.md),
    without rows: the captures and promotions first, and where one leads to a lost child the
    position is won and its in-table children are not indexed (``distinct`` 0); else they
    are, and sorted to drop repeats only where two can meet (``may_repeat``): sorting every
    row cost a large part of listing the children.  Where none can meet, the count is
    that of the quiet moves, and they are not indexed at all."""
    half = half_size(desc)
    n = positions.shape[0]
    chunks = (n + CHUNK - 1) // CHUNK
    for c in prange(chunks):
        sq, after, csq, t, order, syms, pairs, board, moves, victims, weight, lone = \
            move_scratch(desc)
        found = np.empty(MAX_MOVES, np.int64)
        unique = np.empty(MAX_MOVES, np.int64)
        for r in range(c * CHUNK, min(n, (c + 1) * CHUNK)):
            # the quiet moves counted, not listed (most positions need only their number)
            side, here, occ, m, quiet = listed_moves(desc, keys, half, positions[r], sq, board,
                                                     moves, victims, order, MAX_MOVES, True)
            lo = NO_EXT
            lo_move = NO_MOVE
            hi = np.int16(-1)
            hi_move = NO_MOVE
            dr = 0
            if m + quiet == 0 and not attacked(desc, sq, sq[side], 1 - side, occ, -1):
                dr = 1  # stalemate: its pseudo-move leads to a drawn child outside
            nsym = 0  # the kings' symmetries: only quiet moves' children need them
            for e in range(m):  # captures and promotions: children in other tables
                number, _, er, ed = follow_move(desc, keys, half, here, sq, side, occ, moves[e],
                                                victims[e], keyed, after, t, csq, syms, pairs,
                                                nsym, weight, lone, change_table, change_map,
                                                cdesc, cflip, coff, chalf, cres, cdist, crank)
                if er == LOSS:
                    if ed < lo:
                        lo = ed
                        lo_move = number
                elif er == WIN:
                    if ed > hi:
                        hi = ed
                        hi_move = number
                else:
                    dr = 1
            got = 0
            if lo == NO_EXT and quiet > 0 and may_repeat(desc, sq, side):
                # listed again, the quiet moves too, to index their children
                _, _, _, m, _ = listed_moves(desc, keys, half, positions[r], sq, board, moves,
                                             victims, order, MAX_MOVES, False)
                nsym = pair_symmetries(desc, sq, syms, pairs)
                for e in range(m):
                    if victims[e] >= 0 or moves[e] >> 12 != 0:
                        continue
                    _, at, _, _ = follow_move(desc, keys, half, here, sq, side, occ, moves[e],
                                              victims[e], keyed, after, t, csq, syms, pairs, nsym,
                                              weight, lone, change_table, change_map, cdesc, cflip,
                                              coff, chalf, cres, cdist, crank)
                    found[got] = at
                    got += 1
                got = sorted_unique(found, got, unique)
            elif lo == NO_EXT:
                # no two quiet moves can meet in one child (``may_repeat``), so the distinct
                # children are the quiet moves: counted, not indexed (indexing them was most
                # of this pass's work beside listing the moves)
                got = quiet
            distinct[r] = got
            ext_loss[r] = lo
            ext_loss_move[r] = lo_move
            ext_win[r] = hi
            ext_win_move[r] = hi_move
            ext_draw[r] = dr


@parallel_kernel
def first_draws(desc, keys, positions, change_table, change_map, cdesc, cflip, coff, chalf, cres,
                cdist, crank, keyed, result, best):
    """best[p] of each drawn position p of ``positions``: its first move (code, or with
    ``keyed`` order key) in move order to a drawn child, in the table (``result``) or out of
    it; a stalemate's pseudo-move.  ``children``'s work, but a draw's first move nearly always
    draws too, so the children after it are never indexed."""
    half = half_size(desc)
    n = positions.shape[0]
    chunks = (n + CHUNK - 1) // CHUNK
    for c in prange(chunks):
        sq, after, csq, t, order, syms, pairs, board, moves, victims, weight, lone = \
            move_scratch(desc)
        for r in range(c * CHUNK, min(n, (c + 1) * CHUNK)):
            slot = positions[r]
            # the first piece's moves only: the first move nearly always draws
            side, here, occ, m, _ = listed_moves(desc, keys, half, slot, sq, board, moves, victims,
                                                 order, 1, False)
            b = NO_MOVE
            if m == 0:
                if not attacked(desc, sq, sq[side], 1 - side, occ, -1):
                    b = STALEMATE_MOVE
                best[slot] = b
                continue
            nsym = pair_symmetries(desc, sq, syms, pairs)
            listed_all = False
            e = 0
            while True:
                if e == m:
                    if listed_all:
                        break
                    # no move of the first piece draws: every move (the same ones first)
                    _, _, _, m, _ = listed_moves(desc, keys, half, slot, sq, board, moves,
                                                 victims, order, MAX_MOVES, False)
                    listed_all = True
                    if e == m:
                        break
                number, ch, er, _ = follow_move(desc, keys, half, here, sq, side, occ, moves[e],
                                                victims[e], keyed, after, t, csq, syms, pairs,
                                                nsym, weight, lone, change_table, change_map,
                                                cdesc, cflip, coff, chalf, cres, cdist, crank)
                if (result[ch] if ch >= 0 else er) == DRAW:
                    b = number
                    break
                e += 1
            best[slot] = b


@parallel_kernel
def exit_marks(desc, keys, positions, change_table, change_map, cdesc, cflip, coff, chalf,
               marks):
    """Mark the child slot of every capture and promotion of each position (``positions``,
    every legal one of the table) among the child tables' slots laid end to end: the slots
    the table's kernels will read (``solvers/retrograde/exits.py``).  Row t of ``marks``
    (int64 bit words) is part t's: parts take chunks in turn and never write the same row,
    so no bit is lost to another thread's write (``merge_marks`` joins the rows)."""
    half = half_size(desc)
    n = positions.shape[0]
    chunks = (n + CHUNK - 1) // CHUNK
    parts = marks.shape[0]
    for part in prange(parts):
        sq, after, csq, t, order, syms, pairs, board, moves, victims, weight, lone = \
            move_scratch(desc)
        for c in range(part, chunks, parts):
            for r in range(c * CHUNK, min(n, (c + 1) * CHUNK)):
                # the quiet moves counted, not listed: only captures and promotions leave
                side, here, occ, m, _ = listed_moves(desc, keys, half, positions[r], sq, board,
                                                     moves, victims, order, MAX_MOVES, True)
                for e in range(m):
                    _, _, at = follow_slot(desc, keys, half, here, sq, side, occ, moves[e],
                                           victims[e], False, after, t, csq, syms, pairs, 0,
                                           weight, lone, change_table, change_map, cdesc,
                                           cflip, coff, chalf)
                    if at >= 0:
                        marks[part, at >> 6] |= np.int64(1) << (at & 63)
