"""A probe file's table as the prober holds it, one class per storage kind: each answers
``probe`` and ``gather`` exactly as its DuckDB ``StoredTable`` does.  Which class reads a
file is its kind's layout's (``Storage.probe_file.reader``)."""
from __future__ import annotations

import os

import numpy as np

from tbdb.storage.base import StoredTable, check_filled
from tbdb.storage.keys import KeyTable
from tbdb.storage.runs import RunTable
from tbdb.probe_files.coder import DAMAGED, Stream, unpack_values
from tbdb.probe_files.container import ProbeFile
from tbdb.probe_files.order import SlotOrder
from tbdb.probe_files.header import (SECTION_CELL_LAYOUT, SECTION_CELLS, SECTION_KEY_DISTANCES,
                                     SECTION_KEY_MOVES, SECTION_KEY_RESULTS, SECTION_KEYS,
                                     SECTION_MOVES, SECTION_ORDER, SECTION_RUN_MOVES,
                                     SECTION_RUN_OFFSETS, SECTION_RUN_SCORES,
                                     SECTION_RUN_STARTS, SECTION_VALUES, ProbeFileError)


class ProbeIndexTable(StoredTable):
    """An index table read from its probe file: (result, distance) and best moves decoded
    from their streams, block by block."""
    loaded = True

    def __init__(self, storage, store, row, file: ProbeFile):
        super().__init__(storage, store, row)
        from tbdb.solvers.retrograde import NONE
        self.none = int(NONE)
        self.file = file
        self.order = SlotOrder.parse(file.section(SECTION_ORDER), file.slots, file.path)
        # per digit of the game's index: radix, place in the streams (the kernels' form)
        self.order_array = np.array([self.order.radix, self.order.place], np.int64).T.copy()
        self.values = Stream.parse(file.section(SECTION_VALUES), file.path)
        self.moves = (Stream.parse(file.section(SECTION_MOVES), file.path) if file.moves
                      else None)
        for s in (self.values, self.moves):
            if s is not None and s.n != file.slots:
                raise ProbeFileError(f"probe file {file.path!r}: a stream of {s.n} slots in a "
                                     f"table of {file.slots} (damaged)")
        from tbdb.solvers.probe_files import decode_slot_at, decode_slot_pair_at
        self.decode_pair = decode_slot_pair_at
        self.decode_one = decode_slot_at
        self.slots = file.slots
        if self.moves is not None:  # what a single probe passes, gathered once
            self.pair_args = (self.values.buf, self.values.table, self.moves.buf,
                              self.moves.table, self.order_array)
        self.loaded = True
        self.gathers_with_others = True  # see ProbeDir.gather_index

    def _load(self) -> None:
        pass

    def index(self) -> None:
        """Record every checkpoint of both streams now (``tb.load`` on a directory): a probe
        then decodes at most a chunk of its block (64 slots), for 0.5 bit a slot a stream
        of memory."""
        before = self.file.enter()
        try:
            for s in (self.values, self.moves):
                if s is not None:
                    s.index()
        except ProbeFileError:
            raise ProbeFileError(f"probe file {self.file.path!r} is damaged; run: tbdb verify "
                                 f"--db {os.path.dirname(self.file.path)}") from None
        finally:  # a file changed meanwhile: that error, not "damaged"
            self.file.leave(before)

    def _decode(self, key: int) -> tuple[int, int]:
        """(packed value, best move) at game slot ``key``, ``DAMAGED`` where unreadable."""
        if self.moves is not None:
            return self.decode_pair(*self.pair_args, key, DAMAGED)
        return self.decode_one(self.values.buf, self.values.table, self.order_array, key,
                               DAMAGED), -1

    def probe(self, key, plies=None):
        if not 0 <= key < self.slots:
            return None
        key = int(key)
        f = self.file
        before = f.enter()  # (two fstats: a small share of a lookup; issue 61)
        v, best = self._decode(key)
        f.leave(before)
        if v == DAMAGED or best == DAMAGED:
            raise ProbeFileError(f"probe file {self.file.path!r} is damaged at slot {key}; "
                                 f"run: tbdb verify --db {os.path.dirname(self.file.path)}")
        r, d = v >> 16, ((v & 0xFFFF) ^ 0x8000) - 0x8000
        if r == self.none:
            return None
        return r, d, best

    def positions(self, keys: np.ndarray) -> np.ndarray:
        """The places of game slots ``keys`` (int64, in range) in the file's streams."""
        return keys if self.order.is_identity else self.order.positions(keys)

    def gather(self, keys, plies):
        keys = np.asarray(keys, np.int64)
        before = self.file.enter()
        try:
            at = self.positions(keys)
            order = None  # sorted once for both streams
            if len(at) > 1 and not bool((at[1:] >= at[:-1]).all()):
                order = np.argsort(at, kind="stable")
            ordered = at if order is None else np.ascontiguousarray(at[order])
            streams = [self.values] + ([self.moves] if self.moves is not None else [])
            got = [s.gather(ordered) for s in streams]
            if order is not None:
                for i, g in enumerate(got):
                    got[i] = np.empty_like(g)
                    got[i][order] = g
            result, distance = unpack_values(got[0])
            check_filled(result, keys)
            best = got[1] if len(got) > 1 else np.full(len(keys), -1, np.int32)
        except ProbeFileError:
            raise ProbeFileError(f"probe file {self.file.path!r} is damaged; run: tbdb verify "
                                 f"--db {os.path.dirname(self.file.path)}") from None
        finally:  # a file changed meanwhile: that error, not "damaged" or a missing row
            self.file.leave(before)
        return result, distance, best


