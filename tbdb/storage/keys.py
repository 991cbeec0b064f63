"""Key storage: exact keys (two int64 words and a constraint) sorted per level in
``tb_key_values``, for games whose positions have no dense index.  Levels
are solved, stored and checkpointed one at a time; builds may share one table's rows
(``Game.shared_table``, ``tbdb.storage.shared_levels``)."""
from __future__ import annotations

import numpy as np

from tbdb.storage.base import RowMissing, StoredTable, WdlStorage, check_filled


class KeyTable(StoredTable):
    def _load(self) -> None:
        from tbdb.solvers.retrograde import keys as kernels
        self.kernels = kernels
        self.keys, self.result, self.distance, self.best, _, _ = \
            self.storage.load_rows(self.store, self.id)

    def probe(self, key, plies=None):
        if not self.loaded:
            return self.storage.read_row(self.store, self.id, key)
        i = self.kernels.find_key(self.keys, np.asarray(key[:3], np.int64))
        if i < 0:
            return None
        return int(self.result[i]), int(self.distance[i]), int(self.best[i])

    def find(self, keys: np.ndarray) -> np.ndarray:
        """Where each key row int64[m, 3] is (-1: not here)."""
        return self.kernels.find_keys(self.keys, keys)

    def gather(self, keys, plies):
        at = self.find(keys)
        if (at < 0).any():
            bad = int(np.argmax(at < 0))
            raise RowMissing(bad, keys[bad].tolist())
        res = self.result[at]
        check_filled(res, at)
        return res, self.distance[at], self.best[at]


class KeyStorage(WdlStorage):
    name = "key"
    values = "tb_key_values"
    order = "key0"
    key_sql = "[key0, key1, key_constraint]"
    by_levels = True
    table_type = KeyTable

    def solve(self, game, table, deps, mode, progress, store=None, fresh=False):
        """Level by level into ``store``: levels already stored are read back, the others
        solved from the lowest up, each stored and checkpointed as soon as it is solved (a
        build killed mid-table resumes at the next level)."""
        import time

        from tbdb.retrograde import driver
        if store is None:
            raise ValueError(f"{game.name} table {table!r}: key tables are solved a level at a "
                             f"time into a store")
        if fresh:
            store.forget_levels(game.name, table)
        table_id = store.begin_key_table(game.name, table)
        space = game.space(table, deps)
        levels = driver.enumerate_levels(space, progress)
        done = store.levels_done(game.name, table)

        def solved(level):
            if done.get(level) != len(levels[level]):
                return None
            keys, result, distance, best, _, _ = store.load_keys(table_id, level)
            return driver.LevelValues(level, np.ascontiguousarray(keys[:, :2]), result,
                                      distance, best)

        def store_level(values):
            t0 = time.perf_counter()
            constraints, multiplicity = game.key_columns(table, values.keys)
            store.write_level(game.name, table, table_id, values, constraints, multiplicity,
                              time.perf_counter() - t0)

        out = driver.solve_levels(space, levels, solved=solved, done=store_level,
                                  progress=progress)
        return game.describe(table, [out[lv] for lv in sorted(out)])

    def verify(self, game, table, values, deps):
        from tbdb.retrograde import driver
        return driver.check_levels(game.space(table, deps), values,
                                   lambda key: game.slot_text(table, key),
                                   lambda keys: game.key_columns(table, keys))

    def write(self, store, game, table, data, values_file=None):
        # levels were stored as they were solved; only the catalogue row is replaced
        old, new = store.table_ids(game, table)
        table_id = old if old is not None else new
        store.con.execute("DELETE FROM tb_stats WHERE table_id = ?", [table_id])
        store.con.execute("DELETE FROM tb_tables WHERE table_id = ?", [table_id])
        (rows,), = store.query("SELECT count(*) FROM tb_key_values WHERE table_id = ?",
                               [table_id])
        return table_id, rows

    def row_count(self, data) -> int:
        return sum(len(v.keys) for v in data.values)

    def shared_table(self, game, table):
        return game.shared_table(table)

    def load(self, store, row):
        return levels_of(self.load_rows(store, row["table_id"]))

    def load_rows(self, store, table_id: int, level: int | None = None):
        """A key table's rows (all levels, or one), sorted by key: (keys int64[n, 3] with the
        constraint last, result, distance, best move, multiplicity, level)."""
        where = "table_id = ?" + (" AND level = ?" if level is not None else "")
        args = [table_id] + ([level] if level is not None else [])
        cols = store.con.execute(
            f"SELECT key0, key1, key_constraint, result, distance, best_move, multiplicity, "
            f"level FROM tb_key_values WHERE {where} ORDER BY key0, key1, key_constraint",
            args).fetchnumpy()
        keys = np.stack([np.asarray(cols[c], np.int64)
                         for c in ("key0", "key1", "key_constraint")], axis=1) \
            if len(cols["key0"]) else np.zeros((0, 3), np.int64)
        twice = np.flatnonzero((keys[1:] == keys[:-1]).all(axis=1))  # sorted: twins are adjacent
        if len(twice):
            raise store.damaged_table(table_id, f"{len(twice)} keys stored twice, e.g. key "
                                           f"{tuple(int(k) for k in keys[twice[0]])}")
        return (keys, np.asarray(cols["result"], np.int8), np.asarray(cols["distance"], np.int16),
                np.asarray(cols["best_move"], np.int32),
                np.asarray(cols["multiplicity"], np.int16), np.asarray(cols["level"], np.int16))

    def read_row(self, store, table_id: int, key) -> tuple[int, int, int] | None:
        rows = store.query("SELECT result, distance, best_move FROM tb_key_values WHERE "
                           "table_id = ? AND key0 = ? AND key1 = ? AND key_constraint = ?",
                           [table_id, int(key[0]), int(key[1]), int(key[2])])
        return rows[0] if rows else None

    def samples(self, game):
        return ("SELECT t.table_name, [v.key0, v.key1, v.key_constraint] FROM tb_key_values v "
                "JOIN tb_tables t USING (table_id) WHERE t.game = ? AND v.result = 1 "
                "ORDER BY v.distance DESC, t.table_name, v.key0, v.key1 LIMIT 4", [game.name])

    def tb_row(self) -> str:
        return ("SELECT t.game, t.table_name, NULL, v.key0, v.key1, v.result, v.distance, "
                "v.best_move, v.multiplicity, NULL\n"
                "FROM loc, tb_tables t JOIN tb_key_values v USING (table_id)\n"
                "WHERE t.game = game_name AND t.table_name = loc.w.table_name "
                "AND v.key0 = loc.w.key0\n  AND v.key1 = loc.w.key1")


def levels_of(stored) -> list:
    """A key table as read by ``KeyStorage.load_rows`` split into ``LevelValues`` per level."""
    from tbdb.retrograde.driver import LevelValues
    keys, result, distance, best, multiplicity, level = stored
    out = []
    for lv in np.unique(level):
        sel = level == lv
        out.append(LevelValues(int(lv), np.ascontiguousarray(keys[sel, :2]), result[sel],
                               distance[sel], best[sel], keys[sel, 2].astype(np.int16),
                               multiplicity[sel]))
    return out
