"""A directory of probe files and its ``manifest.json`` (``ProbeDir``: what ``tbdb.open(DIR)``
reads), ``tbdb export`` (``export``) and ``tbdb verify --db DIR`` (``verify_dir``)."""
from __future__ import annotations

import hashlib
import json
import os
import re
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from tbdb.errors import MissingTableError
from tbdb import safe_json
from tbdb.safe_files import (publish, remove_quietly, remove_stale_temporaries,
                              temporary_beside)
from tbdb.storage import StoredTable, storage_of
from tbdb.probe_files.format import ProbeFile, check_inside, meta_of, start_table
from tbdb.probe_files import native
from tbdb.probe_files.header import CHECK_ON_OPEN, MANIFEST, ProbeFileError, SUFFIX, VERSION
from tbdb.probe_files.streamed import (IndexRanges, bounded_reads, chunk_runs, chunk_slots,
                                       sample_slots, stream_slots, streamed, write_index_file)
from tbdb.probe_files.streamed_runs import write_runs_file
from tbdb.probe_files.direct import write_direct_file
from tbdb.probe_files.directory_lock import DirectoryLock
from tbdb.probe_files.tables import table_type


def file_name(game: str, table: str) -> str:
    """Where a table's file lies in a directory: ``<game>/<table>.tbp``, characters other than
    letters, digits and ``_.+-`` written ``%XX``."""
    safe = re.sub(r"[^A-Za-z0-9_.+-]", lambda m: "".join(f"%{b:02X}" for b in
                                                       m.group().encode()), table)
    return f"{game}/{safe}{SUFFIX}"


