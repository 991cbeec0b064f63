"""Parquet values files: an index table's values kept outside the database (cluster builds
write them), recorded in ``tb_index_files`` with their sha256 and read through the view
``tb_index_values`` (``index_view_sql``)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa


@dataclass(frozen=True)
class ValuesFile:
    """A Parquet file that holds one index table's values outside the database: columns idx,
    result, distance, best_move, multiplicity (``tb_index_rows`` less table_id)."""
    path: str  # absolute
    rows: int
    bytes: int
    sha256: str

    def record(self, table_id: int) -> pa.Table:
        """Its ``tb_index_files`` row."""
        return pa.table({"table_id": pa.array([table_id], pa.int32()), "path": [self.path],
                         "rows": pa.array([self.rows], pa.int64()),
                         "bytes": pa.array([self.bytes], pa.int64()),
                         "sha256": [self.sha256]})

    def check(self, db: str, game: str | None, table: str | None) -> None:
        """Errors unless this is the values file of ``game`` table ``table`` of ``db`` as
        recorded, sha256 included: the database is untrusted input, and the file was hashed
        once by this process (``tbdb.db.untrusted.check_values_file``)."""
        from tbdb.db.untrusted import check_values_file
        check_values_file(self.path, self.bytes, self.sha256, db, game, table)

    def batches(self, rows: int):
        """Its rows as Arrow record batches of at most ``rows`` rows."""
        import pyarrow.parquet as pq
        return pq.ParquetFile(self.path).iter_batches(batch_size=rows)

    def value(self, idx: int) -> tuple[int, int, int] | None:
        import pyarrow.parquet as pq
        t = pq.read_table(self.path, columns=["result", "distance", "best_move"],
                          filters=[("idx", "==", idx)])
        return tuple(int(t.column(c)[0].as_py()) for c in t.column_names) if len(t) else None


def arrow_batches(relation, rows: int):
    """A DuckDB relation streamed as Arrow record batches of at most ``rows`` rows (a relation,
    not an executed cursor: DuckDB 2 copies a cursor's whole result first).  DuckDB 2 calls the
    relation's reader ``to_arrow_reader``, DuckDB 1 ``fetch_arrow_reader``."""
    reader = getattr(relation, "to_arrow_reader", None) or relation.fetch_arrow_reader
    return reader(rows)


def index_view_sql(paths: list[str]) -> str:
    """``CREATE OR REPLACE VIEW tb_index_values``: the stored rows and the rows of the Parquet
    files ``paths`` (``read_parquet`` takes its list of files as a constant)."""
    from tbdb.db.sql_files import statements
    from tbdb.db.untrusted import INDEX_VIEW_FILE
    sql, = statements(sql_dir_file(INDEX_VIEW_FILE))
    if paths:
        files = ", ".join("'" + p.replace("'", "''") + "'" for p in paths)
        sql += (
            "\nUNION ALL\n"
            "SELECT f.table_id, p.idx, CAST(p.result AS SMALLINT), p.distance, p.best_move, "
            "p.multiplicity\n"
            f"FROM read_parquet([{files}], filename = true) AS p\n"
            "JOIN tb_index_files AS f ON f.path = p.filename")
    return sql


def sql_dir_file(name: str) -> Path:
    from tbdb.db.sql_files import sql_dir
    return sql_dir() / name
