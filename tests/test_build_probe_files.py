"""Builds straight into probe files (``tbdb build GAME --probe-files DIR``,
``tbdb.probe_files.build_dir``): every file is byte for byte the file ``tbdb export`` writes of
the same table built into a database (whole and streamed), a build resumes from the files (the
tables a table reads decoded from them), a killed build leaves no partial file behind, the
build's table cache is trimmed to its share of --memory, and bad input is refused in one line."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import numpy as np
import pytest

import tbdb
from tbdb import games
from tbdb.build import DIE_IN_FIRST_TABLE
from tbdb.storage.build_cache import trim_cache
from tbdb.cli.run import main
from tbdb.probe_files import ProbeDir, export, verify_dir
from tbdb.probe_files.header import BLOCK_SLOTS
from tbdb.probe_files.streamed import ENV

# games whose tables are index tables (the ones a build can code into probe files), each with
# a build small enough for the default run
INDEX_BUILDS = {"cdc": {"material": "KCvP"}, "chess": {"material": "KPvK"},
                "chinese-checkers": {"board": 4, "pieces": 1}, "shogi": {"table": "KGK"}}


def _entries(directory) -> dict:
    with open(os.path.join(directory, "manifest.json")) as f:
        return {(e["game"], e["table"]): e for e in json.load(f)["files"]}


def _streamed(m: pytest.MonkeyPatch) -> None:
    """Every index table coded by the streamed coder, two blocks a chunk, a four-block sample."""
    m.setenv(ENV["stream"], "0")
    m.setenv(ENV["chunk"], str(2 * BLOCK_SLOTS))
    m.setenv(ENV["sample"], str(4 * BLOCK_SLOTS))


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("game", sorted(INDEX_BUILDS))
def test_a_build_into_probe_files_writes_what_export_writes(game, streamed, tmp_path,
                                                            monkeypatch):
    opts = INDEX_BUILDS[game]
    db, exported, built = tmp_path / "tb.duckdb", tmp_path / "exported", tmp_path / "built"
    with monkeypatch.context() as m:
        if streamed:
            _streamed(m)
        tbdb.build(game, db=str(db), progress=False, **opts)
        export(str(db), str(exported), progress=False)
        summary = tbdb.build(game, probe_files=str(built), progress=False, **opts)
    want, got = _entries(exported), _entries(built)
    assert sorted(got) == sorted(want) and got
    for key, e in want.items():
        assert (got[key]["sha256"], got[key]["size"]) == (e["sha256"], e["size"]), key
        with open(os.path.join(built, got[key]["path"]), "rb") as f, \
                open(os.path.join(exported, e["path"]), "rb") as g:
            assert f.read() == g.read(), key
    assert summary.rows == sum(e["positions"] for e in want.values())
    assert verify_dir(str(built)) == (len(want), [])
    # the statistics the manifest keeps are the database's draw_analysis rows
    with tbdb.open(str(db)) as tb:
        rows = sorted(tb.sql("SELECT material, side_to_move, positions, wins, draws, losses, "
                             "longest_win FROM draw_analysis WHERE game = ?", [game]).fetchall())
    stats = sorted((s["material"], s["side_to_move"], s["positions"], s["wins"], s["draws"],
                    s["losses"], s["longest_win"])
                   for e in got.values() for s in e["stats"])
    assert stats == rows


@pytest.mark.parametrize("decode", ["whole", "chunks"])
def test_a_build_resumes_from_its_files(decode, tmp_path, monkeypatch):
    """A table whose entry is gone is built again with the tables it reads decoded from their
    files (nothing in memory; in one span, or a few blocks at a time as big tables are): the
    same file.  A listed file of the wrong size is rebuilt."""
    game, opts = "cdc", INDEX_BUILDS["cdc"]
    if decode == "chunks":
        from tbdb.probe_files import build_dir
        monkeypatch.setattr(build_dir, "DECODE_SLOTS", BLOCK_SLOTS + 5)  # (whole blocks)
    ref, out = tmp_path / "ref", tmp_path / "out"
    tbdb.build(game, probe_files=str(ref), progress=False, **opts)
    want = _entries(ref)
    last = games.get(game).plan(**opts)[-1]
    tbdb.build(game, probe_files=str(out), progress=False, **opts)
    m = json.load(open(out / "manifest.json"))
    m["files"] = [e for e in m["files"] if e["table"] != last]
    json.dump(m, open(out / "manifest.json", "w"))
    os.remove(out / want[(game, last)]["path"])
    loads = []
    from tbdb.probe_files import build_dir
    real = build_dir.ProbeBuild.load_table
    monkeypatch.setattr(build_dir.ProbeBuild, "load_table",
                        lambda self, row: loads.append(row["table_name"]) or real(self, row))
    summary = tbdb.build(game, probe_files=str(out), progress=False, **opts)
    assert summary.built == [last]
    assert sorted(loads) == sorted(games.get(game).dependencies(last))
    assert _entries(out) == {k: {**e, "source": _entries(out)[k]["source"],
                                 "solve": _entries(out)[k]["solve"]} for k, e in want.items()}
    # a listed file cut short is built again
    first = games.get(game).plan(**opts)[0]
    path = out / want[(game, first)]["path"]
    with open(path, "r+b") as f:
        f.truncate(os.path.getsize(path) - 8)
    summary = tbdb.build(game, probe_files=str(out), progress=False, **opts)
    assert summary.built == [first]
    assert _entries(out)[(game, first)]["sha256"] == want[(game, first)]["sha256"]


def test_a_table_read_from_a_damaged_file_is_not_built(tmp_path, capsys):
    """A build checks every file it reads a table from against its checksums, whatever its
    size (lookups check files up to 16 MiB on opening): a flipped byte decoded to other values
    without a word, and the table built on them would have kept them."""
    game, opts = "cdc", INDEX_BUILDS["cdc"]
    out = tmp_path / "out"
    tbdb.build(game, probe_files=str(out), progress=False, **opts)
    last = games.get(game).plan(**opts)[-1]
    read = sorted(games.get(game).dependencies(last))[0]
    path = str(out / _entries(out)[(game, read)]["path"])
    from tbdb.probe_files.format import ProbeFile
    f = ProbeFile(path)
    off, length, _ = f.sections["VALS"]
    f.close()
    with open(path, "r+b") as fh:  # a bit of the values' stream flipped; the size unchanged
        fh.seek(off + length - 3)  # (in the coded bits, which come last)
        b = fh.read(1)
        fh.seek(-1, 1)
        fh.write(bytes([b[0] ^ 0x04]))
    before = open(out / "manifest.json", "rb").read()
    code, err = _cli(capsys, "build", game, *(f"--{k}={v}" for k, v in opts.items()),
                     "--probe-files", str(out), "--rebuild", last, "--no-progress")
    line = err.strip().splitlines()[-1]  # (after "resuming: 1 of 2 tables already done")
    assert code == 2 and err.count("error") == 1 and line.startswith("tbdb build: error"), err
    assert repr(path) in line and "sha256" in line and f"--rebuild {read}" in line, err
    assert open(out / "manifest.json", "rb").read() == before


def test_a_killed_build_leaves_no_partial_file_and_resumes(tmp_path):
    game, opts = "cdc", INDEX_BUILDS["cdc"]
    ref, out = tmp_path / "ref", tmp_path / "out"
    tbdb.build(game, probe_files=str(ref), progress=False, **opts)
    args = [sys.executable, "-m", "tbdb.cli.run", "build", game, "--material", opts["material"],
            "--probe-files", str(out), "--no-progress"]
    r = subprocess.run(args, capture_output=True, text=True,
                       env={**os.environ, DIE_IN_FIRST_TABLE: "1"})
    assert r.returncode == -signal.SIGKILL, r.stderr
    assert not os.path.exists(out / "manifest.json")  # nothing listed: nothing done
    # what a kill while coding leaves: a temporary of a process that is gone
    stale = out / game / f".{opts['material']}.tbp.tbdb-partial-999999999-x1"
    stale.write_bytes(b"half a file")
    r = subprocess.run(args, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert not stale.exists()
    assert {k: e["sha256"] for k, e in _entries(out).items()} == \
        {k: e["sha256"] for k, e in _entries(ref).items()}
    assert sorted(os.listdir(out / game)) == sorted(os.listdir(ref / game))
    # and the directory answers lookups as an exported one does
    with tbdb.open(str(out)) as tb:
        assert isinstance(tb.store, ProbeDir)


class _Deps:
    """A game of tables 'a'..: each table's dependencies as given."""

    def __init__(self, deps: dict):
        self.deps = deps

    def dependencies(self, t):
        return self.deps.get(t, [])


