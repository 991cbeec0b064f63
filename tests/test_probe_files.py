"""Probe files (``tbdb.probe_files``, docs/probe-format.md): every stored value read through a
probe file equals the database's, lookups through ``tbdb.open(DIR)`` equal those through the
database, exports are deterministic, and damaged files are refused in one line."""
from __future__ import annotations

import hashlib
import json
import os
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tbdb
from tbdb import games
from tbdb.cli.run import main
from tbdb.games.base import GameOver
from tbdb.probe_files import (MANIFEST, ProbeDir, ProbeFileError, Stream, encode_stream,
                              compare_dir, export, pack_values, unpack_values, verify_dir,
                              write_table)
from tbdb.solvers.retrograde import NONE
from tbdb.storage import storage_of
from tbdb.db.store import Store


# every test on files of both codings of index tables: compressed streams (layout 0) and
# direct cells (layout 3, ``tbdb export --direct``)
@pytest.fixture(scope="module", params=["streams", "direct"])
def exported(every_game_db, tmp_path_factory, request):
    out = str(tmp_path_factory.mktemp("probe") / "probe")
    export(every_game_db, out, progress=False, direct=request.param == "direct")
    return every_game_db, out


def _stream(values, block_slots=512) -> Stream:
    data = np.frombuffer(encode_stream(np.asarray(values, np.int32), block_slots), np.uint8)
    return Stream.parse(data, "test")


@settings(max_examples=25, deadline=None)  # (60 took 30 s of CI's time)
@given(st.lists(st.tuples(st.integers(-3, 1), st.integers(-5, 300)), min_size=0, max_size=3000),
       st.sampled_from([1, 4, 64, 512]), st.randoms(use_true_random=False))
def test_random_value_streams_round_trip_through_the_block_coder(pairs, block, rnd):
    result = np.array([p[0] for p in pairs], np.int8)
    distance = np.array([p[1] for p in pairs], np.int16)
    s = _stream(pack_values(result, distance), block)
    got = unpack_values(s.all())
    assert got[0].tolist() == result.tolist() and got[1].tolist() == distance.tolist()
    if pairs:
        slots = np.array([rnd.randrange(len(pairs)) for _ in range(50)], np.int64)
        packed = pack_values(result, distance)
        assert s.gather(slots).tolist() == packed[slots].tolist()
        assert [s.at(int(i)) for i in slots[:10]] == packed[slots[:10]].tolist()


def test_packed_values_are_the_result_above_the_distance_bits():
    # the kernels against the formula in numpy, every distance an int16 holds, strided input
    distance = np.arange(-32768, 32768, dtype=np.int16)
    result = np.resize(np.array([-3, -2, -1, 0, 1], np.int8), len(distance))
    want = (result.astype(np.int32) << 16) | (distance.astype(np.int32) & 0xFFFF)
    assert np.array_equal(pack_values(result, distance), want)
    assert np.array_equal(pack_values(result[::3], distance[::3]), want[::3])
    back = unpack_values(want)
    assert back[0].dtype == np.int8 and back[1].dtype == np.int16
    assert np.array_equal(back[0], result) and np.array_equal(back[1], distance)
    with pytest.raises(ValueError):
        pack_values(result, distance[:5])


def test_skewed_alphabets_keep_codes_within_the_limit():
    # Fibonacci-like counts make Huffman codes as deep as the alphabet; the coder caps them
    counts = [1, 1]
    while len(counts) < 45:
        counts.append(counts[-1] + counts[-2])
    values = np.repeat(np.arange(len(counts), dtype=np.int32), np.minimum(counts, 5000))
    values = np.concatenate([values, np.full(1, 10 ** 6, np.int32)])
    s = _stream(values)
    assert s.maxlen <= 32 and s.all().tolist() == values.tolist()


