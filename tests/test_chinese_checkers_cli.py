"""Chinese Checkers through the engine and the command line: builds, the check values in the
views, lookups with hop chains, the batch form, perft on the star, and hostile input."""
import hashlib
import json
import random
import subprocess
import sys

import numpy as np
import pytest

import tbdb
from tbdb import games
from tbdb.cli.run import main
from tbdb.games.chinese_checkers import Move, Position

GAME = "chinese-checkers"
START_7 = "7x7-1 1/../.../..../...../....../......./....../...../..../.../../2 1"


def run(*args, **kwargs):
    return subprocess.run([sys.executable, "-m", "tbdb.cli.run", *args], capture_output=True,
                          text=True, timeout=600, **kwargs)


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    """7x7 with 1 piece (the issue's check values) and 5x5 with 2 (hop chains)."""
    path = str(tmp_path_factory.mktemp("cc") / "tb.duckdb")
    tbdb.build(GAME, db=path, board=7, pieces=1, progress=False)
    tbdb.build(GAME, db=path, board=5, pieces=2, progress=False)
    return path


def _digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def test_seven_by_seven_one_piece_check_values_in_the_views(db):
    with tbdb.open(db) as tb:
        rows = tb.sql("SELECT side_to_move, positions, wins, draws, losses, illegal FROM "
                      "draw_analysis WHERE game = ? AND table_name = '7x7-1' ORDER BY 1",
                      [GAME]).fetchall()
        sym = tb.sql("SELECT raw_positions, illegal FROM symmetry_stats WHERE table_name = "
                     "'7x7-1'").fetchall()
    (first, p1, w1, d1, l1, i1), (second, p2, w2, d2, l2, i2) = rows
    assert (first, second) == ("first", "second")
    assert p1 + p2 == 4704 and i1 + i2 == 96 and d1 + d2 == 0
    assert w1 + l1 + i1 == p1
    # won for the first player: first to move and winning, or second to move and losing
    assert w1 + l2 == w2 + l1 == 2304
    assert sym == [(4704, 96)]


def test_cc_positions_rows_are_lookups(db):
    with tbdb.open(db) as tb:
        rows = tb.sql("SELECT position, result, distance, best_move, multiplicity FROM "
                      "cc_positions WHERE table_name = '5x5-2' ORDER BY idx").fetchall()
        assert len(rows) == tb.sql("SELECT stored_rows FROM cc_tables WHERE table_name = "
                                   "'5x5-2'").fetchall()[0][0]
        for text, result, distance, best, mult in random.Random(1).sample(rows, 150):
            p = Position.parse(text)
            assert p.mover == 1 and mult in (2, 4)
            if result == "illegal":
                assert p.status == "illegal"
                continue
            r = tb.lookup(text, game=GAME)
            assert (r.outcome, r.distance) == (result, distance)
            if best is None:
                assert r.best_move is None
            else:
                move = Move.parse(r.best_move)
                assert best == f"{move.from_cell}>{move.to_cell}"


def _position_with_a_chain(db):
    """A stored 5x5-2 position with a legal move of two hops or more."""
    with tbdb.open(db) as tb:
        texts = [t for (t,) in tb.sql("SELECT position FROM cc_positions WHERE table_name = "
                                      "'5x5-2' AND result <> 'illegal' ORDER BY idx")
                 .fetchall()]
    for text in texts:
        p = Position.parse(text)
        for m in p.legal_moves():
            if len(m.path) >= 3:
                return p, m
    raise AssertionError("no position with a hop chain")


def test_lookup_prints_hop_chains_and_they_play(db, capsys):
    p, chain = _position_with_a_chain(db)
    assert main(["lookup", GAME, p.text, "--db", db]) == 0
    out = capsys.readouterr().out
    printed = [line.split()[0] for line in out.splitlines() if line.startswith("  ")]
    assert str(chain) in printed
    assert f"position:  {p.text}" in out
    # the printed chain is a legal move: it plays, and so does any other valid chain
    after = p.push(str(chain))
    assert after.cells[chain.to_cell] == 1 and after.cells[chain.from_cell] == 0
    assert main(["lookup", GAME, p.text, "--db", db, "--json", "--line"]) == 0
    data = json.loads(capsys.readouterr().out)
    moves = {m["move"]: m for m in data["moves"]}
    assert moves[str(chain)]["position"] == after.text
    if data["outcome"] != "draw":
        assert len(data["line"]) == data["distance"]


def test_lookup_line_of_the_start_reaches_a_filled_goal(db, capsys):
    assert main(["lookup", GAME, START_7, "--db", db, "--line"]) == 0
    out = capsys.readouterr().out
    assert "outcome:   win in 25 plies" in out
    last = out.strip().splitlines()[-1].split()
    final = Position.parse(" ".join(last[2:5]))
    assert final.status == "over" and last[-1] == "over)"


