"""What a build holds between its tables: the solved tables later ones read, and the write of
the last table running beside the next one's solve.

``Dependencies`` loads a table's dependencies from the store when first read and caches them
for the tables after it; ``trim_cache`` keeps the cache within a share of the memory budget;
``TableWriter`` commits each solved table on a second connection while the next one solves.
"""
from __future__ import annotations

from collections.abc import Mapping
from concurrent.futures import Future, ThreadPoolExecutor, wait

from tbdb.db.store import Store
from tbdb.retrograde.memory import release_freed_memory

def load_table(g, store: Store, table: str, needed_by: str | None = None):
    """A built table's values in the form ``g.space``/``g.solve`` read them (``needed_by``:
    the table that reads it, for the error if it is missing)."""
    what = f"table {needed_by!r}" if needed_by else "this command"
    row = store.require_table(g.name, table, what, g.build_command(table))
    return g.from_stored(table, row, store.load_table(row))


def dependencies(g, table: str, store: Store, cache: dict, solving: bool = False):
    """The solved tables ``table`` reads, from ``cache`` or else loaded (and cached); in the
    form the game's solver keeps them (``Game.dependency_form``) if ``solving``, else whole
    (``verify`` re-derives a table from its dependencies' every field).  Solving, they load
    as the solver reads them (``Dependencies``); else all of them now."""
    deps = Dependencies(g, table, store, cache, solving)
    return deps if solving else {d: deps[d] for d in deps}


class Dependencies(Mapping):
    """The solved tables a table reads, by name, each loaded when first read and cached for
    the tables after it.  A solver that reads them one at a time and keeps only a part (the
    values its moves reach, of tables that weigh many times its own) ``borrow``s them, so at
    most one is held at once.  A table missing from the store is refused at once."""

    def __init__(self, g, table: str, store: Store, cache: dict, solving: bool):
        self.g, self.table, self.store, self.cache, self.solving = g, table, store, cache, solving
        self.names = g.dependencies(table)
        for d in self.names:
            if d not in cache:
                store.require_table(g.name, d, f"table {table!r}", g.build_command(d))

    def __getitem__(self, name: str):
        if name not in self.cache:
            self.cache[name] = self.borrow(name)
        return self.cache[name]

    def borrow(self, name: str):
        """Table ``name``'s values, cached or loaded, not kept in the cache if not there."""
        if name not in self.names:
            raise KeyError(name)
        if name in self.cache:
            return self.cache[name]
        loaded = load_table(self.g, self.store, name, needed_by=self.table)
        return self.g.dependency_form(name, loaded) if self.solving else loaded

    def values_at(self, name: str, slots):
        """(result, distance) of index table ``name`` at ``slots`` (int64, ascending), without
        keeping it: from the cache, or read from the store at those slots alone where it
        can (probe files decode only the blocks that hold them: ``load_values_at``), else
        from the table read whole."""
        if name not in self.cache and self.solving:
            read = getattr(self.store, "load_values_at", None)
            if read is not None:
                row = self.store.require_table(self.g.name, name, f"table {self.table!r}",
                                               self.g.build_command(name))
                return read(row, slots)
        values = self.borrow(name)
        return values.result[slots], values.distance[slots]

    def __iter__(self):
        return iter(self.names)

    def __len__(self) -> int:
        return len(self.names)


# the tables a build keeps in memory for the tables still to build may take this share of its
# memory budget; beyond it, those read furthest ahead are dropped and read again when needed
# (a game's big tables that many later tables read, kept whole, may not fit: in the largest
# sets built they came to tens of GB)
CACHE_SHARE = 4


def trim_cache(g, cache: dict, ahead: list[str], limit: int | None) -> None:
    """Drop cached tables, the one next read furthest ahead first (never one the next table
    reads), until the cache holds at most ``limit // CACHE_SHARE`` bytes."""
    if limit is None:
        return
    sizes = {t: nbytes(v) for t, v in cache.items()}
    total = sum(sizes.values())
    if total <= limit // CACHE_SHARE:
        return
    first_use = {}
    for i, t in enumerate(ahead):
        for d in g.dependencies(t):
            first_use.setdefault(d, i)
    keep = set(g.dependencies(ahead[0])) if ahead else set()
    for t in sorted(cache, key=lambda t: -first_use.get(t, len(ahead))):
        if total <= limit // CACHE_SHARE:
            break
        if t not in keep:
            total -= sizes[t]
            del cache[t]


def settle(writer: TableWriter, summary: BuildSummary, cache: dict) -> None:
    """Give back what the previous table's write and the cache hold (a solve asks, rather
    than take a slower mode beside them)."""
    cache.clear()
    writer.settle(summary)
    release_freed_memory()


def cache_bytes(cache: dict) -> int:
    return sum(nbytes(v) for v in cache.values())


def nbytes(value) -> int:
    """The bytes of the arrays a cached table holds (its fields' arrays, one level down)."""
    import numpy as np
    fields = vars(value).values() if hasattr(value, "__dict__") else ()
    return sum(f.nbytes for f in fields if isinstance(f, np.ndarray))


class TableWriter:
    """Commits each solved table on a second connection while the next table solves, so the
    store's share of a table (Arrow load, commit, fsync) overlaps the solve.  One table waits at
    most, so memory holds at most two solved tables; its errors surface at the next call."""

    def __init__(self, store: Store):
        self.store = store.sibling()
        self.pool = ThreadPoolExecutor(1, thread_name_prefix="tbdb-writer")
        self.pending: Future | None = None
        self.held = 0

    def write(self, summary: BuildSummary, game: str, table: str, data, seconds: float,
              next_table: str | None) -> None:
        self.wait(summary)
        self.pending = self.pool.submit(self.store.write_table, game, table, data, seconds,
                                        next_table)
        # its values, and what the write itself holds at its peak
        self.held = nbytes(data.values) + self.store.write_bytes(data)

    def wait(self, summary: BuildSummary) -> None:
        if self.pending is not None:
            pending, self.pending = self.pending, None
            summary.rows += pending.result()

    def holding(self) -> int:
        """The bytes of the arrays of the table being written (0 if none)."""
        return self.held if self.pending is not None else 0

    def settle(self, summary: BuildSummary) -> None:
        """Wait for the write in flight and give the memory it held back to the system (the
        next table's solve asks, rather than take a slower mode beside it)."""
        if self.pending is not None:
            self.wait(summary)
            release_freed_memory()

    def close(self) -> None:
        """Let a write in flight finish (an error on the way out is not the one to report)
        before the connections close."""
        if self.pending is not None:
            wait([self.pending])
        self.pool.shutdown()
        self.store.close()