def sha256_file(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def read_manifest(path: str) -> dict:
    """The manifest of directory ``path`` (``ProbeFileError`` if missing or malformed)."""
    mpath = os.path.join(path, MANIFEST)
    try:
        check_inside(mpath, path, "manifest")
        with open(mpath, encoding="utf-8") as f:
            m = safe_json.loads(f.read())
    except FileNotFoundError:
        raise ProbeFileError(f"{path!r} is a directory without {MANIFEST}: not a directory of "
                             f"probe files (write one with: tbdb export --db DB --out "
                             f"{path})") from None
    except ProbeFileError:  # (a ValueError too) a link out, a FIFO: said as it is
        raise
    except (ValueError, UnicodeDecodeError) as exc:
        raise ProbeFileError(f"manifest {mpath!r} does not parse: {exc}") from None
    if not isinstance(m, dict) or m.get("format") != "tbdb-probe-files" \
            or not isinstance(m.get("files"), list):
        raise ProbeFileError(f"manifest {mpath!r} is not a tbdb probe-file manifest")
    if m.get("version") != VERSION:
        raise ProbeFileError(f"manifest {mpath!r} has format version {m.get('version')!r}; "
                             f"this tbdb reads version {VERSION}: export again")
    listed = set()
    for e in m["files"]:
        problem = _entry_problem(e)
        if problem:
            raise ProbeFileError(f"manifest {mpath!r} has a malformed entry ({problem}): "
                                 f"{e!r:.200}")
        if (e["game"], e["table"]) in listed:  # which one answers? (libtbprobe refuses too)
            raise ProbeFileError(f"manifest {mpath!r} lists table {e['table']!r} of "
                                 f"{e['game']} twice")
        listed.add((e["game"], e["table"]))
    return m


_TEXTS = ("game", "table", "sha256", "storage")  # the fields of an entry, by type
_COUNTS = ("size", "slots", "positions")


def _entry_problem(e) -> str | None:
    """What is wrong with manifest entry ``e`` as tbdb writes them, or None: every reader
    takes the fields' types on trust after this (a size written as text was compared with
    the file's and added up, and an entry that was a number raised a TypeError)."""
    if not isinstance(e, dict):
        return "not an object"
    missing = [k for k in ("path", *_TEXTS, *_COUNTS, "params") if k not in e]
    if missing:
        return f"no {missing[0]!r}"
    p = e["path"]
    if not isinstance(p, str) or not p or os.path.isabs(p) or ".." in p.split("/") \
            or "\x00" in p:
        return "a path outside the directory"
    for k in _TEXTS:
        if not isinstance(e[k], str):
            return f"{k!r} is not text"
    for k in _COUNTS:
        if type(e[k]) is not int or e[k] < 0:  # not bool, which is an int
            return f"{k!r} is not a count"
    if not isinstance(e["params"], dict):
        return "'params' is not an object"
    if not isinstance(e.get("moves", True), bool):
        return "'moves' is not true or false"
    return None


_DECODER: list = []


def _decoder() -> ThreadPoolExecutor:
    """The thread that decodes half of a large batch over many tables (``gather_index``)."""
    if not _DECODER:
        _DECODER.append(ThreadPoolExecutor(1, thread_name_prefix="tbdb-decode"))
    return _DECODER[0]


class ProbeDir:
    """A directory of probe files, as the prober sees a store: the catalogue rows come from
    the manifest, and each table's file is opened (mapped) on first use."""

    def __init__(self, path: str):
        self.path = str(path)
        self.manifest = read_manifest(self.path)
        self.entries = {(e["game"], e["table"]): e for e in self.manifest["files"]}
        self.numbers = {(e["game"], e["table"]): i for i, e in enumerate(self.manifest["files"])}
        self.files: dict[tuple[str, str], ProbeFile] = {}
        # single lookups answered by libtbprobe where it is built (probe_files/native.py)
        self.native = None
        if native.available():
            try:
                self.native = native.NativeProber(self.path)
            except ValueError:  # a manifest libtbprobe cannot read: lookups stay in Python
                pass

    def tables(self, game: str | None = None) -> list[dict]:
        return [self._row(i, e) for i, e in enumerate(self.manifest["files"])
                if game is None or e["game"] == game]

    def _row(self, i: int, e: dict) -> dict:
        return {"table_id": i, "game": e["game"], "table_name": e["table"],
                "storage": e["storage"], "params": e["params"], "layout": e.get("layout"),
                "slots": e["slots"], "positions": e["positions"]}

    def table(self, game: str, table: str) -> dict | None:
        e = self.entries.get((game, table))
        return None if e is None else self._row(self.numbers[(game, table)], e)

    def require_table(self, game: str, table: str, what: str, how: str) -> dict:
        row = self.table(game, table)
        if row is None:
            raise MissingTableError(
                f"{what} needs table {table!r} of {game}, which is not in the probe files of "
                f"{self.path!r}; export it with: tbdb export --db DB --out {self.path} "
                f"--game {game} --table {table}" + (f" (build it first with: {how} --db DB)"
                                                     if how else ""))
        return row

    def states(self, game: str) -> dict[str, str]:
        return {t: "done" for g, t in self.entries if g == game}

    def open_file(self, game: str, table: str) -> ProbeFile:
        """The file of a manifest entry, checked against the manifest (size, header)."""
        key = (game, table)
        if key in self.files:
            return self.files[key]
        e = self.entries[key]
        path = os.path.join(self.path, e["path"])
        try:
            check_inside(path, self.path, "probe file")
        except FileNotFoundError:
            raise ProbeFileError(f"probe file {path!r} of table {table!r} of {game} is missing "
                                 f"from {self.path!r}; export it again with: tbdb export --db DB "
                                 f"--out {self.path} --game {game} --table {table}") from None
        size = os.path.getsize(path)
        if size != e["size"]:
            raise ProbeFileError(f"probe file {path!r} has {size} bytes, its manifest says "
                                 f"{e['size']} (truncated or replaced); export it again")
        f = ProbeFile(path)
        differs = header_mismatch(e, f)
        if differs:
            f.close()
            raise ProbeFileError(f"probe file {path!r} is not the file its manifest lists: "
                                 f"{differs}; export it again")
        if size <= CHECK_ON_OPEN:
            bad = f.verify()
            if bad:
                f.close()  # (its descriptor too: a damaged file asked again opens again)
                raise ProbeFileError(f"probe file {path!r}: {bad[0]}")
        self.files[key] = f
        return f

    def open_table(self, row: dict, load: bool = False) -> StoredTable:
        e = self.manifest["files"][row["table_id"]]  # rows are numbered by manifest entry
        f = self.open_file(e["game"], e["table"])
        return table_type(f)(storage_of(row), self, row, f)

    def native_add(self, game: str, table: str) -> None:
        """Hand an opened table's file to libtbprobe (``native``): after the Python path
        answered a single lookup in it, so that batches (``lookup_arrays``) never pay for it."""
        f = self.files.get((game, table))
        if f is not None and self.native is not None:
            self.native.add(f)

    def native_open(self, game: str, table: str) -> bool:
        """Open and check the file of a table libtbprobe asked for and hand it over; False
        when the manifest does not list it or the file fails a check (the Python path then
        raises the error it words) or libtbprobe refuses it."""
        if self.native is None or (game, table) not in self.entries:
            return False
        try:
            f = self.open_file(game, table)
        except (ProbeFileError, OSError):
            return False
        return self.native.add(f)

    def gather_index(self, tables: list, rows: list, keys: np.ndarray):
        """The batch form over many index tables at once (``Prober.lookup_arrays``): ``tables``
        (``ProbeIndexTable``, ``ProbeDirectTable``) each with its batch rows ``rows``
        (arrays), ``keys`` the slots of the rows concatenated.  One sort, one unpacking and one
        check for the whole batch, and a kernel call per table on its share of it: a batch
        spread over a thousand CDC tables spent most of its time in each table's own sorting
        and checks.  Returns (result, distance, best move), or raises ``RowMissing`` (its
        row: the place in the concatenation) / ``ProbeFileError``."""
        from tbdb.probe_files.coder import DAMAGED, PARALLEL_SLOTS, SPLIT_SLOTS, unpack_values
        from tbdb.solvers.probe_files import decode_rows, decode_rows_parallel
        from tbdb.solvers.retrograde import NONE
        from tbdb.storage import RowMissing
        counts = np.array([len(r) for r in rows], np.int64)
        ends = np.cumsum(counts)
        slots = np.repeat(np.array([t.file.slots for t in tables], np.int64), counts)
        keys = np.asarray(keys, np.int64)
        outside = (keys < 0) | (keys >= slots)
        if outside.any():
            bad = int(np.argmax(outside))
            raise RowMissing(bad, int(keys[bad]))
        bounds = np.concatenate(([0], ends))
        # each table's slots as placed in its streams (the file's slot order), in one call
        at = keys
        if any(not t.order.is_identity for t in tables):
            from tbdb.probe_files.order import MAX_DIGITS
            from tbdb.solvers.probe_files import positions_by_table
            orders = np.zeros((len(tables), MAX_DIGITS, 2), np.int64)
            digits = np.empty(len(tables), np.int64)
            for i, t in enumerate(tables):
                d = len(t.order_array)
                orders[i, :d] = t.order_array
                digits[i] = d
            at = positions_by_table(keys, bounds, orders, digits)
        # by table (rows already are), then place: a block is decoded once (one argsort of
        # table << 40 | place; places are below 2 ** 40)
        order = np.argsort((np.arange(len(tables), dtype=np.int64).repeat(counts) << 40) | at)
        ordered = np.ascontiguousarray(at[order])
        values = np.empty(len(keys), np.int64)
        best = np.full(len(keys), -1, np.int64)
        row_bounds = bounds.tolist()

        def decode_tables(which: list, decode) -> None:
            for i in which:
                lo, hi = row_bounds[i], row_bounds[i + 1]
                t = tables[i]
                if t.file.direct:  # a cell each: nothing to share between rows
                    t.values.gather_into(ordered[lo:hi], values[lo:hi])
                    if t.moves is not None:
                        t.moves.gather_into(ordered[lo:hi], best[lo:hi])
                    continue
                decode(t.values.buf, t.values.table, ordered, values, lo, hi, DAMAGED)
                if t.moves is not None:
                    decode(t.moves.buf, t.moves.table, ordered, best, lo, hi, DAMAGED)

        # each file checked before and after its rows are read (``ProbeFile.enter``: a file
        # changed under its mapping is refused, not read)
        befores = [t.file.enter() for t in tables]
        try:
            # a table's share of many rows on every core; a few thousand rows: waking the
            # other threads costs more than it saves
            large = counts >= PARALLEL_SLOTS
            decode_tables(np.flatnonzero(large).tolist(), decode_rows_parallel)
            small = np.flatnonzero(~large)
            shares = np.cumsum(counts[small])
            if len(small) > 1 and shares[-1] >= SPLIT_SLOTS:
                # many small shares (a batch over CDC's 1,099 tables, decoded on one core while
                # the other waited): every other table on a thread of its own (``decode_rows``
                # releases the GIL).  Alternate tables, not two runs of equal rows: tables of
                # the same size sit together in the manifest, and a row of a big table costs
                # more (its blocks are longer to reach), so equal halves of rows took 0.19 s
                # and 0.30 s
                other = _decoder().submit(decode_tables, small[1::2].tolist(), decode_rows)
                decode_tables(small[0::2].tolist(), decode_rows)
                other.result()
            else:
                decode_tables(small.tolist(), decode_rows)
        finally:
            for t, before in zip(tables, befores):
                t.file.leave(before)
        broken = (values == DAMAGED) | (best == DAMAGED)
        if broken.any():
            t = tables[int(np.searchsorted(ends, int(np.argmax(broken)), side="right"))]
            raise ProbeFileError(f"probe file {t.file.path!r} is damaged; run: tbdb verify "
                                 f"--db {self.path}")
        out_values, out_best = np.empty_like(values), np.empty_like(best)
        out_values[order], out_best[order] = values, best
        result, distance = unpack_values(out_values)
        if (result == NONE).any():
            bad = int(np.argmax(result == NONE))
            raise RowMissing(bad, int(keys[bad]))
        return result, distance, out_best.astype(np.int32)

    def close(self) -> None:
        if self.native is not None:  # first: it reads the files' mappings
            self.native.close()
            self.native = None
        for f in self.files.values():
            f.close()
        self.files.clear()


# --------------------------------------------------------------------------- export

@dataclass
class ExportSummary:
    out: str
    written: list = field(default_factory=list)
    skipped: list = field(default_factory=list)
    damaged: list = field(default_factory=list)  # kept files whose bytes had changed: rewritten
    bytes: int = 0
    seconds: float = 0.0

    def __str__(self) -> str:
        repaired = (f" ({len(self.damaged)} of them damaged and rewritten: "
                    f"{', '.join(self.damaged[:3])}{', ...' if len(self.damaged) > 3 else ''})"
                    if self.damaged else "")

        def files(n: int) -> str:
            return f"{n} file{'' if n == 1 else 's'}"
        return (f"export to {self.out}: {files(len(self.written))} written{repaired}, "
                f"{len(self.skipped)} current and kept, {self.bytes:,} bytes in all, "
                f"{self.seconds:.1f} s")


def _write_file(path: str, data) -> None:
    """Write ``data`` (bytes, or a list of buffers written one after the other) to ``path``
    by way of a temporary file beside it."""
    from tbdb.safe_files import check_target
    check_target(path, "probe file")
    fd, tmp = temporary_beside(path)
    try:
        with os.fdopen(fd, "wb") as f:
            for part in [data] if isinstance(data, (bytes, bytearray)) else data:
                f.write(part)
        publish(tmp, path)
    except BaseException:
        remove_quietly(tmp)
        raise


def size_and_sha256(parts) -> tuple[int, str]:
    """(bytes, sha256) of a file made of the buffers ``parts`` in order."""
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part)
    return sum(len(part) for part in parts), digest.hexdigest()