def test_batch_form_and_stdin(db):
    p = Position.parse(START_7)
    g = games.get(GAME)
    with tbdb.open(db) as tb:
        images = g.images(p)
        result, distance, best = tb.lookup_arrays(GAME, *g.encode_batch(images))
        assert result.tolist() == [1, 1, 1, 1] and distance.tolist() == [25] * 4
        for q, code in zip(images, best.tolist()):
            q.push(g.move_text(q, code, 0))
        with pytest.raises(ValueError, match="row 0"):
            boards, movers = g.encode_batch([p])
            boards[0, 48] = 1  # three pieces for player 1
            tb.lookup_arrays(GAME, boards, movers)
    r = run("lookup", GAME, "-", "--db", db, input=f"{START_7}\n7x7-1 nonsense 1\n")
    assert r.returncode == 0, r.stderr
    rows = [json.loads(line) for line in r.stdout.splitlines()]
    assert rows[0]["outcome"] == "win" and "'7x7-1 nonsense 1'" in rows[1]["error"]


@pytest.mark.parametrize("players,want", [(2, 4760), (3, 2744), (4, 2786), (6, 2828)])
def test_perft_on_the_star(players, want, capsys):
    assert main(["perft", GAME, "start", "3", "--board", "star", "--players", str(players)]) == 0
    assert int(capsys.readouterr().out) == want


def test_perft_on_the_rhombus_and_divide(capsys):
    assert main(["perft", GAME, "start", "2", "--board", "4", "--pieces", "2"]) == 0
    total = int(capsys.readouterr().out)
    start = Position.start(4, 2)
    assert total == sum(len(start.push(m).legal_moves()) for m in start.legal_moves())
    assert main(["perft", GAME, "start", "2", "--board", "star", "--divide"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == "total 196" and len(lines) == 15


@pytest.mark.parametrize("args,quoted", [
    (["lookup", GAME, "7x7-1"], "'7x7-1'"),
    (["lookup", GAME, "7x7-1 2/../.../..../...../....../......./....../...../..../.../../1 1"],
     "cannot arise"),
    (["lookup", GAME, "7x7-2 1/1./.../..../...../....../......./....../...../..../.../.2/2 1"],
     "not built"),
    (["lookup", GAME, "9x9-6 111/111/..."], "'9x9-6 111/111/...'"),
    (["build", GAME, "--board", "10", "--pieces", "1"], "not 10"),
    (["build", GAME, "--board", "7", "--pieces", "5"], "not 5"),
    (["build", GAME, "--board", "9", "--pieces", "6"], "slots"),
    (["build", GAME, "--board", "7"], "--pieces"),
    (["perft", GAME, "start", "2", "--players", "5"], "not 5"),
    (["perft", GAME, "start", "2", "--board", "hex"], "not 'hex'"),
])
def test_hostile_input_is_one_line_exit_2_and_leaves_the_database_alone(db, args, quoted,
                                                                         capsys):
    before = _digest(db)
    assert main([*args, *(["--db", db] if args[0] != "perft" else [])]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert quoted in err
    assert _digest(db) == before


def test_a_malformed_position_is_one_line_from_the_real_command(db):
    r = run("lookup", GAME, "7x7-1 1/2 1", "--db", db)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "'7x7-1 1/2 1'" in r.stderr


def test_a_batch_mixing_piece_counts_answers_each_row_as_a_single_lookup(tmp_path):
    path = str(tmp_path / "mixed.duckdb")
    tbdb.build(GAME, db=path, board=4, pieces=1, progress=False)
    tbdb.build(GAME, db=path, board=4, pieces=2, progress=False)
    g = games.get(GAME)
    with tbdb.open(path) as tb:
        texts = [r[0] for r in tb.sql("SELECT position FROM cc_positions WHERE result <> "
                                      "'illegal' AND idx % 5 = 1").fetchall()]
        positions = [g.parse(t) for t in texts]
        rng = random.Random(8)
        positions += [rng.choice(g.images(p)) for p in positions]  # second player to move too
        rng.shuffle(positions)  # the two tables' rows interleaved
        assert {p.pieces for p in positions} == {1, 2}
        result, distance, best = tb.lookup_arrays(GAME, *g.encode_batch(positions))
        for p, res, dist, code in zip(positions, result.tolist(), distance.tolist(),
                                      best.tolist()):
            r = tb.lookup(p)
            assert (res, dist) == ({"win": 1, "draw": 0, "loss": -1}[r.outcome], r.distance)
            assert (g.move_text(p, code, 0) if code >= 0 else None) == r.best_move
        # a batch of more than 4096 rows a table runs on every core: the same answers
        reps = 2 + 3 * 4096 // len(positions)
        boards, movers = g.encode_batch(positions)
        big = tb.lookup_arrays(GAME, np.tile(boards, (reps, 1)), np.tile(movers, reps))
        for small, large in zip((result, distance, best), big):
            assert np.array_equal(np.tile(small, reps), large)