class ProbeDirectTable(ProbeIndexTable):
    """An index table read from its probe file's direct cells (layout 3): a probe reads one
    cell.  The columns answer as streams do, so probes, gathers and checks are the parent's."""

    def __init__(self, storage, store, row, file: ProbeFile):
        StoredTable.__init__(self, storage, store, row)
        from tbdb.probe_files.direct import Cells, Column
        from tbdb.solvers.probe_direct import column_at, pair_at
        from tbdb.solvers.retrograde import NONE
        self.none = int(NONE)
        self.file = file
        self.slots = file.slots
        self.order = SlotOrder.identity(file.slots)  # cells are in the game's own order
        self.order_array = np.array([self.order.radix, self.order.place], np.int64).T.copy()
        layout = Cells.parse(file.section(SECTION_CELL_LAYOUT), file.moves, file.path)
        cells = file.section(SECTION_CELLS)
        if len(cells) != layout.cell_bytes(file.slots):
            raise ProbeFileError(f"probe file {file.path!r}: CELL holds {len(cells)} bytes, "
                                 f"{layout.cell_bytes(file.slots)} for {file.slots} slots "
                                 f"(damaged)")
        self.layout = layout
        self.values = Column(cells, layout, "values", file.slots)
        self.moves = Column(cells, layout, "moves", file.slots) if file.moves else None
        self.pair_at, self.column_at = pair_at, column_at
        self.loaded = True
        self.gathers_with_others = True

    def _decode(self, key: int) -> tuple[int, int]:
        v = self.values
        if self.moves is not None:
            return self.pair_at(v.buf, v.width, v.bits, v.alphabet, self.moves.alphabet, key,
                                DAMAGED)
        return self.column_at(v.buf, v.width, 0, v.bits, v.alphabet, key, DAMAGED), -1


class _Watched:
    """``probe`` and ``gather`` of a table whose arrays are views of its probe file,
    between the file's ``enter`` and ``leave`` (``ProbeFile``: a file changed under its
    mapping is refused, not read)."""
    file: ProbeFile

    def probe(self, key, plies=None):
        before = self.file.enter()
        try:
            got = super().probe(key, plies)
        finally:
            self.file.leave(before)
        return got

    def gather(self, keys, plies):
        before = self.file.enter()
        try:
            got = super().gather(keys, plies)
        finally:
            self.file.leave(before)
        return got


class ProbeKeyTable(_Watched, KeyTable):
    """A key table read from its probe file: its sorted keys and values are views of it."""

    def find(self, keys):
        before = self.file.enter()
        try:
            got = super().find(keys)
        finally:
            self.file.leave(before)
        return got

    def __init__(self, storage, store, row, file: ProbeFile):
        super().__init__(storage, store, row)
        from tbdb.solvers.retrograde import keys as kernels
        self.file = file
        n = file.rows
        self.kernels = kernels
        self.keys = file.section(SECTION_KEYS, "<i8").reshape(-1, 3)
        self.result = file.section(SECTION_KEY_RESULTS, "i1")
        self.distance = file.section(SECTION_KEY_DISTANCES, "<i2")
        self.best = (file.section(SECTION_KEY_MOVES, "<i4") if file.moves
                     else np.full(n, -1, np.int32))
        if not len(self.keys) == len(self.result) == len(self.distance) == len(self.best) == n:
            raise ProbeFileError(f"probe file {file.path!r}: sections of different lengths "
                                 f"(damaged)")
        self.loaded = True

    def _load(self) -> None:
        pass


class ProbeRunTable(_Watched, RunTable):
    """A score-run table read from its probe file."""

    def __init__(self, storage, store, row, file: ProbeFile):
        super().__init__(storage, store, row)
        from tbdb.games.base import RunValues
        from tbdb.solvers import lookup as kernels
        self.kernels = kernels
        self.file = file
        offsets = file.section(SECTION_RUN_OFFSETS, "<i8")
        start, score, move = (file.section(SECTION_RUN_STARTS, "<i2"),
                              file.section(SECTION_RUN_SCORES, "i1"),
                              file.section(SECTION_RUN_MOVES, "i1"))
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