def manifest_entries(out: str) -> dict:
    """The entries of directory ``out``'s manifest by (game, table); none if it has no
    manifest (one that does not parse raises: it is never taken for empty and overwritten)."""
    try:
        return {(e["game"], e["table"]): e for e in read_manifest(out)["files"]}
    except ProbeFileError:
        if os.path.exists(os.path.join(out, MANIFEST)):
            raise
        return {}


def manifest_entry(game: str, row: dict, rel: str, size: int, sha256: str,
                   source: dict) -> dict:
    """The manifest entry of table ``row``'s file at ``rel``, written from ``source``."""
    return {"game": game, "table": row["table_name"], "path": rel, "size": size,
            "sha256": sha256, "format_version": VERSION,
            **{k: v for k, v in meta_of(game, row).items() if k not in ("game", "table")},
            "moves": source["moves"], "source": source,
            **({"direct": True} if source.get("direct") else {})}


def write_manifest(out: str, entries: dict) -> None:
    """Write ``out``'s manifest of ``entries`` (by (game, table), listed in that order), by
    way of a temporary file renamed over the old one."""
    manifest = {"format": "tbdb-probe-files", "version": VERSION,
                "files": [entries[k] for k in sorted(entries)]}
    _write_file(os.path.join(out, MANIFEST),
                (json.dumps(manifest, indent=1, sort_keys=True) + "\n").encode())


