"""Debian's Stockfish as an independent engine (slow): on random positions of 4-piece tables
where tbdb says "win in d plies" (d <= 15), Stockfish's mate search finds mate in (d + 1) / 2
moves; where tbdb says "loss in d plies", Stockfish sees itself mated in d / 2; where tbdb says
draw, Stockfish finds no mate at a fixed depth.  Skipped without a ``stockfish`` binary
(``.ci/run`` installs Debian's package)."""
import random
import shutil

import chess
import chess.engine
import pytest

import tbdb
from tbdb import games

STOCKFISH = shutil.which("stockfish") or shutil.which("stockfish", path="/usr/games")
TABLES = ["KQvKR", "KRvKN", "KBNvK", "KQvKP"]

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(STOCKFISH is None, reason="no stockfish binary")]


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("chess_stockfish") / "tb.duckdb")
    for material in TABLES:
        tbdb.build("chess", db=path, material=material, progress=False)
    return path


def _sample(tb, table: str, where: str, n: int, seed: int) -> list[str]:
    g = games.get("chess")
    rows = tb.sql("SELECT v.idx FROM tb_index_values v JOIN tb_tables t USING (table_id) "
                  f"WHERE t.game = 'chess' AND t.table_name = $t AND {where} "
                  "ORDER BY hash(v.idx, $seed) LIMIT $n",
                  params={"t": table, "seed": seed, "n": n}).fetchall()
    return [g.slot_text(table, idx) for idx, in rows]


@pytest.mark.parametrize("table", TABLES)
def test_stockfish_agrees(db, table):
    with tbdb.open(db) as tb, chess.engine.SimpleEngine.popen_uci(STOCKFISH) as sf:
        sf.configure({"Threads": 1, "Hash": 64})
        wins = _sample(tb, table, "v.result = 1 AND v.distance <= 15", 12, 1)
        losses = _sample(tb, table, "v.result = -1 AND v.distance BETWEEN 2 AND 14", 6, 2)
        draws = _sample(tb, table, "v.result = 0", 6, 3)
        assert wins and draws or table == "KBNvK"
        for fen in wins:
            d = tb.lookup(fen).distance
            info = sf.analyse(chess.Board(fen), chess.engine.Limit(mate=(d + 1) // 2, time=20))
            assert info["score"].relative.mate() == (d + 1) // 2, (fen, d, info["score"])
        for fen in losses:
            d = tb.lookup(fen).distance
            info = sf.analyse(chess.Board(fen), chess.engine.Limit(depth=d + 6, time=20))
            assert info["score"].relative.mate() == -(d // 2), (fen, d, info["score"])
        for fen in draws:
            board = chess.Board(fen)
            if board.is_game_over():
                continue
            info = sf.analyse(board, chess.engine.Limit(depth=14))
            assert not info["score"].relative.is_mate(), (fen, info["score"])
