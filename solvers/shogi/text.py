"""SFEN text to board and hands, checked, written back and placed in its table, in one Numba
call: the fast path of ``tbdb.games.shogi.Position.parse`` (a lookup would otherwise spend most
of its time reading its text and finding its slot).

The kernel accepts only the plain form ``board side hands [move number]`` with single spaces
and hands in any order.  Whatever it does not accept (a malformed or illegal position, the
``sfen `` prefix, ``startpos``, other whitespace) it leaves to the Python parser, which
either reads it or raises the error that quotes it: the kernel never decides an error.

Its checks are those of ``Position._validate``: one king each, no piece that could never move,
no two unpromoted pawns of a side on a file, no more pieces of a type than shogi has, the side
not to move not in check.  ``tests/test_shogi_sfen.py`` compares both parsers.
"""
import numpy as np

from tbdb.solvers.jit import kernel
from tbdb.solvers.shogi.moves import KING, KNIGHT, NSQ, PAWN, PROMOTED, ROOK, attacked, dead
from tbdb.solvers.shogi.index import DESC_LEN, make_desc, slot_of

MAX_TEXT = 256  # the longest SFEN of a legal position is well below (40 pieces, 8 slashes)
TEXT_AT = NSQ + 16  # the kernel's output: board, hands (2 x 8), then the SFEN text
OUT_LEN = TEXT_AT + MAX_TEXT
SLOT_PIECES = 3  # non-king pieces of the tables whose slot a parse finds (tables go to 2)
_LETTERS = b" PLNSBRGK"  # type -> letter
_HAND_ORDER = np.array([6, 5, 7, 4, 3, 2, 1], np.int64)  # R B G S N L P, as SFEN writes hands
_MAX_OF_TYPE = np.array([0, 18, 4, 4, 4, 2, 2, 4, 2], np.int64)


def _letter_table():
    """CODE[byte]: the piece code of a piece letter (upper case black), 0 for other bytes."""
    code = np.zeros(256, np.int64)
    for t in range(1, 9):
        code[_LETTERS[t]] = t
        code[_LETTERS[t] + 32] = t + 16
    return code


def _table_descs():
    """(KEYS int64[m] ascending, DESCS int64[m, DESC_LEN]): the material key (see
    ``parse_sfen``) and table desc of every table of 1..SLOT_PIECES non-king pieces."""
    from itertools import combinations_with_replacement
    strongest_first = (6, 5, 7, 4, 3, 2, 1)  # R B G S N L P, as table names list them
    rows = []
    for n in range(1, SLOT_PIECES + 1):
        for types in combinations_with_replacement(strongest_first, n):
            rows.append((sum(19 ** (t - 1) for t in types), make_desc(types)))
    rows.sort(key=lambda row: row[0])
    return (np.array([key for key, _ in rows], np.int64),
            np.array([desc for _, desc in rows], np.int64).reshape(-1, DESC_LEN))


CODE = _letter_table()
LETTER = np.frombuffer(_LETTERS, np.uint8).astype(np.int64)
KEYS, DESCS = _table_descs()
FAIL = (np.int64(-1), np.int64(0), np.int64(0), False, np.int64(-1), np.int64(0))


@kernel
def _write(board, hands, side, out):
    """The SFEN of a position as ``Position.sfen`` writes it (move number 1) into ``out``
    (uint8[MAX_TEXT]); returns its length."""
    n = 0
    for r in range(9):
        if r:
            out[n] = 47  # '/'
            n += 1
        empty = 0
        for f in range(8, -1, -1):
            p = board[f * 9 + r]
            if p == 0:
                empty += 1
                continue
            if empty:
                out[n] = 48 + empty
                n += 1
                empty = 0
            t = p & 15
            if t > KING:
                out[n] = 43  # '+'
                n += 1
                t -= PROMOTED
            out[n] = LETTER[t] + (32 if p >= 16 else 0)
            n += 1
        if empty:
            out[n] = 48 + empty
            n += 1
    out[n] = 32
    out[n + 1] = 98 if side == 0 else 119  # 'b' / 'w'
    out[n + 2] = 32
    n += 3
    start = n
    for c in range(2):
        for i in range(7):
            t = _HAND_ORDER[i]
            h = hands[c, t]
            if h == 0:
                continue
            if h >= 10:
                out[n] = 48 + h // 10
                n += 1
            if h > 1:
                out[n] = 48 + h % 10
                n += 1
            out[n] = LETTER[t] + 32 * c
            n += 1
    if n == start:
        out[n] = 45  # '-'
        n += 1
    out[n] = 32
    out[n + 1] = 49  # '1'
    return n + 2


