"""Direct cells (``docs/probe-format.md``, layout 3): an index table's probe file for engines
that probe more than they store.  Every slot is one fixed-width cell holding the symbols of its
value and its best move, so a probe reads one cell, where the compressed streams (layout 0)
decode a chain of codes, pairs and tables that are each a cache miss when the table was not
probed lately.  The price is size: ``ceil(log2 values) + ceil(log2 moves)`` bits a slot (CDC
2-4 pieces 13.7, CC 7x7-3 16) against 2-5 for the streams.

``CALP``: u32 value symbols, u32 move symbols (0: no best moves), u32 value bits, u32 move
bits, then the two alphabets (i32, ascending).  ``CELL``: the cells (``solvers/probe_direct.py``),
then 8 zero bytes."""
from __future__ import annotations

import struct

import numpy as np

from tbdb.probe_files.coder import DAMAGED
from tbdb.probe_files.header import SECTION_CELL_LAYOUT, SECTION_CELLS, ProbeFileError

ALPHABETS = struct.Struct("<IIII")  # value symbols, move symbols, value bits, move bits
MAX_SYMBOLS = 1 << 16  # of each column: a cell is at most 32 bits


_NONE_VALUE = np.array([-3 << 16], np.int32)  # (NONE, 0) packed: no position at the slot


def symbol_bits(k: int) -> int:
    """Bits of a column of ``k`` symbols (0 for one symbol, or none)."""
    return max(0, int(k) - 1).bit_length()


