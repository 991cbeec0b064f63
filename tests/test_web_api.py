"""The JSON API of ``tbdb serve`` against the Python API and the rules (``g.play``), for every
registered game, and every error case; the explorer's find (/api/GAME/find: each position has
the property its link advertises, checked against the stored rows in SQL and the rules) and
play (/api/GAME/game: each move judged against the Python API's values) endpoints, and
``tbdb serve``'s preparation."""
from __future__ import annotations

import json
from urllib.parse import quote as urlquote

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from starlette.testclient import TestClient  # noqa: E402

import tbdb  # noqa: E402
from tbdb import games  # noqa: E402
from tbdb.cli.run import main  # noqa: E402
from tbdb.storage import storage_of  # noqa: E402
from tbdb.web.app import create_app  # noqa: E402
from tbdb.web.find import KINDS  # noqa: E402
from tbdb.web.play import mistake  # noqa: E402

NAMES = games.names()


@pytest.fixture(scope="module")
def db(every_game_db):
    return every_game_db


@pytest.fixture(scope="module")
def client(db):
    with TestClient(create_app(db)) as c:
        yield c


@pytest.fixture(scope="module")
def samples(client):
    return {g["name"]: g["samples"] for g in client.get("/api/games").json()}


def _positions(g, tb, samples, n=6):
    """The served samples and positions along their lines and moves, as the Python API
    gives them."""
    out = []
    for text in samples[g.name]:
        r = tb.lookup(text, game=g.name)
        out += [text] + [m.position for m in r.moves[:n]] + [s.position for s in r.line()[:n]]
    return list(dict.fromkeys(out))


def _url(game, text, **options):
    extra = "".join(f"&{k}={v}" for k, v in options.items())
    return f"/api/{game}?position={urlquote(text)}{extra}"


@pytest.mark.parametrize("name", NAMES)
def test_lookup_is_what_the_cli_prints(name, db, client, samples, capsys):
    g = games.get(name)
    with tbdb.open(db) as tb:
        positions = _positions(g, tb, samples)
    assert len(positions) > 1
    for text in positions[:10]:  # each CLI call opens the database: 0.5 s on a slow host
        got = client.get(_url(name, text))
        assert got.status_code == 200, got.text
        assert main(["lookup", name, text, "--db", db, "--json"]) == 0
        assert got.json() == json.loads(capsys.readouterr().out)
    padded = client.get(_url(name, positions[0] + "\n"))  # read as the CLI reads it
    assert padded.status_code == 200
    assert padded.json() == client.get(_url(name, positions[0])).json()


@pytest.mark.parametrize("name", NAMES)
def test_moves_best_first_and_positions_are_what_play_gives(name, db, client, samples):
    g = games.get(name)
    with tbdb.open(db) as tb:
        positions = _positions(g, tb, samples)
    seen_moves = 0
    for text in positions:
        body = client.get(_url(name, text)).json()
        assert body["game"] == name and body["position"] == text
        parsed = g.parse(text)
        legal = {s.move for s in g.successors(parsed)}
        assert {m["move"] for m in body["moves"]} == legal
        for m in body["moves"]:
            assert m["position"] == g.text(g.play(g.parse(text), m["move"])), m
        # best first, judged by the order a player uses, not by the server's sort key
        ranks = [_rank(m) for m in body["moves"]]
        assert ranks == sorted(ranks), body["moves"]
        if body["moves"]:
            assert body["best_move"] == body["moves"][0]["move"]
            assert _rank(body["moves"][0]) == _rank_of_position(body)
        seen_moves += len(body["moves"])
    assert seen_moves > 0


def _rank(m: dict) -> tuple:
    """A move's goodness for its player, smaller is better: a higher score; a win, shorter is
    better; a draw; a loss, longer is better."""
    if "score" in m:
        return (-m["score"],)
    if m["outcome"] == "win":
        return (0, m["distance"])
    if m["outcome"] == "draw":
        return (1, 0)
    return (2, -m["distance"])


def _rank_of_position(body: dict) -> tuple:
    """The value of the position as the value of its best move (a move's distance is one ply
    more than the child's, as the position's own distance is)."""
    return _rank(body)


@pytest.mark.parametrize("name", NAMES)
def test_line_follows_best_moves(name, client, samples):
    g = games.get(name)
    start = samples[name][0]
    body = client.get(f"/api/{name}/line?position={urlquote(start)}")
    assert body.status_code == 200, body.text
    line = body.json()["line"]
    assert line or here_is_over(client, name, start)
    position = g.parse(start)
    here = client.get(_url(name, start)).json()
    for step in line:
        assert step["move"] == here["best_move"]
        position = g.play(position, step["move"])
        assert step["position"] == g.text(position)
        here = client.get(_url(name, step["position"])).json()
        assert (step["outcome"], step.get("score")) == (here["outcome"], here.get("score"))


