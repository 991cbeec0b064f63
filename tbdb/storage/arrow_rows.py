"""Solved tables as rows: the Arrow schemas and tables the store bulk-loads (catalogue,
statistics, texts, key levels); each storage kind streams its own values (``tbdb.storage``).

Values stream in batches of ``BATCH`` slots (or runs), so a table of 10^9 positions never
exists as whole Arrow columns next to its arrays.
"""
from __future__ import annotations

import datetime as dt
import json

import numpy as np
import pyarrow as pa

BATCH = 1 << 20

INDEX_SCHEMA = pa.schema([("table_id", pa.int32()), ("idx", pa.int64()), ("result", pa.int8()),
                          ("distance", pa.int16()), ("best_move", pa.int32()),
                          ("multiplicity", pa.int16())])
RUNS_SCHEMA = pa.schema([("table_id", pa.int32()), ("idx", pa.int64()),
                         ("turns_left_from", pa.int16()), ("turns_left_to", pa.int16()),
                         ("score", pa.int16()), ("best_move", pa.int32())])
TEXT_SCHEMA = pa.schema([("layout", pa.string()), ("idx", pa.int64()), ("text", pa.string())])


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
        "seconds": pa.array([float(seconds)], pa.float64()), "built": [dt.datetime.now()],
        "estimate_bytes": pa.array([data.estimate_bytes], pa.int64()),
        "peak_bytes": pa.array([data.peak_bytes], pa.int64())})


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
