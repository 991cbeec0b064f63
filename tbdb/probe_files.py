"""Probe files: one compact, memory-mapped file per built table, for lookups without DuckDB.

The format is ``docs/probe-format.md`` (version 1).  Here:

    write_table     a built table's arrays (``storage_of(row).load``) -> the file's bytes
    ProbeFile       one file opened read-only (``numpy.memmap``): header and section checks,
                    the arrays of its sections, ``verify`` (every section's sha256)
    ProbeDir        a directory of probe files and its ``manifest.json``, standing in for the
                    DuckDB store under the prober (``tbdb.open(DIR)``)
    export          ``tbdb export``: every built table of a database into a directory
    verify_dir      ``tbdb verify --db DIR``: every file against its checksums and the manifest

Each table kind answers exactly what its DuckDB ``StoredTable`` answers, so the prober (moves
best first, lines, the batch form) works on a directory unchanged.
"""
from __future__ import annotations

import hashlib
import heapq
import json
import os
import re
import stat
import struct
import time
from dataclasses import dataclass, field

import numpy as np

from tbdb.errors import MissingTableError, TbdbError
from tbdb.safe_files import kind as file_kind
from tbdb.safe_files import publish, remove_quietly, temporary_beside
from tbdb.storage import StoredTable, storage_of
from tbdb.storage.base import check_filled
from tbdb.storage.keys import KeyTable
from tbdb.storage.runs import RunTable

MAGIC = b"TBDBPRB1"
VERSION = 1
MANIFEST = "manifest.json"
SUFFIX = ".tbp"
LAYOUTS = {"index": 0, "key": 1, "runs": 2}  # storage kind -> the header's layout number
FLAG_MOVES = 1
BLOCK_SLOTS = 512  # symbols per block of a stream: a probe decodes at most this many
MAX_CODE = 32  # bits of the longest code
CHECK_ON_OPEN = 16 << 20  # files up to this size have every checksum checked when opened

HEADER = struct.Struct("<8sIIIIQQII")  # magic version header_bytes layout flags slots rows
#                                         sections meta_bytes
SECTION = struct.Struct("<4sIQQ32s")  # tag, reserved 0, offset, length, sha256
STREAM = struct.Struct("<IIQQII")  # symbols, block_slots, n, blocks, maxlen, reserved 0


class ProbeFileError(TbdbError, ValueError):
    """A probe file or directory that cannot be used: truncated, damaged, of an unknown format
    version, not matching its manifest, a link out of its directory, not a regular file."""


def _pad8(n: int) -> int:
    return -n % 8


# --------------------------------------------------------------------------- the block coder

def code_lengths(counts: np.ndarray, limit: int = MAX_CODE) -> np.ndarray:
    """Huffman code lengths (uint8) of symbols seen ``counts`` times (each > 0), at most
    ``limit`` bits: deterministic (ties go to the lower symbol number); a lone symbol gets 1
    bit.  Too long codes are avoided by flattening the rarest counts and trying again."""
    counts = np.asarray(counts, np.int64)
    k = len(counts)
    if k == 1:
        return np.ones(1, np.uint8)
    floor = 0
    while True:
        c = np.maximum(counts, floor)
        heap = [(int(c[s]), s, (s,)) for s in range(k)]
        heapq.heapify(heap)
        depth = np.zeros(k, np.int64)
        tie = k
        while len(heap) > 1:
            a, b = heapq.heappop(heap), heapq.heappop(heap)
            for s in a[2] + b[2]:
                depth[s] += 1
            heapq.heappush(heap, (a[0] + b[0], tie, a[2] + b[2]))
            tie += 1
        if depth.max() <= limit:
            return depth.astype(np.uint8)
        floor = max(1, 2 * floor, int(counts.sum()) >> limit)


def canonical(values: np.ndarray, lengths: np.ndarray):
    """(values, lengths, codes) in canonical order: sorted by (length, value), codes counting
    up within a length and shifted left when the length grows."""
    order = np.lexsort((values, lengths))
    values, lengths = values[order], lengths[order]
    codes = np.zeros(len(values), np.uint64)
    code, prev = 0, int(lengths[0]) if len(lengths) else 0
    for i, length in enumerate(lengths.tolist()):
        code <<= length - prev
        prev = length
        codes[i] = code
        code += 1
    return values, lengths, codes


