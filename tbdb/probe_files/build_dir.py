"""A build straight into a directory of probe files (``tbdb build GAME --probe-files DIR``).

A build keeps its rows in DuckDB and ``tbdb export`` codes them into probe files afterwards, a
fraction of the rows' bytes.  Chess's 110 tables of five pieces hold 4.7·10^10 slots: their
rows would take several times the disk of their probe files, more than the disk holds.  So a
build may skip the rows: each table is coded from its solved arrays as it is solved, the file
renamed into place whole, then the manifest rewritten to list it.

``ProbeBuild`` is what the build driver writes to in place of the DuckDB ``Store``:

- a table is done when the manifest lists it and its file has the listed size, so a build
  killed at any moment resumes at the first table not listed (a file written but not yet listed
  is written again);
- the tables a later table reads (captures, promotions) are decoded from their files;
- the file of a table is the file ``tbdb export`` writes of the same rows, byte for byte
  (``tests/test_build_probe_files.py``); its manifest entry also records the table's statistics
  (``stats``: the rows of ``draw_analysis`` a database would show) and its solve.
"""
from __future__ import annotations

import datetime as dt
import json
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from tbdb.errors import DamagedTableError, MissingTableError
from tbdb.probe_files.coder import Stream, pack_values, symbols_of, unpack_values
from tbdb.probe_files.directory_lock import DirectoryLock
from tbdb.probe_files.directory import (write_probe_file, file_name, manifest_entries,
                                        manifest_entry, read_manifest, size_and_sha256,
                                        write_manifest)
from tbdb.probe_files.container import ProbeFile, check_inside
from tbdb.probe_files.format import start_table
from tbdb.probe_files.header import (SECTION_MOVES, SECTION_ORDER, SECTION_VALUES,
                                     ProbeFileError)
from tbdb.probe_files.order import SlotOrder
from tbdb.probe_files.streamed import (write_streamed, chunk_slots, sample_ranges, sample_slots,
                                       stream_slots)
from tbdb.safe_files import remove_stale_temporaries
from tbdb.storage import storage_of

WHOLE_CODING_BYTES = 40  # a slot, while a table of at most ``stream_slots()`` is coded
# a table another one reads is decoded from its file this many slots at a time, each span's
# blocks on every core straight into int32 (``Stream.span``): ``Stream.all`` (int64, checked,
# then narrowed) took five times as long (benchmarks/RESULTS.md, "Moved from code comments")
DECODE_SLOTS = 1 << 24


