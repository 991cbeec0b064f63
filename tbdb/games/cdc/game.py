"""Chinese Dark Chess as a plug-in of the retrograde driver: the ``Game`` the registry names.

What to build (``plan``, ``dependencies``; tables and their spaces in ``tables``), what a built
table holds (``describe``), positions (parse, locate, moves, symmetries) and the batch forms.
"""
from __future__ import annotations

import numpy as np

from tbdb.errors import InvalidArrayError, InvalidMaterialError, InvalidOptionError, \
    InvalidPositionError, MissingTableError, quote
from tbdb.games.base import BatchLocation, Game, GameOver, Location, StatRow, Successor, \
    TableData, first_row_outside, require_integers
from tbdb.games.base import BATCH_FORM  # capabilities
from tbdb.games.cdc.material import MAX_PER_SIDE, MAX_PIECES, Material, all_materials
from tbdb.games.cdc.position import Move, Position
from tbdb.games.cdc.tables import CdcSpace, closure
from tbdb.options import Option
from tbdb.solvers.cdc import index as index_kernels
from tbdb.solvers.cdc import locate as locate_kernels
from tbdb.solvers.cdc import moves as move_kernels
from tbdb.solvers.cdc import text as text_kernels
from tbdb.solvers.retrograde import LOSS, tally
from tbdb.games import notation

DEFAULT_MAX_PIECES = 3
_SYM = index_kernels.SYM.tolist()  # plain lists: several times faster to index from Python
_CAPTURE = move_kernels.CAPTURE_FLAG
# material keys sum 6 ** code; a side has at most 5 of a kind, so red's pieces sum below 6 ** 7
_BLACK_UNIT = 6 ** 7
_MOVE_TEXT = [str(Move.from_code(code)) for code in range(2 * _CAPTURE)]


def _side_counts(values, size: int, side: int) -> np.ndarray:
    """``solvers.retrograde.tally`` of one side to move: each canonical row weighted by the
    placements it stands for (4 = no symmetry fixes it)."""
    lo = side * size
    return tally(values.result[lo:lo + size], values.distance[lo:lo + size],
                  values.multiplicity[lo:lo + size], 4)


