"""uttt on the engine: solved values against a plain negamax, exact canonical keys, the batch
form, and the command line (build --from / --max-empties, lookup, perft, sql, errors)."""
from __future__ import annotations

import json
import random
import subprocess
import sys

import numpy as np
import pytest

import tbdb
from tbdb import retrograde
from tbdb.cli import main
from tbdb.games import uttt_tables
from tbdb.games.uttt import Move, Position
from tbdb.games.uttt_game import EXAMPLE_ROOT, UtttGame
from tests import naive_uttt as naive
from tests.uttt_helpers import from_naive, naive_canonical, random_games, random_root, to_naive

GAME = UtttGame()


def run(*args, **kwargs):
    return subprocess.run([sys.executable, "-m", "tbdb.cli", *args], capture_output=True,
                          text=True, timeout=600, **kwargs)


# ------------------------------------------------------------------ solved values

def _solve(root: Position, scoring: str) -> dict:
    """{key: (result, distance, best)} of every position below root, by the engine."""
    space = uttt_tables.UtttSubtree(root, scoring)
    levels = retrograde.solve_levels(space, retrograde.enumerate_levels(space))
    out = {}
    for v in levels.values():
        for k, r, d, b in zip(v.keys.tolist(), v.result.tolist(), v.distance.tolist(),
                              v.best.tolist()):
            out[tuple(k)] = (r, d, b)
    return out


def _check_against_negamax(root: Position, scoring: str) -> None:
    solved = _solve(root, scoring)
    below = naive.subtree(to_naive(root))
    assert len(solved) == len({naive_canonical(q) for q in below})  # exactly the subtree
    for q in below:
        p = from_naive(q)
        c = p.canonical()
        r, d, best = solved[c.key]
        assert (r, d) == naive.solve(q, scoring), (p.text, scoring)
        if best >= 0:  # the stored best move, on q itself, realises the value
            m = c.from_canonical(best)
            v, dd = naive.solve(naive.play(q, (m.board, m.cell)), scoring)
            assert -v == r and (r == 0 or dd + 1 == d), (p.text, scoring, str(m))
        else:
            assert naive.game_over(q)


def _disagreeing_root(seed: int) -> Position:
    """A root whose value differs between the two scorings."""
    rng = random.Random(seed)
    while True:
        p = random_root(rng, 6, 8)
        q = to_naive(p)
        if naive.solve(q, "standard") != naive.solve(q, "codingame"):
            return p


@pytest.mark.parametrize("scoring", ["standard", "codingame"])
def test_values_match_negamax_on_every_position_below_a_few_roots(scoring):
    rng = random.Random(11)
    for root in [random_root(rng, 7, 8), Position.parse(EXAMPLE_ROOT), _disagreeing_root(4)]:
        _check_against_negamax(root, scoring)


@pytest.mark.slow
@pytest.mark.parametrize("scoring", ["standard", "codingame"])
def test_values_match_negamax_below_a_dozen_roots_with_8_to_12_empties(scoring):
    rng = random.Random(2024)
    roots = [random_root(rng, 8, 12) for _ in range(10)] + [_disagreeing_root(s)
                                                            for s in (1, 2, 3)]
    for root in roots:
        _check_against_negamax(root, scoring)


# ------------------------------------------------------------------ canonical keys

def _positions(seed: int, games: int) -> list[Position]:
    return random_games(seed, games)


def test_all_eight_images_share_the_key_and_the_move_map():
    for p in _positions(1, 40)[::3]:
        c = p.canonical()
        for q in GAME.images(p):
            cq = q.canonical()
            assert cq.key == c.key and cq.constraint == c.constraint
            for m in q.legal_moves()[:4]:  # a move and its canonical image round-trip
                assert cq.from_canonical(cq.to_canonical(m)) == m


