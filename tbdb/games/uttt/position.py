"""Ultimate Tic-Tac-Toe: positions, moves, their text forms and canonical keys.

Position text: 81 characters, board-major (character ``9 * b + c`` is cell ``c`` of small board
``b``; boards and cells are numbered row by row, 0 top left, 8 bottom right), each ``x``, ``o``
or ``.``; a space; the side to move ``x`` or ``o``; a space; the small board the mover must play
in, ``0``-``8``, or ``-`` for any.  ``start`` is the empty board, ``x`` to move, ``-``.  A closed
small board may also be written by its status alone, as nine capital letters: ``XXXXXXXXX`` (won
by x), ``OOOOOOOOO`` (won by o) or ``DDDDDDDDD`` (drawn); the text of a canonical key is written
that way.  Moves: ``b:c``, e.g. ``4:0`` (cell 0 of the centre board); move code ``9 * b + c``.

    >>> p = Position.parse("start").push("4:0")
    >>> p.text[36:45], p.side_name, p.constraint
    ('x........', 'o', 0)
    >>> [str(m) for m in p.legal_moves()][:3]
    ['0:0', '0:1', '0:2']
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache
from itertools import product

import numpy as np

from tbdb.errors import InvalidMoveError, InvalidPositionError, quote
from tbdb.solvers.uttt import keys
from tbdb.solvers.uttt import moves as kernels

Board = int  # 0..8, a small board of the meta-board
Cell = int  # 0..8, a cell of a small board
MoveCode = int  # 9 * board + cell
Key = tuple[int, int]  # the two int64 words of an exact canonical key

X, O = 0, 1
SIDE_LETTERS = "xo"
SCORINGS = kernels.SCORINGS
START_TEXT = "." * 81 + " x -"
REDUCED = {"XXXXXXXXX": "x", "OOOOOOOOO": "o", "DDDDDDDDD": "d"}
_BLOCK_OF_STATUS = {v: k for k, v in REDUCED.items()}
LINES = kernels.LINES
_SYM = keys.SYM.tolist()
_INV = keys.INV_SYM.tolist()


def _mask(block: str, mark: str) -> int:
    return sum(1 << c for c, ch in enumerate(block) if ch == mark)


def _has_line(mask: int) -> bool:
    return any(all(mask >> i & 1 for i in line) for line in LINES)


def _status(block: str) -> str:
    """'x'/'o' won, 'd' drawn (full), '.' open; a block written by status alone keeps it."""
    if block in REDUCED:
        return REDUCED[block]
    if _has_line(_mask(block, "x")):
        return "x"
    if _has_line(_mask(block, "o")):
        return "o"
    return "d" if "." not in block else "."


# ------------------------------------------------------------------------------- moves

@dataclass(frozen=True, order=True)
class Move:
    """A move: cell ``cell`` of small board ``board``."""
    board: Board
    cell: Cell

    @classmethod
    def from_code(cls, code: MoveCode) -> Move:
        return cls(*divmod(int(code), 9))

    @property
    def code(self) -> MoveCode:
        return 9 * self.board + self.cell

    @classmethod
    def parse(cls, text: str) -> Move:
        if (not isinstance(text, str) or len(text) != 3 or text[1] != ":"
                or text[0] not in "012345678" or text[2] not in "012345678"):
            raise InvalidMoveError(f"malformed uttt move {quote(text)}: expected 'board:cell' with "
                                   f"board and cell 0-8, e.g. '4:0'")
        return cls(int(text[0]), int(text[2]))

    def __str__(self) -> str:
        return f"{self.board}:{self.cell}"


# ------------------------------------------------------------------------------- keys

@dataclass(frozen=True)
class Canonical:
    """Where a position is stored: its exact canonical ``key`` (two int64 words), the symmetry
    ``symmetry`` (0..7, see ``tbdb.solvers.uttt.keys.SYM``) that carries the position onto the
    canonical representative, and that representative's ``constraint`` (None: any board)."""
    key: Key
    symmetry: int
    constraint: Board | None

    def to_canonical(self, move: Move) -> Move:
        """The move of the canonical representative that corresponds to ``move``."""
        g = _SYM[self.symmetry]
        return Move(g[move.board], g[move.cell])

    def from_canonical(self, move: Move | MoveCode) -> Move:
        """The move of the original position that corresponds to a move (or stored move code)
        of the canonical representative."""
        if not isinstance(move, Move):
            move = Move.from_code(move)
        inv = _INV[self.symmetry]
        return Move(inv[move.board], inv[move.cell])


