"""The level-by-level solve: key tables, a level at a time from the highest (``LevelSpace``).

Every key reachable from the roots is enumerated by level, each level solved from the levels
below it (``solve_levels``) and checked against them (``check_levels``); a build resumes
between levels.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from tbdb.retrograde.spaces import LevelSpace, Progress, children_batch, quiet
from tbdb.solvers import retrograde as k


@dataclass
class LevelValues:
    """One solved level: keys int64[n, 2] sorted, result int8[n], distance int16[n], best
    int32[n]."""
    level: int
    keys: np.ndarray
    result: np.ndarray
    distance: np.ndarray
    best: np.ndarray
    constraint: np.ndarray | None = None  # as stored (None while solving)
    multiplicity: np.ndarray | None = None


def sort_keys(keys: np.ndarray) -> np.ndarray:
    """Unique keys int64[n, 2] in (word 0, word 1) order, as the kernels' binary search wants."""
    if len(keys) == 0:
        return np.zeros((0, 2), np.int64)
    order = np.lexsort((keys[:, 1], keys[:, 0]))
    keys = keys[order]
    keep = np.ones(len(keys), bool)
    keep[1:] = (keys[1:, 0] != keys[:-1, 0]) | (keys[1:, 1] != keys[:-1, 1])
    return np.ascontiguousarray(keys[keep])


def enumerate_levels(space: LevelSpace, progress: Progress | None = None) -> dict[int, np.ndarray]:
    """Every key reachable from the roots, by level (sorted unique keys per level): the highest
    level first, so a level is complete before it is expanded."""
    return enumerate_unsolved(space, None, progress)[0]


Stored = Callable[[int, np.ndarray], "LevelValues | None"]


def enumerate_unsolved(space: LevelSpace, stored: Stored | None = None,
                       progress: Progress | None = None
                       ) -> tuple[dict[int, np.ndarray], dict[int, LevelValues]]:
    """(keys to solve by level, values of reached keys already solved by level).  Each level is
    completed (highest first) and ``stored(level, keys)`` asked for the values of those of its
    keys that are already solved (sorted ``LevelValues`` of a subset, or None); those are not
    expanded, so nothing below an already solved position is enumerated again."""
    progress = progress or quiet
    pending: dict[int, list[np.ndarray]] = {}

    def add(keys: np.ndarray) -> None:
        if len(keys):
            levels = space.level(keys)
            for lv in np.unique(levels):
                pending.setdefault(int(lv), []).append(keys[levels == lv])

    add(np.asarray(space.roots(), np.int64).reshape(-1, 2))
    out: dict[int, np.ndarray] = {}
    known: dict[int, LevelValues] = {}
    step = children_batch(space.max_children * 2)
    while pending:
        lv = max(pending)
        keys = sort_keys(np.concatenate(pending.pop(lv)))
        have = stored(lv, keys) if stored is not None else None
        if have is not None and len(have.keys):
            known[lv] = have
            keys = keys[k.find_keys(np.ascontiguousarray(have.keys), keys) < 0]
        out[lv] = keys
        for lo in range(0, len(keys), step):
            terminal, count, child, _ = space.expand(keys[lo:lo + step])
            live = np.arange(child.shape[1])[None, :] < count[:, None]
            add(child[live])
        progress("enumerate", len(out), len(out) + len(pending))
    return {lv: keys for lv, keys in out.items() if len(keys)}, known


def solve_levels(space: LevelSpace, levels: dict[int, np.ndarray],
                 solved: Callable[[int], LevelValues | None] | None = None,
                 done: Callable[[LevelValues], None] | None = None,
                 progress: Progress | None = None,
                 known: dict[int, LevelValues] | None = None) -> dict[int, LevelValues]:
    """Solve the enumerated levels from the lowest up.  ``solved(level)`` may return a level
    already stored (a resumed build); ``done(values)`` is called as each new level is solved
    (to bulk-load and checkpoint it).  ``known``: values of keys that were reached but are
    solved already (``enumerate_unsolved``), read as the values of children and not returned."""
    progress = progress or quiet
    known = known or {}
    out: dict[int, LevelValues] = {}
    lower: dict[int, LevelValues] = {}  # what the levels above read: solved and known keys
    order = sorted(levels)
    for i, lv in enumerate(order):
        for below in sorted(set(known) - set(lower)):
            if below < lv:
                lower[below] = known[below]
        have = solved(lv) if solved else None
        if have is not None:
            out[lv] = have
        else:
            result, distance, best = _back_up(space, lv, levels[lv],
                                              [lower[x] for x in sorted(lower)])
            out[lv] = LevelValues(lv, levels[lv], result, distance, best)
            if done:
                done(out[lv])
        lower[lv] = _union(out[lv], known[lv]) if lv in known else out[lv]
        progress("levels", i + 1, len(order))
    return out


