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
from tbdb.retrograde import driver
from tbdb.cli.run import main
from tbdb.games.uttt import Move, Position
from tbdb.games.uttt.game import EXAMPLE_ROOT, UtttGame
from tbdb.games.uttt.tables import UtttSubtree
from tests import naive_uttt as naive
from tests.uttt_helpers import from_naive, naive_canonical, random_games, random_root, to_naive

GAME = UtttGame()


def run(*args, **kwargs):
    return subprocess.run([sys.executable, "-m", "tbdb.cli.run", *args], capture_output=True,
                          text=True, timeout=600, **kwargs)


# ------------------------------------------------------------------ solved values

def _solve(root: Position, scoring: str) -> dict:
    """{key: (result, distance, best)} of every position below root, by the engine."""
    space = UtttSubtree(root, scoring)
    levels = driver.solve_levels(space, driver.enumerate_levels(space))
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
        far = random_root(random.Random(5), 20, 22)  # above the example root: not stored
        with pytest.raises(tbdb.MissingTableError, match="tbdb build uttt --from"):
            tb.lookup_arrays("uttt", *g.encode_batch([far]))
        # the start is beyond any --from build this machine makes: no command is suggested
        with pytest.raises(tbdb.MissingTableError, match="no build this tbdb can make"):
            tb.lookup_arrays("uttt", *g.encode_batch([Position.start()]))


def _stored(db: str, scoring: str) -> dict:
    """{(key0, key1): (result, distance, best)} of every stored row of a scoring (and that no
    key has two rows)."""
    import duckdb
    con = duckdb.connect(db, read_only=True)
    try:
        rows = con.execute(
            "SELECT key0, key1, key_constraint, result, distance, best_move FROM tb_key_values "
            "v JOIN tb_tables t USING (table_id) WHERE t.table_name = ?",
            [f"{scoring}/positions"]).fetchall()
    finally:
        con.close()
    out = {(a, b): (r, d, m) for a, b, _, r, d, m in rows}
    assert len(out) == len(rows) == len({(a, b, c) for a, b, c, *_ in rows})
    return out


def _check_stored_against_negamax(db: str, roots: list[Position], scoring: str) -> None:
    """Every position below the roots has its row, equal to the naive solver; no other rows."""
    stored = _stored(db, scoring)
    below = set().union(*(naive.subtree(to_naive(r)) for r in roots))
    keys = set()
    for q in below:
        c = from_naive(q).canonical()
        keys.add(c.key)
        r, d, best = stored[c.key]
        assert (r, d) == naive.solve(q, scoring), (from_naive(q).text, scoring)
        if best >= 0:
            m = c.from_canonical(best)
            v, dd = naive.solve(naive.play(q, (m.board, m.cell)), scoring)
            assert -v == r and (r == 0 or dd + 1 == d)
    assert keys == set(stored)


def _overlapping_roots() -> tuple[Position, Position]:
    """Two children of the example root: neither reaches the other, their subtrees overlap
    (851 and 884 positions, 382 shared)."""
    root = Position.parse(EXAMPLE_ROOT)
    moves = root.legal_moves()
    return root.push(moves[0]), root.push(moves[2])


def _canonical_subtree(p: Position) -> set:
    return {naive_canonical(q) for q in naive.subtree(to_naive(p))}


@pytest.mark.parametrize("scoring", ["standard",
                                     pytest.param("codingame", marks=pytest.mark.slow)])
def test_a_second_build_reuses_the_positions_stored_by_the_first(tmp_path, scoring):
    db = str(tmp_path / "tb.duckdb")
    a, b = _overlapping_roots()
    reach_a, reach_b = _canonical_subtree(a), _canonical_subtree(b)
    overlap = reach_a & reach_b
    assert overlap and reach_b - reach_a and naive_canonical(to_naive(a)) not in reach_b \
        and naive_canonical(to_naive(b)) not in reach_a
    first = tbdb.build("uttt", db=db, progress=False, scoring=scoring, **{"from": a.text})
    assert (first.rows, first.reused) == (len(reach_a), 0)
    second = tbdb.build("uttt", db=db, progress=False, scoring=scoring, **{"from": b.text})
    # the overlap is neither solved nor stored again: only B's own positions are new, and the
    # build read back stored positions where it met A's
    assert second.rows == len(reach_b - reach_a) and 0 < second.reused <= len(overlap)
    assert f"{second.reused:,} reused" in str(second)
    _check_stored_against_negamax(db, [a, b], scoring)
    with tbdb.open(db) as tb:  # lookups find the positions of both builds
        for p in (a, b, a.push(a.legal_moves()[-1]), b.push(b.legal_moves()[-1])):
            r = tb.lookup(p, game="uttt", scoring=scoring)
            assert ({"win": 1, "draw": 0, "loss": -1}[r.outcome], r.distance) == \
                naive.solve(to_naive(p), scoring)
        builds = tb.sql("SELECT kind, new_rows, reused_rows FROM uttt_tables "
                        "ORDER BY kind, new_rows").fetchall()
        assert sorted(builds) == sorted([("from", len(reach_a), 0),
                                         ("from", second.rows, second.reused),
                                         ("store", None, None)])
    assert tbdb.verify(db, "uttt", progress=False).ok
    again = tbdb.build("uttt", db=db, progress=False, scoring=scoring, **{"from": b.text})
    assert again.built == [] and again.skipped == 1


