"""A slow, independent solver for three-piece shogi tables (two kings and one other piece).

Written apart from the kernels on purpose: it enumerates every raw position (both sides to
move, no symmetry folding) as SFEN text of its own making, lets cshogi generate the legal moves
and play them, and solves the move graph by plain retrograde counting in Python.  Nothing here
imports tbdb's kernels.
"""
from __future__ import annotations

from collections import deque

import cshogi

LETTER = {"P": "P", "L": "L", "N": "N", "S": "S", "G": "G", "B": "B", "R": "R"}
PROMOTABLE = set("PLNSBR")
FILES = "987654321"  # left to right in an SFEN rank
RANKS = "abcdefghi"


def _can_stand(letter: str, promoted: bool, black: bool, rank: int) -> bool:
    """Whether an unpromoted pawn/lance/knight could move again from ``rank`` (0 = a)."""
    if promoted:
        return True
    last = rank if black else 8 - rank  # distance to the owner's far edge
    if letter in "PL":
        return last >= 1
    if letter == "N":
        return last >= 2
    return True


def _sfen(cells: dict[tuple[int, int], str], side: str, hand: str) -> str:
    """SFEN from {(file 1..9, rank 0..8): piece text}."""
    rows = []
    for r in range(9):
        row, empty = "", 0
        for f in range(9, 0, -1):
            piece = cells.get((f, r))
            if piece is None:
                empty += 1
                continue
            if empty:
                row += str(empty)
                empty = 0
            row += piece
        if empty:
            row += str(empty)
        rows.append(row)
    return f"{'/'.join(rows)} {side} {hand or '-'} 1"


def key(sfen: str) -> str:
    """An SFEN without its move number."""
    return " ".join(sfen.split()[:3])


def positions(letter: str):
    """Every SFEN of the table K<letter>K, legal or not as to checks (filtered later)."""
    squares = [(f, r) for f in range(1, 10) for r in range(9)]
    placements = [("hand", True, False), ("hand", False, False)]
    for sq in squares:
        for black in (True, False):
            for promoted in ((False, True) if letter in PROMOTABLE else (False,)):
                if _can_stand(letter, promoted, black, sq[1]):
                    placements.append((sq, black, promoted))
    for bk in squares:
        for wk in squares:
            if max(abs(bk[0] - wk[0]), abs(bk[1] - wk[1])) <= 1:
                continue  # kings may not touch (one would be in check with the other to move)
            for where, black, promoted in placements:
                cells = {bk: "K", wk: "k"}
                hand = ""
                if where == "hand":
                    hand = letter if black else letter.lower()
                else:
                    if where in cells:
                        continue
                    text = ("+" if promoted else "") + letter
                    cells[where] = text if black else text.lower()
                for side in "bw":
                    yield _sfen(cells, side, hand)


def _other_side_in_check(board: cshogi.Board, sfen: str) -> bool:
    parts = sfen.split()
    parts[1] = "w" if parts[1] == "b" else "b"
    other = cshogi.Board(" ".join(parts))
    return other.is_check()


def solve(letter: str) -> dict[str, tuple[int, int]]:
    """{position key: (result, distance)} for every legal position of K<letter>K, result
    1 win / 0 draw / -1 loss for the side to move, distance in plies (0 for draws)."""
    board = cshogi.Board()
    index: dict[str, int] = {}
    keys: list[str] = []
    for sfen in positions(letter):
        board.set_sfen(sfen)
        if _other_side_in_check(board, sfen):
            continue
        index[key(sfen)] = len(keys)
        keys.append(sfen)
    n = len(keys)
    children: list[list[int]] = []
    parents: list[list[int]] = [[] for _ in range(n)]
    for i, sfen in enumerate(keys):
        board.set_sfen(sfen)
        row = []
        for move in board.legal_moves:
            board.push(move)
            row.append(index[key(board.sfen())])
            board.pop()
        children.append(row)
        for c in set(row):
            parents[c].append(i)
    result = [0] * n
    distance = [0] * n
    left = [len(set(row)) for row in children]
    queue = deque()
    for i in range(n):
        if not children[i]:
            result[i] = -1  # no legal move: the side to move loses
            queue.append(i)
    # breadth-first by distance: a position resolved at distance d is queued before any at d+1
    while queue:
        c = queue.popleft()
        for p in parents[c]:
            if result[p] != 0:
                continue
            if result[c] == -1:
                result[p] = 1
                distance[p] = distance[c] + 1
                queue.append(p)
            else:
                left[p] -= 1
                if left[p] == 0:
                    result[p] = -1
                    distance[p] = distance[c] + 1
                    queue.append(p)
    return {key(keys[i]): (result[i], distance[i]) for i in range(n)}
