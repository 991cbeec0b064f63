"""The catalogue against the rows, in SQL: what ``tbdb verify`` checks before it re-derives any
value.  A value row duplicated or lost, a count in ``tb_tables`` or ``build_checkpoints`` that
disagrees with the rows, a table catalogued with no checkpoint (which verify would otherwise
skip without a word) or marked done with no catalogue row.  One grouped count per value table:
no Python loop per row, and no DISTINCT (the load checks each slot, key and run)."""
from __future__ import annotations

import os

from tbdb.db.store import Store

# value rows of each table id, in every table that stores values (tb_index_files: the tables
# whose values stay in a Parquet file; their rows are counted from the file's footer)
_COUNTS = """
SELECT table_id, count(*) FROM tb_index_rows WHERE table_id IN ({ids}) GROUP BY table_id
UNION ALL
SELECT table_id, count(*) FROM tb_key_values WHERE table_id IN ({ids}) GROUP BY table_id
UNION ALL
SELECT table_id, count(*) FROM tb_score_runs WHERE table_id IN ({ids}) GROUP BY table_id
"""


def catalogue_problems(store: Store, game: str) -> dict[str, list[str]]:
    """{table: [problem, ...]} for the tables of ``game`` whose catalogue row, checkpoint and
    value rows disagree (tables not built yet are left to the caller: their counts are not
    final)."""
    catalogue = {name: (table_id, positions) for table_id, name, positions in store.query(
        "SELECT table_id, table_name, positions FROM tb_tables WHERE game = ?", [game])}
    checkpoints = {name: (state, rows) for name, state, rows in store.query(
        "SELECT table_name, state, rows FROM build_checkpoints WHERE game = ?", [game])}
    stored = _stored_rows(store, [tid for tid, _ in catalogue.values()])
    out: dict[str, list[str]] = {}
    for name in sorted(set(catalogue) | set(checkpoints)):
        problems = []
        state, rows = checkpoints.get(name, (None, None))
        if name not in checkpoints:
            problems.append("catalogued in tb_tables but has no build_checkpoints row, so it "
                            "was not checked (rebuild it)")
        elif state == "done" and name not in catalogue:
            problems.append("marked done in build_checkpoints but has no tb_tables row")
        if name in catalogue and state in ("done", None):
            table_id, positions = catalogue[name]
            have = stored.get(table_id, 0)
            if have != positions:
                problems.append(f"holds {have:,} value rows, but tb_tables.positions says "
                                f"{positions:,}")
            if state == "done" and rows != positions:
                problems.append(f"build_checkpoints.rows is {rows}, but tb_tables.positions "
                                f"says {positions:,}")
        if problems:
            out[name] = problems
    return out


def _stored_rows(store: Store, table_ids: list[int]) -> dict[int, int]:
    if not table_ids:
        return {}
    ids = ", ".join(str(int(t)) for t in table_ids)
    counts: dict[int, int] = {}
    for table_id, n in store.query(_COUNTS.format(ids=ids)):
        counts[table_id] = counts.get(table_id, 0) + n
    for table_id, path in store.query(f"SELECT table_id, path FROM tb_index_files "
                                      f"WHERE table_id IN ({ids})"):
        if os.path.exists(path):  # a missing file: loading the table names it
            import pyarrow.parquet as pq
            counts[table_id] = counts.get(table_id, 0) + pq.ParquetFile(path).metadata.num_rows
    return counts
