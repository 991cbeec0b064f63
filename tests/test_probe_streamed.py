"""The streamed export of big index tables (``tbdb.probe_files.streamed``), forced onto the
example tables with tiny chunks and samples: every slot read back equals the database (through
``tbdb.open(DIR)``, ``tbdb verify --against`` reading the table whole, and the C prober), the
file depends on neither the chunk size nor the run, a sample that is the whole table gives the
whole-stream coder's file byte for byte, and a damaged chunk is found by verify."""
from __future__ import annotations

import hashlib
import json
import os
import random
import shutil

import numpy as np
import pytest

import tbdb
from tbdb import games
from tbdb.cli.run import main
from tbdb.probe_files import ProbeDir, compare_dir, export, verify_dir
from tbdb.probe_files.header import BLOCK_SLOTS
from tbdb.probe_files.streamed import ENV, sample_ranges
from tbdb.storage import storage_of
from tbdb.db.store import Store

INDEX_GAMES = ("cdc", "chinese-checkers", "shogi")



def replace_table_file(directory: str, table: str, data: bytes) -> None:
    """Put ``data`` in place of ``table``'s probe file in ``directory``, its manifest entry's
    size and checksum made anew: a well-formed directory only the database can contradict."""
    mpath = os.path.join(directory, "manifest.json")
    m = json.load(open(mpath))
    e = next(e for e in m["files"] if e["table"] == table)
    with open(os.path.join(directory, e["path"]), "wb") as f:
        f.write(data)
    e["size"], e["sha256"] = len(data), hashlib.sha256(data).hexdigest()
    json.dump(m, open(mpath, "w"))

def _export(db: str, out: str, monkeypatch, chunk: int, sample: int | None = None,
            stream: int = 0) -> dict:
    """Export every table of ``db`` with index tables of more than ``stream`` slots streamed,
    ``chunk`` slots at a time; the manifest's entries by (game, table)."""
    with monkeypatch.context() as m:
        m.setenv(ENV["stream"], str(stream))
        m.setenv(ENV["chunk"], str(chunk))
        if sample is not None:
            m.setenv(ENV["sample"], str(sample))
        export(db, out, progress=False)
    return {(e["game"], e["table"]): e for e in
            json.load(open(os.path.join(out, "manifest.json")))["files"]}


def _files(entries: dict) -> dict:
    """The entries of index tables of several blocks (those a sample can leave out)."""
    return {k: e for k, e in entries.items()
            if e["storage"] == "index" and e["slots"] > 2 * BLOCK_SLOTS}


@pytest.fixture(scope="module")
def streamed_dirs(every_game_db, tmp_path_factory):
    """(db, whole-stream export, streamed exports: sampled with chunks of 3 and of 1 block,
    and one whose sample is the whole table)."""
    mp = pytest.MonkeyPatch()
    root = tmp_path_factory.mktemp("streamed")
    out = {name: str(root / name) for name in ("whole", "three", "one", "full")}
    entries = {"whole": _export(every_game_db, out["whole"], mp, BLOCK_SLOTS, stream=1 << 40),
               "three": _export(every_game_db, out["three"], mp, 3 * BLOCK_SLOTS,
                                2 * BLOCK_SLOTS),
               "one": _export(every_game_db, out["one"], mp, BLOCK_SLOTS, 2 * BLOCK_SLOTS),
               "full": _export(every_game_db, out["full"], mp, 2 * BLOCK_SLOTS, 1 << 30)}
    mp.undo()
    return every_game_db, out, entries


def test_the_example_tables_hold_index_tables_of_many_blocks(streamed_dirs):
    _, _, entries = streamed_dirs
    games_seen = {g for g, _ in _files(entries["whole"])}
    assert {"cdc", "shogi"} <= games_seen  # sampled for real: 2 blocks of more


def test_every_slot_of_a_streamed_export_equals_the_database(streamed_dirs, capsys):
    db, out, entries = streamed_dirs
    for name in ("three", "one", "full"):
        assert verify_dir(out[name]) == (len(entries[name]), [])
        # compared with the tables read whole (this process has no streaming settings)
        checked, problems = compare_dir(out[name], db)
        assert checked == len(entries[name]) and problems == []
    assert main(["verify", "--db", out["three"], "--against", db]) == 0
    assert "every slot equals" in capsys.readouterr().out


