"""The slot order of an index table's probe file (``docs/probe-format.md``, "Slot order"):
its streams hold the slots in an order of the file's choosing, a permutation of the digits
of the game's index.

Why: pair substitution and the block code see only a slot's neighbours along the stream.  A
game's index is a mixed-radix number (CDC: side to move, the lead piece's square, then each
further group's squares); which digit varies fastest decides which piece moves between
neighbouring slots, and how alike their values are.  Putting the side to move last, for
instance, makes neighbours of the same placement with either side to move (a win in d and a
loss in d + 1 go together).  As Syzygy tries piece orders per table, the writer scores every
permutation of the digits on a sample of neighbouring slots and keeps the best: on CDC's
3-piece tables this takes the values from 2.56 to about 2.0 bits a slot.

A reader maps a slot to its place in the streams with one division per digit: the slot's
digits (least significant first: ``digit = slot % radix; slot //= radix``) times each digit's
``place`` in the stream order, summed."""
from __future__ import annotations

import itertools
import struct
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from tbdb.probe_files.header import ProbeFileError

ORDER_HEAD = struct.Struct("<II")  # digits, reserved 0
ORDER_DIGIT = struct.Struct("<QQ")  # radix, place
MAX_DIGITS = 8  # digits a file's order may have (the C prober's array)
ORDER_SAMPLES = 1 << 16  # neighbouring pairs each candidate order is scored on
ORDER_SEED = 24  # the sample's seed: the same table always gets the same order


@dataclass(frozen=True)
class SlotOrder:
    """``radix``: the digits of the game's index, most significant first (their product is
    the table's slots); ``place``: what each digit is worth in the stream order (a digit
    permutation: sorted by place, the smallest 1 and each next the one before times its
    radix)."""
    radix: tuple[int, ...]
    place: tuple[int, ...]

    @classmethod
    def identity(cls, slots: int) -> SlotOrder:
        return cls((int(slots),), (1,))

    @classmethod
    def of_permutation(cls, radix, perm) -> SlotOrder:
        """The order whose stream is ``values.reshape(radix).transpose(perm).ravel()``:
        ``perm[0]`` is the most significant digit of the stream order."""
        place = [0] * len(radix)
        p = 1
        for d in reversed(perm):
            place[d] = p
            p *= int(radix[d])
        return cls(tuple(int(r) for r in radix), tuple(place))

    @property
    def slots(self) -> int:
        return int(np.prod(np.array(self.radix, dtype=object))) if self.radix else 1

    @cached_property  # (asked per table of every batch)
    def is_identity(self) -> bool:
        return self.place == self.of_permutation(self.radix, range(len(self.radix))).place

    @property
    def permutation(self) -> tuple[int, ...]:
        """The digits from the most significant of the stream order to the least."""
        return tuple(sorted(range(len(self.radix)), key=lambda d: -self.place[d]))

    def positions(self, slots) -> np.ndarray:
        """The places (int64) of ``slots`` (int64, game order) in the streams."""
        rest = np.array(slots, np.int64, copy=True)
        out = np.zeros(rest.shape, np.int64)
        for r, p in zip(reversed(self.radix), reversed(self.place)):
            rest, digit = np.divmod(rest, r)
            out += digit * p
        return out

    def to_stream(self, values: np.ndarray) -> np.ndarray:
        """``values`` (one per slot, game order) in stream order."""
        if self.is_identity:
            return values
        return np.ascontiguousarray(
            np.asarray(values).reshape(self.radix).transpose(self.permutation).ravel())

    def to_slots(self, values: np.ndarray) -> np.ndarray:
        """Stream-order ``values`` back in the game's slot order."""
        if self.is_identity:
            return values
        perm = self.permutation
        shape = tuple(self.radix[d] for d in perm)
        return np.ascontiguousarray(
            np.asarray(values).reshape(shape).transpose(np.argsort(perm)).ravel())

    def to_bytes(self) -> bytes:
        return ORDER_HEAD.pack(len(self.radix), 0) + b"".join(
            ORDER_DIGIT.pack(r, p) for r, p in zip(self.radix, self.place))

    @classmethod
    def parse(cls, buf, slots: int, where: str) -> SlotOrder:
        """The order a section holds, checked: a digit permutation of ``slots`` slots."""
        data = bytes(buf)
        damaged = ProbeFileError(f"{where}: slot order does not match its table (damaged)")
        if len(data) < ORDER_HEAD.size:
            raise damaged
        digits, reserved = ORDER_HEAD.unpack(data[:ORDER_HEAD.size])
        if (reserved or not 1 <= digits <= MAX_DIGITS
                or len(data) != ORDER_HEAD.size + digits * ORDER_DIGIT.size):
            raise damaged
        pairs = [ORDER_DIGIT.unpack(data[ORDER_HEAD.size + i * ORDER_DIGIT.size:
                                         ORDER_HEAD.size + (i + 1) * ORDER_DIGIT.size])
                 for i in range(digits)]
        radix = tuple(r for r, _ in pairs)
        place = tuple(p for _, p in pairs)
        # sorted by place, each place the product of the radices below it; the product all
        expect = 1
        for d in sorted(range(digits), key=lambda d: place[d]):
            if radix[d] < 1 or place[d] != expect:
                raise damaged
            expect *= radix[d]
        if expect != slots:
            raise damaged
        return cls(radix, place)


def choose_order(values: np.ndarray, radix) -> SlotOrder:
    """The digit permutation of ``radix`` (the game's index digits) under which ``values``
    (int32, one per slot) look most alike along the stream: the least entropy of a slot's
    value given the one before, on ``ORDER_SAMPLES`` slots and their next along each order,
    drawn with a fixed seed (the same table, the same order).  Ties go to the earlier permutation
    (``itertools.permutations`` order, the identity first).  No radix: the identity."""
    from tbdb.probe_files.coder import symbols_of
    from tbdb.solvers.probe_files import order_scores
    n = len(values)
    if not radix or len(radix) < 2 or n < 4:
        return SlotOrder.identity(n)
    radix = tuple(int(r) for r in radix)
    perms = [p for p in itertools.permutations(range(len(radix)))]
    orders = [SlotOrder.of_permutation(radix, p) for p in perms]
    distinct, _, sym = symbols_of(values)
    k = len(distinct)
    if k < 2 or k > 1 << 10:  # one value: any order; very many: the scoring costs k * k
        return SlotOrder.identity(n)
    rng = np.random.default_rng(ORDER_SEED)
    m = min(ORDER_SAMPLES, n - 1)
    samples = np.column_stack([rng.integers(0, r, m, dtype=np.int64) for r in radix])
    scores = order_scores(sym, k, np.array(radix, np.int64), np.array(perms, np.int64),
                          np.ascontiguousarray(samples))
    # rounded: a tie is a tie whatever the last bits of the sums on this machine
    scores = np.round(scores, 6)
    return orders[int(np.argmin(scores))]