def key_text(key: Key) -> str:
    """The text of the canonical representative of a key (closed boards by status alone)."""
    codes = np.empty(9, np.int16)
    side, con = keys.decode_codes(np.int64(key[0]), np.int64(key[1]), codes)
    blocks = []
    for code in codes.tolist():
        if code < keys.FIRST_OPEN:
            blocks.append(_BLOCK_OF_STATUS["xod"[code]])
        else:
            xm, om = int(keys.OPEN_X[code]), int(keys.OPEN_O[code])
            blocks.append("".join("x" if xm >> c & 1 else "o" if om >> c & 1 else "."
                                  for c in range(9)))
    return "".join(blocks) + " " + SIDE_LETTERS[side] + " " + ("-" if con == 9 else str(con))


# ------------------------------------------------------------------------------- positions

@dataclass(frozen=True)
class Position:
    """81 cells (``x``, ``o``, ``.``, or a closed board's status block), the side to move (0 x,
    1 o) and the constraint (the board the mover must play in, None for any)."""
    cells: str
    side: int
    constraint: Board | None

    @classmethod
    def start(cls) -> Position:
        return cls("." * 81, X, None)

    @classmethod
    def parse(cls, text: str) -> Position:
        if text == "start":
            return cls.start()
        if not isinstance(text, str):
            raise InvalidPositionError(f"a uttt position is text, not {quote(text)}")
        parts = text.split(" ")
        if (len(parts) != 3 or len(parts[0]) != 81 or parts[1] not in ("x", "o")
                or parts[2] not in tuple("012345678-")):
            raise InvalidPositionError(
                f"malformed uttt position {quote(text)}: expected 81 characters 'x', 'o' or '.' "
                f"(board-major), a space, the side to move 'x' or 'o', a space and the board to "
                f"play in '0'-'8' or '-' (or 'start')")
        cells = parts[0]
        for b in range(9):
            block = cells[9 * b:9 * b + 9]
            if block not in REDUCED and set(block) - set("xo."):
                raise InvalidPositionError(
                    f"malformed uttt position {quote(text)}: small board {b} is {quote(block)}; "
                    f"cells are 'x', 'o' or '.', and a closed board may be written XXXXXXXXX, "
                    f"OOOOOOOOO or DDDDDDDDD")
        position = cls(cells, "xo".index(parts[1]), None if parts[2] == "-" else int(parts[2]))
        reason = _impossible(position)
        if reason:
            raise InvalidPositionError(f"impossible uttt position {quote(text)}: {reason}")
        return position

    @property
    def text(self) -> str:
        con = "-" if self.constraint is None else str(self.constraint)
        return f"{self.cells} {SIDE_LETTERS[self.side]} {con}"

    def __str__(self) -> str:
        return self.text

    @property
    def side_name(self) -> str:
        return SIDE_LETTERS[self.side]

    def block(self, b: Board) -> str:
        return self.cells[9 * b:9 * b + 9]

    @cached_property
    def statuses(self) -> str:
        """Nine characters: 'x'/'o' won, 'd' drawn, '.' open."""
        return "".join(_status(self.block(b)) for b in range(9))

    @property
    def empties(self) -> int:
        """Empty cells in open boards: the level of the position's table."""
        return sum(self.block(b).count(".") for b in range(9) if self.statuses[b] == ".")

    def state(self) -> np.ndarray:
        """The kernels' state row (int16[NS], layout in ``tbdb.solvers.uttt.moves``)."""
        st = np.zeros(kernels.NS, np.int16)
        for b in range(9):
            s = self.statuses[b]
            if s == ".":
                st[b] = _mask(self.block(b), "x")
                st[9 + b] = _mask(self.block(b), "o")
                st[kernels.S_EMPTY] += self.block(b).count(".")
            else:
                st[kernels.S_CLOSED] |= 1 << b
                if s == "x":
                    st[kernels.S_WON_X] |= 1 << b
                elif s == "o":
                    st[kernels.S_WON_O] |= 1 << b
        st[kernels.S_SIDE] = self.side
        st[kernels.S_CON] = -1 if self.constraint is None else self.constraint
        return st

    def is_game_over(self) -> bool:
        return bool(kernels.game_over(self.state()))

    def result(self, scoring: str = "standard") -> int | None:
        """+1/0/-1 for the side to move if the game is over, else None."""
        st = self.state()
        if not kernels.game_over(st):
            return None
        return int(kernels.terminal_value(st, scoring_code(scoring)))

    def legal_moves(self) -> list[Move]:
        out = np.empty(kernels.MAX_MOVES, np.int16)
        n = kernels.legal_moves(self.state(), out)
        return [Move.from_code(c) for c in out[:n].tolist()]

    def push(self, move: Move | str) -> Position:
        """The position after a legal move (the other side to move)."""
        if isinstance(move, str):
            move = Move.parse(move)
        if move not in self.legal_moves():
            raise InvalidMoveError(f"move {quote(str(move))} is not legal in {self.text!r}")
        i = move.code
        cells = self.cells[:i] + SIDE_LETTERS[self.side] + self.cells[i + 1:]
        nxt = None if _status(cells[9 * move.cell:9 * move.cell + 9]) != "." else move.cell
        return Position(cells, 1 - self.side, nxt)

    def transform(self, g: int) -> Position:
        """The image of the position under symmetry g (boards, cells and constraint alike)."""
        perm = _SYM[g]
        out = ["."] * 81
        for b in range(9):
            block = self.block(b)
            for c in range(9):
                out[9 * perm[b] + (c if block in REDUCED else perm[c])] = block[c]
        con = None if self.constraint is None else perm[self.constraint]
        return Position("".join(out), self.side, con)

    def canonical(self) -> Canonical:
        w0, w1, g = keys.canonical(self.state(), np.empty(9, np.int16))
        con = int(w1 % 10)
        return Canonical((int(w0), int(w1)), int(g), None if con == 9 else con)

    @property
    def key(self) -> Key:
        return self.canonical().key

    @classmethod
    def from_key(cls, key: Key) -> Position:
        """The canonical representative of a key (closed boards by status alone)."""
        return cls.parse(key_text(key))


