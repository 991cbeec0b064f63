"""Index storage: a dense index (the row number of a position in its table's index function)
keys each value; rows sit in ``tb_index_rows`` or in a Parquet values file the database records
(``tbdb.db.values_files``), read together through the view ``tb_index_values``."""
from __future__ import annotations

import numpy as np
import pyarrow as pa

import tbdb.storage.arrow_rows as arrow_rows
from tbdb.storage.base import StoredTable, WdlStorage, check_filled
from tbdb.db.values_files import arrow_batches

# rows per Arrow batch when an index table streams into its dense arrays (about 17 MB a batch)
LOAD_BATCH_ROWS = 1 << 20
# above this many slots a table is read back packed (``index_packed``: 1-2 bytes a slot, best
# moves and multiplicities a chunk at a time), not as whole arrays (9 bytes a slot)
WHOLE_LOAD_SLOTS = 1 << 28


class IndexTable(StoredTable):
    def _load(self) -> None:
        from tbdb.solvers.retrograde import NONE
        v = self.storage.load(self.store, self.row)
        self.none = int(NONE)
        self.result, self.distance, self.best = v.result, v.distance, v.best

    def probe(self, key, plies=None):
        if not self.loaded:
            return self.storage.read_row(self.store, self.id, key)
        r = self.result.item(key)  # .item: a Python int at once, not a NumPy scalar
        if r == self.none:
            return None
        return r, self.distance.item(key), self.best.item(key)

    def gather(self, keys, plies):
        res = self.result[keys]
        check_filled(res, keys)
        return res, self.distance[keys], self.best[keys]


