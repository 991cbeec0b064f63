"""The small stars' coalition tables through tbdb's own doors (issue 63): ``tbdb.build`` into a
database and into probe files, then ``tb.lookup`` for every lone player, compared position by
position with the slow reference ``naive_cc_star.py`` (values, distances, every move's value
and the best move), and the command line's answers and refusals."""
from __future__ import annotations

import json
from functools import lru_cache
import subprocess
import sys

import pytest

import tbdb
from tbdb.errors import InvalidOptionError, InvalidPositionError, MissingTableError
from tbdb.games.chinese_checkers.small_star import SmallStarPosition
from tbdb.solvers.chinese_checkers.geometry import STAR_SIZES
from tests import naive_cc_star as naive

GAME = "chinese-checkers"


@lru_cache(maxsize=None)
def _reachable_of(k: int, players: int) -> list:
    return naive.reachable(naive.Star(k, players), 1)


@lru_cache(maxsize=None)
def _values_of(k: int, players: int, lone: int) -> dict:
    ref = naive.Star(k, players)
    return naive.coalition_values(ref, _reachable_of(k, players), lone)


def _reachable(ref) -> list:
    """The reference's reachable positions of one marble each (computed once a file: the six
    players' take 5 s, their values 14 s a lone player)."""
    return _reachable_of(ref.k, ref.players)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """Databases of the 13-hole star with 3, 4 and 6 players of one marble, and probe files of
    the 3-player one."""
    root = tmp_path_factory.mktemp("stars")
    out = {}
    for players in (3, 4, 6):
        db = str(root / f"s{players}.duckdb")
        tbdb.build(GAME, db=db, progress=False, board="star13", players=players, pieces=1)
        out[players] = db
    for players in (3, 4, 6):
        out[f"files{players}"] = str(root / f"files{players}")
        tbdb.build(GAME, probe_files=out[f"files{players}"], progress=False, board="star13",
                   players=players, pieces=1)
    return out


def _text(holes: int, players: int, position) -> str:
    cells, mover = position
    return SmallStarPosition(holes, players, tuple(cells), mover).text


def _mover_value(value: tuple, mover: int, lone: int) -> tuple[str, int]:
    """The reference's value for the lone player as the mover's side's outcome."""
    v, d = value
    if v == 0:
        return "draw", 0
    ours = 1 if mover == lone else -1
    return ("win" if v == ours else "loss"), d


@pytest.mark.parametrize("players, lones, stride", [(3, (1, 2, 3), 1), (4, (1, 2, 3, 4), 1),
                                                    (6, (2,), 29)])
def test_every_lone_players_value_is_the_references_position_by_position(built, players,
                                                                         lones, stride):
    """(Six players: 253,914 reachable positions, the reference takes 14 s a lone player: lone
    player 2, on every 29th position and on every position whose mover must pass; the C test
    below asks every lone player.)"""
    ref = naive.Star(STAR_SIZES[13], players)
    positions = _reachable(ref)
    passes = [p for p in positions if naive.status(ref, *p) == "play" and
              not naive.moves(ref, *p)]
    assert bool(passes) == (players == 6)
    with tbdb.open(built[players]) as tb:
        for lone in lones:
            want = _values_of(ref.k, ref.players, lone)
            for position in positions[::stride] + passes:
                got = tb.lookup(_text(13, players, position), game=GAME, lone=lone)
                assert (got.outcome, got.distance) == _mover_value(want[position],
                                                                  position[1], lone), \
                    (got.position, lone)
                if position in passes:
                    assert [m.move for m in got.moves] == ["pass"]
                    assert got.best_move == "pass"


def test_every_move_and_the_best_move_say_what_they_lead_to(built):
    """Each listed move's value is the reference's value of the position it leads to, seen
    from the mover's side; the best move realises the position's own value."""
    ref = naive.Star(STAR_SIZES[13], 3)
    positions = _reachable(ref)
    with tbdb.open(built[3]) as tb:
        for lone in (1, 2, 3):
            want = _values_of(ref.k, ref.players, lone)
            for position in positions[::7]:
                got = tb.lookup(_text(13, 3, position), game=GAME, lone=lone)
                if got.distance == 0 and got.outcome != "draw":
                    assert got.best_move is None and not got.moves  # the game is over
                    continue
                for m in got.moves:
                    after = SmallStarPosition.parse(m.position)
                    child = (after.cells, after.mover)
                    outcome, d = _mover_value(want[child], position[1], lone)
                    assert (m.outcome, m.distance) == (outcome, d + (outcome != "draw")), \
                        (got.position, m.move)
                best = next(m for m in got.moves if m.move == got.best_move)
                assert (best.outcome, best.distance) == (got.outcome, got.distance)


