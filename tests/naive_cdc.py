"""Slow, obviously correct reference for Chinese Dark Chess (banqi) revealed endgames.

Standard library only.  This module is the independent reference that the fast
solver is compared against, so it deliberately shares no code with ``tbdb`` or
``solvers`` and uses no symmetry tricks.  Rules: docs/rules/cdc.md.

Public API
----------
``parse(text) -> (board, side)``      board: {'e4': 'g', 'h4': 'K'}, side: 'r' or 'b'
``to_text(board, side) -> str``       canonical position text, e.g. ``'4g2K/8/8/8 r'``
``legal_moves(board, side) -> list``  move strings ``'a1-a2'`` (step), ``'b1xd1'`` (capture)
``apply_move(board, move) -> dict``   the new board (the input is left unchanged)
``material_of(board) -> str``         signature such as ``'KGvR'``, ``'KGv'``
``positions(material)``               every placement, both sides to move, canonical texts
``solve(material) -> dict``           text -> (``'win'|'draw'|'loss'``, distance in plies)

Internally a board is a 32-character string, index ``row * 8 + col`` (``a1`` is 0,
``h1`` is 7, ``a2`` is 8, ... ``h4`` is 31), ``'.'`` for an empty square; a
position key is that string plus the side to move (33 characters).  The public
dict-based functions are thin wrappers around the same string functions, so the
rules live in exactly one place (``_moves``).
"""

from __future__ import annotations

import itertools
import sys
from typing import Iterator

ROWS, COLS = 4, 8
NSQ = ROWS * COLS
FILES = "abcdefgh"
EMPTY = "."

# Rank of each piece kind (upper-case letter) and how many a side may have.
RANK = {"K": 7, "G": 6, "M": 5, "R": 4, "N": 3, "C": 2, "P": 1}
MAX_COUNT = {"K": 1, "G": 2, "M": 2, "R": 2, "N": 2, "C": 2, "P": 5}
ORDER = "KGMRNCP"  # order of kinds inside a material signature (rank high to low)

