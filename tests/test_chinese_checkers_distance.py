"""The star's single-agent distance tables end to end: built by `tbdb build --distance`, read
back through the cc_distance view, tb.lookup and `tbdb lookup`, against a plain breadth-first
search (tests/naive_chinese_checkers.py) and facts worked out by hand."""
import hashlib
import math
import random
from itertools import combinations
from math import comb

import numpy as np
import pytest

import tbdb
from tests import naive_chinese_checkers as naive
from tbdb.cli.run import main
from tbdb.errors import MissingTableError
from tbdb.games.chinese_checkers.distance import Placement
from tbdb.games.chinese_checkers.tables import DistanceTable

GAME = "chinese-checkers"
BOARD = naive.star()
POINTS = naive.star_points(BOARD)
TOP_TIP = 0  # row by row from the top tip: cell 0 is the tip of point 0


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("ccd") / "tb.duckdb")
    summary = tbdb.build(GAME, db=path, distance=3, progress=False)
    assert summary.built == ["star-distance-1", "star-distance-2", "star-distance-3"]
    return path


def _digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def _text(cells, goal):
    return Placement.of_cells(cells, goal).text


def _plane(c):
    """A cell's place in the plane (unit spacing, y downwards), from the naive board."""
    x, y = BOARD.xy[c]
    return x / 2.0, (y - 8) * math.sqrt(3) / 2.0


_AT = {(round(px, 3) + 0.0, round(py, 3) + 0.0): c
       for c, (px, py) in ((c, _plane(c)) for c in range(BOARD.size))}


def _turned(cells, goal):
    """Cells heading for the bottom point turned about the centre (the naive board's own
    geometry) so that they head for ``goal`` (0 top, clockwise)."""
    a = math.radians(60 * ((goal - 3) % 6))
    out = []
    for c in cells:
        px, py = _plane(c)
        qx, qy = px * math.cos(a) - py * math.sin(a), px * math.sin(a) + py * math.cos(a)
        out.append(_AT[(round(qx, 3) + 0.0, round(qy, 3) + 0.0)])
    return out


def test_turning_maps_the_bottom_point_onto_each_goal():
    for p in range(6):
        assert set(_turned(POINTS[3], p)) == set(POINTS[p])


# ------------------------------------------------------------------ the stored rows

@pytest.mark.parametrize("k", [1, 2])
def test_every_placement_in_the_view_matches_a_plain_search(db, k):
    reference = naive.star_distances(k)
    with tbdb.open(db) as tb:
        rows = tb.sql("SELECT cells, moves FROM cc_distance WHERE k = ?", [k]).fetchall()
    assert len(rows) == comb(121, k) == len(reference)
    assert {frozenset(cells): moves for cells, moves in rows} == reference


def test_three_pieces_on_samples_are_one_more_than_their_closest_neighbour(db):
    rng = random.Random(3)
    goal = set(POINTS[3])
    samples = [rng.sample(range(121), 3) for _ in range(150)]
    wanted = []
    for cells in samples:
        board = [0] * 121
        for c in cells:
            board[c] = 1
        near = [sorted(set(cells) - {s} | {t}) for s, t in naive.moves(BOARD, board, 1)]
        wanted.append((cells, near))
    lists = [sorted(c) for cells, near in wanted for c in [cells] + near]
    with tbdb.open(db) as tb:
        # the view finds each placement by the rank of its cells, and says which cells it has
        # (a constant list: an IN subquery would compute the cells of every row first)
        (ranks,), = tb.sql("SELECT list(cc_placement_rank(c)) FROM (SELECT unnest(?) AS c)",
                           [lists]).fetchall()
        stored = dict((frozenset(c), m) for c, m in tb.sql(
            "SELECT cells, moves FROM cc_distance WHERE k = 3 AND list_contains(?, idx)",
            [ranks]).fetchall())
    for cells, near in wanted:
        d = stored[frozenset(cells)]
        closest = min(stored[frozenset(c)] for c in near)
        assert (d == 0) == (set(cells) <= goal)
        assert closest >= d - 1 and (d == 0 or closest == d - 1)


def test_view_columns_agree_with_each_other(db):
    with tbdb.open(db) as tb:
        bad = tb.sql("SELECT count(*) FROM cc_distance WHERE (k < 3 OR idx < 5000 OR "
                     "idx >= 287000) AND (idx <> cc_placement_rank(cells) OR len(cells) <> k "
                     "OR list_sort(cells) <> cells OR len(list_distinct(cells)) <> k)"
                     ).fetchall()[0][0]
        (text, cells, moves), = tb.sql(
            "SELECT placement, cells, moves FROM cc_distance WHERE k = 2 AND idx = 100"
        ).fetchall()
        found = tb.sql("SELECT idx FROM cc_distance WHERE k = 2 AND "
                       "idx = cc_distance_index(?)", [text]).fetchall()
    assert bad == 0
    assert text == _text(cells, 3) and found == [(100,)]