@pytest.mark.parametrize("players", [3, 4])
def test_probe_files_answer_as_the_database_does(built, players):
    """Probe files against the database, every lone player; on the files a lookup with
    ``lone=`` is answered in C (a route per lone player), its moves as the Python path's."""
    from tbdb.probe_files import native
    ref = naive.Star(STAR_SIZES[13], players)
    with tbdb.open(built[players]) as db, tbdb.open(built[f"files{players}"]) as files:
        base = files.prober.store.native.base if native.available() else None
        for i, position in enumerate(_reachable(ref)[::7]):
            text = _text(13, players, position)
            for lone in (None,) + tuple(range(1, players + 1)):
                opts = {} if lone is None else {"lone": lone}
                before = base.answered if base else 0
                a, b = db.lookup(text, game=GAME, **opts), files.lookup(text, game=GAME, **opts)
                assert (a.outcome, a.distance, a.best_move) == \
                    (b.outcome, b.distance, b.best_move), (text, lone)
                if base and lone is not None:
                    assert base.answered == before + 1, (text, lone)  # in C, not Python
                if i % 10 == 0:
                    assert [m.to_dict() for m in a.moves] == [m.to_dict() for m in b.moves]
        # a lone player the star does not seat is Python's error, quoting it
        with pytest.raises(ValueError, match=str(players + 1)):
            files.lookup(_text(13, players, _reachable(ref)[0]), game=GAME, lone=players + 1)


def test_a_finished_game_is_won_by_the_winners_side_and_a_foreign_point_refused(built):
    """Player 1 has just filled its goal (the bottom cell): lost for player 2 when either is
    the lone player, won for 2 (game over) when 3 is."""
    with pytest.raises(InvalidPositionError, match="cannot arise"):
        SmallStarPosition.parse("star13-3 1/..../.../...2/3 1")  # 3 on 1's goal point
    with tbdb.open(built[3]) as tb:
        over = "star13-3 ./..../.../3..2/1 2"
        for lone, outcome in ((1, "loss"), (2, "loss"), (3, "win")):
            got = tb.lookup(over, game=GAME, lone=lone)
            assert (got.outcome, got.distance, got.best_move) == (outcome, 0, None)
        with pytest.raises(InvalidPositionError, match="cannot arise"):
            tb.lookup("star13-3 ./..../.../3..2/1 3", game=GAME)  # 1 won before 2 moved