class _Values:
    def __init__(self, n):
        import numpy as np
        self.result = np.zeros(n, np.int8)


def test_the_cache_drops_the_table_read_furthest_ahead_first():
    g = _Deps({"x": ["a", "b"], "y": ["c"], "z": ["b"]})
    cache = {t: _Values(100) for t in "abcd"}
    trim_cache(g, cache, ["x", "y", "z"], limit=4 * 250)  # a quarter: 250 bytes
    # 'd' is never read again, 'c' is read after 'a' and 'b' (which the next table reads)
    assert sorted(cache) == ["a", "b"]
    cache = {t: _Values(100) for t in "abcd"}
    trim_cache(g, cache, ["x", "y", "z"], limit=4 * 50)  # never what the next table reads
    assert sorted(cache) == ["a", "b"]
    cache = {t: _Values(100) for t in "abcd"}
    trim_cache(g, cache, ["x"], limit=None)  # no budget: nothing dropped
    assert sorted(cache) == list("abcd")


def test_a_build_whose_cache_holds_nothing_reads_its_tables_again(tmp_path, monkeypatch):
    """With no room for a cache, a table read by a table that is not the next one is dropped
    and read again from the database or the files when it is needed: the same tables."""
    from tbdb.storage import build_cache as build_module
    game, opts = "chess", INDEX_BUILDS["chess"]  # KBvK, KNvK, KQvK, KRvK, then KPvK reads them
    tbdb.build(game, db=str(tmp_path / "a.duckdb"), progress=False, **opts)
    loads = []
    real = build_module.load_table
    monkeypatch.setattr(build_module, "load_table",
                        lambda g, store, t, needed_by=None:
                        loads.append(t) or real(g, store, t, needed_by))
    monkeypatch.setattr(build_module, "CACHE_SHARE", 1 << 62)
    tbdb.build(game, db=str(tmp_path / "b.duckdb"), progress=False, **opts)
    # dropped while the next table solved; KRvK, the one before KPvK, was still held
    assert sorted(loads) == ["KBvK", "KNvK", "KQvK"]
    tbdb.build(game, probe_files=str(tmp_path / "files"), progress=False, **opts)
    assert sorted(loads) == sorted(2 * ["KBvK", "KNvK", "KQvK"])
    export(str(tmp_path / "a.duckdb"), str(tmp_path / "a"), progress=False)
    export(str(tmp_path / "b.duckdb"), str(tmp_path / "b"), progress=False)
    sha = [{k: e["sha256"] for k, e in _entries(tmp_path / d).items()}
           for d in ("a", "b", "files")]
    assert sha[0] == sha[1] == sha[2]


