"""Nothing a user types may destroy a database, crash the process or be silently wrong.

Each test here reproduces one way a hostile or careless user broke tbdb 0.1 (issue 8): the
command must answer with one line quoting the input, exit 2, and leave every file exactly as it
was; only ``build`` writes, and it never leaves half a table.
"""
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time

import duckdb
import numpy as np
import pytest

import tbdb
from tbdb.cli.run import main
from tbdb.games.cdc import Position


def run(*args, **kwargs):
    return subprocess.run([sys.executable, "-m", "tbdb.cli.run", *args], capture_output=True,
                          text=True, timeout=600, **kwargs)


def _one_line_error(capsys, code, *needles):
    err = capsys.readouterr().err
    assert code == 2, err
    lines = err.strip().splitlines()
    progress = [ln for ln in lines[:-1] if " build: " in ln]  # --no-progress: a line a table
    assert len(lines) == len(progress) + 1 and "Traceback" not in err, err
    err = lines[-1]
    for n in needles:
        assert n in err, err
    return err


@pytest.fixture
def copy_db(kcvp_db, tmp_path):
    path = tmp_path / "copy.duckdb"
    shutil.copy(kcvp_db, path)
    return str(path)


# --------------------------------------------------------------------------- tbdb sql

@pytest.mark.parametrize("query, needle", [
    ("COPY (SELECT 1) TO '{db}'", "is a COPY statement"),
    ("EXPORT DATABASE '{dir}'", "is an EXPORT statement"),
    ("SELECT * FROM read_csv('/etc/passwd')", "file system operations are disabled"),
    ("SELECT * FROM read_text('/etc/hostname')", "file system operations are disabled"),
    ("SELECT * FROM glob('/etc/*')", "file system operations are disabled"),
    ("ATTACH '{dir}/other.duckdb' AS other", "is an ATTACH statement"),
    ("INSTALL sqlite", "is a LOAD statement"),
    ("LOAD sqlite", "is a LOAD statement"),
    ("SET enable_external_access = true", "is a SET statement"),
    ("CREATE TABLE t (a INT)", "is a CREATE statement"),
    ("SELECT 1; DROP TABLE tb_tables", "is a DROP statement"),
    ("DELETE FROM tb_index_values", "is a DELETE statement"),
    ("UPDATE tb_tables SET rows = 0", "is an UPDATE statement"),
    ("CHECKPOINT", "read-only"),
    ("PRAGMA database_list", "reading PRAGMAs"),
    ("", "empty query"),
    ("  ; ", "empty query"),
    ("SELEC 1", "syntax error"),
])
def test_sql_refuses_anything_that_writes_or_reaches_outside(query, needle, copy_db, tmp_path,
                                                              capsys):
    before = open(copy_db, "rb").read()
    query = query.format(db=copy_db, dir=tmp_path)
    _one_line_error(capsys, main(["sql", "--db", copy_db, query]), needle)
    assert open(copy_db, "rb").read() == before
    assert sorted(os.listdir(tmp_path)) == ["copy.duckdb"]


def test_sql_cannot_unlock_its_configuration(copy_db, capsys):
    assert main(["sql", "--db", copy_db, "SELECT current_setting('lock_configuration') AS l, "
                 "current_setting('enable_external_access') AS e, "
                 "current_setting('autoload_known_extensions') AS a"]) == 0
    assert capsys.readouterr().out.splitlines()[2].split() == ["True", "False", "False"]


def test_sql_export_refuses_the_database_itself(copy_db, capsys):
    before = open(copy_db, "rb").read()
    code = main(["sql", "--db", copy_db, "SELECT 1 AS a", "--parquet", copy_db])
    _one_line_error(capsys, code, repr(copy_db))
    assert open(copy_db, "rb").read() == before


# --------------------------------------------------------------------------- --db files

