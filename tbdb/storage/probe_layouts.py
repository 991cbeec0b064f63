"""Each storage kind's probe-file layout (``docs/probe-format.md``), as the kind owns its DuckDB
rows: the sections its file holds, the reader class that opens them, how ``tbdb verify
--against`` compares a file with the database, whether libtbprobe probes it, whether it is
written a range at a time.  ``Storage.probe_file`` is the kind's layout; the probe-file code
asks it and never the kind's name.  The container around the sections (header, JSON, section
table) is ``tbdb.probe_files.container``'s."""
from __future__ import annotations

import numpy as np

from tbdb.probe_files.container import bytes_of, file_parts
from tbdb.probe_files.header import (BLOCK_SLOTS, LAYOUT_DIRECT, LAYOUT_INDEX, LAYOUT_KEY,
                                     LAYOUT_RUNS, MOVE_BLOCK_SLOTS, SECTION_KEY_DISTANCES,
                                     SECTION_KEY_MOVES, SECTION_KEY_RESULTS, SECTION_KEYS,
                                     SECTION_MOVES, SECTION_ORDER, SECTION_VALUES)
from tbdb.probe_files.streamed_runs import DTYPES as RUN_DTYPES, TAGS as RUN_SECTIONS


class ProbeLayout:
    """A storage kind's probe-file layout (see the module docstring); no state."""
    number = -1  # the header's layout number (``header.LAYOUT_*``)
    native = False  # libtbprobe probes its files (``tbdb.probe_files.native``)
    always_moves = False  # its best moves are kept even with --no-moves
    direct_cells = False  # ``tbdb export --direct`` writes it in direct cells
    rederived = False  # ``tbdb verify --db DIR`` re-derives its values by the rules
    outcome_section: bytes | None = None  # ... or checks this section's results are outcomes

    def start(self, game: str, row: dict, values, moves: bool, pool, direct: bool, order_of):
        """``tbdb.probe_files.format.start_table`` of a table of this kind: coding handed to
        ``pool`` now, the function returned gives the file's buffers.  ``order_of(values)``:
        the slot order an index file is written in (``format.index_order``)."""
        raise NotImplementedError

    def written_alone(self, row: dict) -> bool:
        """Whether table ``row`` is exported (``write_file``) and compared a range at a time."""
        return False

    def write_file(self, store, game: str, row: dict, moves: bool, path: str, direct: bool,
                   note) -> tuple[int, str, int]:
        """Write a table ``written_alone`` to ``path`` from ``store``: (size, sha256, rows)."""
        raise NotImplementedError

    def reader(self, file) -> type:
        """The class that reads ``file``'s table (``tbdb.probe_files.tables``)."""
        raise NotImplementedError

    def table(self, storage, store, row: dict, file):
        """``file``'s table as the prober holds it (``storage``: the catalogue row's kind)."""
        return self.reader(file)(storage, store, row, file)

    def compare(self, table, f, store, row: dict) -> list[str]:
        """What differs between ``table`` (read from probe file ``f``) and its rows in
        ``store`` (catalogue row ``row``), each a line."""
        raise NotImplementedError


