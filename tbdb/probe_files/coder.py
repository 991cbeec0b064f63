"""The block coder of probe files: a table-wide canonical Huffman code over (result, distance)
symbols, in blocks of ``BLOCK_SLOTS`` with an offset per block for random access."""
from __future__ import annotations

import heapq
from dataclasses import dataclass, field

import numpy as np

from tbdb.probe_files.header import BLOCK_SLOTS, MAX_CODE, ProbeFileError, STREAM, pad8


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
    parts = [head, alphabet.astype("<i4").tobytes(), b"\0" * pad8(4 * k),
             lengths_c.astype(np.uint8).tobytes(), b"\0" * pad8(k),
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
        l_at = a_end + pad8(4 * k)
        o_at = l_at + k + pad8(k)
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
