"""``tbdb export``: a probe file per built table of a database, and the directory's manifest.
Files already current (same source table, same options) are kept; each table is coded whole
(two at a time, beside the reading of the next) or, where its kind's layout says so, alone a
range at a time (``Storage.probe_file.written_alone``)."""
from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from tbdb.errors import MissingTableError
from tbdb.safe_files import remove_stale_temporaries
from tbdb.storage import storage_of
from tbdb.probe_files.directory import (write_probe_file, file_name, manifest_entries,
                                        manifest_entry, sha256_file, size_and_sha256,
                                        write_manifest)
from tbdb.probe_files.directory_lock import DirectoryLock
from tbdb.probe_files.format import start_table
from tbdb.probe_files.header import ProbeFileError
from tbdb.probe_files.streamed import chunk_runs, chunk_slots, sample_slots, stream_slots


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
        writes.append(writer.submit(write_probe_file, path, parts))
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
            layout = storage_of(row).probe_file
            source = {"table_id": int(row["table_id"]), "built": built,
                      "moves": bool(moves) or layout.always_moves}
            if direct and layout.direct_cells:  # (absent otherwise: files written
                source["direct"] = True          # before direct cells stay current)
            rel = file_name(g, row["table_name"])
            path = os.path.join(out, rel)
            e = old.get((g, row["table_name"]))
            current = e is not None and e.get("source") == source and e["path"] == rel \
                and os.path.isfile(path) and not os.path.islink(path) \
                and os.path.getsize(path) == e["size"]
            if current:
                # a file is kept only if its bytes are still those written (a flipped byte
                # is repaired by exporting again; a fraction of a second of CPU per 100 MB)
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
            if layout.written_alone(row):
                # alone, a chunk at a time (``streamed``, ``streamed_runs``)
                while pending:
                    finish(*pending.pop(0))
                os.makedirs(os.path.dirname(path), exist_ok=True)
                size, sha256, _ = layout.write_file(store, g, row, moves, path, direct,
                                                    bar.note)
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