def scoring_code(scoring: str) -> int:
    if scoring not in SCORINGS:
        raise ValueError(f"unknown uttt scoring {scoring!r}; expected one of "
                         f"{', '.join(SCORINGS)}")
    return SCORINGS.index(scoring)


# ------------------------------------------------------------------------------- legality

@lru_cache(maxsize=None)
def _closing_fillings() -> dict:
    """{(status, last mover, cell): set of #x - #o} over every filling a game can close with
    that status by a move of that side in that cell (the move removable: before it the board
    was open).  Brute force over all 3**9 fillings."""
    out: dict = {}
    for f in product(".xo", repeat=9):
        block = "".join(f)
        s = _status(block)
        if s == ".":
            continue
        xm, om = _mask(block, "x"), _mask(block, "o")
        if _has_line(xm) and _has_line(om):
            continue
        for last, mine, theirs in (("x", xm, om), ("o", om, xm)):
            for c in range(9):
                if mine >> c & 1 and not _has_line(mine & ~(1 << c)) and not _has_line(theirs):
                    out.setdefault((s, last, c), set()).add(block.count("x") - block.count("o"))
    return out


def _closing_diffs(status: str, last: str | None = None, cell: int | None = None) -> set[int]:
    table = _closing_fillings()
    if last is not None:
        return table.get((status, last, cell), set())
    return set().union(*(v for (s, _, _), v in table.items() if s == status))