def here_is_over(client, name, text):
    return client.get(_url(name, text)).json()["best_move"] is None


def test_tables_are_draw_analysis(db, client):
    body = client.get("/api/tables").json()
    with tbdb.open(db) as tb:
        rows = tb.sql("SELECT game, table_name, positions, wins, draws, losses "
                      "FROM draw_analysis").fetchall()
    assert sorted((r["game"], r["table_name"], r["positions"], r["wins"], r["draws"], r["losses"])
                  for r in body) == sorted(rows)
    assert {r["game"] for r in body} == set(NAMES)
    for r in body:
        assert r["wins"] + r["draws"] + r["losses"] + r["illegal"] <= r["positions"] + r["illegal"]


def test_games_lists_every_game(client):
    body = client.get("/api/games").json()
    assert [g["name"] for g in body] == NAMES
    for g in body:
        assert g["tables"] > 0 and g["sample"] == games.get(g["name"]).sample
        assert g["samples"], g  # each game's example build has a win to show


def test_unknown_game_is_404(client):
    for url in ("/api/backgammon?position=x", "/api/backgammon/line?position=x"):
        got = client.get(url)
        assert got.status_code == 404
        assert "'backgammon'" in got.json()["error"] and "tictactoe" in got.json()["error"]


@pytest.mark.parametrize("name", NAMES)
def test_malformed_position_is_400_quoting_it(name, client):
    for text in ("not a position", "x" * 300):
        for path in (f"/api/{name}", f"/api/{name}/line", f"/api/{name}/diagram"):
            got = client.get(f"{path}?position={urlquote(text)}")
            assert got.status_code == 400, (path, text, got.text)
            assert repr(text[:20])[:-1] in got.json()["error"]


@pytest.mark.parametrize("name", NAMES)
def test_diagram_is_the_cli_picture_of_the_position(name, client):
    g = games.get(name)
    for text in (g.sample, " " + g.sample + "\n"):
        got = client.get(f"/api/{name}/diagram?position={urlquote(text)}")
        assert got.status_code == 200, got.text
        assert got.json() == {"game": name, "position": g.sample,
                              "diagram": g.diagram(g.parse(g.sample))}
    got = client.get(f"/api/{name}/diagram")
    assert got.status_code == 400 and "position" in got.json()["error"]


def test_missing_position_and_bad_options_are_400(client):
    got = client.get("/api/tictactoe")
    assert got.status_code == 400 and "position" in got.json()["error"]
    got = client.get("/api/tictactoe?position=x........&colour=red")
    assert got.status_code == 400 and "colour='red'" in got.json()["error"]


def test_bad_option_value_is_400_quoting_it(client):
    g = next((g for g in games.all_games() if any(o.type is int for o in g.lookup_options)),
             None)
    if g is None:
        pytest.skip("no game takes an integer lookup option")
    o = next(o for o in g.lookup_options if o.type is int)
    got = client.get(_url(g.name, g.sample, **{o.name: "lots"}))
    assert got.status_code == 400 and "'lots'" in got.json()["error"]


def test_position_outside_the_built_tables_is_404_with_the_build_command(client, db):
    # the example build is KCvP (and CvP): no table holds a general and a chariot
    text = "8/8/8/pKR5 r"
    with tbdb.open(db) as tb, pytest.raises(tbdb.MissingTableError):
        tb.lookup(text, game="cdc")
    got = client.get(_url("cdc", text))
    assert got.status_code == 404
    assert "tbdb build cdc" in got.json()["error"] and db in got.json()["error"]


def test_read_only_nothing_runs_sql_or_writes(db, client):
    before = open(db, "rb").read()
    for url in ("/api/sql?q=DROP%20TABLE%20tb_tables", "/api/tables", _url("tictactoe", "x" * 9),
                "/api/tables/tictactoe/all/histogram"):
        client.get(url)
    for method in (client.post, client.put, client.delete):
        assert method("/api/tictactoe?position=x........").status_code == 405
    assert client.get("/api/sql?q=1").status_code == 404
    assert open(db, "rb").read() == before


def test_static_page_and_modules_are_served(client):
    page = client.get("/")
    assert page.status_code == 200 and "<script type=\"module\"" in page.text
    for g in client.get("/api/games").json():
        if g["renderer"]:
            assert client.get(f"/static/boards/{g['name']}.js").status_code == 200
    assert client.get("/static/boards/text.js").status_code == 200
    assert client.get("/stats").status_code == 200


