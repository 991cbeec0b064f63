"""Shogi as a plug-in of the retrograde driver: tables, lookups (SFEN in, USI out), batch, perft.

A table (``KGK``, ``KRGK``) holds two kings and fixed other pieces wherever they are: on the
board for either side, promoted or not, or in either hand.  Captures and drops stay in the
table, so no table depends on another.  Slots hold black-to-move positions only (white to move
is answered through the colour swap) with the left-right mirror folded in; the symmetry code
of a ``Location`` is ``2 * swap + mirror`` (``tbdb.games.shogi.tables.Symmetry``).
"""
from __future__ import annotations

from bisect import bisect_right
from functools import lru_cache

import numpy as np

from tbdb.errors import InvalidArrayError, InvalidMaterialError, InvalidOptionError, \
    InvalidPositionError, MissingTableError, quote
from tbdb.games.base import BatchLocation, Game, GameOver, Location, StatRow, Successor, \
    TableData, first_row_outside, require_integers
from tbdb.games.base import BATCH_FORM, OWN_PERFT  # capabilities
from tbdb.games.shogi.position import LETTERS, START_SFEN, Move, Position, hand_text
from tbdb.games.shogi.tables import MAX_PIECES, ShogiTable, Symmetry, all_tables, \
    parse_table_name, table_name
from tbdb.options import Option
from tbdb.solvers.shogi import moves as moves_k
from tbdb.solvers.shogi import index as k
from tbdb.solvers.shogi.tables import ILLEGAL
from tbdb.solvers.retrograde import DRAW, LOSS, WIN
from tbdb.games import notation

DEFAULT_PIECES = 3
PROMOTED_CHAR = "TUVWXY"  # one character per promoted P L N S B R in the views' board patterns
_SYMS = [Symmetry(bool(s & 2), bool(s & 1)) for s in range(4)]
_MIRROR = k.MIRROR
_FLIP = np.array([0 if c == 0 else c ^ 16 for c in range(32)], np.int8)  # owner swap


@lru_cache(maxsize=None)
def _table(name: str) -> ShogiTable:
    return ShogiTable(name)


_KEYS: dict[int, object] = {}  # material key -> (table name, desc), DRAW or a message


