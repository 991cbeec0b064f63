"""Chess tables and their index spaces.

A table is a canonical material (``KQvKR``; it also answers ``KRvKQ``, colours swapped).  Its
slots are ``side * half + index`` (side 0: the first side, playing white, to move; index: the
placement of ``solvers/chess/index.py``), then, in a table with pawns of both colours, its en
passant slots (``solvers/chess/ep.py``).  Captures and promotions lead to smaller or other
tables, whose solved values the ``children`` kernel (``solvers/chess/edges.py``) reads.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from tbdb.games.chess.material import Material
from tbdb.solvers.chess import edges as edge_kernels
from tbdb.solvers.chess import ep as ep_kernels
from tbdb.solvers.chess import index as index_kernels
from tbdb.solvers.chess import keys as key_kernels

# the most moves (and un-moves) a piece of each type has: pawn (3 targets x 4 promotions),
# knight, bishop, rook, queen, king
_MOST_MOVES = {1: 12, 2: 8, 3: 13, 4: 14, 5: 27, 6: 8}
_MOST_UNMOVES = {1: 2, 2: 8, 3: 13, 4: 14, 5: 27, 6: 8}


def table_slots(m: Material) -> int:
    """A table's slots: both sides' placements and its en passant slots."""
    return 2 * m.half + len(en_passant_keys(m))


# the child tables' values are kept whole (3 bytes a slot; the build also caches them) up to
# this share of the memory budget, else only those the captures and promotions reach
DENSE_SHARE = 4


def dense_limit() -> int:
    """Bytes of child values a table keeps whole (``DENSE_SHARE`` of the budget)."""
    from tbdb.retrograde import budget
    return (budget.current() or budget.default_memory()) // DENSE_SHARE


@lru_cache(maxsize=8)
def en_passant_keys(m: Material) -> np.ndarray:
    """The table's en passant keys, sorted (``solvers/chess/ep.py``; empty without pawns of
    both colours): its slot ``2 * half + e`` is key e."""
    keys = ep_kernels.enumerate_keys(m.desc)
    keys.flags.writeable = False
    return keys


def _values_at(deps, name: str, slots: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(result, distance) of dependency ``name`` at ``slots``: through ``deps.values_at`` if
    it has it (a build's: read from the store at those slots alone when it can), else from
    the table whole."""
    values_at = getattr(deps, "values_at", None)
    if values_at is not None:
        return values_at(name, slots)
    solved = deps[name]
    return solved.result[slots], solved.distance[slots]


