"""The slot order of index probe files (``tbdb.probe_files.order``, docs/probe-format.md, "Slot
order"): slot -> stream position against NumPy's own reshape and transpose, round trips, the
reader's checks, and the writer's choice on values built to favour one order."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from tbdb import games
from tbdb.probe_files import ProbeFileError, encode_stream
from tbdb.probe_files.order import SlotOrder, choose_order
from tbdb.solvers.probe_files import decode_slot_at
from tbdb.probe_files.coder import Stream


RADIX = (2, 3, 5, 4)


@pytest.mark.parametrize("perm", list(itertools.permutations(range(len(RADIX))))[::5])
def test_positions_are_where_numpy_transposes_each_slot(perm):
    n = int(np.prod(RADIX))
    order = SlotOrder.of_permutation(RADIX, perm)
    # the reference: at stream position p numpy's transpose puts game slot stream[p]
    stream = np.arange(n).reshape(RADIX).transpose(perm).ravel()
    got = order.positions(stream)
    assert got.tolist() == list(range(n))
    assert order.permutation == perm
    values = np.random.default_rng(1).integers(-50, 50, n).astype(np.int32)
    assert order.to_stream(values).tolist() == values[stream].tolist()
    assert order.to_slots(order.to_stream(values)).tolist() == values.tolist()
    assert SlotOrder.parse(order.to_bytes(), n, "t") == order


def test_the_decoder_maps_slots_as_the_order_says():
    n = int(np.prod(RADIX))
    values = np.random.default_rng(2).integers(0, 7, n).astype(np.int32)
    order = SlotOrder.of_permutation(RADIX, (3, 0, 2, 1))
    s = Stream.parse(np.frombuffer(encode_stream(order.to_stream(values), 16), np.uint8), "t")
    table = np.array([order.radix, order.place], np.int64).T.copy()
    got = [decode_slot_at(s.buf, s.table, table, slot, -1) for slot in range(n)]
    assert got == values.tolist()


@pytest.mark.parametrize("radix, place", [
    ((2, 3), (1, 1)),  # two digits at one place
    ((2, 3), (3, 2)),  # places that skip: 2 is not 1
    ((2, 3), (4, 1)),  # 4 is not 3
    ((6,), (2,)),
    ((0, 6), (6, 1)),
])
def test_the_reader_refuses_an_order_that_is_no_digit_permutation(radix, place):
    data = SlotOrder(radix, place).to_bytes()
    with pytest.raises(ProbeFileError, match="slot order"):
        SlotOrder.parse(data, 6, "f.tbp")
    with pytest.raises(ProbeFileError, match="slot order"):
        SlotOrder.parse(SlotOrder.identity(7).to_bytes(), 6, "f.tbp")  # 7 slots, not 6
    with pytest.raises(ProbeFileError, match="slot order"):
        SlotOrder.parse(data[:-1], 6, "f.tbp")  # truncated


def test_the_writer_puts_the_digit_values_ignore_last():
    # values that depend on digits 1 and 2 only, at random: neighbours along digit 0 (the
    # game's slowest) are equal, along the others unrelated; the order must vary it fastest
    radix = (3, 40, 30)
    rng = np.random.default_rng(3)
    table = rng.integers(0, 50, (40, 30))
    values = np.broadcast_to(table[None, :, :], radix).ravel().astype(np.int32)
    order = choose_order(values, radix)
    assert order.permutation[-1] == 0
    assert choose_order(values, radix) == order  # the same values, the same order
    assert len(encode_stream(order.to_stream(values))) < 0.6 * len(encode_stream(values))
    # one value only, or no digits: the game's order
    assert choose_order(np.zeros(3600, np.int32), radix).is_identity
    assert choose_order(values, None).is_identity


def test_cdc_digits_multiply_to_its_slots_and_are_used_by_its_files():
    from tbdb.games.cdc.material import Material
    g = games.get("cdc")
    for name in ("KvK", "KCvP", "GGvM", "KGvRN", "PPvCC"):
        m = Material.parse(name)
        assert int(np.prod(g.slot_digits(name))) == 2 * m.size
    assert g.slot_digits("PPvCC")[1] == 136  # a pair leads: its orbit


@pytest.mark.parametrize("radix, seed", [((2, 3, 5, 4), 1), ((7, 2, 2), 2), ((5,), 3),
                                         ((2, 8, 31, 30), 4), ((3, 3, 3, 3, 2), 5)])
def test_order_scores_equal_the_entropy_counted_order_by_order(radix, seed):
    # the kernel shares the pairs of orders with a common ending and keeps the entropy as
    # running sums; the reference walks every sample's next slot along every order and counts
    from tbdb.solvers.probe_files import order_scores
    rng = np.random.default_rng(seed)
    n = int(np.prod(radix))
    k = 6
    sym = np.minimum(rng.geometric(0.4, n) - 1, k - 1).astype(np.int32)  # skewed, repeating
    m = 500
    samples = np.column_stack([rng.integers(0, r, m, dtype=np.int64) for r in radix])
    perms = list(itertools.permutations(range(len(radix))))
    got = order_scores(sym, k, np.array(radix, np.int64), np.array(perms, np.int64),
                       np.ascontiguousarray(samples))
    for o, perm in enumerate(perms):
        order = SlotOrder.of_permutation(radix, perm)
        slot = np.ravel_multi_index(samples.T, radix)
        place = order.positions(slot)
        stream_slot = np.argsort(order.positions(np.arange(n)))  # game slot at each place
        ok = place + 1 < n
        firsts = sym[slot[ok]]
        seconds = sym[stream_slot[place[ok] + 1]]
        pairs = np.zeros((k, k))
        np.add.at(pairs, (firsts, seconds), 1)
        rows = pairs.sum(axis=1, keepdims=True)
        nz = pairs > 0
        want = -float((pairs[nz] * np.log2(pairs[nz] / np.broadcast_to(rows, pairs.shape)[nz]))
                      .sum())
        assert got[o] == pytest.approx(want, abs=1e-6), perm


@pytest.mark.parametrize("parallel_slots", [None, "PARALLEL_SLOTS", "SPLIT_SLOTS"])
def test_files_in_a_permuted_order_answer_as_the_database(every_game_db, tmp_path,
                                                          monkeypatch, parallel_slots):
    # the example tables happen to compress best in the game's own order: write them with
    # the digits reversed, so that single probes and batches must map every slot
    import tbdb
    from tbdb.probe_files import coder, export, format as fmt
    from tbdb.probe_files.order import SlotOrder

    def reversed_digits(game, row, values):
        digits = games.get(game).slot_digits(row["table_name"])
        return SlotOrder.of_permutation(digits, tuple(reversed(range(len(digits)))))

    monkeypatch.setattr(fmt, "index_order", reversed_digits)
    if parallel_slots is not None:  # the other decoding paths (see the batch test)
        monkeypatch.setattr(coder, parallel_slots, 1)
    out = str(tmp_path / "probe")
    export(every_game_db, out, game="cdc", progress=False)
    g = games.get("cdc")
    with tbdb.open(out) as files:
        assert all(not files.store.open_table(r).order.is_identity
                   for r in files.store.tables("cdc"))
    rng = np.random.default_rng(9)
    with tbdb.open(every_game_db) as db, tbdb.open(out) as files:
        positions = []
        for r in db.tables("cdc"):
            slots = rng.integers(0, r["slots"], 200)
            for slot in slots.tolist():
                try:
                    positions.append(g.parse(g.slot_text(r["table_name"], slot)))
                except ValueError:
                    pass
        arrays = g.encode_batch(positions)
        want = [c.tolist() for c in db.lookup_arrays("cdc", *arrays)]
        assert [c.tolist() for c in files.lookup_arrays("cdc", *arrays)] == want
        for p in positions[::20]:
            assert files.lookup(p, game="cdc").to_dict() == db.lookup(p, game="cdc").to_dict()