def _sums(sets: list[set[int]]) -> set[int]:
    total = {0}
    for s in sets:
        total = {a + b for a in total for b in s}
    return total


def _impossible(p: Position) -> str | None:
    """Why a position cannot arise in a game, or None.  The conditions are those of
    ``tbdb.solvers.uttt.levels`` (a last move that fits, mark counts, the game not over before it),
    here with explicit boards read cell by cell."""
    me, last = SIDE_LETTERS[p.side], SIDE_LETTERS[1 - p.side]
    blocks = [p.block(b) for b in range(9)]
    st = p.statuses
    for b, block in enumerate(blocks):
        if block in REDUCED:
            continue
        xm, om = _mask(block, "x"), _mask(block, "o")
        if _has_line(xm) and _has_line(om):
            return f"small board {b} has a line of x and a line of o"
        for mark, mine in (("x", xm), ("o", om)):
            if _has_line(mine) and not any(mine >> c & 1 and not _has_line(mine & ~(1 << c))
                                           for c in range(9)):
                return (f"small board {b} has lines of {mark} that no single move completes: "
                        f"it closed at the first")
    if all(ch == "." for ch in p.cells):
        if p.side == X and p.constraint is None:
            return None
        return "an empty board is the start: x to move, constraint '-'"
    if p.constraint is not None and st[p.constraint] != ".":
        return f"the constraint {p.constraint} points at a closed small board"
    won = {m: sum(1 << b for b in range(9) if st[b] == m) for m in "xo"}
    if _has_line(won[me]):
        return (f"{me} has three small boards in a row but is to move: the game ended before "
                f"{last} moved")
    target = 1 if p.side == O else 0  # #x - #o
    explicit = sum(blk.count("x") - blk.count("o") for blk in blocks if blk not in REDUCED)
    reduced = {b: _closing_diffs(REDUCED[blk]) for b, blk in enumerate(blocks) if blk in REDUCED}
    if target - explicit not in _sums(list(reduced.values())):
        if not reduced:
            return (f"{p.cells.count('x')} x and {p.cells.count('o')} o: with {me} to move "
                    f"there must be {'as many x as o' if p.side == X else 'one x more than o'}")
        return (f"no filling of the boards written by status alone gives mark counts that fit "
                f"{me} to move")
    lines = _has_line(won[last])
    for b in range(9):
        for c in range(9):
            if _last_move_fits(p, b, c, last, lines, won[last], target - explicit, reduced):
                return None
    if lines and not any(st[b] == last and not _has_line(won[last] & ~(1 << b))
                         for b in range(9)):
        return (f"{last} already had three small boards in a row before its last move: play "
                f"continued after the game ended")
    want = ("a cell whose small board is closed" if p.constraint is None
            else f"cell {p.constraint} of some small board")
    return f"no last move by {last} fits: the constraint says {last} last played in {want}"


def _last_move_fits(p: Position, b: int, c: int, last: str, lines: bool, last_won: int,
                    target: int, reduced: dict) -> bool:
    st = p.statuses
    sent_to_closed = st[c] != "."
    if (p.constraint is None) != sent_to_closed or (not sent_to_closed and p.constraint != c):
        return False
    block = p.block(b)
    if st[b] == ".":  # the move left its board open: it is there, and nothing was over
        return block[c] == last and not lines
    if st[b] not in (last, "d"):
        return False
    if lines and (st[b] != last or _has_line(last_won & ~(1 << b))):
        return False
    if block in REDUCED:
        rest = [v for k, v in reduced.items() if k != b]
        return target in _sums(rest + [_closing_diffs(st[b], last, c)])
    mine = _mask(block, last)
    return bool(mine >> c & 1) and not _has_line(mine & ~(1 << c))


def perft(position: Position, depth: int) -> int:
    """Leaves of the move tree ``depth`` plies below ``position`` (the move generator's
    benchmark: ``perft(Position.start(), 5) == 473256``)."""
    if not isinstance(depth, int) or depth < 0:
        raise ValueError(f"perft depth must be an integer >= 0, got {depth!r}")
    return kernels.perft(position.state(), depth)
