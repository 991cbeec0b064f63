"""The stream coder of probe files (``docs/probe-format.md``, "Streams"): pair substitution
over the slots' values, then one canonical Huffman code for the table, in blocks of
``BLOCK_SLOTS`` slots that each decode on their own.

Why pairs: a single Huffman code spends at least one bit per slot and cannot use that a slot's
value mostly repeats or follows its neighbour's (on Chinese Checkers 6x6-2 the values' entropy is
4.5 bits a slot alone, 1.7 given the slot before).  Replacing the most frequent adjacent pairs by
new symbols, again and again (Re-Pair, as Syzygy's tables do), lets one code stand for many
slots."""
from __future__ import annotations

import threading
from dataclasses import dataclass, field

import numpy as np

from tbdb.probe_files.header import (BLOCK_SLOTS, MAX_CODE, MAX_SYMBOLS, ProbeFileError, STREAM,
                                     pad8)


# --------------------------------------------------------------------------- the block coder

def code_lengths(counts: np.ndarray, limit: int = MAX_CODE) -> np.ndarray:
    """Huffman code lengths (uint8) of symbols seen ``counts`` times (each > 0), at most
    ``limit`` bits: deterministic (ties go to the lower symbol number); a lone symbol gets 1
    bit.  Too long codes are avoided by flattening the rarest counts and trying again."""
    from tbdb.solvers.probe_files import huffman_depths
    counts = np.asarray(counts, np.int64)
    if len(counts) == 1:
        return np.ones(1, np.uint8)
    floor = 0
    while True:
        depth = huffman_depths(np.maximum(counts, floor))
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
    if hi - lo < 1 << 24:  # a histogram: linear time, no copy (a kernel: numpy's bincount
        # and gather took as long as the pair substitution after them)
        from tbdb.solvers.probe_files import value_places
        if values.dtype not in (np.int32, np.int64):
            values = values.astype(np.int64)
        counts, place = value_places(values, lo, hi - lo + 1)
        distinct = np.flatnonzero(counts)
        return distinct + lo, counts[distinct], place
    values = np.asarray(values, np.int64)
    distinct, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
    return distinct, counts, inverse.astype(np.int32)


# new symbols made per pass over the stream at most: the passes are most of a file's coding
# time, and 256 a pass codes much faster than 64 for a few more bits (benchmarks/RESULTS.md,
# "Moved from code comments"); the ratio below still cuts a round whose pairs are rare
PAIRS_PER_ROUND = 256
MIN_PAIR = 8  # a pair seen fewer times does not pay for its entry in the file
ROUND_RATIO = 2  # a round takes pairs seen at least half as often as its most frequent


_SCRATCH = threading.local()


def _scratch(symbols: int, entries: int):
    """This thread's scratch arrays for ``substitute`` (see there), for ``symbols`` symbols
    and ``entries`` pairs: kept from call to call, so the pages a table touched are mapped for
    the next (an export codes a thousand tables; fresh pages cost as much as the coding).  The
    pair index (64 MiB for 4096 symbols) is made with calloc: pages no pair touches cost
    nothing; the pair list grows as streams need (12 bytes a pair seen)."""
    s = _SCRATCH.__dict__
    stride = max(symbols, MAX_SYMBOLS)
    if s.get("stride") != stride:
        s["stride"], s["where"] = stride, np.zeros(stride * stride, np.int32)
    if len(s.get("pair", ())) < entries:
        s["pair"], s["count"] = np.empty(entries, np.int32), np.empty(entries, np.int32)
        s["new_of"] = np.full(entries, -1, np.int32)
    return s["where"], s["pair"], s["count"], s["new_of"]