def test_lookups_through_a_streamed_export_equal_the_database(streamed_dirs):
    db, out, _ = streamed_dirs
    rnd = random.Random(26)
    for name in INDEX_GAMES:
        g = games.get(name)
        texts = []
        with Store(db, read_only=True) as store:
            for row in store.tables(name):
                values = storage_of(row).load(store, row)
                legal = np.flatnonzero(values.result >= -1).tolist()
                texts += [g.slot_text(row["table_name"], s)
                          for s in rnd.sample(legal, min(15, len(legal)))]
        with tbdb.open(db) as a, tbdb.open(out["three"]) as b:
            for text in texts:
                assert b.lookup(text, game=name).to_dict(line=True) == \
                    a.lookup(text, game=name).to_dict(line=True), text


def test_the_file_depends_on_neither_chunk_size_nor_run(streamed_dirs, tmp_path, monkeypatch):
    db, out, entries = streamed_dirs
    sampled = _files(entries["three"])
    assert sampled and all(entries["one"][k]["sha256"] == e["sha256"]
                           for k, e in sampled.items())
    # the sample really changed the coding (else the two tests below could not tell)
    assert any(entries["whole"][k]["sha256"] != e["sha256"] for k, e in sampled.items())
    again = _export(db, str(tmp_path / "again"), monkeypatch, 5 * BLOCK_SLOTS, 2 * BLOCK_SLOTS)
    assert {k: e["sha256"] for k, e in again.items()} == \
        {k: e["sha256"] for k, e in entries["three"].items()}


def test_a_sample_of_the_whole_table_gives_the_whole_stream_file(streamed_dirs):
    """Where the game keeps its own slot order: a streamed file keeps it always, while the
    whole export of a table with index digits (CDC's ``slot_digits``) may pick another."""
    _, _, entries = streamed_dirs

    def own_order(key):
        return games.get(key[0]).slot_digits(key[1]) is None

    whole = {k: e["sha256"] for k, e in entries["whole"].items() if own_order(k)}
    assert whole and whole == {k: e["sha256"] for k, e in entries["full"].items()
                               if own_order(k)}
    reordered = [k for k in _files(entries["whole"]) if not own_order(k)]
    assert reordered  # CDC's tables of many blocks: the whole export chose its order there


def test_a_sampled_grammar_costs_little_on_the_example_tables(streamed_dirs):
    _, _, entries = streamed_dirs
    for k, e in _files(entries["three"]).items():
        # a sample of 2 blocks of a table's dozens: a larger file, never a much larger one
        assert e["size"] <= 2 * entries["whole"][k]["size"] + 4096, k


