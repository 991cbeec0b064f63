"""CDC notation kernels.

``read_text``: position text to board in one Numba call, the fast path of
``tbdb.games.cdc.Position.parse`` (a text lookup otherwise spends a third of its time reading
the text in Python, square by square).

The kernel accepts exactly the notation: four ranks (4 to 1) of piece letters and single digits
covering eight files each, separated by ``/``, one space, ``r`` or ``b``, and no side with more
pieces of a kind than the game has.  Whatever it does not accept it leaves to the Python parser,
which raises the error that quotes the text: the kernel never decides an error.
``tests/test_cdc_text.py`` compares both parsers.

``patterns``: the board text of many placements, a letter per slot (a table's ``texts`` stream
fills in the piece letters in SQL).
"""
import numpy as np

from tbdb.solvers.jit import kernel, parallel_kernel, prange

NSQ = 32
_LETTERS = b"KGMRNCP"  # type 0..6; upper case red (code = type), lower case black (7 + type)
_MAX_PER_TYPE = np.array([1, 2, 2, 2, 2, 2, 5], np.int64)


def _code_table():
    """CODE[byte]: the piece code of a piece letter, -2 for any other byte (digits 1-8 are
    read before the table is consulted)."""
    code = np.full(256, -2, np.int64)
    for t, letter in enumerate(_LETTERS):
        code[letter] = t
        code[letter + 32] = 7 + t
    return code


CODE = _code_table()


@kernel
def read_text(text, code, limit, board):
    """Read ``text`` (uint8 ASCII) into ``board`` (int8[32], a1 first).  Returns (side to move
    0 red / 1 black, material key = sum over pieces of 6 ** code), or side -1 when the text is
    not exactly the notation or a side has too many pieces of a kind."""
    n = text.shape[0]
    counts = np.zeros(14, np.int64)
    p = 0
    key = np.int64(0)
    for rank in range(3, -1, -1):  # rank 4 comes first in the text
        if rank < 3:
            if p >= n or text[p] != 47:  # '/'
                return -1, key
            p += 1
        col = 0
        prev_digit = False
        while p < n and text[p] != 47 and text[p] != 32:
            ch = text[p]
            if 49 <= ch <= 56:  # '1'..'8'
                if prev_digit:
                    return -1, key
                run = ch - 48
                if col + run > 8:
                    return -1, key
                for _ in range(run):
                    board[rank * 8 + col] = -1
                    col += 1
                prev_digit = True
            else:
                c = code[ch]
                if c < 0 or col >= 8:
                    return -1, key
                board[rank * 8 + col] = c
                counts[c] += 1
                key += np.int64(6) ** c
                col += 1
                prev_digit = False
            p += 1
        if col != 8:
            return -1, key
    if p + 2 != n or text[p] != 32:
        return -1, key
    last = text[p + 1]
    side = 0 if last == 114 else 1 if last == 98 else -1  # 'r', 'b'
    for c in range(14):
        if counts[c] > limit[c % 7]:
            return -1, key
    return side, key


@parallel_kernel
def patterns(squares):
    """Board text of many placements with slot j written as chr(65 + j) ('A', 'B', ...):
    squares int8[n, k] -> uint8[n, 36] ASCII, zero padded (ranks 4 to 1, digits for empties)."""
    n, k = squares.shape
    out = np.zeros((n, 36), np.uint8)
    nchunk = (n + 4095) // 4096
    cells = np.empty((nchunk, NSQ), np.int8)
    for ch in prange(nchunk):
        cell = cells[ch]
        for i in range(ch * 4096, min(n, (ch + 1) * 4096)):
            for s in range(NSQ):
                cell[s] = -1
            for j in range(k):
                cell[squares[i, j]] = j
            p = 0
            for row in range(3, -1, -1):
                if row < 3:
                    out[i, p] = 47  # '/'
                    p += 1
                empty = 0
                for col in range(8):
                    j = cell[row * 8 + col]
                    if j < 0:
                        empty += 1
                        continue
                    if empty:
                        out[i, p] = 48 + empty
                        p += 1
                        empty = 0
                    out[i, p] = 65 + j
                    p += 1
                if empty:
                    out[i, p] = 48 + empty
                    p += 1
    return out
