"""A solved table as files: values and statistics as Parquet, plus a JSON manifest holding the
catalogue data and each file's sha256.

The layout under the output directory ``DIR``::

    DIR/<game>/<table>.values.parquet   idx, result, distance, best_move, multiplicity
                                        (tb_index_values less table_id, which the database assigns)
    DIR/<game>/<table>.stats.parquet    the tb_stats rows (less table_id)
    DIR/<game>/<table>.json             the manifest, written last

``DIR`` is a local or shared directory, or an fsspec URL (``tbdb.cluster.fs``).  Every file is
written under a temporary name unique to its writer and renamed when complete;
the manifest goes last, so a table is complete exactly when its manifest exists, parses, and
names files whose size, sha256 and Parquet row count match it.  Anything else (a truncated
file, a bit flipped, a missing file) is incomplete: rebuilt, never read.
"""
from __future__ import annotations

import hashlib
import json
import os
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from tbdb import safe_json
from tbdb.cluster.fs import OutDir
from tbdb.db.untrusted import file_stem, values_file_parts
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


@dataclass(frozen=True)
class TablePaths:
    """Where one table's files live (paths within ``place``)."""
    place: OutDir
    manifest: str
    values: str
    stats: str

    @classmethod
    def of(cls, out: str | os.PathLike | OutDir, game: str, table: str) -> TablePaths:
        place = out if isinstance(out, OutDir) else OutDir.of(out)
        stem = file_stem(table)
        return cls(place, place.join(file_stem(game), f"{stem}.json"),
                   place.join(*values_file_parts(game, table)),
                   place.join(file_stem(game), f"{stem}.stats.parquet"))

    def all(self) -> tuple[str, str, str]:
        return self.manifest, self.values, self.stats

    def remove(self) -> None:
        for p in self.all():  # manifest first: no longer complete
            self.place.remove(p)

    def temporaries(self) -> list[str]:
        """Temporary files writers of these files left (killed mid-write)."""
        out = []
        for final in self.all():
            head, _, name = final.rpartition("/" if not self.place.local else os.sep)
            out += self.place.glob(f"{head}{'/' if not self.place.local else os.sep}"
                                   f".{name}.*.tmp")
        return out

    def show(self, path: str) -> str:
        return repr(self.place.display(path))


def sha256_of(place: OutDir, path: str) -> str:
    h = hashlib.sha256()
    with place.open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 22), b""):
            h.update(chunk)
    return h.hexdigest()


def _tmp(path: str) -> str:
    head, sep, name = path.replace(os.sep, "/").rpartition("/")
    tmp = f"{head}{sep}.{name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp"
    return tmp if os.sep == "/" else tmp.replace("/", os.sep)


def _value_batches(values):
    """A table's rows chunk by chunk (a compact solve's best moves are picked here)."""
    for lo, result, distance, best, multiplicity in values.chunks(BATCH):
        at = np.flatnonzero(result != NONE)
        yield pa.record_batch([
            pa.array(lo + at), pa.array(result[at]), pa.array(distance[at]),
            pa.array(best[at].astype(np.int32)),
            pa.array(multiplicity[at].astype(np.int16))], schema=VALUES_SCHEMA)


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


class _HashingWriter:
    """A binary file being written that hashes and counts what goes through it (one pass:
    the checksum costs no read back)."""

    def __init__(self, f):
        self.f = f
        self.sha = hashlib.sha256()
        self.bytes = 0
        self.closed = False

    def write(self, data) -> int:
        self.sha.update(data)
        self.bytes += len(data)
        return self.f.write(data)

    def tell(self) -> int:
        return self.bytes

    def flush(self) -> None:
        self.f.flush()

    def close(self) -> None:
        self.closed = True

    def writable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return False

    def readable(self) -> bool:
        return False


def write_table_files(out, game: str, table: str, data, seconds: float,
                      read_seconds: float = 0.0) -> dict:
    """Write one solved index table (``TableData``) as files under ``out`` (a directory or an
    fsspec URL); returns its manifest.  ``TBDB_CLUSTER_KILL_ONCE=table:marker`` (tests) kills
    this process with SIGKILL halfway through writing ``table`` the first time, as a worker
    dying mid-task would."""
    paths = TablePaths.of(out, game, table)
    place = paths.place
    place.makedirs(paths.manifest.rpartition("/" if not place.local else os.sep)[0])
    rows = 0
    t0 = time.perf_counter()
    tmp = _tmp(paths.values)
    try:
        with place.open(tmp, "wb") as f:
            h = _HashingWriter(f)
            with pq.ParquetWriter(h, VALUES_SCHEMA, compression="zstd") as writer:
                for batch in _value_batches(data.values):
                    rows += batch.num_rows
                    writer.write_batch(batch)
                    _maybe_die(table)
        values_bytes, values_sha = _written(place, tmp, h)
        place.publish(tmp, paths.values)
        tmp = _tmp(paths.stats)
        with place.open(tmp, "wb") as f:
            h = _HashingWriter(f)
            pq.write_table(_stats_table(data.stats), h, compression="zstd")
        stats_bytes, stats_sha = _written(place, tmp, h)
        place.publish(tmp, paths.stats)
    finally:
        place.remove(tmp)
    manifest = {
        "format": FORMAT, "game": game, "table": table, "rows": rows, "seconds": seconds,
        "read_seconds": read_seconds, "write_seconds": time.perf_counter() - t0,
        "catalogue": {c: getattr(data, c) for c in CATALOGUE},
        "files": {"values": {"name": _name(paths.values), "bytes": values_bytes,
                             "sha256": values_sha},
                  "stats": {"name": _name(paths.stats), "bytes": stats_bytes,
                            "sha256": stats_sha}}}
    tmp = _tmp(paths.manifest)
    try:
        with place.open(tmp, "wb") as f:
            f.write(json.dumps(manifest, indent=1, sort_keys=True).encode())
        place.publish(tmp, paths.manifest)
    finally:
        place.remove(tmp)
    return manifest


