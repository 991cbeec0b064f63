"""Chess endgames (3-5 pieces) as a plug-in of the retrograde driver: the ``Game`` the registry
names.

What to build (``plan``, ``dependencies``: materials in ``material``, spaces in ``tables``),
what a built table holds (``describe``), positions (FEN, UCI/SAN, python-chess boards), where a
position is stored (``locate``: the material's table, colours swapped where the table is the
other way round, and the board symmetry) and perft.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from tbdb.errors import InvalidArrayError, InvalidMaterialError, InvalidOptionError, \
    InvalidPositionError, MissingTableError, quote
from tbdb.games.base import BatchLocation, Game, GameOver, Location, StatRow, Successor, \
    TableData, first_row_outside, require_integers
from tbdb.games.base import BATCH_FORM, OWN_PERFT  # capabilities
from tbdb.games.chess.material import MAX_PIECES, MIN_PIECES, Material, all_materials, closure
from tbdb.games.chess.position import LETTERS, Move, Position, looks_like_fen, san, \
    sparse_placement
from tbdb.games.chess.tables import ChessSpace, en_passant_keys
from tbdb.options import Option
from tbdb.solvers.chess import batch as batch_kernels
from tbdb.solvers.chess import ep as ep_kernels
from tbdb.solvers.chess import index as index_kernels
from tbdb.solvers.chess import moves as move_kernels
from tbdb.solvers.chess.moves import BLACK_BIT, KING
from tbdb.solvers.retrograde import DRAW, LOSS, tally

DEFAULT_MAX_PIECES = 3
_SYM = index_kernels.SYM.tolist()
_INVERSE = index_kernels.INVERSE.tolist()


@lru_cache(maxsize=512)
def _material(name: str) -> Material:
    return Material.parse(name)


@dataclass(frozen=True)
class SolvedValues:
    """A solved table as its dependants read it (``ChessSpace``): per slot the result int8
    and the distance int16."""
    result: np.ndarray
    distance: np.ndarray


@lru_cache(maxsize=4096)
def _table_of(white: tuple[int, ...], black: tuple[int, ...]) -> tuple[Material, bool]:
    return Material(white, black).canonical()


def _orient(position: Position) -> tuple[Material, bool, list[tuple[int, int]], int]:
    """(the table, colours swapped, the occupied squares as the table sees them: (square, code)
    in square order, its side to move)."""
    occupied = [(sq, c) for sq, c in enumerate(position.board) if c]
    white = sorted((c for _, c in occupied if c < KING), reverse=True)
    black = sorted((c - BLACK_BIT for _, c in occupied if BLACK_BIT < c < BLACK_BIT + KING),
                   reverse=True)
    m, flip = _table_of(tuple(white), tuple(black))
    if not flip:
        return m, False, occupied, position.turn
    # colours swapped and the board turned: a1 <-> a8; square order again
    return m, True, sorted((sq ^ 56, c ^ BLACK_BIT) for sq, c in occupied), 1 - position.turn


@lru_cache(maxsize=4096)
def _slots_of(codes: tuple[int, ...]) -> dict[int, list[int]]:
    """Per piece code, the slots of a material's pieces that hold it, in order."""
    out: dict[int, list[int]] = {}
    for i, c in enumerate(codes):
        out.setdefault(c, []).append(i)
    return out


def _placement(m: Material, occupied: list[tuple[int, int]]) -> np.ndarray:
    """The squares of the table's slots (identical pieces in square order), from the occupied
    squares in square order."""
    sq = [0] * m.pieces
    slots = _slots_of(tuple(m.codes))
    used: dict[int, int] = {}
    for s, c in occupied:
        k = used.get(c, 0)
        sq[slots[c][k]] = s
        used[c] = k + 1
    return np.array(sq, np.int64)