def _union(a: LevelValues, b: LevelValues) -> LevelValues:
    """The keys and values of two disjoint solved parts of one level, sorted by key."""
    keys = np.concatenate([a.keys, b.keys])
    order = np.lexsort((keys[:, 1], keys[:, 0]))
    return LevelValues(a.level, np.ascontiguousarray(keys[order]),
                       np.concatenate([a.result, b.result])[order],
                       np.concatenate([a.distance, b.distance])[order],
                       np.concatenate([a.best, b.best])[order])


def _back_up(space: LevelSpace, lv: int, keys: np.ndarray, lower: list[LevelValues]):
    """(result, distance, best) of one level's keys from the solved lower levels."""
    starts = np.cumsum([0] + [len(v.keys) for v in lower])
    result_all = np.concatenate([v.result for v in lower] or [np.zeros(0, np.int8)])
    distance_all = np.concatenate([v.distance for v in lower] or [np.zeros(0, np.int16)])
    start_of = {v.level: int(s) for v, s in zip(lower, starts)}
    by_level = {v.level: np.ascontiguousarray(v.keys) for v in lower}
    n = len(keys)
    result = np.empty(n, np.int8)
    distance = np.empty(n, np.int16)
    best = np.empty(n, np.int32)
    step = children_batch(space.max_children * 2)
    for lo in range(0, n, step):
        terminal, count, child, move = space.expand(keys[lo:lo + step])
        rows = np.full(count.shape + (child.shape[1],), -1, np.int64)
        live = np.arange(child.shape[1])[None, :] < count[:, None]
        flat = child[live]
        if len(flat):
            clv = space.level(flat)
            found = np.full(len(flat), -1, np.int64)
            for c in np.unique(clv):
                sel = clv == c
                if int(c) in by_level:
                    hit = k.find_keys(by_level[int(c)], flat[sel])
                    found[sel] = np.where(hit >= 0, hit + start_of[int(c)], -1)
            rows[live] = found
        missing = k.level_values(terminal, count, rows, move, result_all, distance_all,
                                  result[lo:lo + step], distance[lo:lo + step],
                                  best[lo:lo + step])
        if missing:
            raise RuntimeError(f"level {lv}: {missing} positions have a child that is in no "
                               f"enumerated level (the game's level() or expand() is wrong)")
    return result, distance, best


def check_levels(space: LevelSpace, values: list[LevelValues], text=str,
                 key_columns=None) -> tuple[list[str], int]:
    """(examples, count) of stored key rows whose value or best move one ply of moves and the
    stored lower levels contradict (a child missing from the table counts too), and, with
    ``key_columns(keys) -> (constraint, multiplicity)``, whose stored columns differ."""
    examples: list[str] = []
    bad_total = 0
    done: list[LevelValues] = []
    for v in sorted(values, key=lambda v: v.level):
        try:
            result, distance, best = _back_up(space, v.level, v.keys, done)
            bad = (result != v.result) | (distance != v.distance) | (best != v.best)
        except RuntimeError:
            bad = np.ones(len(v.keys), bool)
        if key_columns is not None and v.multiplicity is not None:
            constraint, multiplicity = key_columns(v.keys)
            bad |= (constraint != v.constraint) | (multiplicity != v.multiplicity)
        for i in np.flatnonzero(bad)[:10 - len(examples)]:
            examples.append(text(tuple(int(x) for x in v.keys[i])))
        bad_total += int(bad.sum())
        done.append(v)
    return examples, bad_total
