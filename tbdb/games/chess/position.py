"""Chess positions and moves and their text: FEN in and out, moves in UCI (``e7e8q``) and SAN
(``e8=Q+``).

Position text: the full six-field FEN with castling ``-`` and an en passant square only where
an en passant capture is legal (as python-chess writes it): ``8/8/8/8/8/8/8/KQ5k w - - 0 1``.
``Position.parse`` reads exactly that; ``Position.read`` is the lenient reader of lookups
(four-field FENs, an en passant square no capture can use: dropped).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from tbdb.errors import InvalidMoveError, InvalidPositionError, quote
from tbdb.solvers.chess import moves as move_kernels
from tbdb.solvers.chess.moves import BLACK_BIT, KING, PAWN
from tbdb.games import notation

Square = int  # 0..63, a1 = 0, h1 = 7, h8 = 63
LETTERS = ".PNBRQK"  # by piece type
# a FEN's characters: a piece letter's code, a digit's run of empty squares
_CELL_OF = {**{ch: i for i, ch in enumerate(LETTERS) if i},
            **{ch.lower(): i + BLACK_BIT for i, ch in enumerate(LETTERS) if i}}
_RUN_OF = {str(n): [0] * n for n in range(1, 9)}
# a code's FEN character, "1" for an empty square (runs of them are counted after)
_CHAR_OF = ["1"] * (BLACK_BIT + KING + 1)
for _char, _code in _CELL_OF.items():
    _CHAR_OF[_code] = _char
del _char, _code
_RUNS = [("1" * n, str(n)) for n in range(8, 1, -1)]


def sparse_placement(pieces) -> str:
    """The FEN placement of a board given as (square, piece code) pairs: for the few pieces of
    an endgame, a walk over them, not over 64 squares (SQL's FEN column, a row at a time)."""
    out: list[str] = []
    rank, file = 7, 0
    for sq, code in sorted(pieces, key=lambda p: (-(p[0] >> 3), p[0] & 7)):
        r, f = sq >> 3, sq & 7
        while rank > r:  # close this rank and any empty ones down to the piece's
            out.append(f"{8 - file}/" if file < 8 else "/")
            rank, file = rank - 1, 0
        if f > file:
            out.append(str(f - file))
        out.append(_CHAR_OF[code])
        file = f + 1
    while rank >= 0:
        out.append(str(8 - file) if file < 8 else "")
        if rank:
            out.append("/")
        rank, file = rank - 1, 0
    return "".join(out)


def square_name(sq: Square) -> str:
    return "abcdefgh"[sq % 8] + str(sq // 8 + 1)


def parse_square(text: str) -> Square:
    if len(text) != 2 or text[0] not in "abcdefgh" or text[1] not in "12345678":
        raise ValueError(text)
    return (int(text[1]) - 1) * 8 + "abcdefgh".index(text[0])


def looks_like_fen(text) -> bool:
    return isinstance(text, str) and notation.chess(text)


# ------------------------------------------------------------------------------- moves

@dataclass(frozen=True)
class Move:
    """A move: from and to squares and the promotion piece type (0 none)."""
    from_sq: Square
    to_sq: Square
    promotion: int = 0

    @classmethod
    def from_code(cls, code: int) -> Move:
        return cls(code & 63, (code >> 6) & 63, code >> 12)

    @classmethod
    def from_stored(cls, code: int) -> Move:
        """``from_code`` of a code read from a table, which may be damaged: a ValueError for a
        number no move has (its promotion indexed the piece letters out of range)."""
        if not 0 <= code < 6 << 12:
            raise ValueError(f"{code!r} is no chess move code")
        return cls.from_code(code)

    @property
    def code(self) -> int:
        return self.from_sq + 64 * self.to_sq + 4096 * self.promotion

    @classmethod
    def from_uci(cls, text: str) -> Move:
        m = re.fullmatch(r"([a-h][1-8])([a-h][1-8])([qrbn]?)", text) if isinstance(text, str) \
            else None
        if not m:
            raise InvalidMoveError(f"malformed chess move {quote(text)}: expected UCI like "
                                   f"'e2e4' or 'e7e8q', or SAN like 'Qh7+'")
        promo = " pnbrq".index(m.group(3)) if m.group(3) else 0
        return cls(parse_square(m.group(1)), parse_square(m.group(2)), promo)

    def uci(self) -> str:
        return square_name(self.from_sq) + square_name(self.to_sq) + \
            (" pnbrq"[self.promotion] if self.promotion else "")

    def __str__(self) -> str:
        return self.uci()


# ------------------------------------------------------------------------------- positions

@dataclass(frozen=True)
class Position:
    """A board (64 piece codes, a1 first: ``solvers/chess/moves.py``), the side to move
    (0 white, 1 black), the en passant square (-1 none; only where a capture can use it) and
    the two FEN counters (kept for the text; the tables ignore them: no 50-move rule)."""
    board: tuple[int, ...]
    turn: int
    ep: int = -1
    halfmove: int = 0
    fullmove: int = 1

    # ---------------------------------------------------------------- text
    @classmethod
    def parse(cls, text: str) -> Position:
        """Exactly the text ``text`` writes (the canonical FEN)."""
        position = cls.read(text)
        if position.text != text:
            raise InvalidPositionError(f"chess position {quote(text)} is not in tbdb's FEN form "
                                       f"{position.text!r} (six fields, an en passant square "
                                       f"only where a capture can use it)")
        return position

    @classmethod
    def read(cls, text: str) -> Position:
        """A FEN of four to six fields; an en passant square no legal capture uses is dropped."""
        if not isinstance(text, str):
            raise InvalidPositionError(f"a chess position is FEN text, not {quote(text)}")
        fields = text.split(" ")
        if not 4 <= len(fields) <= 6 or fields[1] not in ("w", "b"):
            raise InvalidPositionError(
                f"malformed chess position {quote(text)}: expected a FEN like "
                f"'8/8/8/8/8/8/8/KQ5k w - - 0 1'")
        ranks = fields[0].split("/")
        if len(ranks) != 8:
            raise InvalidPositionError(f"malformed chess position {quote(text)}: {len(ranks)} "
                                       f"ranks, expected 8")
        board = [0] * 64
        for r, rank in enumerate(ranks):
            cells: list[int] = []
            prev_digit = False
            for ch in rank:
                code = _CELL_OF.get(ch)
                if code is not None:
                    cells.append(code)
                    prev_digit = False
                elif ch in _RUN_OF and not prev_digit:
                    cells += _RUN_OF[ch]
                    prev_digit = True
                else:
                    raise InvalidPositionError(f"malformed chess position {quote(text)}: "
                                               f"{ch!r} in rank {quote(rank)}")
            if len(cells) != 8:
                raise InvalidPositionError(f"malformed chess position {quote(text)}: rank "
                                           f"{quote(rank)} covers {len(cells)} files, not 8")
            board[(7 - r) * 8:(8 - r) * 8] = cells
        if fields[2] != "-":
            raise InvalidPositionError(f"chess position {quote(text)} has castling rights "
                                       f"{quote(fields[2])}; tables have none (write '-')")
        ep = -1
        if fields[3] != "-":
            try:
                ep = parse_square(fields[3])
            except ValueError:
                raise InvalidPositionError(f"malformed chess position {quote(text)}: en passant "
                                           f"square {quote(fields[3])}") from None
        counters = [0, 1]
        for i, f in enumerate(fields[4:]):
            if not f.isdigit() or (i == 1 and int(f) < 1) or len(f) > 6:
                raise InvalidPositionError(f"malformed chess position {quote(text)}: move "
                                           f"counter {quote(f)}")
            counters[i] = int(f)
        turn = 0 if fields[1] == "w" else 1
        array = np.array(board, np.int8)
        problem = _impossible(board, array, turn)
        if problem:
            raise InvalidPositionError(f"chess position {quote(text)} cannot arise: {problem}")
        if ep >= 0:
            if ep // 8 != (5 if turn == 0 else 2):
                raise InvalidPositionError(f"chess position {quote(text)} cannot arise: en "
                                           f"passant square {quote(fields[3])} is not behind a "
                                           f"pawn that just moved two squares")
            ep = int(move_kernels.legal_ep(array, turn, ep))
        position = cls(tuple(board), turn, ep, counters[0], counters[1])
        # what parses is already the placement's canonical text (no two digits in a row, every
        # rank 8 files), and the board array the kernels read: kept, not made again per use
        object.__setattr__(position, "_placement", fields[0])
        object.__setattr__(position, "_array", array)
        return position

    @property
    def placement(self) -> str:
        cached = self.__dict__.get("_placement")
        if cached is not None:
            return cached
        board = self.board
        ranks = ["".join([_CHAR_OF[c] for c in board[r * 8:r * 8 + 8]])
                 for r in range(7, -1, -1)]
        text = "/".join(ranks)
        for run, digit in _RUNS:  # the longest runs of empty squares first
            text = text.replace(run, digit)
        object.__setattr__(self, "_placement", text)
        return text

    @property
    def text(self) -> str:
        ep = square_name(self.ep) if self.ep >= 0 else "-"
        return f"{self.placement} {'wb'[self.turn]} - {ep} {self.halfmove} {self.fullmove}"

    def __str__(self) -> str:
        return self.text

    # ---------------------------------------------------------------- moves
    def array(self) -> np.ndarray:
        """The board as int8[64], the caller's own copy."""
        return np.array(self.board, np.int8)

    def _board(self) -> np.ndarray:
        """The board as int8[64], made once per position, for kernels that only read it
        (``in_check``); a kernel that makes and unmakes moves on its board (``legal_moves``)
        gets a copy, so that threads sharing a position never see a move half made."""
        array = self.__dict__.get("_array")
        if array is None:
            array = self.array()
            object.__setattr__(self, "_array", array)
        return array

    def codes(self) -> list[int]:
        """Legal move codes, in the move order of ``solvers/chess/moves.py`` (listed once per
        position: a lookup asks for them several times)."""
        codes = self.__dict__.get("_codes")
        if codes is None:
            out = np.empty(move_kernels.MAX_MOVES, np.int32)
            n = move_kernels.legal_moves(self._board().copy(), self.turn, self.ep, out)
            codes = tuple(out[:n].tolist())
            object.__setattr__(self, "_codes", codes)
        return list(codes)

    def legal_moves(self) -> list[Move]:
        return [Move.from_code(c) for c in self.codes()]

    def is_check(self) -> bool:
        return bool(move_kernels.in_check(self._board(), self.turn))

    @property
    def pieces(self) -> int:
        return sum(1 for c in self.board if c)

    def move(self, text: str | Move) -> Move:
        """The legal move written ``text`` (UCI or SAN), else ``InvalidMoveError``."""
        if isinstance(text, Move):
            move = text
        elif isinstance(text, str) and re.fullmatch(r"[a-h][1-8][a-h][1-8][qrbn]?", text):
            move = Move.from_uci(text)
        else:
            for m in self.legal_moves():
                if san(self, m).rstrip("+#") == str(text).rstrip("+#"):
                    return m
            raise InvalidMoveError(f"{quote(text)} is no legal move in {self.text!r}")
        if move.code not in self.codes():
            raise InvalidMoveError(f"move {quote(move.uci())} is not legal in {self.text!r}")
        return move

    def push(self, text: str | Move) -> Position:
        """The position after a legal move (UCI, SAN or a ``Move``)."""
        move = self.move(text)
        board = self.array()
        undo, ep = move_kernels.make_move(board, np.int32(move.code), self.turn)
        turn = 1 - self.turn
        if ep >= 0:
            ep = int(move_kernels.legal_ep(board, turn, ep))
        zeroing = undo != 0 or self.board[move.from_sq] & 7 == PAWN
        return Position(tuple(board.tolist()), turn, ep, 0 if zeroing else self.halfmove + 1,
                        self.fullmove + self.turn)

    def is_zeroing(self, move: Move) -> bool:
        """A capture or pawn move (what resets the 50-move counter)."""
        return self.board[move.from_sq] & 7 == PAWN or self.board[move.to_sq] != 0

    def is_conversion(self, move: Move) -> bool:
        """A capture (en passant too) or a promotion: what changes the material."""
        return self.board[move.to_sq] != 0 or move.promotion != 0 or \
            (move.to_sq == self.ep and self.board[move.from_sq] & 7 == PAWN)

    @classmethod
    def from_board(cls, board) -> Position:
        """From a ``chess.Board`` (python-chess): its pieces read from its bitboards (python-chess
        numbers piece types as tbdb does, 1 pawn .. 6 king), checked as ``read`` checks a FEN;
        a board's FEN is written only to quote it in an error (writing one costs more than the
        rest of a lookup).  A board of another variant (python-chess's ``AtomicBoard``,
        ``CrazyhouseBoard``, ... subclass ``chess.Board``) is refused: the tables hold standard
        chess, whose values those rules do not share (a Chess960 board plays standard chess
        once it has no castling rights, which the tables require anyway)."""
        variant = getattr(board, "uci_variant", "chess")
        if variant != "chess":
            raise InvalidPositionError(f"chess position {quote(board.fen())} is a python-chess "
                                       f"{type(board).__name__}, which plays {variant} rules; "
                                       f"tbdb's chess tables hold standard chess")
        if board.castling_rights:
            fen = board.fen()
            raise InvalidPositionError(f"chess position {quote(fen)} has castling rights "
                                       f"{quote(fen.split(' ')[2])}; tables have none (write "
                                       f"'-')")
        cells = [0] * 64
        for colour, bit in ((True, 0), (False, BLACK_BIT)):
            for piece in range(PAWN, KING + 1):
                bb = board.pieces_mask(piece, colour)
                while bb:
                    low = bb & -bb
                    cells[low.bit_length() - 1] = piece + bit
                    bb ^= low
        turn = 0 if board.turn else 1
        array = np.array(cells, np.int8)
        problem = _impossible(cells, array, turn)
        if problem:
            raise InvalidPositionError(f"chess position {quote(board.fen())} cannot arise: "
                                       f"{problem}")
        ep = -1 if board.ep_square is None else int(board.ep_square)
        if ep >= 0:
            # python-chess keeps the square after every double step; only a legal capture
            # makes it a right (its FEN with en_passant="legal" writes the same)
            ep = int(move_kernels.legal_ep(array, turn, ep)) if ep // 8 == (5 if turn == 0
                                                                            else 2) else -1
        position = cls(tuple(cells), turn, ep, int(board.halfmove_clock),
                       max(1, int(board.fullmove_number)))
        object.__setattr__(position, "_array", array)
        return position


_BACK_RANKS = tuple(range(8)) + tuple(range(56, 64))


def _impossible(board: list[int], array: np.ndarray, turn: int) -> str | None:
    for colour, name in ((0, "white"), (1, "black")):
        n = board.count(colour * BLACK_BIT + KING)
        if n != 1:
            return f"{name} has {n} kings"
    if any(board[sq] & 7 == PAWN for sq in _BACK_RANKS):
        return "a pawn on the first or last rank"
    if move_kernels.in_check(array, 1 - turn):
        return f"{('black', 'white')[turn]}, not to move, is in check"
    return None


def san(position: Position, move: Move) -> str:
    """The move in Standard Algebraic Notation (``Nbd7``, ``exd6``, ``e8=Q+``, ``Qh7#``)."""
    piece = position.board[move.from_sq] & 7
    to = square_name(move.to_sq)
    capture = position.board[move.to_sq] != 0 or (piece == PAWN and move.to_sq == position.ep)
    if piece == PAWN:
        text = (square_name(move.from_sq)[0] + "x" if capture else "") + to
        if move.promotion:
            text += "=" + LETTERS[move.promotion]
    else:
        text = LETTERS[piece]
        others = [m for m in position.legal_moves() if m.to_sq == move.to_sq and
                  m.from_sq != move.from_sq and position.board[m.from_sq] & 7 == piece]
        if others:
            same_file = any(m.from_sq % 8 == move.from_sq % 8 for m in others)
            same_rank = any(m.from_sq // 8 == move.from_sq // 8 for m in others)
            name = square_name(move.from_sq)
            text += name[0] if not same_file else name[1] if not same_rank else name
        text += ("x" if capture else "") + to
    after = position.push(move)
    if after.is_check():
        text += "#" if not after.codes() else "+"
    return text
