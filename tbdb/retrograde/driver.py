"""The retrograde driver: solves a game's table with the kernels of ``tbdb.solvers.retrograde``.

A game hands over a table object following ``docs/kernel-contract.md`` (``IndexSpace``: census,
children, parents; ``LevelSpace``: roots, level, expand).  This module walks it in chunks that
keep memory bounded, picks a mode (edges in memory for small tables, edge-free for large ones,
level by level for key tables) and returns plain arrays.
"""
from __future__ import annotations

import mmap
from typing import Iterator

import numba
import numpy as np

from tbdb.retrograde.levels import LevelValues, check_levels, enumerate_levels, \
    enumerate_unsolved, solve_levels, sort_keys  # noqa: F401  (the driver's API)
from tbdb.retrograde.spaces import BATCH_BYTES, CHUNK_SLOTS, IndexSpace, IndexValues, \
    LevelSpace, Progress, batches, children_batch, finds_best_moves, parents_batch, quiet, \
    release, without_best_moves  # noqa: F401  (the driver's API)
from tbdb.solvers import retrograde as k

MODES = ("edges", "edge-free", "compact")


def census(space: IndexSpace, result: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(result, multiplicity) for every slot: NONE/ILLEGAL from the census, UNKNOWN for the
    real positions."""
    size = space.size
    result = np.empty(size, np.int8) if result is None else result
    multiplicity = np.empty(size, np.int16)
    for lo in range(0, size, CHUNK_SLOTS):
        hi = min(size, lo + CHUNK_SLOTS)
        kind, mult = space.census(lo, hi)
        result[lo:hi] = np.where(kind == 0, k.UNKNOWN, kind)
        multiplicity[lo:hi] = mult
    return result, multiplicity


def _real(result: np.ndarray, lo: int, hi: int, solved: bool = False) -> np.ndarray:
    """Slots lo..hi that are real positions (UNKNOWN while solving; valued once solved)."""
    part = result[lo:hi]
    mask = (part >= k.LOSS) & (part <= k.WIN) if solved else part == k.UNKNOWN
    return lo + np.flatnonzero(mask)


def choose_mode(space: IndexSpace, mode: str = "auto") -> tuple[str, int]:
    """(mode, estimated peak bytes of the process): ``mode`` itself, or for "auto" the fastest
    whose estimate fits the memory budget of ``tbdb.retrograde.budget.within`` (without one: edges
    below 2 GB of estimated edges, else edge-free); ``MemoryBudgetError`` when none fits."""
    from tbdb.retrograde import budget
    if mode != "auto" and mode not in MODES:
        raise ValueError(f"unknown retrograde mode {mode!r}; expected one of "
                         f"{', '.join(MODES)} or 'auto'")
    # a space may know its modes' speeds better than the default order (``fastest_modes``)
    order = getattr(space, "fastest_modes", MODES)
    return budget.choose(space, mode, order, getattr(space, "name", None))


def solve_index(space: IndexSpace, mode: str = "auto",
                progress: Progress | None = None) -> IndexValues:
    """Solve an index table in ``mode`` ("edges", "edge-free", "compact", or "auto": the
    fastest that fits the memory budget)."""
    progress = progress or quiet
    mode, estimate = choose_mode(space, mode)
    if mode == "compact":
        # its values keep the space: their best moves are picked as they are written
        from tbdb.retrograde.compact import solve_compact
        try:
            values = solve_compact(space, progress)
        finally:
            release(space)
        values.estimate = estimate
        return values
    try:
        if mode == "edges":
            result, distance, best, multiplicity = _solve_edges(space, progress)
        else:
            result, distance, best, multiplicity = _solve_edge_free(space, progress)
    finally:
        release(space)
    return IndexValues(result, distance, best, multiplicity, mode, estimate)


def _solve_edges(space: IndexSpace, progress: Progress):
    """Children generated once into a flat edge list (12 bytes per move, int32 slots), solved by
    degree counting, best moves read from the same list."""
    size = space.size
    if size >= 1 << 31:
        raise ValueError(f"a table of {size:,} slots is too large for the edges-in-memory "
                         f"mode; use edge-free")
    result, multiplicity = census(space)
    step = children_batch(space.max_children)
    moves = np.zeros(size + 1, np.int64)  # moves of slot p at moves[p + 1], then offsets
    n_in = np.zeros(size, np.int32)
    ext_loss_min = np.full(size, k.NO_EXT, np.int16)
    ext_win_max = np.full(size, -1, np.int16)
    target_parts, code_parts = [], []
    for lo in range(0, size, CHUNK_SLOTS):
        for batch in batches(_real(result, lo, min(size, lo + CHUNK_SLOTS)), step):
            count, child, move, ext_result, ext_distance = space.children(batch)
            start = np.zeros(len(batch), np.int64)
            np.cumsum(count[:-1], out=start[1:])
            total = int(start[-1] + count[-1]) if len(batch) else 0
            target = np.empty(total, np.int32)
            code = np.empty(total, np.int32)
            k.pack_rows(batch, count, child, move, ext_result, ext_distance, start, target,
                         code, n_in, ext_loss_min, ext_win_max)
            moves[batch + 1] = count
            target_parts.append(target)
            code_parts.append(code)
        progress("children", min(size, lo + CHUNK_SLOTS), size)
    off = np.cumsum(moves, out=moves)
    target = _concatenate(target_parts)
    code = _concatenate(code_parts)
    roff, parent = k.reverse_edges(size, off, target)
    distance = np.zeros(size, np.int16)
    k.solve_graph(result, distance, n_in, roff, parent, ext_loss_min, ext_win_max)
    del roff, parent, n_in
    progress("solve", size, size)
    best = np.full(size, k.NO_MOVE, np.int32)
    k.best_of_rows(off, target, code, result, distance, best)
    return result, distance, best, multiplicity


def _concatenate(parts: list) -> np.ndarray:
    """One array from parts, freeing each part as it is copied (peak: the result + one part)."""
    out = np.empty(sum(len(p) for p in parts), np.int32)
    at = 0
    while parts:
        p = parts.pop(0)
        out[at:at + len(p)] = p
        at += len(p)
    return out


def _solve_edge_free(space: IndexSpace, progress: Progress):
    """Degree counting without edges: ``children`` (or ``summaries``) once to set the
    counters, then distance by distance the positions resolved at it are found by a scan and
    their ``parents`` updated.
    When ``parents`` also gives each move's code (``docs/kernel-contract.md``), best moves
    are recorded on the way and ``children`` runs again only for drawn positions; a game
    whose codes are not in its move order gives order keys for the solve (``keyed_moves``),
    turned back into codes at its end."""
    keyed = getattr(space, "keyed_moves", None)
    if keyed is None or not finds_best_moves():
        return _edge_free(space, progress)
    keyed(True)
    try:
        result, distance, best, multiplicity = _edge_free(space, progress)
    finally:
        keyed(False)
    space.codes_of_keys(best)
    return result, distance, best, multiplicity


def _edge_free(space: IndexSpace, progress: Progress):
    """``_solve_edge_free`` in the space's own move numbers."""
    size = space.size
    width = space.max_children
    records = RecordArray(size, k.state_dtype(width))
    state = records.array
    multiplicity = np.empty(size, np.int16)
    step = children_batch(width)
    summaries = getattr(space, "summaries", None)  # the counters without listing every move
    top = 0
    real = 0  # positions; the levels stage reports those backed up so far against it
    for lo in range(0, size, CHUNK_SLOTS):
        hi = min(size, lo + CHUNK_SLOTS)
        kind, mult = space.census(lo, hi)
        positions = k.ef_census(kind, lo, state)
        real += len(positions)
        multiplicity[lo:hi] = mult
        for batch in batches(positions, step):
            if summaries is not None:
                top = max(top, k.ef_init_summaries(batch, *summaries(batch), state))
                continue
            count, child, move, ext_result, ext_distance = space.children(batch)
            top = max(top, k.ef_init(batch, count, child, move, ext_result, ext_distance,
                                      width, state))
        progress("children", hi, size)
    pstep = parents_batch(space.max_parents)
    no_codes = None  # zeros standing in for codes, made only for a game that gives none
    distinct = getattr(space, "parents_distinct", False)  # rows already free of repeats
    # the game leaves out the settled parents itself: never written, nothing to drop
    unsettled = getattr(space, "parents_unsettled", False)
    with_codes = None  # known after the first parents() call
    backed_up = 0  # every won or lost position is backed up once (draws never are)
    threads = numba.get_num_threads()
    queues = LevelQueues(size)
    for lo in range(0, size, CHUNK_SLOTS << 2):
        queues.add(*k.ef_resolved(state, lo, min(size, lo + (CHUNK_SLOTS << 2))))
    fresh = fresh_distance = None  # what each of ef_apply's threads resolves in a batch
    fresh_count = np.zeros(threads, np.int64)
    settled = np.zeros((size + 7) // 8, np.uint8)  # a bit a slot: k.drop_settled, parents
    level = 0
    while level <= top:
        for entries in queues.take(level, CHUNK_SLOTS):
            frontier = k.ef_live(entries, state, level)
            k.settle(frontier, settled)
            backed_up += len(frontier)
            for batch in batches(frontier, pstep):
                rows = space.parents(batch, settled) if unsettled else space.parents(batch)
                with_codes = len(rows) == 3 and size < 1 << 32
                count, parent = rows[0], rows[1]
                if with_codes:
                    codes = rows[2]
                else:
                    if no_codes is None:
                        no_codes = np.zeros((pstep, max(space.max_parents, 1)), np.int32)
                    codes = no_codes
                if not distinct:
                    k.dedupe_rows(count, parent, codes, with_codes)
                if not unsettled:
                    k.drop_settled(batch, state, count, parent, codes, settled)
                need = int(count.sum())
                if fresh is None or fresh.shape[1] < need:
                    fresh = np.empty((threads, need), queues.dtype)
                    fresh_distance = np.empty((threads, need), np.int16)
                top = max(top, k.ef_apply(batch, count, parent, codes, state, level, threads,
                                           fresh, fresh_distance, fresh_count))
                for t in range(threads):
                    queues.add(fresh[t], fresh_distance[t], int(fresh_count[t]))
            progress("levels", backed_up, real)
        level += 1
    progress("levels", real, real)
    del no_codes, queues, settled
    k.ef_finish(state)
    del state
    result = np.empty(size, np.int8)
    distance = np.empty(size, np.int16)
    # without best moves what the records hold is no move the solve chose, and none is copied
    # out: 4 bytes a slot neither written nor held (2.8 GB of a 710M-slot table)
    with_best = finds_best_moves()
    best = np.empty(size if with_best else 0, np.int32)
    records.unpack(lambda state, lo, hi: k.ef_unpack(state, lo, hi, result, distance, best))
    del records
    if not with_best:
        return result, distance, np.broadcast_to(k.NO_MOVE, (size,)), multiplicity
    best_moves(space, result, distance, progress, best, only_draws=bool(with_codes))
    return result, distance, best, multiplicity


class RecordArray:
    """A record array in anonymous memory that is given back a chunk at a time as its fields
    are copied out (``unpack``): the edge-free records become the output arrays with no
    second copy of them at the peak (it would add 7 bytes a slot: 5 GB on a 710M-slot
    table)."""

    CHUNK = 1 << 22  # records: a whole number of pages whatever the record's size

    def __init__(self, size: int, dtype: np.dtype):
        self.size = size
        self.dtype = dtype
        # private: a shared anonymous map is shared memory, which gets no huge pages (the
        # system's shmem_enabled is "never" by default) and keeps what MADV_DONTNEED drops
        self.map = mmap.mmap(-1, max(1, size * dtype.itemsize),
                             flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
        if hasattr(mmap, "MADV_HUGEPAGE"):  # as NumPy asks for its own large arrays
            self.map.madvise(mmap.MADV_HUGEPAGE)
        self.array = np.frombuffer(self.map, dtype, count=size)

    def unpack(self, copy) -> None:
        """``copy(records, lo, hi)`` chunk by chunk, each chunk's memory given back after it
        (the records must not be read again)."""
        for lo in range(0, self.size, self.CHUNK):
            hi = min(self.size, lo + self.CHUNK)
            copy(self.array, lo, hi)
            start, end = lo * self.dtype.itemsize, hi * self.dtype.itemsize
            if hi == self.size:
                end = len(self.map)
            if hasattr(mmap, "MADV_DONTNEED"):
                self.map.madvise(mmap.MADV_DONTNEED, start, end - start)
        del self.array


class LevelQueues:
    """The edge-free levels' work list: per distance, the slots won or lost at it and not yet
    backed up (int32 where the table's slots fit), appended as the first pass and each backup
    find them, taken level by level in blocks of 2^16 slots ascending (``group_by``).  A win
    found shorter later is queued again, and its old entry dropped when its level comes
    (``ef_live``)."""

    BLOCK_SHIFT = 16

    def __init__(self, size: int):
        self.dtype = np.int32 if size < 1 << 31 else np.int64
        self.by_level: dict[int, list[np.ndarray]] = {}

    def add(self, slots: np.ndarray, distances: np.ndarray, n: int | None = None) -> None:
        n = len(slots) if n is None else n
        if n == 0:
            return
        first = np.zeros(int(distances[:n].max()) + 2, np.int64)
        grouped = np.empty(n, self.dtype)
        k.group_by(slots, distances, n, grouped, first)
        for d in np.flatnonzero(first[1:] > first[:-1]):
            # copied: a view would keep every level's entries alive until the last is taken
            self.by_level.setdefault(int(d), []).append(grouped[first[d]:first[d + 1]].copy())

    def take(self, level: int, piece: int) -> Iterator[np.ndarray]:
        """Level ``level``'s slots by blocks ascending, ``piece`` at a time."""
        parts = self.by_level.pop(level, [])
        if not parts:
            return
        entries = np.concatenate(parts) if len(parts) > 1 else parts[0]
        del parts
        blocks = entries >> self.BLOCK_SHIFT
        first = np.zeros(int(blocks.max()) + 2, np.int64)
        ordered = np.empty_like(entries)
        k.group_by(entries, blocks, len(entries), ordered, first)
        del entries, blocks
        for lo in range(0, len(ordered), piece):
            yield ordered[lo:lo + piece]


def best_moves(space: IndexSpace, result: np.ndarray, distance: np.ndarray,
               progress: Progress | None = None, best: np.ndarray | None = None,
               only_draws: bool = False) -> np.ndarray:
    """The first move in the game's order realising each solved position's value (into
    ``best``; with ``only_draws`` only drawn positions are looked at)."""
    progress = progress or quiet
    size = space.size
    best = np.full(size, k.NO_MOVE, np.int32) if best is None else best
    step = children_batch(space.max_children)
    # a game that finds a draw's first drawn move without indexing every child
    first_draws = getattr(space, "first_draws", None) if only_draws else None
    for lo in range(0, size, CHUNK_SLOTS):
        hi = min(size, lo + CHUNK_SLOTS)
        rows = (lo + np.flatnonzero(result[lo:hi] == k.DRAW) if only_draws
                else _real(result, lo, hi, solved=True))
        if first_draws is not None:
            first_draws(rows, result, best)
            progress("best moves", hi, size)
            continue
        for batch in batches(rows, step):
            count, child, move, ext_result, ext_distance = space.children(batch)
            k.pick_best(batch, count, child, move, ext_result, ext_distance, result, distance,
                         best)
        progress("best moves", hi, size)
    return best


def check_index(space: IndexSpace, values, progress: Progress | None = None) -> np.ndarray:
    """Flags per slot (int8; 0 fine, 1 value, 2 best move, 3 kind or multiplicity) of every
    stored field that the rules and the stored children contradict (``check_chunks``)."""
    bad = np.zeros(space.size, np.int8)
    for lo, flags in check_chunks(space, values, progress):
        bad[lo:lo + len(flags)] = flags
    return bad


def check_chunks(space: IndexSpace, values, progress: Progress | None = None):
    """(lo, flags int8) a chunk of slots at a time, flags as ``check_index``'s: the census
    (which slots are positions, illegal, or nothing; multiplicities), each value re-derived
    from one ply of moves and the stored values of the children, and each best move being a
    legal move that realises its value.  ``values``: anything with ``chunks`` (whole arrays,
    a compact solve, a stored table read back packed); the children's values are read from
    the values packed as compact's state words, 1-2 bytes a slot."""
    progress = progress or quiet
    size = space.size
    step = children_batch(space.max_children)
    state, top = packed_state(values)
    try:
        for lo, result, _, best, multiplicity in values.chunks(CHUNK_SLOTS):
            hi = lo + len(result)
            kind, mult = space.census(lo, hi)
            expect_kind = np.where(kind == 0, 0, kind)
            got_kind = np.where((result >= k.LOSS) & (result <= k.WIN), 0, result)
            wrong = (expect_kind != got_kind) | (mult != multiplicity)
            flags = np.where(wrong, 3, 0).astype(np.int8)
            real = lo + np.flatnonzero((kind == 0) & ~wrong)
            for batch in batches(real, step):
                count, child, move, ext_result, ext_distance = space.children(batch)
                k.check_rows(batch, lo, count, child, move, ext_result, ext_distance, state,
                             top, best, flags)
            progress("verify", hi, size)
            yield lo, flags
    finally:
        release(space)


def packed_state(values) -> tuple[np.ndarray, int]:
    """(state words, largest word) of solved or stored values: their own where they keep
    them (a compact solve, a table read back packed), else packed here (1 byte a slot while
    every distance fits 125 plies, else 2)."""
    from tbdb.retrograde.compact import NARROW, WIDE
    from tbdb.solvers.retrograde import compact as cp
    if getattr(values, "state", None) is not None:
        return values.state, values.word
    longest = 0
    for lo in range(0, values.size, CHUNK_SLOTS):
        part = values.result[lo:lo + CHUNK_SLOTS]
        decided = values.distance[lo:lo + CHUNK_SLOTS][(part == k.WIN) | (part == k.LOSS)]
        longest = max(longest, int(decided.max(initial=0)))
    top = NARROW if longest <= cp.limit(NARROW) else WIDE
    state = np.empty(values.size, np.uint8 if top == NARROW else np.uint16)
    for lo in range(0, values.size, CHUNK_SLOTS):
        hi = min(values.size, lo + CHUNK_SLOTS)
        cp.cp_pack(values.result[lo:hi], values.distance[lo:hi], lo, top, state)
    return state, top