def _not_tbdb_files(tmp_path, kcvp_db):
    text = tmp_path / "notes.duckdb"
    text.write_text("hello\n")
    lite = tmp_path / "lite.db"
    con = sqlite3.connect(lite)
    con.execute("CREATE TABLE a (b)")
    con.commit()
    con.close()
    other = tmp_path / "other.duckdb"
    con = duckdb.connect(str(other))
    con.execute("CREATE TABLE mine (a INT)")
    con.close()
    truncated = tmp_path / "truncated.duckdb"
    truncated.write_bytes(open(kcvp_db, "rb").read()[:5000])
    newer = tmp_path / "newer.duckdb"
    shutil.copy(kcvp_db, newer)
    con = duckdb.connect(str(newer))
    con.execute("UPDATE alembic_version SET version_num = '9999_from_the_future'")
    con.close()
    (tmp_path / "adir").mkdir()
    return {
        "notes.duckdb": "not a tbdb database",
        "lite.db": "not a tbdb database",
        "other.duckdb": "not a tbdb database",
        "truncated.duckdb": "not a tbdb database",
        "newer.duckdb": "written by a newer tbdb",
        "adir": "is a directory",
    }


def test_no_command_changes_a_file_that_is_not_a_tbdb_database(kcvp_db, tmp_path, capsys):
    files = _not_tbdb_files(tmp_path, kcvp_db)
    commands = [["status"], ["verify"], ["sql", "SELECT 1"], ["lookup", "cdc", "8/8/8/pKC5 r"],
                ["upgrade"], ["build", "cdc", "--material", "CvP"]]
    for name, needle in files.items():
        path = str(tmp_path / name)
        before = None if os.path.isdir(path) else open(path, "rb").read()
        for args in commands:
            code = main(args + ["--db", path])
            if name == "other.duckdb" and args[0] in ("build", "upgrade"):
                needle_here = "not a tbdb database"
            else:
                needle_here = needle
            _one_line_error(capsys, code, needle_here, repr(path))
            if before is not None:
                assert open(path, "rb").read() == before, (name, args)
        assert sorted(os.listdir(tmp_path)) == sorted(files), (name, os.listdir(tmp_path))


def test_a_missing_directory_and_a_read_only_file(copy_db, tmp_path, capsys):
    _one_line_error(capsys, main(["build", "cdc", "--material", "CvP", "--db",
                                  str(tmp_path / "no" / "such" / "tb.duckdb")]),
                    "does not exist")
    _one_line_error(capsys, main(["status", "--db", str(tmp_path / "no" / "tb.duckdb")]),
                    "no tbdb database at")
    os.chmod(copy_db, 0o444)
    before = open(copy_db, "rb").read()
    _one_line_error(capsys, main(["build", "cdc", "--material", "KvP", "--db", copy_db]),
                    "is read-only")
    assert open(copy_db, "rb").read() == before
    assert main(["lookup", "cdc", "8/8/8/pKC5 r", "--db", copy_db]) == 0  # reading is fine


# --------------------------------------------------------------------------- batch arrays

def _boards(*texts):
    ps = [Position.parse(t) for t in texts]
    return np.array([p.board for p in ps], np.int8), np.array([p.side for p in ps], np.int8)


@pytest.mark.parametrize("sides, needle", [
    (np.array([0, 100, 0]), "row 1"),
    (np.array([0, 127, 0], np.int8), "row 1"),
    (np.array([0, 256, 0], np.int64), "row 1"),  # would wrap to 0 as int8
    (np.array([0, 1.5, 0]), "integer"),
    (np.array([0, np.nan, 0]), "integer"),
    (np.array([0, 1]), "shape"),
])
def test_batch_sides_are_checked(kcvp_db, sides, needle):
    boards, _ = _boards("8/8/8/pKC5 r", "8/8/8/pKC5 b", "8/8/8/pK1C4 r")
    with tbdb.open(kcvp_db) as tb, pytest.raises(ValueError, match=needle):
        tb.lookup_arrays("cdc", boards, sides)


@pytest.mark.parametrize("row, cell, code", [(1, 3, 300), (2, 5, 99), (0, 0, -2), (1, 7, 14)])
def test_batch_piece_codes_are_checked(kcvp_db, row, cell, code):
    boards, sides = _boards("8/8/8/pKC5 r", "8/8/8/pKC5 b", "8/8/8/pK1C4 r")
    boards = boards.astype(np.int64)
    boards[row, cell] = code
    with tbdb.open(kcvp_db) as tb, pytest.raises(ValueError, match=f"row {row}"):
        tb.lookup_arrays("cdc", boards, sides)
    with tbdb.open(kcvp_db) as tb, pytest.raises(ValueError, match="integer"):
        tb.lookup_arrays("cdc", boards.astype(float), sides)


