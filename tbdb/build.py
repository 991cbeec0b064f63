"""The build driver: plan tables -> solve -> bulk-load -> checkpoint, resuming where it stopped.

Every table is written with its 'done' checkpoint in one transaction, so an interrupted build
(Ctrl-C or kill -9) leaves complete tables and at most one 'building' row; running the same
build again skips the done tables and rebuilds the rest.
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass, field

from tbdb import games
from tbdb.progress import Progress
from tbdb.store import Store, default_db_path


@dataclass
class BuildSummary:
    game: str
    db: str
    tables: int
    built: list[str] = field(default_factory=list)
    skipped: int = 0
    rows: int = 0
    seconds: float = 0.0

    def __str__(self) -> str:
        size = os.path.getsize(self.db) / 1e6 if os.path.exists(self.db) else 0.0
        return (f"{self.game}: {self.tables} tables in {self.db!r} ({size:.1f} MB): "
                f"{len(self.built)} built ({self.rows:,} rows) in {self.seconds:.1f}s, "
                f"{self.skipped} already done")


def _dependencies(g, table: str, store: Store, cache: dict) -> dict:
    """The solved tables ``table`` reads, from ``cache`` or else loaded (and cached)."""
    deps = {}
    for d in g.dependencies(table):
        if d not in cache:
            cache[d] = g.load(d, store)
        deps[d] = cache[d]
    return deps


def build(game: str, db: str | None = None, *, progress: bool = True, **options) -> BuildSummary:
    """Build the tables of ``game`` that ``options`` select into ``db`` (default: $TBDB_DB or
    ./tbdb.duckdb).  Options are the game's (``max_pieces``, ``material``; ``max_seeds``);
    bad options raise before the database is touched."""
    g = games.get(game)
    tables = g.plan(**options)
    path = str(db) if db is not None else default_db_path()
    start = time.perf_counter()
    with Store(path) as store:
        store.plan(game, tables)
        states = store.states(game)
        todo = [t for t in tables if states.get(t) != "done"]
        summary = BuildSummary(game, path, len(tables), skipped=len(tables) - len(todo))
        # keep in memory only what a table still to build reads
        needed: dict[str, int] = {}
        for t in todo:
            for d in g.dependencies(t):
                needed[d] = needed.get(d, 0) + 1
        cache: dict[str, object] = {}
        bar = Progress(len(tables), f"{game} tables", enabled=progress,
                       initial=summary.skipped)
        try:
            for t in todo:
                deps = _dependencies(g, t, store, cache)
                store.mark_building(game, t)
                t0 = time.perf_counter()
                solved = g.solve(t, deps)
                loads, rows = g.rows(solved, store)
                store.write_table(game, t, g.deletes(t), loads, rows, time.perf_counter() - t0)
                summary.built.append(t)
                summary.rows += rows
                if needed.get(t):
                    cache[t] = solved
                for d in deps:
                    needed[d] -= 1
                    if needed[d] == 0:
                        cache.pop(d, None)
                bar.update(1, t)
        finally:
            bar.close()
    summary.seconds = time.perf_counter() - start
    return summary


def verify(db: str | None = None, game: str | None = None, *, progress: bool = True):
    """Re-derive every stored value from its children; returns {table: (bad count, examples)}
    for the tables with inconsistencies (empty when all is well)."""
    path = str(db) if db is not None else default_db_path()
    problems: dict[str, tuple[int, list[str]]] = {}
    with Store(path, read_only=True) as store:
        names = [game] if game else games.names()
        for name in names:
            g = games.get(name)
            done = [t for t, s in store.states(name).items() if s == "done"]
            order = sorted(done, key=lambda t: (len(g.dependencies(t)), t))
            bar = Progress(len(order), f"verify {name}", enabled=progress)
            cache: dict[str, object] = {}
            try:
                for t in order:
                    solved = cache.get(t) or g.load(t, store)
                    deps = _dependencies(g, t, store, cache)
                    examples, bad = g.verify(t, solved, deps)
                    if bad:
                        problems[f"{name}:{t}"] = (bad, examples)
                    bar.update(1, t)
            finally:
                bar.close()
    return problems
