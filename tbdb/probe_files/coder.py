"""The stream coder of probe files (``docs/probe-format.md``, "Streams"): pair substitution
over the slots' values, then one canonical Huffman code for the table, in blocks of
``BLOCK_SLOTS`` slots that each decode on their own.

Why pairs: a single Huffman code spends at least one bit per slot and cannot use that a slot's
value mostly repeats or follows its neighbour's (on Chinese Checkers 6x6-2 the values' entropy is
4.5 bits a slot alone, 1.7 given the slot before).  Replacing the most frequent adjacent pairs by
new symbols, again and again (Re-Pair, as Syzygy's tables do), lets one code stand for many
slots."""
from __future__ import annotations

import heapq
from dataclasses import dataclass, field

import numpy as np

from tbdb.probe_files.header import (BLOCK_SLOTS, MAX_CODE, MAX_SYMBOLS, ProbeFileError, STREAM,
                                     pad8)


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


def symbols_of(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(distinct values int64 ascending, their counts, per element its value's place (int32))."""
    values = np.asarray(values)
    if len(values) == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int32)
    lo, hi = int(values.min()), int(values.max())
    if hi - lo < 1 << 24:  # a histogram: linear time, and no int64 copy of a long stream
        values = (values - np.int32(lo)).astype(np.int32) if values.dtype == np.int32 \
            else (np.asarray(values, np.int64) - lo)
        counts = np.bincount(values, minlength=hi - lo + 1)
        distinct = np.flatnonzero(counts)
        place = np.full(hi - lo + 1, -1, np.int32)
        place[distinct] = np.arange(len(distinct), dtype=np.int32)
        return distinct + lo, counts[distinct], place[values]
    values = np.asarray(values, np.int64)
    distinct, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
    return distinct, counts, inverse.astype(np.int32)


PAIRS_PER_ROUND = 64  # new symbols made per pass over the stream
MIN_PAIR = 8  # a pair seen fewer times does not pay for its entry in the file


def substitute_pairs(seq: np.ndarray, k: int, block_slots: int,
                     max_symbols: int = MAX_SYMBOLS):
    """Re-Pair inside blocks: (seq shortened, pairs int32[K - k, 2], size int64[K]).  Each
    round counts the adjacent pairs inside a block, makes the most frequent ones (at most
    ``PAIRS_PER_ROUND``, each seen ``MIN_PAIR`` times or more) new symbols and replaces them left
    to right.  Deterministic: ties go to the lower pair number."""
    from tbdb.solvers import probe_files as kernels
    m = len(seq)
    size = np.ones(max_symbols, np.int64)
    pairs: list[tuple[int, int]] = []
    # pair a, b is a * max_symbols + b; counts is made once (calloc: pages never touched cost
    # nothing) and only the entries a round used are set back
    counts = np.zeros(max_symbols * max_symbols, np.int32)
    touched = np.empty(max(1, min(m, max_symbols * max_symbols)), np.int64)  # pairs seen
    while k + len(pairs) < max_symbols and m > 1:
        seen = touched[:kernels.count_pairs(seq, m, size, block_slots, max_symbols, counts,
                                            touched)]
        c = counts[seen]
        counts[seen] = 0
        take = min(PAIRS_PER_ROUND, max_symbols - k - len(pairs), len(seen))
        if take == 0:
            break
        top = np.argpartition(-c, take - 1)[:take] if take < len(c) else np.arange(len(c))
        top = top[np.lexsort((seen[top], -c[top]))]
        top = seen[top[c[top] >= MIN_PAIR]]
        if len(top) == 0:
            break
        new = np.arange(k + len(pairs), k + len(pairs) + len(top), dtype=np.int64)
        for p, s in zip(top.tolist(), new.tolist()):
            a, b = divmod(p, max_symbols)
            pairs.append((a, b))
            size[s] = size[a] + size[b]
        by_pair = np.argsort(top)
        m = kernels.replace_pairs(seq, m, size, block_slots, max_symbols, top[by_pair],
                                  new[by_pair])
    n_symbols = k + len(pairs)
    return (seq[:m], np.array(pairs, np.int32).reshape(-1, 2), size[:n_symbols].copy())


def encode_stream(values: np.ndarray, block_slots: int = BLOCK_SLOTS,
                  max_symbols: int = MAX_SYMBOLS) -> bytes:
    """A stream section (``docs/probe-format.md``, "Streams") of int32 slot ``values``."""
    from tbdb.solvers import probe_files as kernels
    if block_slots < 1 or block_slots & (block_slots - 1):
        raise ValueError(f"block_slots {block_slots} is not a power of two")
    n = len(values)
    distinct, _, place = symbols_of(values)
    if len(distinct) == 0:
        distinct = np.zeros(1, np.int64)
    k = len(distinct)
    seq, pairs, size = substitute_pairs(place.astype(np.int32), k, block_slots,
                                        max(min(max_symbols, k + n // MIN_PAIR + 1), k))
    n_symbols = len(size)
    used = kernels.symbol_counts(seq, len(seq), n_symbols)
    lengths = np.zeros(n_symbols, np.uint8)
    present = np.flatnonzero(used)
    if len(present):
        lengths[present] = code_lengths(used[present])
    codes = np.zeros(n_symbols, np.uint64)
    if len(present):
        symbols, _, symbol_codes = canonical(present, lengths[present])
        codes[symbols] = symbol_codes
    blocks = (n + block_slots - 1) // block_slots
    starts = kernels.block_starts(seq, len(seq), size, lengths, block_slots, blocks)
    if starts[-1] >= 1 << 32:
        raise ValueError(f"a stream of {int(starts[-1])} bytes: more than the format's 4 GiB "
                         f"(u32 block starts)")
    bits = kernels.encode(seq, len(seq), size, codes, lengths, block_slots, starts)
    maxlen = int(lengths.max()) if len(present) else 1
    head = STREAM.pack(k, n_symbols, block_slots, maxlen, n, blocks)
    parts = [head, distinct.astype("<i4").tobytes(), b"\0" * pad8(4 * k),
             pairs.astype("<u2").tobytes(), b"\0" * pad8(4 * len(pairs)),
             lengths.tobytes(), b"\0" * pad8(n_symbols),
             starts.astype("<u4").tobytes(), b"\0" * pad8(4 * (blocks + 1)), bits.tobytes()]
    return b"".join(parts)


DAMAGED = -(1 << 40)  # what the decoders return for a slot of a damaged stream (no i32)
PARALLEL_SLOTS = 1 << 15  # gathers of fewer slots run on one core


@dataclass
class Stream:
    """A stream section opened for decoding: ``buf`` the section's bytes (a view of the mapped
    file), ``table`` its decoding tables (int64, ``decoding_table``)."""
    buf: np.ndarray
    table: np.ndarray
    n: int
    block_slots: int
    maxlen: int
    symbols: int
    decode_slot: object = field(default=None, repr=False)  # the kernel, looked up once

    @classmethod
    def parse(cls, buf: np.ndarray, where: str) -> Stream:
        damaged = ProbeFileError(f"{where}: stream header does not match its section "
                                 f"(damaged or truncated)")
        if len(buf) < STREAM.size:
            raise damaged
        k, n_symbols, block_slots, maxlen, n, blocks = STREAM.unpack(bytes(buf[:STREAM.size]))
        at = STREAM.size
        p_at = at + 4 * k + pad8(4 * k)
        n_pairs = n_symbols - k
        l_at = p_at + 4 * n_pairs + pad8(4 * n_pairs)
        s_at = l_at + n_symbols + pad8(n_symbols)
        b_at = s_at + 4 * (blocks + 1) + pad8(4 * (blocks + 1))
        if (not 1 <= k <= n_symbols <= 1 << 16 or not 1 <= maxlen <= MAX_CODE
                or block_slots < 1 or block_slots & (block_slots - 1)
                or blocks != (n + block_slots - 1) // block_slots
                or b_at + 8 > len(buf)):
            raise damaged
        table = decoding_table(
            alphabet=np.asarray(buf[at:at + 4 * k]).view("<i4"),
            pairs=np.asarray(buf[p_at:p_at + 4 * n_pairs]).view("<u2").reshape(-1, 2),
            lengths=np.asarray(buf[l_at:l_at + n_symbols]),
            starts=np.asarray(buf[s_at:s_at + 4 * (blocks + 1)]).view("<u4"),
            bit_bytes=len(buf) - b_at, block_slots=block_slots, maxlen=maxlen, n=n,
            starts_at=s_at, bits_at=b_at, where=where)
        from tbdb.solvers.probe_files import decode_slot
        return cls(buf, table, n, block_slots, maxlen, n_symbols, decode_slot)

    def at(self, slot: int) -> int:
        """The value at ``slot``."""
        v = self.decode_slot(self.buf, self.table, slot, DAMAGED)
        if v == DAMAGED:
            raise ProbeFileError("a damaged stream")
        return v

    def gather(self, slots: np.ndarray) -> np.ndarray:
        """The values (int32) at ``slots`` (int64, any order)."""
        from tbdb.solvers import probe_files as kernels
        slots = np.asarray(slots, np.int64)
        decode = (kernels.decode_sorted_parallel if len(slots) >= PARALLEL_SLOTS
                  else kernels.decode_sorted)
        ascending = len(slots) < 2 or bool((slots[1:] >= slots[:-1]).all())
        if ascending:
            got = decode(self.buf, self.table, slots, DAMAGED)
        else:
            order = np.argsort(slots, kind="stable")
            got = np.empty(len(slots), np.int64)
            got[order] = decode(self.buf, self.table, np.ascontiguousarray(slots[order]),
                                DAMAGED)
        if (got == DAMAGED).any():
            raise ProbeFileError("a damaged stream")
        return got.astype(np.int32)

    def all(self) -> np.ndarray:
        """Every slot's value (int32[n])."""
        from tbdb.solvers import probe_files as kernels
        got = kernels.decode_all(self.buf, self.table, DAMAGED)
        if (got == DAMAGED).any():
            raise ProbeFileError("a damaged stream")
        return got.astype(np.int32)


def decoding_table(alphabet, pairs, lengths, starts, bit_bytes, block_slots, maxlen, n,
                   starts_at, bits_at, where) -> np.ndarray:
    """The int64 decoding table of a stream (layout: ``solvers/probe_files.py``, "decoding"),
    with its grammar and code checked: a pair names only earlier symbols and stands for at most
    a block; the code lengths form a prefix code; block starts ascend inside the bit stream."""
    from tbdb.solvers import probe_files as K
    k, n_symbols = len(alphabet), len(lengths)
    left = pairs[:, 0].astype(np.int64)
    right = pairs[:, 1].astype(np.int64)
    own = np.arange(k, n_symbols)
    if (left >= own).any() or (right >= own).any():
        raise ProbeFileError(f"{where}: a pair names a later symbol (damaged)")
    size = K.pair_sizes(k, left, right)
    lengths = np.asarray(lengths, np.int64)
    if (size > block_slots).any() or (lengths > maxlen).any():
        raise ProbeFileError(f"{where}: a symbol longer than a block or a code longer than "
                             f"its stream says (damaged)")
    present = np.flatnonzero(lengths)
    if (len(present) == 0 and n) or np.sum(np.ldexp(1.0, -lengths[present])) > 1.0 + 1e-12:
        raise ProbeFileError(f"{where}: code lengths that are no prefix code (damaged)")
    starts = np.asarray(starts, np.int64)
    if starts[0] != 0 or (np.diff(starts) < 0).any() or starts[-1] + 8 > bit_bytes:
        raise ProbeFileError(f"{where}: block starts out of range (damaged)")
    order = present[np.lexsort((present, lengths[present]))]
    count = np.bincount(lengths[order], minlength=MAX_CODE + 1)[:MAX_CODE + 1].astype(np.int64)
    count[0] = 0
    first_index = np.concatenate([[0], np.cumsum(count)[:-1]]).astype(np.int64)
    first_code = np.zeros(MAX_CODE + 1, np.int64)
    code = 0
    for length in range(1, MAX_CODE + 1):
        first_code[length] = code
        code = (code + int(count[length])) << 1
    # canonical codes of at most FAST_BITS bits fill the look-up table from its start, in
    # order, each over 2 ** (FAST_BITS - length) entries
    short = order[lengths[order] <= K.FAST_BITS]
    fast = np.full(1 << K.FAST_BITS, -1, np.int64)
    filled = np.repeat(short.astype(np.int64) << 8 | lengths[short],
                       1 << (K.FAST_BITS - lengths[short]))
    fast[:len(filled)] = filled
    head = np.zeros(K.T_FIELDS, np.int64)
    parts = [(K.T_LEFT, left), (K.T_RIGHT, right), (K.T_SIZE, size), (K.T_FAST, fast),
             (K.T_COUNT, count), (K.T_FIRST_CODE, first_code),
             (K.T_FIRST_INDEX, first_index), (K.T_ORDER, order),
             (K.T_ALPHABET, np.asarray(alphabet, np.int64))]
    at = K.T_FIELDS
    for field_, array in parts:
        head[field_] = at
        at += len(array)
    head[[K.T_K, K.T_BLOCK, K.T_SHIFT, K.T_MAXLEN, K.T_N, K.T_STARTS, K.T_BITS]] = (
        k, block_slots, block_slots.bit_length() - 1, maxlen, n, starts_at, bits_at)
    return np.concatenate([head] + [np.asarray(a, np.int64) for _, a in parts])


def pack_values(result: np.ndarray, distance: np.ndarray) -> np.ndarray:
    """(result, distance) as one int32 symbol value: result << 16 | distance & 0xFFFF."""
    return (result.astype(np.int32) << 16) | (distance.astype(np.int32) & 0xFFFF)


def unpack_values(v):
    """(result int8, distance int16) of packed symbol values."""
    v = np.asarray(v, np.int32)
    return (v >> 16).astype(np.int8), (v & 0xFFFF).astype(np.uint16).view(np.int16)
