"""The command line: every subcommand, and clear errors with non-zero exits."""
import json
import os
import shutil
import subprocess
import sys

import duckdb
import pytest

from tbdb import games
from tbdb.cli.run import main


def run(*args, **kwargs):
    return subprocess.run([sys.executable, "-m", "tbdb.cli.run", *args], capture_output=True,
                          text=True, timeout=600, **kwargs)


def test_lookup_prints_moves_grouped_best_first(kcvp_db, capsys):
    assert main(["lookup", "cdc", "8/8/8/pKC5 r", "--db", kcvp_db]) == 0
    out = capsys.readouterr().out
    assert "outcome:   win in 1 ply\n" in out and "best move: c1xa1" in out
    assert out.startswith("4  . . . . . . . .\n") and "\n1  p K C . . . . .\n" in out
    lines = out.splitlines()
    winning = lines.index("winning moves:")
    drawing = lines.index("drawing moves:")
    assert lines[winning + 1].split() == ["c1xa1", "win", "in", "1", "ply"]
    assert winning < drawing and {ln.split()[0] for ln in lines[drawing + 1:]} == \
        {"b1-b2", "c1-c2", "c1-d1"}


def test_lookup_json_and_line(kcvp_db, capsys):
    assert main(["lookup", "cdc", "8/8/8/pKC5 r", "--db", kcvp_db, "--json", "--line"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["outcome"] == "win" and data["moves"][0]["move"] == data["best_move"] == "c1xa1"
    assert data["moves"][0]["position"] == "8/8/8/CK6 b"
    assert data["line"] == [{"move": "c1xa1", "position": "8/8/8/CK6 b", "outcome": "loss",
                             "distance": 0}]


def test_lookup_reads_positions_from_stdin(kcvp_db):
    r = run("lookup", "cdc", "-", "--db", kcvp_db,
            input="8/8/8/pKC5 r\nnonsense\n\n8/8/8/Pkc5 b\n")
    assert r.returncode == 0, r.stderr
    rows = [json.loads(line) for line in r.stdout.splitlines()]
    assert [row.get("outcome") for row in rows] == ["win", None, "win"]
    assert "'nonsense'" in rows[1]["error"]


def test_sql_status_verify(kcvp_db, capsys):
    assert main(["sql", "--db", kcvp_db, "SELECT count(*) AS n FROM cdc_positions "
                 "WHERE pieces = 3 AND result = 'draw'"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].strip() == "n" and out[-1] == "(1 row)" and int(out[2]) > 0
    assert main(["status", "--db", kcvp_db]) == 0
    out = capsys.readouterr().out
    summary = [line.split() for line in out.splitlines() if line.startswith("cdc")]
    assert summary[0][:5] == ["cdc", "2", "2", "0", "0"]  # tables, done, building, pending
    assert main(["status", "--db", kcvp_db, "--all"]) == 0
    assert {line.split()[1] for line in capsys.readouterr().out.splitlines()
            if line.startswith("cdc ")} == {"CvP", "KCvP"}
    assert main(["verify", "--db", kcvp_db, "--no-progress"]) == 0
    assert "verify: 2 tables" in capsys.readouterr().out


def test_verify_catches_a_corrupted_value(kcvp_db, tmp_path, capsys):
    bad = tmp_path / "bad.duckdb"
    shutil.copy(kcvp_db, bad)
    con = duckdb.connect(str(bad))
    con.execute("UPDATE tb_index_rows SET distance = distance + 2 WHERE result = 1 AND "
                "idx = (SELECT min(idx) FROM tb_index_values WHERE result = 1)")
    con.close()
    assert main(["verify", "--db", str(bad), "--no-progress"]) == 1
    assert "inconsistent" in capsys.readouterr().out


def test_games_lists_every_game_with_options_and_samples(capsys):
    from tbdb import games
    assert main(["games"]) == 0
    out = capsys.readouterr().out
    for g in games.all_games():
        assert f"{g.name}: {g.title}" in out and repr(g.sample) in out
        for o in g.build_options + g.lookup_options:
            assert o.flag in out


def test_perft_and_divide(capsys):
    assert main(["perft", "tictactoe", "start", "3"]) == 0
    assert capsys.readouterr().out.strip() == "504"
    assert main(["perft", "tictactoe", "x...o....", "2", "--divide"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == "total 42" and len(lines) == 8  # 7 moves of x, then 6 replies each


@pytest.mark.parametrize("args, message", [
    (["build", "backgammon"],
     "unknown game 'backgammon'; known games: " + ", ".join(games.names())),
    (["build", "cdc", "--max-pieces", "7"], "--max-pieces must be an integer from 2 to 5, not 7"),
    (["build", "cdc", "--max-pieces", "two"], "--max-pieces must be an integer from 2 to 5, not "
                                              "'two'"),
    (["build", "cdc", "--material", "KQvK"], "malformed material 'KQvK'"),
    (["build", "cdc", "--material", "KKvM"], "material 'KKvM' has 2 K; a side has at most 1"),
    (["build", "oware", "--max-seeds", "48"],
     "--max-seeds must be an integer from 1 to 20, not 48"),
    (["build", "cdc", "--mode", "fast"], "--mode must be one of 'auto', 'edges', 'edge-free', "
                                         "'compact', not 'fast'"),
    (["build", "cdc", "--rebuild", "KGvRR"], "--rebuild 'KGvRR': that table is not part of"),
    (["lookup", "cdc", "4g2K/8/8 r"], "'4g2K/8/8 r'"),
    (["lookup", "cdc", "4g2K/8/8/8 r"], "'KvG' of cdc, which is not built"),
    (["lookup", "oware", "0 0 0 0 0 1 0 0 0 0 0 0", "--turns-left", "0"],
     "--turns-left must be an integer from 1 to 200, not 0"),
    (["perft", "cdc", "start", "2"], "cdc has no start position; give a position"),
    (["perft", "tictactoe", "start", "-1"], "depth must be an integer from 0 to 64, not -1"),
    (["sql", "SELEC nonsense"], "syntax error"),
    (["status", "--game", "backgammon"], "unknown game 'backgammon'"),
    (["verify", "--game", "backgammon"], "unknown game 'backgammon'"),
])
def test_bad_input_exits_2_with_one_line_and_leaves_files_alone(args, message, kcvp_db,
                                                                 tmp_path, capsys):
    reading = args[0] in ("lookup", "sql", "status", "verify")
    db = str(tmp_path / "copy.duckdb") if reading else str(tmp_path / "fresh.duckdb")
    if reading:
        shutil.copy(kcvp_db, db)
        before = open(db, "rb").read()
    if args[0] == "perft":
        code = main(args)
    else:
        code = main(args + ["--db", db])
    assert code == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1, err
    if reading:
        assert open(db, "rb").read() == before
    else:
        assert not os.path.exists(db)  # bad options never touch (or create) the database


@pytest.mark.parametrize("name, content, message", [
    # DuckDB's own words for this one named an in-memory database
    ("manifest.json", b'{"format": 3, "files": []}\n',
     "not a DuckDB file; a directory of probe files is opened as the directory: --db "),
    ("tb.duckdb", b"PK\x03\x04" + bytes(60), "not a DuckDB file"),
])
def test_a_file_that_is_not_duckdb_is_named_so(name, content, message, tmp_path, capsys):
    path = tmp_path / name
    path.write_bytes(content)
    for args in (["lookup", "cdc", "8/8/8/pKC5 r"], ["status"], ["sql", "SELECT 1"]):
        assert main(args + ["--db", str(path)]) == 2
        err = capsys.readouterr().err
        assert f"{str(path)!r} is not a tbdb database: {message}" in err, err
        assert len(err.strip().splitlines()) == 1, err
        assert path.read_bytes() == content


def test_unknown_flags_are_one_line_errors():
    r = run("build", "cdc", "--max-seeds", "3")
    assert r.returncode == 2 and "unrecognized arguments: --max-seeds 3" in r.stderr
    assert "Traceback" not in r.stderr


def test_help_for_every_subcommand_and_game(capsys):
    # in this process (a process each took 3 s on a slow host); ``python -m tbdb.cli.run`` as a
    # process is run by the other tests here
    for sub in ("build", "lookup", "perft", "sql", "status", "verify", "games", "upgrade"):
        with pytest.raises(SystemExit) as stop:
            main([sub, "--help"])
        assert stop.value.code == 0 and "usage: tbdb " + sub in capsys.readouterr().out
    with pytest.raises(SystemExit) as stop:
        main(["build", "oware", "--help"])
    text = " ".join(capsys.readouterr().out.split())  # argparse wraps help lines where it likes
    assert stop.value.code == 0
    assert "--max-seeds" in text and "an integer from 1 to 20" in text


def test_a_database_held_by_another_process_is_a_clear_error(kcvp_db, tmp_path):
    held = tmp_path / "held.duckdb"
    shutil.copy(kcvp_db, held)
    holder = subprocess.Popen(
        [sys.executable, "-c", "import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); "
         "print('ready', flush=True); time.sleep(60)", str(held)],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "ready"
        for args in (["status"], ["build", "cdc", "--material", "CvP"]):
            r = run(*args, "--db", str(held))
            assert r.returncode == 2
            assert f"is held by process {holder.pid}" in r.stderr and "Traceback" not in r.stderr
    finally:
        holder.kill()
        holder.wait()


def test_exports_stream_every_row(kcvp_db, tmp_path, capsys):
    import pyarrow.parquet as pq
    query = "SELECT position, result, distance FROM cdc_positions ORDER BY position"
    target = tmp_path / "all.parquet"
    assert main(["sql", "--db", kcvp_db, "--parquet", str(target), query]) == 0
    table = pq.read_table(target)
    assert table.num_rows == 14880 + 496 and table.column_names == ["position", "result",
                                                                     "distance"]
    assert main(["sql", "--db", kcvp_db, "--csv", query]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "position,result,distance" and len(lines) == 1 + table.num_rows
    assert lines[1].split(",")[0] == table.column("position")[0].as_py()
    assert main(["sql", "--db", kcvp_db, "--json", query + " LIMIT 2"]) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [r["position"] for r in rows] == table.column("position").to_pylist()[:2]
    assert sorted(os.listdir(tmp_path)) == ["all.parquet"]  # no partial file left behind
