"""Shogi on the engine: the command line (build, lookup, perft, sql), lookups of SFEN text and
of python-shogi / cshogi boards, the batch form, the readable views and the statistics."""
import json
import random
import shutil
import subprocess
import sys

import cshogi
import numpy as np
import pytest
import shogi

import tbdb
from tbdb import games
from tbdb.cli.run import main
from tbdb.games.shogi import Position
from tbdb.games.shogi.game import mirrored, swapped
from tbdb.games.shogi.tables import ShogiTable, table_of

from .shogi_random import random_position

MATE_IN_93 = "8K/9/9/9/9/9/G8/1k7/9 b - 1"


def run(*args, **kwargs):
    return subprocess.run([sys.executable, "-m", "tbdb.cli.run", *args], capture_output=True,
                          text=True, timeout=900, **kwargs)


@pytest.fixture(scope="module")
def kgk_db(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("shogi") / "kgk.duckdb")
    r = run("build", "shogi", "--table", "KGK", "--db", path, "--no-progress")  # the command
    assert r.returncode == 0, r.stderr
    assert "1 built (475,328 rows)" in r.stdout
    return path


@pytest.fixture(scope="module")
def tb(kgk_db):
    with tbdb.open(kgk_db) as t:
        yield t


def _kgk_positions(n, seed):
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        p = random_position(rng, max_pieces=1)
        if table_of(p) == "KGK":
            out.append(p)
    return out


def test_plan_names_the_seven_three_piece_tables_and_one_table():
    g = games.get("shogi")
    assert g.plan() == g.plan(pieces=3) == ["KBK", "KGK", "KLK", "KNK", "KPK", "KRK", "KSK"]
    assert len(g.plan(pieces=4)) == 28 and "KRGK" in g.plan(pieces=4)
    assert g.plan(table="KRGK") == ["KRGK"] and g.dependencies("KRGK") == []


def test_cli_lookup_text_json_and_line(kgk_db, capsys):
    assert main(["lookup", "shogi", MATE_IN_93, "--db", kgk_db]) == 0
    out = capsys.readouterr().out
    assert "outcome:   win in 93 plies" in out and "best move: 9g8f" in out
    assert main(["lookup", "shogi", MATE_IN_93, "--db", kgk_db, "--json", "--line"]) == 0
    data = json.loads(capsys.readouterr().out)
    moves = data["moves"]
    assert moves[0]["move"] == data["best_move"] == "9g8f"
    assert {m["move"] for m in moves} == {"9g8f", "9g9f", "9g8g", "9g9h", "1a2a", "1a2b", "1a1b"}
    assert [m["outcome"] for m in moves[1:]] == ["loss"] * 6  # every other move lets k win
    assert len(data["line"]) == 93 and data["line"][-1]["distance"] == 0
    final = Position.parse(data["line"][-1]["position"])
    assert final.side == 1 and final.is_check() and not final.legal_moves()


def test_cli_perft_from_the_start_and_from_an_sfen(capsys):
    assert main(["perft", "shogi", "start", "3"]) == 0
    assert capsys.readouterr().out.split() == ["25470"]
    assert main(["perft", "shogi", MATE_IN_93, "2"]) == 0
    assert capsys.readouterr().out.split() == [str(Position.parse(MATE_IN_93).perft(2))]


def test_cli_sql_answers_the_silver_in_hand_question(kgk_db, capsys):
    query = ("SELECT count(*) AS n FROM shogi_positions WHERE table_name = 'KGK' AND "
             "((black_hand = 'G' AND result = 'loss') OR (white_hand = 'g' AND result = 'win'))")
    assert main(["sql", "--db", kgk_db, query]) == 0
    assert capsys.readouterr().out.splitlines()[2].strip() == "0"  # a gold in hand never loses


