"""Positions of the small stars (13, 37 and 73 holes) for 2, 3, 4 or 6 players with any equal
number of marbles each (issue 63; the rules: docs/rules/chinese_checkers.md, "The small
stars"): their text, the resting rule's moves, the pass, the end, and the turn of the board
that maps each seat onto the next.

**Text**: ``star{holes}-{players}``, the rows from the top tip joined by ``/`` (``.`` empty,
``1`` .. ``6`` the players in turn order) and the player to move::

    star13-3 1/..../.../3..2/. 1      (the start; the 13-hole star's rows: 1, 4, 3, 4, 1 cells)

A player with no legal move passes: its one move is ``pass``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np

from tbdb.errors import InvalidMoveError, InvalidPositionError, quote
from tbdb.games.chinese_checkers.position import Board, Move, parse_rows, rows_text
from tbdb.games.chinese_checkers.stars import SEATS, star_space
from tbdb.solvers.chinese_checkers import star_moves
from tbdb.solvers.chinese_checkers.geometry import STAR_SIZES, star

SMALL_HOLES = (13, 37, 73)
PASS = "pass"
_HEAD = re.compile(r"star(13|37|73)-([1-9])")


def names_a_small_star(text) -> bool:
    """Whether ``text`` is written as a small star's position ('star' and the holes' digits:
    the parser then says what else is wrong with it)."""
    return isinstance(text, str) and text.startswith("star") and text[4:5].isdigit()


@lru_cache(maxsize=None)
def star_rules(holes: int, players: int):
    """(neighbour lists, can_rest int8[n + 1, cells], in_goal int8[n + 1, cells])."""
    geo = star(STAR_SIZES[holes])
    can_rest, in_goal = star_moves.rest_masks(players, geo.cells, geo.point,
                                              np.array(SEATS[players], np.int64))
    return [list(r) for r in geo.nbr.tolist()], can_rest, in_goal


@lru_cache(maxsize=None)
def turn_cells(holes: int, players: int, shift: int) -> np.ndarray:
    """int16[cells]: where each cell goes when the board turns clockwise by ``shift`` seats
    (player p's point onto player p + shift's)."""
    geo = star(STAR_SIZES[holes])
    steps = 6 * shift // players
    out = np.arange(geo.cells, dtype=np.int16)
    for _ in range(steps % 6):
        out = geo.rotate[out]
    return out


@dataclass(frozen=True)
class SmallStarPosition(Board):
    """A position of the small star of ``holes`` holes: ``players``, ``cells`` (0 empty or the
    player 1..players; row by row from the top tip) and the player to move."""
    holes: int
    players: int
    cells: tuple[int, ...]
    mover: int

    @classmethod
    def parse(cls, text: str) -> SmallStarPosition:
        if not isinstance(text, str):
            raise InvalidPositionError(f"a Chinese Checkers star position is text, not "
                                       f"{quote(text)}")
        parts = text.split(" ")
        head = _HEAD.fullmatch(parts[0]) if len(parts) == 3 else None
        if head is None or not re.fullmatch(r"[1-6]", parts[2]):
            raise InvalidPositionError(
                f"malformed Chinese Checkers star position {quote(text)}: expected 'starH-N' "
                f"(H holes: 13, 37 or 73; N players), the rows from the top tip joined by '/', "
                f"and the player to move")
        holes, players, mover = int(head.group(1)), int(head.group(2)), int(parts[2])
        if players not in SEATS:
            raise InvalidPositionError(f"star position {quote(text)}: the star is played by "
                                       f"{sorted(SEATS)} players, not {players}")
        if mover > players:
            raise InvalidPositionError(f"star position {quote(text)}: no player {mover} among "
                                       f"{players}")
        cells = parse_rows(text, parts[1], star(STAR_SIZES[holes]).rows, players,
                           "Chinese Checkers star")
        counts = [cells.count(p) for p in range(1, players + 1)]
        k = STAR_SIZES[holes]
        if len(set(counts)) != 1 or not 1 <= counts[0] <= k * (k + 1) // 2:
            raise InvalidPositionError(
                f"star position {quote(text)}: the players have {counts} marbles; each has "
                f"the same number, 1 to {k * (k + 1) // 2}")
        _, can_rest, _ = star_rules(holes, players)
        for c, p in enumerate(cells):
            if p and not can_rest[p, c]:
                raise InvalidPositionError(
                    f"star position {quote(text)} cannot arise: player {p}'s marble on cell "
                    f"{c} rests on another player's point")
        return cls(holes, players, tuple(cells), mover)

    @property
    def text(self) -> str:
        return (f"star{self.holes}-{self.players} "
                f"{rows_text(self.cells, star(STAR_SIZES[self.holes]).rows)} {self.mover}")

    def __str__(self) -> str:
        return self.text

    @property
    def marbles(self) -> int:
        return self.cells.count(1)

    @property
    def last(self) -> int:
        """The player who moved last."""
        return (self.mover - 2) % self.players + 1

    @cached_property
    def status(self) -> str:
        """'over' (the player who moved last has every marble on its goal: it has won),
        'illegal' (another player has: the game would have ended before) or 'playing'."""
        _, _, in_goal = star_rules(self.holes, self.players)
        board = np.array(self.cells, np.int8)
        got = star_moves.status(board, self.mover, self.players, in_goal)
        return {star_moves.PLAY: "playing", star_moves.FINISHED: "over",
                star_moves.ILLEGAL: "illegal"}[int(got)]

    def _nbr_lists(self):
        return star_rules(self.holes, self.players)[0]

    def _after(self, s: int, t: int) -> SmallStarPosition:
        cells = list(self.cells)
        if s != t:  # (s == t: the pass)
            cells[t], cells[s] = cells[s], 0
        return SmallStarPosition(self.holes, self.players, tuple(cells),
                                 self.mover % self.players + 1)

    @cached_property
    def _pairs(self) -> list[tuple[int, int]]:
        """The mover's moves (from, to), pieces by cell and destinations ascending; a pass is
        (-1, -1); none when the game is over."""
        if self.status != "playing":
            return []
        _, can_rest, _ = star_rules(self.holes, self.players)
        geo = star(STAR_SIZES[self.holes])
        n = geo.cells
        board = np.array(self.cells, np.int8)
        out_from, out_to = np.empty(n * n, np.int64), np.empty(n * n, np.int64)
        count, _ = star_moves.moves_of(board, self.mover, geo.nbr, can_rest,
                                       np.zeros(n, np.int64), np.zeros(n, np.int16), 0,
                                       out_from, out_to)
        pairs = list(zip(out_from[:count].tolist(), out_to[:count].tolist()))
        return pairs or [(-1, -1)]

    def _move_pairs(self) -> list[tuple[int, int]]:
        return self._pairs

    @property
    def pairs(self) -> list[tuple[int, int]]:
        """The mover's moves as (from, to); [(-1, -1)] the pass; [] when the game is over."""
        return self._pairs

    def move_of(self, s: int, t: int):
        return PASS if s < 0 else super().move_of(s, t)

    def after_pair(self, s: int, t: int) -> SmallStarPosition:
        return self._after(s, t) if s >= 0 else self._after(0, 0)

    def legal_moves(self) -> list:
        return [self.move_of(s, t) for s, t in self._pairs]

    def push(self, move) -> SmallStarPosition:
        if move == PASS or str(move) == PASS:
            if self._pairs != [(-1, -1)]:
                raise InvalidMoveError(f"move {quote(str(move))} is not legal in "
                                       f"{self.text!r}: a player passes only when it has no "
                                       f"move")
            return self.after_pair(-1, -1)
        if isinstance(move, str):
            move = Move.parse(move)
        if max(move.path) >= len(self.cells):
            raise InvalidMoveError(f"move {quote(str(move))} is not legal in {self.text!r}: "
                                   f"the board has {len(self.cells)} cells")
        return super().push(move)

    def turned(self, shift: int) -> SmallStarPosition:
        """The board turned clockwise by ``shift`` seats, each player p renamed p + shift: the
        same game, so a lone player p's value here is lone p + shift's there."""
        n = self.players
        where = turn_cells(self.holes, n, shift % n)
        cells = [0] * len(self.cells)
        for c, p in enumerate(self.cells):
            if p:
                cells[int(where[c])] = (p - 1 + shift) % n + 1
        return SmallStarPosition(self.holes, n, tuple(cells), (self.mover - 1 + shift) % n + 1)

    def slot(self) -> int:
        """The slot of this position in its star's index: placement * players + mover - 1."""
        space = star_space(self.holes, self.players, self.marbles)
        return space.rank(self.cells) * self.players + self.mover - 1

    @classmethod
    def of_slot(cls, holes: int, players: int, marbles: int, slot: int) -> SmallStarPosition:
        space = star_space(holes, players, marbles)
        cells = space.unrank(slot // players)
        return cls(holes, players, tuple(cells), slot % players + 1)

    @classmethod
    def start(cls, holes: int, players: int) -> SmallStarPosition:
        """Every player's point full of its marbles, player 1 to move."""
        geo = star(STAR_SIZES[holes])
        cells = [0] * geo.cells
        for i, point in enumerate(SEATS[players]):
            for c in geo.point_cells(point).tolist():
                cells[c] = i + 1
        return cls(holes, players, tuple(cells), 1)
