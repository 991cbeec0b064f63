"""The explorer's API for finding positions (/api/GAME/find) and playing against the tablebase
(/api/GAME/game), and ``tbdb serve``'s preparation, for every registered game: each position
found has the property its link advertises, checked against the stored rows in SQL and the
rules; each move of a game is judged against the values the Python API gives."""
from __future__ import annotations

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from starlette.testclient import TestClient  # noqa: E402

import tbdb  # noqa: E402
from tbdb import games  # noqa: E402
from tbdb.storage import storage_of  # noqa: E402
from tbdb.web.app import create_app  # noqa: E402
from tbdb.web.find import KINDS  # noqa: E402
from tbdb.web.play import mistake  # noqa: E402

NAMES = games.names()


@pytest.fixture(scope="module")
def client(every_game_db):
    with TestClient(create_app(every_game_db)) as c:
        yield c


@pytest.fixture(scope="module")
def tb(every_game_db):
    with tbdb.open(every_game_db) as t:
        yield t


def _stored(tb, g, table):
    """(outcome, distance or score) of every stored position of a table as SQL reads it, by
    table id; for score tables the value with the most plies left."""
    storage = storage_of(g)
    (tid,), = tb.sql("SELECT table_id FROM tb_tables WHERE game = ? AND table_name = ?",
                     params=[g.name, table]).fetchall()
    if storage.value_kind == "score":
        return tb.sql("SELECT score FROM tb_score_runs WHERE table_id = ? AND turns_left_to = ?",
                      params=[tid, storage.horizon(g)]).fetchall()
    return tb.sql(f"SELECT result, distance FROM {storage.values} WHERE table_id = ?",
                  params=[tid]).fetchall()


@pytest.mark.parametrize("name", NAMES)
def test_find_lists_the_tables_with_stored_rows(name, client, tb):
    g = games.get(name)
    body = client.get(f"/api/{name}/find").json()
    with_rows = [t for (t,) in tb.sql("SELECT table_name FROM tb_tables WHERE game = ? "
                                      "ORDER BY table_name", params=[name]).fetchall()
                 if _stored(tb, g, t)]
    assert body["tables"] == with_rows and with_rows
    assert [k["kind"] for k in body["kinds"]] == list(KINDS)


@pytest.mark.parametrize("name", NAMES)
def test_found_positions_have_the_advertised_property(name, client, tb):
    g = games.get(name)
    score = storage_of(g).value_kind == "score"
    seen = set()
    for table in client.get(f"/api/{name}/find").json()["tables"]:
        rows = _stored(tb, g, table)
        for kind in KINDS:
            got = client.get(f"/api/{name}/find", params={"table": table, "kind": kind,
                                                          "seed": 7})
            assert got.status_code == 200, got.text
            body = got.json()
            positions = body["positions"]
            for p in positions:
                r = tb.lookup(p["position"], game=name)  # each is what a lookup says
                assert r.to_dict(moves=False) == {k: v for k, v in p.items()
                                                  if k != "winning_move"}
                seen.add(kind)
            if kind == "longest-win":
                wins = [v[0] for v in rows if v[0] > 0] if score else \
                    [d for r_, d in rows if r_ == 1]
                if not wins:
                    assert positions == []
                    continue
                best = max(wins)
                first = positions[0]
                assert (first["score"] if score else first["distance"]) == best
                assert all(p["outcome"] == "win" for p in positions)
            elif kind == "longest-loss":
                losses = [v[0] for v in rows if v[0] < 0] if score else \
                    [d for r_, d in rows if r_ == -1]
                if not losses:
                    assert positions == []
                    continue
                first = positions[0]
                assert (first["score"] == min(losses)) if score else \
                    (first["distance"] == max(losses))
                assert all(p["outcome"] == "loss" for p in positions)
            elif kind == "draw":
                draws = [v for v in rows if (v[0] == 0)]
                assert bool(positions) == bool(draws)
                assert all(p["outcome"] == "draw" for p in positions)
                again = client.get(f"/api/{name}/find", params={"table": table, "kind": kind,
                                                                "seed": 7}).json()
                assert again == body  # a seed picks the same positions
            else:
                for p in positions:
                    # the rules' moves, each valued by its own lookup: exactly one wins
                    position = g.parse(p["position"])
                    winning = []
                    for s in g.successors(position):
                        child = tb.lookup(g.text(s.position), game=name, **s.options)
                        gained = s.gain + (-(child.extras.get("score") or 0) if score else 0)
                        wins = gained > 0 if score else child.outcome == "loss"
                        if wins:
                            winning.append(s.move)
                    assert winning == [p["winning_move"]], (p, winning)
    assert seen, "no table of the example build has a position of any kind"