def export(db: str | None, out: str, game: str | None = None, tables=None, moves: bool = True,
           progress=True, direct: bool = False) -> ExportSummary:
    """Write a probe file per built table of ``db`` (of ``game``, named ``tables``) under
    ``out`` and the manifest; files already current (same source table, same options) are
    kept.  ``direct``: index tables in direct cells (``tbdb.probe_files.direct``: a probe
    reads one cell, for several times the size).  The database is opened read-only."""
    from tbdb import games
    from tbdb.db.connect import default_db_path
    from tbdb.db.store import Store
    t0 = time.perf_counter()
    db = db or default_db_path()
    if os.path.exists(out) and not os.path.isdir(out):
        raise ProbeFileError(f"--out {out!r} exists and is not a directory")
    # the sizes set in the environment, refused before anything is shown or written
    stream_slots(), chunk_slots(), sample_slots(), chunk_runs()
    summary = ExportSummary(out)
    with Store(db, read_only=True) as store:
        names = [games.get(game).name] if game else sorted({r["game"] for r in store.tables()})
        want = []
        for g in names:
            built = {name for name, s in store.states(g).items() if s == "done"}
            chosen = sorted(built) if not tables else list(tables)
            for t in chosen:
                if t not in built:
                    raise MissingTableError(f"table {t!r} of {g} is not built in {db!r}")
                want.append((g, store.table(g, t)))
        if not want:  # nothing to write: said, rather than an empty manifest and exit 0
            what = f"no built {names[0]} table" if game else "no built table"
            how = f"tbdb build {names[0]} --db {db}" if game else f"tbdb build GAME --db {db}"
            raise MissingTableError(f"{db!r} holds {what} to export (build one first: {how})")
        os.makedirs(out, exist_ok=True)
        lock = DirectoryLock(out, "--out")  # one writer of the directory at a time
        try:
            _export(store, out, want, moves, direct, summary, progress)
        finally:
            lock.release()
    summary.seconds = time.perf_counter() - t0
    return summary