@kernel
def parse_sfen(text, out):
    """Read ``text`` (ASCII bytes, or uint8[]) and check it.  Writes into ``out``
    (uint8[OUT_LEN]) the board (81 piece codes, square order), the hands (2 x 8 counts) and,
    from TEXT_AT, the SFEN as tbdb writes it.  Returns (side, material key, length of that
    SFEN, whether ``text`` is already it, slot, mirrored); side -1 when the Python parser must decide.  The
    material key is ``batch_keys``'s (solvers/shogi/index.py): sum of count_t * 19 ** (t -
    1) over piece types t = 1..7; slot and mirrored are ``slot_of``'s in the table of those
    pieces (slot -1 for bare kings and more than SLOT_PIECES pieces)."""
    n = len(text)
    board = np.zeros(NSQ, np.int8)
    hands = np.zeros((2, 8), np.int8)
    i = 0
    for r in range(9):
        f = 9
        promoted = False
        while i < n and text[i] != 47 and text[i] != 32:
            ch = text[i]
            i += 1
            if 49 <= ch <= 57:  # '1'..'9'
                if promoted:
                    return FAIL
                f -= ch - 48
                continue
            if ch == 43:  # '+'
                if promoted:
                    return FAIL
                promoted = True
                continue
            code = CODE[ch]
            t = code & 15
            if code == 0 or f < 1 or (promoted and t > ROOK):
                return FAIL
            board[(f - 1) * 9 + r] = code + (PROMOTED if promoted else 0)
            f -= 1
            promoted = False
        if f != 0 or promoted or i >= n or text[i] != (47 if r < 8 else 32):
            return FAIL
        i += 1
    if i + 2 >= n or text[i + 1] != 32:
        return FAIL
    if text[i] == 98:
        side = 0
    elif text[i] == 119:
        side = 1
    else:
        return FAIL
    i += 2
    if text[i] == 45:  # '-'
        i += 1
    elif text[i] == 32:
        return FAIL  # no hands field
    else:
        while i < n and text[i] != 32:
            count = 0
            digits = 0
            while i < n and 48 <= text[i] <= 57:
                if digits == 0 and text[i] == 48:
                    return FAIL  # a count does not start with 0
                count = count * 10 + text[i] - 48
                digits += 1
                i += 1
            if i >= n or digits > 2:
                return FAIL
            code = CODE[text[i]]
            t = code & 15
            if code == 0 or t == KING:
                return FAIL
            hands[code >> 4, t] += count if digits else 1
            if hands[code >> 4, t] > 18:
                return FAIL  # more than shogi has (and no int8 overflow)
            i += 1
    if i < n:  # the move number
        if text[i] != 32 or i + 1 == n:
            return FAIL
        for j in range(i + 1, n):
            if not 48 <= text[j] <= 57:
                return FAIL
    # the checks of Position._validate
    total = np.zeros(9, np.int64)
    kings = np.zeros(2, np.int64)
    pawn_files = np.zeros(2 * 9, np.int64)
    for sq in range(NSQ):
        p = board[sq]
        if p == 0:
            continue
        t = p & 15
        c = p >> 4
        if t == KING:
            kings[c] += 1
            continue
        total[t - PROMOTED if t > KING else t] += 1
        if t <= KNIGHT and dead(c, t, sq):
            return FAIL
        if t == PAWN:
            pawn_files[c * 9 + sq // 9] += 1
            if pawn_files[c * 9 + sq // 9] > 1:
                return FAIL
    if kings[0] != 1 or kings[1] != 1:
        return FAIL
    key = np.int64(0)
    scale = np.int64(1)
    for t in range(1, 8):
        count = total[t] + hands[0, t] + hands[1, t]
        if count > _MAX_OF_TYPE[t]:
            return FAIL
        key += count * scale
        scale *= 19
    enemy_king = 0
    for sq in range(NSQ):
        if board[sq] == KING + 16 * (1 - side):
            enemy_king = sq
    if attacked(board, enemy_king, side):
        return FAIL
    m = _write(board, hands, side, out[TEXT_AT:])
    same = m == n
    if same:
        for j in range(n):
            if out[TEXT_AT + j] != text[j]:
                same = False
                break
    out[:NSQ] = board
    for c in range(2):
        for t in range(8):
            out[NSQ + 8 * c + t] = hands[c, t]
    slot = np.int64(-1)
    mirrored = np.int64(0)
    row = np.searchsorted(KEYS, key)
    if row < len(KEYS) and KEYS[row] == key:
        k = SLOT_PIECES
        slot, mirrored = slot_of(DESCS[row], board, hands, side, np.empty(2, np.int64),
                                  np.empty(k, np.int64), np.empty(k, np.int64),
                                  np.empty(k, np.int64), np.empty(k, np.int64))
    return np.int64(side), key, np.int64(m), same, slot, np.int64(mirrored)