def test_hand_checked_facts(db):
    with tbdb.open(db) as tb:
        for k in (1, 2, 3):
            zero = tb.sql("SELECT cells FROM cc_distance WHERE k = ? AND moves = 0",
                          [k]).fetchall()
            assert len(zero) == comb(10, k)
            assert {frozenset(c) for c, in zero} == {frozenset(c)
                                                      for c in combinations(POINTS[3], k)}
        # alone, a piece cannot hop: it needs as many steps as its distance on the grid to the
        # nearest goal cell (doubled x: dy + max(0, (|dx| - dy) / 2)); the top tip is 13 rows
        # above the bottom point
        for c in range(121):
            x, y = BOARD.xy[c]
            want = min(abs(y - gy) + max(0, (abs(x - gx) - abs(y - gy)) // 2)
                       for gx, gy in (BOARD.xy[g] for g in POINTS[3]))
            assert tb.lookup(_text([c], 3)).distance == want
        assert tb.lookup(_text([TOP_TIP], 3)).distance == 13
        # two pieces on the top tip: a move advances the pair by at most two rows (one hop
        # over the other piece), and they must go down 13 + 12 rows
        assert tb.lookup(_text([0, 1], 3)).distance >= 13


# ------------------------------------------------------------------ lookups

def test_lookup_for_every_goal_turns_the_board(db):
    rng = random.Random(5)
    reference = naive.star_distances(2)
    with tbdb.open(db) as tb:
        for cells, want in rng.sample(sorted(reference.items(), key=lambda kv: sorted(kv[0])), 60):
            goal = rng.randrange(6)
            turned = _turned(sorted(cells), goal)
            r = tb.lookup(_text(turned, goal))
            assert (r.outcome, r.distance) == ("win", want)
        for p in range(6):  # a piece on the tip opposite its goal: 13 moves
            tip = _turned([120], (p + 3) % 6)
            assert tb.lookup(_text(tip, p)).distance == 13


def test_lookup_moves_best_move_and_line(db):
    with tbdb.open(db) as tb:
        text = _text([0, 1, 2], 3)
        r = tb.lookup(text)
        d = r.distance
        assert r.outcome == "win" and d > 0 and r.position == text
        assert r.moves[0].move == r.best_move and r.moves[0].distance == d
        assert all(m.outcome == "win" and m.distance in (d, d + 1, d + 2) for m in r.moves)
        assert sorted(m.distance for m in r.moves) == [m.distance for m in r.moves]
        after = tb.lookup(Placement.parse(text).push(r.best_move))
        assert after.distance == d - 1
        line = r.line()
        assert len(line) == d and [s.distance for s in line] == list(range(d - 1, -1, -1))
        assert set(Placement.parse(line[-1].position).pieces) <= set(POINTS[3])
        assert tb.lookup(_text(sorted(POINTS[3])[:3], 3)).best_move is None


def test_cli_lookup_and_bad_placements(db, capsys):
    before = _digest(db)
    text = _text([TOP_TIP], 3)
    assert main(["lookup", GAME, text, "--db", db]) == 0
    out = capsys.readouterr().out
    assert "win in 13 plies" in out and "best move: 0-1" in out
    for bad, quoted in ((text.replace(" 3", " 7"), "goal point"),
                        (text.replace("star-distance-1", "star-distance-2"), "head says 2"),
                        (_text([0, 1, 2, 3, 4, 5], 3), "1 to 5 pieces")):
        assert main(["lookup", GAME, bad, "--db", db]) == 2
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and quoted in err and "Traceback" not in err
    with tbdb.open(db) as tb, pytest.raises(MissingTableError, match="--distance 4"):
        tb.lookup(_text([0, 1, 2, 3], 3))
    assert _digest(db) == before


def test_build_options(tmp_path, capsys):
    path = str(tmp_path / "x.duckdb")
    for args, quoted in ((["--distance", "6"], "not 6"), (["--board", "5"], "--distance"),
                         (["--distance", "0"], "not 0")):
        assert main(["build", GAME, *args, "--db", path]) == 2
        err = capsys.readouterr().err
        assert quoted in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "x.duckdb").exists()


def test_catalogue_and_verify(db):
    with tbdb.open(db) as tb:
        rows = tb.sql("SELECT table_name, raw_positions, canonical_rows, positions_answered "
                      "FROM symmetry_stats WHERE table_name LIKE 'star-distance-%' "
                      "ORDER BY 1").fetchall()
    assert rows == [(f"star-distance-{k}", comb(121, k), comb(121, k), 6 * comb(121, k))
                    for k in (1, 2, 3)]
    report = tbdb.verify(db, GAME, progress=False)
    assert report.ok and report.checked == 3


def test_check_finds_a_wrong_entry():
    table = DistanceTable(2)
    dist = table.build()
    assert not table.check(dist).any()
    far = table.rank([0, 1])
    for rank, value, code in ((far, 0, 1), (table.rank([111, 112]), 1, 1),
                              (far, dist[far] + 2, 2), (far, dist[far] - 1, 3)):
        wrong = dist.copy()
        wrong[rank] = value
        assert table.check(wrong)[rank] == code
    # a neighbour of the changed entry now sees it more than one move closer
    wrong = dist.copy()
    far = int(np.argmax(dist))
    wrong[far] = 1
    assert (table.check(wrong) == 2).any()


def test_cc_positions_holds_the_rhombus_tables_only(tmp_path):
    # beside distance tables, cc_positions once gave each placement a row with no position
    path = str(tmp_path / "both.duckdb")
    tbdb.build(GAME, db=path, distance=2, progress=False)
    tbdb.build(GAME, db=path, board=3, pieces=1, progress=False)
    with tbdb.open(path) as tb:
        rows = tb.sql("SELECT table_name, count(*), count(position) FROM cc_positions "
                      "GROUP BY table_name").fetchall()
        stored = tb.sql("SELECT stored_rows FROM cc_tables WHERE table_name = '3x3-1'"
                        ).fetchall()[0][0]
    assert rows == [("3x3-1", stored, stored)]