SQUARES = [FILES[i % COLS] + str(i // COLS + 1) for i in range(NSQ)]  # index -> 'a1'
SQUARE_INDEX = {name: i for i, name in enumerate(SQUARES)}            # 'a1' -> index

# The four orthogonal directions as (d_row, d_col).
DIRECTIONS = ((1, 0), (-1, 0), (0, 1), (0, -1))


def _ray(index: int, d_row: int, d_col: int) -> list[int]:
    """Squares from ``index`` (exclusive) to the board edge in one direction."""
    row, col = divmod(index, COLS)
    out = []
    row, col = row + d_row, col + d_col
    while 0 <= row < ROWS and 0 <= col < COLS:
        out.append(row * COLS + col)
        row, col = row + d_row, col + d_col
    return out


RAYS = [[_ray(i, dr, dc) for dr, dc in DIRECTIONS] for i in range(NSQ)]
NEIGHBOURS = [[ray[0] for ray in RAYS[i] if ray] for i in range(NSQ)]


# --------------------------------------------------------------------------- pieces


def colour_of(letter: str) -> str:
    """'r' for an upper-case (red) piece, 'b' for a lower-case (black) one."""
    return "r" if letter.isupper() else "b"


def can_capture_by_step(attacker: str, victim: str) -> bool:
    """Can ``attacker`` take the orthogonally adjacent enemy ``victim`` by stepping?

    Both are piece letters of opposite colours.  Cannons never capture by stepping.
    """
    a, v = attacker.upper(), victim.upper()
    if a == "C":
        return False
    if a == "P":
        return v in ("P", "K")  # a soldier takes only soldiers and the general
    if a == "K" and v == "P":
        return False  # the general cannot take a soldier
    return RANK[a] >= RANK[v]


# ------------------------------------------------------------------ text notation


def parse(text: str) -> tuple[dict[str, str], str]:
    """Parse ``'4g2K/8/8/8 r'`` into ({'e4': 'g', 'h4': 'K'}, 'r').

    Raises ValueError (quoting the input) for malformed or non-canonical text.
    """
    if not isinstance(text, str):
        raise ValueError(f"position text must be a string: {text!r}")
    parts = text.split(" ")
    if len(parts) != 2:
        raise ValueError(f"expected '<board> <side>': {text!r}")
    board_text, side = parts
    if side not in ("r", "b"):
        raise ValueError(f"side to move must be 'r' or 'b': {text!r}")
    ranks = board_text.split("/")
    if len(ranks) != ROWS:
        raise ValueError(f"expected {ROWS} ranks separated by '/': {text!r}")
    board: dict[str, str] = {}
    for k, rank_text in enumerate(ranks):
        row = ROWS - 1 - k  # the first rank written is rank 4 (row 3)
        col = 0
        previous_was_digit = False
        for ch in rank_text:
            if ch in "12345678":
                if previous_was_digit:
                    raise ValueError(f"adjacent digits in rank {rank_text!r}: {text!r}")
                col += int(ch)
                previous_was_digit = True
            elif ch.upper() in RANK:
                if col >= COLS:
                    raise ValueError(f"rank {rank_text!r} is longer than {COLS}: {text!r}")
                board[SQUARES[row * COLS + col]] = ch
                col += 1
                previous_was_digit = False
            else:
                raise ValueError(f"bad character {ch!r}: {text!r}")
            if col > COLS:
                raise ValueError(f"rank {rank_text!r} is longer than {COLS}: {text!r}")
        if col != COLS:
            raise ValueError(f"rank {rank_text!r} does not cover {COLS} files: {text!r}")
    counts: dict[str, int] = {}
    for letter in board.values():
        counts[letter] = counts.get(letter, 0) + 1
    for letter, n in counts.items():
        if n > MAX_COUNT[letter.upper()]:
            raise ValueError(f"too many {letter!r} ({n}): {text!r}")
    return board, side


def to_text(board: dict[str, str], side: str) -> str:
    """Canonical text (maximal empty runs) of a board dict and side to move."""
    if side not in ("r", "b"):
        raise ValueError(f"side to move must be 'r' or 'b': {side!r}")
    return _key_to_text(_board_to_string(board) + side)


def _board_to_string(board: dict[str, str]) -> str:
    cells = [EMPTY] * NSQ
    for square, letter in board.items():
        if square not in SQUARE_INDEX:
            raise ValueError(f"bad square {square!r}")
        if letter.upper() not in RANK or len(letter) != 1:
            raise ValueError(f"bad piece {letter!r} on {square}")
        cells[SQUARE_INDEX[square]] = letter
    return "".join(cells)


def _string_to_board(cells: str) -> dict[str, str]:
    return {SQUARES[i]: ch for i, ch in enumerate(cells) if ch != EMPTY}


def _key_to_text(key: str) -> str:
    """33-character key (32 cells + side) -> canonical text."""
    ranks = []
    for row in range(ROWS - 1, -1, -1):
        out = []
        run = 0
        for col in range(COLS):
            ch = key[row * COLS + col]
            if ch == EMPTY:
                run += 1
            else:
                if run:
                    out.append(str(run))
                    run = 0
                out.append(ch)
        if run:
            out.append(str(run))
        ranks.append("".join(out))
    return "/".join(ranks) + " " + key[NSQ]


def _text_to_key(text: str) -> str:
    board, side = parse(text)
    return _board_to_string(board) + side


# -------------------------------------------------------------------------- moves


def _moves(cells: str, side: str) -> list[tuple[int, int, bool]]:
    """All legal moves of ``side`` on a 32-character board, as (from, to, is_capture).

    This is the single place where the movement rules are written down.
    """
    moves = []
    for i, piece in enumerate(cells):
        if piece == EMPTY or colour_of(piece) != side:
            continue
        # Steps to an adjacent empty square; non-cannons may also capture adjacent enemies.
        for j in NEIGHBOURS[i]:
            target = cells[j]
            if target == EMPTY:
                moves.append((i, j, False))
            elif colour_of(target) != side and can_capture_by_step(piece, target):
                moves.append((i, j, True))
        # Cannon jumps: along each ray, the first piece is the screen (any colour);
        # the first piece after the screen is the only possible target and must be an enemy.
        if piece.upper() == "C":
            for ray in RAYS[i]:
                occupied = [j for j in ray if cells[j] != EMPTY]
                if len(occupied) >= 2:
                    target_square = occupied[1]
                    if colour_of(cells[target_square]) != side:
                        moves.append((i, target_square, True))
    return moves


def _move_name(move: tuple[int, int, bool]) -> str:
    i, j, capture = move
    return SQUARES[i] + ("x" if capture else "-") + SQUARES[j]


def _play(cells: str, i: int, j: int) -> str:
    """Board string after the piece on ``i`` goes to ``j`` (whatever was on ``j`` leaves)."""
    out = list(cells)
    out[j] = out[i]
    out[i] = EMPTY
    return "".join(out)


def legal_moves(board: dict[str, str], side: str) -> list[str]:
    """Legal move strings ('a1-a2', 'b1xd1') for ``side`` on ``board``."""
    return [_move_name(m) for m in _moves(_board_to_string(board), side)]


def apply_move(board: dict[str, str], move: str) -> dict[str, str]:
    """Board after ``move`` (legality is not checked; the input is not modified)."""
    if len(move) != 5 or move[2] not in "-x":
        raise ValueError(f"bad move {move!r}")
    src, dst = move[:2], move[3:]
    if src not in board:
        raise ValueError(f"no piece on {src}: {move!r}")
    if (move[2] == "x") != (dst in board):
        raise ValueError(f"capture marker does not match the board: {move!r}")
    new = dict(board)
    new[dst] = new.pop(src)
    return new


# ----------------------------------------------------------------------- material


def material_of(board: dict[str, str]) -> str:
    """Material signature, e.g. 'KGvR' (both sides written in upper case)."""
    return _material_of_cells("".join(board.values()))


def _material_of_cells(cells: str) -> str:
    red = "".join(k * cells.count(k) for k in ORDER)
    black = "".join(k * cells.count(k.lower()) for k in ORDER)
    return red + "v" + black


def _parse_material(material: str) -> tuple[str, str]:
    """'KGvR' -> ('KG', 'R'), validated; each side returned in canonical order."""
    if material.count("v") != 1:
        raise ValueError(f"material must contain exactly one 'v': {material!r}")
    red, black = material.split("v")
    for side in (red, black):
        for k in side:
            if k not in RANK:
                raise ValueError(f"bad piece letter {k!r} in material {material!r}")
        for k in set(side):
            if side.count(k) > MAX_COUNT[k]:
                raise ValueError(f"too many {k!r} in material {material!r}")
    canon = lambda s: "".join(sorted(s, key=ORDER.index))  # noqa: E731
    return canon(red), canon(black)


def canonical_material(material: str) -> str:
    red, black = _parse_material(material)
    return red + "v" + black


def _placements(material: str) -> Iterator[str]:
    """Every placement of the material's pieces as a 32-character board string.

    Identical pieces are unordered: each group of equal letters is placed with
    ``itertools.combinations`` over the squares still free, so each placement is
    produced exactly once.
    """
    red, black = _parse_material(material)
    groups = []  # (letter, count) with the colour applied
    for k in ORDER:
        if red.count(k):
            groups.append((k, red.count(k)))
    for k in ORDER:
        if black.count(k):
            groups.append((k.lower(), black.count(k)))

    def place(g: int, cells: list[str]) -> Iterator[str]:
        if g == len(groups):
            yield "".join(cells)
            return
        letter, count = groups[g]
        free = [i for i in range(NSQ) if cells[i] == EMPTY]
        for chosen in itertools.combinations(free, count):
            for i in chosen:
                cells[i] = letter
            yield from place(g + 1, cells)
            for i in chosen:
                cells[i] = EMPTY

    yield from place(0, [EMPTY] * NSQ)


def _position_keys(material: str) -> Iterator[str]:
    for cells in _placements(material):
        yield cells + "r"
        yield cells + "b"


def positions(material: str) -> Iterator[str]:
    """Every position of ``material`` (both sides to move) as canonical text."""
    for key in _position_keys(material):
        yield _key_to_text(key)


# ------------------------------------------------------------------------- solver

WIN, DRAW, LOSS = "win", "draw", "loss"

# Solved materials, keyed by canonical material; values map the internal 33-char
# key to (outcome, distance).  Shared by every caller in the process.
_KEY_TABLES: dict[str, dict[str, tuple[str, int]]] = {}
# The same tables keyed by canonical text (built lazily by ``solve``).
_TEXT_TABLES: dict[str, dict[str, tuple[str, int]]] = {}


def _opponent(side: str) -> str:
    return "b" if side == "r" else "r"


def _side_has_pieces(cells: str, side: str) -> bool:
    if side == "r":
        return any(ch.isupper() for ch in cells)
    return any(ch.islower() for ch in cells)


def _capture_child_value(child_key: str) -> tuple[str, int]:
    """Value of a position reached by a capture (so it belongs to a smaller material)."""
    cells, side = child_key[:NSQ], child_key[NSQ]
    if not _side_has_pieces(cells, side):
        return (LOSS, 0)  # the side to move has no pieces left: it has lost
    return _solve_keys(_material_of_cells(cells))[child_key]


def _solve_keys(material: str) -> dict[str, tuple[str, int]]:
    """Solve one material; returns {33-char key: (outcome, distance)}.  Memoised.

    Method (retrograde analysis, processed strictly by increasing distance n):

    1. Build the position graph once.  For every position P we record
       - ``preds[C]``: positions of this material that have C as a child (steps),
       - ``remaining[P]``: how many children inside this material are not yet
         known to be won (for the mover of the child),
       - from the children in smaller materials (captures), whose values are
         already final: the smallest child loss distance, whether some child is a
         draw, and the largest child win distance.
    2. Level n = 0, 1, 2, ...:  with every value of distance < n already final,
       - P is a WIN at n iff some child is a loss at n - 1 (and P is not yet
         resolved): the shortest win, 1 + min over lost children;
       - P is a LOSS at n iff every child is a win and the largest child win
         distance is n - 1: the longest loss, 1 + max over won children.
         (No legal move at all is a loss at 0.)
       Children inside this material reach a level when they are resolved;
       children in smaller materials are put into the level buckets up front,
       since their distances can exceed anything found in this table.
    3. Whatever is never resolved is a DRAW.
    """
    material = canonical_material(material)
    if material in _KEY_TABLES:
        return _KEY_TABLES[material]

    keys = list(_position_keys(material))
    index = {key: n for n, key in enumerate(keys)}
    count = len(keys)

    preds: list[list[int]] = [[] for _ in range(count)]
    remaining = [0] * count          # in-table children not yet known to be won
    max_child_win = [-1] * count     # largest win distance among children known to be won
    blocked_from_losing = [False] * count  # some child is a draw: P can never be lost
    # Level buckets: win_at[n] / loss_at[n] list positions that become resolved at n
    # (a position may appear in several buckets; the first level that reaches it wins).
    win_at: dict[int, list[int]] = {}
    loss_at: dict[int, list[int]] = {}

    for p, key in enumerate(keys):
        cells, side = key[:NSQ], key[NSQ]
        other = _opponent(side)
        moves = _moves(cells, side)
        if not moves:
            loss_at.setdefault(0, []).append(p)
            continue
        seen_children = set()
        external_children = False
        for i, j, capture in moves:
            child_key = _play(cells, i, j) + other
            if child_key in seen_children:  # cannot happen, but never count a child twice
                continue
            seen_children.add(child_key)
            if capture:
                external_children = True
                outcome, dist = _capture_child_value(child_key)
                if outcome == LOSS:
                    win_at.setdefault(dist + 1, []).append(p)
                    blocked_from_losing[p] = True
                elif outcome == DRAW:
                    blocked_from_losing[p] = True
                else:  # the child is won for the opponent
                    max_child_win[p] = max(max_child_win[p], dist)
            else:
                preds[index[child_key]].append(p)
                remaining[p] += 1
        if remaining[p] == 0 and external_children and not blocked_from_losing[p]:
            # Every move is a capture into a won position (for the opponent).
            loss_at.setdefault(max_child_win[p] + 1, []).append(p)

    outcome_of: list[str | None] = [None] * count
    distance_of = [0] * count

    n = 0
    last_level = max(list(win_at) + list(loss_at) + [0])
    while n <= last_level:
        newly_lost = []
        newly_won = []
        for p in win_at.pop(n, []):
            if outcome_of[p] is None:
                outcome_of[p], distance_of[p] = WIN, n
                newly_won.append(p)
        for p in loss_at.pop(n, []):
            if outcome_of[p] is None:
                outcome_of[p], distance_of[p] = LOSS, n
                newly_lost.append(p)
        # A position lost at n makes each predecessor a win at n + 1.
        for c in newly_lost:
            for p in preds[c]:
                if outcome_of[p] is None:
                    win_at.setdefault(n + 1, []).append(p)
        # A position won at n is one more won child for each predecessor; when the
        # last in-table child is won, the predecessor is lost at 1 + its largest
        # child win (which may be a larger external distance than n).
        for c in newly_won:
            for p in preds[c]:
                if outcome_of[p] is None:
                    remaining[p] -= 1
                    max_child_win[p] = max(max_child_win[p], n)
                    if remaining[p] == 0 and not blocked_from_losing[p]:
                        loss_at.setdefault(max_child_win[p] + 1, []).append(p)
        if win_at or loss_at:
            last_level = max(last_level, max(list(win_at) + list(loss_at)))
        n += 1

    table = {}
    for p, key in enumerate(keys):
        if outcome_of[p] is None:
            table[key] = (DRAW, 0)
        else:
            table[key] = (outcome_of[p], distance_of[p])
    _KEY_TABLES[material] = table
    return table


def solve(material: str) -> dict[str, tuple[str, int]]:
    """Solve ``material``: canonical text -> (outcome for the side to move, plies).

    Draws have distance 0.  Capture children are solved recursively (memoised).
    """
    material = canonical_material(material)
    if material not in _TEXT_TABLES:
        keys = _solve_keys(material)
        _TEXT_TABLES[material] = {_key_to_text(k): v for k, v in keys.items()}
    return _TEXT_TABLES[material]


def value(text: str) -> tuple[str, int]:
    """Value of one position (solves its material if needed)."""
    board, side = parse(text)
    key = _board_to_string(board) + side
    if not _side_has_pieces(key[:NSQ], side):
        return (LOSS, 0)
    return _solve_keys(material_of(board))[key]


if __name__ == "__main__":  # pragma: no cover - timing helper
    import sys
    import time

    for mat in sys.argv[1:] or ["KvK"]:
        t0 = time.perf_counter()
        result = solve(mat)
        dt = time.perf_counter() - t0
        tally: dict[str, int] = {}
        for outcome, _ in result.values():
            tally[outcome] = tally.get(outcome, 0) + 1
        longest = max((d for _, d in result.values()), default=0)
        print(f"{mat}: {len(result)} positions, {tally}, longest {longest}, {dt:.1f}s")