class Cells:
    """The cells' layout: its alphabets and widths, as ``CALP`` holds them."""

    def __init__(self, values: np.ndarray, moves: np.ndarray | None, where: str = "a table"):
        # a table of no slots still names a value (NONE's) and a move (none): a column has
        # at least one symbol
        self.values = np.asarray(values, np.int32) if len(values) else _NONE_VALUE
        self.moves = None if moves is None else np.asarray(moves, np.int32) if len(moves) \
            else np.full(1, -1, np.int32)
        for what, a in (("values", self.values), ("best moves", self.moves)):
            if a is not None and len(a) > MAX_SYMBOLS:
                raise ProbeFileError(f"{where} has {len(a):,} distinct {what}; direct cells "
                                     f"hold at most {MAX_SYMBOLS:,} (export it without "
                                     f"--direct)")
        self.value_bits = symbol_bits(len(self.values))
        self.move_bits = symbol_bits(len(self.moves)) if self.moves is not None else 0
        self.width = self.value_bits + self.move_bits

    def cell_bytes(self, slots: int) -> int:
        """The ``CELL`` section's length for ``slots`` slots (with its 8 zero bytes)."""
        return (slots * self.width + 7) // 8 + 8

    def to_bytes(self) -> bytes:
        k_moves = len(self.moves) if self.moves is not None else 0
        return (ALPHABETS.pack(len(self.values), k_moves, self.value_bits, self.move_bits)
                + self.values.astype("<i4").tobytes()
                + (self.moves.astype("<i4").tobytes() if self.moves is not None else b""))

    @classmethod
    def parse(cls, buf: np.ndarray, moves: bool, where: str) -> Cells:
        damaged = ProbeFileError(f"{where}: CALP does not match its section (damaged)")
        if len(buf) < ALPHABETS.size:
            raise damaged
        kv, km, vb, mb = ALPHABETS.unpack(bytes(buf[:ALPHABETS.size]))
        if (not 1 <= kv <= MAX_SYMBOLS or km > MAX_SYMBOLS or (km > 0) != moves
                or len(buf) != ALPHABETS.size + 4 * (kv + km)):
            raise damaged
        # copies (a few hundred bytes): the alphabets outlive no mapping
        a = np.array(np.asarray(buf[ALPHABETS.size:]).view("<i4"), np.int32)
        cells = cls(a[:kv], a[kv:] if moves else None, where)
        if (cells.value_bits, cells.move_bits) != (vb, mb) or any(
                len(x) > 1 and not (x[1:] > x[:-1]).all() for x in (cells.values, cells.moves)
                if x is not None):
            raise damaged
        return cells

    def symbols(self, values: np.ndarray, moves: np.ndarray | None):
        """(value symbols, move symbols) (uint32) of a run of slots; ``ProbeFileError`` if one
        is not in the alphabets (the census and the rows disagree: the table changed)."""
        out = []
        for alphabet, x in ((self.values, values), (self.moves, moves)):
            if alphabet is None:
                out.append(np.zeros(0, np.uint32))
                continue
            at = np.searchsorted(alphabet, x)
            if len(x) and (at.max() >= len(alphabet) or (alphabet[at] != x).any()):
                raise ProbeFileError("a value outside the table's census (the table changed "
                                     "while it was exported)")
            out.append(at.astype(np.uint32))
        return out[0], out[1]

    def pack(self, values: np.ndarray, moves: np.ndarray | None, tail: bool) -> np.ndarray:
        """The cells of a run of slots (a multiple of 8 slots unless ``tail``), as bytes; the
        section's 8 zero bytes after them if ``tail``."""
        from tbdb.solvers.probe_direct import pack_cells
        vs, ms = self.symbols(values, moves)
        n = len(vs)
        out = np.zeros((n * self.width + 7) // 8 + (8 if tail else 0), np.uint8)
        pack_cells(vs, ms if len(ms) else vs, self.value_bits, self.width, out)
        return out


def direct_sections(values: np.ndarray, moves: np.ndarray | None, where: str) -> list:
    """The sections of a table held whole: ``values`` (packed int32, ``pack_values``) and
    ``moves`` (int32, or None) per slot."""
    cells = Cells(np.unique(values), np.unique(moves) if moves is not None else None, where)
    return [(SECTION_CELL_LAYOUT, cells.to_bytes()),
            (SECTION_CELLS, cells.pack(values, moves, tail=True))]


class Column:
    """One column of a table's cells, read as a stream (``coder.Stream``) is: ``at``,
    ``gather``, ``all``; nothing to index."""

    def __init__(self, cells: np.ndarray, layout: Cells, which: str, n: int):
        self.buf = cells
        self.n = n
        self.width = layout.width
        if which == "values":
            self.shift, self.bits, self.alphabet = 0, layout.value_bits, layout.values
        else:
            self.shift, self.bits, self.alphabet = (layout.value_bits, layout.move_bits,
                                                    layout.moves)

    def at(self, slot: int) -> int:
        from tbdb.solvers.probe_direct import column_at
        v = column_at(self.buf, self.width, self.shift, self.bits, self.alphabet, slot, DAMAGED)
        if v == DAMAGED:
            raise ProbeFileError("a damaged cell")
        return v

    def gather(self, slots: np.ndarray) -> np.ndarray:
        """The values (int32) at ``slots`` (int64, any order)."""
        out = np.empty(len(slots), np.int64)
        self.gather_into(np.asarray(slots, np.int64), out)
        if (out == DAMAGED).any():
            raise ProbeFileError("a damaged cell")
        return out.astype(np.int32)

    def gather_into(self, slots: np.ndarray, out: np.ndarray) -> None:
        """``out`` (int64) = the values at ``slots`` (int64), ``DAMAGED`` where a cell holds a
        symbol outside the alphabet."""
        from tbdb.solvers.probe_direct import column_gather
        column_gather(self.buf, self.width, self.shift, self.bits, self.alphabet, slots, out,
                      DAMAGED)

    def all(self) -> np.ndarray:
        return self.gather(np.arange(self.n, dtype=np.int64))

    def index(self) -> None:
        pass


def write_direct_file(store, game: str, row: dict, moves: bool, path: str, note=None,
                      chunk: int | None = None) -> tuple[int, str, int]:
    """Write index table ``row``'s probe file in direct cells to ``path`` (by a temporary
    file renamed into place), reading its rows ``chunk`` slots at a time (a table too large
    to hold); (its size, its sha256, the table's rows).  Its census gives the alphabets
    first, so every chunk's cells are written where they belong as it is read."""
    import hashlib
    import os

    from tbdb.probe_files.coder import pack_values
    from tbdb.probe_files.container import file_head
    from tbdb.probe_files.header import LAYOUT_DIRECT, pad8
    from tbdb.probe_files.streamed import IndexRanges, chunk_slots, move_values
    from tbdb.safe_files import check_target, publish, remove_quietly, temporary_beside
    chunk = chunk_slots() if chunk is None else chunk  # a multiple of 1024: whole bytes
    note = note or (lambda text: None)
    label = f"{game} {row['table_name']}"
    check_target(path, "probe file")
    with IndexRanges(store, row).bounded() as reader:
        n = reader.slots
        value_alphabet, move_alphabet, rows = reader.census()
        layout = Cells(value_alphabet, move_alphabet if moves else None,
                       f"{game} table {row['table_name']!r}")
        calp = layout.to_bytes()
        cell_bytes = layout.cell_bytes(n)

        def head(digests) -> bytes:
            return b"".join(file_head(game, row, moves, n, rows,
                                      [(SECTION_CELL_LAYOUT, len(calp), digests[0]),
                                       (SECTION_CELLS, cell_bytes, digests[1])],
                                      LAYOUT_DIRECT))

        fd, tmp = temporary_beside(path)
        try:
            with os.fdopen(fd, "w+b") as f:
                f.write(head([b"\0" * 32] * 2))  # its place: rewritten with the digests
                f.write(calp + b"\0" * pad8(len(calp)))
                cells = hashlib.sha256()
                for lo, result, distance, best in reader.chunks(chunk):
                    part = layout.pack(pack_values(result, distance),
                                       move_values(result, best) if moves else None,
                                       tail=lo + len(result) == n)
                    cells.update(part)
                    f.write(part)
                    note(f"{label}: direct cells {100 * lo // max(n, 1)}%")
                if n == 0:
                    part = layout.pack(np.zeros(0, np.int32), None, tail=True)
                    cells.update(part)
                    f.write(part)
                if reader.rows_read != rows:
                    raise store.damaged_table(reader.table_id, f"{rows} rows, "
                                              f"{reader.rows_read} of them in its {n} slots",
                                              reader.name)
                f.write(b"\0" * pad8(cell_bytes))
                f.seek(0)
                f.write(head([hashlib.sha256(calp).digest(), cells.digest()]))
                f.flush()
                f.seek(0)
                whole, size = hashlib.sha256(), 0
                for piece in iter(lambda: f.read(1 << 22), b""):
                    whole.update(piece)
                    size += len(piece)
            publish(tmp, path)
        except BaseException:
            remove_quietly(tmp)
            raise
    return size, whole.hexdigest(), rows
