"""Random legal few-piece shogi positions for the move-generation and table tests.

Pieces are drawn towards what makes shogi move generation hard: pawns in hand beside pawns on
the board (nifu), sliders (pins, checks), promoted pieces, kings near an edge with a pawn in
hand for the attacker (pawn-drop mates), pieces next to a king (checks, captures).
"""
from __future__ import annotations

import random

from tbdb.errors import InvalidPositionError
from tbdb.games.shogi import MAX_OF_TYPE, Position

PROMOTABLE = (1, 2, 3, 4, 5, 6)


def _square_near(rng: random.Random, sq: int, radius: int) -> int:
    f, r = divmod(sq, 9)
    f = min(8, max(0, f + rng.randint(-radius, radius)))
    r = min(8, max(0, r + rng.randint(-radius, radius)))
    return f * 9 + r


def random_position(rng: random.Random, max_pieces: int = 6) -> Position:
    """A random legal position: two kings and 1..max_pieces other pieces on the board or in
    hand (retries until the position is legal)."""
    while True:
        board = [0] * 81
        hands = [[0] * 8, [0] * 8]
        side = rng.randrange(2)
        if rng.random() < 0.4:
            # the defender's king on an edge, the attacker to move with pawns in hand
            edge = rng.choice([(rng.randrange(9), 0), (rng.randrange(9), 8),
                               (0, rng.randrange(9)), (8, rng.randrange(9))])
            ksq = edge[0] * 9 + edge[1]
            board[ksq] = 8 + 16 * (1 - side)
            hands[side][1] += rng.randint(1, 2)
            near = ksq
        else:
            ksq = rng.randrange(81)
            board[ksq] = 8 + 16 * rng.randrange(2)
            near = None
        kcol = board[ksq] >> 4
        other = rng.randrange(81)
        while board[other]:
            other = rng.randrange(81)
        board[other] = 8 + 16 * (1 - kcol)
        counts = [0] * 8
        for _ in range(rng.randint(1, max_pieces)):
            t = rng.choice((1, 1, 1, 2, 3, 4, 5, 6, 7))
            if counts[t] >= MAX_OF_TYPE[t]:
                continue
            counts[t] += 1
            colour = rng.randrange(2)
            if rng.random() < 0.3:
                hands[colour][t] += 1
                continue
            code = t + 16 * colour
            if t in PROMOTABLE and rng.random() < 0.3:
                code += 8
            for _ in range(20):
                sq = _square_near(rng, near, 2) if near is not None and rng.random() < 0.6 \
                    else rng.randrange(81)
                if board[sq] == 0:
                    board[sq] = code
                    break
        try:
            return Position.parse(Position(tuple(board), (tuple(hands[0]), tuple(hands[1])),
                                           side).sfen)
        except InvalidPositionError:
            continue


def random_mating_net(rng: random.Random) -> Position:
    """A position built around a pawn-drop mate: the defender's king on its back rank with an
    empty square in front of it, the attacker to move with a pawn in hand and two or three
    pieces (its king among them, often) placed around the king; many such positions refuse the
    pawn drop (uchifuzume), others allow it."""
    while True:
        side = rng.randrange(2)
        board = [0] * 81
        hands = [[0] * 8, [0] * 8]
        f = rng.randrange(9)
        back = 0 if side == 0 else 8
        ksq = f * 9 + back
        board[ksq] = 8 + 16 * (1 - side)
        hands[side][1] = 1
        front = ksq + (1 if side == 0 else -1)
        pieces = [8] + [rng.choice((7, 4, 6, 5, 3, 12)) for _ in range(rng.randint(1, 2))]  # 12: +S
        ok = True
        for code in pieces:
            for _ in range(30):
                sq = _square_near(rng, ksq, 2)
                if board[sq] == 0 and sq != front:
                    board[sq] = code + 16 * side
                    break
            else:
                ok = False
        if rng.random() < 0.5:
            hands[1 - side][rng.choice((7, 4, 5))] += 1
        if not ok or not any(c == 8 + 16 * side for c in board):
            continue
        try:
            return Position.parse(Position(tuple(board), (tuple(hands[0]), tuple(hands[1])),
                                           side).sfen)
        except InvalidPositionError:
            continue