def test_serve_refuses_bad_input_in_one_line(tmp_path, capsys):
    missing = str(tmp_path / "none.duckdb")
    assert main(["serve", "--db", missing]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and repr(missing) in err
    assert not (tmp_path / "none.duckdb").exists()


def test_serve_prints_the_url_answers_and_leaves_the_file_unchanged(db):
    import socket
    import subprocess
    import sys
    import urllib.request
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    before = open(db, "rb").read()
    proc = subprocess.Popen([sys.executable, "-m", "tbdb.cli.run", "serve", "--db", db, "--port",
                             str(port)], stdout=subprocess.PIPE, text=True)
    try:
        # it prepares first (games, samples, each sample's lookup), saying so, then the URL
        lines = [proc.stdout.readline()]
        while f"http://127.0.0.1:{port}/" not in lines[-1]:
            assert lines[-1], lines  # the banner came before the output ended
            lines.append(proc.stdout.readline())
        assert "preparing" in lines[0] and any("prepared in" in x for x in lines), lines
        per_game = [x for x in lines if x.startswith("  ") and "looked up" in x]
        assert [x.split(":")[0].strip() for x in per_game] == games.names()
        for _ in range(100):  # the port is bound before the banner; uvicorn accepts soon after
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/tables", timeout=5) as r:
                    assert r.status == 200 and json.loads(r.read())
                break
            except OSError:
                import time
                time.sleep(0.1)
        else:
            pytest.fail("tbdb serve did not answer")
    finally:
        proc.terminate()
        proc.wait(10)
    assert open(db, "rb").read() == before


def _free_port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_serve_refuses_a_port_in_use_and_an_unknown_host_before_the_banner(db, capsys):
    import socket
    before = open(db, "rb").read()
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["serve", "--db", db, "--port", str(port)]) == 2
        out, err = capsys.readouterr()
        assert out == "" and err.count("\n") == 1 and "Traceback" not in err, err
        assert "'127.0.0.1'" in err and str(port) in err and "in use" in err, err
    assert main(["serve", "--db", db, "--host", "no-such-host.invalid"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "'no-such-host.invalid'" in err, err
    assert open(db, "rb").read() == before


@pytest.mark.parametrize("host, warned", [("127.0.0.1", False), ("localhost", False),
                                          ("0.0.0.0", True)])
def test_serve_hands_uvicorn_its_bound_sockets_and_warns_off_loopback(host, warned, db,
                                                                      monkeypatch, capsys):
    import uvicorn
    served = []

    def run(server, sockets=None):  # instead of serving forever: what uvicorn was given
        served.extend((s.getsockname()[1], s.fileno() >= 0) for s in sockets)
    monkeypatch.setattr(uvicorn.Server, "run", run)
    port = _free_port()
    assert main(["serve", "--db", db, "--host", host, "--port", str(port)]) == 0
    out, err = capsys.readouterr()
    assert served and all(p == port and open_ for p, open_ in served), served
    assert f"http://{host}:{port}/" in out
    if warned:
        assert err.count("\n") == 1 and repr(host) in err and "no authentication" in err, err
    else:
        assert err == ""


# ------------------------------------------------------------------ the tables' histograms

def _histogram(client, game, table):
    return client.get(f"/api/tables/{game}/{urlquote(table, safe='')}/histogram")


def _every_tictactoe_position():
    """Every position a game of tic-tac-toe can reach, by playing every move from the empty
    board (5,478 of them)."""
    g = games.get("tictactoe")
    seen, todo = set(), [g.parse(".........")]
    while todo:
        p = todo.pop()
        if g.text(p) in seen:
            continue
        seen.add(g.text(p))
        todo += [s.position for s in g.successors(p)]
    return seen


def test_histogram_counts_every_position_by_its_lookup(client, db):
    # reference: every tic-tac-toe position looked up one by one through the symmetries
    from collections import Counter
    positions = _every_tictactoe_position()
    assert len(positions) == 5478
    with tbdb.open(db) as tb:
        want = Counter((r.outcome, r.distance) for r in
                       (tb.lookup(p, game="tictactoe") for p in positions))
    got = _histogram(client, "tictactoe", "all")
    assert got.status_code == 200, got.text
    body = got.json()
    assert body["kind"] == "distance" and body["sample"] is None
    assert {(b["outcome"], b["distance"]): b["positions"] for b in body["bins"]} == dict(want)
    assert body["positions"] == 5478 and body["rows"] == sum(b["rows"] for b in body["bins"])


def test_score_histogram_counts_every_oware_position_by_its_lookup(client, db):
    # every way to put 2 seeds in 12 houses, looked up with the most plies left
    from collections import Counter
    from itertools import combinations_with_replacement
    positions = []
    for houses in combinations_with_replacement(range(12), 2):
        seeds = [0] * 12
        for h in houses:
            seeds[h] += 1
        positions.append(" ".join(map(str, seeds)))
    with tbdb.open(db) as tb:
        want = Counter(tb.lookup(p, game="oware").score for p in positions)
    body = _histogram(client, "oware", "seeds-02").json()
    assert body["kind"] == "score" and body["positions"] == len(positions) == 78
    assert {b["score"]: b["positions"] for b in body["bins"]} == dict(want)


@pytest.mark.parametrize("name", ["shogi", "uttt", "chinese-checkers"])
def test_histogram_agrees_with_draw_analysis(name, client, db):
    """Wins, draws and losses per table as draw_analysis counts them (summed over its rows),
    and the longest win; uttt's table name holds '/', which the URL carries encoded."""
    with tbdb.open(db) as tb:
        rows = tb.sql("SELECT table_name, sum(wins), sum(draws), sum(losses), max(longest_win) "
                      "FROM draw_analysis WHERE game = ? GROUP BY table_name",
                      params=[name]).fetchall()
    assert rows
    for table, wins, draws, losses, longest in rows:
        body = _histogram(client, name, table).json()
        assert body["table"] == table and body["kind"] == "distance"
        total = {o: sum(b["positions"] for b in body["bins"] if b["outcome"] == o)
                 for o in ("win", "draw", "loss")}
        # shogi's rows count each side's view once; the histogram counts the rows' positions
        factor = total["win"] / wins if wins else 1
        assert factor in (1, 2), (table, total, wins)
        assert (total["win"], total["draw"], total["loss"]) == \
            (wins * factor, draws * factor, losses * factor)
        assert max(b["distance"] for b in body["bins"] if b["outcome"] == "win") == longest


def test_histogram_of_a_big_table_is_sampled_and_scaled(db):
    from tbdb.web.histogram import histogram
    with tbdb.open(db) as tb:
        exact = histogram(tb, "shogi", "KGK")
        sampled = histogram(tb, "shogi", "KGK", cap=100_000, sample_rows=50_000)
        (stored,), = tb.sql("SELECT count(*) FROM tb_index_values JOIN tb_tables USING "
                            "(table_id) WHERE game = 'shogi' AND table_name = 'KGK'").fetchall()
    rows = exact.to_dict()["rows"]
    assert exact.sample is None and rows > 400_000
    # about 50,000 of the stored rows (illegal ones included) in 16 runs of slots
    assert sampled.sample == pytest.approx(50_000 / stored, rel=0.1)
    # runs of slots are not a uniform sample: the estimate is rough, not exact
    est = {b.outcome: b.positions for b in sampled.bins}
    for outcome in ("win", "loss"):
        real = sum(b.positions for b in exact.bins if b.outcome == outcome)
        assert 0.6 * real < sum(b.positions for b in sampled.bins if b.outcome == outcome) \
            < 1.4 * real, (outcome, est)
    assert {(b.outcome, b.distance) for b in sampled.bins} <= \
        {(b.outcome, b.distance) for b in exact.bins}


def test_histogram_errors(client):
    got = _histogram(client, "shogi", "KRRK")
    assert got.status_code == 404
    assert "'KRRK'" in got.json()["error"] and "KGK" in got.json()["error"]
    got = _histogram(client, "backgammon", "KQK")
    assert got.status_code == 404 and "'backgammon'" in got.json()["error"]
    assert client.get("/api/tables/shogi/histogram").status_code == 404
    assert client.post("/api/tables/shogi/KGK/histogram").status_code == 405


# ------------------------------------------------------------------ find positions, play
# (here, not in a file of their own: they share this file's example build under --dist loadfile)
@pytest.fixture(scope="module")
def tb(db):
    with tbdb.open(db) as t:
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


def test_prepare_loads_what_the_first_lookups_need(db):
    app = create_app(db)
    explorer = app.state.explorer
    said = []
    explorer.prepare(said.append)
    assert [line.split(":")[0] for line in said[1:]] == NAMES
    # each game's first sample's table is in memory now; the games list is kept
    assert explorer.tb.stats().tables_loaded >= len(NAMES)
    assert explorer.games() is explorer.games()
    explorer.close()


@pytest.mark.parametrize("name", NAMES)
def test_start_is_the_game_modules_start(name, client):
    g = games.get(name)
    got = client.get(f"/api/{name}/start")
    try:
        want = g.text(g.start())
    except NotImplementedError:
        assert got.status_code == 404 and name in got.json()["error"]
        return
    assert got.status_code == 200 and got.json()["position"] == want


def test_start_takes_the_perft_options(client):
    g = games.get("chinese-checkers")
    got = client.get("/api/chinese-checkers/start", params={"board": "5", "pieces": "3"})
    assert got.json()["position"] == g.text(g.start(board="5", pieces=3))
    bad = client.get("/api/chinese-checkers/start", params={"board": "10"})
    assert bad.status_code == 400 and "'10'" in bad.json()["error"]
    extra = client.get("/api/tictactoe/start", params={"board": "1"})
    assert extra.status_code == 400 and "board='1'" in extra.json()["error"]