def test_find_errors_quote_the_input(client):
    bad = client.get("/api/cdc/find", params={"table": "KCvP", "kind": "longest-draw"})
    assert bad.status_code == 400 and "'longest-draw'" in bad.json()["error"]
    missing = client.get("/api/cdc/find", params={"table": "KRvP", "kind": "draw"})
    assert missing.status_code == 404 and "'KRvP'" in missing.json()["error"]
    assert "KCvP" in missing.json()["error"]  # the tables there are
    seed = client.get("/api/cdc/find", params={"table": "KCvP", "kind": "draw", "seed": "x1"})
    assert seed.status_code == 400 and "'x1'" in seed.json()["error"]
    big = client.get("/api/cdc/find", params={"table": "KCvP", "kind": "draw", "seed": 2**40})
    assert big.status_code == 400 and str(2**40) in big.json()["error"]
    nokind = client.get("/api/cdc/find", params={"table": "KCvP"})
    assert nokind.status_code == 400 and "kind" in nokind.json()["error"]
    assert client.get("/api/nogame/find").status_code == 404


@pytest.mark.parametrize("name", NAMES)
def test_a_game_is_judged_move_by_move(name, client, tb):
    """From the first sample: the worst move, then best moves; each step's value is the lookup
    of the position reached and a move is marked exactly when it gives a value away."""
    g = games.get(name)
    start = client.get("/api/games").json()[NAMES.index(name)]["samples"][0]
    r = tb.lookup(start, game=name)
    if not r.moves:
        pytest.skip("the sample is a finished game")
    moves = [r.moves[-1].move]
    options = {}
    here = r.moves[-1].position
    for _ in range(3):
        if g.plies_option:
            options = {g.plies_option: r.extras[g.plies_option] - len(moves)}
        nxt = tb.lookup(here, game=name, **options)
        if not nxt.best_move:
            break
        moves.append(nxt.best_move)
        here = next(m.position for m in nxt.moves if m.move == nxt.best_move)
    got = client.get(f"/api/{name}/game", params={"position": start, "moves": ",".join(moves)})
    assert got.status_code == 200, got.text
    body = got.json()
    assert body["start"]["position"] == start and [s["move"] for s in body["steps"]] == moves
    position, options = start, {}
    for i, step in enumerate(body["steps"]):
        before = tb.lookup(position, game=name, **options).to_dict()
        entry = next(m for m in before["moves"] if m["move"] == step["move"])
        if g.plies_option:
            options = {g.plies_option: before[g.plies_option] - 1}
        after = tb.lookup(entry["position"], game=name, **options)
        assert step["position"] == after.position and step["outcome"] == after.outcome
        assert step["best_move"] == before["best_move"]
        worse = (entry["score"] < before["score"]) if before.get("score") is not None else \
            ["loss", "draw", "win"].index(entry["outcome"]) < \
            ["loss", "draw", "win"].index(before["outcome"])
        assert bool(step["mistake"]) == worse, (i, step, before["outcome"])
        if i > 0:
            assert step["mistake"] is None  # best moves keep the value
        position = after.position
    assert body["current"]["position"] == position


def test_mistakes_are_named():
    assert mistake({"outcome": "win"}, {"outcome": "draw"}) == \
        "throws the win away (now a draw)"
    assert mistake({"outcome": "draw"}, {"outcome": "loss"}) == \
        "throws the draw away (now a loss)"
    assert mistake({"outcome": "win"}, {"outcome": "win"}) is None
    assert mistake({"score": 3}, {"score": 1}) == "gives away 2 seeds"
    assert mistake({"score": -1}, {"score": -1}) is None


def test_game_errors(client):
    bad = client.get("/api/cdc/game", params={"position": "8/8/8/pKC5 r", "moves": "c1-c2,h4-h3"})
    assert bad.status_code == 400 and "move 2" in bad.json()["error"] and \
        "'h4-h3'" in bad.json()["error"]
    empty = client.get("/api/cdc/game", params={"position": "8/8/8/pKC5 r", "moves": "c1-c2,,"})
    assert empty.status_code == 400 and "'c1-c2,,'" in empty.json()["error"]
    missing = client.get("/api/cdc/game", params={"position": "8/8/8/pKCG4 r"})
    assert missing.status_code == 404
    assert "tbdb build cdc --material KGCvP" in missing.json()["error"]
    refused = client.get("/api/tictactoe/game", params={"position": "xx......."})
    assert refused.status_code == 400 and "'xx.......'" in refused.json()["error"]
    assert client.get("/api/cdc/game").status_code == 400


def test_prepare_loads_what_the_first_lookups_need(every_game_db):
    app = create_app(every_game_db)
    explorer = app.state.explorer
    said = []
    explorer.prepare(said.append)
    assert [line.split(":")[0] for line in said[1:]] == NAMES
    # each game's first sample's table is in memory now; the games list is kept
    assert explorer.tb.stats().tables_loaded >= len(NAMES)
    assert explorer.games() is explorer.games()
    explorer.close()