def _export(store, out: str, want: list, moves: bool, direct: bool, summary: ExportSummary,
            progress) -> None:
    """``export``'s writing, with the directory locked: ``want``'s (game, catalogue row)
    coded into files under ``out`` and listed in its manifest."""
    from tbdb.progress import Progress
    # what exports killed midway left under temporary names (not the files: a file is
    # only ever renamed into place whole)
    for g in sorted({"", *(g for g, _ in want)}):
        remove_stale_temporaries(os.path.join(out, g))
    old = manifest_entries(out)
    bar = Progress(sum(storage_of(r).size(r) for _, r in want), "export", mode=progress,
                   unit="slots")
    entries = dict(old)
    # two threads code the streams of the last two tables read while this one reads the
    # next from the database (the coder's kernels release the GIL; the connection stays
    # on this thread)
    pending: list[tuple] = []

    writes: list = []  # files being written (and synced) on a thread of their own

    def finish(g, row, rel, path, source, coded) -> None:
        parts = coded()
        os.makedirs(os.path.dirname(path), exist_ok=True)
        while len(writes) > 3:  # a few files' bytes in flight at most
            writes.pop(0).result()
        writes.append(writer.submit(_write_file, path, parts))
        record(g, row, rel, source, *size_and_sha256(parts))

    def record(g, row, rel, source, size, sha256) -> None:
        entries[(g, row["table_name"])] = manifest_entry(g, row, rel, size, sha256, source)
        summary.written.append(rel)
        summary.bytes += size
        bar.finished(storage_of(row).size(row), f"{g} {row['table_name']}")

    # when each table was built, in one query (not one per table: 1,099 for CDC 2-4)
    built_at = dict(store.query("SELECT table_id, CAST(built AS VARCHAR) FROM tb_tables"))
    with ThreadPoolExecutor(2) as pool, ThreadPoolExecutor(1) as writer:
        for g, row in want:
            built = built_at[row["table_id"]]
            source = {"table_id": int(row["table_id"]), "built": built,
                      "moves": bool(moves) or row["storage"] == "runs"}
            if direct and row["storage"] == "index":  # (absent otherwise: files written
                source["direct"] = True                # before direct cells stay current)
            rel = file_name(g, row["table_name"])
            path = os.path.join(out, rel)
            e = old.get((g, row["table_name"]))
            current = e is not None and e.get("source") == source and e["path"] == rel \
                and os.path.isfile(path) and not os.path.islink(path) \
                and os.path.getsize(path) == e["size"]
            if current:
                # a file is kept only if its bytes are still those written (a flipped byte
                # is repaired by exporting again; about 0.3 s of CPU per 100 MB)
                bar.note(f"{g} {row['table_name']} (checking)")
                if sha256_file(path) != e["sha256"]:
                    summary.damaged.append(rel)
                    current = False
            if current:
                summary.skipped.append(rel)
                summary.bytes += e["size"]
                bar.finished(storage_of(row).size(row), f"{g} {row['table_name']} (current)")
                continue
            bar.note(f"{g} {row['table_name']}")
            if streamed(row) or row["storage"] == "runs":
                # alone, a chunk at a time (``streamed``, ``streamed_runs``)
                while pending:
                    finish(*pending.pop(0))
                os.makedirs(os.path.dirname(path), exist_ok=True)
                if row["storage"] == "runs":
                    size, sha256, _ = write_runs_file(store, g, row, path, note=bar.note)
                elif direct:
                    size, sha256, _ = write_direct_file(store, g, row, moves, path,
                                                        note=bar.note)
                else:
                    size, sha256, _ = write_index_file(store, g, row, moves, path,
                                                       note=bar.note)
                record(g, row, rel, source, size, sha256)
                continue
            values = storage_of(row).load(store, row)
            while len(pending) > 1:  # at most two tables coding while one is read
                finish(*pending.pop(0))
            pending.append((g, row, rel, path, source,
                            start_table(g, row, values, moves, pool, direct)))
        while pending:
            finish(*pending.pop(0))
        for w in writes:
            w.result()
    bar.close()
    write_manifest(out, entries)