def decoding_tables(lengths: np.ndarray):
    """(count, first_code, first_symbol) int64[MAX_CODE + 1] of canonical ``lengths``."""
    count = np.zeros(MAX_CODE + 1, np.int64)
    first_code = np.zeros(MAX_CODE + 1, np.int64)
    first_symbol = np.zeros(MAX_CODE + 1, np.int64)
    code = sym = 0
    for length in range(1, MAX_CODE + 1):
        n = int(np.count_nonzero(lengths == length))
        first_code[length], first_symbol[length], count[length] = code, sym, n
        code = (code + n) << 1
        sym += n
    return count, first_code, first_symbol


def symbols_of(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(distinct values int64, counts) and per element its value's place among them."""
    values = np.asarray(values, np.int64)
    if len(values) == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int32)
    lo, hi = int(values.min()), int(values.max())
    if hi - lo < 1 << 24:  # a histogram: linear time
        counts = np.bincount(values - lo, minlength=hi - lo + 1)
        distinct = np.flatnonzero(counts)
        place = np.full(hi - lo + 1, -1, np.int32)
        place[distinct] = np.arange(len(distinct), dtype=np.int32)
        return distinct + lo, counts[distinct], place[values - lo]
    distinct, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
    return distinct, counts, inverse.astype(np.int32)


def encode_stream(values: np.ndarray, block_slots: int = BLOCK_SLOTS) -> bytes:
    """A stream section (``docs/probe-format.md``, "Streams") of int32 symbol ``values``."""
    from tbdb.solvers import probe_files as kernels
    distinct, counts, place = symbols_of(values)
    if len(distinct) == 0:
        distinct, counts = np.zeros(1, np.int64), np.ones(1, np.int64)
    lengths = code_lengths(counts)
    alphabet, lengths_c, codes = canonical(distinct, lengths)
    # symbol numbers in canonical order
    rank = np.empty(len(distinct), np.int32)
    rank[np.lexsort((distinct, lengths))] = np.arange(len(distinct), dtype=np.int32)
    symbols = rank[place] if len(values) else np.zeros(0, np.int32)
    offsets = kernels.block_bits(symbols, lengths_c, block_slots)
    bits = kernels.encode(symbols, codes, lengths_c, offsets)
    k, n = len(alphabet), len(values)
    head = STREAM.pack(k, block_slots, n, len(offsets) - 1, int(lengths_c.max()), 0)
    parts = [head, alphabet.astype("<i4").tobytes(), b"\0" * _pad8(4 * k),
             lengths_c.astype(np.uint8).tobytes(), b"\0" * _pad8(k),
             offsets.astype("<i8").tobytes(), bits.tobytes()]
    return b"".join(parts)