@pytest.mark.parametrize("rows", [(5000, 9000), (9000, 5000), (0, 1), (8191, 4096), (12999,)])
def test_batch_of_more_pieces_than_the_game_has_names_the_first_bad_row(kcvp_db, rows):
    # rows across the 4096-row chunks the check searches in parallel
    boards, sides = _boards(*["8/8/8/pKC5 r", "8/8/8/pK1C4 b"] * 6500)
    two_kings = boards[0].copy()
    two_kings[2] = 0  # a second red king (code 0) on c1: a side has one
    too_many = boards[0].copy()
    too_many[16:19] = 6  # three red soldiers more: six pieces, beyond the tables' five
    for r in rows:
        boards[r] = two_kings if r % 2 else too_many
    first = min(rows)
    with tbdb.open(kcvp_db) as tb, pytest.raises(ValueError, match=rf"^row {first}: more"):
        tb.lookup_arrays("cdc", boards, sides)


def test_batch_game_over_rows_agree_with_single_lookups(kcvp_db):
    texts = ["8/8/8/KC6 b", "8/8/8/kc6 r", "8/8/8/pKC5 r", "8/8/8/C1p5 b"]
    boards, sides = _boards(*texts)
    with tbdb.open(kcvp_db) as tb:
        singles = [tb.lookup(t) for t in texts]
        result, distance, best = tb.lookup_arrays("cdc", boards, sides)
    assert [s.outcome for s in singles[:2]] == ["loss", "loss"]  # the mover has nothing left
    assert result.tolist() == [{"win": 1, "draw": 0, "loss": -1}[s.outcome] for s in singles]
    assert distance.tolist() == [s.distance for s in singles]
    assert [b < 0 for b in best.tolist()] == [s.best_move is None for s in singles]


# --------------------------------------------------------------------------- positions

@pytest.mark.parametrize("text, needle", [
    ("8/8/8/K7 r", "cannot arise"),  # black has nothing, yet it has just moved
    ("8/8/8/8 r", "the board is empty"),
    ("8/8/8/8 b", "the board is empty"),
    ("KGMRN3/8/8/k7 b", "'KGMRN3/8/8/k7 b' has 6 pieces"),
])
def test_positions_outside_every_table_are_refused_with_the_text(kcvp_db, text, needle):
    with tbdb.open(kcvp_db) as tb, pytest.raises((ValueError, KeyError), match=needle):
        tb.lookup(text)


def test_game_over_is_answered_consistently(kcvp_db):
    with tbdb.open(kcvp_db) as tb:  # (moves are read before the close: tests/test_closed.py)
        r = tb.lookup("8/8/8/K7 b")
        assert (r.outcome, r.distance, r.best_move, r.moves) == ("loss", 0, None, [])


def test_a_five_piece_position_names_the_table_and_the_command(kcvp_db, capsys):
    code = main(["lookup", "cdc", "KGMR4/8/8/k7 r", "--db", kcvp_db])
    _one_line_error(capsys, code, "'KGMR4/8/8/k7 r'", "KGMRvK",
                    f"tbdb build cdc --material KGMRvK --db {kcvp_db}")


OWARE_BAD = ["4" * 4300 + " 0 0 0 0 0 0 0 0 0 0 0", "\u0663 0 0 0 0 0 0 0 0 0 0 1",
             "\uff13 0 0 0 0 0 0 0 0 0 0 1", "1 2 3", "0 0 0 0 0 0 0 0 0 0 0 -1",
             "0 0 0 0 0 0 0 0 0 0 0  1"]


