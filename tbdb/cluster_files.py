"""A solved table as files: values and statistics as Parquet, plus a JSON manifest holding the
catalogue data and each file's sha256.

The layout under the output directory ``DIR``::

    DIR/<game>/<table>.values.parquet   idx, result, distance, best_move, multiplicity
                                        (tb_index_values less table_id, which the database assigns)
    DIR/<game>/<table>.stats.parquet    the tb_stats rows (less table_id)
    DIR/<game>/<table>.json             the manifest, written last

Every file is written under a temporary name unique to its writer and renamed when complete;
the manifest goes last, so a table is complete exactly when its manifest exists, parses, and
names files whose size, sha256 and Parquet row count match it.  Anything else (a truncated
file, a bit flipped, a missing file) is incomplete: rebuilt, never read.
"""
from __future__ import annotations

import hashlib
import json
import os
import uuid
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from tbdb.solvers.retrograde import NONE

FORMAT = 1
VALUES_SCHEMA = pa.schema([("idx", pa.int64()), ("result", pa.int8()), ("distance", pa.int16()),
                           ("best_move", pa.int32()), ("multiplicity", pa.int16())])
BATCH = 1 << 20
# the catalogue columns of tb_tables a manifest carries (TableData attributes)
CATALOGUE = ("storage", "params", "slots", "raw_positions", "positions_answered",
             "fixed_positions", "illegal", "mode", "layout")
STAT_COLUMNS = ("label", "pieces", "side_to_move", "positions", "wins", "draws", "losses",
                "illegal", "longest_win", "longest_loss")


class ClusterFileError(ValueError):
    """A table's files under the output directory are missing, incomplete or corrupt."""


def _safe(name: str) -> str:
    """A table name as a file name: kept as it is when it is plain, else percent-quoted."""
    from urllib.parse import quote
    return quote(name, safe="-_.+=,")


@dataclass(frozen=True)
class TablePaths:
    """Where one table's files live."""
    manifest: Path
    values: Path
    stats: Path

    @classmethod
    def of(cls, out: str | os.PathLike, game: str, table: str) -> TablePaths:
        base = Path(out) / _safe(game)
        stem = _safe(table)
        return cls(base / f"{stem}.json", base / f"{stem}.values.parquet",
                   base / f"{stem}.stats.parquet")

    def all(self) -> tuple[Path, Path, Path]:
        return self.manifest, self.values, self.stats

    def remove(self) -> None:
        for p in self.all():  # manifest first: no longer complete
            try:
                p.unlink()
            except FileNotFoundError:
                pass


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 22), b""):
            h.update(chunk)
    return h.hexdigest()


def _tmp(path: Path) -> Path:
    return path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")


def _publish(tmp: Path, final: Path) -> None:
    with open(tmp, "rb") as f:
        os.fsync(f.fileno())
    os.replace(tmp, final)


def _value_batches(values):
    size = len(values.result)
    for lo in range(0, size, BATCH):
        hi = min(size, lo + BATCH)
        sel = lo + np.flatnonzero(values.result[lo:hi] != NONE)
        yield pa.record_batch([
            pa.array(sel.astype(np.int64)), pa.array(values.result[sel]),
            pa.array(values.distance[sel]), pa.array(values.best[sel].astype(np.int32)),
            pa.array(values.multiplicity[sel])], schema=VALUES_SCHEMA)


def _stats_table(stats) -> pa.Table:
    return pa.table({
        "label": pa.array([s.label for s in stats], pa.string()),
        "pieces": pa.array([s.pieces for s in stats], pa.int16()),
        "side_to_move": pa.array([s.side_to_move for s in stats], pa.string()),
        **{c: pa.array([int(getattr(s, c)) for s in stats], pa.int64())
           for c in ("positions", "wins", "draws", "losses", "illegal")},
        "longest_win": pa.array([s.longest_win for s in stats], pa.int16()),
        "longest_loss": pa.array([s.longest_loss for s in stats], pa.int16())})


def stat_tuples(stats) -> list[tuple]:
    """Statistics rows (``StatRow``) as sorted tuples, to compare with a stats file's."""
    return sorted(tuple(getattr(s, c) for c in STAT_COLUMNS) for s in stats)


