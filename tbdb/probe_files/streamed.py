"""The probe file of an index table too big to code whole, written as it is coded: its rows
read from the database by idx range, a chunk at a time (``docs/probe-format.md`` unchanged).

``encode_stream`` holds a table's whole stream and about 25 bytes a slot of working arrays
(the pair counts of the substitution, the rewritten sequence, the bits), and the export held
the table's arrays beside it (9 bytes a slot): Chinese Checkers 5x5-6's 2.4·10^9 slots would
have needed about 60 GB.  Here the memory is a chunk's (``chunk_slots``), whatever the table:

1. census: each stream's distinct values (its terminal symbols), by one ``GROUP BY``;
2. grammar: the pair substitution runs on a deterministic sample of the table's blocks
   (``sample_ranges``: runs of blocks spread evenly over the table), recording its rounds;
3. counting: every chunk is substituted by replaying those rounds (``Grammar.replay``: a parse
   by the grammar is all a decoder needs), and the symbols counted: one Huffman code for the
   stream, exact for this parse;
4. coding: every chunk substituted again and coded, its bits appended to a temporary file
   beside the output (the block starts, 4 bytes a block, kept in memory);
5. the file: header, section table (each section's sha256 read back from the temporaries),
   then the sections, copied in; renamed into place when complete.

Nothing depends on the chunk size: blocks are coded alone and chunks hold whole blocks, so the
same table always gives the byte-identical file.  A table whose sample is the whole table gets
exactly ``encode_stream``'s file (the same substitution, replayed on the same blocks).
"""
from __future__ import annotations

import hashlib
import os
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import numpy as np

from tbdb.probe_files.coder import (Code, substitute, check_stream_bytes, pack_values,
                                    stream_head, symbol_limit)
from tbdb.probe_files.header import (BLOCK_SLOTS, LAYOUT_INDEX, MOVE_BLOCK_SLOTS, SECTION_MOVES,
                                     SECTION_ORDER, SECTION_VALUES, ProbeFileError, pad8)
from tbdb.probe_files.order import SlotOrder

# tables of more slots than this are exported streamed (the whole path holds about 40 bytes a
# slot); below it the whole-stream coder keeps its files.  2^26, not 2^28 as before: a table
# coded whole makes one pass of the pair substitution after another over all its slots, and
# a chess 5-piece table streamed coded in 60% of the time for 3% more bytes
# (benchmarks/RESULTS.md, "Moved from code comments")
STREAM_SLOTS = 1 << 26
CHUNK_SLOTS = 1 << 23  # slots read and coded at a time: about 25 bytes each, 2 chunks in flight
SAMPLE_SLOTS = 1 << 23  # slots the pair substitution sees (about 25 bytes each, per stream)
SAMPLE_RUNS = 256  # the sample's runs of consecutive blocks, spread evenly over the table
# DuckDB's buffers while a table is read by range: a read-only connection keeps the blocks it
# read cached up to 80% of RAM by default, so a scan of 5x5-6 would have grown to its file's
# size; reads by range need only the blocks of the range
READ_MEMORY_LIMIT = "512MB"
# a score-run table (Oware) is always exported by ranges of positions of about this many runs
# (``streamed_runs``): about 90 bytes a run of a range while it is read (DuckDB's result, its
# columns, the checks' int64 copies) and written; more runs a range saved no CPU on book 15
CHUNK_RUNS = 1 << 20
ENV = {"stream": "TBDB_EXPORT_STREAM_SLOTS", "chunk": "TBDB_EXPORT_CHUNK_SLOTS",
       "sample": "TBDB_EXPORT_SAMPLE_SLOTS", "runs": "TBDB_EXPORT_CHUNK_RUNS"}
UNITS = {"runs": "runs"}  # what a setting counts, if not slots


