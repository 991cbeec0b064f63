"""``tbdb uci`` driven by python-chess's engine client (``chess.engine``), as a GUI would."""
import io
import sys

import chess
import chess.engine
import pytest

import tbdb
from tbdb.protocols.uci import UciEngine


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("chess_uci") / "tb.duckdb"
    tbdb.build("chess", db=str(path), material="KRvK", progress=False)
    return str(path)


def test_python_chess_plays_a_mate_against_tbdb(db):
    board = chess.Board("8/8/8/4k3/8/8/8/KR6 w - - 0 1")  # KRvK: mate in 16 at most
    with chess.engine.SimpleEngine.popen_uci([sys.executable, "-m", "tbdb.cli.run", "uci",
                                              "--db", db]) as engine:
        assert engine.id["name"].startswith("tbdb")
        info = engine.analyse(board, chess.engine.Limit(depth=1))
        first = info["score"].white()
        assert first.is_mate() and 0 < first.mate() <= 16
        with tbdb.open(db) as tb:
            assert first.mate() == (tb.lookup(board).distance + 1) // 2
        moves = 0
        while not board.is_game_over():
            result = engine.play(board, chess.engine.Limit(time=1))
            board.push(result.move)
            moves += 1
        assert board.is_checkmate() and board.turn == chess.BLACK
        assert (moves + 1) // 2 == first.mate()  # both sides played the stored best moves


def test_the_losing_side_and_unknown_positions():
    out = io.StringIO()
    engine = UciEngine(None, out)
    for line in ["uci", "position fen 8/8/8/8/8/8/8/K6k w - - 0 1", "go",
                 "position startpos", "go", "position fen nonsense", "go", "bogus"]:
        engine.handle(line)
    text = out.getvalue()
    assert "uciok" in text and text.count("bestmove 0000") == 3
    assert "'bogus'" in text and "'position fen nonsense'" in text


def test_mated_side_scores(db):
    out = io.StringIO()
    engine = UciEngine(db, out)
    engine.handle("position fen 8/8/8/2k5/8/8/1R6/4K3 b - - 0 1")
    engine.handle("go infinite")
    assert "bestmove" not in out.getvalue()
    engine.handle("stop")
    lines = out.getvalue().splitlines()
    assert "score mate -" in lines[0] and lines[-1].startswith("bestmove ")
    engine.close()
