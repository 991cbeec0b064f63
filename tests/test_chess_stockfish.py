"""Debian's Stockfish as an independent engine (slow): on random positions of 4-piece tables
and a 5-piece one (KRBvKR: 242M slots, about a minute to build) where tbdb says "win in d plies" (d <= 15), Stockfish's mate search finds mate in (d + 1) / 2
moves; where tbdb says "loss in d plies", Stockfish mates within d / 2 moves after every
defence, and in exactly d / 2 after tbdb's best one; where tbdb says draw, Stockfish finds no
mate at a fixed depth.  Skipped without a ``stockfish`` binary (``.ci/run`` installs Debian's
package)."""
import shutil

import chess
import chess.engine
import pytest

import tbdb
from tbdb import games
STOCKFISH = shutil.which("stockfish") or shutil.which("stockfish", path="/usr/games")
TABLES = ["KQvKR", "KRvKN", "KBNvK", "KQvKP", "KRBvKR"]

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
        losses = _sample(tb, table, "v.result = -1 AND v.distance BETWEEN 2 AND 12", 4, 2)
        draws = _sample(tb, table, "v.result = 0", 6, 3)
        assert wins and draws or table == "KBNvK"
        for fen in wins:
            d = tb.lookup(fen).distance
            # a mate search bounded by moves only: with a time limit too, a loaded machine
            # cuts it short and a longer mate is reported
            info = sf.analyse(chess.Board(fen), chess.engine.Limit(mate=(d + 1) // 2))
            assert info["score"].relative.mate() == (d + 1) // 2, (fen, d, info["score"])
        for fen in losses:
            # lost in d plies: after every defence Stockfish mates within d / 2 moves, and
            # after tbdb's best defence in exactly d / 2 (a longer defence would contradict d)
            r = tb.lookup(fen)
            board = chess.Board(fen)
            for move in board.legal_moves:
                board.push(move)
                info = sf.analyse(board, chess.engine.Limit(mate=r.distance // 2))
                mate = info["score"].relative.mate()
                assert mate is not None and 0 < mate <= r.distance // 2, (fen, move.uci())
                if move.uci() == r.best_move:
                    assert mate == r.distance // 2, (fen, move.uci(), mate)
                board.pop()
        for fen in draws:
            board = chess.Board(fen)
            if board.is_game_over():
                continue
            info = sf.analyse(board, chess.engine.Limit(depth=14))
            assert not info["score"].relative.is_mate(), (fen, info["score"])