def _setting(what: str, default: int, blocks: bool, least: int = 0) -> int:
    """A size from the environment (``ENV``), or ``default``; at least ``least``, or a
    positive multiple of a block's slots if ``blocks``."""
    text = os.environ.get(ENV[what])
    if text is None or text == "":
        return default
    try:
        value = int(text.replace("_", ""))
    except ValueError:
        value = -1
    if value < (1 if blocks else least) or (blocks and value % BLOCK_SLOTS):
        need = f"a positive multiple of {BLOCK_SLOTS}" if blocks else \
            f"a count of {UNITS.get(what, 'slots')} >= {least}"
        raise ValueError(f"{ENV[what]}={text!r}: need {need}")
    return value


def stream_slots() -> int:
    """Tables above this many slots are exported streamed (``TBDB_EXPORT_STREAM_SLOTS``)."""
    return _setting("stream", STREAM_SLOTS, False)


def chunk_slots() -> int:
    return _setting("chunk", CHUNK_SLOTS, True)


def sample_slots() -> int:
    return _setting("sample", SAMPLE_SLOTS, True)


def chunk_runs() -> int:
    """Runs a score-run table is read and written by (``TBDB_EXPORT_CHUNK_RUNS``)."""
    return _setting("runs", CHUNK_RUNS, False, 1)


# --------------------------------------------------------------------------- reading by range

@contextmanager
def bounded_reads(con):
    """DuckDB's buffers on connection ``con`` limited to ``READ_MEMORY_LIMIT`` inside."""
    (old,) = con.execute("SELECT current_setting('memory_limit')").fetchone()
    con.execute(f"SET memory_limit = '{READ_MEMORY_LIMIT}'")
    try:
        yield con
    finally:  # the connection's own setting back (RESET would give DuckDB's default)
        con.execute(f"SET memory_limit = '{old}'")


class IndexRanges:
    """An index table's rows read by idx range: its rows in the database (stored in slot
    order, so a range reads only the row groups that meet it) or its Parquet values file."""

    def __init__(self, store, row: dict):
        self.store = store
        self.table_id = int(row["table_id"])
        self.slots = int(row["slots"])
        self.file = store.checked_file(self.table_id)
        self.name = store.table_label(self.table_id)  # for a damage report

    @contextmanager
    def bounded(self):
        """DuckDB's buffers limited to ``READ_MEMORY_LIMIT`` while the table is read."""
        with bounded_reads(self.store.con):
            yield self

    def _from(self) -> tuple[str, dict]:
        if self.file is not None:
            return "read_parquet($path)", {"path": self.file.path}
        return "tb_index_rows WHERE table_id = $t", {"t": self.table_id}

    def census(self) -> tuple[np.ndarray, np.ndarray, int]:
        """(the value stream's terminals, the move stream's terminals (int64, ascending),
        rows): the distinct values of each stream, NONE's and -1 if a slot has no row."""
        from tbdb.solvers.retrograde import NONE
        src, params = self._from()
        con = self.store.con
        counted = con.execute(f"SELECT result, distance, count(*) FROM {src} GROUP BY ALL",
                              params).fetchall()
        moves = [m for (m,) in con.execute(f"SELECT DISTINCT best_move FROM {src}",
                                           params).fetchall()]
        rows = sum(c for _, _, c in counted)
        result = np.array([r for r, _, _ in counted], np.int64)
        distance = np.array([d for _, d, _ in counted], np.int64)
        if (result == NONE).any() or None in moves or (result.size and (
                (np.abs(result) > 127).any() or (np.abs(distance) >= 1 << 15).any())):
            raise self.store.damaged_table(self.table_id, "a row with no value", self.name)
        values = pack_values(result.astype(np.int8), distance.astype(np.int16))
        moves = np.array(moves, np.int64)
        if rows < self.slots:  # slots without a row: NONE, and no best move
            values = np.append(values, pack_values(np.array([NONE], np.int8),
                                                   np.zeros(1, np.int16)))
            moves = np.append(moves, -1)
        return (np.unique(values.astype(np.int64)), np.unique(moves), rows)

    def read(self, lo: int, hi: int):
        """(result int8, distance int16, best move int32, rows) of slots lo..hi-1 (NONE and
        -1 where no row)."""
        from tbdb.solvers.retrograde import NONE
        from tbdb.storage.index import LOAD_BATCH_ROWS
        from tbdb.db.values_files import arrow_batches
        n = hi - lo
        result = np.full(n, NONE, np.int8)
        distance = np.zeros(n, np.int16)
        best = np.full(n, -1, np.int32)
        columns = ["idx", "result", "distance", "best_move"]
        if self.file is not None:
            import pyarrow.parquet as pq
            batches = pq.read_table(self.file.path, columns=columns,
                                    filters=[("idx", ">=", lo), ("idx", "<", hi)]).to_batches()
        else:
            batches = arrow_batches(self.store.con.sql(
                f"SELECT {', '.join(columns)} FROM tb_index_rows WHERE table_id = $t AND "
                f"idx >= $lo AND idx < $hi", params={"t": self.table_id, "lo": lo, "hi": hi}),
                LOAD_BATCH_ROWS)
        rows = 0
        for batch in batches:
            at = batch.column("idx").to_numpy() - lo
            rows += len(at)
            result[at] = batch.column("result").to_numpy()
            distance[at] = batch.column("distance").to_numpy()
            best[at] = batch.column("best_move").to_numpy()
        if int(np.count_nonzero(result != NONE)) != rows:
            raise self.store.damaged_table(self.table_id, f"{rows} rows for slots {lo}..{hi - 1}"
                                           f" (a slot stored twice, or a row with no value)",
                                           self.name)
        return result, distance, best, rows

    def chunks(self, step: int):
        """(lo, result, distance, best) of slots lo..lo+step, in order, every slot once; a
        ``DamagedTableError`` if rows lie outside the table's slots."""
        rows = 0
        for lo in range(0, self.slots, step):
            result, distance, best, got = self.read(lo, min(self.slots, lo + step))
            rows += got
            yield lo, result, distance, best
        self.rows_read = rows