@pytest.mark.parametrize("args, message", [
    (["lookup", "shogi", "hello"], "'hello'"),
    (["lookup", "shogi", "8K/9/9/9/9/9/G8/1k7/9 x - 1"], "'8K/9/9/9/9/9/G8/1k7/9 x - 1'"),
    (["lookup", "shogi", "8K/9/9/9/9/9/R8/1k7/9 b - 1"], "tbdb build shogi --table KRK"),
    (["lookup", "shogi", "8K/9/9/9/9/9/G8/1k7/9 b RB 1"], "5 pieces"),
    (["lookup", "shogi", "8K/8g/9/9/9/9/9/1k7/9 w - 1"], "side not to move is in check"),
    (["build", "shogi", "--table", "KQK"], "'KQK'"),
    (["build", "shogi", "--table", "KGRK"], "'KRGK'"),
    (["build", "shogi", "--table", "KRGGK"], "5 pieces"),
    (["build", "shogi", "--pieces", "5"], "not 5"),
    (["build", "shogi", "--table", "KGK", "--pieces", "3"], "not both"),
    (["perft", "shogi", "9/9 b - 1", "2"], "'9/9 b - 1'"),
])
def test_bad_input_is_a_one_line_error_and_leaves_the_file_alone(args, message, kgk_db,
                                                                 tmp_path, capsys):
    reading = args[0] == "lookup"
    db = tmp_path / ("copy.duckdb" if reading else "fresh.duckdb")
    if reading:
        shutil.copy(kgk_db, db)
        before = db.read_bytes()
    code = main(args if args[0] == "perft" else args + ["--db", str(db)])
    err = capsys.readouterr().err
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1, err
    if reading:
        assert db.read_bytes() == before
    else:
        assert not db.exists()


def test_lookup_takes_sfen_text_positions_and_boards_with_sfen(tb):
    r = tb.lookup(MATE_IN_93)
    assert (r.outcome, r.distance, r.best_move) == ("win", 93, "9g8f")
    for board in ("sfen " + MATE_IN_93, MATE_IN_93[:-2], Position.parse(MATE_IN_93),
                  shogi.Board(MATE_IN_93), cshogi.Board(MATE_IN_93)):
        got = tb.lookup(board)
        assert (got.outcome, got.distance, got.best_move) == ("win", 93, "9g8f")
    assert tb.lookup("8K/9/9/9/9/9/9/1k7/9 b - 1").outcome == "draw"  # bare kings
    with pytest.raises(tbdb.MissingTableError, match="KRK"):
        tb.lookup("8K/9/9/9/9/9/R8/1k7/9 b - 1")


def test_every_image_has_the_value_and_the_mapped_best_move(tb):
    for p in _kgk_positions(60, seed=1):
        base = tb.lookup(p)
        for q in (mirrored(p), swapped(p), swapped(mirrored(p))):
            r = tb.lookup(q)
            assert (r.outcome, r.distance) == (base.outcome, base.distance)
            if r.best_move:
                q.push(r.best_move)  # legal on the image itself


def test_batch_form_agrees_with_single_lookups_and_counts_probes(tb):
    g = games.get("shogi")
    positions = _kgk_positions(400, seed=2)
    positions.append(Position.parse("8K/9/9/9/9/9/9/1k7/9 w - 1"))
    before = tb.stats().probes
    result, distance, best = tb.lookup_arrays("shogi", *g.encode_batch(positions))
    assert tb.stats().probes - before == len(positions)
    for p, res, dist, code in zip(positions, result, distance, best):
        r = tb.lookup(p)
        assert int(res) == {"win": 1, "draw": 0, "loss": -1}[r.outcome]
        assert int(dist) == r.distance
        assert (g.move_text(p, int(code), 0) if code >= 0 else None) == r.best_move