class ChessSpace:
    """The index space of one material table (docs/kernel-contract.md); ``deps`` maps the
    canonical names of the tables its captures and promotions lead to to their solved values
    (anything with ``result`` and ``distance`` arrays).  ``sparse``: keep only the values its
    moves reach (``_exit_values``), as it is when they would weigh more than ``dense_limit``
    whole (None: decide so)."""
    parents_distinct = True  # the parents kernel drops the repeats of the rows that can have any
    parents_unsettled = True  # and leaves out the slots a ``settled`` bitmap marks
    # edge-free first: with order keys and summaries it beats edges (every 3-4 piece table
    # faster and at a lower peak, the same rows)
    fastest_modes = ("edge-free", "edges", "compact")

    def __init__(self, m: Material, deps, sparse: bool | None = None):
        self.m = m
        self.desc = m.desc
        self.half = m.half
        self.ep_keys = en_passant_keys(m)
        self.size = 2 * m.half + len(self.ep_keys)
        self._held: dict[str, list[np.ndarray]] = {}
        self.keyed = False  # ``keyed_moves``
        sides = [[c for c in m.codes if c < 8], [c for c in m.codes if c > 8]]
        # + 1: the stalemate pseudo-move; + 2: the en passant captures of an en passant slot
        self.max_children = 1 + 2 * (len(self.ep_keys) > 0) + \
            max(sum(_MOST_MOVES[c & 7] for c in s) for s in sides)
        # each parent board comes with its en passant slots: one per enemy pawn at most
        self.max_parents = max(sum(_MOST_UNMOVES[c & 7] for c in s)
                               * (1 + sum(c & 7 == 1 for c in sides[1 - i]))
                               for i, s in enumerate(sides))
        k = m.pieces
        n_changes = (k + 1) * (k + 1) * 6
        self.change_table = np.full(n_changes, -1, np.int64)
        self.change_map = np.full((n_changes, k), -1, np.int64)
        children: dict[tuple[str, bool], int] = {}  # (table, colours swapped) -> number
        values_at: dict[str, int] = {}  # table -> where its values start among the children's
        child_slots = 0
        cdesc, cflip, coff, chalf = [], [], [], []
        for number, (child, flip, slots) in m.changes().items():
            self.change_map[number] = slots
            if child is None:
                continue
            if child.name not in values_at:
                values_at[child.name] = child_slots
                child_slots += table_slots(child)
            key = (child.name, flip)
            if key not in children:
                children[key] = len(cdesc)
                cdesc.append(child.desc)
                cflip.append(int(flip))
                chalf.append(child.half)
                coff.append(values_at[child.name])
            self.change_table[number] = children[key]
        width = index_kernels.DESC_LEN
        self.cdesc = np.array(cdesc, np.int64).reshape(-1, width) if cdesc else \
            np.zeros((1, width), np.int64)
        self.cflip = np.array(cflip or [0], np.int64)
        self.coff = np.array(coff or [0], np.int64)
        self.chalf = np.array(chalf or [1], np.int64)
        self.crank = np.zeros(0, np.int64)  # empty: the children's values whole
        if sparse is None:
            sparse = 3 * child_slots > dense_limit()
        self.sparse = bool(sparse)
        if self.sparse:
            self.cres, self.cdist = self._exit_values(values_at, child_slots, deps)
        elif values_at:
            self.cres = np.concatenate([deps[c].result for c in values_at])
            self.cdist = np.concatenate([deps[c].distance for c in values_at])
            if len(self.cres) != child_slots:
                raise ValueError(f"the tables {', '.join(values_at)} hold {len(self.cres):,} "
                                 f"values, expected {child_slots:,}")
        else:
            self.cres, self.cdist = np.zeros(1, np.int8), np.zeros(1, np.int16)

    def _exit_values(self, values_at: dict, child_slots: int, deps) -> tuple:
        """The children's values at the slots this table's captures and promotions reach, and
        ``crank`` to find them (``solvers/retrograde/exits.py``): each child table read in
        turn at those slots (``_values_at``; a build's probe files decode only the blocks
        that hold them), not kept for later tables."""
        import numba
        from tbdb.retrograde.driver import CHUNK_SLOTS
        from tbdb.solvers.retrograde import exits
        marks = np.zeros((numba.get_num_threads(), (child_slots + 63) // 64), np.int64)
        for lo in range(0, self.size, CHUNK_SLOTS):
            kind, _ = self.census(lo, min(self.size, lo + CHUNK_SLOTS))
            positions = lo + np.flatnonzero(kind == 0)
            edge_kernels.exit_marks(self.desc, self.ep_keys, positions, self.change_table,
                                    self.change_map, self.cdesc, self.cflip, self.coff,
                                    self.chalf, marks)
        exits.merge_marks(marks)
        self.crank, marked = exits.rank_words(marks[0])
        del marks
        cres = np.empty(max(1, marked), np.int8)
        cdist = np.empty(max(1, marked), np.int16)
        ends = list(values_at.values())[1:] + [child_slots]
        for (name, lo), end in zip(values_at.items(), ends):
            slots = exits.marked_slots(self.crank, lo, end - lo)
            at = exits.rank_of(self.crank, lo)
            cres[at:at + len(slots)], cdist[at:at + len(slots)] = _values_at(deps, name, slots)
        return cres, cdist

    def census(self, lo: int, hi: int):
        kind = np.empty(hi - lo, np.int8)
        mult = np.empty(hi - lo, np.int16)
        edge_kernels.census(self.desc, self.ep_keys, lo, hi, kind, mult)
        return kind, mult

    # children() and parents() return views of buffers kept between calls: valid until the
    # next call of the same method (docs/kernel-contract.md).  A fresh 100 MB batch a call
    # cost a page fault and a page cleared per 4 KB on every call, a large share of a children
    # pass (the kernels write every row they return, so nothing needs clearing).
    def _buffers(self, what: str, n: int, layout) -> list[np.ndarray]:
        held = self._held.get(what)
        if held is None or len(held[0]) < n:
            held = [np.empty(n if w == 0 else (n, w), dtype) for w, dtype in layout]
            self._held[what] = held
        return [a[:n] for a in held]

    def release(self) -> None:
        """Drop the batch buffers (the driver calls this when a solve or a check ends)."""
        self._held.clear()

    def keyed_moves(self, on: bool) -> None:
        """While on, ``children`` gives each move's order key (``solvers/chess/keys.py``) in
        place of its code and ``parents`` gives them too (docs/kernel-contract.md, "Order
        keys"): the edge-free solve then records best moves on the way, which chess's codes,
        not in its move order, cannot do; ``codes_of_keys`` turns them back."""
        self.keyed = bool(on)

    @staticmethod
    def codes_of_keys(best: np.ndarray) -> None:
        """Order keys (int32, in place) back into move codes."""
        key_kernels.codes_of_keys(best)

    def children(self, positions: np.ndarray):
        w = self.max_children
        out = self._buffers("children", len(positions),
                            [(0, np.int16), (w, np.int64), (w, np.int32), (w, np.int8),
                             (w, np.int16)])
        edge_kernels.children(self.desc, self.ep_keys, np.ascontiguousarray(positions, np.int64),
                              self.change_table, self.change_map, self.cdesc, self.cflip,
                              self.coff, self.chalf, self.cres, self.cdist, self.crank,
                              self.keyed, *out)
        return tuple(out)

    def summaries(self, positions: np.ndarray) -> tuple[np.ndarray, ...]:
        """What the edge-free solve needs of each position's children, without their rows
        (docs/kernel-contract.md): no in-table child indexed where a capture or promotion
        wins, repeats looked for only where they can be."""
        out = self._buffers("summaries", len(positions),
                            [(0, np.int16), (0, np.int16), (0, np.int32), (0, np.int16),
                             (0, np.int32), (0, np.int8)])
        edge_kernels.summaries(self.desc, self.ep_keys,
                               np.ascontiguousarray(positions, np.int64), self.change_table,
                               self.change_map, self.cdesc, self.cflip, self.coff, self.chalf,
                               self.cres, self.cdist, self.crank, self.keyed, *out)
        return tuple(out)

    def first_draws(self, positions: np.ndarray, result: np.ndarray, best: np.ndarray) -> None:
        """best[p] of each drawn position p: its first move to a drawn child (the code, or
        the order key while ``keyed_moves`` is on); docs/kernel-contract.md."""
        edge_kernels.first_draws(self.desc, self.ep_keys,
                                 np.ascontiguousarray(positions, np.int64), self.change_table,
                                 self.change_map, self.cdesc, self.cflip, self.coff, self.chalf,
                                 self.cres, self.cdist, self.crank, self.keyed, result, best)

    def parents(self, positions: np.ndarray, settled: np.ndarray | None = None):
        w = self.max_parents
        out = self._buffers("parents", len(positions),
                            [(0, np.int32), (w, np.int64), (w, np.int32)])
        settled = np.zeros(0, np.uint8) if settled is None else settled
        if len(settled) and (settled.dtype != np.uint8 or len(settled) < (self.size + 7) // 8):
            raise ValueError(f"settled: {len(settled)} {settled.dtype} for {self.size} slots; "
                             f"need uint8[{(self.size + 7) // 8}]")  # the kernel reads it blind
        edge_kernels.parents(self.desc, self.ep_keys, np.ascontiguousarray(positions, np.int64),
                             settled, *out)
        return tuple(out) if self.keyed else tuple(out[:2])