@pytest.mark.parametrize("n", [200_000, 1 << 22])  # a small stream's table and a large one's
def test_codes_longer_than_the_lookup_table_decode_slot_by_slot(n):
    # values in no order over a long-tailed alphabet: pairs find little, codes grow past the
    # bits one table lookup decodes (the rest found by their lengths' limits)
    from tbdb.solvers.probe_files import fast_bits
    rng = np.random.default_rng(5)
    values = rng.geometric(0.35, n).astype(np.int32)
    s = _stream(values)
    assert s.maxlen > fast_bits(len(values))
    slots = rng.permutation(len(values))[:3000]
    assert [s.at(int(i)) for i in slots] == values[slots].tolist()
    assert s.gather(slots).tolist() == values[slots].tolist()
    assert s.all().tolist() == values.tolist()


def test_pair_substitution_codes_repeats_below_a_bit_a_slot_and_caps_its_symbols():
    rng = np.random.default_rng(5)
    # a value that mostly repeats its neighbour: runs of random length, block edges anywhere
    values = np.repeat(rng.integers(0, 40, 3000), rng.integers(1, 60, 3000)).astype(np.int32)
    data = encode_stream(values, 1024, max_symbols=300)
    s = Stream.parse(np.frombuffer(data, np.uint8), "test")
    # a code per slot could not go below the values' entropy, about 5.3 bits here
    assert s.symbols <= 300 and 8 * len(data) < len(values)  # under a bit a slot
    assert s.all().tolist() == values.tolist()
    slots = rng.integers(0, len(values), 2000)
    assert s.gather(slots).tolist() == values[slots].tolist()
    assert [s.at(int(i)) for i in slots[:50]] == values[slots[:50]].tolist()
    # a pair naming a later symbol is refused when the stream is opened, not decoded forever
    k = 40
    at = 32 + 4 * k  # the pairs follow the 40 terminals (4 bytes each, 8-aligned)
    broken = bytearray(data)
    broken[at:at + 2] = (s.symbols - 1).to_bytes(2, "little")
    with pytest.raises(ProbeFileError, match="later symbol"):
        Stream.parse(np.frombuffer(bytes(broken), np.uint8), "test")


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 12), st.integers(0, 3000), st.sampled_from([1, 2, 8, 64, 1024]),
       st.integers(2, 300), st.sampled_from([1, 3, 64]), st.sampled_from([2, 8]),
       st.sampled_from([0, 1, 2, 3]), st.integers(0, 2 ** 32 - 1))
