"""The export of score-run tables (Oware's books) a range of positions at a time
(``tbdb.probe_files.streamed_runs``): each file equals, byte for byte, the file ``write_table``
makes of the whole book (whatever the range size, down to one position), every lookup through
it equals the database's own per-position SQL, ``verify --against`` (also by ranges) names a
run that differs, and a kill mid-export leaves no file under a table's name but whole ones."""
from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import tbdb
from tbdb import games
from tbdb.cli.run import main
from tbdb.probe_files import ProbeDir, compare_dir, export, verify_dir, write_table
from tbdb.probe_files.streamed import ENV
from tbdb.storage import storage_of
from tbdb.db.store import Store
from tests.test_probe_streamed import replace_table_file

MAX_SEEDS = 8  # books 0..8: 75,582 positions and 348,429 runs in the last


@pytest.fixture(scope="module")
def books(tmp_path_factory):
    path = tmp_path_factory.mktemp("oware-runs") / "tb.duckdb"
    tbdb.build("oware", db=str(path), max_seeds=MAX_SEEDS, progress=False)
    return str(path)


def _whole_files(db: str) -> dict:
    """Each book's probe file as ``write_table`` makes it of the whole book in memory."""
    out = {}
    with Store(db, read_only=True) as store:
        for row in store.tables("oware"):
            row = store.table("oware", row["table_name"])
            out[row["table_name"]] = write_table("oware", row, storage_of(row).load(store, row))
    return out


def _export(db: str, out: str, monkeypatch, chunk: int | None, **kw) -> dict:
    with monkeypatch.context() as m:
        if chunk is not None:
            m.setenv(ENV["runs"], str(chunk))
        export(db, out, game="oware", progress=False, **kw)
    return {e["table"]: e for e in json.load(open(os.path.join(out, "manifest.json")))["files"]}


@pytest.fixture(scope="module")
def exported(books, tmp_path_factory):
    """(db, a directory exported by ranges of about 5,000 runs, its manifest's entries)."""
    out = str(tmp_path_factory.mktemp("runs-export") / "probe")
    mp = pytest.MonkeyPatch()
    entries = _export(books, out, mp, 5000)
    mp.undo()
    return books, out, entries


def test_each_file_is_the_whole_books_file_byte_for_byte(exported, tmp_path, monkeypatch):
    db, out, entries = exported
    whole = _whole_files(db)
    assert sorted(entries) == sorted(whole) == [f"seeds-{n:02d}" for n in range(MAX_SEEDS + 1)]
    for name, data in whole.items():
        e = entries[name]
        assert open(os.path.join(out, e["path"]), "rb").read() == data, name
        assert (e["size"], e["sha256"]) == (len(data), hashlib.sha256(data).hexdigest())
    # book 8 took many ranges (its 348,429 runs by about 5,000): the file is not one range's
    assert entries["seeds-08"]["size"] > 20 * 5000 * 4
    # the default range (every book in one) and a range of one position give the same files
    for chunk in (None, 1):
        tables = ["seeds-03", "seeds-04"] if chunk == 1 else None  # one query a position
        d = str(tmp_path / f"chunk-{chunk}")
        with monkeypatch.context() as m:
            if chunk is not None:
                m.setenv(ENV["runs"], str(chunk))
            export(db, d, game="oware", tables=tables, progress=False)
        for e in json.load(open(os.path.join(d, "manifest.json")))["files"]:
            assert open(os.path.join(d, e["path"]), "rb").read() == whole[e["table"]]