def _name(path: str) -> str:
    return path.replace(os.sep, "/").rpartition("/")[2]


def _written(place: OutDir, path: str, h: _HashingWriter) -> tuple[int, str]:
    """(bytes, sha256) of a file just written through ``h``, after checking that the storage
    holds as many bytes as went through it."""
    size = place.size(path)
    if size != h.bytes:
        raise ClusterFileError(f"{place.display(path)!r}: {size} bytes written, "
                               f"{h.bytes} sent: the storage lost some")
    return h.bytes, h.sha.hexdigest()


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
    place = paths.place
    try:
        with place.open(paths.manifest, "rb") as f:
            manifest = safe_json.loads(f.read())
    except FileNotFoundError:
        raise ClusterFileError(f"{paths.show(paths.manifest)}: no manifest (not built)") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise ClusterFileError(f"{paths.show(paths.manifest)}: manifest does not parse ({exc})") \
            from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT or \
            manifest.get("game") != game or manifest.get("table") != table:
        raise ClusterFileError(f"{paths.show(paths.manifest)}: not a format-{FORMAT} manifest "
                               f"of {game} table {table!r}")
    problem = _manifest_problem(manifest)
    if problem:
        raise ClusterFileError(f"{paths.show(paths.manifest)}: not a manifest tbdb writes "
                               f"({problem})")
    for kind, path in (("values", paths.values), ("stats", paths.stats)):
        want = manifest["files"][kind]
        size = place.size(path)
        if size is None:
            raise ClusterFileError(f"{paths.show(path)}: missing")
        if size != want["bytes"]:
            raise ClusterFileError(f"{paths.show(path)}: {size} bytes, manifest says "
                                   f"{want['bytes']} (truncated?)")
        if sha256_of(place, path) != want["sha256"]:
            raise ClusterFileError(f"{paths.show(path)}: sha256 differs from the manifest's")
    with place.open(paths.values, "rb") as f:
        if pq.read_metadata(f).num_rows != manifest["rows"]:
            raise ClusterFileError(f"{paths.show(paths.values)}: row count differs from the "
                                   f"manifest's")
    return manifest


def _count(v) -> bool:
    return type(v) is int and v >= 0  # not a bool, which is an int


def _manifest_problem(m: dict) -> str | None:
    """What in manifest ``m`` (format, game and table checked) is not as
    ``write_table_files`` writes it, or None: the readers index it on trust after this (a
    manifest without its files or catalogue came out of ``tbdb import`` as a KeyError)."""
    files = m.get("files")
    if not isinstance(files, dict):
        return "no files"
    for kind in ("values", "stats"):
        f = files.get(kind)
        if not isinstance(f, dict) or not _count(f.get("bytes")) or \
                not isinstance(f.get("sha256"), str):
            return f"no {kind} file with its bytes and sha256"
    if not _count(m.get("rows")):
        return "rows is not a count"
    if not isinstance(m.get("seconds"), (int, float)) or isinstance(m.get("seconds"), bool):
        return "seconds is not a number"
    cat = m.get("catalogue")
    if not isinstance(cat, dict) or sorted(cat) != sorted(CATALOGUE):
        return f"its catalogue is not {', '.join(CATALOGUE)}"
    if not isinstance(cat["params"], dict) or not _clusterable(cat["storage"]):
        return "its catalogue is not an index table's"
    for c in ("slots", "raw_positions", "positions_answered", "fixed_positions", "illegal"):
        if not _count(cat[c]):
            return f"its catalogue's {c} is not a count"
    if m["rows"] > cat["slots"]:
        return "more rows than slots"
    return None


def _clusterable(name) -> bool:
    """Whether ``name`` (a manifest's, untrusted) names a storage kind a cluster builds."""
    from tbdb.storage import KINDS
    kind = KINDS.get(name) if isinstance(name, str) else None
    return kind is not None and kind.clusterable


def complete(out, game: str, table: str) -> dict | None:
    """The verified manifest, or None when the table's files are not complete and valid."""
    try:
        return verified_manifest(out, game, table)
    except ClusterFileError:
        return None


def read_values(out, game: str, table: str, manifest: dict):
    """A table's values (``IndexValues`` over all its slots) from its verified files."""
    from tbdb.retrograde.driver import IndexValues
    paths = TablePaths.of(out, game, table)
    with paths.place.open(paths.values, "rb") as f:
        cols = pq.read_table(f)
    slots = manifest["catalogue"]["slots"]  # a count (``verified_manifest``)
    try:  # the file's columns as the schema has them; what does not fit is refused
        cols = cols.select(VALUES_SCHEMA.names).cast(VALUES_SCHEMA)
    except (KeyError, ValueError, pa.ArrowException) as exc:
        raise ClusterFileError(f"{paths.show(paths.values)}: not the values tbdb writes "
                               f"({str(exc).splitlines()[0]})") from None
    at = cols.column("idx").to_numpy()
    if len(at) and (at.min() < 0 or at.max() >= slots):  # (negative ones wrapped round)
        raise ClusterFileError(f"{paths.show(paths.values)}: slots {int(at.min())}.."
                               f"{int(at.max())} outside the table's {slots}")
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
    paths = TablePaths.of(out, game, table)
    with paths.place.open(paths.stats, "rb") as f:
        t = pq.read_table(f).to_pylist()
    return sorted(tuple(r[c] for c in STAT_COLUMNS) for r in t)
