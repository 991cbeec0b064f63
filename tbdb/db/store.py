"""The DuckDB store: ``Store`` is the open database a build writes and lookups read, made of
its concerns: opening and migrations (``tbdb.db.connect``), the catalogue and checkpoints
(``tbdb.db.catalogue``) and the values, which each storage kind writes and reads
(``tbdb.storage``).  Here: the transactions that write whole tables.

Every table is written with its catalogue row, statistics and 'done' checkpoint in one
transaction, so a build killed at any moment leaves whole tables only.
"""
from __future__ import annotations

import datetime as dt

import pyarrow as pa

from tbdb.db.catalogue import Catalogue
from tbdb.db.connect import Database
from tbdb.storage import INDEX, KEYS, RUNS, storage_of
from tbdb.storage import arrow_rows
from tbdb.db.values_files import ValuesFile


class Store(Catalogue, Database):
    """One open tbdb database file: see ``tbdb.db.connect`` for the two ways to open it."""

    write_beside_solve = True  # a table is committed while the next one solves

    def write_bytes(self, data) -> int:
        """The bytes a write holds beside the table's values at its peak (DuckDB's buffers
        and the Arrow batches)."""
        from tbdb.retrograde.budget import WRITE_BYTES
        return WRITE_BYTES

    def write_table(self, game: str, table: str, data, seconds: float,
                    next_table: str | None = None, values_file: ValuesFile | None = None) -> int:
        """Replace a table (catalogue row, statistics, values, texts) and mark it done, all in
        one transaction; ``next_table``, if given, is marked 'building' in the same
        transaction (one commit per table, and never two 'building' rows).  Returns the
        number of value rows.  ``values_file`` (index tables): the values stay in this Parquet
        file, which the database records and reads through the view ``tb_index_values``,
        instead of being copied in."""
        rows = [0]

        def work():
            table_id, rows[0] = storage_of(data).write(self, game, table, data, values_file)
            streamed = getattr(data.values, "stream_peak", 0)  # values made as they were written
            if streamed and data.peak_bytes is not None:
                data.peak_bytes = max(data.peak_bytes, streamed)
            self.insert_rows("INSERT INTO tb_tables SELECT * FROM {src}",
                         arrow_rows.catalogue_row(table_id, game, table, data, rows[0], seconds))
            if data.stats:
                self.insert_rows("INSERT INTO tb_stats SELECT * FROM {src}",
                             arrow_rows.stats_rows(table_id, data.stats))
            if data.layout and data.texts:
                known = self.query("SELECT 1 FROM tb_texts WHERE layout = ? LIMIT 1",
                                   [data.layout])
                if not known:
                    self.insert_rows("INSERT INTO tb_texts SELECT * FROM {src}",
                                 arrow_rows.text_stream(data.layout, data.texts))
            self.con.execute(
                "UPDATE build_checkpoints SET state = 'done', rows = ?, finished = ?, "
                "seconds = ? WHERE game = ? AND table_name = ?",
                [rows[0], dt.datetime.now(), seconds, game, table])
            if next_table is not None:
                self.mark_building(game, next_table)

        self._transaction(work)
        stored = getattr(data.values, "stored", None)
        if stored is not None:
            stored()  # e.g. a compact solve's saved state, kept until its rows are committed
        return rows[0]

    def copy_values_in(self, table_id: int, rows: pa.RecordBatchReader) -> None:
        """Store an index table's values, until now in its recorded Parquet file, in the
        database (``rows``: tb_index_rows batches) and forget the file: one transaction."""
        def work():
            self.insert_rows("INSERT INTO tb_index_rows SELECT * FROM {src}", rows)
            self.con.execute("DELETE FROM tb_index_files WHERE table_id = ?", [table_id])
            self.refresh_index_view()
        self._transaction(work)

    def begin_key_table(self, game: str, table: str) -> int:
        """The id under which a level-by-level table's levels are stored (kept across resumes:
        a placeholder catalogue row marks it until the table is done)."""
        old, new = self.table_ids(game, table)
        if old is not None:
            return old

        def work():
            self.insert_rows("INSERT INTO tb_tables SELECT * FROM {src}",
                         arrow_rows.placeholder_row(new, game, table))
        self._transaction(work)
        return new

    def write_level(self, game: str, table: str, table_id: int, values, constraints,
                    multiplicity, seconds: float) -> None:
        """Store one solved level of a key table and its checkpoint in one transaction."""

        def work():
            self.con.execute("DELETE FROM tb_key_values WHERE table_id = ? AND level = ?",
                             [table_id, values.level])
            self.con.execute("DELETE FROM build_levels WHERE game = ? AND table_name = ? AND "
                             "level = ?", [game, table, values.level])
            self.insert_rows("INSERT INTO tb_key_values SELECT * FROM {src}",
                         arrow_rows.level_table(table_id, values, constraints, multiplicity))
            self.con.execute("INSERT INTO build_levels VALUES (?, ?, ?, ?, ?, ?)",
                             [game, table, values.level, len(values.keys), seconds,
                              dt.datetime.now()])
        self._transaction(work)

    def forget_levels(self, game: str, table: str) -> None:
        """Drop a key table's stored levels (a rebuild from scratch)."""
        def work():
            old, _ = self.table_ids(game, table)
            if old is not None:
                self.delete_table(old)
            self.con.execute("DELETE FROM build_levels WHERE game = ? AND table_name = ?",
                             [game, table])
        self._transaction(work)

    # ------------------------------------------------------------------ values (the storage kinds)

    def load_index(self, table_id: int, slots: int):
        """An index table's values as arrays over its slots (``IndexStorage.load_values``)."""
        return INDEX.load_values(self, table_id, slots)

    def load_keys(self, table_id: int, level: int | None = None):
        """A key table's rows, sorted by key (``KeyStorage.load_rows``)."""
        return KEYS.load_rows(self, table_id, level)

    def load_runs(self, table_id: int, positions: int, horizon: int):
        """A score table's runs (``RunStorage.load_runs``)."""
        return RUNS.load_runs(self, table_id, positions, horizon)

    def open_table(self, row: dict, load: bool):
        """Catalogue row ``row``'s table as the prober holds it (``Storage.open``); a
        directory of probe files (``tbdb.probe_files.ProbeDir``) answers the same call."""
        return storage_of(row).open(self, row, load)

    def load_table(self, row: dict):
        """A built table's values (catalogue row ``row``) as builds read them back."""
        return storage_of(row).load(self, row)
