"""Random legal chess positions of a material (python-chess boards) and their comparison with
Syzygy tables: what tests/test_chess_syzygy.py asserts and benchmarks/chess.py --syzygy
measures."""
from __future__ import annotations

import random

import chess

_PIECE = {c: chess.Piece.from_symbol(c).piece_type for c in "KQRBNP"}


def _colour_pieces(material: str, rnd: random.Random) -> dict[bool, list[int]]:
    """The material's two sides as piece types, the stronger side white or black at random."""
    strong, weak = material.split("v")
    white_strong = rnd.random() < 0.5
    return {white_strong: [_PIECE[c] for c in strong], not white_strong: [_PIECE[c] for c in weak]}


def _place(board: chess.Board, pieces: dict[bool, list[int]], rnd: random.Random) -> bool:
    for colour, types in pieces.items():
        for t in types:
            free = [s for s in chess.SQUARES if board.piece_at(s) is None
                    and not (t == chess.PAWN and chess.square_rank(s) in (0, 7))]
            if not free:
                return False
            board.set_piece_at(rnd.choice(free), chess.Piece(t, colour))
    return True


def random_boards(material: str, n: int, rnd: random.Random) -> list[chess.Board]:
    """``n`` random legal positions (``Board.is_valid``) of ``material``."""
    out = []
    while len(out) < n:
        board = chess.Board(None)
        board.turn = rnd.random() < 0.5
        if _place(board, _colour_pieces(material, rnd), rnd) and board.is_valid():
            out.append(board)
    return out


def en_passant_boards(material: str, n: int, rnd: random.Random) -> list[chess.Board]:
    """``n`` random legal positions of ``material`` (pawns of both colours) just after a double
    step beside an enemy pawn, with the en passant right a legal capture can use."""
    out = []
    while len(out) < n:
        pieces = _colour_pieces(material, rnd)
        mover = rnd.random() < 0.5  # to move: takes en passant
        board = chess.Board(None)
        board.turn = mover
        f = rnd.randrange(8)
        beside = f + rnd.choice((-1, 1))
        if not 0 <= beside < 8 or chess.PAWN not in pieces[mover] \
                or chess.PAWN not in pieces[not mover]:
            continue
        rank = 3 if mover == chess.BLACK else 4  # the double-stepped pawn's rank
        board.set_piece_at(chess.square(f, rank), chess.Piece(chess.PAWN, not mover))
        board.set_piece_at(chess.square(beside, rank), chess.Piece(chess.PAWN, mover))
        pieces[mover].remove(chess.PAWN)
        pieces[not mover].remove(chess.PAWN)
        behind = (chess.square(f, rank - 1), chess.square(f, rank - 2)) if mover == chess.BLACK \
            else (chess.square(f, rank + 1), chess.square(f, rank + 2))
        if not _place(board, pieces, rnd) or any(board.piece_at(s) for s in behind):
            continue
        board.ep_square = behind[0]
        if board.is_valid() and board.has_legal_en_passant():
            out.append(board)
    return out


def compare(tb, syzygy, boards) -> list[tuple]:
    """The boards where tbdb and Syzygy disagree: (FEN, tbdb's outcome and distance, WDL, DTZ)."""
    bad = []
    for board in boards:
        got = tb.lookup(board)
        wdl, dtz = syzygy.probe_wdl(board), syzygy.probe_dtz(board)
        want = "win" if wdl > 0 else "loss" if wdl < 0 else "draw"
        ok = got.outcome == want
        if want != "draw":
            ok = ok and abs(dtz) <= got.distance + 1
        ok = ok and board.is_checkmate() == (got.outcome == "loss" and got.distance == 0)
        if not ok:
            bad.append((board.fen(), got.outcome, got.distance, wdl, dtz))
    return bad
