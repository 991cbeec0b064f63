"""Ultimate Tic-Tac-Toe level tables for the retrograde driver (``LevelSpace``, see
``docs/kernel-contract.md``): the subtree below a root position, and every legal position with
at most K empty cells in open boards.  Both are solved with
``tbdb.retrograde.levels.enumerate_levels`` and ``solve_levels``; the scoring only changes the
values of finished games.

Table names: ``<scoring>/from/<key word 0>.<key word 1>`` (the build of the subtree of the root
with that canonical key) and ``<scoring>/empties/<K>`` (the build of every legal position with at
most K empty cells); their rows are all in one shared table per scoring, ``<scoring>/positions``
(``tbdb.storage.shared_levels``: a build reuses the positions stored there).
``parse_table_name`` reads the names back.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from tbdb.errors import InvalidOptionError, quote
from tbdb.games.uttt.position import SCORINGS, Key, Position, scoring_code
from tbdb.solvers.uttt import keys as keys_kernels
from tbdb.solvers.uttt import levels as kernels

MAX_BUILD_EMPTIES = 81


def levels_of(keys: np.ndarray) -> np.ndarray:
    """int16[n]: empty cells in open boards of each key (int64[n, 2])."""
    keys = np.ascontiguousarray(keys, np.int64).reshape(-1, 2)
    out = np.empty(len(keys), np.int16)
    keys_kernels.key_levels(keys, out)
    return out


def constraints_of(keys: np.ndarray) -> np.ndarray:
    """int8[n]: the constraint (0..8, -1 any) of each key's canonical representative."""
    keys = np.ascontiguousarray(keys, np.int64).reshape(-1, 2)
    out = np.empty(len(keys), np.int8)
    keys_kernels.key_constraints(keys, out)
    return out


def sides_of(keys: np.ndarray) -> np.ndarray:
    """int8[n]: the side to move (0 x, 1 o) of each key."""
    keys = np.asarray(keys, np.int64).reshape(-1, 2)
    return ((keys[:, 1] % 20) // 10).astype(np.int8)


class _LevelTable:
    """What both table kinds share: ``level`` and ``expand`` on exact canonical keys."""
    max_children: int
    scoring: str

    def level(self, keys: np.ndarray) -> np.ndarray:
        return levels_of(keys)

    def expand(self, keys: np.ndarray) -> tuple[np.ndarray, ...]:
        """keys int64[k, 2] -> terminal int8[k] (value of a finished game for the side to
        move, else 2), count int16[k], child int64[k, W, 2], move int32[k, W] (codes
        ``9 * board + cell`` on the canonical representative, ascending)."""
        keys = np.ascontiguousarray(keys, np.int64).reshape(-1, 2)
        k, w = len(keys), self.max_children
        terminal = np.empty(k, np.int8)
        count = np.empty(k, np.int16)
        child = np.empty((k, w, 2), np.int64)
        move = np.empty((k, w), np.int32)
        kernels.expand(keys, scoring_code(self.scoring), terminal, count, child, move)
        return terminal, count, child, move


class UtttSubtree(_LevelTable):
    """Every position reachable from ``root`` (a Position or its text), under ``scoring``.
    ``max_children`` is the root's number of empty cells in open boards (no position below has
    more legal moves)."""

    def __init__(self, root: Position | str, scoring: str = "standard"):
        scoring_code(scoring)
        self.root = Position.parse(root) if isinstance(root, str) else root
        self.scoring = scoring
        self.root_key: Key = self.root.key
        self.max_children = max(1, self.root.empties)

    @property
    def name(self) -> str:
        return table_name(self.scoring, root_key=self.root_key)

    def roots(self) -> np.ndarray:
        return np.array([self.root_key], np.int64)


class UtttStore(_LevelTable):
    """The shared table of one scoring: every position any build of that scoring stored (closed
    under moves).  Not built by itself; ``expand`` and ``level`` serve ``verify``."""
    max_children = 81

    def __init__(self, scoring: str = "standard"):
        scoring_code(scoring)
        self.scoring = scoring

    @property
    def name(self) -> str:
        return shared_table_name(self.scoring)

    def roots(self) -> np.ndarray:
        return np.zeros((0, 2), np.int64)


class UtttEmpties(_LevelTable):
    """Every legal position (``tbdb.solvers.uttt.levels`` defines legal) with at most
    ``max_empties`` empty cells in open boards, under ``scoring``.  ``roots()`` is the whole
    set, every level of it: the set is closed under moves, so the enumeration adds nothing."""

    def __init__(self, max_empties: int, scoring: str = "standard"):
        scoring_code(scoring)
        if not isinstance(max_empties, int) or not 0 <= max_empties <= MAX_BUILD_EMPTIES:
            raise InvalidOptionError(f"max_empties must be an integer 0..81, got "
                                     f"{max_empties!r}")
        self.max_empties = max_empties
        self.scoring = scoring
        self.max_children = max(1, max_empties)

    @property
    def name(self) -> str:
        return table_name(self.scoring, max_empties=self.max_empties)

    def roots(self) -> np.ndarray:
        return kernels.legal_keys(self.max_empties)


# ------------------------------------------------------------------------------- names

_NAME = re.compile(r"(standard|codingame)/(?:from/(-?\d+)\.(-?\d+)|empties/(\d+)|(positions))")


@dataclass(frozen=True)
class TableName:
    scoring: str
    root_key: Key | None = None
    max_empties: int | None = None
    store: bool = False  # the scoring's shared table of positions, not a build


def table_name(scoring: str, root_key: Key | None = None, max_empties: int | None = None) -> str:
    if scoring not in SCORINGS:
        raise InvalidOptionError(f"unknown uttt scoring {scoring!r}; expected one of "
                                 f"{', '.join(SCORINGS)}")
    if (root_key is None) == (max_empties is None):
        raise ValueError("a uttt table has either a root key or a number of empties")
    if root_key is not None:
        return f"{scoring}/from/{root_key[0]}.{root_key[1]}"
    return f"{scoring}/empties/{max_empties}"


def shared_table_name(scoring: str) -> str:
    """The table holding every stored position of a scoring (all builds share it)."""
    return f"{scoring}/positions"


def parse_table_name(name: str) -> TableName:
    m = _NAME.fullmatch(name)
    if not m:
        raise InvalidOptionError(f"malformed uttt table name {quote(name)}: expected "
                                 f"'<scoring>/from/<word0>.<word1>', '<scoring>/empties/<K>' or "
                                 f"'<scoring>/positions'")
    if m.group(5):
        return TableName(m.group(1), store=True)
    if m.group(2):
        return TableName(m.group(1), root_key=(int(m.group(2)), int(m.group(3))))
    return TableName(m.group(1), max_empties=int(m.group(4)))


def table_for(name: str) -> UtttSubtree | UtttEmpties | UtttStore:
    """The table object a name stands for."""
    t = parse_table_name(name)
    if t.store:
        return UtttStore(t.scoring)
    if t.root_key is not None:
        return UtttSubtree(Position.from_key(t.root_key), t.scoring)
    return UtttEmpties(t.max_empties, t.scoring)