def verify_dir(path: str, game: str | None = None) -> tuple[int, list[str]]:
    """(files checked, problems): every file of the manifest (of ``game``, a game's name)
    against its size, its sha256, its header and its sections' checksums."""
    from tbdb.probe_files.verify_values import value_problems
    d = ProbeDir(path)
    problems = []
    entries = {k: e for k, e in d.entries.items() if game is None or k[0] == game}
    sound: set = set()  # the tables whose files pass: their values are checked next
    for (g, t), e in sorted(entries.items()):
        fpath = os.path.join(path, e["path"])
        try:
            check_inside(fpath, path, "probe file")
            if os.path.getsize(fpath) != e["size"]:
                problems.append(f"{e['path']}: {os.path.getsize(fpath)} bytes, the manifest "
                                f"says {e['size']} (truncated or replaced)")
                continue
            if sha256_file(fpath) != e["sha256"]:
                f = ProbeFile(fpath)
                bad = f.verify() or ["the header does not match the manifest's sha256"]
                f.close()
                problems.append(f"{e['path']}: {bad[0]}")
                continue
            f = ProbeFile(fpath)
            differs = header_mismatch(e, f)
            f.close()
            if differs:  # what lookups refuse (entries swapped, a count edited): refused here
                problems.append(f"{e['path']}: not the file its manifest lists: {differs}; "
                                f"export it again")
                continue
            sound.add((g, t))
        except FileNotFoundError:
            problems.append(f"{e['path']}: missing (table {t!r} of {g}); export it again with: "
                            f"tbdb export --db DB --out {path} --game {g} --table {t}")
        except ProbeFileError as exc:
            problems.append(f"{e['path']}: {exc}")
    try:
        problems += value_problems(d, d.entries, sound)
    finally:
        d.close()
    return len(entries), problems