def _keys_versus_naive(seed: int, games: int, at_least: int) -> None:
    """Every pair among the positions of random games: equal keys iff the naive reference
    finds them the same reduced position up to symmetry."""
    positions = _positions(seed, games)
    by_key: dict = {}
    by_naive: dict = {}
    for p in positions:
        by_key.setdefault(p.key, []).append(p)
        by_naive.setdefault(naive_canonical(to_naive(p)), []).append(p)
    assert len(positions) > at_least
    assert sorted(sorted(q.text for q in g) for g in by_key.values()) == \
        sorted(sorted(q.text for q in g) for g in by_naive.values())


def test_keys_are_equal_exactly_for_symmetric_reduced_positions():
    _keys_versus_naive(5, 50, 3_000)  # ~5 * 10**6 pairs


@pytest.mark.slow
def test_keys_are_equal_exactly_for_symmetric_reduced_positions_on_many_pairs():
    _keys_versus_naive(6, 1_000, 60_000)  # ~2 * 10**9 pairs


def test_key_text_is_the_canonical_representative():
    for p in _positions(9, 10)[::5]:
        rep = Position.from_key(p.key)
        assert rep.key == p.key
        q = to_naive(p)
        assert to_naive(rep) in {naive.reduced(naive.image(q, g)) for g in naive.GRID_MAPS}


# ------------------------------------------------------------------ the built example

@pytest.fixture(scope="module")
def example_db(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("uttt") / "tb.duckdb")
    for scoring in ("standard", "codingame"):
        tbdb.build("uttt", db=path, progress=False, scoring=scoring, **{"from": EXAMPLE_ROOT})
    return path


def test_lookup_answers_every_position_below_the_root_like_negamax(example_db):
    below = sorted(naive.subtree(to_naive(Position.parse(EXAMPLE_ROOT))), key=str)
    with tbdb.open(example_db) as tb:
        for q in random.Random(1).sample(below, 60):
            for scoring in ("standard", "codingame"):
                r = tb.lookup(from_naive(q), game="uttt", scoring=scoring)
                v, d = naive.solve(q, scoring)
                assert ({"win": 1, "draw": 0, "loss": -1}[r.outcome], r.distance) == (v, d)


def test_batch_form_refuses_bad_rows_by_number(example_db):
    g = GAME
    cells, side, con = g.encode_batch([Position.parse(EXAMPLE_ROOT)] * 3)
    with tbdb.open(example_db) as tb:
        result, distance, best = tb.lookup_arrays("uttt", cells, side, con)
        assert result.tolist() == [-1] * 3 and distance.tolist() == [8] * 3
        bad = cells.copy()
        bad[2, 0] = 7
        with pytest.raises(ValueError, match="row 2"):
            tb.lookup_arrays("uttt", bad, side, con)
        with pytest.raises(ValueError, match="row 1"):
            tb.lookup_arrays("uttt", cells, np.array([0, 1, 0]), con)  # counts do not fit
        with pytest.raises(ValueError, match="shape"):
            tb.lookup_arrays("uttt", cells[:, :80], side, con)
        with pytest.raises(tbdb.MissingTableError, match="--from"):
            tb.lookup_arrays("uttt", *g.encode_batch([Position.start()]))


def test_a_second_build_from_a_position_below_is_a_table_of_its_own(example_db, tmp_path):
    root = Position.parse(EXAMPLE_ROOT)
    child = root.push(root.legal_moves()[0])
    with tbdb.open(example_db) as tb:
        before = tb.lookup(child, game="uttt")
    summary = tbdb.build("uttt", db=example_db, progress=False, **{"from": child.text})
    assert len(summary.built) == 1
    with tbdb.open(example_db) as tb:
        after = tb.lookup(child, game="uttt")
        assert (after.outcome, after.distance) == (before.outcome, before.distance)
    again = tbdb.build("uttt", db=example_db, progress=False, **{"from": child.text})
    assert again.built == [] and again.skipped == 1


# ------------------------------------------------------------------ command line