def substitute_pairs(seq: np.ndarray, k: int, block_slots: int,
                     max_symbols: int = MAX_SYMBOLS, per_round: int = PAIRS_PER_ROUND,
                     min_pair: int = MIN_PAIR, ratio: int = ROUND_RATIO):
    """Re-Pair inside blocks: (seq shortened, pairs int32[K - k, 2], size int64[K]).  Each
    round makes the most frequent adjacent pairs inside a block new symbols (at most
    ``per_round``, each seen ``min_pair`` times or more; ties to the lower pair number
    ``a * max_symbols + b``; and only those seen at least 1/``ratio`` as often as the round's
    first, 0: no such limit) and replaces them left to right (``solvers/probe_files.py``,
    ``substitute``).  ``seq`` (int32) is rewritten in place.

    Why the ratio: a pair far down a round's list would be made before the pairs this round's
    replacements create, some of them far more frequent; on CDC 2-4 pieces a round of the 64
    most frequent pairs gave 2.01 bits a slot of values, the same rounds cut at half the first
    pair's count 1.94, in the same time."""
    seq, grammar = substitute(seq, k, block_slots, max_symbols, per_round, min_pair, ratio)
    return seq, grammar.pairs, grammar.size


@dataclass
class Grammar:
    """The pair symbols of a stream and how they were made: pair symbol ``k + j`` stands for
    ``pairs[j]``; ``size`` the slots of every symbol; round ``r`` of the substitution made
    symbols up to ``rounds[r]`` (``replay`` repeats the rounds on blocks the substitution did
    not see: a sampled table's blocks, ``tbdb.probe_files.streamed``)."""
    k: int
    pairs: np.ndarray  # int32[K - k, 2]
    size: np.ndarray  # int64[K]
    rounds: np.ndarray  # int64[rounds]

    @property
    def symbols(self) -> int:
        return len(self.size)

    def replay(self, seq: np.ndarray, block_slots: int) -> np.ndarray:
        """``seq`` (int32 terminals, starting at a block's first slot) substituted by this
        grammar's rounds, rewritten in place; the shortened sequence."""
        from tbdb.solvers import probe_files as kernels
        if not len(self.rounds) or len(seq) < 2:
            return seq
        where, *_ = _scratch(max(MAX_SYMBOLS, self.symbols), 2)
        leads = np.zeros(self.symbols, np.bool_)
        m = kernels.replay(seq, len(seq), self.k, block_slots,
                           np.ascontiguousarray(self.pairs[:, 0]),
                           np.ascontiguousarray(self.pairs[:, 1]), self.size, self.rounds,
                           len(self.rounds), where, leads)
        return seq[:m]


def substitute(seq: np.ndarray, k: int, block_slots: int, max_symbols: int = MAX_SYMBOLS,
                per_round: int = PAIRS_PER_ROUND, min_pair: int = MIN_PAIR,
                ratio: int = ROUND_RATIO):
    """``substitute_pairs``, giving (seq shortened, its ``Grammar``)."""
    from tbdb.solvers import probe_files as kernels
    seq = np.ascontiguousarray(seq, np.int32)
    left = np.zeros(max(0, max_symbols - k), np.int32)
    right = np.zeros_like(left)
    size = np.ones(max(max_symbols, k), np.int64)
    if k >= max_symbols or len(seq) < 2:
        return seq, Grammar(k, np.zeros((0, 2), np.int32), size[:k].copy(),
                            np.zeros(0, np.int64))
    where, pair, count, new_of = _scratch(max_symbols, min(len(seq), k * k) + 2)
    rounds = np.zeros(max_symbols, np.int64)
    m, n_symbols, n_rounds, *grown = kernels.substitute(
        seq, k, block_slots, max_symbols, per_round, min_pair, ratio, where, pair, count, new_of,
        left, right, size, rounds)
    if len(grown[0]) > len(pair):  # kept for the next stream this thread codes
        _SCRATCH.pair, _SCRATCH.count, _SCRATCH.new_of = grown
    pairs = np.column_stack([left[:n_symbols - k], right[:n_symbols - k]]).astype(np.int32)
    return seq[:m], Grammar(k, pairs.reshape(-1, 2), size[:n_symbols].copy(),
                            rounds[:n_rounds].copy())