def test_pair_substitution_equals_recounting_every_round(k, n, block, extra, per_round,
                                                         min_pair, ratio, seed):
    # the kernel keeps its pair counts up to date through each replacing pass; a reference
    # that recounts every pair from scratch each round must make the same pairs and sequence
    from tbdb.probe_files import coder
    from tests.naive_repair import naive_substitute
    rng = np.random.default_rng(seed)
    # runs and repeated patterns, so that pairs chain, overlap and cross block edges
    motif = rng.integers(0, k, 6)
    parts = [np.repeat(rng.integers(0, k, 1), rng.integers(1, 9)) if rng.random() < 0.4
             else motif[:rng.integers(1, 7)] for _ in range(n // 3 + 1)]
    seq = np.concatenate(parts)[:n].astype(np.int32)
    max_symbols = k + extra
    want_seq, want_pairs = naive_substitute(seq.tolist(), k, block, max_symbols, per_round,
                                            min_pair, ratio)
    got_seq, got_pairs, size = coder.substitute_pairs(seq.copy(), k, block, max_symbols,
                                                      per_round, min_pair, ratio)
    assert [tuple(p) for p in got_pairs.tolist()] == want_pairs
    assert got_seq.tolist() == want_seq
    assert len(size) == k + len(want_pairs)


def _tables(db):
    with Store(db, read_only=True) as store:
        for row in store.tables():
            if store.table(row["game"], row["table_name"]) is None:
                continue
            row = store.table(row["game"], row["table_name"])
            kind = storage_of(row)
            yield row, kind, kind.load(store, row)


def test_every_slot_key_and_run_equals_the_database(exported):
    db, out = exported
    d = ProbeDir(out)
    seen = set()
    for row, kind, values in _tables(db):
        game = next(g for (g, t) in d.entries if t == row["table_name"])
        seen.add(game)
        t = d.open_table(d.table(game, row["table_name"]))
        if kind.name == "index":
            filled = np.flatnonzero(values.result != NONE)
            got = t.gather(filled, None)
            assert got[0].tolist() == values.result[filled].tolist()
            assert got[1].tolist() == values.distance[filled].tolist()
            assert got[2].tolist() == values.best[filled].tolist()
            for k in random.Random(1).sample(range(len(values.result)),
                                             min(3000, len(values.result))):
                expect = (None if values.result[k] == NONE else
                          (int(values.result[k]), int(values.distance[k]), int(values.best[k])))
                assert t.probe(k) == expect
        elif kind.name == "key":
            keys = np.concatenate([np.column_stack([lv.keys, lv.constraint.astype(np.int64)])
                                   for lv in values]) if values else np.zeros((0, 3), np.int64)
            got = t.gather(keys, None)
            for col, name in zip(got, ("result", "distance", "best")):
                expect = np.concatenate([getattr(lv, name) for lv in values]) if values else []
                assert col.tolist() == list(expect)
        else:
            n = len(values.offsets) - 1
            keys = np.arange(n, dtype=np.int64)
            with Store(db, read_only=True) as store:
                ref = kind.open(store, row, load=True)
                for plies in range(1, values.horizon + 1):
                    at = np.full(n, plies, np.int16)
                    assert [c.tolist() for c in t.gather(keys, at)] == \
                        [c.tolist() for c in ref.gather(keys, at)]
    assert seen == set(games.names())


def _sample_texts(g, db, n=12):
    out = []
    with Store(db, read_only=True) as store:
        for row in sorted(store.tables(g.name), key=lambda r: r["table_name"]):
            row = store.table(g.name, row["table_name"])
            if row is None:
                continue
            kind, values = storage_of(row), None
            values = kind.load(store, row)
            if kind.name == "index":
                keys = np.flatnonzero(values.result >= -1).tolist()
            elif kind.name == "key":
                keys = [tuple(int(x) for x in (*k, c)) for lv in values
                        for k, c in zip(lv.keys, lv.constraint)]
            else:
                keys = np.flatnonzero(np.diff(values.offsets) > 0).tolist()
            out += [(row["table_name"], k) for k in keys]
    texts = [g.slot_text(t, k) for t, k in random.Random(5).sample(out, min(n, len(out)))]
    return [x for x in texts if not isinstance(g.locate(g.parse(x)), GameOver)] or texts


@pytest.mark.parametrize("name", games.names())
def test_lookups_through_probe_files_equal_the_database(exported, name):
    db, out = exported
    g = games.get(name)
    texts = _sample_texts(g, db)
    with tbdb.open(db) as a:
        expect = [json.dumps(a.lookup(x, game=name).to_dict(line=True)) for x in texts]
    with tbdb.open(out) as b:
        got = [json.dumps(b.lookup(x, game=name).to_dict(line=True)) for x in texts]
        assert b.stats().hits > 0
    assert got == expect


@pytest.fixture(scope="module", params=["streams", "direct"])
def exported_without_moves(every_game_db, tmp_path_factory, request):
    out = str(tmp_path_factory.mktemp("probe-no-moves") / "probe")
    export(every_game_db, out, moves=False, progress=False, direct=request.param == "direct")
    return every_game_db, out


@pytest.mark.parametrize("name", games.names())
def test_without_stored_moves_a_lookup_derives_a_best_move_of_the_same_value(
        exported_without_moves, name):
    """--no-moves: the best move comes from one ply of probes.  It is a move of the stored best
    move's value (among equally good moves it may be another one: the stored one is the first
    in the canonical position's move order), and the values of every move are the database's."""
    db, out = exported_without_moves
    g = games.get(name)
    texts = _sample_texts(g, db)
    with tbdb.open(db) as a, tbdb.open(out) as b:
        for x in texts:
            stored, derived = a.lookup(x, game=name), b.lookup(x, game=name)
            assert (derived.outcome, derived.distance) == (stored.outcome, stored.distance)
            assert sorted((m.move, m.outcome, m.distance) for m in derived.moves) == \
                sorted((m.move, m.outcome, m.distance) for m in stored.moves), x
            values = {m.move: (m.outcome, m.distance) for m in stored.moves}
            assert (derived.best_move is None) == (stored.best_move is None), x
            if stored.best_move is not None:
                assert values[derived.best_move] == values[stored.best_move], x
            line = derived.line()
            assert bool(line) == bool(stored.line()), x


@pytest.mark.parametrize("name", ["cdc", "chess"])
def test_without_stored_moves_the_best_move_is_derived_only_when_read(exported_without_moves,
                                                                      name):
    """An engine asks for the value inside its search: a lookup on files without best moves
    probes the position alone, through C or Python, and its children only when ``best_move``
    (or ``moves``, ``to_dict``) is read; what it then says equals what deriving at once said.
    A chess lookup took 0.5 ms, nearly all of it deriving a move that was never read."""
    from tbdb.results import DerivedBest
    db, out = exported_without_moves
    g = games.get(name)
    texts = _sample_texts(g, db, 40)
    with tbdb.open(db) as a, tbdb.open(out) as b:
        for x in texts:
            for position in (x, g.parse(x)):  # the text path, and an engine's (C's route)
                before = b.stats().probes
                r = b.lookup(position, game=name)
                assert b.stats().probes - before == 1, x
                assert type(r) is DerivedBest and "_best" not in r.__dict__, x
                stored = a.lookup(x, game=name)
                assert (r.outcome, r.distance) == (stored.outcome, stored.distance), x
                assert r.best_move == b.prober.derived_best(g, g.parse(x)), x
                assert b.stats().probes - before > 1 or r.best_move is None, x
                assert r == b.lookup(x, game=name) and r.to_dict() == \
                    b.lookup(x, game=name).to_dict(), x


@pytest.mark.parametrize("parallel_slots", [None, "PARALLEL_SLOTS", "SPLIT_SLOTS"])
def test_lookup_arrays_through_probe_files_equal_the_database(exported, parallel_slots,
                                                              monkeypatch):
    # PARALLEL_SLOTS 1: every table's share is decoded on every core; SPLIT_SLOTS 1: shares
    # over several tables are decoded in two halves on two threads
    from tbdb.games.base import BATCH_FORM
    from tbdb.probe_files import coder
    if parallel_slots is not None:
        monkeypatch.setattr(coder, parallel_slots, 1)
    db, out = exported
    for name in games.names():
        g = games.get(name)
        if BATCH_FORM not in g.capabilities:
            continue
        positions = [g.parse(x) for x in _sample_texts(g, db, 30)]
        batches: dict = {}  # a batch holds one board's positions (the rhombus, a star)
        for p in positions:
            batches.setdefault((type(p), len(getattr(p, "cells", ()))), []).append(p)
        for batch in batches.values():
            arrays = g.encode_batch(batch)
            with tbdb.open(db) as a:
                expect = [c.tolist() for c in a.lookup_arrays(name, *arrays)]
            with tbdb.open(out) as b:
                assert [c.tolist() for c in b.lookup_arrays(name, *arrays)] == expect


def test_cli_lookup_on_a_directory_prints_what_the_database_does(exported, capsys):
    db, out = exported
    g = games.get("cdc")
    text = _sample_texts(g, db, 3)[0]
    for args in (["--json", "--line"], []):
        assert main(["lookup", "cdc", text, "--db", db, *args]) == 0
        expect = capsys.readouterr().out
        assert main(["lookup", "cdc", text, "--db", out, *args]) == 0
        assert capsys.readouterr().out == expect


def test_export_twice_gives_byte_identical_files_and_skips_current_ones(exported, tmp_path):
    db, out = exported
    direct = any(e.get("direct") for e in ProbeDir(out).manifest["files"])
    again = str(tmp_path / "again")
    s = export(db, again, progress=False, direct=direct)
    assert s.written and not s.skipped
    for e in ProbeDir(out).manifest["files"]:
        with open(os.path.join(out, e["path"]), "rb") as f1, \
                open(os.path.join(again, e["path"]), "rb") as f2:
            assert f1.read() == f2.read(), e["path"]
    s = export(db, again, progress=False, direct=direct)
    assert not s.written and len(s.skipped) == len(ProbeDir(out).entries)
    assert verify_dir(again) == (len(s.skipped), [])
    # a flipped byte in a kept file: exporting again finds it and writes the file afresh
    rel = ProbeDir(out).manifest["files"][0]["path"]
    with open(os.path.join(again, rel), "r+b") as f:
        f.seek(200)
        byte = f.read(1)
        f.seek(200)
        f.write(bytes([byte[0] ^ 0x10]))
    assert verify_dir(again)[1]
    s = export(db, again, progress=False, direct=direct)
    assert s.written == s.damaged == [rel] and len(s.skipped) == len(ProbeDir(out).entries) - 1
    assert "1 of them damaged and rewritten: " + rel in str(s)
    with open(os.path.join(out, rel), "rb") as f1, open(os.path.join(again, rel), "rb") as f2:
        assert f1.read() == f2.read()
    assert verify_dir(again) == (len(ProbeDir(out).entries), [])
    # the other coding: every index table's file is written again, the others are current
    s = export(db, again, progress=False, direct=not direct)
    index = {e["path"] for e in ProbeDir(out).manifest["files"] if e["storage"] == "index"}
    assert index and set(s.written) == index
    assert len(s.skipped) == len(ProbeDir(out).entries) - len(index)
    assert {e["path"] for e in ProbeDir(again).manifest["files"] if e.get("direct")} == \
        (set() if direct else index)
    assert verify_dir(again) == (len(ProbeDir(out).entries), [])


def test_export_command_writes_a_manifest_and_refuses_an_unbuilt_table(exported, tmp_path,
                                                                        capsys):
    db, _ = exported
    out = str(tmp_path / "cli")
    assert main(["export", "--db", db, "--out", out, "--game", "cdc", "--table", "CvP",
                 "--no-moves"]) == 0
    m = json.load(open(os.path.join(out, MANIFEST)))
    assert [(e["game"], e["table"], e["moves"]) for e in m["files"]] == [("cdc", "CvP", False)]
    capsys.readouterr()
    assert main(["export", "--db", db, "--out", out, "--game", "cdc", "--table", "KQvK"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "KQvK" in err
    # a game with no table built: said so, nothing written (no empty manifest)
    small = str(tmp_path / "ttt.duckdb")
    tbdb.build("tictactoe", db=small, progress=False)
    before = open(os.path.join(out, MANIFEST), "rb").read()
    assert main(["export", "--db", small, "--out", out, "--game", "shogi"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{small!r} holds no built shogi table to export" in err
    assert open(os.path.join(out, MANIFEST), "rb").read() == before
    assert main(["export", "--db", small, "--out", str(tmp_path / "none"), "--game", "cdc"]) == 2
    assert not os.path.exists(tmp_path / "none")


def _copy(out, tmp_path) -> str:
    import shutil
    dst = str(tmp_path / "copy")
    shutil.copytree(out, dst)
    return dst


def _cdc_file(d) -> str:
    return os.path.join(d, "cdc", "KCvP.tbp")


def _lookup_fails(d, capsys, text, *words) -> str:
    assert main(["lookup", "cdc", text, "--db", d]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    for w in words:
        assert w in err, err
    return err


@pytest.fixture
def kcvp(exported):
    """A KCvP position the tests' damaged copies are asked about."""
    db, _ = exported
    g = games.get("cdc")
    with Store(db, read_only=True) as store:
        row = store.table("cdc", "KCvP")
        v = storage_of(row).load(store, row)
    k = int(np.flatnonzero(v.result == 1)[0])
    return g.slot_text("KCvP", k)


def test_a_truncated_file_is_refused_in_one_line(exported, tmp_path, capsys, kcvp):
    d = _copy(exported[1], tmp_path)
    size = os.path.getsize(_cdc_file(d))
    os.truncate(_cdc_file(d), size - 100)
    _lookup_fails(d, capsys, kcvp, "KCvP.tbp", "truncated")
    assert main(["verify", "--db", d]) == 1
    assert "KCvP.tbp" in capsys.readouterr().out


def test_a_flipped_byte_is_found_on_open_and_by_verify(exported, tmp_path, capsys, kcvp):
    d = _copy(exported[1], tmp_path)
    with open(_cdc_file(d), "r+b") as f:
        f.seek(os.path.getsize(_cdc_file(d)) - 200)
        b = f.read(1)
        f.seek(-1, 1)
        f.write(bytes([b[0] ^ 0x10]))
    _lookup_fails(d, capsys, kcvp, "KCvP.tbp", "sha256")
    assert main(["verify", "--db", d]) == 1
    out = capsys.readouterr().out
    assert "KCvP.tbp" in out and "sha256" in out


def test_an_unknown_format_version_is_refused(exported, tmp_path, capsys, kcvp):
    d = _copy(exported[1], tmp_path)
    with open(_cdc_file(d), "r+b") as f:
        f.seek(8)
        f.write((2).to_bytes(4, "little"))  # the version before slot orders
    _lookup_fails(d, capsys, kcvp, "format version 2")


def test_a_manifest_mismatch_and_a_missing_table_are_named(exported, tmp_path, capsys, kcvp):
    d = _copy(exported[1], tmp_path)
    mpath = os.path.join(d, MANIFEST)
    m = json.load(open(mpath))
    e = next(e for e in m["files"] if e["table"] == "KCvP")
    e["size"] += 8
    json.dump(m, open(mpath, "w"))
    _lookup_fails(d, capsys, kcvp, "KCvP.tbp", "manifest")
    m["files"].remove(e)
    json.dump(m, open(mpath, "w"))
    _lookup_fails(d, capsys, kcvp, "'KCvP'", "tbdb export")
    os.unlink(_cdc_file(d))  # a file the manifest names, gone
    e["size"] -= 8
    m["files"].append(e)
    json.dump(m, open(mpath, "w"))
    _lookup_fails(d, capsys, kcvp, "KCvP", "missing", "tbdb export")


@pytest.mark.parametrize("field, value, problem", [
    (None, 1, "not an object"), ("twice", None, "lists table 'KCvP' of cdc twice"),
    ("size", "99", "'size' is not a count"),
    ("slots", -1, "'slots' is not a count"), ("params", [1], "'params' is not an object"),
    ("moves", "yes", "'moves' is not true or false"), ("game", None, "'game' is not text"),
    ("path", "../KCvP.tbp", "a path outside the directory"),
    ("path", "cdc/KCvP.tbp\x00", "a path outside the directory")])
def test_a_manifest_entry_tbdb_never_writes_is_refused(exported, tmp_path, capsys, kcvp, field,
                                                       value, problem):
    """Every reader takes an entry's fields on trust once the manifest is read: an entry that
    was a number, or a size written as text, came out of lookup, status and verify as a
    TypeError; a table listed twice was answered from whichever entry came last (libtbprobe
    refuses such a manifest)."""
    d = _copy(exported[1], tmp_path)
    mpath = os.path.join(d, MANIFEST)
    m = json.load(open(mpath))
    i = next(i for i, e in enumerate(m["files"]) if e["table"] == "KCvP")
    if field == "twice":
        m["files"].append(dict(m["files"][i]))
    elif field is None:
        m["files"][i] = value
    else:
        m["files"][i][field] = value
    json.dump(m, open(mpath, "w"))
    _lookup_fails(d, capsys, kcvp, problem)
    for argv in (["status", "--db", d], ["verify", "--db", d]):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and problem in err, err


def test_a_fifo_or_a_link_out_of_the_directory_is_refused(exported, tmp_path, capsys, kcvp):
    d = _copy(exported[1], tmp_path)
    outside = str(tmp_path / "outside.tbp")
    os.replace(_cdc_file(d), outside)
    os.symlink(outside, _cdc_file(d))
    _lookup_fails(d, capsys, kcvp, "outside")
    os.unlink(_cdc_file(d))
    os.mkfifo(_cdc_file(d))
    _lookup_fails(d, capsys, kcvp, "FIFO")


def test_sql_on_a_directory_says_it_needs_the_database(exported, capsys):
    _, out = exported
    with tbdb.open(out) as tb:
        with pytest.raises(ProbeFileError, match="DuckDB database"):
            tb.sql("SELECT 1")
    assert main(["sql", "SELECT 1", "--db", out]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "probe files" in err
    # status lists the tables the directory holds (tests/test_build_probe_files.py)
    assert main(["status", "--db", out]) == 0
    assert "probe files" in capsys.readouterr().out


def test_verify_against_the_database_compares_every_slot(exported, tmp_path, capsys):
    db, out = exported
    assert main(["verify", "--db", out, "--against", db]) == 0
    assert "every slot equals" in capsys.readouterr().out
    # a well-formed file (checksums and manifest made anew) whose one slot says otherwise:
    # only the comparison with the database can see it
    d = _copy(out, tmp_path)
    with Store(db, read_only=True) as store:
        row = store.table("cdc", "KCvP")
        values = storage_of(row).load(store, row)
    slot = int(np.flatnonzero(values.result == 1)[0])
    values.distance[slot] += 2
    data = write_table("cdc", row, values)
    with open(_cdc_file(d), "wb") as f:
        f.write(data)
    mpath = os.path.join(d, MANIFEST)
    m = json.load(open(mpath))
    e = next(e for e in m["files"] if e["table"] == "KCvP")
    e["size"], e["sha256"] = len(data), hashlib.sha256(data).hexdigest()
    json.dump(m, open(mpath, "w"))
    # verify alone finds it too now: the value its children contradict (issue 61)
    assert main(["verify", "--db", d]) == 1
    assert f"(slot {slot}: its value, stored win in " in capsys.readouterr().out
    assert main(["verify", "--db", d, "--against", db]) == 1
    capsys.readouterr()
    text = "\n".join(compare_dir(d, db)[1])
    assert f"cdc/KCvP.tbp: values at slot: 1 differ, the first at {slot}" in text
    assert main(["verify", "--db", db, "--against", db]) == 2
    assert "give the directory as --db DIR" in capsys.readouterr().err
    # --game checks that game's files only (it used to check them all, whatever it named)
    assert main(["verify", "--db", d, "--game", "tictactoe", "--against", db]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "verify: 1 probe files of tictactoe, every one matches its manifest and checksums",
        f"verify: 1 probe files of tictactoe, every slot equals {db}"]
    assert main(["verify", "--db", d, "--game", "backgammon"]) == 2
    assert "unknown game 'backgammon'" in capsys.readouterr().err


def test_the_explorer_serves_a_directory_of_probe_files(exported):
    from starlette.testclient import TestClient

    from tbdb.web.app import create_app
    db, out = exported
    with tbdb.open(db) as tb:
        counts: dict[str, int] = {}
        for r in tb.tables():
            counts[r["game"]] = counts.get(r["game"], 0) + 1
        texts = {g.name: _sample_texts(g, db, 3) for g in games.all_games()}
        want = {name: [tb.lookup(t, game=name).to_dict() for t in ts]
                for name, ts in texts.items()}
    with TestClient(create_app(out)) as client:
        listed = client.get("/api/games").json()
        assert {g["name"]: g["tables"] for g in listed if g["tables"]} == counts
        for name, ts in texts.items():
            got = [client.get(f"/api/{name}", params={"position": t}).json() for t in ts]
            assert got == want[name]
        tables = client.get("/api/tables").json()
        assert sorted((t["game"], t["table_name"]) for t in tables) == sorted(
            (r["game"], r["table_name"]) for r in tbdb.open(out).tables())
        r = client.get("/api/cdc/find")
        assert r.status_code == 400 and "probe files" in r.json()["error"]
