"""Solved tables as rows: the Arrow tables and batch streams the store bulk-loads.

Values stream in batches of ``BATCH`` slots (or runs), so a table of 10^9 positions never
exists as whole Arrow columns next to its arrays.
"""
from __future__ import annotations

import datetime as dt
import json
from typing import Iterator

import numpy as np
import pyarrow as pa

from tbdb.solvers.retrograde import NONE

BATCH = 1 << 20

INDEX_SCHEMA = pa.schema([("table_id", pa.int32()), ("idx", pa.int64()), ("result", pa.int8()),
                          ("distance", pa.int16()), ("best_move", pa.int32()),
                          ("multiplicity", pa.int16())])
RUNS_SCHEMA = pa.schema([("table_id", pa.int32()), ("idx", pa.int64()),
                         ("turns_left_from", pa.int16()), ("turns_left_to", pa.int16()),
                         ("score", pa.int16()), ("best_move", pa.int32())])
TEXT_SCHEMA = pa.schema([("layout", pa.string()), ("idx", pa.int64()), ("text", pa.string())])


def _index_batches(table_id: int, values) -> Iterator[pa.RecordBatch]:
    size = len(values.result)
    for lo in range(0, size, BATCH):
        hi = min(size, lo + BATCH)
        at = np.flatnonzero(values.result[lo:hi] != NONE)
        sel = lo + at
        yield pa.record_batch([
            pa.array(np.full(len(sel), table_id, np.int32)), pa.array(sel.astype(np.int64)),
            pa.array(values.result[sel]), pa.array(values.distance[sel]),
            pa.array(values.best[sel].astype(np.int32)), pa.array(values.multiplicity[sel])],
            schema=INDEX_SCHEMA)


def _run_batches(table_id: int, runs) -> Iterator[pa.RecordBatch]:
    off = runs.offsets
    n = len(off) - 1
    for lo in range(0, n, BATCH):
        hi = min(n, lo + BATCH)
        a, b = off[lo], off[hi]
        idx = np.repeat(np.arange(lo, hi, dtype=np.int64), np.diff(off[lo:hi + 1]))
        to = np.empty(b - a, np.int16)
        to[:-1] = runs.start[a + 1:b] - 1
        to[off[lo + 1:hi + 1] - 1 - a] = runs.horizon  # the last run of a position
        yield pa.record_batch([
            pa.array(np.full(b - a, table_id, np.int32)), pa.array(idx),
            pa.array(runs.start[a:b]), pa.array(to), pa.array(runs.score[a:b].astype(np.int16)),
            pa.array(runs.move[a:b].astype(np.int32))], schema=RUNS_SCHEMA)


def value_streams(table_id: int, data) -> list[tuple[str, object]]:
    """(INSERT statement reading {src}, Arrow stream) pairs of a table's values."""
    if data.storage == "index":
        stream = pa.RecordBatchReader.from_batches(INDEX_SCHEMA, _index_batches(table_id,
                                                                                data.values))
        return [("INSERT INTO tb_index_rows SELECT * FROM {src}", stream)]
    if data.storage == "runs":
        stream = pa.RecordBatchReader.from_batches(RUNS_SCHEMA, _run_batches(table_id,
                                                                             data.values))
        return [("INSERT INTO tb_score_runs SELECT * FROM {src}", stream)]
    raise ValueError(f"unknown storage {data.storage!r}")


def row_count(data) -> int:
    if data.storage == "index":  # by chunks: no whole-table mask beside a 10^9-slot table
        result = data.values.result
        return sum(int(np.count_nonzero(result[lo:lo + BATCH] != NONE))
                   for lo in range(0, len(result), BATCH))
    if data.storage == "runs":
        return int(data.values.offsets[-1])
    return sum(len(v.keys) for v in data.values)


def catalogue_row(table_id: int, game: str, table: str, data, rows: int,
                  seconds: float) -> pa.Table:
    return pa.table({
        "table_id": pa.array([table_id], pa.int32()), "game": [game], "table_name": [table],
        "storage": [data.storage], "params": [json.dumps(data.params, sort_keys=True)],
        "layout": pa.array([data.layout], pa.string()),
        "slots": pa.array([data.slots], pa.int64()), "positions": pa.array([rows], pa.int64()),
        "raw_positions": pa.array([data.raw_positions], pa.int64()),
        "positions_answered": pa.array([data.positions_answered], pa.int64()),
        "fixed_positions": pa.array([data.fixed_positions], pa.int64()),
        "illegal": pa.array([data.illegal], pa.int64()), "mode": [data.mode],
        "seconds": pa.array([float(seconds)], pa.float64()), "built": [dt.datetime.now()]})


def placeholder_row(table_id: int, game: str, table: str) -> pa.Table:
    """The catalogue row of a level-by-level table while its levels are being stored."""
    from tbdb.games.base import TableData
    data = TableData("key", None, {}, [], 0, 0, 0, mode="building")
    return catalogue_row(table_id, game, table, data, 0, 0.0)


def stats_rows(table_id: int, stats) -> pa.Table:
    return pa.table({
        "table_id": pa.array([table_id] * len(stats), pa.int32()),
        "label": [s.label for s in stats],
        "pieces": pa.array([s.pieces for s in stats], pa.int16()),
        "side_to_move": [s.side_to_move for s in stats],
        **{c: pa.array([int(getattr(s, c)) for s in stats], pa.int64())
           for c in ("positions", "wins", "draws", "losses", "illegal")},
        "longest_win": pa.array([s.longest_win for s in stats], pa.int16()),
        "longest_loss": pa.array([s.longest_loss for s in stats], pa.int16()),
    })


def level_table(table_id: int, values, constraints, multiplicity) -> pa.Table:
    n = len(values.keys)
    return pa.table({
        "table_id": pa.array(np.full(n, table_id, np.int32)),
        "level": pa.array(np.full(n, values.level, np.int16)),
        "key0": pa.array(values.keys[:, 0]), "key1": pa.array(values.keys[:, 1]),
        "key_constraint": pa.array(np.asarray(constraints, np.int16)),
        "result": pa.array(values.result), "distance": pa.array(values.distance),
        "best_move": pa.array(values.best.astype(np.int32)),
        "multiplicity": pa.array(np.asarray(multiplicity, np.int16))})


def text_stream(layout: str, texts) -> pa.RecordBatchReader:
    def batches():
        for idx, text in texts():
            yield pa.record_batch([pa.array([layout] * len(idx), pa.string()),
                                   pa.array(np.asarray(idx, np.int64)), pa.array(text)],
                                  schema=TEXT_SCHEMA)
    return pa.RecordBatchReader.from_batches(TEXT_SCHEMA, batches())
