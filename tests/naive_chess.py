"""A slow, obviously correct chess endgame solver: python-chess decides every legal move, check,
checkmate and stalemate; a plain retrograde over all positions of a material (no symmetry, no
index) solves them.

``solve("KQvK")`` -> {(turn, squares): (result, distance)}: every legal position of the
material with either side to move, ``turn`` True for white, ``squares`` the squares of the
pieces in the material's written order (white king, white pieces, black king, black pieces;
identical pieces in square order); result 1 win / 0 draw / -1 loss for the side to move,
distance in plies (0 for draws).  Captures and promotions lead to other materials, solved the
same way (bare kings: a draw).  No castling or en passant rights, no 50-move rule.

``solve_reachable(roots, outside)`` handles en passant exactly: it solves every position
reachable from the ``roots`` without a capture or promotion, each keyed by its EPD with the en
passant square where a legal capture uses it (python-chess's ``epd()``), so a double step next
to an enemy pawn leads to a position of its own whose moves python-chess lists with the en
passant capture.  ``outside(board)`` values the positions a capture or promotion leads to.
"""
from __future__ import annotations

from functools import lru_cache
from itertools import permutations

import chess

PIECES = {"K": chess.KING, "Q": chess.QUEEN, "R": chess.ROOK, "B": chess.BISHOP,
          "N": chess.KNIGHT, "P": chess.PAWN}
ORDER = "KQRBNP"


@lru_cache(maxsize=None)
def pieces_of(material: str) -> tuple[chess.Piece, ...]:
    white, black = material.split("v")
    return tuple([chess.Piece(PIECES[c], chess.WHITE) for c in white]
                 + [chess.Piece(PIECES[c], chess.BLACK) for c in black])


def name_of(pieces: list[chess.Piece]) -> str:
    """The material written as ``solve`` takes it (kings first, then Q R B N P)."""
    sides = []
    for colour in (chess.WHITE, chess.BLACK):
        letters = [p.symbol().upper() for p in pieces if p.color == colour]
        sides.append("".join(sorted(letters, key=ORDER.index)))
    return "v".join(sides)


def key_of(pieces: list[tuple[chess.Piece, int]], turn: bool) -> tuple[str, tuple]:
    """(material, key) of (piece, square) pairs with ``turn`` to move."""
    name = name_of([p for p, _ in pieces])
    left = sorted(pieces, key=lambda ps: ps[1])
    squares = []
    for p in pieces_of(name):  # identical pieces in square order
        i = next(i for i, (q, _) in enumerate(left) if q == p)
        squares.append(left.pop(i)[1])
    return name, (turn, tuple(squares))


def positions(material: str):
    """Every legal (board, key) of the material: pieces on distinct squares, no pawn on the
    first or last rank, the side not to move not in check.  One board object, refilled: use
    it before asking for the next."""
    pieces = pieces_of(material)
    board = chess.Board(None)
    for squares in permutations(range(64), len(pieces)):
        if any(p.piece_type == chess.PAWN and chess.square_rank(s) in (0, 7)
               for p, s in zip(pieces, squares)):
            continue
        placed = list(zip(pieces, squares))
        name, (_, canonical) = key_of(placed, True)
        if canonical != squares:
            continue  # identical pieces: each placement once
        board.set_piece_map({s: p for p, s in placed})
        for turn in (chess.WHITE, chess.BLACK):
            board.turn = turn
            if not board.is_attacked_by(turn, board.king(not turn)):
                yield board, (turn, squares)


def after(material: str, key: tuple, move: chess.Move) -> tuple[str, tuple]:
    """(material, key) of the position after ``move`` (legal in the position of ``key``): the
    mover's piece goes to the target square, a piece there is taken, a pawn reaching the last
    rank becomes the promotion piece."""
    turn, squares = key
    out = []
    for p, s in zip(pieces_of(material), squares):
        if s == move.to_square:
            continue  # taken
        if s == move.from_square:
            if p.piece_type == chess.PAWN and move.to_square not in squares and \
                    chess.square_file(move.to_square) != chess.square_file(move.from_square):
                raise ValueError("en passant: these positions hold no en passant right")
            p = chess.Piece(move.promotion, p.color) if move.promotion else p
            s = move.to_square
        out.append((p, s))
    return key_of(out, not turn)