def move_values(result: np.ndarray, best: np.ndarray) -> np.ndarray:
    """The move stream's values: the best move, -1 at slots without a row (as ``write_table``)."""
    from tbdb.solvers.retrograde import NONE
    return np.where(result == NONE, -1, best).astype(np.int32)


def sample_ranges(slots: int, sample: int, block_slots: int = BLOCK_SLOTS) -> list[tuple]:
    """The slot ranges (lo, hi) the pair substitution sees: the whole table if it has at most
    ``sample`` slots, else runs of consecutive blocks (``SAMPLE_RUNS`` of them, or fewer of a
    block each) spread evenly, starting at block ``r * blocks // runs``."""
    blocks = (slots + block_slots - 1) // block_slots
    want = max(1, sample // block_slots)
    if want >= blocks:
        return [(0, slots)]
    run = max(1, want // SAMPLE_RUNS)
    runs = want // run
    out: list[tuple] = []
    for r in range(runs):  # runs * run <= want < blocks: each run ends before the next starts
        b = r * blocks // runs
        lo, hi = b * block_slots, min(slots, (b + run) * block_slots)
        if out and out[-1][1] == lo:
            out[-1] = (out[-1][0], hi)
        else:
            out.append((lo, hi))
    return out


# --------------------------------------------------------------------------- one stream

class SampledStream:
    """One stream of a table coded by chunks: its terminals (``alphabet``), a grammar made on
    the sample, the symbols' counts, then its code."""

    def __init__(self, alphabet: np.ndarray, sample: np.ndarray, n: int,
                 block_slots: int = BLOCK_SLOTS):
        self.alphabet = np.asarray(alphabet, np.int64)
        self.n, self.block_slots = n, block_slots
        k = len(self.alphabet)
        self.lo, span = int(self.alphabet[0]), int(self.alphabet[-1] - self.alphabet[0]) + 1
        self.place = None  # terminal of value lo + i (-1: none), if the values span little
        if span <= 1 << 24:
            self.place = np.full(span, -1, np.int32)
            self.place[self.alphabet - self.lo] = np.arange(k, dtype=np.int32)
        seq, self.grammar = substitute(self.places(sample), k, block_slots,
                                        symbol_limit(k, len(sample)))
        del seq
        self.used = np.zeros(self.grammar.symbols, np.int64)
        self.code: Code | None = None
        self.starts = np.zeros((n + block_slots - 1) // block_slots + 1, np.uint64)
        self.blocks = 0  # blocks coded so far
        self.bytes = 0  # bytes of bits written so far
        self.kept: list | None = None  # each chunk's substituted symbols, if kept (``counted``)

    def places(self, values: np.ndarray) -> np.ndarray:
        """``values`` (int32) as terminal symbols (int32): through ``place`` (8 bytes a slot
        of temporaries, not searchsorted's 25) when the values span little."""
        changed = ProbeFileError("a value that was not in the table when the export began "
                                 "(the database changed under it?)")
        if not len(values):
            return np.zeros(0, np.int32)
        if self.place is not None:
            if int(values.min()) < self.lo or int(values.max()) >= self.lo + len(self.place):
                raise changed
            at = self.place[values - np.int32(self.lo)]
            if (at < 0).any():
                raise changed
            return at
        at = np.searchsorted(self.alphabet, values)
        at[at == len(self.alphabet)] = 0
        if not np.array_equal(self.alphabet[at], values):
            raise changed
        return at.astype(np.int32)

    def substituted(self, values: np.ndarray) -> tuple[int, np.ndarray, np.ndarray]:
        """A chunk (its first slot a block's) as (its slots, its substituted symbols, their
        counts); changes nothing here, so chunks of one stream may be substituted side by
        side (``counted`` then takes them in order)."""
        from tbdb.solvers import probe_files as kernels
        seq = self.replayed(values)
        return len(values), seq, kernels.symbol_counts(seq, len(seq), self.grammar.symbols)

    def replayed(self, values: np.ndarray) -> np.ndarray:
        """A chunk's values (its first slot a block's) as terminals substituted by the
        grammar's rounds."""
        return self.grammar.replay(self.places(values), self.block_slots)

    def counted(self, part: tuple, keep: bool = False) -> None:
        """Count a chunk's ``substituted`` symbols (chunks in order); ``keep`` them for
        ``encode_kept`` (4 bytes a symbol, 0.04-0.5 symbols a slot on chess) rather than
        substitute the chunk again there."""
        slots, seq, counts = part
        self.used += counts
        if keep:
            if self.kept is None:
                self.kept = []
            self.kept.append((slots, seq.copy()))

    def head(self) -> list[bytes]:
        """The section's bytes before its block starts (after every chunk is ``counted``)."""
        if self.code is None:
            self.code = Code.of(self.used)
        return stream_head(self.alphabet, self.grammar, self.code, self.n, self.block_slots)

    def encode_kept(self, i: int) -> tuple:
        """``encoded`` of chunk ``i`` as ``counted`` kept it (its values are not read again: a
        compact solve's values pick their best moves as they are read, twice the work), the
        kept symbols let go."""
        slots, seq = self.kept[i]
        self.kept[i] = None
        return self.encoded(slots, seq)

    def encoded(self, slots: int, seq: np.ndarray) -> tuple:
        """A chunk of ``slots`` slots substituted into ``seq``, coded: (its blocks, their
        starts, the bits, their bytes).  Changes nothing here: chunks may be encoded side by
        side, then ``appended`` in order."""
        from tbdb.solvers import probe_files as kernels
        code = self.code
        blocks = (slots + self.block_slots - 1) // self.block_slots
        size = self.grammar.size
        starts = kernels.block_starts(seq, len(seq), size, code.lengths, self.block_slots,
                                      blocks)
        bits = kernels.encode(seq, len(seq), size, code.codes, code.lengths, self.block_slots,
                              starts)
        return blocks, starts, bits, int(starts[-1])

    def appended(self, chunk: tuple, out) -> None:
        """An ``encoded`` chunk (the next in order) onto ``out``: its bits, its block starts."""
        blocks, starts, bits, total = chunk
        self.starts[self.blocks:self.blocks + blocks + 1] = starts + np.uint64(self.bytes)
        self.blocks += blocks
        self.bytes += total
        check_stream_bytes(self.bytes)
        out.write(memoryview(bits)[:total])

    def tail(self) -> bytes:
        """The block starts, between the head and the bits."""
        blocks = len(self.starts) - 1
        if self.blocks != blocks:
            raise AssertionError(f"{self.blocks} blocks coded of {blocks}")
        return self.starts.astype("<u4").tobytes() + b"\0" * pad8(4 * (blocks + 1))


# --------------------------------------------------------------------------- the file

def write_index_file(store, game: str, row: dict, moves: bool, path: str,
                     note=None, chunk: int | None = None,
                     sample: int | None = None) -> tuple[int, str, int]:
    """Write index table ``row``'s probe file to ``path`` (by a temporary file renamed into
    place) reading its rows ``chunk`` slots at a time; (its size, its sha256, the table's rows).
    ``note(text)`` hears how far it got."""
    chunk = chunk_slots() if chunk is None else chunk
    sample = sample_slots() if sample is None else sample
    if chunk < 1 or chunk % BLOCK_SLOTS:
        raise ValueError(f"chunk of {chunk} slots: need a positive multiple of {BLOCK_SLOTS}")
    note = note or (lambda text: None)
    with IndexRanges(store, row).bounded() as reader:
        return write_streamed(reader, game, row, moves, path, note, chunk, sample)


def write_streamed(reader: IndexRanges, game: str, row: dict, moves: bool, path: str, note,
                   chunk: int, sample: int, keep: bool = False) -> tuple[int, str, int]:
    """``write_index_file`` from ``reader``; ``keep``: each chunk's substituted symbols kept
    from counting to coding (``SampledStream.counted``: a build holds its table in memory
    anyway, an export reads it a chunk at a time and keeps its memory a chunk's)."""
    from tbdb.safe_files import remove_quietly, temporary_beside
    store = reader.store
    label = f"{game} {row['table_name']}"
    n = reader.slots
    value_alphabet, move_alphabet, rows = reader.census()
    note(f"{label}: sample")
    picked = [reader.read(lo, hi) for lo, hi in sample_ranges(n, sample)]
    vals_sample = np.concatenate([pack_values(r, d) for r, d, _, _ in picked])
    move_sample = np.concatenate([move_values(r, b) for r, _, b, _ in picked]) if moves else None
    del picked
    with ThreadPoolExecutor(2) as pool:  # the two streams code side by side (nogil kernels)
        jobs = [pool.submit(SampledStream, value_alphabet, vals_sample, n)]
        if moves:
            jobs.append(pool.submit(SampledStream, move_alphabet, move_sample, n,
                                    MOVE_BLOCK_SLOTS))
        streams = [j.result() for j in jobs]
        del vals_sample, move_sample

        # chunks of a stream in flight at once: with the values' stream alone, both threads
        # work on it (two chunks side by side), else one a stream
        depth = 1 if moves else 2
        running: deque = deque()  # per chunk in flight: (stream, its job) of each stream

        def finish(apply, last: int = 0) -> None:
            """``apply(stream, result)`` of the chunks in flight, in order, until ``last``
            remain."""
            while len(running) > last:
                for s, j in running.popleft():
                    apply(s, j.result())

        def each_chunk(work, apply, what: str) -> None:
            """``work(stream, values)`` on every chunk, both streams at once (or two chunks
            of one), while the next chunk is read; ``apply(stream, its result)`` in order."""
            for lo, result, distance, best in reader.chunks(chunk):
                parts = [pack_values(result, distance)]
                if moves:
                    parts.append(move_values(result, best))
                del result, distance, best
                finish(apply, depth - 1)
                running.append([(s, pool.submit(work, s, v)) for s, v in zip(streams, parts)])
                note(f"{label}: {what} {100 * lo // max(n, 1)}%")
            finish(apply)
            if reader.rows_read != rows:
                raise store.damaged_table(reader.table_id, f"{rows} rows, {reader.rows_read} of "
                                          f"them in its {n} slots", reader.name)

        each_chunk(lambda s, v: s.substituted(v), lambda s, part: s.counted(part, keep),
                   "counting")
        tmps, outs = [], []
        try:
            for _ in streams:
                fd, tmp = temporary_beside(path, "tbdb-bits")
                tmps.append(tmp)
                outs.append(os.fdopen(fd, "w+b"))
            heads = [s.head() for s in streams]
            for s, out in zip(streams, outs):
                s.out = out

            def appended(s, coded) -> None:  # a stream's chunks go out in order
                s.appended(coded, s.out)

            if keep:
                for i, lo in enumerate(range(0, n, chunk)):
                    finish(appended, depth - 1)
                    running.append([(s, pool.submit(s.encode_kept, i)) for s in streams])
                    note(f"{label}: coding {100 * lo // max(n, 1)}%")
                finish(appended)
            else:
                each_chunk(lambda s, v: s.encoded(len(v), s.replayed(v)), appended, "coding")
            note(f"{label}: writing")
            size, digest = _assemble(game, row, moves, path, n, rows, streams, heads, outs,
                                     tmps)
        finally:
            for out in outs:
                out.close()
            for tmp in tmps:
                remove_quietly(tmp)
    return size, digest, rows


def _assemble(game: str, row: dict, moves: bool, path: str, n: int, rows: int, streams: list,
              heads: list, outs: list, tmps: list) -> tuple[int, str]:
    """``write_streamed``'s last step: the file from the streams' heads and their bits coded
    into the temporary files ``outs``, written beside ``path`` (its temporary name added to
    ``tmps``) and renamed into place; (its size, its sha256)."""
    from tbdb.probe_files.container import file_head
    from tbdb.safe_files import check_target, publish, temporary_beside
    # streamed tables keep the index's slot order: choosing another needs the whole
    # table in memory to permute (``tbdb.probe_files.order``)
    order = SlotOrder.identity(n).to_bytes()
    sections = [(SECTION_ORDER, order, None, len(order), hashlib.sha256(order).digest())]
    for tag, s, head, out in zip((SECTION_VALUES, SECTION_MOVES), streams, heads, outs):
        out.write(b"\0" * 8)  # a reader may load 8 bytes at any block's start
        out.flush()
        prefix = b"".join(head) + s.tail()
        digest = hashlib.sha256(prefix)
        for piece in _pieces(out):
            digest.update(piece)
        sections.append((tag, prefix, out, len(prefix) + s.bytes + 8, digest.digest()))
    head = file_head(game, row, moves, n, rows,
                     [(tag, length, digest) for tag, _, _, length, digest in sections],
                     LAYOUT_INDEX)
    check_target(path, "probe file")
    fd, tmp = temporary_beside(path)
    tmps.append(tmp)
    whole = hashlib.sha256()
    size = 0
    with os.fdopen(fd, "wb") as f:
        def put(data) -> None:
            nonlocal size
            f.write(data)
            whole.update(data)
            size += len(data)
        for part in head:
            put(part)
        for _, prefix, out, length, _ in sections:
            put(prefix)
            for piece in _pieces(out) if out is not None else ():
                put(piece)
            put(b"\0" * pad8(length))
    publish(tmp, path)
    return size, whole.hexdigest()


def _pieces(f, size: int = 1 << 22):
    """The contents of open file ``f`` from its start, ``size`` bytes at a time."""
    f.seek(0)
    while True:
        piece = f.read(size)
        if not piece:
            return
        yield piece
