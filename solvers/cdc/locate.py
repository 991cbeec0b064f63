"""Chinese Dark Chess probing: boards of piece codes to table slots and back.

Boards are int8[n, 32] piece codes (``moves``), -1 empty; a slot is ``side * size + idx`` in
the stored orientation of the material's table (``index``).
"""
import numpy as np

from tbdb.solvers.jit import inline_kernel, kernel, parallel_kernel, prange
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
def locate_groups(boards, sides, group, table_of, descs, swaps, sizes, out_slot, out_sym):
    """``locate_many`` for rows of many materials at once, in row order: row r is of material
    group ``group[r]`` (``group_rows``), located in table ``t = table_of[group[r]]``
    (``descs[t]``, ``swaps[t]``, ``sizes[t]``), or left alone where t is -1.  (A batch spread
    over a thousand CDC materials paid a Python round and a kernel call per material; taken in
    material order, the rows were random reads of the boards.)"""
    n = group.shape[0]
    nchunk = (n + 4095) // 4096
    scratch = np.empty((nchunk, 2, 16), np.int64)
    for ch in prange(nchunk):
        sq = scratch[ch, 0]
        tmp = scratch[ch, 1]
        for r in range(ch * 4096, min(n, (ch + 1) * 4096)):
            t = table_of[group[r]]
            if t < 0:
                continue
            desc = descs[t]
            _slots_of_board(boards[r], desc, swaps[t], sq)
            idx, s = canonical(sq, desc, tmp)
            out_slot[r] = (sides[r] ^ swaps[t]) * sizes[t] + idx
            out_sym[r] = s


@inline_kernel
def _key_slot(slot_key, slot_group, k):
    """Where key ``k`` is in ``group_rows``' open-addressed table, or the empty slot it would
    take (the table is never full)."""
    mask = slot_key.shape[0] - 1
    i = np.int64((np.uint64(k) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(40)) & mask
    while slot_group[i] >= 0 and slot_key[i] != k:
        i = (i + 1) & mask
    return i


@kernel
def group_rows(keys):
    """Rows grouped by equal ``keys`` (int64[n]) in one pass and a counting sort, not a sort
    of the keys: ``(group int32[n], order int64[n], starts int64[g + 1],
    first int64[g])``, the groups numbered as their keys first appear; group j's rows are
    ``order[starts[j]:starts[j + 1]]``, ascending, and its key ``keys[first[j]]``."""
    n = keys.shape[0]
    size = 1 << 10
    while size < min(2 * n, 1 << 16):
        size <<= 1
    slot_key = np.empty(size, np.int64)
    slot_group = np.full(size, -1, np.int32)
    group = np.empty(n, np.int32)
    first = np.empty(n, np.int64)
    g = 0
    for r in range(n):
        k = keys[r]
        i = _key_slot(slot_key, slot_group, k)
        if slot_group[i] < 0:
            if 2 * (g + 1) > size:  # more distinct keys than the table holds well: grow it
                old_key = slot_key
                old_group = slot_group
                size *= 2
                slot_key = np.empty(size, np.int64)
                slot_group = np.full(size, -1, np.int32)
                for j in range(old_group.shape[0]):
                    if old_group[j] >= 0:
                        at = _key_slot(slot_key, slot_group, old_key[j])
                        slot_key[at] = old_key[j]
                        slot_group[at] = old_group[j]
                i = _key_slot(slot_key, slot_group, k)
            slot_key[i] = k
            slot_group[i] = g
            first[g] = r
            g += 1
        group[r] = slot_group[i]
    starts = np.zeros(g + 1, np.int64)
    for r in range(n):
        starts[group[r] + 1] += 1
    for j in range(g):
        starts[j + 1] += starts[j]
    fill = starts[:g].copy()
    order = np.empty(n, np.int64)
    for r in range(n):
        j = group[r]
        order[fill[j]] = r
        fill[j] += 1
    return group, order, starts, first[:g].copy()


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
def material_keys(boards, limit, max_pieces):
    """A number per board naming its material, and the first bad board, in one pass: keys
    int64[n] (sum over pieces of 6 ** code; -1 for a board whose red side has no piece, -2 for
    black), and the first row (``boards`` int8[n, 32], codes already known to be -1..13) with
    more pieces of a kind than ``limit[code]`` or more than ``max_pieces`` pieces, else -1.
    (Two passes, keys and the check, each cost about what this one does.)  Chunks of rows
    run in parallel; a chunk stops at its first bad row, whose keys then do not matter."""
    n = boards.shape[0]
    keys = np.empty(n, np.int64)
    nchunk = (n + 4095) // 4096
    first = np.full(nchunk, -1, np.int64)
    counts = np.zeros((nchunk, 14), np.int64)
    for ch in prange(nchunk):
        count = counts[ch]
        for i in range(ch * 4096, min(n, (ch + 1) * 4096)):
            count[:] = 0
            key = np.int64(0)
            red = 0
            black = 0
            for s in range(NSQ):
                c = boards[i, s]
                if c >= 0:
                    count[c] += 1
                    key += POW6[c]
                    if c < 7:
                        red += 1
                    else:
                        black += 1
            bad = red + black > max_pieces
            for c in range(14):
                if count[c] > limit[c]:
                    bad = True
            if bad:
                first[ch] = i
                break
            keys[i] = key if red and black else (-1 if red == 0 else -2)
    bad_row = np.int64(-1)
    for ch in range(nchunk):
        if first[ch] >= 0:
            bad_row = first[ch]
            break
    return keys, bad_row