@dataclass
class Stream:
    """A stream section opened for decoding (views into the mapped file)."""
    alphabet: np.ndarray
    lengths: np.ndarray
    offsets: np.ndarray
    bits: np.ndarray
    n: int
    block_slots: int
    maxlen: int
    tables: tuple = field(default=())

    @classmethod
    def parse(cls, buf: np.ndarray, where: str) -> Stream:
        if len(buf) < STREAM.size:
            raise ProbeFileError(f"{where}: stream section shorter than its header")
        k, block_slots, n, blocks, maxlen, _ = STREAM.unpack(bytes(buf[:STREAM.size]))
        at = STREAM.size
        a_end = at + 4 * k
        l_at = a_end + _pad8(4 * k)
        o_at = l_at + k + _pad8(k)
        b_at = o_at + 8 * (blocks + 1)
        if (not 1 <= k or not 1 <= maxlen <= MAX_CODE or block_slots < 1
                or blocks != (n + block_slots - 1) // block_slots or b_at + 8 > len(buf)):
            raise ProbeFileError(f"{where}: stream header does not match its section "
                                 f"(damaged or truncated)")
        s = cls(buf[at:a_end].view("<i4"), buf[l_at:l_at + k], buf[o_at:b_at].view("<i8"),
                buf[b_at:], n, block_slots, maxlen)
        if (s.lengths.max() > maxlen or s.lengths.min() < 1 or s.offsets[0] != 0
                or (np.diff(s.offsets) < 0).any()
                or s.offsets[-1] + 64 > 8 * len(s.bits)):  # room to read a code past the end
            raise ProbeFileError(f"{where}: stream code lengths or block offsets out of range "
                                 f"(damaged)")
        s.tables = decoding_tables(s.lengths)
        return s

    def _args(self):
        count, first_code, first_symbol = self.tables
        return (self.bits, self.offsets, self.block_slots, count, first_code, first_symbol,
                self.maxlen)

    def at(self, slot: int) -> int:
        """The symbol value at ``slot``."""
        from tbdb.solvers import probe_files as kernels
        s = kernels.decode_slot(*self._args(), slot)
        if s < 0:
            raise ProbeFileError("a damaged stream")
        return int(self.alphabet[s])

    def gather(self, slots: np.ndarray) -> np.ndarray:
        """The symbol values (int32) at ``slots`` (int64, any order)."""
        from tbdb.solvers import probe_files as kernels
        order = np.argsort(slots, kind="stable")
        got = kernels.decode_sorted(*self._args(), np.ascontiguousarray(slots[order]))
        if (got < 0).any():
            raise ProbeFileError("a damaged stream")
        out = np.empty(len(slots), np.int32)
        out[order] = self.alphabet[got]
        return out

    def all(self) -> np.ndarray:
        from tbdb.solvers import probe_files as kernels
        got = kernels.decode_all(*self._args(), self.n)
        if (got < 0).any():
            raise ProbeFileError("a damaged stream")
        return np.asarray(self.alphabet)[got]


def pack_values(result: np.ndarray, distance: np.ndarray) -> np.ndarray:
    """(result, distance) as one int32 symbol value: result << 16 | distance & 0xFFFF."""
    return (result.astype(np.int32) << 16) | (distance.astype(np.int32) & 0xFFFF)


def unpack_values(v):
    """(result int8, distance int16) of packed symbol values."""
    v = np.asarray(v, np.int32)
    return (v >> 16).astype(np.int8), (v & 0xFFFF).astype(np.uint16).view(np.int16)


# --------------------------------------------------------------------------- writing

def meta_of(game: str, row: dict) -> dict:
    """The header's JSON: what a prober needs of the catalogue row (no table id, no time)."""
    return {"game": game, "table": row["table_name"], "storage": row["storage"],
            "params": row["params"], "layout": row.get("layout"), "slots": int(row["slots"]),
            "positions": int(row["positions"])}


def write_table(game: str, row: dict, values, moves: bool = True) -> bytes:
    """The probe file of a built table: catalogue row ``row``, ``values`` what
    ``storage_of(row).load(store, row)`` returned.  Same input, same bytes."""
    from tbdb.solvers.retrograde import NONE
    storage = row["storage"]
    if storage == "index":
        sections = [(b"VALS", encode_stream(pack_values(values.result, values.distance)))]
        if moves:
            best = np.where(values.result == NONE, -1, values.best).astype(np.int32)
            sections.append((b"MOVE", encode_stream(best)))
        slots, rows = len(values.result), int(np.count_nonzero(values.result != NONE))
    elif storage == "key":
        keys, result, distance, best = _key_rows(values)
        sections = [(b"KEYS", keys.astype("<i8").tobytes()), (b"KRES", result.tobytes()),
                    (b"KDIS", distance.astype("<i2").tobytes())]
        if moves:
            sections.append((b"KMOV", best.astype("<i4").tobytes()))
        slots = rows = len(keys)
    elif storage == "runs":
        moves = True  # score tables derive no best move: theirs are always kept
        sections = [(b"ROFF", values.offsets.astype("<i8").tobytes()),
                    (b"RSTA", values.start.astype("<i2").tobytes()),
                    (b"RSCO", values.score.astype(np.int8).tobytes()),
                    (b"RMOV", values.move.astype(np.int8).tobytes())]
        slots, rows = len(values.offsets) - 1, int(values.offsets[-1])
    else:
        raise ValueError(f"no probe file layout for storage {storage!r}")
    meta = json.dumps(meta_of(game, row), sort_keys=True, separators=(",", ":")).encode()
    head_bytes = HEADER.size + len(meta) + _pad8(len(meta)) + SECTION.size * len(sections)
    table, body, at = [], [], head_bytes
    for tag, data in sections:
        table.append(SECTION.pack(tag, 0, at, len(data), hashlib.sha256(data).digest()))
        body += [data, b"\0" * _pad8(len(data))]
        at += len(data) + _pad8(len(data))
    head = HEADER.pack(MAGIC, VERSION, head_bytes, LAYOUTS[storage],
                       FLAG_MOVES if moves else 0, slots, rows, len(sections), len(meta))
    return b"".join([head, meta, b"\0" * _pad8(len(meta)), *table, *body])


def _key_rows(levels):
    """A key table's rows from its ``LevelValues`` (``KeyStorage.load``), sorted by key."""
    if not levels:
        return (np.zeros((0, 3), np.int64), np.zeros(0, np.int8), np.zeros(0, np.int16),
                np.zeros(0, np.int32))
    keys = np.concatenate([np.column_stack([lv.keys[:, 0], lv.keys[:, 1],
                                            lv.constraint.astype(np.int64)]) for lv in levels])
    cols = [np.concatenate([getattr(lv, c) for lv in levels])
            for c in ("result", "distance", "best")]
    order = np.lexsort((keys[:, 2], keys[:, 1], keys[:, 0]))
    return (np.ascontiguousarray(keys[order]), cols[0][order].astype(np.int8),
            cols[1][order].astype(np.int16), cols[2][order].astype(np.int32))


# --------------------------------------------------------------------------- reading

def check_inside(path: str, root: str, what: str) -> None:
    """``ProbeFileError`` unless ``path`` is a regular file whose real path is under ``root``
    (a link out of the directory, a FIFO, a device are refused; ``os.stat`` never opens)."""
    real, base = os.path.realpath(path), os.path.realpath(root)
    if os.path.commonpath([real, base]) != base:
        raise ProbeFileError(f"{what} {path!r} is a link to {real!r}, outside {root!r}; "
                             f"probe files must lie inside their directory")
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise
    if not stat.S_ISREG(mode):
        raise ProbeFileError(f"{what} {path!r} is {file_kind(mode)}, not a regular file")


class ProbeFile:
    """One probe file, mapped read-only; the header and the section table are checked here
    (magic, version, sizes); the sections' checksums by ``verify``."""

    def __init__(self, path: str):
        self.path = path
        size = os.path.getsize(path)
        if size < HEADER.size:
            raise ProbeFileError(f"probe file {path!r} is truncated ({size} bytes, shorter than "
                                 f"its header)")
        self.buf = np.memmap(path, dtype=np.uint8, mode="r")
        (magic, version, head_bytes, layout, flags, self.slots, self.rows, n_sections,
         meta_bytes) = HEADER.unpack(bytes(self.buf[:HEADER.size]))
        if magic != MAGIC:
            raise ProbeFileError(f"{path!r} is not a tbdb probe file (magic {magic!r})")
        if version != VERSION:
            raise ProbeFileError(f"probe file {path!r} has format version {version}; this tbdb "
                                 f"reads version {VERSION}: export it again with this tbdb")
        expect = HEADER.size + meta_bytes + _pad8(meta_bytes) + SECTION.size * n_sections
        if head_bytes != expect or head_bytes > size:
            raise ProbeFileError(f"probe file {path!r} is truncated or damaged (header of "
                                 f"{head_bytes} bytes in a file of {size})")
        try:
            self.meta = json.loads(bytes(self.buf[HEADER.size:HEADER.size + meta_bytes]))
        except ValueError:
            raise ProbeFileError(f"probe file {path!r} is damaged (its header's JSON does not "
                                 f"parse)") from None
        kinds = {v: k for k, v in LAYOUTS.items()}
        if layout not in kinds or kinds[layout] != self.meta.get("storage"):
            raise ProbeFileError(f"probe file {path!r} is damaged (layout {layout})")
        self.storage = kinds[layout]
        self.moves = bool(flags & FLAG_MOVES)
        self.sections: dict[str, tuple[int, int, bytes]] = {}
        at = head_bytes - SECTION.size * n_sections
        end = head_bytes
        for i in range(n_sections):
            tag, _, off, length, digest = SECTION.unpack(
                bytes(self.buf[at + i * SECTION.size:at + (i + 1) * SECTION.size]))
            if off != end or off % 8:
                raise ProbeFileError(f"probe file {path!r} is damaged (section {tag!r} at "
                                     f"{off}, expected {end})")
            end = off + length + _pad8(length)
            self.sections[tag.decode("ascii", "replace")] = (off, length, digest)
        if end != size:
            state = "truncated" if end > size else "longer than its sections"
            raise ProbeFileError(f"probe file {path!r} is {state} ({size} bytes, its sections "
                                 f"end at {end})")

    def section(self, tag: str, dtype: str = "u1") -> np.ndarray:
        if tag not in self.sections:
            raise ProbeFileError(f"probe file {self.path!r} has no section {tag!r} (damaged)")
        off, length, _ = self.sections[tag]
        a = self.buf[off:off + length]
        size = np.dtype(dtype).itemsize
        if length % size:
            raise ProbeFileError(f"probe file {self.path!r}: section {tag!r} of {length} bytes "
                                 f"is no whole number of {dtype} (damaged)")
        return np.asarray(a).view(dtype)

    def verify(self) -> list[str]:
        """What is wrong with the sections' contents (their sha256), empty if nothing."""
        bad = []
        for tag, (off, length, digest) in self.sections.items():
            if hashlib.sha256(self.buf[off:off + length]).digest() != digest:
                bad.append(f"section {tag} does not match its sha256 (damaged)")
        return bad

    def close(self) -> None:
        mm = getattr(self.buf, "_mmap", None)
        self.buf = None
        if mm is not None:
            try:
                mm.close()
            except BufferError:  # arrays still view it; the mapping goes with them
                pass


class ProbeIndexTable(StoredTable):
    """An index table read from its probe file: (result, distance) and best moves decoded
    from their streams, block by block."""
    loaded = True

    def __init__(self, storage, store, row, file: ProbeFile):
        super().__init__(storage, store, row)
        from tbdb.solvers.retrograde import NONE
        self.none = int(NONE)
        self.file = file
        self.values = Stream.parse(file.section("VALS"), file.path)
        self.moves = Stream.parse(file.section("MOVE"), file.path) if file.moves else None
        for s in (self.values, self.moves):
            if s is not None and s.n != file.slots:
                raise ProbeFileError(f"probe file {file.path!r}: a stream of {s.n} slots in a "
                                     f"table of {file.slots} (damaged)")
        self.loaded = True

    def _load(self) -> None:
        pass

    def probe(self, key, plies=None):
        if not 0 <= key < self.file.slots:
            return None
        try:
            v = self.values.at(int(key))
            r, d = v >> 16, ((v & 0xFFFF) ^ 0x8000) - 0x8000
            if r == self.none:
                return None
            return r, d, self.moves.at(int(key)) if self.moves is not None else -1
        except ProbeFileError:
            raise ProbeFileError(f"probe file {self.file.path!r} is damaged at slot {key}; "
                                 f"run: tbdb verify --db {os.path.dirname(self.file.path)}") \
                from None

    def gather(self, keys, plies):
        keys = np.asarray(keys, np.int64)
        try:
            result, distance = unpack_values(self.values.gather(keys))
            check_filled(result, keys)
            best = (self.moves.gather(keys) if self.moves is not None
                    else np.full(len(keys), -1, np.int32))
        except ProbeFileError:
            raise ProbeFileError(f"probe file {self.file.path!r} is damaged; run: tbdb verify "
                                 f"--db {os.path.dirname(self.file.path)}") from None
        return result, distance, best


class ProbeKeyTable(KeyTable):
    """A key table read from its probe file: its sorted keys and values are views of it."""

    def __init__(self, storage, store, row, file: ProbeFile):
        super().__init__(storage, store, row)
        from tbdb.solvers.retrograde import keys as kernels
        n = file.rows
        self.kernels = kernels
        self.keys = file.section("KEYS", "<i8").reshape(-1, 3)
        self.result = file.section("KRES", "i1")
        self.distance = file.section("KDIS", "<i2")
        self.best = file.section("KMOV", "<i4") if file.moves else np.full(n, -1, np.int32)
        if not len(self.keys) == len(self.result) == len(self.distance) == len(self.best) == n:
            raise ProbeFileError(f"probe file {file.path!r}: sections of different lengths "
                                 f"(damaged)")
        self.loaded = True

    def _load(self) -> None:
        pass


class ProbeRunTable(RunTable):
    """A score-run table read from its probe file."""

    def __init__(self, storage, store, row, file: ProbeFile):
        super().__init__(storage, store, row)
        from tbdb.games.base import RunValues
        from tbdb.solvers import lookup as kernels
        self.kernels = kernels
        offsets = file.section("ROFF", "<i8")
        start, score, move = (file.section("RSTA", "<i2"), file.section("RSCO", "i1"),
                              file.section("RMOV", "i1"))
        if (len(offsets) != file.slots + 1 or not len(start) == len(score) == len(move)
                or offsets[0] != 0 or offsets[-1] != len(start)
                or (np.diff(offsets) < 0).any()):
            raise ProbeFileError(f"probe file {file.path!r}: run offsets do not match its runs "
                                 f"(damaged)")
        self.runs = RunValues(offsets, start, score, move,
                              int(row["params"].get("horizon", 0)))
        self.loaded = True

    def _load(self) -> None:
        pass


TABLE_TYPES = {"index": ProbeIndexTable, "key": ProbeKeyTable, "runs": ProbeRunTable}


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
            m = json.load(f)
    except FileNotFoundError:
        raise ProbeFileError(f"{path!r} is a directory without {MANIFEST}: not a directory of "
                             f"probe files (write one with: tbdb export --db DB --out "
                             f"{path})") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise ProbeFileError(f"manifest {mpath!r} does not parse: {exc}") from None
    if not isinstance(m, dict) or m.get("format") != "tbdb-probe-files" \
            or not isinstance(m.get("files"), list):
        raise ProbeFileError(f"manifest {mpath!r} is not a tbdb probe-file manifest")
    if m.get("version") != VERSION:
        raise ProbeFileError(f"manifest {mpath!r} has format version {m.get('version')!r}; "
                             f"this tbdb reads version {VERSION}: export again")
    for e in m["files"]:
        p = e.get("path", "") if isinstance(e, dict) else ""
        if not isinstance(p, str) or os.path.isabs(p) or ".." in p.split("/") \
                or not all(k in e for k in ("game", "table", "size", "sha256", "storage",
                                           "params", "slots", "positions")):
            raise ProbeFileError(f"manifest {mpath!r} has a malformed entry: {e!r:.200}")
    return m


class ProbeDir:
    """A directory of probe files, as the prober sees a store: the catalogue rows come from
    the manifest, and each table's file is opened (mapped) on first use."""

    def __init__(self, path: str):
        self.path = str(path)
        self.manifest = read_manifest(self.path)
        self.entries = {(e["game"], e["table"]): e for e in self.manifest["files"]}
        self.files: dict[tuple[str, str], ProbeFile] = {}

    def tables(self, game: str | None = None) -> list[dict]:
        return [self._row(i, e) for i, e in enumerate(self.manifest["files"])
                if game is None or e["game"] == game]

    def _row(self, i: int, e: dict) -> dict:
        return {"table_id": i, "game": e["game"], "table_name": e["table"],
                "storage": e["storage"], "params": e["params"], "layout": e.get("layout"),
                "slots": e["slots"], "positions": e["positions"]}

    def table(self, game: str, table: str) -> dict | None:
        e = self.entries.get((game, table))
        return None if e is None else self._row(self.manifest["files"].index(e), e)

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
        meta = f.meta
        if (meta.get("game"), meta.get("table"), meta.get("storage")) != \
                (game, table, e["storage"]) or meta.get("params") != e["params"] \
                or meta.get("slots") != e["slots"]:
            raise ProbeFileError(f"probe file {path!r} holds {meta.get('game')} table "
                                 f"{meta.get('table')!r}, not what its manifest says "
                                 f"({game} {table!r}); export it again")
        if size <= CHECK_ON_OPEN:
            bad = f.verify()
            if bad:
                raise ProbeFileError(f"probe file {path!r}: {bad[0]}")
        self.files[key] = f
        return f

    def open_table(self, row: dict, load: bool = False) -> StoredTable:
        game = next(g for (g, t), e in self.entries.items()
                    if t == row["table_name"] and self.manifest["files"].index(e) ==
                    row["table_id"])
        f = self.open_file(game, row["table_name"])
        return TABLE_TYPES[f.storage](storage_of(row), self, row, f)

    def close(self) -> None:
        for f in self.files.values():
            f.close()
        self.files.clear()


# --------------------------------------------------------------------------- export

@dataclass
class ExportSummary:
    out: str
    written: list = field(default_factory=list)
    skipped: list = field(default_factory=list)
    bytes: int = 0
    seconds: float = 0.0

    def __str__(self) -> str:
        return (f"export to {self.out}: {len(self.written)} files written, {len(self.skipped)} "
                f"current and kept, {self.bytes:,} bytes in all, {self.seconds:.1f} s")


def _write_file(path: str, data: bytes) -> None:
    from tbdb.safe_files import check_target
    check_target(path, "probe file")
    fd, tmp = temporary_beside(path)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        publish(tmp, path)
    except BaseException:
        remove_quietly(tmp)
        raise


def export(db: str | None, out: str, game: str | None = None, tables=None, moves: bool = True,
           progress=True) -> ExportSummary:
    """Write a probe file per built table of ``db`` (of ``game``, named ``tables``) under
    ``out`` and the manifest; files already current (same source table, same options) are
    kept.  The database is opened read-only."""
    from tbdb import games
    from tbdb.database import default_db_path
    from tbdb.progress import Progress
    from tbdb.store import Store
    t0 = time.perf_counter()
    db = db or default_db_path()
    if os.path.exists(out) and not os.path.isdir(out):
        raise ProbeFileError(f"--out {out!r} exists and is not a directory")
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
        os.makedirs(out, exist_ok=True)
        try:
            old = {(e["game"], e["table"]): e for e in read_manifest(out)["files"]}
        except ProbeFileError:
            if os.path.exists(os.path.join(out, MANIFEST)):
                raise
            old = {}
        bar = Progress(sum(storage_of(r).size(r) for _, r in want), "export", mode=progress,
                       unit="slots")
        entries = dict(old)
        for g, row in want:
            built = store.query("SELECT CAST(built AS VARCHAR) FROM tb_tables WHERE "
                                "table_id = ?", [row["table_id"]])[0][0]
            source = {"table_id": int(row["table_id"]), "built": built,
                      "moves": bool(moves) or row["storage"] == "runs"}
            rel = file_name(g, row["table_name"])
            path = os.path.join(out, rel)
            e = old.get((g, row["table_name"]))
            if e is not None and e.get("source") == source and e["path"] == rel and \
                    os.path.isfile(path) and not os.path.islink(path) and \
                    os.path.getsize(path) == e["size"]:
                summary.skipped.append(rel)
                summary.bytes += e["size"]
                bar.finished(storage_of(row).size(row), f"{g} {row['table_name']} (current)")
                continue
            bar.note(f"{g} {row['table_name']}")
            data = write_table(g, row, storage_of(row).load(store, row), moves)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            _write_file(path, data)
            entries[(g, row["table_name"])] = {
                "game": g, "table": row["table_name"], "path": rel, "size": len(data),
                "sha256": hashlib.sha256(data).hexdigest(), "format_version": VERSION,
                **{k: v for k, v in meta_of(g, row).items() if k not in ("game", "table")},
                "moves": source["moves"], "source": source}
            summary.written.append(rel)
            summary.bytes += len(data)
            bar.finished(storage_of(row).size(row), f"{g} {row['table_name']}")
        bar.close()
    manifest = {"format": "tbdb-probe-files", "version": VERSION,
                "files": [entries[k] for k in sorted(entries)]}
    _write_file(os.path.join(out, MANIFEST),
                (json.dumps(manifest, indent=1, sort_keys=True) + "\n").encode())
    summary.seconds = time.perf_counter() - t0
    return summary


def verify_dir(path: str) -> tuple[int, list[str]]:
    """(files checked, problems): every file of the manifest against its size, its sha256,
    its header and its sections' checksums."""
    d = ProbeDir(path)
    problems = []
    for (g, t), e in sorted(d.entries.items()):
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
            ProbeFile(fpath).close()
        except FileNotFoundError:
            problems.append(f"{e['path']}: missing (table {t!r} of {g}); export it again with: "
                            f"tbdb export --db DB --out {path} --game {g} --table {t}")
        except ProbeFileError as exc:
            problems.append(f"{e['path']}: {exc}")
    return len(d.entries), problems