@lru_cache(maxsize=None)
def solve(material: str) -> dict:
    nodes: dict[tuple, int] = {}
    boards = []  # (key, legal moves, in check) per position
    for board, key in positions(material):
        nodes[key] = len(boards)
        boards.append((key, list(board.legal_moves), board.is_check()))
    rows = []  # per position: (in-table children, external values, in check), as _retrograde
    for key, moves, check in boards:
        inside, external = [], []
        for move in moves:
            name, child = after(material, key, move)
            if name == material:
                inside.append(nodes[child])
            else:
                external.append((0, 0) if name == "KvK" else solve(name)[child])
        rows.append((inside, external, check))
    return _retrograde(rows, [key for key, _, _ in boards])


def material_of(board: chess.Board) -> tuple:
    return tuple(sorted((p.piece_type, p.color) for p in board.piece_map().values()))


def solve_reachable(roots, outside, keep=None) -> dict:
    """{epd: (result, distance)} for every position reachable from the boards ``roots`` (one
    material) by moves that keep the material; ``outside(board) -> (result, distance)`` for
    the boards after a capture or a promotion (for their side to move).  ``keep(board, move)``
    (the board after the move), if given, also sends the moves it refuses outside (a check
    of part of a table, the rest of it taken as known)."""
    material = material_of(roots[0])
    nodes: dict[str, int] = {}
    todo = []
    for board in roots:
        key = board.epd()
        if key not in nodes:
            nodes[key] = len(nodes)
            todo.append(key)
    rows = []  # per position: (in-table children, external values, in check)
    while len(rows) < len(nodes):
        board = chess.Board(todo[len(rows)])
        inside, external = [], []
        check = board.is_check()
        for move in list(board.legal_moves):
            board.push(move)
            if move.promotion is None and material_of(board) == material and \
                    (keep is None or keep(board, move)):
                key = board.epd()  # with the en passant square if a legal capture uses it
                if key not in nodes:
                    nodes[key] = len(nodes)
                    todo.append(key)
                inside.append(nodes[key])
            else:
                external.append(outside(board))
            board.pop()
        rows.append((inside, external, check))
    return _retrograde(rows, todo)


def _retrograde(rows, keys) -> dict:
    """The plain retrograde of ``solve`` over ``rows`` (in-table children, external values,
    in check) per position."""
    n = len(rows)
    parents: list[list[int]] = [[] for _ in range(n)]  # one entry per move into the position
    not_won = [0] * n  # children not (yet) known to be won for the opponent
    longest = [0] * n  # the longest win among the children known to be won
    buckets: dict[int, list[tuple[int, int]]] = {}  # distance -> (position, result) candidates
    for i, (inside, external, check) in enumerate(rows):
        if not inside and not external:  # checkmate lost, stalemate drawn, at distance 0
            buckets.setdefault(0, []).append((i, -1 if check else 0))
            continue
        for c in inside:
            parents[c].append(i)
            not_won[i] += 1
        for r, d in external:
            if r == 1:
                longest[i] = max(longest[i], d)
                continue
            not_won[i] += 1  # lost or drawn for the opponent
            if r == -1:
                buckets.setdefault(d + 1, []).append((i, 1))
        if not_won[i] == 0:  # every move leaves the material into a win for the opponent
            buckets.setdefault(longest[i] + 1, []).append((i, -1))
    # resolve in order of distance: a win through the first lost child found (the quickest),
    # a loss once every child is won (through the longest of them)
    result: list[int | None] = [None] * n
    distance = [0] * n
    d = 0
    while d <= max(buckets, default=0):
        for i, r in buckets.get(d, []):
            if result[i] is not None:
                continue
            result[i], distance[i] = r, d
            if r == 0:
                continue
            for p in parents[i]:
                if r == -1:
                    buckets.setdefault(d + 1, []).append((p, 1))
                else:
                    not_won[p] -= 1
                    longest[p] = max(longest[p], d)
                    if not_won[p] == 0:
                        buckets.setdefault(longest[p] + 1, []).append((p, -1))
        d += 1
    return {key: (0, 0) if result[i] in (None, 0) else (result[i], distance[i])
            for i, key in enumerate(keys)}
