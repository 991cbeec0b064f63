"""``tbdb serve`` as a drop-in for lichess's tablebase server (issue 64): ``/standard`` and
``/standard/mainline`` compared field by field with ``tbdb lookup --json``, their chess facts
(SAN, zeroing, conversion, mate, stalemate, insufficient material, the line's legality and its
mate) with python-chess, their categories with the real Syzygy files where CI fetched them,
lila-tablebase's error statuses, and a real client written for lichess (berserk) and curl against
a running server."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from urllib.parse import quote as urlquote

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")
chess = pytest.importorskip("chess")

from starlette.testclient import TestClient  # noqa: E402

import tbdb  # noqa: E402
from tbdb.cli.run import main  # noqa: E402
from tbdb.web.app import create_app  # noqa: E402

# KPvK (the example build, with the tables its promotions reach): wins, draws, a promotion, a
# capture, a mate, a stalemate, en passant-free; lichess's own example has KPvKP, not built here
POSITIONS = [
    "4k3/8/4K3/4P3/8/8/8/8 w - - 0 1",      # a win in 21 plies
    "4k3/8/8/4PK2/8/8/8/8 b - - 1 1",       # drawn
    "8/4P3/8/8/8/8/k7/4K3 w - - 0 1",       # promotes
    "3k4/3P4/3K4/8/8/8/8/8 b - - 0 1",      # stalemate
    "4k3/4Q3/4K3/8/8/8/8/8 b - - 0 1",      # checkmate
    "8/8/8/8/8/2k5/1P6/K7 b - - 0 1",       # the king may take the pawn
    "7k/8/8/8/8/8/8/K6N w - - 0 1",         # insufficient material
]


@pytest.fixture(scope="module")
def client(every_game_db):
    with TestClient(create_app(every_game_db)) as c:
        yield c


@pytest.fixture(scope="module")
def tb(every_game_db):
    with tbdb.open(every_game_db) as t:
        yield t


def _url(path, fen):
    return f"{path}?fen={urlquote(fen.replace(' ', '_'))}"


@pytest.mark.parametrize("fen", POSITIONS)
def test_standard_is_lookup_json_in_lichess_fields(fen, client, tb):
    got = client.get(_url("/standard", fen))
    assert got.status_code == 200, got.text
    answer = got.json()
    r = tb.lookup(fen, game="chess").to_dict()
    assert {k: answer[k] for k in ("category", "dtm", "checkmate", "stalemate",
                                   "insufficient_material")} == \
        {k: r[k] for k in ("category", "dtm", "checkmate", "stalemate", "insufficient_material")}
    assert answer["dtm"] == {"win": r["distance"], "loss": -r["distance"], "draw": 0}[
        r["outcome"]]
    for k in ("dtz", "precise_dtz", "dtw", "dtc"):
        assert answer[k] is None
    assert not answer["variant_win"] and not answer["variant_loss"]
    # every legal move, best first, in tbdb's order, each with the value after it
    assert [m["uci"] for m in answer["moves"]] == [m["move"] for m in r["moves"]]
    for m, mine in zip(answer["moves"], r["moves"]):
        after = {"win": "loss", "loss": "win", "draw": "draw"}[mine["outcome"]]
        assert m["category"] == after, (fen, m)
        # the mover's win in d plies is the other side's loss in d - 1
        assert m["dtm"] == {"win": 1 - mine["distance"], "loss": mine["distance"] - 1,
                            "draw": 0}[mine["outcome"]], (fen, m)
        assert set(m) == {"uci", "san", "zeroing", "conversion", "checkmate", "stalemate",
                          "variant_win", "variant_loss", "insufficient_material", "dtz",
                          "precise_dtz", "dtm", "dtw", "dtc", "category"}


def test_standard_is_what_the_command_line_prints(client, every_game_db, capsys):
    fen = POSITIONS[0]
    assert main(["lookup", "chess", fen, "--json", "--db", every_game_db]) == 0
    printed = json.loads(capsys.readouterr().out)
    answer = client.get(_url("/standard", fen)).json()
    assert answer["dtm"] == printed["dtm"] and answer["category"] == printed["category"]
    assert [(m["uci"], m["san"], m["dtm"], m["category"]) for m in answer["moves"]] == \
        [(m["uci"], m["san"], m["dtm"], m["category"]) for m in printed["moves"]]


@pytest.mark.parametrize("fen", POSITIONS)
def test_standard_agrees_with_python_chess(fen, client):
    answer = client.get(_url("/standard", fen)).json()
    board = chess.Board(fen)
    assert answer["checkmate"] == board.is_checkmate()
    assert answer["stalemate"] == board.is_stalemate()
    assert answer["insufficient_material"] == board.is_insufficient_material()
    assert sorted(m["uci"] for m in answer["moves"]) == sorted(m.uci() for m in board.legal_moves)
    for m in answer["moves"]:
        move = chess.Move.from_uci(m["uci"])
        assert m["san"] == board.san(move)
        assert m["zeroing"] == board.is_zeroing(move)
        assert m["conversion"] == (board.is_capture(move) or move.promotion is not None)
        after = board.copy()
        after.push(move)
        assert m["checkmate"] == after.is_checkmate() and m["stalemate"] == after.is_stalemate()
        if m["checkmate"]:
            assert m["category"] == "loss" and m["dtm"] == 0


def test_categories_agree_with_the_syzygy_files(client):
    """KPvK's category from the web API against Syzygy's WDL (no cursed results in KPvK) on
    positions of every kind, where the real files are there (CI fetches them)."""
    directory = os.environ.get("TBDB_SYZYGY_DIR")
    if not directory or not os.path.exists(os.path.join(directory, "KPvK.rtbw")):
        pytest.skip("no Syzygy files (set TBDB_SYZYGY_DIR: python tests/fetch_syzygy.py DIR)")
    import chess.syzygy
    import random
    rng = random.Random(64)
    seen = 0
    with chess.syzygy.open_tablebase(directory) as tables:
        while seen < 60:
            squares = rng.sample(range(64), 3)
            board = chess.Board(None)
            board.set_piece_at(squares[0], chess.Piece(chess.KING, chess.WHITE))
            board.set_piece_at(squares[1], chess.Piece(chess.KING, chess.BLACK))
            board.set_piece_at(squares[2], chess.Piece(chess.PAWN, rng.random() < 0.5))
            board.turn = rng.random() < 0.5
            if not board.is_valid():
                continue
            seen += 1
            wdl = tables.probe_wdl(board)
            answer = client.get(_url("/standard", board.fen())).json()
            assert answer["category"] == {2: "win", 0: "draw", -2: "loss"}[wdl], board.fen()


@pytest.mark.parametrize("fen", [POSITIONS[0], POSITIONS[2], "4k3/8/3K4/4P3/8/8/8/8 b - - 0 1",
                                 POSITIONS[1]])
def test_mainline_plays_to_the_mate_in_dtm_plies(fen, client, tb):
    answer = client.get(_url("/standard/mainline", fen)).json()
    r = tb.lookup(fen, game="chess")
    board = chess.Board(fen)
    if r.outcome == "draw":
        assert answer["mainline"] == [] and answer["winner"] is None
        return
    assert len(answer["mainline"]) == r.distance == abs(answer["dtm"])
    for i, step in enumerate(answer["mainline"]):
        move = chess.Move.from_uci(step["uci"])
        assert move in board.legal_moves and step["san"] == board.san(move)
        board.push(move)
        assert abs(step["dtm"]) == r.distance - i - 1 and step["dtz"] is None
    assert board.is_checkmate()
    assert answer["winner"] == ("w" if board.turn == chess.BLACK else "b")


def test_mainline_of_a_mate_and_a_draw(client):
    mate = client.get(_url("/standard/mainline", POSITIONS[4])).json()
    assert mate == {"mainline": [], "winner": "w", "dtz": None, "precise_dtz": None, "dtm": 0}
    drawn = client.get(_url("/standard/mainline", POSITIONS[1])).json()
    assert drawn["mainline"] == [] and drawn["winner"] is None


def test_lichess_leniency_on_castling_and_en_passant(client):
    """lichess drops castling rights whose king or rook has left home and an en passant square
    no pawn just passed, and answers; a right that could still be used is not in any table."""
    plain = client.get(_url("/standard", POSITIONS[0])).json()
    assert client.get(_url("/standard", "4k3/8/4K3/4P3/8/8/8/8 w KQkq e3 0 1")).json() == plain
    assert client.get("/standard?fen=4k3/8/4K3/4P3/8/8/8/8%20w%20-%20-%200%201").json() == plain
    usable = client.get(_url("/standard", "4k3/8/8/8/8/8/8/4K2R w K - 0 1"))
    assert usable.status_code == 404 and "'K'" in usable.json()["error"]


@pytest.mark.parametrize("url, status, quoted", [
    ("/standard", 400, "fen="),
    ("/standard?fen=", 400, "fen="),
    ("/standard?fen=4k3/8/4K3/4P3/8/8/8/8_x", 400, "'4k3/8/4K3/4P3/8/8/8/8 x'"),
    ("/standard?fen=4k3/8/4K3/4P3/8/8/8/8_w_-_e9", 400, "'e9'"),
    ("/standard?fen=4k3/8/4K3/4PP2/8/8/8/8_w_-_-_0_1", 404, "'KPPvK'"),
    ("/standard/mainline?fen=4k3/8/4K3/4PP2/8/8/8/8_w_-_-_0_1", 404, "'KPPvK'"),
    ("/atomic?fen=4k3/8/4K3/4P3/8/8/8/8_w_-_-_0_1", 404, "'atomic'"),
    ("/antichess/mainline?fen=4k3/8/4K3/4P3/8/8/8/8_w_-_-_0_1", 404, "'antichess'"),
])
def test_errors_are_lichess_statuses_with_one_quoting_line(url, status, quoted, client):
    got = client.get(url)
    assert got.status_code == status, got.text
    error = got.json()["error"]
    assert quoted in error and "\n" not in error and "Traceback" not in error


def test_berserk_and_curl_against_a_running_server(every_game_db, client):
    berserk = pytest.importorskip("berserk")
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "tbdb.cli.run", "serve", "--db",
                             every_game_db, "--port", str(port)], stdout=subprocess.PIPE,
                            text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        line = proc.stdout.readline()
        while f"{base}/" not in line:
            assert line, "tbdb serve ended before its banner"
            line = proc.stdout.readline()
        lichess = berserk.Client(tablebase_url=base)
        for _ in range(100):  # the port is bound before the banner; uvicorn accepts soon after
            try:
                answer = lichess.tablebase.standard(POSITIONS[0])
                break
            except berserk.exceptions.ResponseError:
                raise
            except berserk.exceptions.ApiError as exc:  # not accepting yet
                error = exc
                time.sleep(0.1)
        else:
            pytest.fail(f"tbdb serve did not answer: {error}")
        assert answer == client.get(_url("/standard", POSITIONS[0])).json()
        assert answer["category"] == "win" and answer["moves"][0]["san"] == "Kd6"
        with pytest.raises(berserk.exceptions.ResponseError) as missing:
            lichess.tablebase.standard("4k3/8/4K3/4PP2/8/8/8/8 w - - 0 1")
        assert missing.value.status_code == 404
        if shutil.which("curl") is None:
            return  # no curl on this machine: berserk's requests spoke HTTP already
        out = subprocess.run(["curl", "-s", "-w", "\\n%{http_code}",
                              f"{base}/standard/mainline?fen=4k3/8/4K3/4P3/8/8/8/8_w_-_-_0_1"],
                             capture_output=True, text=True, timeout=30)
        body, code = out.stdout.rsplit("\n", 1)
        assert code == "200" and json.loads(body)["winner"] == "w"
    finally:
        proc.terminate()
        proc.wait(10)
