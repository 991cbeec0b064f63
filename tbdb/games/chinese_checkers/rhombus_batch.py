"""The rhombus's batch form checked before any arithmetic (``ChineseCheckersGame.batch_locate``):
shapes, dtypes, cell codes, piece counts, and positions that cannot arise, each refused naming
its first bad row."""
from __future__ import annotations

import numpy as np

from tbdb.errors import InvalidArrayError, quote
from tbdb.games.base import first_row_outside, require_integers
from tbdb.games.chinese_checkers.position import rhombus_rules, tip_blocked
from tbdb.solvers.chinese_checkers import index as kernels
from tbdb.solvers.chinese_checkers.geometry import BOARD_SIZES, PIECE_COUNTS

BOARD_SQUARES = {m * m: m for m in BOARD_SIZES}


def check_batch(boards, movers) -> tuple[np.ndarray, np.ndarray, int, np.ndarray]:
    """The batch arrays as int8, the board size and each row's pieces a side, or
    ``ValueError`` naming the first bad row."""
    boards = np.asarray(boards)
    movers = np.asarray(movers)
    if boards.ndim != 2 or boards.shape[1] not in BOARD_SQUARES or \
            movers.shape != (len(boards),):
        raise InvalidArrayError(f"expected boards of shape (n, M*M) with M from 3 to 9 (or (n, "
                                f"13), (n, 37): a star's holes) and movers of shape (n,), got "
                                f"{boards.shape} and {movers.shape}")
    require_integers(boards=boards, movers=movers)
    m = BOARD_SQUARES[boards.shape[1]]
    bad = first_row_outside(boards, 0, 2)
    if bad is not None:
        raise InvalidArrayError(f"row {bad}: cells are 0 (empty), 1 or 2, got "
                                f"{quote(boards[bad].tolist())}")
    bad = first_row_outside(movers, 1, 2)
    if bad is not None:
        raise InvalidArrayError(f"row {bad}: the player to move is 1 or 2, got "
                                f"{movers[bad].item()!r}")
    boards = np.ascontiguousarray(boards.astype(np.int8, copy=False))  # codes 0..2 by now
    ones, twos = np.empty(len(boards), np.int64), np.empty(len(boards), np.int64)
    kernels.piece_counts(boards, ones, twos)
    bad = np.flatnonzero((ones != twos) | ~np.isin(ones, PIECE_COUNTS) | (2 * ones > m * m))
    if len(bad):
        raise InvalidArrayError(f"row {int(bad[0])}: the players have {int(ones[bad[0]])} and "
                                f"{int(twos[bad[0]])} pieces; each has one of {PIECE_COUNTS}")
    return boards, np.ascontiguousarray(movers.astype(np.int8, copy=False)), m, ones


def check_legal(boards: np.ndarray, movers: np.ndarray, rows: np.ndarray, m: int,
                 p: int) -> None:
    """``ValueError`` for the first row (of ``rows``) whose mover has already won or, with 6
    pieces, a goal whose empty tip the other player walls in."""
    geo, nbr, goals = rhombus_rules(m, p)
    whole = len(rows) == len(boards)  # (rows is then every row, in order: no copies)
    sub = boards if whole else boards[rows]
    mv = movers if whole else movers[rows]
    illegal = np.zeros(len(rows), bool)
    for player in (1, 2):
        goal = np.array(goals[player])
        at = sub[:, goal]
        won = (at != 0).all(axis=1) & (at == player).any(axis=1)
        illegal |= won & (mv == player)
    if p == 6:
        for i, row in enumerate(sub.tolist()):
            if not illegal[i] and any(tip_blocked(row, nbr, q) for q in (1, 2)):
                illegal[i] = True
    if illegal.any():
        r = int(rows[np.argmax(illegal)])
        raise InvalidArrayError(f"row {r}: the position cannot arise (the player to move has "
                                f"already won, or a goal's tip is walled in): "
                                f"{quote(boards[r].tolist())}")