def insufficient_material(position: Position) -> bool:
    """Neither side can ever mate: no pawn, rook or queen, and at most one minor piece or only
    bishops all on squares of one colour (python-chess's rule)."""
    minors = []
    for sq, c in enumerate(position.board):
        t = c & 7
        if t in (1, 4, 5):
            return False
        if t in (2, 3):
            minors.append((t, (sq // 8 + sq % 8) % 2))
    if len(minors) <= 1:
        return True
    return all(t == 3 for t, _ in minors) and len({shade for _, shade in minors}) == 1


def signed_dtm(outcome: str, distance) -> int:
    """lichess's ``dtm``: plies to mate, negative when the side to move loses, 0 for a draw."""
    return 0 if outcome == "draw" or distance is None else \
        (distance if outcome == "win" else -distance)


def _lichess_fields(position: Position, outcome: str, distance) -> dict:
    over = not position.codes()
    return {"category": outcome, "dtm": signed_dtm(outcome, distance),
            "checkmate": over and position.is_check(),
            "stalemate": over and not position.is_check(),
            "insufficient_material": insufficient_material(position)}


_BATCH_REFUSALS = {
    batch_kernels.BAD_CODE: "piece codes are 0 (empty), 1..6 (white P N B R Q K) or 9..14 "
                            "(black)",
    batch_kernels.KINGS: "each side has exactly one king",
    batch_kernels.PAWN_RANK: "a pawn on the first or last rank",
    batch_kernels.NOT_TO_MOVE_IN_CHECK: "the side not to move is in check",
    batch_kernels.EP_RANK: "the en passant square is not behind a pawn that just moved two "
                           "squares",
}


def _check_batch(boards, turns, ep) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The batch arrays as contiguous int8, or ``InvalidArrayError`` naming the first bad
    row."""
    boards, turns, ep = np.asarray(boards), np.asarray(turns), np.asarray(ep)
    if boards.ndim != 2 or boards.shape[1] != 64 or turns.shape != (len(boards),) or \
            ep.shape != (len(boards),):
        raise InvalidArrayError(f"expected boards of shape (n, 64), turns and ep of shape (n,), "
                                f"got {boards.shape}, {turns.shape} and {ep.shape}")
    require_integers(boards=boards, turns=turns, ep=ep)
    bad = first_row_outside(boards, 0, 14)
    if bad is not None:
        raise InvalidArrayError(f"row {bad}: piece codes are 0 (empty), 1..6 (white P N B R Q "
                                f"K) or 9..14 (black), got {quote(boards[bad].tolist())}")
    bad = first_row_outside(turns, 0, 1)
    if bad is not None:
        raise InvalidArrayError(f"row {bad}: a side to move is 0 (white) or 1 (black), got "
                                f"{turns[bad].item()!r}")
    bad = first_row_outside(ep, -1, 63)
    if bad is not None:
        raise InvalidArrayError(f"row {bad}: an en passant square is -1 (none) or 0..63, got "
                                f"{ep[bad].item()!r}")
    return tuple(np.ascontiguousarray(a.astype(np.int8, copy=False)) for a in (boards, turns, ep))


class ChessGame(Game):
    name = "chess"
    title = "Chess endgames (3-5 pieces; distance to mate)"
    rules = "docs/rules/chess.md"
    sample = "8/8/8/4k3/8/8/8/KQ6 w - - 0 1"
    position_type = Position
    example_build = {"material": "KPvK"}
    capabilities = frozenset({BATCH_FORM, OWN_PERFT})
    build_options = (
        Option("max_pieces", f"every endgame with {MIN_PIECES}..N pieces (default "
                             f"{DEFAULT_MAX_PIECES})", min=MIN_PIECES, max=MAX_PIECES, metavar="N"),
        Option("material", "one table (e.g. KQvKR, either side first) and the tables its "
                           "captures and promotions lead to", type=str, metavar="MATERIAL"),
    )

    # ------------------------------------------------------------------ tables

    def plan(self, max_pieces: int | None = None, material: str | None = None) -> list[str]:
        if material is not None:
            if max_pieces is not None:
                raise InvalidOptionError(
                    f"give either a material or a maximum number of pieces, not both "
                    f"(material={quote(material)}, max_pieces={max_pieces!r})")
            tables = closure(Material.parse(self.check_table(material)))
        else:
            max_pieces = DEFAULT_MAX_PIECES if max_pieces is None else max_pieces
            tables = set(all_materials(max_pieces))
        # a capture leaves fewer pieces, a promotion as many with a pawn fewer: so every
        # table comes after the tables it needs when sorted by (pieces, pawns)
        return [m.name for m in sorted(tables, key=lambda m: (m.pieces, m.pawns, m.name))]

    def dependencies(self, table: str) -> list[str]:
        return sorted(c.name for c in Material.parse(table).children())

    def weight(self, table: str) -> int:
        return 2 * Material.parse(table).half  # (its en passant slots are a few per cent)

    def check_table(self, table: str) -> str:
        try:
            return Material.parse(table).canonical()[0].name
        except InvalidMaterialError as exc:
            raise InvalidOptionError(str(exc)) from None

    def build_command(self, table: str) -> str:
        return f"tbdb build chess --material {table}"

    def cover_command(self, key, text: str | None, **options) -> str | None:
        return None

    def dependency_form(self, table: str, values) -> SolvedValues:
        """What the tables that need this one read of it: result and distance per slot (3
        bytes a slot held while a build still needs it, not the 9 of the full rows)."""
        return SolvedValues(values.result, values.distance)

    def space(self, table: str, deps: dict) -> ChessSpace:
        return ChessSpace(Material.parse(table), deps)

    def describe(self, table: str, values) -> TableData:
        """Per side to move: its ordinary slots and its en passant slots (positions where it
        may take en passant; they come after the ordinary ones, white to move first) are
        counted together."""
        m = Material.parse(table)
        half = m.half
        keys = en_passant_keys(m)
        white_ep = int(np.searchsorted(keys, 8 * half))  # keys of white to move come first
        ranges = (((0, half), (2 * half, 2 * half + white_ep)),
                  ((half, 2 * half), (2 * half + white_ep, 2 * half + len(keys))))
        swapped = m.swapped().name
        full = 2 if m.has_pawns else 8
        stats = []
        raw = fixed = illegal = 0
        for side in (0, 1):
            total = np.zeros(8, np.int64)
            total[4:6] = -1
            for lo, hi in ranges[side]:
                got = tally(values.result[lo:hi], values.distance[lo:hi],
                            values.multiplicity[lo:hi], full)
                total[4:6] = np.maximum(total[4:6], got[4:6])  # longest win and loss
                got[4:6] = 0
                total += got
            n, w, d, lo_, lw, ll, ill, f = (int(x) for x in total)
            lw, ll = (None if x < 0 else x for x in (lw, ll))
            raw, fixed, illegal = raw + n, fixed + f, illegal + ill
            stats.append(StatRow(m.name, m.pieces, ("white", "black")[side], n, w, d, lo_, ill,
                                 lw, ll))
            if swapped != m.name:
                stats.append(StatRow(swapped, m.pieces, ("black", "white")[side], n, w, d, lo_,
                                     ill, lw, ll))
        return TableData(
            storage="index", values=values,
            params={"material": m.name, "swapped": swapped, "pieces": m.pieces,
                    "half": half, "pawns": m.has_pawns, "en_passant_slots": len(keys)},
            stats=stats, slots=2 * half + len(keys), raw_positions=raw,
            positions_answered=raw * (1 if swapped == m.name else 2),
            fixed_positions=fixed, illegal=illegal, mode=values.mode)

    def slot_text(self, table: str, slot) -> str:
        m = _material(table)  # (SQL's tb_position asks once a row: parsing was most of it)
        slot, ep = int(slot), -1
        if slot >= 2 * m.half:  # an en passant slot
            slot, ep = (int(x) for x in ep_kernels.ep_square(
                m.desc, m.half, en_passant_keys(m)[slot - 2 * m.half]))
        side, idx = divmod(slot, m.half)
        sq = np.empty(m.pieces, np.int64)
        index_kernels.unrank(m.desc, idx, sq)
        board = [0] * 64
        for c, s in zip(m.codes, sq.tolist()):
            board[s] = c
        return Position(tuple(board), side, ep).text

    def slot_texts(self, table: str, keys) -> list[str | None]:
        """The placements of a vector of slots unranked in one kernel call; the few en passant
        slots and any outside the table one at a time."""
        m = _material(table)
        slots = np.asarray(keys, np.int64)
        plain = np.flatnonzero((slots >= 0) & (slots < 2 * m.half))
        squares = np.empty((len(plain), m.pieces), np.int64)
        index_kernels.unrank_many(m.desc, slots[plain] % m.half, squares)
        out: list[str | None] = [None] * len(slots)
        if len(plain) < len(slots):  # en passant slots, or slots outside the table
            rest = np.setdiff1d(np.arange(len(slots)), plain)
            for row, text in zip(rest.tolist(), super().slot_texts(table, slots[rest].tolist())):
                out[row] = text
        codes = m.codes
        for row, side, placed in zip(plain.tolist(), (slots[plain] // m.half).tolist(),
                                     squares.tolist()):
            # Position(...).text of the same board (a broken slot: the last piece on a square)
            placement = sparse_placement(dict(zip(placed, codes)).items())
            out[row] = f"{placement} {'wb'[side]} - - 0 1"
        return out

    # ------------------------------------------------------------------ positions

    def parse(self, text: str) -> Position:
        return Position.parse(text)

    def recognises(self, text: str) -> bool:
        return looks_like_fen(text)

    def accepts(self, obj) -> bool:
        return isinstance(obj, Position) or (type(obj).__module__.startswith("chess")
                                             and hasattr(obj, "fen")
                                             and hasattr(obj, "castling_rights"))

    def coerce(self, position) -> Position:
        """FEN text (four to six fields, whitespace around it forgiven), a ``Position`` or a
        python-chess ``chess.Board``."""
        if isinstance(position, Position):
            return position
        if isinstance(position, str):
            try:
                return Position.read(position.strip())
            except InvalidPositionError as exc:
                if position.strip() == position:
                    raise
                raise InvalidPositionError(str(exc).replace(repr(position.strip()),
                                                            repr(position))) from None
        if self.accepts(position):
            return Position.from_board(position)
        return super().coerce(position)

    def parse_for_perft(self, text: str) -> Position:
        return Position.read(text.strip())

    def diagram(self, position: Position) -> str:
        lines = []
        for r in range(7, -1, -1):
            cells = []
            for c in position.board[r * 8:r * 8 + 8]:
                letter = LETTERS[c & 7]
                cells.append(letter.lower() if c & BLACK_BIT else letter)
            lines.append(f"{r + 1}  {' '.join(cells)}")
        lines.append("   a b c d e f g h")
        lines.append(f"   {('white', 'black')[position.turn]} to move")
        return "\n".join(lines)

    def by_children(self, position: Position) -> bool:
        """A position with an en passant right: no table stores it; its value is its
        children's (the tables hold positions without one)."""
        return position.ep >= 0

    def locate(self, position: Position) -> Location | GameOver:
        n = position.pieces
        if n > MAX_PIECES:
            raise MissingTableError(f"position {position.text!r} has {n} pieces; tbdb builds "
                                    f"chess tables of {MIN_PIECES} to {MAX_PIECES} pieces")
        codes = position.codes()
        if not codes:
            return GameOver(LOSS if position.is_check() else DRAW)
        if n == 2:
            return GameOver(DRAW)  # bare kings
        m, flip, occupied, side = _orient(position)
        t = np.empty(index_kernels.MAX_PIECES, np.int64)
        idx, s = index_kernels.canonical(m.desc, _placement(m, occupied), t)
        return Location(m.name, int(side * m.half + idx), int(s + 8 * flip))

    def move_text(self, position: Position, code: int, sym: int) -> str:
        move = Move.from_stored(int(code))
        if sym:
            inv = _INVERSE[sym & 7]
            flip = 56 if sym >= 8 else 0
            move = Move(_SYM[inv][move.from_sq] ^ flip, _SYM[inv][move.to_sq] ^ flip,
                        move.promotion)
        return move.uci()

    def san(self, position: Position, uci: str) -> str:
        return san(position, Move.from_uci(uci))

    def successors(self, position: Position) -> list[Successor]:
        return [Successor(m.uci(), position.push(m)) for m in position.legal_moves()]

    def images(self, position: Position) -> list[Position]:
        """The board symmetries of the position (8 without pawns, the mirror with them), each
        also with colours swapped and the board turned; a position with an en passant right
        only itself."""
        if position.ep >= 0:
            return [position]
        pawns = any(c & 7 == 1 for c in position.board)
        out = []
        for s in range(2 if pawns else 8):
            for flip in (0, 56):
                board = [0] * 64
                for sq, c in enumerate(position.board):
                    if c:
                        board[_SYM[s][sq] ^ flip] = c ^ BLACK_BIT if flip else c
                out.append(Position(tuple(board), position.turn ^ (flip > 0), -1,
                                    position.halfmove, position.fullmove))
        return out

    # ------------------------------------------------------------------ batch (engines)

    def encode_batch(self, positions: list[Position]) -> tuple:
        return (np.array([p.board for p in positions], np.int8).reshape(-1, 64),
                np.array([p.turn for p in positions], np.int8),
                np.array([p.ep for p in positions], np.int8))

    def batch_locate(self, boards, turns, ep) -> BatchLocation:
        """boards int8[n, 64] (a1 = 0, b1 = 1 .. h8 = 63; piece codes 0 empty, white 1..6 =
        P N B R Q K, black 9..14 = 8 + the type), turns int8[n] (0 white, 1 black to move),
        ep int8[n] (-1 or the en passant square, as a FEN's fourth field: honoured where a
        legal capture uses it, and such a row is valued through its children, as a lookup
        values it).  Best moves come back as codes ``from + 64 * to + 4096 * promotion``
        (promotion 0 none, 2 N, 3 B, 4 R, 5 Q), -1 for none."""
        boards, turns, ep = _check_batch(boards, turns, ep)
        n = len(boards)
        counts = np.zeros((n, 16), np.int64)
        status = np.zeros(n, np.int8)
        ep_used = np.full(n, -1, np.int8)
        bad, why = batch_kernels.check_rows(boards, turns, ep, counts, status, ep_used)
        if bad >= 0:
            raise InvalidArrayError(f"row {bad}: {_BATCH_REFUSALS[why]}: "
                                    f"{quote(boards[bad].tolist())}")
        pieces = counts[:, 1:].sum(axis=1)
        if n and pieces.max() > MAX_PIECES:
            row = int(np.flatnonzero(pieces > MAX_PIECES)[0])
            raise MissingTableError(f"row {row} has {int(pieces[row])} pieces; tbdb builds "
                                    f"chess tables of {MIN_PIECES} to {MAX_PIECES} pieces")
        which = np.full(n, -1, np.int32)
        slots = np.zeros(n, np.int64)
        sym = np.zeros(n, np.int8)
        over = np.zeros(n, np.int8)  # DRAW: stalemate, bare kings
        over[status == batch_kernels.OVER_MATED] = LOSS
        by_children = np.flatnonzero(status == batch_kernels.BY_CHILDREN)
        playing = (status == batch_kernels.PLAYING) & (pieces > 2)
        # one material key per row: the counts of the ten non-king piece codes, base 64
        keys = (counts[:, [1, 2, 3, 4, 5, 9, 10, 11, 12, 13]] << (6 * np.arange(10))).sum(1)
        tables: list[str] = []
        rows_all = np.flatnonzero(playing)
        order = rows_all[np.argsort(keys[rows_all], kind="stable")]
        cuts = np.flatnonzero(np.diff(keys[order])) + 1
        for rows in np.split(order, cuts) if len(order) else []:
            c = counts[rows[0]]
            white = tuple(ty for ty in range(5, 0, -1) for _ in range(c[ty]))
            black = tuple(ty for ty in range(5, 0, -1) for _ in range(c[BLACK_BIT + ty]))
            m, flip = _table_of(white, black)
            squares = np.empty((len(rows), m.pieces), np.int64)
            batch_kernels.placements(boards, rows, m.desc, flip, squares)
            side = (turns[rows] ^ int(flip)).astype(np.int8)
            got_slots = np.empty(len(rows), np.int64)
            got_sym = np.empty(len(rows), np.int64)
            index_kernels.locate_many(m.desc, squares, side, got_slots, got_sym)
            which[rows] = len(tables)
            tables.append(m.name)
            slots[rows] = got_slots
            sym[rows] = got_sym + 8 * flip
        children = tuple((int(r), Position(tuple(boards[r].tolist()), int(turns[r]),
                                           int(ep_used[r]))) for r in by_children)
        return BatchLocation(tables, which, slots, sym, over, by_children=children)

    def batch_moves(self, codes: np.ndarray, sym: np.ndarray) -> np.ndarray:
        codes = np.asarray(codes, np.int64)
        sym = np.asarray(sym, np.int64)
        inv = index_kernels.INVERSE[sym & 7].astype(np.int64)
        flip = np.where(sym >= 8, 56, 0)
        table = index_kernels.SYM.astype(np.int64)
        fr = table[inv, codes & 63] ^ flip
        to = table[inv, (codes >> 6) & 63] ^ flip
        out = fr + 64 * to + 4096 * (codes >> 12)
        return np.where(codes < 0, -1, out).astype(np.int32)

    # ------------------------------------------------------------------ perft

    def perft(self, position: Position, depth: int) -> int:
        return int(move_kernels.perft(position.array(), position.turn, position.ep, depth))

    def divide(self, position: Position, depth: int) -> list[tuple[str, int]]:
        return [(m.uci(), self.perft(position.push(m), depth - 1))
                for m in position.legal_moves()]

    def move_name(self, position: Position, move: str) -> str:
        """SAN, as players write moves (the move given in UCI or SAN)."""
        return san(position, position.move(move))

    def move_code(self, position: Position, move: str) -> int:
        return Move.from_uci(move).code

    # ------------------------------------------------------------------ lichess's fields

    def lookup_extras(self, position: Position, result) -> dict:
        """The fields of lichess's tablebase API that apply: ``category`` (win / draw / loss:
        no 50-move rule here, so never cursed or blessed), ``dtm`` (plies, negative when the
        side to move loses, 0 for draws and finished games), ``checkmate``, ``stalemate``,
        ``insufficient_material``."""
        return _lichess_fields(position, result.outcome, result.distance)

    def move_extras(self, position: Position, successor: Successor, move) -> dict:
        """Per move, as lichess: ``uci``, ``san``, ``zeroing`` (a capture or pawn move),
        ``conversion`` (a capture or promotion: the move leaves the table) and the value of the
        position after it for its side to move (``category``, ``dtm``, ...)."""
        m = Move.from_uci(successor.move)
        after = {"win": "loss", "loss": "win"}.get(move.outcome, move.outcome)
        distance = None if move.distance is None else max(0, move.distance - 1)
        return {"uci": successor.move, "san": san(position, m),
                "zeroing": position.is_zeroing(m), "conversion": position.is_conversion(m),
                **_lichess_fields(successor.position, after, distance)}
