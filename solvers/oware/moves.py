"""Oware (Abapa) move kernels: sowing and captures, every move of a book, the solver's packed
move table.

Boards are int8[12] seen from the player to move (``index``); a move is the house 0-5 sown.
"""
from __future__ import annotations

import numpy as np

from tbdb.solvers.jit import kernel, nogil_kernel
from tbdb.solvers.oware.index import BOOK_SIZES, HOUSES, next_position, rank_flipped_n, unrank

#: Largest seed count ``solve_book`` accepts: a move packs a global index into 27 bits.
MAX_SOLVE_N = 18


@kernel
def sow(houses, h, out):
    """Play house ``h`` (0..5) of ``houses`` (int8[12], mover's view).

    Writes the board after the move into ``out`` (int8[12]), still in the mover's orientation
    (not flipped; see ``flip`` and ``index.rank_flipped_n``), with captured houses emptied.
    Returns the number of seeds captured (0 for a grand slam, which is played but captures
    nothing), or -1 if the move is illegal (empty house, or the opponent would have no seed: the
    feeding rule)."""
    s = np.int64(houses[h])
    if s == 0:
        return -1
    for j in range(HOUSES):
        out[j] = houses[j]
    out[h] = 0
    if s <= 11:
        for j in range(1, s + 1):
            p = h + j
            if p >= HOUSES:
                p -= HOUSES
            out[p] += 1
        last = h + s
        if last >= HOUSES:
            last -= HOUSES
    else:
        # every house but the origin gets q seeds, then r more seeds go round once more
        q = s // 11
        rem = s - 11 * q
        for j in range(HOUSES):
            if j != h:
                out[j] += q
        for j in range(1, rem + 1):
            out[(h + j) % HOUSES] += 1
        last = (h + rem) % HOUSES if rem > 0 else (h + 11) % HOUSES
    opp = 0
    for j in range(6, HOUSES):
        opp += out[j]
    if opp == 0:
        return -1
    cap = 0
    j = last
    while j >= 6 and (out[j] == 2 or out[j] == 3):
        cap += out[j]
        j -= 1
    if cap == 0 or cap == opp:  # nothing to take, or a grand slam
        return 0
    for i in range(j + 1, last + 1):
        out[i] = 0
    return cap


@kernel
def flip(board, out):
    """``out[i] = board[(i + 6) % 12]``: the board seen from the other player."""
    for i in range(HOUSES):
        out[i] = board[(i + 6) % HOUSES]


@kernel
def transitions(n):
    """Every move of every position of book ``n``.

    Returns ``(child int32[N, 6], captured int8[N, 6])`` with ``N = C(n + 11, 11)``: for position
    ``i`` and house ``h``, ``captured[i, h]`` is the number of seeds captured (-1 = illegal move)
    and ``child[i, h]`` the rank, in book ``n - captured[i, h]``, of the position after the move
    seen from the new mover (-1 if illegal)."""
    N = BOOK_SIZES[n]
    child = np.empty((N, 6), dtype=np.int32)
    captured = np.empty((N, 6), dtype=np.int8)
    pos = np.empty(HOUSES, dtype=np.int8)
    out = np.empty(HOUSES, dtype=np.int8)
    unrank(n, 0, pos)
    for i in range(N):
        if i > 0:
            next_position(pos)
        for h in range(6):
            cap = sow(pos, h, out)
            captured[i, h] = cap
            child[i, h] = -1 if cap < 0 else rank_flipped_n(out, n - cap)
    return child, captured


# A solver move is one uint32: bits 0-26 the global index of the (flipped) child, bits 27-31 the
# number of seeds captured.  27 bits cover every global index up to n = MAX_SOLVE_N.
IDX_BITS = 27
IDX_MASK = (1 << IDX_BITS) - 1


@kernel
def _moves_chunk(c, chunk, n, N, base, packed, pos, out):
    """``move_table`` for positions ``c * chunk .. min(N, (c + 1) * chunk) - 1``; ``pos``/``out``
    int8[12] scratch."""
    zero = base[n + 1]
    high = zero + 1
    lo = c * chunk
    hi = min(N, lo + chunk)
    unrank(n, lo, pos)
    for i in range(lo, hi):
        if i > lo:
            next_position(pos)
        legal = 0
        for h in range(6):
            cap = sow(pos, h, out)
            if cap >= 0:
                g = base[n - cap] + rank_flipped_n(out, n - cap)
                packed[i, h] = (cap << IDX_BITS) | g
                legal += 1
            else:
                packed[i, h] = high
        if legal == 0:
            own = 0
            for h in range(6):
                own += pos[h]
            packed[i, 0] = (own << IDX_BITS) | zero


@nogil_kernel
def move_table(n, base, chunk):
    """The move table of book ``n`` as the solver uses it (global indices, see ``index``).

    Returns ``packed uint32[N, 6]``.  For a legal move ``h`` of position ``i`` capturing ``cap``
    seeds, ``packed[i, h] = cap << 27 | g`` with ``g = base[n - cap] + rank(flipped child)``.  The
    solver scores a move as ``key = 8 * (cap - V(g)) + 7 - h``: the maximum over h gives the
    value (``key >> 3``) and, among equal values, the lowest house (``h = 7 - (key & 7)``).  An
    illegal move is ``HIGH`` (``base[n + 1] + 1``, a cell always holding 127), so it never wins.
    A position without a legal move has ``own_seeds << 27 | ZERO`` in slot 0 (``ZERO`` =
    ``base[n + 1]``, a cell always holding 0) and HIGH elsewhere: its value is its own seeds and
    a winning slot 0 whose index is ZERO means "no move".  Needs ``n <= MAX_SOLVE_N``;
    ``chunk`` = positions per task.  (Serial: a one-off pass, cheap next to the steps; a
    parallel version would add seconds of compile time.)"""
    N = BOOK_SIZES[n]
    nchunks = (N + chunk - 1) // chunk
    packed = np.empty((N, 6), dtype=np.uint32)
    scratch = np.empty((nchunks, 2, HOUSES), dtype=np.int8)
    for c in range(nchunks):
        _moves_chunk(c, chunk, n, N, base, packed, scratch[c, 0], scratch[c, 1])
    return packed
