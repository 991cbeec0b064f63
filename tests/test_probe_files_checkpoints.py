"""Checkpoints inside probe-file blocks (``solvers/probe_files/layout.py``, "Checkpoints"): a probe
decodes from the last checkpoint recorded before its slot, and records those it passes.  Every
slot read through them, in any order and by either decoder (single slots, sorted gathers),
equals the value written; a wrong checkpoint changes answers (so they are really used)."""
from __future__ import annotations

import random

import numpy as np
import pytest

from tbdb.probe_files import ProbeDir, Stream, encode_stream, export
from tbdb.solvers import probe_files as K
from tbdb.solvers.retrograde import NONE
from tbdb.storage import storage_of
from tbdb.db.store import Store


def _stream(values, block_slots) -> Stream:
    data = np.frombuffer(encode_stream(np.asarray(values, np.int32), block_slots), np.uint8)
    return Stream.parse(data, "test")


def _shapes(rng):
    """Streams a coder meets: noise (a code a slot), runs and repeated motifs (pair symbols
    many slots long, crossing checkpoints), one value throughout (a symbol a block)."""
    n = 5000
    noise = rng.integers(-40, 40, n)
    runs = np.repeat(rng.integers(0, 30, n), rng.integers(1, 200, n))[:n]
    motif = np.tile(rng.integers(0, 5, 7), n // 7 + 1)[:n]
    mixed = np.where(rng.random(n) < 0.9, motif, noise)
    return {"noise": noise, "runs": runs, "motif": motif, "mixed": mixed,
            "constant": np.full(n, 3), "short": rng.integers(0, 3, 37)}


@pytest.mark.parametrize("block", [1024, 64, 16, 8])  # 16: a checkpoint every slot
def test_every_slot_read_through_checkpoints_equals_the_stream(block):
    rng = np.random.default_rng(block)
    for name, values in _shapes(rng).items():
        values = values.astype(np.int32)
        n = len(values)
        # single slots: ascending, descending, random order, then again with every checkpoint
        # recorded; a fresh stream for each order (its checkpoints are recorded by the first)
        for order in (np.arange(n), np.arange(n)[::-1], rng.permutation(n)):
            s = _stream(values, block)
            got = [s.at(int(i)) for i in order]
            assert got == values[order].tolist(), (name, block)
            again = rng.permutation(n)
            assert [s.at(int(i)) for i in again] == values[again].tolist(), (name, block)
        # a block shorter than CHECKPOINTS slots has none (each chunk would be under a slot)
        marked = (n + block - 1) // block if block >= K.CHECKPOINTS else 0
        assert s.checkpoints().shape == (marked, K.CHECKPOINTS - 1)
        if name in ("noise", "mixed") and n > block and marked:
            assert (s.checkpoints() != 0).any(), name  # the path above did record
        # sorted gathers (one core and the parallel one) on a fresh stream, then singles
        s = _stream(values, block)
        for _ in range(3):
            pick = rng.integers(0, n, 300)
            assert s.gather(pick).tolist() == values[pick].tolist(), (name, block)
        every = np.arange(n, dtype=np.int64)
        assert K.decode_sorted_parallel(s.buf, s.table, every, -1).tolist() == values.tolist()
        assert s.gather(every[::-1].copy()).tolist() == values[::-1].tolist()
        pick = rng.permutation(n)[:500]
        assert [s.at(int(i)) for i in pick] == values[pick].tolist(), (name, block)


def test_streams_whose_blocks_cannot_hold_checkpoints_decode_from_block_starts():
    rng = np.random.default_rng(3)
    values = rng.integers(0, 9, 3000).astype(np.int32)
    for block in (1, 4, 1 << 17):  # fewer slots than checkpoints; slots beyond 16 bits
        s = _stream(values, block)
        assert s.table[K.T_MARK_SHIFT] == -1 and s.checkpoints().size == 0
        pick = rng.permutation(len(values))[:400]
        assert [s.at(int(i)) for i in pick] == values[pick].tolist()
        assert s.gather(pick).tolist() == values[pick].tolist()


def test_a_wrong_checkpoint_changes_answers():
    """The checkpoints are what a probe starts from: a recorded one that names the wrong slot
    or the wrong bit makes slots decode wrong (or as damaged), so the tests above test them."""
    rng = np.random.default_rng(9)
    values = rng.integers(-20, 20, 8192).astype(np.int32)

    def wrong_after(change) -> int:
        s = _stream(values, 1024)
        assert [s.at(i) for i in range(len(values))] == values.tolist()
        marks = s.checkpoints()
        assert (marks != 0).all()  # noise: every checkpoint is past its block's start
        change(marks)
        wrong = 0
        for i in range(len(values)):
            try:
                wrong += s.at(i) != values[i]
            except ValueError:  # ProbeFileError: decoding ran off its block
                wrong += 1
        return wrong

    def one_slot_later(marks):
        marks += np.uint32(1 << 16)

    def one_bit_further(marks):
        marks += np.uint32(1)

    # 7 of a block's 8 chunks start from a checkpoint; a slot's neighbour mostly differs
    assert wrong_after(one_slot_later) > len(values) // 2
    # a code read from the wrong bit: the next codes are wrong until the code falls in step
    assert wrong_after(one_bit_further) > len(values) // 20


@pytest.fixture(scope="module")
def exported(every_game_db, tmp_path_factory):
    out = str(tmp_path_factory.mktemp("probe-checkpoints") / "probe")
    export(every_game_db, out, progress=False)
    return every_game_db, out


def test_every_slot_of_small_tables_through_checkpoints_equals_the_database(exported):
    db, out = exported
    d = ProbeDir(out)
    tables = 0
    with Store(db, read_only=True) as store:
        for listed in store.tables():
            game = listed["game"]
            row = store.table(game, listed["table_name"])
            if row is None or storage_of(row).name != "index":
                continue
            values = storage_of(row).load(store, row)
            n = len(values.result)
            t = d.open_table(d.table(game, row["table_name"]))
            want = [None if values.result[k] == NONE else
                    (int(values.result[k]), int(values.distance[k]), int(values.best[k]))
                    for k in range(n)]
            order = list(range(n))
            random.Random(n).shuffle(order)
            # single probes record checkpoints in random order; the second pass starts from them
            for _ in range(2):
                assert [t.probe(k) for k in order] == [want[k] for k in order], row["table_name"]
            filled = np.flatnonzero(values.result != NONE)
            got = t.gather(filled[::-1].copy(), None)
            assert got[0].tolist() == values.result[filled[::-1]].tolist()
            assert got[1].tolist() == values.distance[filled[::-1]].tolist()
            assert got[2].tolist() == values.best[filled[::-1]].tolist()
            tables += 1
    assert tables >= 2


def test_indexing_a_stream_records_what_probes_record():
    """``Stream.index`` (what ``tb.load`` does to a directory) records every checkpoint at
    once, on every core: the same words a probe of every slot records."""
    rng = np.random.default_rng(4)
    for values in (rng.integers(-20, 20, 9000), np.repeat(rng.integers(0, 9, 900),
                                                           rng.integers(1, 30, 900))):
        values = values.astype(np.int32)
        probed = _stream(values, 1024)
        assert [probed.at(i) for i in range(len(values))] == values.tolist()
        indexed = _stream(values, 1024)
        indexed.index()
        assert indexed.checkpoints().tolist() == probed.checkpoints().tolist()
        pick = rng.permutation(len(values))[:2000]
        assert [indexed.at(int(i)) for i in pick] == values[pick].tolist()
        assert indexed.gather(pick).tolist() == values[pick].tolist()


def test_load_on_a_directory_indexes_its_tables_and_answers_the_same(exported):
    import tbdb
    from tbdb import games
    db, out = exported
    with tbdb.open(out) as tb:
        names = sorted(t for t, s in tb.store.states("cdc").items() if s == "done")
        assert tb.load("cdc") == len(names)
        t = tb.prober.tables[("cdc", names[-1])]
        marks = t.values.checkpoints()
        if t.slots > t.values.block_slots:
            assert (marks != 0).any()
        g = games.get("cdc")
        with Store(db, read_only=True) as store:
            result = storage_of(g).load(store, store.table("cdc", names[-1])).result
        texts = [g.slot_text(names[-1], int(k)) for k in np.flatnonzero(result != NONE)[:300]]
        got = [tb.lookup(x, game="cdc").to_dict() for x in texts]
    with tbdb.open(db) as ref:
        assert got == [ref.lookup(x, game="cdc").to_dict() for x in texts]