@pytest.mark.parametrize("text", OWARE_BAD, ids=range(len(OWARE_BAD)))
def test_oware_accepts_only_the_documented_notation(text, kcvp_db, capsys):
    from tbdb.games.oware import OwarePosition
    with pytest.raises(tbdb.InvalidPositionError) as info:
        OwarePosition.parse(text)
    assert repr(text)[:40] in str(info.value)
    assert len(str(info.value)) < 500  # a quote, not a 4,300-digit echo
    _one_line_error(capsys, main(["lookup", "oware", text, "--db", kcvp_db]),
                    repr(text)[:40])


def test_oware_notation_is_exact_but_lookups_forgive_a_pasted_newline(kcvp_db, capsys):
    from tbdb.games.oware import OwarePosition
    text = "0 0 0 0 0 0 0 0 0 0 0 1"
    with pytest.raises(tbdb.InvalidPositionError, match=re.escape(repr(text + "\n"))):
        OwarePosition.parse(text + "\n")
    errors = []
    for given in (text, text + "\n", " " + text):
        errors.append(_one_line_error(capsys, main(["lookup", "oware", given, "--db", kcvp_db]),
                                      f"position {text!r} needs table 'seeds-01'"))
    assert len(set(errors)) == 1


# --------------------------------------------------------------------------- damage

def test_a_missing_row_is_a_damaged_table_with_the_repair_command(copy_db, capsys):
    con = duckdb.connect(copy_db)
    con.execute("DELETE FROM tb_index_rows WHERE idx = 0 AND table_id = (SELECT table_id "
                "FROM tb_tables WHERE table_name = 'KCvP')")
    con.close()
    code = main(["lookup", "cdc", "8/8/8/KCp5 r", "--db", copy_db])
    err = _one_line_error(capsys, code, "'KCvP'", "damaged", "'8/8/8/KCp5 r'")
    repair = err.split("rebuild it with: ")[1].strip()
    assert repair.startswith("tbdb build cdc")
    assert main(repair.split()[1:]) == 0  # the command it gives repairs the table
    capsys.readouterr()
    assert main(["verify", "--db", copy_db, "--no-progress"]) == 0
    assert main(["lookup", "cdc", "8/8/8/KCp5 r", "--db", copy_db]) == 0


def _table_id(name):
    return f"(SELECT table_id FROM tb_tables WHERE table_name = '{name}')"


def _damaged_verify(db, tmp_path, capsys, sql, table, *needles):
    """``tbdb verify`` on a copy of ``db`` damaged by ``sql``: exit 1, the table and its problem
    named, no traceback; the undamaged file still verifies clean."""
    copy = str(tmp_path / "damaged.duckdb")
    shutil.copy(db, copy)
    con = duckdb.connect(copy)
    con.execute(sql)
    con.close()
    assert main(["verify", "--db", copy, "--no-progress"]) == 1
    out, err = capsys.readouterr()
    assert "Traceback" not in err and err == "", err
    named = [ln for ln in out.splitlines() if ln.startswith(f"{table}:")]
    assert named, out
    for n in needles:
        assert n in named[0], out
    assert main(["verify", "--db", db, "--no-progress"]) == 0
    assert "every stored field agrees" in capsys.readouterr().out


KCVP_ROW = f"table_id = {_table_id('KCvP')} AND idx = (SELECT min(idx) FROM tb_index_rows " \
           f"WHERE table_id = {_table_id('KCvP')})"


@pytest.mark.parametrize("sql, table, needles", [
    (f"INSERT INTO tb_index_rows SELECT * FROM tb_index_rows WHERE {KCVP_ROW}",
     "cdc:KCvP", ["14,881 value rows", "tb_tables.positions says 14,880"]),
    # the counts made to agree: the load still finds the slot stored twice
    (f"INSERT INTO tb_index_rows SELECT * FROM tb_index_rows WHERE {KCVP_ROW}; "
     "UPDATE tb_tables SET positions = positions + 1 WHERE table_name = 'KCvP'; "
     "UPDATE build_checkpoints SET rows = rows + 1 WHERE table_name = 'KCvP'",
     "cdc:KCvP", ["damaged", "14881 rows for 14880 slots"]),
    ("UPDATE tb_tables SET positions = positions - 1 WHERE table_name = 'CvP'",
     "cdc:CvP", ["tb_tables.positions says 495"]),
    ("UPDATE build_checkpoints SET rows = rows + 1 WHERE table_name = 'KCvP'",
     "cdc:KCvP", ["build_checkpoints.rows is 14881"]),
    ("DELETE FROM build_checkpoints WHERE table_name = 'CvP'",
     "cdc:CvP", ["no build_checkpoints row", "not checked"]),
    (f"UPDATE tb_index_rows SET idx = 99999 WHERE {KCVP_ROW}",
     "cdc:KCvP", ["idx 99999, outside its 14880 slots"]),
    (f"UPDATE tb_index_rows SET idx = -1 WHERE {KCVP_ROW}",
     "cdc:KCvP", ["idx -1, outside"]),
])
def test_verify_names_damaged_index_rows_and_catalogue(sql, table, needles, kcvp_db, tmp_path,
                                                       capsys):
    _damaged_verify(kcvp_db, tmp_path, capsys, sql, table, *needles)


