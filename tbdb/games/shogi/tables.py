"""Shogi endgame tables on the kernel contract (``IndexSpace``), and the map between a
position and its table slot.

A table is named ``K`` + its other pieces, strongest first (R B G S N L P), + ``K``: ``KGK``,
``KRGK``, ``KGGK``.  Its pieces may stand on the board for either side, promoted or not, or lie
in either hand; captures and drops stay in the table, so no table depends on another.

Only black-to-move positions have slots: a white-to-move position is looked up through the
colour swap (board turned 180 degrees, owners and hands exchanged), then the left-right mirror
(black's king on files 1-5).  ``Symmetry`` records both, and maps a move stored for the slot
back to the move of the position asked about.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from tbdb.errors import InvalidArrayError, InvalidMaterialError, InvalidPositionError, quote
from tbdb.games.shogi.position import LETTERS, Move, Position
from tbdb.solvers.shogi import moves as moves_k
from tbdb.solvers.shogi import index as k
from tbdb.solvers.shogi import tables as space_k

ORDER = "RBGSNLP"  # strongest first, as table names list pieces
MAX_PIECES = 4  # kings included: what the build goals cover (larger tables index fine)


def parse_table_name(name: str) -> tuple[int, ...]:
    """Piece types (solvers/shogi/moves.py numbering) of a table name, strongest first."""
    if not isinstance(name, str):
        raise InvalidMaterialError(f"a shogi table name is text, not {quote(name)}")
    m = re.fullmatch(r"K([RBGSNLP]*)K", name)
    if not m:
        raise InvalidMaterialError(f"malformed shogi table name {quote(name)}: expected 'K', "
                                   f"pieces "
                                   f"from {ORDER}, 'K' (e.g. 'KGK', 'KRGK')")
    pieces = m.group(1)
    ordered = "".join(sorted(pieces, key=ORDER.index))
    if pieces != ordered:
        raise InvalidMaterialError(f"shogi table name {quote(name)} is not strongest first; "
                                   f"write it as {'K' + ordered + 'K'!r}")
    return tuple(LETTERS.index(c) for c in pieces)


def table_name(types) -> str:
    letters = sorted((LETTERS[t] for t in types), key=ORDER.index)
    return "K" + "".join(letters) + "K"


def table_of(position: Position) -> str:
    """The name of the table holding a position (its non-king pieces, wherever they are)."""
    types = []
    for code in position.board:
        t = code & 15
        if code and t != moves_k.KING:
            types.append(t - moves_k.PROMOTED if t > moves_k.KING else t)
    for colour in (0, 1):
        for t in range(1, 8):
            types.extend([t] * position.hands[colour][t])
    return table_name(types)


def all_tables(pieces: int) -> list[str]:
    """Every table with ``pieces`` pieces in all (kings included), in name order."""
    from itertools import combinations_with_replacement
    if pieces < 2:
        return []
    return sorted(table_name([LETTERS.index(c) for c in combo])
                  for combo in combinations_with_replacement(ORDER, pieces - 2))


# The most squares a white piece of a type can have come from in one move, standing on one
# square: as it stands and, if it stands promoted, unpromoted (a dragon: 20 as a dragon + 16
# as a rook; a lance 8 only on the last rank, where a promoted lance has 5 gold origins).
# tests/test_shogi_tables.py counts them with the kernel that finds them.
ORIGINS = {1: 1 + 6, 2: 8 + 5, 3: 2 + 6, 4: 5 + 6, 5: 16 + 20, 6: 16 + 20, 7: 6}
KING_ORIGINS = 8


def max_parents(types) -> int:
    """The most parents a position of the table can have (the width of ``parents``'s rows:
    the batch of parents is this wide, so a tight bound is memory not written).  White's last
    move came from one of the origins of its king or of a white piece on the board, capturing
    nothing or any piece of a type in white's hand (promoted or not), or it dropped a piece
    now on the board: the most over which pieces are white's on the board and in white's
    hand."""
    from itertools import product
    best = 0
    for where in product(("board", "hand", "other"), repeat=len(types)):
        origins = KING_ORIGINS + sum(ORIGINS[t] for t, w in zip(types, where) if w == "board")
        uncaptures = sum(2 if t <= moves_k.ROOK else 1
                         for t, w in zip(types, where) if w == "hand")
        drops = where.count("board")
        best = max(best, origins * (1 + uncaptures) + drops)
    return best


@dataclass(frozen=True)
class Symmetry:
    """How a position reaches its slot: ``swap`` (white to move: colour swap with the board
    turned) then ``mirror`` (left-right).  Both are involutions and commute, so the same maps
    take squares of the stored position back to the position asked about."""
    swap: bool
    mirror: bool

    def square(self, sq: int) -> int:
        if self.mirror:
            sq = (8 - sq // 9) * 9 + sq % 9
        if self.swap:
            sq = 80 - sq
        return sq

    def move(self, code: int) -> Move:
        """The move of the original position that a move code on the stored position is."""
        move = Move.from_code(code)
        return Move(self.square(move.to_sq),
                    None if move.from_sq is None else self.square(move.from_sq),
                    move.promote, move.drop)


class ShogiTable:
    """One table as an ``IndexSpace``: ``size`` slots, black to move in each; ``census``,
    ``children`` and ``parents`` batch methods for ``tbdb.retrograde.driver.solve_index``."""

    def __init__(self, name: str):
        self.types = parse_table_name(name)
        self.name = name
        self.desc = k.make_desc(self.types)
        self.size = int(self.desc[3])
        n = len(self.types)
        self.max_children = 8 + 81 * n  # king steps, and per piece 81 drops or fewer moves
        self.max_parents = max_parents(self.types)

    def __repr__(self) -> str:
        return f"ShogiTable({self.name!r})"

    # ------------------------------------------------------------------ the contract

    def census(self, lo: int, hi: int) -> tuple[np.ndarray, np.ndarray]:
        return space_k.census(self.desc, lo, hi)

    def children(self, positions: np.ndarray) -> tuple[np.ndarray, ...]:
        positions = np.ascontiguousarray(positions, np.int64)
        n, w = len(positions), self.max_children
        count = np.empty(n, np.int16)
        child = np.empty((n, w), np.int64)
        move = np.empty((n, w), np.int32)
        space_k.children(self.desc, positions, count, child, move)
        # every move stays in the table: no external values
        return count, child, move, np.zeros((n, w), np.int8), np.zeros((n, w), np.int16)

    def parents(self, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        positions = np.ascontiguousarray(positions, np.int64)
        n = len(positions)
        count = np.empty(n, np.int32)
        parent = np.empty((n, self.max_parents), np.int64)
        space_k.parents(self.desc, positions, count, parent)
        return count, parent

    # ------------------------------------------------------------------ positions and slots

    @cached_property
    def _scratch(self) -> tuple[np.ndarray, ...]:
        k = max(len(self.types), 1)
        return (np.empty(2, np.int64),) + tuple(np.empty(k, np.int64) for _ in range(4))

    def locate(self, position: Position) -> tuple[int, Symmetry]:
        """(slot, symmetry) of a position of this table."""
        slot, mirrored = k.slot_of(self.desc, position.board_array(), position.hands_array(),
                                    position.side, *self._scratch)
        if slot < 0:
            raise InvalidPositionError(f"position {position.sfen!r} is not in table "
                                       f"{self.name!r} (it belongs to {table_of(position)!r})")
        return int(slot), Symmetry(bool(position.side), bool(mirrored))

    def locate_many(self, boards: np.ndarray, hands: np.ndarray,
                    sides: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Batch ``locate`` for engines: boards int8[n, 81] (piece codes, square order), hands
        int8[n, 2, 8] (per colour, counts by piece type), sides int8[n] (0 black, 1 white to
        move) -> slots int64[n] (-1 where a position does not hold this table's pieces), swap
        bool[n] (= sides == 1), mirror bool[n].  Positions are trusted to be legal."""
        boards = np.ascontiguousarray(boards, np.int8)
        hands = np.ascontiguousarray(hands, np.int8)
        sides = np.ascontiguousarray(sides, np.int8)
        n = len(boards)
        if boards.shape != (n, 81) or hands.shape != (n, 2, 8) or sides.shape != (n,):
            raise InvalidArrayError(f"expected boards (n, 81), hands (n, 2, 8) and sides (n,), got "
                                    f"{boards.shape}, {hands.shape} and {sides.shape}")
        slots = np.empty(n, np.int64)
        mirrored = np.empty(n, np.int8)
        k.slots_of_many(self.desc, boards, hands, sides, slots, mirrored)
        return slots, sides == 1, mirrored == 1

    def position(self, slot: int) -> Position | None:
        """The stored position (black to move) of a slot; None if the slot is no board."""
        board = np.zeros(81, np.int8)
        hands = np.zeros((2, 8), np.int8)
        if not k.position_of(self.desc, int(slot), board, hands):
            return None
        return Position(tuple(int(c) for c in board),
                        (tuple(int(c) for c in hands[0]), tuple(int(c) for c in hands[1])), 0)


def locate(position) -> tuple[str, int, Symmetry]:
    """(table name, slot, symmetry) of a position: SFEN text, a ``Position``, or any board with
    ``.sfen()`` (python-shogi, cshogi)."""
    position = Position.from_board(position)
    name = table_of(position)
    slot, sym = ShogiTable(name).locate(position)
    return name, slot, sym