def test_a_killed_second_build_resumes_above_its_stored_levels(tmp_path, monkeypatch):
    from tbdb.storage import shared_levels
    a, b = _overlapping_roots()
    whole = str(tmp_path / "whole.duckdb")
    for root in (a, b):
        tbdb.build("uttt", db=whole, progress=False, **{"from": root.text})
    db = str(tmp_path / "killed.duckdb")
    tbdb.build("uttt", db=db, progress=False, **{"from": a.text})
    add = shared_levels.SharedLevels.add_level
    calls = []

    def add_then_die(self, values, replace=False):
        if len(calls) == 2:
            raise KeyboardInterrupt
        calls.append(values.level)
        add(self, values, replace)

    monkeypatch.setattr(shared_levels.SharedLevels, "add_level", add_then_die)
    with pytest.raises(KeyboardInterrupt):
        tbdb.build("uttt", db=db, progress=False, **{"from": b.text})
    monkeypatch.setattr(shared_levels.SharedLevels, "add_level", add)
    table = GAME.plan(**{"from": b.text})[0]
    with tbdb.open(db) as tb:
        kept = tb.sql(f"SELECT level, rows FROM build_levels WHERE table_name = '{table}'"
                      ).fetchall()
    assert sorted(lv for lv, _ in kept) == sorted(calls)  # the two lowest new levels were kept
    resumed = tbdb.build("uttt", db=db, progress=False, **{"from": b.text})
    assert resumed.rows + sum(n for _, n in kept) == len(_canonical_subtree(b) -
                                                          _canonical_subtree(a))
    with tbdb.open(db) as tb:
        (new,), = tb.sql(f"SELECT new_rows FROM uttt_tables WHERE table_name = '{table}'"
                         ).fetchall()
    assert new == resumed.rows + sum(n for _, n in kept)
    assert _stored(db, "standard") == _stored(whole, "standard")
    assert tbdb.verify(db, "uttt", progress=False).ok


def test_a_rebuild_replaces_the_rows_of_its_positions_and_keeps_the_counts(tmp_path):
    import duckdb
    a, b = _overlapping_roots()
    db = str(tmp_path / "tb.duckdb")
    for root in (a, b):
        tbdb.build("uttt", db=db, progress=False, **{"from": root.text})
    table = GAME.plan(**{"from": a.text})[0]
    con = duckdb.connect(db)
    con.execute("UPDATE tb_key_values SET distance = distance + 2 WHERE rowid = "
                "(SELECT min(rowid) FROM tb_key_values WHERE best_move >= 0)")
    con.close()
    assert not tbdb.verify(db, "uttt", progress=False).ok
    again = tbdb.build("uttt", db=db, progress=False, rebuild=[table], **{"from": a.text})
    assert again.rows == len(_canonical_subtree(a)) and again.reused == 0
    _check_stored_against_negamax(db, [a, b], "standard")
    assert tbdb.verify(db, "uttt", progress=False).ok


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
    far = random_root(random.Random(5), 20, 22).text  # above the example root: not stored
    assert main(["lookup", "uttt", far, "--db", cli_db]) == 2
    err = capsys.readouterr().err
    assert f"tbdb build uttt --from '{far}'" in err
    # the start is beyond any --from build this machine makes: said so, no command suggested
    assert main(["lookup", "uttt", "start", "--db", cli_db]) == 2
    err = capsys.readouterr().err
    assert "no build this tbdb can make holds it" in err and "--from" not in err
    assert main(["lookup", "uttt", EXAMPLE_ROOT, "--scoring", "codingame", "--db", cli_db]) == 2
    assert "--scoring codingame" in capsys.readouterr().err


def test_cli_errors_are_one_line_and_quote_the_input(cli_db, tmp_path, capsys):
    db = str(tmp_path / "never.duckdb")
    cases = [
        (["build", "uttt", "--db", db], "--from POSITION or --max-empties"),
        (["build", "uttt", "--max-empties", "2", "--db", db], "not 2"),
        (["build", "uttt", "--from", "start", "--scoring", "odd", "--db", db], "'odd'"),
        (["build", "uttt", "--from", "x" * 81 + " x -", "--db", db], "'" + "x" * 81),
        (["build", "uttt", "--from", "start", "--db", db], "'start': 81 empty cells in open "
                                                          "boards; this machine builds from "
                                                          "roots with at most 22"),
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


def test_start_is_an_alias_for_lookups_not_the_notation():
    # the notation round-trips exactly (the conformance property); 'start' is a convenience of
    # coerce, so Python lookups, the CLI and --from still take it
    with pytest.raises(tbdb.InvalidPositionError, match="'start'.*'" + "." * 81 + " x -'"):
        GAME.parse("start")
    assert GAME.coerce("start") == Position.start()
    assert GAME.text(GAME.coerce("start")) == "." * 81 + " x -"