class IndexFile(ProbeLayout):
    """An index table: its slot order, then the values' and best moves' streams (or direct
    cells, ``tbdb.probe_files.direct``)."""
    number = LAYOUT_INDEX
    native = True
    direct_cells = True
    rederived = True

    def start(self, game, row, values, moves, pool, direct, order_of):
        from tbdb.probe_files.coder import encode_stream, pack_values
        from tbdb.solvers.retrograde import NONE
        streams = [pack_values(values.result, values.distance)]
        if moves:
            streams.append(np.where(values.result == NONE, -1, values.best).astype(np.int32))
        slots, rows = len(values.result), int(np.count_nonzero(values.result != NONE))
        if direct:
            from tbdb.probe_files.direct import direct_sections
            job = pool.submit(direct_sections, streams[0], streams[1] if moves else None,
                              f"{game} table {row['table_name']!r}")
            return lambda: file_parts(game, row, moves, slots, rows, job.result(),
                                      LAYOUT_DIRECT)
        order = order_of(streams[0])
        coding = [pool.submit(encode_stream, order.to_stream(s), block)
                  for s, block in zip(streams, (BLOCK_SLOTS, MOVE_BLOCK_SLOTS))]
        return lambda: file_parts(game, row, moves, slots, rows, [
            (SECTION_ORDER, order.to_bytes())] + list(zip(
                (SECTION_VALUES, SECTION_MOVES), (c.result() for c in coding))), self.number)

    def written_alone(self, row):
        from tbdb.probe_files.streamed import stream_slots
        return int(row["slots"]) > stream_slots()

    def write_file(self, store, game, row, moves, path, direct, note):
        if direct:
            from tbdb.probe_files.direct import write_direct_file
            return write_direct_file(store, game, row, moves, path, note=note)
        from tbdb.probe_files.streamed import write_index_file
        return write_index_file(store, game, row, moves, path, note=note)

    def reader(self, file):
        from tbdb.probe_files.tables import ProbeDirectTable, ProbeIndexTable
        return ProbeDirectTable if file.direct else ProbeIndexTable

    def compare(self, table, f, store, row):
        if self.written_alone(row):  # a chunk at a time, as it was exported
            from tbdb.probe_files.streamed import IndexRanges, chunk_slots
            with IndexRanges(store, row).bounded() as reader:
                return _chunk_differences(table, f, reader, chunk_slots())
        from tbdb.probe_files.coder import pack_values
        from tbdb.solvers.retrograde import NONE
        values = table.storage.load(store, row)
        out = _compare("values at slot", table.order.to_slots(table.values.all()),
                       pack_values(values.result, values.distance))
        if table.moves is not None:
            best = np.where(values.result == NONE, -1, values.best)
            out += _compare("best moves at slot", table.order.to_slots(table.moves.all()), best)
        return out


class KeyFile(ProbeLayout):
    """A key table: its keys sorted, then results, distances and best moves, row by row."""
    number = LAYOUT_KEY
    outcome_section = SECTION_KEY_RESULTS

    def start(self, game, row, values, moves, pool, direct, order_of):
        keys, result, distance, best = key_rows(values)
        sections = [(SECTION_KEYS, keys.astype("<i8").tobytes()),
                    (SECTION_KEY_RESULTS, result.tobytes()),
                    (SECTION_KEY_DISTANCES, distance.astype("<i2").tobytes())]
        if moves:
            sections.append((SECTION_KEY_MOVES, best.astype("<i4").tobytes()))
        return lambda: file_parts(game, row, moves, len(keys), len(keys), sections,
                                  self.number)

    def reader(self, file):
        from tbdb.probe_files.tables import ProbeKeyTable
        return ProbeKeyTable

    def compare(self, table, f, store, row):
        keys, result, distance, best = key_rows(table.storage.load(store, row))
        out = _compare("keys at row", table.keys, keys) + \
            _compare("results at row", table.result, result) + \
            _compare("distances at row", table.distance, distance)
        if f.moves:
            out += _compare("best moves at row", table.best, best)
        return out


class RunFile(ProbeLayout):
    """A score-run table: each position's first run, then the runs' first plies, scores and
    best moves (``tbdb.probe_files.streamed_runs`` writes it a range at a time)."""
    number = LAYOUT_RUNS
    always_moves = True  # score tables derive no best move: theirs are always kept
    sections, dtypes = RUN_SECTIONS, RUN_DTYPES  # the sections in order, their element types

    def start(self, game, row, values, moves, pool, direct, order_of):
        # byte views of ``values``' arrays, not copies: Oware's 20-seed book holds gigabytes of
        # runs, and a copy of each section beside it did not fit
        arrays = (values.offsets, values.start, values.score, values.move)
        sections = [(tag, bytes_of(a, dtype))
                    for tag, a, dtype in zip(self.sections, arrays, self.dtypes)]
        slots, rows = len(values.offsets) - 1, int(values.offsets[-1])
        return lambda: file_parts(game, row, True, slots, rows, sections, self.number)

    def written_alone(self, row):
        return True

    def write_file(self, store, game, row, moves, path, direct, note):
        from tbdb.probe_files.streamed_runs import write_runs_file
        return write_runs_file(store, game, row, path, note=note)

    def reader(self, file):
        from tbdb.probe_files.tables import ProbeRunTable
        return ProbeRunTable

    def compare(self, table, f, store, row):
        from tbdb.probe_files.streamed import bounded_reads, chunk_runs
        with bounded_reads(store.con):  # a range of positions at a time, as it was exported
            return _run_differences(table, store, row, chunk_runs())