def _cli(capsys, *argv) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().err


def test_bad_input_is_refused_in_one_line(tmp_path, capsys, monkeypatch):
    plain = tmp_path / "plain.txt"
    plain.write_text("not a directory")
    code, err = _cli(capsys, "build", "cdc", "--material", "KCvP", "--probe-files", str(plain))
    assert code == 2 and str(plain) in err and len(err.strip().splitlines()) == 1, err
    assert plain.read_text() == "not a directory"
    db = tmp_path / "x.duckdb"
    code, err = _cli(capsys, "build", "cdc", "--material", "KCvP", "--probe-files",
                     str(tmp_path / "d"), "--db", str(db))
    assert code == 2 and "not both" in err and len(err.strip().splitlines()) == 1, err
    assert not db.exists() and not (tmp_path / "d").exists()
    monkeypatch.chdir(tmp_path)
    code, err = _cli(capsys, "build", "cdc", "--material", "KCvP", "--probe-files", "")
    assert code == 2 and "give a directory" in err, err
    assert sorted(os.listdir(tmp_path)) == ["plain.txt"]
    code, err = _cli(capsys, "build", "cdc", "--material", "KCvP", "--probe-files",
                     str(tmp_path / "d"), "--cluster", "local")
    assert code == 2 and "--cluster" in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "d").exists()
    # a manifest that does not parse is neither read as empty nor overwritten
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "manifest.json").write_text("{ not json")
    code, err = _cli(capsys, "build", "cdc", "--material", "KCvP", "--probe-files",
                     str(tmp_path / "m"))
    assert code == 2 and "does not parse" in err and len(err.strip().splitlines()) == 1, err
    assert (tmp_path / "m" / "manifest.json").read_text() == "{ not json"
    # a game whose tables are not index tables has no --probe-files
    with pytest.raises(SystemExit) as exc:
        main(["build", "oware", "--probe-files", str(tmp_path / "o")])
    assert exc.value.code == 2 and "--probe-files" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