def test_verify_names_the_tables_that_read_a_table_it_cannot_load(kcvp_db, tmp_path, capsys):
    _damaged_verify(kcvp_db, tmp_path, capsys,
                    "DELETE FROM build_checkpoints WHERE table_name = 'CvP'",
                    "cdc:KCvP", "not checked", "'CvP'")


@pytest.fixture(scope="module")
def oware_db(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("oware") / "tb.duckdb")
    tbdb.build("oware", db=path, progress=False, max_seeds=4)
    return path


SEEDS_4_RUN = f"rowid = (SELECT min(rowid) FROM tb_score_runs WHERE table_id = " \
              f"{_table_id('seeds-04')} AND turns_left_to < 200)"


@pytest.mark.parametrize("sql, needles", [
    (f"UPDATE tb_score_runs SET turns_left_to = turns_left_to + 1 WHERE {SEEDS_4_RUN}",
     ["do not tile 1..200 turns left"]),
    (f"UPDATE tb_score_runs SET turns_left_to = turns_left_to - 1 WHERE {SEEDS_4_RUN}",
     ["do not tile 1..200 turns left"]),
    (f"UPDATE tb_score_runs SET idx = 5000 WHERE {SEEDS_4_RUN}", ["idx 5000, outside"]),
    (f"INSERT INTO tb_score_runs SELECT * FROM tb_score_runs WHERE {SEEDS_4_RUN}",
     ["value rows", "tb_tables.positions says"]),
])
def test_verify_names_damaged_oware_runs(sql, needles, oware_db, tmp_path, capsys):
    _damaged_verify(oware_db, tmp_path, capsys, sql, "oware:seeds-04", *needles)


@pytest.fixture(scope="module")
def uttt_db(tmp_path_factory):
    from tbdb import games
    path = str(tmp_path_factory.mktemp("uttt") / "tb.duckdb")
    tbdb.build("uttt", db=path, progress=False, **games.get("uttt").example_build)
    return path


UTTT_ROW = "rowid = (SELECT min(rowid) FROM tb_key_values)"
UTTT = "uttt:standard/positions"


@pytest.mark.parametrize("sql, needles", [
    (f"INSERT INTO tb_key_values SELECT * FROM tb_key_values WHERE {UTTT_ROW}",
     ["1,355 value rows", "tb_tables.positions says 1,354"]),
    (f"INSERT INTO tb_key_values SELECT * FROM tb_key_values WHERE {UTTT_ROW}; "
     "UPDATE tb_tables SET positions = positions + 1 WHERE table_name = 'standard/positions'; "
     "UPDATE build_checkpoints SET rows = rows + 1 WHERE table_name = 'standard/positions'",
     ["damaged", "1 keys stored twice"]),
    (f"DELETE FROM tb_key_values WHERE {UTTT_ROW}", ["1,353 value rows"]),
])
def test_verify_names_damaged_key_rows(sql, needles, uttt_db, tmp_path, capsys):
    _damaged_verify(uttt_db, tmp_path, capsys, sql, UTTT, *needles)


# --------------------------------------------------------------------------- interrupts