def _key_entry(key: int):
    types = [t for t in range(1, 8) for _ in range(key // 19 ** (t - 1) % 19)]
    if not types:
        return DRAW
    if len(types) + 2 > MAX_PIECES:
        return (f"has {len(types) + 2} pieces; tbdb builds shogi tables of 3 to {MAX_PIECES} "
                f"pieces")
    name = table_name(types)
    return name, _table(name).desc


@lru_cache(maxsize=1 << 16)  # codes are below 32768, symmetries 0..3: lookups reuse few
def _stored_move_usi(code: int, sym: int) -> str:
    """The USI text, on the position looked up, of a move code stored for its slot (a
    ValueError for a number no move has: a damaged table's)."""
    frm = (code >> 7) & 127
    if not 0 <= code < 2 * moves_k.PROMOTE_FLAG or code & 127 > moves_k.DROP_BASE \
            or frm > moves_k.DROP_BASE + 7:
        raise ValueError(f"{code!r} is no shogi move code")
    return _SYMS[sym].move(code).usi


def _sym_code(sym: Symmetry) -> int:
    return 2 * sym.swap + sym.mirror


# --------------------------------------------------------------------------- texts for the views

_BINOM_COLUMNS = k.BINOM.T.tolist()


def _unrank_group(rank: int, n: int, m: int) -> list[int]:
    """States (ascending, repeats allowed) of n identical pieces over m states from their rank:
    the Python twin of ``solvers.shogi.index._unrank_group``."""
    out = [0] * n
    for i in range(n - 1, -1, -1):
        column = _BINOM_COLUMNS[i + 1]  # nondecreasing in c: the largest c with C(c) <= rank
        c = bisect_right(column, rank, i, m + n - 1) - 1
        rank -= column[c]
        out[i] = c - i
    return out


def piece_patterns(desc: np.ndarray):
    """(idx int64[], texts) for the piece part ``idx`` (slot % prod) of a table: an 81-character
    board in SFEN reading order ('.' empty, a promoted piece as one of ``PROMOTED_CHAR``, lower
    case white) followed by the SFEN hands field.  Piece parts with two pieces on one square are
    left out."""
    groups = [tuple(int(x) for x in desc[4 + 5 * g: 9 + 5 * g]) for g in range(int(desc[1]))]
    idx, texts = [], []
    for rest in range(int(desc[2])):
        cells = ["."] * 81
        hands = [[0] * 8, [0] * 8]
        r, ok = rest, True
        for t, n, _first, _radix, stride in groups:
            g_rank, r = divmod(r, stride)
            for s in _unrank_group(g_rank, n, int(k.N_STATES[t])):
                loc, col, prom = int(k.ST_LOC[t, s]), int(k.ST_COL[t, s]), int(k.ST_PROM[t, s])
                if loc == k.HAND:
                    hands[col][t] += 1
                    continue
                p = (loc % 9) * 9 + 8 - loc // 9
                if cells[p] != ".":
                    ok = False
                ch = PROMOTED_CHAR[t - 1] if prom else LETTERS[t]
                cells[p] = ch.lower() if col else ch
        if ok:
            idx.append(rest)
            texts.append("".join(cells) + hand_text(hands))
    return np.array(idx, np.int64), texts


# --------------------------------------------------------------------------- symmetries

def mirrored(p: Position) -> Position:
    """The left-right mirror image (file f to file 10 - f)."""
    board = [0] * 81
    for sq, code in enumerate(p.board):
        board[int(_MIRROR[sq])] = code
    return Position(tuple(board), p.hands, p.side)


def swapped(p: Position) -> Position:
    """The colour swap: the board turned 180 degrees, owners, hands and the side to move
    exchanged."""
    board = [0] * 81
    for sq, code in enumerate(p.board):
        board[80 - sq] = int(_FLIP[code])
    return Position(tuple(board), (p.hands[1], p.hands[0]), 1 - p.side)


def _position(board: np.ndarray, hands: np.ndarray, side: int) -> Position:
    h = hands.tolist()
    return Position(tuple(board.tolist()), (tuple(h[0]), tuple(h[1])), side)


_CHUNK = 1 << 22  # slots per step of ``describe``'s counts


class ShogiGame(Game):
    name = "shogi"
    title = "Shogi (9x9, drops and promotion; two kings and up to two other pieces)"
    rules = "docs/rules/shogi.md"
    sample = "8K/9/9/9/9/9/G8/1k7/9 b - 1"
    views = "shogi.sql"
    position_type = Position
    example_build = {"table": "KGK"}
    capabilities = frozenset({BATCH_FORM, OWN_PERFT})
    build_options = (
        Option("pieces", f"every table of N pieces, kings included (default {DEFAULT_PIECES}; "
                         f"4 builds all 28 four-piece tables: hours)", min=3, max=MAX_PIECES,
               metavar="N"),
        Option("table", "one table: K, its other pieces strongest first (R B G S N L P), K; "
                        "e.g. KGK, KRGK, KGGK", type=str, metavar="TABLE"),
    )

    # ------------------------------------------------------------------ tables

    def plan(self, pieces: int | None = None, table: str | None = None) -> list[str]:
        """Tables to build: ``table`` alone (tables are closed under captures and drops, so
        none needs another), or every table of ``pieces`` pieces."""
        if table is not None:
            if pieces is not None:
                raise InvalidOptionError(f"give either a table or a number of pieces, not both "
                                         f"(table={quote(table)}, pieces={pieces!r})")
            return [self.check_table(table)]
        return all_tables(DEFAULT_PIECES if pieces is None else pieces)

    def weight(self, table: str) -> int:
        return _table(table).size  # slots: both sides to move

    def check_table(self, table: str) -> str:
        try:
            types = parse_table_name(table)
        except InvalidMaterialError as exc:
            raise InvalidOptionError(str(exc)) from None
        if not 1 <= len(types) <= MAX_PIECES - 2:
            raise InvalidOptionError(f"shogi table {quote(table)} has {len(types) + 2} pieces; "
                                     f"tbdb "
                                     f"builds shogi tables of 3 to {MAX_PIECES} pieces")
        return table

    def build_command(self, table: str) -> str:
        return f"tbdb build shogi --table {table}"

    def space(self, table: str, deps: dict) -> ShogiTable:
        return _table(table)

    def describe(self, table: str, values) -> TableData:
        """Counts as a player counts positions: a stored row stands for ``multiplicity`` raw
        positions (its mirror image unless symmetric, and the colour swaps of both, which have
        white to move), half of them with black to move: the two sides count alike."""
        t = _table(table)
        # a chunk of slots at a time: whole-table temporaries (an int64 copy of the
        # multiplicities, masks) took gigabytes beside KRGK's solved arrays
        raw = fixed = 0
        count = {r: 0 for r in (WIN, DRAW, LOSS, ILLEGAL)}
        top = {WIN: None, LOSS: None}
        for _, result, distance, _, mult in values.chunks(_CHUNK, best=False):
            mult = mult.astype(np.int64)
            real = result >= LOSS
            raw += int(mult[real].sum())
            fixed += int(mult[real & (mult == 2)].sum())
            for r in count:
                count[r] += int(mult[result == r].sum())
            for r in top:
                d = distance[result == r]
                if len(d):
                    top[r] = int(d.max()) if top[r] is None else max(top[r], int(d.max()))
        wins, draws, losses, illegal = (count[r] // 2 for r in (WIN, DRAW, LOSS, ILLEGAL))
        longest = (top[WIN], top[LOSS])
        pieces = len(t.types) + 2
        stats = [StatRow(table, pieces, side, raw // 2, wins, draws, losses, illegal, *longest)
                 for side in ("black", "white")]
        return TableData(
            storage="index", values=values,
            params={"table": table, "pieces": pieces, "prod": int(t.desc[2]), "size": t.size},
            stats=stats, slots=t.size, raw_positions=raw, positions_answered=raw,
            fixed_positions=fixed, illegal=2 * illegal,
            mode=values.mode, layout=f"shogi:{table[1:-1]}",
            texts=lambda: iter([piece_patterns(t.desc)]))

    def slot_text(self, table: str, slot) -> str:
        p = _table(table).position(int(slot))
        return p.sfen if p is not None else f"slot {slot} (no board)"

    # ------------------------------------------------------------------ positions

    def parse(self, text: str) -> Position:
        """A position from SFEN as tbdb writes it (move number 1, no 'sfen ' prefix): the
        engine's notation round-trips exactly.  ``coerce`` (Python lookups) and perft also take
        other move numbers, a missing one, 'sfen ...' and 'startpos'."""
        position = Position.parse(text)
        if position.sfen != text:
            raise InvalidPositionError(f"SFEN {quote(text)} is not written as tbdb writes it; "
                                       f"write "
                                       f"it as {position.sfen!r}")
        return position

    def parse_for_perft(self, text: str) -> Position:
        return Position.parse(text)

    def recognises(self, text: str) -> bool:
        return isinstance(text, str) and notation.shogi(text)

    def accepts(self, obj) -> bool:
        return isinstance(obj, Position) or (not isinstance(obj, str)
                                             and callable(getattr(obj, "sfen", None)))

    def coerce(self, position) -> Position:
        if isinstance(position, str) or self.accepts(position):  # SFEN, or a board with .sfen()
            return Position.from_board(position)
        return super().coerce(position)

    def start(self) -> Position:
        return Position.parse(START_SFEN)

    def locate(self, position: Position) -> Location | GameOver:
        key = position.material_key
        entry = _KEYS.get(key)
        if entry is None:
            entry = _KEYS[key] = _key_entry(key)
        if entry is DRAW:
            return GameOver(DRAW)  # bare kings: neither side can ever mate
        if isinstance(entry, str):
            raise MissingTableError(f"position {position.sfen!r} {entry}")
        name, desc = entry
        found = position.table_slot
        if found is not None:
            slot, mirrored = found
        else:
            board, hands = position.arrays
            slot, mirrored = k.locate(desc, board, hands, position.side)
        return Location(name, int(slot), 2 * position.side + int(mirrored))

    def move_text(self, position: Position, code: int, sym: int) -> str:
        return _stored_move_usi(int(code), sym)

    def successors(self, position: Position) -> list[Successor]:
        codes = position.legal_codes()
        n = len(codes)
        boards = np.empty((n, 81), np.int8)
        hands = np.empty((n, 2, 8), np.int8)
        moves_k.after_moves(position.board_array(), position.hands_array(), position.side,
                             codes, boards, hands)
        side = 1 - position.side
        return [Successor(Move.from_code(int(c)).usi, _position(boards[i], hands[i], side))
                for i, c in enumerate(codes)]

    def images(self, position: Position) -> list[Position]:
        m = mirrored(position)
        return [position, m, swapped(position), swapped(m)]

    def perft(self, position: Position, depth: int) -> int:
        return position.perft(depth)

    # ------------------------------------------------------------------ batch

    def encode_batch(self, positions: list) -> tuple:
        positions = [Position.from_board(p) for p in positions]
        return (np.array([p.board for p in positions], np.int8).reshape(-1, 81),
                np.array([p.hands for p in positions], np.int8).reshape(-1, 2, 8),
                np.array([p.side for p in positions], np.int8))

    def batch_locate(self, boards, hands, sides) -> BatchLocation:
        """boards int8[n, 81] (square (file - 1) * 9 + rank, rank 0 = a; piece code owner * 16
        + type, types P L N S B R G K = 1..8, promoted P..R = 9..14, 0 empty), hands int8[n, 2,
        8] (per owner, black first, counts by type 1..7; index 0 unused) and sides int8[n] (0
        black, 1 white to move).  Rows are trusted to be legal positions apart from the checks
        of ``_check_batch``."""
        boards, hands, sides = _check_batch(boards, hands, sides)
        n = len(boards)
        which = np.full(n, -1, np.int32)
        slots = np.zeros(n, np.int64)
        sym = np.zeros(n, np.int8)
        over = np.zeros(n, np.int8)
        keys = np.empty(n, np.int64)
        k.batch_keys(boards, hands, sides, keys)
        if n and keys.min() < 0:
            row = int(np.argmax(keys < 0))
            raise InvalidArrayError(f"row {row}: {_BATCH_ERRORS[int(keys[row])]}")
        order = np.argsort(keys, kind="stable")
        sorted_keys = keys[order]
        starts = np.flatnonzero(np.r_[True, sorted_keys[1:] != sorted_keys[:-1]]) if n else []
        tables: list[str] = []
        for start, end in zip(starts, np.r_[starts[1:], n]):
            # one table for every row (the usual batch): no copies of the arrays
            rows = np.sort(order[start:end]) if end - start < n else slice(None)
            key = int(sorted_keys[start])
            types = [t for t in range(1, 8) for _ in range(key // 19 ** (t - 1) % 19)]
            if not types:
                over[rows] = DRAW  # bare kings
                continue
            name = table_name(types)
            if len(types) + 2 > MAX_PIECES:
                raise MissingTableError(f"row {int(np.arange(n)[rows][0])} has "
                                        f"{len(types) + 2} pieces "
                                        f"({name}); tbdb builds shogi tables of 3 to "
                                        f"{MAX_PIECES} pieces")
            s, swap, mirror = _table(name).locate_many(boards[rows], hands[rows], sides[rows])
            if (s < 0).any():
                bad = np.arange(n)[rows][np.argmax(s < 0)]
                raise InvalidArrayError(f"row {int(bad)}: no stored position (kings side by side?)")
            which[rows] = len(tables)
            tables.append(name)
            slots[rows] = s
            sym[rows] = 2 * swap + mirror
        return BatchLocation(tables, which, slots, sym, over)

    def batch_moves(self, codes: np.ndarray, sym: np.ndarray) -> np.ndarray:
        """Stored move codes (on each row's canonical position) as codes of the row's own
        position: squares through the mirror (sym & 1) and the 180-degree turn (sym & 2)."""
        codes = np.asarray(codes, np.int32)
        sym = np.asarray(sym, np.int8)
        to = codes & 127
        frm = (codes >> 7) & 127
        board_move = frm <= moves_k.DROP_BASE
        mirror = (sym & 1) == 1
        swap = (sym & 2) == 2
        to = np.where(mirror, _MIRROR[np.minimum(to, 80)], to)
        to = np.where(swap, 80 - to, to)
        mf = np.where(board_move & mirror, _MIRROR[np.minimum(frm, 80)], frm)
        mf = np.where(board_move & swap, 80 - mf, mf)
        out = (codes & moves_k.PROMOTE_FLAG) | (mf << 7) | to
        return np.where(codes < 0, -1, out).astype(np.int32)


_BATCH_ERRORS = {-1: "piece codes are 0 (empty), 1..14 (black) or 17..30 (white)",
                 -2: "expected one king of each colour (codes 8 and 24)",
                 -3: "hand counts are 0..18, at types 1..7",
                 -4: "a side is 0 (black) or 1 (white)"}


def _check_batch(boards, hands, sides):
    """The batch arrays as contiguous int8 (their values are checked by the key kernel), or
    ``ValueError``."""
    boards, hands, sides = np.asarray(boards), np.asarray(hands), np.asarray(sides)
    n = len(boards) if boards.ndim else 0
    if boards.shape != (n, 81) or hands.shape != (n, 2, 8) or sides.shape != (n,):
        raise InvalidArrayError(f"expected boards of shape (n, 81), hands (n, 2, 8) and sides "
                                f"(n,), got {boards.shape}, {hands.shape} and {sides.shape}")
    require_integers(boards=boards, hands=hands, sides=sides)
    # the coarse ranges on the arrays as given (a cast to int8 would wrap 256 to a valid 0);
    # the key kernel checks the values in detail
    for arr, code, high in ((boards, -1, 30), (hands, -3, 18), (sides, -4, 1)):
        bad = first_row_outside(arr, 0, high)
        if bad is not None:
            raise InvalidArrayError(f"row {bad}: {_BATCH_ERRORS[code]}, got "
                                    f"{quote(arr[bad].tolist())}")
    return (np.ascontiguousarray(boards, np.int8), np.ascontiguousarray(hands, np.int8),
            np.ascontiguousarray(sides, np.int8))
