"""Check-only mates (tsume) for ``go mate`` with the USI option ``MateChecksOnly``.

A tsume solver's mate gives check with every attacking move; the defender answers each with
the longest resistance.  The tables know the shortest mate under the full rules, which bounds
the check-only one from below: a position the tables do not call won has no mate at all
(``nomate``, proven), and a line is searched only through positions whose stored distance fits
in the plies left.  The search deepens by two plies from the stored distance until it finds a
line, proves there is none (no cut was made for lack of depth), or is stopped (``stop``, or the
time ``go mate MS`` gives): ``timeout``.
"""
from __future__ import annotations

import threading
import time

import numpy as np

NOMATE = "nomate"
TIMEOUT = "timeout"
MAX_PLIES = 999


class _Stopped(Exception):
    pass


class TsumeSearch:
    """One check-only mate search of ``position`` (the attacker to move) over ``tb``."""

    def __init__(self, tb, stop: threading.Event, deadline: float | None):
        from tbdb import games
        self.tb = tb
        self.game = games.get("shogi")
        self.stop = stop
        self.deadline = deadline
        self.nodes = 0
        self._memo: dict = {}
        self._cut = False  # a branch was cut for lack of plies: a failure proves nothing

    def solve(self, position) -> list[str] | str:
        """The mating line (attacker's and defender's moves), NOMATE or TIMEOUT."""
        r = self.tb.lookup(position, game="shogi")
        if r.outcome != "win":
            return NOMATE
        try:
            for plies in range(r.distance, MAX_PLIES + 1, 2):
                self._memo.clear()
                self._cut = False
                line = self._attack(position, plies)
                if line is not None:
                    return line
                if not self._cut:
                    return NOMATE
        except _Stopped:
            pass
        return TIMEOUT

    # ------------------------------------------------------------------ the AND/OR search

    def _children(self, position):
        """(successors, result int8[n], distance int16[n]) with each child's stored value for
        its side to move; a table is closed under captures and drops, so every child is in
        the position's own table."""
        self.nodes += 1
        if self.stop.is_set() or (self.deadline is not None and
                                  time.monotonic() > self.deadline):
            raise _Stopped
        succ = self.game.successors(position)
        if not succ:
            return succ, np.zeros(0, np.int8), np.zeros(0, np.int16)
        arrays = self.game.encode_batch([s.position for s in succ])
        result, distance, _ = self.tb.lookup_arrays("shogi", *arrays)
        return succ, result, distance

    def _attack(self, position, plies: int) -> list[str] | None:
        key = (position.sfen, plies, 0)
        if key in self._memo:
            line, cut = self._memo[key]
            self._cut |= cut
            return line
        outer, self._cut = self._cut, False
        succ, result, distance = self._children(position)
        tries = []
        for i, s in enumerate(succ):
            if result[i] != -1:
                continue  # the defender is not lost there even against every move
            if distance[i] > plies - 1:
                self._cut = True
                continue
            if s.position.is_check():
                tries.append((int(distance[i]), i))
        found = None
        for _, i in sorted(tries):
            line = self._defend(succ[i].position, plies - 1)
            if line is not None:
                found = [succ[i].move] + line
                break
        self._memo[key] = (found, self._cut)
        self._cut |= outer
        return found

    def _defend(self, position, plies: int) -> list[str] | None:
        key = (position.sfen, plies, 1)
        if key in self._memo:
            line, cut = self._memo[key]
            self._cut |= cut
            return line
        outer, self._cut = self._cut, False
        succ, result, distance = self._children(position)
        found: list[str] | None = []
        if succ:  # no legal move: mated (the attacker's last move gave check)
            if plies <= 0 or (distance > plies - 1).any():
                self._cut = True
                found = None
            elif (result != 1).any():
                found = None  # a defence the tables do not lose: no mate at any length
            else:
                longest = None
                for i in np.argsort(-distance.astype(np.int64), kind="stable"):
                    line = self._attack(succ[i].position, plies - 1)
                    if line is None:
                        longest = None
                        break
                    if longest is None or len(line) + 1 > len(longest):
                        longest = [succ[i].move] + line
                found = longest
        self._memo[key] = (found, self._cut)
        self._cut |= outer
        return found