@pytest.fixture(scope="module")
def cli_db(tmp_path_factory):
    """The example built by the ``tbdb`` command itself."""
    db = str(tmp_path_factory.mktemp("uttt-cli") / "cli.duckdb")
    r = run("build", "uttt", "--from", EXAMPLE_ROOT, "--db", db, "--no-progress")
    assert r.returncode == 0, r.stderr
    assert "1 built (1,354 rows)" in r.stdout
    return db


def test_cli_lookup_json_line_and_sql(cli_db, capsys):
    assert main(["lookup", "uttt", EXAMPLE_ROOT, "--db", cli_db, "--json", "--line"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["outcome"] == "loss" and data["distance"] == 8
    assert data["best_move"] == data["moves"][0]["move"]
    assert len(data["line"]) == 8 and data["line"][-1]["distance"] == 0
    assert main(["sql", "--db", cli_db, "--json",
                 "SELECT empties, result, distance, best_move, side_to_move, constraint_board, "
                 "scoring, position FROM uttt_positions ORDER BY empties DESC LIMIT 1"]) == 0
    row = json.loads(capsys.readouterr().out.splitlines()[0])
    root = Position.parse(EXAMPLE_ROOT).canonical()
    assert row["position"] == Position.from_key(root.key).text and row["empties"] == 11
    best = str(root.to_canonical(Move.parse(data["best_move"])))
    assert (row["result"], row["distance"], row["best_move"]) == ("loss", 8, best)
    assert main(["sql", "--db", cli_db, "--json",
                 "SELECT sum(canonical_rows) AS n FROM uttt_symmetry_stats"]) == 0
    assert json.loads(capsys.readouterr().out)["n"] == 1354
    assert main(["sql", "--db", cli_db, "--json", "SELECT sum(positions) AS n, "
                 "sum(wins + draws + losses) AS m FROM draw_analysis WHERE game = 'uttt'"]) == 0
    row = json.loads(capsys.readouterr().out)
    assert row["n"] == row["m"] > 1354


def test_cli_lookup_of_a_position_not_stored_names_the_build(cli_db, capsys):
    assert main(["lookup", "uttt", "start", "--db", cli_db]) == 2
    err = capsys.readouterr().err
    assert "tbdb build uttt --from" in err and "'" + "." * 81 + " x -'" in err
    assert main(["lookup", "uttt", EXAMPLE_ROOT, "--scoring", "codingame", "--db", cli_db]) == 2
    assert "--scoring codingame" in capsys.readouterr().err


def test_cli_errors_are_one_line_and_quote_the_input(cli_db, tmp_path, capsys):
    db = str(tmp_path / "never.duckdb")
    cases = [
        (["build", "uttt", "--db", db], "--from POSITION or --max-empties"),
        (["build", "uttt", "--max-empties", "2", "--db", db], "not 2"),
        (["build", "uttt", "--from", "start", "--scoring", "odd", "--db", db], "'odd'"),
        (["build", "uttt", "--from", "x" * 81 + " x -", "--db", db], "'" + "x" * 81),
        (["lookup", "uttt", "hello", "--db", cli_db], "'hello'"),
        (["lookup", "uttt", "start", "--scoring", "odd", "--db", cli_db], "'odd'"),
        (["perft", "uttt", "start", "-2"], "not -2"),
        (["perft", "uttt", "." * 80 + "x x -", "2"], "'" + "." * 80 + "x x -'"),
    ]
    for args, quoted in cases:
        assert main(args) == 2, args
        err = capsys.readouterr().err
        assert quoted in err and len(err.strip().splitlines()) == 1, (args, err)
    assert not (tmp_path / "never.duckdb").exists()


def test_cli_perft_prints_the_published_counts(capsys):
    assert main(["perft", "uttt", "start", "5"]) == 0
    assert capsys.readouterr().out.strip() == "473256"
    assert main(["perft", "uttt", "start", "2", "--divide"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == "total 720" and len(lines) == 82


def test_the_sample_parses_and_is_guessed_as_uttt():
    from tbdb import games
    assert GAME.parse(GAME.sample) == Position.start().push("4:0").push("0:4")
    assert games.guess(GAME.sample).name == "uttt"