class ProbeBuild:
    """A directory of probe files as a build's store: ``states``, ``write_table`` and
    ``load_table`` as ``tbdb.db.store.Store`` has them, for index tables."""

    # a table's file is coded before the next table solves, not beside it: the coder's two
    # threads and a solve's parallel kernels on two cores slow each other more than they
    # overlap (benchmarks/RESULTS.md, "Moved from code comments")
    write_beside_solve = False

    def __init__(self, path: str, game: str, moves: bool = True):
        self.path = str(path)
        self.game = game
        self.moves = bool(moves)  # False: files of values alone (``--no-moves``)
        if not self.path.strip():
            raise ProbeFileError(f"--probe-files {self.path!r}: give a directory")
        if os.path.exists(self.path) and not os.path.isdir(self.path):
            raise ProbeFileError(f"--probe-files {self.path!r} exists and is not a directory")
        if os.path.isdir(self.path):  # refused before anything is made or locked
            self._check_kind(manifest_entries(self.path))
        os.makedirs(os.path.join(self.path, game), exist_ok=True)
        self.writer = DirectoryLock(self.path, "--probe-files")  # until close()
        try:
            # read again now that no other writer can change it
            self.entries = entries = manifest_entries(self.path)
            self._check_kind(entries)
        except BaseException:
            self.writer.release()
            raise
        for d in ("", game):  # what a build or export killed midway left under temporary names
            remove_stale_temporaries(os.path.join(self.path, d))
        self.lock = threading.Lock()  # the writer thread and the solving thread
        self.verified: set[tuple] = set()  # the files read whose checksums were checked

    def _check_kind(self, entries: dict) -> None:
        """One directory, one kind: a resumed build must not mix files with and without best
        moves."""
        other = sorted(t for (g, t), e in entries.items()
                       if g == self.game and e["moves"] != self.moves)
        if other:
            held, flag = ("best moves", "without --no-moves") if not self.moves else \
                ("no best moves (built with --no-moves)", "with --no-moves")
            raise ProbeFileError(f"--probe-files {self.path!r} holds {self.game} tables with "
                                 f"{held} ({other[0]!r} among {len(other)}): build it "
                                 f"{flag}, or into another directory")

    def write_bytes(self, data) -> int:
        """The bytes coding a table's file holds at its peak beside the values: the
        whole-table coder about 40 a slot (``tbdb.probe_files.streamed``); the streamed one the
        substituted symbols it keeps (4 bytes a symbol, at most a symbol a slot) and its
        chunks."""
        if data.slots > stream_slots():
            return 4 * data.slots + 64 * chunk_slots()
        return WHOLE_CODING_BYTES * data.slots

    # the Store interface the build driver uses
    def __enter__(self) -> ProbeBuild:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self.writer.release()

    def sibling(self) -> ProbeBuild:
        return self  # writes are whole files and a manifest rewritten under a lock

    def plan(self, game: str, tables: list[str]) -> None:
        pass  # the manifest lists what is done; nothing else is recorded

    def mark_building(self, game: str, table: str) -> None:
        pass

    def states(self, game: str) -> dict[str, str]:
        """{table: "done"} for every listed table whose file has its listed size (one that
        does not is built again)."""
        out = {}
        with self.lock:
            for (g, t), e in self.entries.items():
                path = os.path.join(self.path, e["path"])
                if g == game and os.path.isfile(path) and os.path.getsize(path) == e["size"]:
                    out[t] = "done"
        return out

    def table(self, game: str, table: str) -> dict | None:
        e = self.entries.get((game, table))
        if e is None:
            return None
        return {"table_id": -1, "game": game, "table_name": table, "storage": e["storage"],
                "params": e["params"], "layout": e.get("layout"), "slots": e["slots"],
                "positions": e["positions"]}

    def require_table(self, game: str, table: str, what: str, how: str) -> dict:
        row = self.table(game, table)
        if row is None:
            raise MissingTableError(f"{what} needs table {table!r} of {game}, which is not in "
                                    f"the probe files of {self.path!r}; build it with: {how} "
                                    f"--probe-files {self.path}")
        return row

    def write_table(self, game: str, table: str, data, seconds: float,
                    next_table: str | None = None) -> int:
        """Code solved ``table`` into its probe file and list it in the manifest; its rows."""
        if not storage_of(data).builds_probe_files:
            raise ValueError(f"{game} tables are stored as {data.storage!r}: only index tables "
                             f"are built straight into probe files")
        rel = file_name(game, table)
        path = os.path.join(self.path, rel)
        row = {"table_id": -1, "table_name": table, "storage": storage_of(data).name,
               "params": json.loads(json.dumps(data.params, sort_keys=True)),  # as the catalogue
               "layout": data.layout,
               "slots": data.slots, "positions": 0}
        t0 = time.perf_counter()
        try:
            if data.slots > stream_slots():
                reader = SolvedRanges(data.values, data.slots, f"{game} {table}", self.moves)
                row["positions"] = reader.census()[2]  # the header's position count
                size, sha256, rows = write_streamed(reader, game, row, self.moves, path,
                                            lambda text: None, chunk_slots(), sample_slots(),
                                            keep=True)
            else:
                row["positions"] = rows = storage_of(data).row_count(data)
                with ThreadPoolExecutor(2) as pool:
                    parts = start_table(game, row, data.values, self.moves, pool)()
                write_probe_file(path, parts)
                size, sha256 = size_and_sha256(parts)
        finally:
            release = getattr(data.values, "release", None)
            if release is not None:
                release()
        source = {"build": "probe-files", "moves": self.moves,
                  "built": dt.datetime.now().isoformat(sep=" ", timespec="seconds")}
        entry = {**manifest_entry(game, row, rel, size, sha256, source),
                 "solve": {"mode": data.mode, "seconds": round(float(seconds), 1),
                           "coding_seconds": round(time.perf_counter() - t0, 1),
                           "estimate_bytes": data.estimate_bytes,
                           "peak_bytes": data.peak_bytes,
                           "raw_positions": int(data.raw_positions),
                           "positions_answered": int(data.positions_answered),
                           "illegal": int(data.illegal)},
                 "stats": [_stat(s) for s in data.stats]}
        with self.lock:
            self.entries[(game, table)] = entry
            write_manifest(self.path, self.entries)
        stored = getattr(data.values, "stored", None)
        if stored is not None:
            stored()  # a compact solve's saved state: kept until the table is listed
        return rows

    def load_table(self, row: dict):
        """A listed table's values decoded from its file (a build reads the tables its table's
        moves lead to): result and distance now, best moves on first use."""
        return self._read(row, FileValues)

    def load_values_at(self, row: dict, slots: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(result, distance) of a listed table at ``slots`` (int64, the game's order),
        decoded from its file block by block, only the blocks that hold them and each up to
        its last slot asked: a table's promotions reach about one slot in twenty of the
        tables they lead to, in one block in six."""
        return self._read(row, lambda f: values_at(f, slots))

    def _read(self, row: dict, read):
        """``read(the table's open ProbeFile)``, its damage said in one line."""
        e = self.entries[(self.game, row["table_name"])]
        path = os.path.join(self.path, e["path"])
        what = f"probe file {path!r} of {self.game} table {row['table_name']!r}"
        try:
            check_inside(path, self.path, "probe file")
            f = ProbeFile(path)
            if os.path.getsize(path) != e["size"] or f.slots != e["slots"] or \
                    f.moves != self.moves:
                raise ProbeFileError("not the file its manifest lists")
            self._verify_once(path, f)
            return read(f)
        except (FileNotFoundError, ProbeFileError) as exc:
            raise DamagedTableError(f"{what} cannot be read ({exc}); build it again with "
                                    f"--rebuild {row['table_name']}") from None

    def _verify_once(self, path: str, f: ProbeFile) -> None:
        """Every checksum of a file a table is read from, once per file and build: a flipped
        bit in a stream decodes to other values without a word, and a table built on them
        would keep them (lookups check files up to 16 MiB on opening; a 5-piece chess table's
        file takes a fraction of a second, beside a solve of minutes)."""
        st = os.stat(path)
        key = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
        if key in self.verified:
            return
        bad = f.verify()
        if bad:
            raise ProbeFileError(bad[0])
        self.verified.add(key)


def values_at(f: ProbeFile, slots: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(result, distance) at ``slots`` (int64, the game's slot order) of probe file ``f``."""
    slots = np.asarray(slots, np.int64)
    if len(slots) and (slots.min() < 0 or slots.max() >= f.slots):
        raise ValueError(f"slots {slots.min()}..{slots.max()}: the table has {f.slots}")
    order = SlotOrder.parse(f.section(SECTION_ORDER), f.slots, f.path)
    places = slots if order.is_identity else order.positions(slots)
    return unpack_values(Stream.parse(f.section(SECTION_VALUES), f.path).gather(places))


class FileValues:
    """An index table's values (``IndexValues``' fields) decoded from its probe
    file: result and distance at once, best moves when first asked for (a build's tables read
    only the first two of the tables they lead to: 3 bytes a slot, not 9), multiplicities as
    ones (a probe file keeps none)."""

    mode = ""
    estimate = None

    def __init__(self, f: ProbeFile):
        self.file = f
        self.order = SlotOrder.parse(f.section(SECTION_ORDER), f.slots, f.path)
        if not self.order.is_identity:
            self.result, self.distance = unpack_values(self._decoded(SECTION_VALUES))
        else:  # unpacked a chunk at a time: no int32 copy of the whole stream beside them
            self.result = np.empty(f.slots, np.int8)
            self.distance = np.empty(f.slots, np.int16)
            for lo, hi, values in self._spans(SECTION_VALUES):
                self.result[lo:hi], self.distance[lo:hi] = unpack_values(values)
        self._best = None

    def _spans(self, tag: bytes):
        """(lo, hi, their values int32) of section ``tag``'s stream, span by span
        (``DECODE_SLOTS``), in the file's slot order."""
        stream = Stream.parse(self.file.section(tag), self.file.path)
        for lo, hi in _spans(stream):
            yield lo, hi, stream.span(lo, hi)

    def _decoded(self, tag: bytes) -> np.ndarray:
        """Every value of section ``tag``'s stream (int32), in the game's slot order."""
        out = np.empty(self.file.slots, np.int32)
        for lo, hi, values in self._spans(tag):
            out[lo:hi] = values
        return out if self.order.is_identity else self.order.to_slots(out)

    @property
    def size(self) -> int:
        return self.file.slots

    @property
    def best(self) -> np.ndarray:
        if self._best is None:
            self._best = self._decoded(SECTION_MOVES)
        return self._best

    @property
    def multiplicity(self) -> np.ndarray:
        return np.ones(self.size, np.int16)

    def chunks(self, step: int, best: bool = True):
        """As ``IndexValues.chunks``."""
        for lo in range(0, self.size, step):
            hi = min(self.size, lo + step)
            yield (lo, self.result[lo:hi], self.distance[lo:hi],
                   self.best[lo:hi] if best else None, np.ones(hi - lo, np.int16))


def _spans(stream: Stream):
    """The slot ranges a big stream is decoded by: about ``DECODE_SLOTS`` each, whole blocks."""
    step = max(1, DECODE_SLOTS // stream.block_slots) * stream.block_slots
    for lo in range(0, stream.n, step):
        yield lo, min(stream.n, lo + step)


def _stat(s) -> dict:
    return {"material": s.label, "pieces": int(s.pieces), "side_to_move": s.side_to_move,
            **{c: int(getattr(s, c)) for c in ("positions", "wins", "draws", "losses",
                                                "illegal")},
            "longest_win": None if s.longest_win is None else int(s.longest_win),
            "longest_loss": None if s.longest_loss is None else int(s.longest_loss)}


class SolvedRanges:
    """A solved table's values read as the streamed coder reads a database table's rows
    (``tbdb.probe_files.streamed.IndexRanges``): the values' ``chunks`` in slot order, and the
    sample's ranges kept on the first pass, so a compact solve's values are never made whole."""

    def __init__(self, values, slots: int, name: str, moves: bool = True):
        self.values = values
        self.slots = slots
        self.name = name
        self.moves = moves  # False: best moves neither read nor counted (``None`` in chunks)
        self.table_id = -1
        # the coder asks its reader's store for a damage report (not ``self``: a reference
        # cycle would keep the table's values alive until Python's cycle collector ran, which
        # a build that allocates few Python objects seldom makes it do: gigabytes a 5-piece table)
        self.store = _DamageReports()
        self.samples: dict[tuple[int, int], list] = {}
        self._census = None

    def chunks(self, step: int):
        """(lo, result, distance, best) of slots lo..lo+step, in order."""
        from tbdb.solvers.retrograde import NONE
        rows = 0
        for lo, result, distance, best, _ in self.values.chunks(step, best=self.moves):
            rows += int(np.count_nonzero(result != NONE))
            yield lo, result, distance, best
        self.rows_read = rows

    def census(self) -> tuple[np.ndarray, np.ndarray, int]:
        """(the value stream's terminals, the move stream's, rows), as ``IndexRanges.census``;
        one pass, which also keeps the sample ranges' values for ``read``."""
        if self._census is not None:
            return self._census
        from tbdb.solvers.retrograde import NONE
        ranges = sample_ranges(self.slots, sample_slots())
        parts: dict[tuple[int, int], list] = {r: [] for r in ranges}
        seen_values = np.zeros(0, np.int64)
        seen_moves = np.zeros(0, np.int64)
        for lo, result, distance, best in self.chunks(chunk_slots()):
            hi = lo + len(result)
            for a, b in ranges:
                if a < hi and b > lo:
                    s, e = max(a, lo) - lo, min(b, hi) - lo
                    parts[(a, b)].append((result[s:e].copy(), distance[s:e].copy(),
                                          None if best is None else best[s:e].copy()))
            filled = result != NONE
            if filled.any():
                seen_values = np.union1d(seen_values, symbols_of(
                    pack_values(result[filled], distance[filled]))[0])
                if best is not None:
                    seen_moves = np.union1d(seen_moves, symbols_of(best[filled])[0])
        rows = self.rows_read
        if rows < self.slots:  # slots without a row: NONE, and no best move
            seen_values = np.union1d(seen_values, pack_values(
                np.array([NONE], np.int8), np.zeros(1, np.int16)).astype(np.int64))
            seen_moves = np.union1d(seen_moves, np.array([-1], np.int64))
        self.samples = {r: [None if c[0] is None else np.concatenate(c) for c in zip(*p)]
                        for r, p in parts.items()}
        self._census = (seen_values, seen_moves, rows)
        return self._census

    def read(self, lo: int, hi: int):
        """(result, distance, best, rows) of a sample range (``census`` kept them)."""
        from tbdb.solvers.retrograde import NONE
        result, distance, best = self.samples.pop((lo, hi))
        if best is not None:
            best = np.where(result == NONE, -1, best).astype(np.int32)
        return result, distance, best, int(np.count_nonzero(result != NONE))


class _DamageReports:
    """The ``store`` of a ``SolvedRanges``: what the coder raises if the rows it counted and
    the rows it coded differ."""

    @staticmethod
    def damaged_table(table_id: int, what: str, name: str) -> Exception:
        return DamagedTableError(f"{name}: {what} (while coding its probe file)")


def per_pieces(path: str, game: str) -> list[tuple]:
    """(pieces, positions, wins, draws, losses, longest win) per number of pieces over the
    tables of ``game`` in directory ``path``, from the statistics their manifest entries keep
    (what ``tbdb build`` prints of ``draw_analysis`` after a build into a database)."""
    sums: dict[int, list] = {}
    for e in read_manifest(path)["files"]:
        if e["game"] != game:
            continue
        for s in e.get("stats", ()):
            row = sums.setdefault(s["pieces"], [0, 0, 0, 0, None])
            for i, c in enumerate(("positions", "wins", "draws", "losses")):
                row[i] += s[c]
            if s["longest_win"] is not None:
                row[4] = max(row[4] or 0, s["longest_win"])
    return [(p, *sums[p]) for p in sorted(sums)]
