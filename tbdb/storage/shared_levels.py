"""Level tables that several builds share: one key table (the *shared table*) holds the rows of
every build that names it (``Game.shared_table``), so a second build reuses what the first stored.

A build of table ``T`` into store ``S``:

* enumerates ``T``'s positions level by level from its roots; the keys of each level already in
  ``S`` are read back as known values and not expanded (``driver.enumerate_unsolved``);
* solves the other keys from the lowest level up, reading known keys as children's values, and
  adds each solved level to ``S`` with its statistics and ``T``'s level checkpoint in one
  transaction.  ``S`` only ever gains whole levels of solved positions whose children are in
  ``S``, so it is closed under moves at every commit: lookups may read it at any time, and a
  killed build run again finds its finished levels in ``S`` and resumes above them;
* ``T`` itself keeps a catalogue row with no value rows: its parameters, plus ``new_rows`` (the
  rows it added to ``S``, over all its runs) and ``reused_rows`` (the stored positions its last
  run reached and read back: a resumed run counts the levels it stored before among them).

A key never gets two rows in ``S``: a build adds only keys it did not find there.  A rebuild
(``fresh``) reuses nothing and replaces the rows of the keys it solves.

``S``'s catalogue counts and statistics are kept equal to ``Game.describe(S, all its rows)``,
level by level; this assumes (as ``describe`` does for UTTT) that every statistics row counts
positions of one level only, and rows of different levels differ in ``pieces``.
"""
from __future__ import annotations

import dataclasses
import datetime as dt
import json
import time
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from tbdb.retrograde import driver
from tbdb.games.base import StatRow
from tbdb.db.store import Store
from tbdb.storage.arrow_rows import level_table, stats_rows

KEY_SCHEMA = pa.schema([("key0", pa.int64()), ("key1", pa.int64())])


@dataclass
class SharedBuild:
    """What a build into a shared store did: the record's ``TableData``, rows it added and
    reached positions it found already stored."""
    data: object
    new_rows: int
    reused_rows: int


def stored_values(store: Store, store_id: int, level: int,
                  keys: np.ndarray) -> driver.LevelValues | None:
    """The stored values of those of ``keys`` (int64[n, 2]) that table ``store_id`` holds at
    ``level``, sorted by key (None if it holds none)."""
    if not len(keys):
        return None
    src = pa.table([pa.array(keys[:, 0]), pa.array(keys[:, 1])], schema=KEY_SCHEMA)
    store.con.register("_tbdb_find", src)
    try:
        cols = store.con.execute(
            "SELECT v.key0, v.key1, v.result, v.distance, v.best_move FROM tb_key_values v "
            "JOIN _tbdb_find s ON v.key0 = s.key0 AND v.key1 = s.key1 "
            "WHERE v.table_id = ? AND v.level = ? ORDER BY v.key0, v.key1",
            [store_id, level]).fetchnumpy()
    finally:
        store.con.unregister("_tbdb_find")
    if not len(cols["key0"]):
        return None
    found = np.stack([np.asarray(cols["key0"], np.int64), np.asarray(cols["key1"], np.int64)],
                     axis=1)
    return driver.LevelValues(level, np.ascontiguousarray(found),
                                  np.asarray(cols["result"], np.int8),
                                  np.asarray(cols["distance"], np.int16),
                                  np.asarray(cols["best_move"], np.int32))


def _stat_key(s: StatRow) -> tuple:
    return s.label, s.pieces, s.side_to_move


def _longest(a: int | None, b: int | None) -> int | None:
    return b if a is None else a if b is None else max(a, b)


def merge_stats(old: list[StatRow], new: list[StatRow]) -> list[StatRow]:
    """Statistics of two disjoint sets of positions added together (counts summed, longest
    distances the larger)."""
    out = {_stat_key(s): s for s in old}
    for s in new:
        o = out.get(_stat_key(s))
        out[_stat_key(s)] = s if o is None else dataclasses.replace(
            o, positions=o.positions + s.positions, wins=o.wins + s.wins, draws=o.draws + s.draws,
            losses=o.losses + s.losses, illegal=o.illegal + s.illegal,
            longest_win=_longest(o.longest_win, s.longest_win),
            longest_loss=_longest(o.longest_loss, s.longest_loss))
    return sorted(out.values(), key=lambda s: (-s.pieces, s.label, s.side_to_move))


def _read_stats(store: Store, table_id: int) -> list[StatRow]:
    rows = store.query("SELECT label, pieces, side_to_move, positions, wins, draws, losses, "
                       "illegal, longest_win, longest_loss FROM tb_stats WHERE table_id = ?",
                       [table_id])
    return [StatRow(*r) for r in rows]