def test_sigterm_during_a_build_rolls_back_and_resumes(tmp_path):
    db = tmp_path / "tb.duckdb"
    proc = subprocess.Popen([sys.executable, "-m", "tbdb.cli.run", "build", "cdc", "--material",
                             "KGvRN", "--db", str(db), "--no-progress"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not db.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)  # the file exists once the build has its signal handlers
    time.sleep(0.5)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 143, (proc.returncode, err)
    assert "interrupted" in err and "run the same command again to resume" in err
    r = run("status", "--db", str(db), "--all")
    assert r.returncode == 0 and "Traceback" not in r.stderr
    r = run("build", "cdc", "--material", "KGvRN", "--db", str(db), "--no-progress")
    assert r.returncode == 0, r.stderr
    r = run("verify", "--db", str(db), "--no-progress")
    assert r.returncode == 0 and "3 tables" in r.stdout


def test_a_full_disk_is_named_and_the_build_resumes(tmp_path, monkeypatch, capsys):
    from tbdb.db import store
    calls = {"n": 0}
    real = store.Store.write_table

    def fill_up(self, *args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 2:  # the second table: the disk is full
            raise duckdb.IOException('IO Error: Could not write file "x": No space left on '
                                     'device')
        return real(self, *args, **kwargs)

    db = str(tmp_path / "tb.duckdb")
    monkeypatch.setattr(store.Store, "write_table", fill_up)
    _one_line_error(capsys, main(["build", "cdc", "--material", "KCvP", "--db", db,
                                  "--no-progress"]), "is full", "run the same command again")
    monkeypatch.setattr(store.Store, "write_table", real)
    assert main(["build", "cdc", "--material", "KCvP", "--db", db, "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "1 built" in out and "1 already done" in out


def test_a_really_full_disk(tmp_path):
    """On a 3 MB file system (where this machine lets the tests mount one)."""
    small = tmp_path / "small"
    small.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", str(small)],
                             capture_output=True)
    if mounted.returncode != 0:
        pytest.skip("cannot mount a small file system here")
    try:
        db = str(small / "tb.duckdb")
        r = run("build", "cdc", "--material", "KGvRN", "--db", db, "--no-progress")
        assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
        last = r.stderr.strip().splitlines()[-1]  # after a progress line per finished table
        assert last.startswith("tbdb build: error: ") and "is full" in last, r.stderr
        subprocess.run(["mount", "-o", "remount,size=64m", str(small)], check=True)
        r = run("build", "cdc", "--material", "KGvRN", "--db", db, "--no-progress")
        assert r.returncode == 0, r.stderr
        r = run("verify", "--db", db, "--no-progress")
        assert r.returncode == 0 and "3 tables" in r.stdout, r.stdout + r.stderr
    finally:
        subprocess.run(["umount", "-l", str(small)])


def test_first_row_outside_names_the_first_row_of_any_batch_shape():
    from tbdb.games.base import first_row_outside
    assert first_row_outside(np.zeros((0, 9), np.int8), 0, 2) is None
    assert first_row_outside(np.array([[0, 1], [2, 2]]), 0, 2) is None
    assert first_row_outside(np.array([1, 2, 0, 3]), 1, 2) == 2  # 1-D: sides, movers
    assert first_row_outside(np.array([[0, 0], [0, 300], [-5, 0]], np.int64), -1, 13) == 1
    hands = np.zeros((4, 2, 8), np.int8)
    hands[3, 1, 7] = -1
    assert first_row_outside(hands, 0, 18) == 3


@pytest.mark.parametrize("game, arrays, needle", [
    ("tictactoe", (np.array([[0] * 9, [0] * 8 + [-1]]),), "row 1: cells are 0"),
    ("chinese-checkers", (np.array([[1, 1] + [0] * 21 + [2, 2], [0] * 24 + [3]]),
                          np.array([1, 1])), "row 1: cells are 0"),
    ("chinese-checkers", (np.array([[1, 1] + [0] * 21 + [2, 2]] * 3), np.array([1, 2, 0])),
     "row 2: the player to move is 1 or 2, got 0"),
])
def test_batch_range_errors_name_the_row(game, arrays, needle):
    from tbdb import games
    with pytest.raises(ValueError, match=needle):
        games.get(game).batch_locate(*arrays)
