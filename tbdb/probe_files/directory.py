"""A directory of probe files and its ``manifest.json``: ``ProbeDir`` (what ``tbdb.open(DIR)``
reads), the manifest read, checked and written.  ``tbdb export`` is ``export_dir.py``'s, ``tbdb
verify --db DIR`` ``checks.py``'s."""
from __future__ import annotations

import hashlib
import json
import os
import re
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from tbdb.errors import MissingTableError
from tbdb.safe_files import publish, remove_quietly, temporary_beside
from tbdb.storage import StoredTable, storage_of
import tbdb.probe_files.native as native
from tbdb.probe_files.container import ProbeFile, check_inside, meta_of
from tbdb.probe_files.manifest import read_manifest  # noqa: F401  (ProbeDir's, and this module's name)
from tbdb.probe_files.header import CHECK_ON_OPEN, MANIFEST, ProbeFileError, SUFFIX, VERSION


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


_DECODER: list = []


def _decoder() -> ThreadPoolExecutor:
    """The thread that decodes half of a large batch over many tables (``gather_index``)."""
    if not _DECODER:
        _DECODER.append(ThreadPoolExecutor(1, thread_name_prefix="tbdb-decode"))
    return _DECODER[0]


class ProbeDir:
    """A directory of probe files, as the prober sees a store: the catalogue rows come from
    the manifest, and each table's file is opened (mapped) on first use."""

    def __init__(self, path: str, opened=None):
        """``opened``: the ``TextLookups`` that opened the directory first (its manifest and
        its libtbprobe base, shared: one base, its files mapped once)."""
        self.path = str(path)
        self.manifest = read_manifest(self.path) if opened is None else opened.manifest
        self.entries = {(e["game"], e["table"]): e for e in self.manifest["files"]}
        self.numbers = {(e["game"], e["table"]): i for i, e in enumerate(self.manifest["files"])}
        self.files: dict[tuple[str, str], ProbeFile] = {}
        # single lookups answered by libtbprobe where it is built (probe_files/native.py)
        self.native = None if opened is None else opened.native
        if opened is None and native.available():
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
        return storage_of(f.storage).probe_file.table(storage_of(row), self, row, f)

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
                # more (its blocks are longer to reach), so equal halves of rows took unequal
                # times
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


# --------------------------------------------------------------------------- writing

def write_probe_file(path: str, data) -> None:
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
    write_probe_file(os.path.join(out, MANIFEST),
                (json.dumps(manifest, indent=1, sort_keys=True) + "\n").encode())