def test_lookups_from_the_streamed_files_equal_the_databases(exported, capsys):
    db, out, entries = exported
    assert verify_dir(out) == (len(entries), [])
    assert compare_dir(out, db) == (len(entries), [])
    assert main(["verify", "--db", out, "--against", db]) == 0
    assert "every slot equals" in capsys.readouterr().out
    rnd = random.Random(27)
    files = ProbeDir(out)
    texts = []
    with Store(db, read_only=True) as store:
        for name in ("seeds-03", "seeds-07", "seeds-08"):
            row = store.table("oware", name)
            kind = storage_of(row)
            table = files.open_table(files.table("oware", name))
            for idx in rnd.sample(range(row["slots"]), 60):
                for plies in (1, rnd.randint(2, 199), 200):
                    # the database's answer by SQL on its rows, one position: not the loaded
                    # runs the export read
                    want = kind.read_row(store, row["table_id"], idx, plies)
                    got = table.probe(idx, plies)
                    assert got == (None if want is None else tuple(want)), (name, idx, plies)
            texts += [games.get("oware").slot_text(name, idx)
                      for idx in rnd.sample(range(row["slots"]), 5)]
    files.close()
    # and as a user looks one up: every move's score too
    with tbdb.open(db) as ref, tbdb.open(out) as tb:
        for text in texts:
            assert tb.lookup(text, game="oware", turns_left=37).to_dict(line=True) == \
                ref.lookup(text, game="oware", turns_left=37).to_dict(line=True), text


def test_verify_against_by_ranges_names_the_run_that_differs(exported, tmp_path, monkeypatch,
                                                          capsys):
    db, out, entries = exported
    d = str(tmp_path / "wrong")
    shutil.copytree(out, d)
    with Store(db, read_only=True) as store:  # a well-formed file whose one run says otherwise
        row = store.table("oware", "seeds-08")
        values = storage_of(row).load(store, row)
    run = len(values.score) * 2 // 3
    values.score[run] += 1
    replace_table_file(d, "seeds-08", write_table("oware", row, values))
    assert main(["verify", "--db", d]) == 0  # checksums hold: only the database can tell
    capsys.readouterr()
    monkeypatch.setenv(ENV["runs"], "3000")
    assert main(["verify", "--db", d, "--against", db]) == 1
    text = capsys.readouterr().out
    assert f"oware/seeds-08.tbp: scores at run: 1 differ, the first at {run} " in text, text
    assert text.count("differ") == 1


def test_a_bad_range_setting_is_one_line(exported, tmp_path, monkeypatch, capsys):
    db, _, _ = exported
    monkeypatch.setenv(ENV["runs"], "0")
    assert main(["export", "--db", db, "--out", str(tmp_path / "x"), "--game", "oware"]) == 2
    err = capsys.readouterr().err
    assert "TBDB_EXPORT_CHUNK_RUNS='0'" in err and "Traceback" not in err \
        and err.count("\n") == 1


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_a_kill_mid_export_leaves_no_half_written_file(exported, tmp_path, sig):
    db, _, _ = exported
    whole = _whole_files(db)
    out = tmp_path / "killed"
    # ranges of one position: book 8 takes tens of seconds, time enough to be caught in it
    env = dict(os.environ, **{ENV["runs"]: "1"})
    cmd = [sys.executable, "-m", "tbdb.cli.run", "export", "--db", db, "--out", str(out),
           "--game", "oware", "--table", "seeds-08", "--no-progress"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    book = out / "oware"
    deadline = time.monotonic() + 120
    partial = []
    while time.monotonic() < deadline and proc.poll() is None:
        partial = [p for p in (os.listdir(book) if book.is_dir() else []) if "partial" in p]
        if partial and os.path.getsize(book / partial[0]) > 0:
            break
        time.sleep(0.05)
    assert partial and proc.poll() is None, "the export ended before it could be killed"
    time.sleep(0.5)  # some ranges written
    proc.send_signal(sig)
    proc.wait(timeout=60)
    assert proc.returncode == -sig  # export keeps the default action of both signals
    names = os.listdir(book)
    assert "seeds-08.tbp" not in names and not (out / "manifest.json").exists()
    assert all(n.startswith(".seeds-08.tbp.tbdb-partial-") for n in names), names
    # the next export writes the whole file and clears what the killed one left
    assert main(["export", "--db", db, "--out", str(out), "--game", "oware", "--table",
                 "seeds-08", "--no-progress"]) == 0
    assert os.listdir(book) == ["seeds-08.tbp"]
    assert (book / "seeds-08.tbp").read_bytes() == whole["seeds-08"]