# a process that holds a directory as its writer until its standard input closes
_HOLD = """import sys
from tbdb.probe_files.directory_lock import DirectoryLock
lock = DirectoryLock(sys.argv[1], "--out")
print("held", flush=True)
sys.stdin.read()
"""


def test_one_process_writes_a_directory_at_a_time(tmp_path, capsys):
    """A build or an export into a directory another process is writing is refused in one line
    naming that process, and the directory is left as it was: two writers lost each other's
    manifest updates (the last one written won), and two chess set builds would not fit in
    memory side by side.  The writer's lock goes when it ends."""
    out, db = tmp_path / "out", tmp_path / "ttt.duckdb"
    tbdb.build("chess", probe_files=str(out), progress=False, material="KRvK")
    tbdb.build("tictactoe", db=str(db), progress=False)
    holder = subprocess.Popen([sys.executable, "-c", _HOLD, str(out)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "held\n"  # so the build above let it go
        before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
        for argv in (["build", "chess", "--material", "KQvK", "--probe-files", str(out)],
                     ["export", "--db", str(db), "--out", str(out)]):
            code, err = _cli(capsys, *argv)
            assert code == 2 and f"{str(out)!r} is held by process {holder.pid}" in err, err
            assert len(err.strip().splitlines()) == 1, err
        assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    finally:
        holder.stdin.close()
        holder.wait(timeout=60)
    assert main(["export", "--db", str(db), "--out", str(out)]) == 0
    assert sorted(_entries(out)) == [("chess", "KRvK"), ("tictactoe", "all")]


def test_a_full_disk_is_said_in_one_line_and_the_build_resumes(tmp_path, capsys, monkeypatch):
    """ENOSPC while a file is written: one line naming the directory and what to do (it was
    "[Errno 28] No space left on device", naming nothing); the tables listed before it stay,
    and the same command finishes the build."""
    import errno
    from tbdb.probe_files import build_dir
    game, opts = "cdc", INDEX_BUILDS["cdc"]
    out = tmp_path / "out"
    real, calls = build_dir.write_probe_file, []

    def full_on_the_second(path, parts):
        calls.append(path)
        if len(calls) == 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(path, parts)

    monkeypatch.setattr(build_dir, "write_probe_file", full_on_the_second)
    argv = ["build", game, *(f"--{k}={v}" for k, v in opts.items()), "--probe-files", str(out),
            "--no-progress"]
    code, err = _cli(capsys, *argv)
    assert code == 2 and err.count("error") == 1, err
    assert f"the disk holding {str(out)!r} is full" in err and "same command" in err, err
    assert len(_entries(out)) == 1  # the first table, listed before the disk filled
    monkeypatch.setattr(build_dir, "write_probe_file", real)
    code, err = _cli(capsys, *argv)
    assert code == 0 and len(_entries(out)) == len(games.get(game).plan(**opts)), err


def test_status_lists_what_a_build_into_probe_files_finished(tmp_path, capsys):
    out = tmp_path / "out"
    tbdb.build("chess", probe_files=str(out), progress=False, material="KRvK")
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert main(["status", "--db", str(out)]) == 0
    text = capsys.readouterr().out
    assert [line.split()[:2] for line in text.splitlines() if line.startswith("chess")] == \
        [["chess", "1"]]  # one game, one table
    assert main(["status", "--db", str(out), "--all", "--game", "chess"]) == 0
    text = capsys.readouterr().out
    assert "KRvK" in text and "edge-free" in text
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    code, err = _cli(capsys, "status", "--db", str(tmp_path))
    assert code == 2 and "manifest.json" in err and len(err.strip().splitlines()) == 1


def test_a_written_table_is_freed_without_the_cycle_collector(tmp_path, monkeypatch):
    """Once a table's file is written, nothing keeps its values: freed by reference counts
    alone (a reference cycle kept each 5-piece chess table's 2 GB until Python's cycle
    collector ran, which a build seldom makes it do, and the build ran out of memory)."""
    import gc
    import weakref
    from tbdb.probe_files import build_dir
    real = build_dir.ProbeBuild.write_table
    written = []

    def spy(self, game, table, data, seconds, next_table=None):
        alive = [t for t, ref in written if ref() is not None]
        assert alive == [], f"{alive} still held while {table} is written"
        rows = real(self, game, table, data, seconds, next_table)
        written.append((table, weakref.ref(data.values)))
        return rows

    monkeypatch.setattr(build_dir.ProbeBuild, "write_table", spy)
    gc.disable()
    try:
        tbdb.build("chess", probe_files=str(tmp_path / "out"), progress=False,
                   **INDEX_BUILDS["chess"])
    finally:
        gc.enable()
    assert len(written) == 5


def test_a_streamed_build_codes_without_reading_its_values_again(tmp_path, monkeypatch):
    """The streamed coder of a build keeps each chunk's symbols from counting to coding, so a
    table's values are read twice (its census, the count), not three times: a compact solve's
    values pick their best moves as they are read (a third read cost KBNPvK 699 s of coding,
    not 60).  The files are those of the edge-free solve."""
    from tbdb.probe_files import build_dir
    opts = INDEX_BUILDS["chess"]
    reads = []
    real = build_dir.SolvedRanges.chunks

    def chunks(self, step):
        reads.append(self.name)
        return real(self, step)
    with monkeypatch.context() as m:
        _streamed(m)
        tbdb.build("chess", probe_files=str(tmp_path / "ef"), progress=False, **opts)
        m.setattr(build_dir.SolvedRanges, "chunks", chunks)
        tbdb.build("chess", probe_files=str(tmp_path / "compact"), mode="compact",
                   progress=False, **opts)
    tables = games.get("chess").plan(**opts)
    assert sorted(reads) == sorted(2 * [f"chess {t}" for t in tables])
    want, got = _entries(tmp_path / "ef"), _entries(tmp_path / "compact")
    assert {k: e["sha256"] for k, e in got.items()} == {k: e["sha256"] for k, e in want.items()}


@pytest.mark.parametrize("game", ["cdc", "chess"])
def test_values_at_slots_are_the_values_of_the_whole_table(game, tmp_path, monkeypatch):
    """``ProbeBuild.load_values_at`` gives what the table read whole gives at those slots,
    in files that keep the index's slot order (chess) and in files that permute it (CDC,
    written with its digits reversed)."""
    from tbdb.probe_files import format as fmt
    from tbdb.probe_files.build_dir import ProbeBuild
    from tbdb.probe_files.order import SlotOrder

    def reversed_digits(game, row, values):
        digits = games.get(game).slot_digits(row["table_name"])
        return SlotOrder.of_permutation(digits, tuple(reversed(range(len(digits)))))
    if game == "cdc":
        monkeypatch.setattr(fmt, "index_order", reversed_digits)
    opts = INDEX_BUILDS[game]
    tbdb.build(game, probe_files=str(tmp_path), progress=False, **opts)
    rng = np.random.default_rng(3)
    permuted = 0
    with ProbeBuild(str(tmp_path), game) as store:
        for table in games.get(game).plan(**opts):
            row = store.table(game, table)
            whole = store.load_table(row)
            f = whole.file
            permuted += not SlotOrder.parse(f.section("ORDR"), f.slots, f.path).is_identity
            for n in (0, 1, 1000, len(whole.result)):
                slots = np.sort(rng.choice(len(whole.result), min(n, len(whole.result)),
                                           replace=False))
                r, d = store.load_values_at(row, slots)
                assert np.array_equal(r, whole.result[slots]), table
                assert np.array_equal(d, whole.distance[slots]), table
    assert permuted or game == "chess"


def test_a_build_without_moves_writes_what_export_without_moves_writes(tmp_path, monkeypatch,
                                                                       capsys):
    """--no-moves: each file is ``tbdb export --no-moves``'s, byte for byte, whole and
    streamed, and the solve looks for no best move (no order keys through the levels, no pass
    over the draws); a directory keeps one kind, and --no-moves needs --probe-files."""
    from tbdb.games.chess.tables import ChessSpace
    opts = INDEX_BUILDS["chess"]
    db = tmp_path / "tb.duckdb"
    tbdb.build("chess", db=str(db), progress=False, **opts)
    searched = []
    keyed = ChessSpace.keyed_moves
    monkeypatch.setattr(ChessSpace, "first_draws", lambda self, *a: searched.append("draws"))
    monkeypatch.setattr(ChessSpace, "keyed_moves",
                        lambda self, on: (searched.append("keys") if on else None,
                                          keyed(self, on))[1])
    for streamed in (False, True):
        exported, built = tmp_path / f"exported{streamed}", tmp_path / f"built{streamed}"
        with monkeypatch.context() as m:
            if streamed:
                _streamed(m)
            export(str(db), str(exported), moves=False, progress=False)
            tbdb.build("chess", probe_files=str(built), progress=False, moves=False, **opts)
        want, got = _entries(exported), _entries(built)
        assert sorted(got) == sorted(want) and len(got) == 5
        for key, e in want.items():
            assert (got[key]["sha256"], got[key]["size"], got[key]["moves"]) == \
                (e["sha256"], e["size"], False), key
    assert searched == []
    with tbdb.open(str(built)) as tb, tbdb.open(str(db)) as full:
        for fen in ("8/8/8/8/2k5/8/4P3/4K3 w - - 0 1", "8/8/8/8/8/4k3/4P3/4K3 w - - 0 1",
                    "4k3/8/3K4/4P3/8/8/8/8 b - - 0 1"):
            # the best move derived from one ply of probes: one of the moves best by the
            # values (the stored best move is the first of them in move order)
            answer, want = tb.lookup(fen), full.lookup(fen)
            assert (answer.outcome, answer.distance) == (want.outcome, want.distance), fen
            best = {(m.outcome, m.distance) for m in want.moves if m.move == want.best_move}
            assert answer.best_move in {m.move for m in want.moves
                                        if (m.outcome, m.distance) in best}, fen
    before = {p: p.read_bytes() for p in built.rglob("*") if p.is_file()}
    code, err = _cli(capsys, "build", "chess", "--material", "KPvK", "--probe-files",
                     str(built), "--rebuild", "KPvK")
    assert code == 2 and "--no-moves" in err and len(err.strip().splitlines()) == 1, err
    assert {p: p.read_bytes() for p in built.rglob("*") if p.is_file()} == before
    code, err = _cli(capsys, "build", "chess", "--material", "KRvK", "--no-moves", "--db",
                     str(tmp_path / "x.duckdb"))
    assert code == 2 and "--probe-files" in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "x.duckdb").exists()