def write_table_files(out, game: str, table: str, data, seconds: float) -> dict:
    """Write one solved index table (``TableData``) as files under ``out``; returns its
    manifest.  ``TBDB_CLUSTER_KILL_ONCE=table:marker`` (tests) kills this process with SIGKILL
    halfway through writing ``table`` the first time, as a worker dying mid-task would."""
    paths = TablePaths.of(out, game, table)
    paths.manifest.parent.mkdir(parents=True, exist_ok=True)
    rows = 0
    tmp = _tmp(paths.values)
    try:
        with pq.ParquetWriter(tmp, VALUES_SCHEMA, compression="zstd") as writer:
            for batch in _value_batches(data.values):
                rows += batch.num_rows
                writer.write_batch(batch)
                _maybe_die(table)
        _publish(tmp, paths.values)
        tmp = _tmp(paths.stats)
        pq.write_table(_stats_table(data.stats), tmp, compression="zstd")
        _publish(tmp, paths.stats)
    finally:
        if tmp.exists():
            tmp.unlink()
    manifest = {
        "format": FORMAT, "game": game, "table": table, "rows": rows, "seconds": seconds,
        "catalogue": {c: getattr(data, c) for c in CATALOGUE},
        "files": {kind: {"name": p.name, "bytes": p.stat().st_size, "sha256": sha256_of(p)}
                  for kind, p in (("values", paths.values), ("stats", paths.stats))}}
    tmp = _tmp(paths.manifest)
    tmp.write_text(json.dumps(manifest, indent=1, sort_keys=True))
    _publish(tmp, paths.manifest)
    return manifest


def _maybe_die(table: str) -> None:
    spec = os.environ.get("TBDB_CLUSTER_KILL_ONCE", "")
    name, _, marker = spec.partition(":")
    if name == table and marker and not os.path.exists(marker):
        Path(marker).write_text(str(os.getpid()))
        import signal
        os.kill(os.getpid(), signal.SIGKILL)


def verified_manifest(out, game: str, table: str) -> dict:
    """The manifest of a complete table whose files match it, else ``ClusterFileError``."""
    paths = TablePaths.of(out, game, table)
    try:
        manifest = json.loads(paths.manifest.read_text())
    except FileNotFoundError:
        raise ClusterFileError(f"{str(paths.manifest)!r}: no manifest (not built)") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise ClusterFileError(f"{str(paths.manifest)!r}: manifest does not parse ({exc})") \
            from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT or \
            manifest.get("game") != game or manifest.get("table") != table:
        raise ClusterFileError(f"{str(paths.manifest)!r}: not a format-{FORMAT} manifest of "
                               f"{game} table {table!r}")
    for kind, path in (("values", paths.values), ("stats", paths.stats)):
        want = manifest["files"][kind]
        if not path.exists():
            raise ClusterFileError(f"{str(path)!r}: missing")
        if path.stat().st_size != want["bytes"]:
            raise ClusterFileError(f"{str(path)!r}: {path.stat().st_size} bytes, manifest says "
                                   f"{want['bytes']} (truncated?)")
        if sha256_of(path) != want["sha256"]:
            raise ClusterFileError(f"{str(path)!r}: sha256 differs from the manifest's")
    if pq.read_metadata(paths.values).num_rows != manifest["rows"]:
        raise ClusterFileError(f"{str(paths.values)!r}: row count differs from the manifest's")
    return manifest


def complete(out, game: str, table: str) -> dict | None:
    """The verified manifest, or None when the table's files are not complete and valid."""
    try:
        return verified_manifest(out, game, table)
    except ClusterFileError:
        return None


def read_values(out, game: str, table: str, manifest: dict):
    """A table's values (``IndexValues`` over all its slots) from its verified files."""
    from tbdb.retrograde import IndexValues
    paths = TablePaths.of(out, game, table)
    cols = pq.read_table(paths.values)
    slots = int(manifest["catalogue"]["slots"])
    at = cols.column("idx").to_numpy()
    result = np.full(slots, NONE, np.int8)
    distance = np.zeros(slots, np.int16)
    best = np.full(slots, -1, np.int32)
    multiplicity = np.zeros(slots, np.int16)
    result[at] = cols.column("result").to_numpy()
    distance[at] = cols.column("distance").to_numpy()
    best[at] = cols.column("best_move").to_numpy()
    multiplicity[at] = cols.column("multiplicity").to_numpy()
    return IndexValues(result, distance, best, multiplicity,
                       mode=manifest["catalogue"].get("mode") or "")


def read_stats(out, game: str, table: str) -> list[tuple]:
    t = pq.read_table(TablePaths.of(out, game, table).stats).to_pylist()
    return sorted(tuple(r[c] for c in STAT_COLUMNS) for r in t)
