"""A stored index table too big to read back whole, in the form ``tbdb verify`` checks it: its
values packed as compact's state words (1 byte a slot while distances fit 125 plies, else 2)
and its best moves and multiplicities read a chunk of slots at a time.  Reading 5x5-6's
2.4·10^9 slots whole took 9 bytes a slot (21.7 GB); packed, 1-2.

The rows are stored in slot order (a table is written chunk by chunk, in order), so a chunk's
query reads only the row groups whose idx range meets it (DuckDB's and Parquet's min/max
statistics).
"""
from __future__ import annotations

import numpy as np

from tbdb.db.values_files import arrow_batches

# rows per batch while the values are packed
PACK_BATCH_ROWS = 1 << 20


class PackedIndexValues:
    """An index table's stored values: ``state`` (compact's state words, largest ``word``) and
    ``chunks`` like ``engine.IndexValues.chunks``; ``result``, ``distance``, ``best`` and
    ``multiplicity`` are the whole arrays, made on first use (a reader that needs them)."""

    mode = ""
    estimate = None

    def __init__(self, store, table_id: int, slots: int):
        from tbdb.retrograde.compact import NARROW, WIDE
        from tbdb.solvers.retrograde import compact as cp
        self.store, self.table_id, self.slots = store, table_id, slots
        self.file = store.checked_file(table_id)
        name = store.table_label(table_id)  # for a damage report: not while the rows stream
        (longest,) = store.query("SELECT max(distance) FROM tb_index_values WHERE table_id = ? "
                                 "AND result IN (-1, 1)", [table_id])[0]
        self.word = NARROW if longest is None or longest <= cp.limit(NARROW) else WIDE
        self.state = np.full(slots, self.word, np.uint8 if self.word == NARROW else np.uint16)
        rows = 0
        for batch in self._batches(("idx", "result", "distance"), PACK_BATCH_ROWS):
            at = batch.column("idx").to_numpy()
            if len(at) and (at.min() < 0 or at.max() >= slots):
                bad = int(at[(at < 0) | (at >= slots)][0])
                raise store.damaged_table(
                    table_id, f"a row at idx {bad}, outside its {slots} slots", name)
            codes = np.empty(len(at), self.state.dtype)
            cp.cp_pack(batch.column("result").to_numpy(), batch.column("distance").to_numpy(),
                       0, self.word, codes)
            self.state[at] = codes
            rows += len(at)
        filled = sum(int(np.count_nonzero(self.state[lo:lo + PACK_BATCH_ROWS] != self.word))
                     for lo in range(0, slots, PACK_BATCH_ROWS))
        if filled != rows:
            raise store.damaged_table(table_id, f"{rows} rows for {filled} slots (a slot stored "
                                                f"twice, or a row with no value)", name)
        self._whole = None

    def _batches(self, columns, rows: int, lo: int | None = None, hi: int | None = None):
        if self.file is not None:
            import pyarrow.parquet as pq
            if lo is None:
                return pq.ParquetFile(self.file.path).iter_batches(batch_size=rows,
                                                                   columns=list(columns))
            return pq.read_table(self.file.path, columns=list(columns),
                                 filters=[("idx", ">=", lo), ("idx", "<", hi)]).to_batches()
        where = "" if lo is None else " AND idx >= $lo AND idx < $hi"
        params = {"t": self.table_id} | ({} if lo is None else {"lo": lo, "hi": hi})
        return arrow_batches(self.store.con.sql(
            f"SELECT {', '.join(columns)} FROM tb_index_rows WHERE table_id = $t{where}",
            params=params), rows)

    @property
    def size(self) -> int:
        return self.slots

    def chunks(self, step: int, best: bool = True):
        """(lo, result, distance, best or None, multiplicity) of slots lo..lo+step, in order."""
        from tbdb.solvers.retrograde import NO_MOVE
        from tbdb.solvers.retrograde import compact as cp
        for lo in range(0, self.slots, step):
            hi = min(self.slots, lo + step)
            result, distance = np.empty(hi - lo, np.int8), np.empty(hi - lo, np.int16)
            cp.cp_unpack(self.state, lo, self.word, result, distance)
            moves = np.full(hi - lo, NO_MOVE, np.int32) if best else None
            multiplicity = np.zeros(hi - lo, np.int16)
            columns = ("idx", "best_move", "multiplicity") if best else ("idx", "multiplicity")
            for batch in self._batches(columns, step, lo, hi):
                at = batch.column("idx").to_numpy() - lo
                multiplicity[at] = batch.column("multiplicity").to_numpy()
                if best:
                    moves[at] = batch.column("best_move").to_numpy()
            yield lo, result, distance, moves, multiplicity

    def _arrays(self):
        if self._whole is None:
            self._whole = self.store.load_index(self.table_id, self.slots)
        return self._whole

    @property
    def result(self):
        return self._arrays().result

    @property
    def distance(self):
        return self._arrays().distance

    @property
    def best(self):
        return self._arrays().best

    @property
    def multiplicity(self):
        return self._arrays().multiplicity