def key_rows(levels):
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


# --------------------------------------------------------------------------- compare

def _compare(what: str, got, want) -> list[str]:
    """The line saying how arrays ``got`` (the file) and ``want`` (the database) differ."""
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape:
        return [f"{what}: {got.shape} in the file, {want.shape} in the database"]
    bad = np.flatnonzero((got != want).reshape(len(got), -1).any(axis=1)) if len(got) else []
    if len(bad):
        i = int(bad[0])
        return [f"{what}: {len(bad):,} differ, the first at {i} ({got[i].tolist()} in the "
                f"file, {want[i].tolist()} in the database)"]
    return []


class _Tally:
    """Differences counted over chunks: what -> [entries that differ, the first, got, want]."""

    def __init__(self):
        self.wrong: dict[str, list] = {}

    def add(self, what: str, first: int, got, want) -> None:
        bad = np.flatnonzero(np.asarray(got) != np.asarray(want))
        if len(bad):
            i = int(bad[0])
            w = self.wrong.setdefault(what, [0, first + i, int(got[i]), int(want[i])])
            w[0] += len(bad)

    def lines(self) -> list[str]:
        return [f"{what}: {n:,} differ, the first at {i} ({g} in the file, {w} in the "
                f"database)" for what, (n, i, g, w) in self.wrong.items()]


def _chunk_differences(table, f, reader, step: int) -> list[str]:
    """What differs between an index table's probe file and its rows in the database, read
    ``step`` slots at a time (the whole table would not fit: 5x5-6 would need tens of GB)."""
    from tbdb.probe_files.coder import pack_values
    from tbdb.probe_files.streamed import move_values
    if f.slots != reader.slots:
        return [f"{f.slots} slots in the file, {reader.slots} in the database"]
    tally = _Tally()
    for lo, result, distance, best in reader.chunks(step):
        slots = np.arange(lo, lo + len(result), dtype=np.int64)
        pairs = [("values at slot", table.values, pack_values(result, distance))]
        if table.moves is not None:
            pairs.append(("best moves at slot", table.moves, move_values(result, best)))
        for what, stream, want in pairs:
            tally.add(what, lo, stream.gather(table.positions(slots)), want)
    out = tally.lines()
    if reader.rows_read != f.rows:
        out.append(f"{f.rows:,} rows in the file, {reader.rows_read:,} in the database")
    return out


def _run_differences(table, store, row: dict, chunk: int) -> list[str]:
    """What differs between a score-run table's probe file and its runs in the database,
    read about ``chunk`` runs at a time (the whole book would not fit: Oware's 20-seed book
    has 1.9 billion runs)."""
    from tbdb.storage.runs import RunRanges
    r = table.runs
    reader = RunRanges(store, row["table_id"], int(row["slots"]),
                       int(row["params"].get("horizon", 0)), chunk)
    if len(r.offsets) != reader.positions + 1 or len(r.start) != reader.total:
        return [f"{len(r.offsets) - 1:,} positions and {len(r.start):,} runs in the file, "
                f"{reader.positions:,} and {reader.total:,} in the database"]
    tally = _Tally()
    for lo, at, counts, cols in reader:
        if not len(counts):  # a table of no positions
            continue
        k = len(cols["idx"])
        ends = at + np.cumsum(counts)  # ROFF[lo + 1 .. lo + len(counts)]
        tally.add("run offsets at position", lo, r.offsets[lo:lo + len(counts)],
                  np.concatenate(([at], ends[:-1])))
        tally.add("run starts at run", at, r.start[at:at + k], cols["turns_left_from"])
        tally.add("scores at run", at, r.score[at:at + k], cols["score"].astype(np.int8))
        tally.add("best moves at run", at, r.move[at:at + k], cols["best_move"].astype(np.int8))
    tally.add("run offsets at position", reader.positions, r.offsets[-1:], [reader.total])
    return tally.lines()