class SharedLevels:
    """The writer of one build (record ``table``) into the shared store ``shared``."""

    def __init__(self, g, store: Store, table: str, shared: str):
        self.g, self.store, self.table, self.shared = g, store, table, shared
        store.plan(g.name, [shared])
        self.shared_id = store.begin_key_table(g.name, shared)

    def find(self, level: int, keys: np.ndarray) -> driver.LevelValues | None:
        return stored_values(self.store, self.shared_id, level, keys)

    def add_level(self, values: driver.LevelValues, replace: bool = False) -> None:
        """Store one solved level of the build in the shared table, with the table's updated
        counts and statistics and the build's level checkpoint, in one transaction.
        ``replace``: rows of the same keys may be stored already (a rebuild): they go."""
        g, store, sid = self.g, self.store, self.shared_id
        t0 = time.perf_counter()
        constraints, multiplicity = g.key_columns(self.table, values.keys)
        rows = level_table(sid, values, constraints, multiplicity)
        if replace:
            old = self.find(values.level, values.keys)
        added = g.describe(self.shared, [values])

        def work():
            if replace:
                before = g.describe(self.shared, [_level_values(
                    values.level, store.load_keys(sid, values.level))])
            if replace and old is not None:
                store.con.register("_tbdb_gone", pa.table(
                    [pa.array(old.keys[:, 0]), pa.array(old.keys[:, 1])], schema=KEY_SCHEMA))
                store.con.execute(
                    "DELETE FROM tb_key_values WHERE table_id = ? AND level = ? AND "
                    "(key0, key1) IN (SELECT (key0, key1) FROM _tbdb_gone)",
                    [sid, values.level])
                store.con.unregister("_tbdb_gone")
            store.insert_rows("INSERT INTO tb_key_values SELECT * FROM {src}", rows)
            if replace:  # the level's counts from its rows: the replaced rows may have differed
                after = g.describe(self.shared, [_level_values(
                    values.level, store.load_keys(sid, values.level))])
                self._replace_level(before, after)
            else:
                self._add(added)
            store.con.execute("DELETE FROM build_levels WHERE game = ? AND table_name = ? AND "
                              "level = ?", [g.name, self.table, values.level])
            store.con.execute("INSERT INTO build_levels VALUES (?, ?, ?, ?, ?, ?)",
                              [g.name, self.table, values.level, len(values.keys),
                               time.perf_counter() - t0, dt.datetime.now()])
        store._transaction(work)

    def _add(self, added) -> None:
        stats = merge_stats(_read_stats(self.store, self.shared_id), added.stats)
        self._write_catalogue(stats, [added.slots, added.raw_positions,
                                      added.positions_answered, added.fixed_positions,
                                      added.illegal])

    def _replace_level(self, before, after) -> None:
        """A rebuilt level: its statistics rows are those of all its rows now, and the counts
        change by the difference."""
        level = {s.pieces for s in before.stats} | {s.pieces for s in after.stats}
        kept = [s for s in _read_stats(self.store, self.shared_id) if s.pieces not in level]
        self._write_catalogue(kept + after.stats, [
            getattr(after, f) - getattr(before, f)
            for f in ("slots", "raw_positions", "positions_answered", "fixed_positions",
                      "illegal")])

    def _write_catalogue(self, stats: list[StatRow], more: list[int]) -> None:
        """Statistics rows replaced by ``stats``; slots (= rows), raw positions, positions
        answered, fixed positions and illegal increased by ``more``; the store marked done."""
        store, sid = self.store, self.shared_id
        store.con.execute("DELETE FROM tb_stats WHERE table_id = ?", [sid])
        if stats:
            store.insert_rows("INSERT INTO tb_stats SELECT * FROM {src}",
                          stats_rows(sid, merge_stats([], stats)))
        slots, raw, answered, fixed, illegal = (int(x) for x in more)
        store.con.execute(
            "UPDATE tb_tables SET slots = slots + ?, positions = positions + ?, "
            "raw_positions = raw_positions + ?, positions_answered = positions_answered + ?, "
            "fixed_positions = fixed_positions + ?, illegal = illegal + ?, mode = 'levels', "
            "params = ?, built = ? WHERE table_id = ?",
            [slots, slots, raw, answered, fixed, illegal, self._params(), dt.datetime.now(),
             sid])
        (rows,), = store.query("SELECT positions FROM tb_tables WHERE table_id = ?", [sid])
        store.con.execute(
            "UPDATE build_checkpoints SET state = 'done', rows = ?, finished = ? WHERE game = ? "
            "AND table_name = ?", [rows, dt.datetime.now(), self.g.name, self.shared])

    def _params(self) -> str:
        return json.dumps(self.g.describe(self.shared, []).params, sort_keys=True)


def _level_values(level: int, stored) -> driver.LevelValues:
    keys, result, distance, best, _, _ = stored
    return driver.LevelValues(level, np.ascontiguousarray(keys[:, :2]), result, distance,
                                  best)


def solve_into(g, store: Store, table: str, shared: str, deps: dict, fresh: bool) -> SharedBuild:
    """Build ``table`` into the shared store ``shared`` (see the module docstring); returns the
    record's ``TableData`` (no rows of its own) and the counts."""
    if fresh:
        store.forget_levels(g.name, table)
    writer = SharedLevels(g, store, table, shared)
    space = g.space(table, deps)
    levels, known = driver.enumerate_unsolved(space, None if fresh else writer.find)
    out = driver.solve_levels(space, levels, known=known,
                                  done=lambda v: writer.add_level(v, replace=fresh))
    new = sum(len(v.keys) for v in out.values())
    reused = sum(len(v.keys) for v in known.values())
    data = g.describe(table, [])
    # new_rows: every row the build added, in this run and in runs that were interrupted (a
    # resumed run reads the levels it stored before as reused)
    data.params = {**data.params, "store": shared, "reused_rows": reused,
                   "new_rows": sum(store.levels_done(g.name, table).values())}
    return SharedBuild(data, new, reused)