class IndexStorage(WdlStorage):
    name = "index"
    fits_memory = True
    builds_probe_files = True
    values = "tb_index_values"
    order = "idx"
    key_sql = "idx"
    clusterable = True
    table_type = IndexTable

    def solve(self, game, table, deps, mode, progress, store=None, fresh=False):
        from tbdb.retrograde import driver
        return game.describe(table, driver.solve_index(game.space(table, deps), mode, progress))

    def verify(self, game, table, values, deps):
        from tbdb.retrograde import driver
        what = {1: "value", 2: "best move", 3: "kind or multiplicity"}
        examples, count = [], 0
        for lo, flags in driver.check_chunks(game.space(table, deps), values):
            idx = np.flatnonzero(flags)
            count += len(idx)
            examples += [f"{game.slot_text(table, lo + int(i))} ({what[int(flags[i])]})"
                         for i in idx[:10 - len(examples)]]
        return examples, count

    def write(self, store, game, table, data, values_file=None):
        if values_file is None:
            return super().write(store, game, table, data)
        old, new = store.table_ids(game, table)
        if old is not None:
            store.delete_table(old)
        store.insert_rows("INSERT INTO tb_index_files SELECT * FROM {src}", values_file.record(new))
        store.refresh_index_view()
        return new, values_file.rows

    def streams(self, table_id, data):
        stream = pa.RecordBatchReader.from_batches(arrow_rows.INDEX_SCHEMA,
                                                   _batches(table_id, data.values))
        return [("INSERT INTO tb_index_rows SELECT * FROM {src}", stream)]

    def row_count(self, data) -> int:
        from tbdb.solvers.retrograde import NONE
        # by chunks: no whole-table mask beside a 10^9-slot table
        return sum(int(np.count_nonzero(result != NONE))
                   for _, result, _, _, _ in data.values.chunks(arrow_rows.BATCH, best=False))

    def size(self, row):
        return row["slots"]

    def load(self, store, row):
        if row["slots"] > WHOLE_LOAD_SLOTS:
            from tbdb.storage.index_packed import PackedIndexValues
            return PackedIndexValues(store, row["table_id"], row["slots"])
        return self.load_values(store, row["table_id"], row["slots"])

    def load_values(self, store, table_id: int, slots: int):
        """An index table's values as arrays over its slots (NONE where no row).  The rows
        stream in batches into the dense arrays: reading them whole first held several times
        the arrays' 9 bytes per slot beside them."""
        from tbdb.retrograde.driver import IndexValues
        from tbdb.solvers.retrograde import NONE
        f = store.checked_file(table_id)
        name = store.table_label(table_id)  # for a damage report: not while the rows stream
        if f is not None:
            batches = f.batches(LOAD_BATCH_ROWS)
        else:
            batches = arrow_batches(store.con.sql(
                "SELECT idx, result, distance, best_move, multiplicity FROM tb_index_rows "
                "WHERE table_id = $table_id", params={"table_id": table_id}), LOAD_BATCH_ROWS)
        result = np.full(slots, NONE, np.int8)
        distance = np.zeros(slots, np.int16)
        best = np.full(slots, -1, np.int32)
        multiplicity = np.zeros(slots, np.int16)
        rows = 0
        for batch in batches:
            at = batch.column("idx").to_numpy()
            if len(at) and (at.min() < 0 or at.max() >= slots):
                # numpy would wrap a negative idx or raise IndexError past the end
                bad = int(at[(at < 0) | (at >= slots)][0])
                raise store.damaged_table(
                    table_id, f"a row at idx {bad}, outside its {slots} slots", name)
            rows += len(at)
            result[at] = batch.column("result").to_numpy()
            distance[at] = batch.column("distance").to_numpy()
            best[at] = batch.column("best_move").to_numpy()
            multiplicity[at] = batch.column("multiplicity").to_numpy()
        # a slot stored twice is silently overwritten above; count what is left, by chunks (no
        # whole-table mask beside a 10^9-slot table)
        filled = sum(int(np.count_nonzero(result[lo:lo + LOAD_BATCH_ROWS] != NONE))
                     for lo in range(0, slots, LOAD_BATCH_ROWS))
        if filled != rows:
            raise store.damaged_table(table_id, f"{rows} rows for {filled} slots (a slot stored "
                                           f"twice, or a row with no value)", name)
        return IndexValues(result, distance, best, multiplicity)

    def read_row(self, store, table_id: int, idx: int) -> tuple[int, int, int] | None:
        """(result, distance, best move) of one slot, straight from the file (large tables)."""
        f = store.checked_file(table_id)
        if f is not None:
            return f.value(int(idx))
        rows = store.query("SELECT result, distance, best_move FROM tb_index_rows "
                           "WHERE table_id = ? AND idx = ?", [table_id, int(idx)])
        return rows[0] if rows else None

    def samples(self, game):
        return ("SELECT t.table_name, v.idx FROM tb_index_values v JOIN tb_tables t USING "
                "(table_id) WHERE t.game = ? AND v.result = 1 "
                "ORDER BY v.distance DESC, t.table_name, v.idx LIMIT 4", [game.name])

    def tb_row(self) -> str:
        return ("SELECT t.game, t.table_name, v.idx, NULL::BIGINT AS key0, NULL::BIGINT AS key1, "
                "v.result, v.distance, v.best_move, v.multiplicity, NULL::INTEGER AS score\n"
                "FROM loc, tb_tables t JOIN tb_index_values v USING (table_id)\n"
                "WHERE t.game = game_name AND t.table_name = loc.w.table_name "
                "AND v.idx = loc.w.idx")


def _batches(table_id: int, values):
    """The rows of ``values`` (slots with a value) as Arrow batches, chunk by chunk (a compact
    solve's best moves are picked here, one chunk at a time)."""
    from tbdb.solvers.retrograde import NONE
    try:
        for lo, result, distance, best, multiplicity in values.chunks(arrow_rows.BATCH):
            at = np.flatnonzero(result != NONE)
            yield pa.record_batch([
                pa.array(np.full(len(at), table_id, np.int32)), pa.array(lo + at),
                pa.array(result[at]), pa.array(distance[at]),
                pa.array(best[at].astype(np.int32)),
                pa.array(multiplicity[at].astype(np.int16))],  # compact keeps int8
                schema=arrow_rows.INDEX_SCHEMA)
    finally:
        release = getattr(values, "release", None)
        if release is not None:
            release()