def test_the_command_line_shows_every_lone_player_and_refuses_bad_input(built):
    start = "star13-3 1/..../.../3..2/. 1"
    run = [sys.executable, "-m", "tbdb.cli.run", "lookup", GAME]
    out = subprocess.run(run + [start, "--db", built[3]], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    for lone in (1, 2, 3):
        assert f"lone player {lone} against" in out.stdout
    js = json.loads(subprocess.run(run + [start, "--db", built[3], "--json"],
                                   capture_output=True, text=True).stdout)
    assert [p["lone"] for p in js["perspectives"]] == [1, 2, 3]
    assert js["outcome"] == js["perspectives"][0]["outcome"]
    # from the start no lone player forces its own win; the others force each one to lose
    assert js["summary"] == {"own_win": [], "forced_loss": [1, 2, 3]}
    assert "forced loss: 1, 2, 3" in out.stdout
    for bad, says in ((["--lone", "4"], "no lone player 4"),
                      (["--lone", "x"], "--lone must be")):
        got = subprocess.run(run + [start, "--db", built[3]] + bad, capture_output=True,
                             text=True)
        assert got.returncode == 2 and says in got.stderr and "Traceback" not in got.stderr
    got = subprocess.run(run + ["star37-3 ./../......./....../...../....../......./../1 1",
                                "--db", built[3]], capture_output=True, text=True)
    assert got.returncode == 2 and "star37-3" in got.stderr


def test_builds_and_tables_outside_the_stars_are_refused():
    g = tbdb.games.get(GAME)
    with pytest.raises(InvalidOptionError, match="--players"):
        g.plan(board="star13", pieces=1)
    with pytest.raises(InvalidOptionError, match="star73"):
        g.plan(board="star73", players=3, pieces=1)
    with pytest.raises(InvalidOptionError, match="2 players"):
        g.plan(board=5, pieces=1, players=3)
    with pytest.raises(InvalidOptionError, match="lone players"):
        g.check_table("star13-3-1-lone2")
    assert g.plan(board="star13", players=4, pieces=1) == ["star13-4-1-lone1",
                                                           "star13-4-1-lone2"]


def test_a_missing_star_table_names_its_build(built):
    """A three-player position looked up in a file of the four-player star's tables."""
    with tbdb.open(built[4]) as tb, pytest.raises(MissingTableError,
                                                  match="--board star13 --players 3 --pieces 1"):
        tb.lookup("star13-3 1/..../.../3..2/. 1", game=GAME)


def test_the_sql_views_say_who_wins_as_the_reference_does(built):
    """``cc_star_positions`` rows (a sample) with their text from ``tb_position``: the winner
    is the reference's for the table's lone player; ``cc_star_coalitions`` counts every
    slot once."""
    ref = naive.Star(STAR_SIZES[13], 3)
    positions = _reachable(ref)
    want = _values_of(ref.k, ref.players, 1)
    by_text = {_text(13, 3, p): want[p] for p in positions}
    with tbdb.open(built[3]) as tb:
        rows = tb.sql("SELECT tb_position('chinese-checkers', table_name, idx), winner, "
                      "distance FROM cc_star_positions WHERE idx % 3 = 0").fetchall()
        checked = 0
        for text, winner, distance in rows:
            if text in by_text:
                v, d = by_text[text]
                assert (winner, distance) == ({1: "lone", -1: "coalition", 0: "neither"}[v],
                                              d), text
                checked += 1
        assert checked > 300
        got = tb.sql("SELECT positions + illegal, lone_wins + coalition_wins + draws "
                     "FROM cc_star_coalitions").fetchall()
        assert got == [(1662, 1245)]
        assert tb.sql("SELECT tb_position('chinese-checkers', 'star13-3-1-lone1', 1662)"
                      ).fetchall() == [(None,)]
        # draw_analysis: per player to move, the mover's side's wins and losses and the
        # longest of each, the reference's (every legal position is reachable here)
        got = tb.sql("SELECT side_to_move, wins, draws, losses, longest_win, longest_loss "
                     "FROM draw_analysis WHERE table_name = 'star13-3-1-lone1' "
                     "ORDER BY side_to_move").fetchall()
    rows = []
    for mover in (1, 2, 3):
        outs = [_mover_value(want[p], mover, 1) for p in positions if p[1] == mover]
        wins = [d for o, d in outs if o == "win"]
        losses = [d for o, d in outs if o == "loss"]
        rows.append((str(mover), len(wins), len(outs) - len(wins) - len(losses), len(losses),
                     max(wins), max(losses)))
    assert got == rows


@pytest.mark.parametrize("players, stride", [(3, 1), (4, 3), (6, 97)])
def test_the_c_prober_answers_every_lone_player_as_tbdb_does(built, players, stride):
    """libtbprobe (native/src/cc_star.c) on the probe files: the text parsed, the lone player
    set in ``constraint``, the value, distance and best move text equal ``tb.lookup``'s (a
    finished game's too: its winner's side's result at distance 0, from the table)."""
    from tests.native_lib import STATUS, Lib, compiler
    if compiler() is None:
        pytest.skip("no C compiler")
    import ctypes
    from tests.native_lib import Value
    lib = Lib()
    base = lib.open(built[f"files{players}"])
    ref = naive.Star(STAR_SIZES[13], players)
    outcome = {1: "win", 0: "draw", -1: "loss"}
    try:
        with tbdb.open(built[players]) as tb:
            for position in _reachable(ref)[::stride]:
                text = _text(13, players, position)
                for lone in range(1, players + 1):
                    pos = lib.parse(GAME, text)
                    assert lib.position_text(pos) == text
                    pos.constraint = lone
                    v = Value()
                    st = lib.lib.tb_probe_position(base.handle, ctypes.byref(pos), -1,
                                                   ctypes.byref(v))
                    want = tb.lookup(text, game=GAME, lone=lone)
                    assert st == 0, (text, lone, STATUS[st])  # a finished game: distance 0
                    move = lib.move_text(pos, v.move) if v.move >= 0 else None
                    assert (outcome[v.result], v.distance, move) == \
                        (want.outcome, want.distance, want.best_move), (text, lone)
    finally:
        base.close()


@pytest.mark.parametrize("players", [3, 4])
def test_lookup_arrays_is_lookup_row_by_row_for_every_lone_player(built, players):
    """The batch form (boards of 13 holes, movers, ``lone=``) gives each row what
    ``tb.lookup`` gives it: result, distance and the best move as a code on the row's own
    board (finished games included)."""
    g = tbdb.games.get(GAME)
    ref = naive.Star(STAR_SIZES[13], players)
    positions = [SmallStarPosition(13, players, tuple(c), m)
                 for c, m in _reachable(ref)[::2]]
    boards, movers = g.encode_batch(positions)
    with tbdb.open(built[players]) as tb:
        for lone in range(1, players + 1):
            result, distance, best = tb.lookup_arrays(GAME, boards, movers, lone=lone)
            for i in range(0, len(positions), 5):
                want = tb.lookup(positions[i], game=GAME, lone=lone)
                assert {1: "win", 0: "draw", -1: "loss"}[int(result[i])] == want.outcome
                assert int(distance[i]) == want.distance
                code = int(best[i])
                move = None if code < 0 else "pass" if code == 4096 else \
                    str(positions[i].move_of(code // 64, code % 64))
                assert move == want.best_move, (positions[i].text, lone)
        from tbdb.errors import InvalidArrayError
        bad = boards.copy()
        bad[0, bad[0] == 1] = 0  # player 1 without marbles
        with pytest.raises(InvalidArrayError, match="row 0"):
            tb.lookup_arrays(GAME, bad, movers)


def test_the_explorer_api_answers_each_lone_player_and_plays_on(built):
    """``tbdb serve``'s API with ``lone=``: the lookup is ``tb.lookup``'s; a game played from
    the start judges each move for that lone player; a bad lone player is a 400."""
    pytest.importorskip("starlette")
    pytest.importorskip("httpx")
    from urllib.parse import quote as urlquote
    from starlette.testclient import TestClient
    from tbdb.web.app import create_app
    start = "star13-3 1/..../.../3..2/. 1"
    with TestClient(create_app(built[3])) as client, tbdb.open(built[3]) as tb:
        for lone in (1, 2, 3):
            got = client.get(f"/api/{GAME}?position={urlquote(start)}&lone={lone}").json()
            want = tb.lookup(start, game=GAME, lone=lone).to_dict()
            assert got == want
        line = tb.lookup(start, game=GAME, lone=2).line()
        moves = ",".join(step.move for step in line[:4])
        game = client.get(f"/api/{GAME}/game?position={urlquote(start)}&moves={moves}"
                          f"&lone=2").json()
        assert game["current"]["position"] == line[3].position
        assert [step["mistake"] for step in game["steps"]] == [None] * 4  # best moves all
        bad = client.get(f"/api/{GAME}?position={urlquote(start)}&lone=5")
        assert bad.status_code == 400 and "lone" in bad.json()["error"]


@pytest.mark.parametrize("players", [3, 4])
def test_the_kingmaker_counts_are_the_references(built, players):
    """``cc_star_kingmakers``: per k, the positions where exactly k single players force their
    own win, and where exactly k are forced to lose by the others, counted from the
    reference's values of every lone player (every legal position of one marble each is
    reachable from the start)."""
    ref = naive.Star(STAR_SIZES[13], players)
    positions = _reachable(ref)
    values = [_values_of(ref.k, ref.players, lone) for lone in range(1, players + 1)]
    own = [0] * (players + 1)
    lost = [0] * (players + 1)
    for p in positions:
        if naive.status(ref, *p) == "illegal":
            continue
        got = [v[p][0] for v in values]
        own[got.count(1)] += 1
        lost[got.count(-1)] += 1
    with tbdb.open(built[players]) as tb:
        rows = tb.sql("SELECT k, own_winners, forced_losers FROM cc_star_kingmakers "
                      "ORDER BY k").fetchall()
        (legal,), = tb.sql("SELECT sum(positions) / ? FROM cc_star_coalitions",
                           [2 if players == 4 else 1]).fetchall()  # (two tables: 4)
    assert [r[1] for r in rows] == own and [r[2] for r in rows] == lost
    assert sum(own) == legal


@pytest.mark.parametrize("holes, players, stride", [(13, 6, 31), (37, 3, 7)])
def test_a_positions_moves_are_the_references_children(holes, players, stride):
    """``SmallStarPosition``'s moves (hop chains through any point, resting only on the centre
    and the mover's own points, the pass, none once the game is over) lead to exactly the
    reference's children, and each move's text plays back to its position."""
    ref = naive.Star(STAR_SIZES[holes], players)
    for cells, mover in _reachable(ref)[::stride]:
        pos = SmallStarPosition(holes, players, tuple(cells), mover)
        got = sorted((p.cells, p.mover) for p in (pos.after_pair(s, t) for s, t in pos.pairs))
        assert got == sorted(naive.children(ref, cells, mover)), pos.text
        for move in pos.legal_moves()[:3]:
            assert pos.push(str(move)) in [pos.after_pair(s, t) for s, t in pos.pairs]