def test_a_damaged_chunk_is_found_by_verify(streamed_dirs, tmp_path, capsys):
    db, out, entries = streamed_dirs
    d = str(tmp_path / "damaged")
    shutil.copytree(out["three"], d)
    key = max(_files(entries["three"]), key=lambda k: entries["three"][k]["slots"])
    path = os.path.join(d, entries["three"][key]["path"])
    size = os.path.getsize(path)
    with open(path, "r+b") as f:  # a byte in the middle of the value stream's bits
        f.seek(size // 3)
        byte = f.read(1)[0]
        f.seek(size // 3)
        f.write(bytes([byte ^ 0x10]))
    assert main(["verify", "--db", d]) == 1
    text = capsys.readouterr().out
    assert entries["three"][key]["path"] in text and "sha256" in text


def test_sample_ranges_are_whole_blocks_spread_over_the_table():
    assert sample_ranges(10_000, 1 << 20, 1024) == [(0, 10_000)]
    blocks = 100_003
    got = sample_ranges(blocks * 1024 - 5, 4096 * 1024, 1024)
    starts = [lo for lo, _ in got]
    assert starts == sorted(starts) and all(lo % 1024 == 0 for lo in starts)
    assert all(a[1] < b[0] for a, b in zip(got, got[1:]))  # apart, not touching
    assert sum(hi - lo for lo, hi in got) == 4096 * 1024
    assert got[0][0] == 0 and got[-1][1] > (blocks - 2 * blocks // 256) * 1024  # to the end
    # 4 blocks, the last short: a sample of 3 takes blocks 0, 1 and 2, in one range
    assert sample_ranges(3 * 1024 + 7, 3 * 1024, 1024) == [(0, 3 * 1024)]
    assert sample_ranges(9 * 1024, 3 * 1024, 1024) == [(0, 1024), (3072, 4096), (6144, 7168)]


def test_a_bad_chunk_setting_is_one_line(streamed_dirs, tmp_path, monkeypatch, capsys):
    db, _, _ = streamed_dirs
    monkeypatch.setenv(ENV["stream"], "0")
    monkeypatch.setenv(ENV["chunk"], "1000")
    assert main(["export", "--db", db, "--out", str(tmp_path / "x"), "--game", "cdc"]) == 2
    err = capsys.readouterr().err
    assert "TBDB_EXPORT_CHUNK_SLOTS='1000'" in err and "Traceback" not in err


def test_the_c_prober_reads_a_streamed_export(streamed_dirs):
    from tests.native_lib import Lib
    from tests.test_native import _cc_board, _compare_texts
    _, out, entries = streamed_dirs
    lib = Lib()
    base = lib.open(out["three"], Lib.VERIFY)  # checksums checked by C as it opens
    rnd = random.Random(26)
    try:
        with tbdb.open(out["three"]) as tb:
            for (name, table), e in sorted(entries["three"].items()):
                if name not in ("cdc", "chinese-checkers"):
                    continue
                g = games.get(name)
                m = _cc_board(table) if name == "chinese-checkers" else 0
                # 1,500 random slots, about a hundred in each of KCvP's blocks (test_native
                # compares every slot of the whole-stream files; a slot's text costs a ms)
                slots = rnd.sample(range(e["slots"]), min(1500, e["slots"]))
                texts = [g.slot_text(table, s) for s in sorted(slots)]
                assert _compare_texts(lib, base, tb, name, texts, m) > 0
    finally:
        base.close()


def test_without_moves_the_streamed_file_is_the_whole_stream_file(streamed_dirs, tmp_path):
    db, _, _ = streamed_dirs
    digests = []
    mp = pytest.MonkeyPatch()
    for stream, name in ((1 << 40, "whole"), (0, "streamed")):
        with mp.context() as m:
            m.setenv(ENV["stream"], str(stream))
            m.setenv(ENV["chunk"], str(2 * BLOCK_SLOTS))
            m.setenv(ENV["sample"], str(1 << 30))
            export(db, str(tmp_path / name), game="shogi", moves=False, progress=False)
        digests.append({e["table"]: (e["sha256"], e["moves"]) for e in
                        json.load(open(tmp_path / name / "manifest.json"))["files"]})
    assert digests[0] == digests[1] and all(not moves for _, moves in digests[0].values())
    assert compare_dir(str(tmp_path / "streamed"), db) == (len(digests[0]), [])


def test_verify_against_by_chunks_names_the_slot_that_differs(streamed_dirs, tmp_path,
                                                             monkeypatch, capsys):

    from tbdb.probe_files import write_table
    db, out, _ = streamed_dirs
    d = str(tmp_path / "wrong")
    shutil.copytree(out["whole"], d)
    # a well-formed file (checksums and manifest made anew) whose one slot says otherwise
    with Store(db, read_only=True) as store:
        row = store.table("cdc", "KCvP")
        values = storage_of(row).load(store, row)
    slot = int(np.flatnonzero(values.result == 1)[-1])
    values.distance[slot] += 2
    replace_table_file(d, "KCvP", write_table("cdc", row, values))
    monkeypatch.setenv(ENV["stream"], "0")  # every index table compared a chunk at a time
    monkeypatch.setenv(ENV["chunk"], str(3 * BLOCK_SLOTS))
    # (verify alone finds the value its children contradict now, and stops there: issue 61)
    assert main(["verify", "--db", d, "--against", db]) == 1
    assert f"(slot {slot}: its value" in capsys.readouterr().out
    text = "\n".join(compare_dir(d, db)[1])
    assert f"cdc/KCvP.tbp: values at slot: 1 differ, the first at {slot}" in text
    assert text.count("differ") == 1
