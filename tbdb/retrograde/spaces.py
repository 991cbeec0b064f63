"""What the retrograde driver's modes share: the table contracts, the solved values, the batches.

``IndexSpace`` and ``LevelSpace`` are what a game hands over (``docs/kernel-contract.md``);
``IndexValues`` what an index solve returns; ``batches`` and ``children_batch`` how a mode
walks a table in pieces that keep memory bounded.
"""
from __future__ import annotations

import contextvars
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Callable, Iterator, Protocol

import numpy as np

CHUNK_SLOTS = 1 << 22  # slots per census pass
BATCH_BYTES = 96 << 20  # what one children/parents batch may take

Progress = Callable[[str, int, int], None]  # (stage, done, total)
# what a solve reports besides a stage's share done: events a build says in a line
RESUMED = "resumed"  # done: the distance a compact solve resumes at from its saved state
RESUMED_CHILDREN = "resumed children"  # done of total: the slot its children pass resumes at
DAMAGED_SAVE = "damaged save: "  # + why: the saved state is not used, the solve starts over

# whether ``solve_index`` finds best moves (``without_best_moves``)
_BEST_MOVES = contextvars.ContextVar("tbdb_best_moves", default=True)


@contextmanager
def without_best_moves(skip: bool = True):
    """Inside (if ``skip``), the edge-free solve finds no best moves: no order keys through
    the levels and no pass over the draws for their first drawing move (a good share of a big
    table's solve), and ``best`` is ``NO_MOVE`` throughout.  For a build whose files
    keep no moves (``tbdb build --probe-files DIR --no-moves``: a lookup derives the best
    move from one ply of probes); the other modes find them all the same."""
    token = _BEST_MOVES.set(not skip)
    try:
        yield
    finally:
        _BEST_MOVES.reset(token)


def finds_best_moves() -> bool:
    """Whether ``solve_index`` finds best moves here (not inside ``without_best_moves``)."""
    return _BEST_MOVES.get()


class IndexSpace(Protocol):
    size: int
    max_children: int
    max_parents: int

    def census(self, lo: int, hi: int) -> tuple[np.ndarray, np.ndarray]: ...
    def children(self, positions: np.ndarray) -> tuple[np.ndarray, ...]: ...
    def parents(self, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]: ...


class LevelSpace(Protocol):
    max_children: int

    def roots(self) -> np.ndarray: ...
    def level(self, keys: np.ndarray) -> np.ndarray: ...
    def expand(self, keys: np.ndarray) -> tuple[np.ndarray, ...]: ...


@dataclass
class IndexValues:
    """A solved index table: per slot ``result`` int8 (WIN/DRAW/LOSS, ILLEGAL, NONE),
    ``distance`` int16, ``best`` int32 move code (-1 none) and ``multiplicity`` int16 (the
    compact mode keeps ``best`` int16 and ``multiplicity`` int8 where every value fits)."""
    result: np.ndarray
    distance: np.ndarray
    best: np.ndarray
    multiplicity: np.ndarray
    mode: str = ""
    estimate: int | None = None  # the peak bytes expected when the mode was chosen

    @property
    def size(self) -> int:
        return len(self.result)

    def chunks(self, step: int, best: bool = True):
        """(lo, result, distance, best or None, multiplicity) of slots lo..lo+step, in order
        (``tbdb.retrograde.compact.CompactValues`` makes them from its state words on the way)."""
        for lo in range(0, self.size, step):
            hi = min(self.size, lo + step)
            yield (lo, self.result[lo:hi], self.distance[lo:hi],
                   self.best[lo:hi] if best else None, self.multiplicity[lo:hi])


def quiet(stage: str, done: int, total: int) -> None:
    pass


def children_batch(width: int) -> int:
    """Positions per ``children`` call: a batch holds 15 bytes per (position, move slot)."""
    return int(max(256, min(1 << 20, BATCH_BYTES // (15 * max(width, 1)))))


def parents_batch(max_parents: int) -> int:
    """Positions per ``parents`` call: a batch holds 8 bytes per (position, parent slot)."""
    return int(max(256, min(1 << 20, BATCH_BYTES // (8 * max(max_parents, 1)))))


def batches(positions: np.ndarray, step: int) -> Iterator[np.ndarray]:
    for lo in range(0, len(positions), step):
        yield positions[lo:lo + step]


def release(space) -> None:
    """Let a table drop the batch buffers it keeps between calls (optional in the contract)."""
    drop = getattr(space, "release", None)
    if drop is not None:
        drop()
