"""The one-byte coalition solve of a small star (``solvers/chinese_checkers/star_compact.py``
on every core), saved at level boundaries so that a build killed at any moment resumes from
its last save (issue 63: the 37-hole star with three players of three marbles takes hours).

A save is one file: a 128-byte header (``SAVE_MAGIC``, then int64 holes, players, marbles, lone
player, cap, the next level to back up, the slots) and the state bytes.  It is written beside
its name and renamed into place (``tbdb.safe_files``), so a kill leaves the previous save or
the new one whole; the state of a level under way is never saved, since its counters are
half decremented.
"""
from __future__ import annotations

import os
import time
from typing import Callable

import numpy as np

from tbdb.errors import InvalidOptionError, quote
from tbdb.games.chinese_checkers.stars import StarSpace
from tbdb.safe_files import (check_target, publish, remove_quietly, remove_stale_temporaries,
                             temporary_beside)
from tbdb.solvers.chinese_checkers import star_compact

SAVE_MAGIC = b"tbdb-star-state1"
HEADER = 128
_FIELDS = ("holes", "players", "marbles", "lone", "cap", "level", "slots")


def solve_compact(space: StarSpace, lone: int, save: str | None = None,
                  save_every: float = 600, cap: int = star_compact.COUNT_CAP,
                  log: Callable[[int, int, int], None] | None = None) -> np.ndarray:
    """The state bytes (``star_compact``) of every slot for lone player ``lone``; ``cap``: the
    largest child count a byte holds (smaller in the tests, so that their positions take the
    path of the rare big ones).  With ``save``, the state is written there after the first
    pass and at the end of any level ``save_every`` seconds or more after the last save (0:
    every level), and a save already there is resumed.
    ``log(level, decided at it, parents decided)`` after each level."""
    if not 1 <= lone <= space.players:
        raise InvalidOptionError(f"the lone player is one of 1..{space.players}, not "
                                 f"{quote(lone)}")
    want = {"holes": space.holes, "players": space.players, "marbles": space.marbles,
            "lone": lone, "cap": cap, "slots": space.placements * space.players}
    tables, unrank = space.compact_tables, space.unrank_tables
    if save:  # a kill in the middle of a save leaves its partial copy (gigabytes) behind
        remove_stale_temporaries(os.path.dirname(os.path.abspath(save)))
    level, state = _resume(save, want) if save else (None, None)
    if state is None:
        state = np.empty(want["slots"], np.uint8)
        star_compact.init_states(lone, space.players, space.placements, cap, tables, unrank,
                                 state)
        level = 0
        if save:
            _write(save, want, level, state)
    saved_at = time.monotonic()
    while True:
        done, made = star_compact.back_up_level(lone, space.players, level, tables, unrank,
                                                state)
        if log:
            log(level, int(done), int(made))
        if done == 0:
            return state
        if level >= star_compact.MAX_DISTANCE:
            raise ValueError(f"a distance above {star_compact.MAX_DISTANCE} plies in "
                             f"{space.holes}-{space.players}-{space.marbles}: more than a "
                             f"state byte holds")
        level += 1
        if save and time.monotonic() - saved_at >= save_every:
            _write(save, want, level, state)
            saved_at = time.monotonic()


def _header(want: dict, level: int) -> bytes:
    fields = dict(want, level=level)
    return (SAVE_MAGIC + np.array([fields[k] for k in _FIELDS], np.int64).tobytes()
            ).ljust(HEADER, b"\0")


def _write(path: str, want: dict, level: int, state: np.ndarray) -> None:
    check_target(path, "star solve save")
    fd, tmp = temporary_beside(path)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(_header(want, level))
            state.tofile(f)
        publish(tmp, path)
    except BaseException:
        remove_quietly(tmp)
        raise


def _resume(path: str, want: dict) -> tuple[int | None, np.ndarray | None]:
    """(next level, state) of the save at ``path``, (None, None) if there is none; a file
    that is not this solve's save is refused in one line, never overwritten."""
    try:
        f = open(path, "rb")
    except FileNotFoundError:
        return None, None
    with f:
        head = f.read(HEADER)
        if len(head) < HEADER or not head.startswith(SAVE_MAGIC):
            raise ValueError(f"{quote(path)} is not a tbdb star solve save")
        got = dict(zip(_FIELDS, np.frombuffer(head, np.int64, len(_FIELDS),
                                              len(SAVE_MAGIC)).tolist()))
        level = got.pop("level")
        if got != want:
            raise ValueError(f"{quote(path)} saves another solve ({got}), not {want}")
        if os.fstat(f.fileno()).st_size != HEADER + want["slots"] or \
                not 0 <= level <= star_compact.MAX_DISTANCE:
            raise ValueError(f"{quote(path)} is damaged: its size or level is not its "
                             f"header's")
        state = np.fromfile(f, np.uint8, want["slots"])
    return level, state


def unpack(state: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``StarSpace.solve``'s (result, distance) from the state bytes."""
    result = np.empty(len(state), np.int8)
    distance = np.empty(len(state), np.int16)
    star_compact.unpack_states(state, result, distance)
    return result, distance


class StarValues:
    """A solved star table's values made from its state bytes ``chunks`` at a time (the
    mover's side's result, distance and best move: ``solvers/chinese_checkers/star_values``),
    so that writing it holds one byte a slot and a chunk, not the five more of whole output
    arrays (74 GB for 37-3-3).  ``result``, ``distance``, ``best`` and ``multiplicity`` are
    whole arrays, made on first use for readers that need them (the conformance tests)."""

    mode = "star-compact"
    estimate = None

    def __init__(self, space: StarSpace, lone: int, state: np.ndarray):
        self.space, self.lone, self.state = space, lone, state
        self._whole = None

    @property
    def size(self) -> int:
        return len(self.state)

    def chunks(self, step: int, best: bool = True):
        """(lo, result, distance, best or None, multiplicity) of slots lo .. lo + step (whole
        placements: ``step`` is rounded up to a multiple of the players), in order; without
        ``best`` no best move is searched for."""
        from tbdb.solvers.chinese_checkers import star_values
        n = self.space.players
        per = max(1, -(-int(step) // n))
        placements = self.size // n
        for first in range(0, placements, per):
            last = min(placements, first + per)
            k = (last - first) * n
            result = np.empty(k, np.int8)
            distance = np.empty(k, np.int16)
            moves = np.empty(k, np.int16)
            star_values.mover_values(self.lone, n, self.space.compact_tables,
                                     self.space.unrank_tables, self.state, first, last, best,
                                     result, distance, moves)
            yield first * n, result, distance, moves if best else None, np.ones(k, np.int8)

    def _arrays(self) -> tuple:
        if self._whole is None:
            parts = list(self.chunks(self.size))
            self._whole = (parts[0][1], parts[0][2], parts[0][3], parts[0][4]) if parts else \
                (np.zeros(0, np.int8), np.zeros(0, np.int16), np.zeros(0, np.int16),
                 np.zeros(0, np.int8))
        return self._whole

    @property
    def result(self) -> np.ndarray:
        return self._arrays()[0]

    @property
    def distance(self) -> np.ndarray:
        return self._arrays()[1]

    @property
    def best(self) -> np.ndarray:
        return self._arrays()[2]

    @property
    def multiplicity(self) -> np.ndarray:
        return self._arrays()[3]