_HEADER_FIELDS = ("game", "table", "storage", "params", "layout", "slots", "positions")


def header_mismatch(e: dict, f: ProbeFile) -> str | None:
    """Which field manifest entry ``e`` and its file ``f``'s header disagree on, with both
    values, or None.  Compared as JSON (``1``, ``1.0`` and ``true`` are not one count), and the
    binary header's slots and moves flag too: libtbprobe reads those."""
    def text(v) -> str:
        return json.dumps(v, sort_keys=True)

    for k in _HEADER_FIELDS:
        if text(f.meta.get(k)) != text(e.get(k)):
            return f"its header says {k} {text(f.meta.get(k))[:100]}, the manifest " \
                   f"{text(e.get(k))[:100]}"
    if f.slots != e["slots"]:
        return f"its header says {f.slots} slots, the manifest {e['slots']}"
    if f.moves != e.get("moves", True):
        return f"its header says moves {text(f.moves)}, the manifest {text(e.get('moves'))}"
    return None


def compare_dir(path: str, db: str, game: str | None = None) -> tuple[int, list[str]]:
    """(files compared, problems): every slot, key and run of every file of directory
    ``path`` (of ``game``) decoded and compared with table ``db`` holds, field by field (a file
    exported with --no-moves is compared without best moves).  The database is opened
    read-only."""
    from tbdb import games
    from tbdb.db.store import Store
    d = ProbeDir(path)
    name = games.get(game).name if game else None
    problems: list[str] = []
    checked = 0
    states: dict[str, dict[str, str]] = {}  # per game: one catalogue query, not one per file
    with Store(db, read_only=True) as store:
        for (g, t), e in sorted(d.entries.items()):
            if name is not None and g != name:
                continue
            if g not in states:
                states[g] = store.states(g)
            row = store.table(g, t)
            if row is None or states[g].get(t) != "done":
                problems.append(f"{e['path']}: table {t!r} of {g} is not built in {db!r}")
                continue
            f = d.open_file(g, t)
            try:
                table = table_type(f)(storage_of(row), d, row, f)
                if streamed(row):  # a chunk at a time, as it was exported
                    with IndexRanges(store, row).bounded() as reader:
                        wrong = _chunk_differences(table, f, reader, chunk_slots())
                elif row["storage"] == "runs":  # a range of positions at a time, likewise
                    with bounded_reads(store.con):
                        wrong = _run_differences(table, f, store, row, chunk_runs())
                else:
                    wrong = _differences(table, f, storage_of(row).load(store, row))
            except ProbeFileError as exc:
                wrong = [str(exc)]
            problems += [f"{e['path']}: {w}" for w in wrong]
            checked += 1
    d.close()
    return checked, problems


def _chunk_differences(table, f: ProbeFile, reader: IndexRanges, step: int) -> list[str]:
    """What differs between an index table's probe file and its rows in the database, read
    ``step`` slots at a time (``_differences`` holds the whole table: 5x5-6 would need tens
    of GB)."""
    from tbdb.probe_files.coder import pack_values
    from tbdb.probe_files.streamed import move_values
    if f.slots != reader.slots:
        return [f"{f.slots} slots in the file, {reader.slots} in the database"]
    wrong = {}  # what -> [slots that differ, the first slot, got, want]
    for lo, result, distance, best in reader.chunks(step):
        slots = np.arange(lo, lo + len(result), dtype=np.int64)
        pairs = [("values at slot", table.values, pack_values(result, distance))]
        if table.moves is not None:
            pairs.append(("best moves at slot", table.moves, move_values(result, best)))
        for what, stream, want in pairs:
            got = stream.gather(table.positions(slots))
            bad = np.flatnonzero(got != want)
            if len(bad):
                i = int(bad[0])
                w = wrong.setdefault(what, [0, lo + i, int(got[i]), int(want[i])])
                w[0] += len(bad)
    out = [f"{what}: {n:,} differ, the first at {i} ({g} in the file, {w} in the database)"
           for what, (n, i, g, w) in wrong.items()]
    if reader.rows_read != f.rows:
        out.append(f"{f.rows:,} rows in the file, {reader.rows_read:,} in the database")
    return out