class CdcGame(Game):
    name = "cdc"
    title = "Chinese Dark Chess (revealed endgames)"
    rules = "docs/rules/cdc.md"
    sample = "8/8/8/pKC5 r"
    views = "cdc.sql"
    position_type = Position
    example_build = {"material": "KCvP"}
    capabilities = frozenset({BATCH_FORM})
    build_options = (
        Option("max_pieces", f"every endgame with 2..N pieces (default {DEFAULT_MAX_PIECES})",
               min=2, max=MAX_PIECES, metavar="N"),
        Option("material", "one table (e.g. KMvGP, either colour first) and the tables its "
                           "captures lead to", type=str, metavar="MATERIAL"),
    )

    def __init__(self):
        self._materials: dict[int, tuple] = {}

    # ------------------------------------------------------------------ tables

    def plan(self, max_pieces: int | None = None, material: str | None = None) -> list[str]:
        """Canonical tables to build, smaller first.  ``material`` builds one table (either
        orientation) and what it needs; otherwise every table up to ``max_pieces``."""
        if material is not None:
            if max_pieces is not None:
                raise InvalidOptionError(
                    f"give either a material or a maximum number of pieces, not both "
                    f"(material={quote(material)}, max_pieces={max_pieces!r})")
            tables = closure(self._material(material))
        else:
            max_pieces = DEFAULT_MAX_PIECES if max_pieces is None else max_pieces
            tables = {m for m in all_materials(max_pieces) if m.is_canonical}
        return [m.name for m in sorted(tables, key=lambda m: (m.pieces, m.name))]

    @staticmethod
    def _material(text: str) -> Material:
        m = Material.parse(text)
        if m.pieces > MAX_PIECES:
            raise InvalidMaterialError(f"material {quote(text)} has {m.pieces} pieces; tbdb builds "
                                       f"CDC tables of 2 to {MAX_PIECES} pieces")
        return m

    def dependencies(self, table: str) -> list[str]:
        m = Material.parse(table)
        return sorted({c.canonical()[0].name for c in m.capture_children().values()
                       if c is not None})

    def weight(self, table: str) -> int:
        return 2 * Material.parse(table).size

    def check_table(self, table: str) -> str:
        try:
            return self._material(table).canonical()[0].name
        except InvalidMaterialError as exc:  # the contract: a bad table name is a bad option
            raise InvalidOptionError(str(exc)) from None

    def build_command(self, table: str) -> str:
        return f"tbdb build cdc --material {table}"

    def space(self, table: str, deps: dict) -> CdcSpace:
        return CdcSpace(Material.parse(table), deps)

    def describe(self, table: str, values) -> TableData:
        m = Material.parse(table)
        size = m.size
        swapped = m.swapped().name
        stats = []
        raw = fixed = 0
        for side in (0, 1):
            n, w, d, lo, lw, ll, _, f = (int(x) for x in _side_counts(values, size, side))
            lw, ll = (None if x < 0 else x for x in (lw, ll))
            raw, fixed = raw + n, fixed + f
            stats.append(StatRow(m.name, m.pieces, ("red", "black")[side], n, w, d, lo, 0, lw, ll))
            if swapped != m.name:
                stats.append(StatRow(swapped, m.pieces, ("black", "red")[side], n, w, d, lo, 0,
                                     lw, ll))
        canonical_idx = np.flatnonzero(values.multiplicity[:size] > 0)

        def texts():
            for lo in range(0, len(canonical_idx), 1 << 20):
                idx = canonical_idx[lo:lo + (1 << 20)]
                squares = index_kernels.unrank_many(m.desc, idx)
                yield idx, text_kernels.patterns(squares).view("S36").ravel().astype(str)

        return TableData(
            storage="index", values=values,
            params={"material": m.name, "swapped": swapped, "pieces": m.pieces,
                    "letters": m.letters, "size": size},
            stats=stats, slots=2 * size, raw_positions=raw,
            positions_answered=raw * (1 if swapped == m.name else 2),
            fixed_positions=fixed, mode=values.mode,
            layout=f"cdc:{m.shape}", texts=texts)

    def slot_digits(self, table: str) -> tuple[int, ...]:
        """Side to move, the lead (a square of the domain, or a pair's orbit), then each
        further group's combination of the squares left (``solvers/cdc/index.py``)."""
        d = Material.parse(table).desc
        digits = [2, int(index_kernels.lead_radix(d))]
        occupied = int(d[4])
        for g in range(1, int(d[2])):
            digits.append(int(index_kernels.BINOM[index_kernels.NSQ - occupied, d[4 + g]]))
            occupied += int(d[4 + g])
        return tuple(digits)

    def slot_text(self, table: str, slot) -> str:
        m = Material.parse(table)
        side, idx = divmod(int(slot), m.size)
        squares = index_kernels.unrank_many(m.desc, np.array([idx], np.int64))[0]
        board = [-1] * 32
        for code, sq in zip(m.slot_codes, squares):
            board[int(sq)] = code
        return Position(tuple(board), side).text

    # ------------------------------------------------------------------ positions

    def parse(self, text: str) -> Position:
        return Position.parse(text)

    def recognises(self, text: str) -> bool:
        return isinstance(text, str) and notation.cdc(text)

    def _entry(self, board, side: int = 0, key: int | None = None) -> tuple:
        """(canonical material, colour swap, desc, size) of a board's material (its ``key``:
        the sum of 6 ** code over its pieces), cached (``side`` only words the error of a board
        with too many pieces)."""
        if key is None:
            key = 0
            for c in board:
                if c >= 0:
                    key += 6 ** c
        entry = self._materials.get(key)
        if entry is None:
            position = Position(tuple(board), int(side))
            material = position.material
            if material.pieces > MAX_PIECES:
                raise MissingTableError(
                    f"position {position.text!r} has {material.pieces} pieces; tbdb builds "
                    f"CDC tables of 2 to {MAX_PIECES} pieces")
            cm, swap = material.canonical()
            entry = self._materials[key] = (cm.name, int(swap), cm.desc, cm.size)
        return entry

    def diagram(self, position: Position) -> str:
        """Rank 4 at the top, files a-h; red upper case, black lower case."""
        ranks = position.text.split(" ")[0].split("/")
        lines = []
        for number, rank in zip((4, 3, 2, 1), ranks):
            cells = "".join("." * int(ch) if ch.isdigit() else ch for ch in rank)
            lines.append(f"{number}  {' '.join(cells)}")
        lines.append("   a b c d e f g h")
        lines.append(f"   {('red', 'black')[position.side]} to move")
        return "\n".join(lines)

    def locate(self, position: Position) -> Location | GameOver:
        board = position.board
        parsed = position.__dict__.get("_array")  # a parsed position brings its array and key
        if parsed is not None:
            key = position.__dict__["_key"]
            red, black = key % _BLACK_UNIT != 0, key >= _BLACK_UNIT
        else:
            key = None
            red = black = False
            for c in board:
                if c >= 0:
                    if c < 7:
                        red = True
                    else:
                        black = True
        mover_has = red if position.side == 0 else black
        other_has = black if position.side == 0 else red
        if not other_has:
            raise InvalidPositionError(
                f"CDC position {position.text!r} cannot arise: "
                + ("the board is empty" if not mover_has else
                   f"{('black', 'red')[position.side]} has no piece but has just moved"))
        if not mover_has:
            return GameOver(LOSS)  # the side to move has nothing left: it has lost
        name, swap, desc, size = self._entry(board, position.side, key)
        array = np.array(board, np.int8) if parsed is None else parsed
        slot, sym = locate_kernels.locate_one(array, position.side, desc, swap, size)
        return Location(name, int(slot), int(sym))

    def move_text(self, position: Position, code: int, sym: int) -> str:
        if not 0 <= code < len(_MOVE_TEXT):  # (a damaged table's best move)
            raise ValueError(f"{code!r} is no cdc move code")
        if sym:
            image = _SYM[sym]
            code = (code & _CAPTURE) | image[(code & 1023) >> 5] << 5 | image[code & 31]
        return _MOVE_TEXT[code]

    def successors(self, position: Position) -> list[Successor]:
        out = []
        for move in position.legal_moves():
            board = list(position.board)
            board[move.to_sq] = board[move.from_sq]
            board[move.from_sq] = -1
            out.append(Successor(str(move), Position(tuple(board), 1 - position.side)))
        return out

    def images(self, position: Position) -> list[Position]:
        """The four board symmetries, each also with colours and side to move swapped."""
        out = []
        for s in range(4):
            board = [-1] * 32
            for sq, code in enumerate(position.board):
                board[_SYM[s][sq]] = code
            out.append(Position(tuple(board), position.side))
            out.append(Position(tuple(c if c < 0 else (c + 7) % 14 for c in board),
                                1 - position.side))
        return out

    # ------------------------------------------------------------------ batch

    def encode_batch(self, positions: list[Position]) -> tuple:
        return (np.array([p.board for p in positions], np.int8).reshape(-1, 32),
                np.array([p.side for p in positions], np.int8))

    def batch_locate(self, boards, sides) -> BatchLocation:
        """boards int8[n, 32] (a1 = 0 .. h4 = 31; piece code colour * 7 + type, -1 empty) and
        sides int8[n] (0 red, 1 black to move)."""
        boards, sides = _check_batch(boards, sides)
        n = len(boards)
        which = np.full(n, -1, np.int32)
        slots = np.zeros(n, np.int64)
        sym = np.zeros(n, np.int8)
        over = np.zeros(n, np.int8)
        keys, bad = locate_kernels.material_keys(boards, np.array(MAX_PER_SIDE * 2, np.int64),
                                                 MAX_PIECES)
        if bad >= 0:
            raise InvalidArrayError(f"row {bad}: more pieces of a kind than a side has, or more "
                                    f"than {MAX_PIECES} pieces: {quote(boards[bad].tolist())}")
        tables: list[str] = []
        group, order, starts, first = locate_kernels.group_rows(keys)
        table_of = np.full(len(first), -1, np.int64)  # per material group, its table
        descs, swaps, sizes = [], [], []
        for g, r in enumerate(first.tolist()):
            key = int(keys[r])
            if key < 0:  # a side has no piece: lost for the mover without pieces
                rows = order[starts[g]:starts[g + 1]]
                missing = 0 if key == -1 else 1
                bad = rows[sides[rows] != missing]
                if len(bad):
                    raise InvalidArrayError(f"row {int(bad.min())}: the side that has just moved "
                                            f"has no "
                                            f"piece (or the board is empty): no game reaches it")
                over[rows] = LOSS
                continue
            name, swap, desc, size = self._entry(boards[r].tolist(), sides[r], key)
            table_of[g] = len(tables)
            tables.append(name)
            descs.append(desc)
            swaps.append(swap)
            sizes.append(size)
        grouped = None
        if tables:
            which = table_of[group].astype(np.int32)
            locate_kernels.locate_groups(boards, sides, group, table_of, np.stack(descs),
                                         np.array(swaps, np.int64), np.array(sizes, np.int64),
                                         slots, sym)
            # the rows of each table, tables in order: what the prober groups them by
            grouped = order if len(tables) == len(first) else order[which[order] >= 0]
        return BatchLocation(tables, which, slots, sym, over, grouped=grouped)

    def batch_moves(self, codes: np.ndarray, sym: np.ndarray) -> np.ndarray:
        out = np.empty(len(codes), np.int32)
        locate_kernels.map_moves(codes.astype(np.int32), sym, out)
        return out


def _check_batch(boards, sides) -> tuple[np.ndarray, np.ndarray]:
    """The batch arrays as int8, or ``ValueError`` naming the first bad row (codes and sides
    out of range; too many pieces: ``material_keys``, in the pass that names the materials)."""
    boards = np.asarray(boards)
    sides = np.asarray(sides)
    if boards.ndim != 2 or boards.shape[1] != 32 or sides.shape != (len(boards),):
        raise InvalidArrayError(f"expected boards of shape (n, 32) and sides of shape (n,), got "
                                f"{boards.shape} and {sides.shape}")
    require_integers(boards=boards, sides=sides)
    bad = first_row_outside(boards, -1, 13)
    if bad is not None:
        raise InvalidArrayError(f"row {bad}: piece codes are -1 (empty) or 0..13, got "
                                f"{quote(boards[bad].tolist())}")
    bad = first_row_outside(sides, 0, 1)
    if bad is not None:
        raise InvalidArrayError(f"row {bad}: a side is 0 (red) or 1 (black), got "
                                f"{sides[bad].item()!r}")
    boards = np.ascontiguousarray(boards.astype(np.int8, copy=False))
    return boards, np.ascontiguousarray(sides.astype(np.int8, copy=False))