def symbol_limit(k: int, n: int, max_symbols: int = MAX_SYMBOLS) -> int:
    """Symbols a stream of ``n`` slots over ``k`` terminals may get: a pair must be seen
    ``MIN_PAIR`` times, so a short stream stops early."""
    return max(min(max_symbols, k + n // MIN_PAIR + 1), k)


@dataclass
class Code:
    """A stream's canonical Huffman code over its symbols: ``lengths`` (uint8, 0 = not used),
    ``codes`` (uint64)."""
    lengths: np.ndarray
    codes: np.ndarray
    maxlen: int

    @classmethod
    def of(cls, used: np.ndarray) -> Code:
        """The code of symbols used ``used`` times (int64[K])."""
        n_symbols = len(used)
        lengths = np.zeros(n_symbols, np.uint8)
        present = np.flatnonzero(used)
        codes = np.zeros(n_symbols, np.uint64)
        if len(present):
            lengths[present] = code_lengths(used[present])
            symbols, _, symbol_codes = canonical(present, lengths[present])
            codes[symbols] = symbol_codes
        return cls(lengths, codes, int(lengths.max()) if len(present) else 1)


def stream_head(alphabet: np.ndarray, grammar: Grammar, code: Code, n: int,
                block_slots: int) -> list[bytes]:
    """A stream section's bytes before its block starts: header, alphabet, pairs, lengths."""
    k, n_symbols = len(alphabet), grammar.symbols
    blocks = (n + block_slots - 1) // block_slots
    head = STREAM.pack(k, n_symbols, block_slots, code.maxlen, n, blocks)
    pairs = grammar.pairs
    return [head, np.asarray(alphabet).astype("<i4").tobytes(), b"\0" * pad8(4 * k),
            pairs.astype("<u2").tobytes(), b"\0" * pad8(4 * len(pairs)),
            code.lengths.tobytes(), b"\0" * pad8(n_symbols)]


def check_stream_bytes(total: int) -> None:
    if total >= 1 << 32:
        raise ValueError(f"a stream of {int(total)} bytes: more than the format's 4 GiB "
                         f"(u32 block starts)")


def encode_stream(values: np.ndarray, block_slots: int = BLOCK_SLOTS,
                  max_symbols: int = MAX_SYMBOLS) -> bytes:
    """A stream section (``docs/probe-format.md``, "Streams") of int32 slot ``values``."""
    from tbdb.solvers import probe_files as kernels
    check_block_slots(block_slots)
    n = len(values)
    distinct, _, place = symbols_of(values)
    if len(distinct) == 0:
        distinct = np.zeros(1, np.int64)
    k = len(distinct)
    seq, grammar = substitute(place.astype(np.int32, copy=False), k, block_slots,
                               symbol_limit(k, n, max_symbols))
    size = grammar.size
    code = Code.of(kernels.symbol_counts(seq, len(seq), grammar.symbols))
    blocks = (n + block_slots - 1) // block_slots
    starts = kernels.block_starts(seq, len(seq), size, code.lengths, block_slots, blocks)
    check_stream_bytes(int(starts[-1]))
    bits = kernels.encode(seq, len(seq), size, code.codes, code.lengths, block_slots, starts)
    parts = stream_head(distinct, grammar, code, n, block_slots) + [
        starts.astype("<u4").tobytes(), b"\0" * pad8(4 * (blocks + 1)), bits.tobytes()]
    return b"".join(parts)


def check_block_slots(block_slots: int) -> None:
    if block_slots < 1 or block_slots & (block_slots - 1):
        raise ValueError(f"block_slots {block_slots} is not a power of two")


DAMAGED = -(1 << 40)  # what the decoders return for a slot of a damaged stream (no i32)
PARALLEL_SLOTS = 1 << 15  # gathers of fewer slots run on one core
SPLIT_SLOTS = 1 << 15  # a batch of more rows over many tables is decoded on two threads


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

    def checkpoints(self) -> np.ndarray:
        """The checkpoints recorded so far (uint32[blocks, CHECKPOINTS - 1]; 0 = none, see
        ``solvers/probe_files.py``, "Checkpoints"): a view, for tests and statistics."""
        from tbdb.solvers import probe_files as K
        if self.table[K.T_MARK_SHIFT] < 0:
            return np.zeros((0, K.CHECKPOINTS - 1), np.uint32)
        blocks = (self.n + self.block_slots - 1) // self.block_slots
        words = self.table[int(self.table[K.T_MARKS]):].view("<u4")
        return words[:blocks * K.CHECKPOINTS].reshape(blocks, K.CHECKPOINTS)[:, 1:]

    def index(self) -> None:
        """Record every checkpoint now (one pass over the stream, on every core), so that no
        probe decodes more than a chunk of its block."""
        from tbdb.solvers.probe_files import index_stream
        if index_stream(self.buf, self.table):
            raise ProbeFileError("a damaged stream")

    def span(self, lo: int, hi: int) -> np.ndarray:
        """The values (int32) of slots ``lo .. hi``: ``lo`` a block's first slot, ``hi`` one
        or the stream's end; every block on every core, straight into int32."""
        from tbdb.solvers import probe_files as kernels
        if not (0 <= lo <= hi <= self.n and lo % self.block_slots == 0
                and (hi % self.block_slots == 0 or hi == self.n)):
            raise ValueError(f"slots {lo}..{hi}: not whole blocks of {self.block_slots} "
                             f"slots in a stream of {self.n}")
        out = np.empty(hi - lo, np.int32)
        stacks = kernels.decoding_stacks(self.table, hi - lo)
        if hi > lo and kernels.decode_blocks(self.buf, self.table, lo, hi, out, stacks):
            raise ProbeFileError("a damaged stream")
        return out

    def all(self) -> np.ndarray:
        """Every slot's value (int32[n]): one ``span``.  (Decoding into int64 marked with
        ``DAMAGED``, then scanned and narrowed, took five times as long: benchmarks/RESULTS.md,
        "Moved from code comments".)"""
        return self.span(0, self.n)


def decoding_table(alphabet, pairs, lengths, starts, bit_bytes, block_slots, maxlen, n,
                   starts_at, bits_at, where) -> np.ndarray:
    """The int64 decoding table of a stream (layout: ``solvers/probe_files.py``, "decoding"),
    with its grammar and code checked: a pair names only earlier symbols and stands for at most
    a block; the code lengths form a prefix code; block starts ascend inside the bit stream."""
    from tbdb.solvers import probe_files as K
    table = np.zeros(K.decoding_table_words(len(alphabet), len(lengths),
                                            int(np.count_nonzero(lengths)), len(starts) - 1,
                                            block_slots), np.int64)
    bad = K.decoding_table(alphabet, np.asarray(pairs).reshape(-1, 2), lengths, starts,
                           bit_bytes, block_slots, maxlen, n, starts_at, bits_at, table)
    if bad == K.BAD_PAIR:
        raise ProbeFileError(f"{where}: a pair names a later symbol (damaged)")
    if bad == K.BAD_SIZE:
        raise ProbeFileError(f"{where}: a symbol longer than a block or a code longer than "
                             f"its stream says (damaged)")
    if bad == K.BAD_CODE:
        raise ProbeFileError(f"{where}: code lengths that are no prefix code (damaged)")
    if bad == K.BAD_STARTS:
        raise ProbeFileError(f"{where}: block starts out of range (damaged)")
    return table


def pack_values(result: np.ndarray, distance: np.ndarray) -> np.ndarray:
    """(result, distance) as one int32 symbol value: result << 16 | distance & 0xFFFF."""
    from tbdb.solvers import probe_files as kernels
    result, distance = np.asarray(result), np.asarray(distance)
    if result.shape != distance.shape or result.ndim != 1:
        raise ValueError(f"results {result.shape} and distances {distance.shape}: need two "
                         f"arrays of one length")
    out = np.empty(len(result), np.int32)
    kernels.pack_into(result, distance, out)
    return out


def unpack_values(v):
    """(result int8, distance int16) of packed symbol values."""
    from tbdb.solvers import probe_files as kernels
    v = np.asarray(v, np.int32).reshape(-1)
    result, distance = np.empty(len(v), np.int8), np.empty(len(v), np.int16)
    kernels.unpack_into(v, result, distance)
    return result, distance