def _run_differences(table, f: ProbeFile, store, row: dict, chunk: int) -> list[str]:
    """What differs between a score-run table's probe file and its runs in the database,
    read about ``chunk`` runs at a time (``_differences`` holds the whole book: Oware's
    20-seed book has 1.9 billion runs)."""
    from tbdb.storage.runs import RunRanges
    r = table.runs
    reader = RunRanges(store, row["table_id"], int(row["slots"]),
                       int(row["params"].get("horizon", 0)), chunk)
    if len(r.offsets) != reader.positions + 1 or len(r.start) != reader.total:
        return [f"{len(r.offsets) - 1:,} positions and {len(r.start):,} runs in the file, "
                f"{reader.positions:,} and {reader.total:,} in the database"]
    wrong = {}  # what -> [entries that differ, the first, got, want]

    def compare(what: str, first: int, got, want) -> None:
        bad = np.flatnonzero(np.asarray(got) != np.asarray(want))
        if len(bad):
            i = int(bad[0])
            w = wrong.setdefault(what, [0, first + i, int(got[i]), int(want[i])])
            w[0] += len(bad)

    for lo, at, counts, cols in reader:
        if not len(counts):  # a table of no positions
            continue
        k = len(cols["idx"])
        ends = at + np.cumsum(counts)  # ROFF[lo + 1 .. lo + len(counts)]
        compare("run offsets at position", lo, r.offsets[lo:lo + len(counts)],
                np.concatenate(([at], ends[:-1])))
        compare("run starts at run", at, r.start[at:at + k], cols["turns_left_from"])
        compare("scores at run", at, r.score[at:at + k], cols["score"].astype(np.int8))
        compare("best moves at run", at, r.move[at:at + k], cols["best_move"].astype(np.int8))
    compare("run offsets at position", reader.positions, r.offsets[-1:], [reader.total])
    return [f"{what}: {n:,} differ, the first at {i} ({g} in the file, {w} in the database)"
            for what, (n, i, g, w) in wrong.items()]


def _differences(table, f: ProbeFile, values) -> list[str]:
    """What differs between a probe file's table and the database's arrays ``values``."""
    import numpy as np

    from tbdb.probe_files.coder import pack_values
    from tbdb.probe_files.format import _key_rows
    from tbdb.solvers.retrograde import NONE

    def compare(what: str, got, want) -> list[str]:
        got, want = np.asarray(got), np.asarray(want)
        if got.shape != want.shape:
            return [f"{what}: {got.shape} in the file, {want.shape} in the database"]
        bad = np.flatnonzero((got != want).reshape(len(got), -1).any(axis=1)) \
            if len(got) else []
        if len(bad):
            i = int(bad[0])
            return [f"{what}: {len(bad):,} differ, the first at {i} ({got[i].tolist()} in the "
                    f"file, {want[i].tolist()} in the database)"]
        return []

    if f.storage == "index":
        out = compare("values at slot", table.order.to_slots(table.values.all()),
                      pack_values(values.result, values.distance))
        if table.moves is not None:
            best = np.where(values.result == NONE, -1, values.best)
            out += compare("best moves at slot", table.order.to_slots(table.moves.all()), best)
        return out
    if f.storage == "key":
        keys, result, distance, best = _key_rows(values)
        out = compare("keys at row", table.keys, keys) + \
            compare("results at row", table.result, result) + \
            compare("distances at row", table.distance, distance)
        if f.moves:
            out += compare("best moves at row", table.best, best)
        return out
    r = table.runs
    return (compare("run offsets at position", r.offsets, values.offsets)
            + compare("run starts at run", r.start, values.start)
            + compare("scores at run", r.score, values.score)
            + compare("best moves at run", r.move, values.move))
