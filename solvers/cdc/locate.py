"""Chinese Dark Chess probing: boards of piece codes to table slots and back.

Boards are int8[n, 32] piece codes (``moves``), -1 empty; a slot is ``side * size + idx`` in
the stored orientation of the material's table (``index``).
"""
import numpy as np

from tbdb.solvers.jit import kernel, parallel_kernel, prange
from tbdb.solvers.cdc.index import SYM, canonical
from tbdb.solvers.cdc.moves import CAPTURE_FLAG, NSQ


@kernel
def _slots_of_board(board, desc, swap, sq):
    """Fill ``sq`` (slot order) from a board of piece codes; colours swapped if ``swap``.
    Returns False if the board does not hold exactly the material's pieces."""
    k = desc[0]
    for j in range(k):
        sq[j] = -1
    count = 0
    for s in range(NSQ):
        code = board[s]
        if code < 0:
            continue
        if swap:
            code = (1 - code // 7) * 7 + code % 7
        placed = False
        for j in range(k):
            if sq[j] < 0 and desc[12 + j] == code:
                sq[j] = s
                placed = True
                break
        if not placed:
            return False
        count += 1
    return count == k


@kernel
def locate_one(board, side, desc, swap, size):
    """(slot, symmetry) of one board of the material ``desc`` describes (see locate_many)."""
    sq = np.empty(16, np.int64)
    tmp = np.empty(16, np.int64)
    _slots_of_board(board, desc, swap, sq)
    idx, s = canonical(sq, desc, tmp)
    return (side ^ swap) * size + idx, s


@kernel
def _locate_rows(boards, sides, rows, lo, hi, desc, swap, size, sq, tmp, out_slot, out_sym):
    """``locate_many`` for ``rows[lo:hi]``, with ``sq``/``tmp`` int64[16] scratch."""
    for j in range(lo, hi):
        r = rows[j]
        _slots_of_board(boards[r], desc, swap, sq)
        idx, s = canonical(sq, desc, tmp)
        out_slot[r] = (sides[r] ^ swap) * size + idx
        out_sym[r] = s


@parallel_kernel
def locate_many(boards, sides, rows, desc, swap, size, out_slot, out_sym):
    """Slots (``side * size + canonical idx`` in the stored orientation) and symmetries of the
    boards ``rows`` names, all of one material: boards int8[n, 32] piece codes, sides int8[n];
    row ``rows[j]`` is written at ``out_slot[rows[j]]`` (no gathered copy of the boards)."""
    n = rows.shape[0]
    nchunk = (n + 4095) // 4096
    scratch = np.empty((nchunk, 2, 16), np.int64)
    for ch in prange(nchunk):
        _locate_rows(boards, sides, rows, ch * 4096, min(n, (ch + 1) * 4096), desc, swap, size,
                     scratch[ch, 0], scratch[ch, 1], out_slot, out_sym)


@kernel
def locate_few(boards, sides, rows, desc, swap, size, out_slot, out_sym):
    """``locate_many`` on one core: a batch spread over many materials gives each a few rows,
    and waking the other threads for a few rows costs more than locating them."""
    _locate_rows(boards, sides, rows, 0, rows.shape[0], desc, swap, size,
                 np.empty(16, np.int64), np.empty(16, np.int64), out_slot, out_sym)


@parallel_kernel
def locate_groups(boards, sides, order, group, descs, swaps, sizes, out_slot, out_sym):
    """``locate_many`` for rows of many materials at once: row ``order[j]`` is of material
    ``group[j]`` (``descs[g]``, ``swaps[g]``, ``sizes[g]``).  A batch spread over a thousand
    CDC materials paid a Python round and a kernel call per material."""
    n = order.shape[0]
    nchunk = (n + 4095) // 4096
    for ch in prange(nchunk):
        sq = np.empty(16, np.int64)
        tmp = np.empty(16, np.int64)
        for j in range(ch * 4096, min(n, (ch + 1) * 4096)):
            r = order[j]
            g = group[j]
            desc = descs[g]
            _slots_of_board(boards[r], desc, swaps[g], sq)
            idx, s = canonical(sq, desc, tmp)
            out_slot[r] = (sides[r] ^ swaps[g]) * sizes[g] + idx
            out_sym[r] = s


@parallel_kernel
def map_moves(codes, syms, out):
    """Move codes on the canonical board mapped back through each row's symmetry (symmetries
    are their own inverses); -1 stays -1."""
    for r in prange(codes.shape[0]):
        mv = codes[r]
        if mv >= 0:
            s = syms[r]
            a = SYM[s, (mv % CAPTURE_FLAG) // 32]
            b = SYM[s, mv % 32]
            mv = (mv // CAPTURE_FLAG) * CAPTURE_FLAG + a * 32 + b
        out[r] = mv


POW6 = np.array([6 ** c for c in range(14)], np.int64)  # a material key's term per piece code


@parallel_kernel
def material_keys(boards):
    """A number per board naming its material: sum over pieces of 6 ** code (int64[n]).
    Boards with a side that has no piece get -1 (red missing) or -2 (black missing)."""
    n = boards.shape[0]
    keys = np.empty(n, np.int64)
    for i in prange(n):
        key = np.int64(0)
        red = 0
        black = 0
        for s in range(NSQ):
            c = boards[i, s]
            if c >= 0:
                key += POW6[c]
                if c < 7:
                    red += 1
                else:
                    black += 1
        keys[i] = key if red and black else (-1 if red == 0 else -2)
    return keys


@parallel_kernel
def first_overfull(boards, limit, max_pieces):
    """The first row (int8[n, 32], codes already known to be -1..13) with more pieces of a kind
    than ``limit[code]`` or more than ``max_pieces`` pieces; -1 if there is none.  Chunks of
    rows are searched in parallel, each for its own first such row."""
    n = boards.shape[0]
    nchunk = (n + 4095) // 4096
    first = np.full(nchunk, -1, np.int64)
    counts = np.zeros((nchunk, 14), np.int64)
    for ch in prange(nchunk):
        count = counts[ch]
        for r in range(ch * 4096, min(n, (ch + 1) * 4096)):
            count[:] = 0
            total = 0
            bad = False
            for s in range(boards.shape[1]):
                c = boards[r, s]
                if c >= 0:
                    count[c] += 1
                    total += 1
            if total > max_pieces:
                bad = True
            for c in range(14):
                if count[c] > limit[c]:
                    bad = True
            if bad:
                first[ch] = r
                break
    for ch in range(nchunk):
        if first[ch] >= 0:
            return first[ch]
    return -1