def test_batch_form_rejects_bad_rows_by_number(tb):
    g = games.get("shogi")
    boards, hands, sides = g.encode_batch([Position.parse(MATE_IN_93)] * 3)
    bad = boards.copy()
    bad[1, 0] = 15
    with pytest.raises(ValueError, match="row 1: piece codes"):
        tb.lookup_arrays("shogi", bad, hands, sides)
    bad = boards.copy()
    bad[2][bad[2] == 24] = 0
    with pytest.raises(ValueError, match="row 2: expected one king"):
        tb.lookup_arrays("shogi", bad, hands, sides)
    with pytest.raises(ValueError, match="row 0: a side"):
        tb.lookup_arrays("shogi", boards, hands, np.array([2, 0, 0]))
    with pytest.raises(ValueError, match="shape"):
        tb.lookup_arrays("shogi", boards[:, :80], hands, sides)


def test_batch_moves_map_like_move_text():
    g = games.get("shogi")
    rng = random.Random(4)
    positions = _kgk_positions(50, seed=4)
    codes, syms, want = [], [], []
    for p in positions:
        for c in p.legal_codes()[:5]:
            s = rng.randrange(4)
            codes.append(int(c))
            syms.append(s)
            want.append(g.move_text(p, int(c), s))
    got = g.batch_moves(np.array(codes + [-1], np.int32), np.array(syms + [3], np.int8))
    assert got[-1] == -1
    assert [g.move_text(None, int(c), 0) for c in got[:-1]] == want


def test_positions_view_matches_lookups(tb):
    rows = tb.sql("SELECT table_name, sfen, side_to_move, black_hand, white_hand, result, "
                  "distance, best_move, idx FROM shogi_positions WHERE (idx // 164) % 300 = 3 "
                  "AND idx % 164 < 30 ORDER BY idx LIMIT 200").fetchall()
    assert len(rows) == 200
    table = ShogiTable("KGK")
    hands_seen = set()
    for name, sfen, side, bh, wh, result, distance, best, idx in rows:
        p = Position.parse(sfen)
        assert (name, side) == ("KGK", "black") and table.locate(p)[0] == idx
        assert table.position(idx) == p
        r = tb.lookup(p)
        assert (result, distance, best) == (r.outcome, r.distance, r.best_move)
        assert (bh, wh) == ("G" if p.hands[0][7] else "-", "g" if p.hands[1][7] else "-")
        hands_seen.add((bh, wh))
    assert len(hands_seen) >= 2


def test_statistics_count_both_sides_to_move(tb):
    (raw, rows, answered), = tb.sql("SELECT raw_positions, canonical_rows, positions_answered "
                                    "FROM symmetry_stats WHERE game = 'shogi'").fetchall()
    stats = tb.sql("SELECT side_to_move, positions, wins + draws + losses FROM draw_analysis "
                   "WHERE game = 'shogi' ORDER BY side_to_move").fetchall()
    assert stats == [("black", raw // 2, raw // 2), ("white", raw // 2, raw // 2)]
    (n, mult), = tb.sql("SELECT count(*), sum(multiplicity) FROM shogi_positions").fetchall()
    (illegal,), = tb.sql("SELECT count(*) FROM tb_index_values WHERE result = -2").fetchall()
    assert (n, mult) == (rows - illegal, raw) and answered == raw and illegal > 0


def test_stats_count_probes_hits_and_misses(kgk_db):
    with tbdb.open(kgk_db) as fresh:
        assert (fresh.stats().probes, fresh.stats().hits, fresh.stats().misses) == (0, 0, 0)
        r = fresh.lookup(MATE_IN_93)
        assert (fresh.stats().probes, fresh.stats().hits, fresh.stats().tables_loaded) == (1, 1, 1)
        assert len(r.moves) == 7  # one probe per legal move
        assert (fresh.stats().probes, fresh.stats().hits) == (8, 8)
        assert fresh.get("8K/9/9/9/9/9/R8/1k7/9 b - 1") is None  # KRK is not built
        assert fresh.get("8K/9/9/9/9/9/9/1k7/R3G4 b G 1") is None  # five pieces: no table
        assert fresh.lookup("8K/9/9/9/9/9/9/1k7/9 b - 1").outcome == "draw"  # bare kings
        s = fresh.stats()
        assert (s.probes, s.hits, s.misses, s.tables_loaded) == (11, 9, 2, 1)
