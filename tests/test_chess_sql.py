"""Chess in SQL (issue 64): the ``chess_positions`` view of tbdb's connections, its rows checked
against python-chess (the FEN parses, the side to move, the best move is legal and its SAN),
``tbdb lookup`` (result, distance), ``draw_analysis`` (the counts, through each row's
multiplicity) and the real Syzygy files where CI fetched them; ``tb_position`` for the index
games' slots."""
from __future__ import annotations

import os

import pytest

chess = pytest.importorskip("chess")

import tbdb  # noqa: E402
from tbdb.cli.run import main  # noqa: E402


@pytest.fixture(scope="module")
def tb(every_game_db):
    with tbdb.open(every_game_db) as t:
        yield t


def _rows(tb, where: str, n: int = 400):
    """A sample of the view's rows: the slots drawn first (a sample of the view itself would
    write every row's FEN and SAN before it drew), then their rows read by slot."""
    picked = tb.sql(f"SELECT table_name, idx FROM chess_positions WHERE {where} "
                    f"USING SAMPLE reservoir({n} ROWS) REPEATABLE (64)").fetchall()
    rows = []
    for table in sorted({t for t, _ in picked}):
        slots = ", ".join(str(i) for t, i in picked if t == table)
        rows += tb.sql("SELECT material, fen, side_to_move, result, distance, best_move, "
                       "best_move_san, multiplicity FROM chess_positions "
                       f"WHERE table_name = ? AND idx IN ({slots})", params=[table]).fetchall()
    assert len(rows) == len(picked)
    return rows


def test_every_row_is_its_position_with_its_lookup_value(tb):
    rows = _rows(tb, "material = 'KPvK'") + _rows(tb, "material = 'KQvK'", 100)
    assert {r[3] for r in rows} == {"win", "draw", "loss"}
    for material, fen, side, result, distance, best, best_san, multiplicity in rows:
        board = chess.Board(fen)
        assert board.is_valid(), fen
        assert side == ("white" if board.turn else "black")
        r = tb.lookup(fen, game="chess")
        assert (result, distance) == (r.outcome, None if r.outcome == "draw" else r.distance)
        if board.is_game_over():
            assert best is None
            continue
        move = chess.Move.from_uci(best)
        assert move in board.legal_moves and best_san == board.san(move), (fen, best)
        # the stored best move keeps the value: the position after it is valued as r says
        after = tb.lookup(_after(board, move), game="chess")
        assert after.outcome == {"win": "loss", "loss": "win", "draw": "draw"}[result]
        assert multiplicity in (1, 2, 4, 8)


def _after(board, move) -> str:
    b = board.copy()
    b.push(move)
    return b.fen()


def test_counts_through_multiplicity_are_draw_analysis(tb):
    mine = dict(((m, s, r), n) for m, s, r, n in tb.sql(
        "SELECT material, side_to_move, result, sum(multiplicity) FROM chess_positions "
        "GROUP BY ALL").fetchall())
    theirs = tb.sql("SELECT material, side_to_move, wins, draws, losses FROM draw_analysis "
                    "WHERE game = 'chess' AND material = table_name").fetchall()
    assert len(theirs) >= 10
    for material, side, wins, draws, losses in theirs:
        for result, count in (("win", wins), ("draw", draws), ("loss", losses)):
            assert mine.get((material, side, result), 0) == count, (material, side, result)


def test_results_agree_with_the_syzygy_files(tb):
    directory = os.environ.get("TBDB_SYZYGY_DIR")
    if not directory or not os.path.exists(os.path.join(directory, "KPvK.rtbw")):
        pytest.skip("no Syzygy files (set TBDB_SYZYGY_DIR: python tests/fetch_syzygy.py DIR)")
    import chess.syzygy
    with chess.syzygy.open_tablebase(directory) as tables:
        for _, fen, _, result, *_ in _rows(tb, "material IN ('KPvK', 'KRvK')", 300):
            wdl = tables.probe_wdl(chess.Board(fen))
            assert result == {2: "win", 0: "draw", -2: "loss"}[wdl], fen


def test_the_readme_query_and_the_command_line(every_game_db, capsys):
    assert main(["sql", "SELECT fen FROM chess_positions WHERE material = 'KPvK' AND "
                        "result = 'draw' ORDER BY idx LIMIT 3", "--db", every_game_db]) == 0
    out = capsys.readouterr().out
    fens = [line.strip() for line in out.splitlines() if line.count("/") == 7]
    assert len(fens) == 3 and all(chess.Board(f).is_valid() for f in fens), out


def test_tb_position_is_slot_text_for_every_index_game(tb):
    from tbdb import games
    rows = tb.sql("SELECT t.game, t.table_name, v.idx FROM tb_index_values v JOIN tb_tables t "
                  "USING (table_id) WHERE v.result IN (-1, 0, 1) "
                  "USING SAMPLE reservoir(200 ROWS) REPEATABLE (7)").fetchall()
    assert len({r[0] for r in rows}) >= 3
    for game, table, idx in rows:
        (text,), = tb.sql("SELECT tb_position(?, ?, ?)", params=[game, table, idx]).fetchall()
        g = games.get(game)
        assert text == g.slot_text(table, idx)
        g.coerce(text)  # the text reads back as a position of its game
    (outside,), = tb.sql("SELECT tb_position('chess', 'KPvK', 10000000)").fetchall()
    assert outside is None


def test_slot_texts_is_slot_text_slot_by_slot():
    """The vector form tb_position uses: every slot of KQvK and every fifth of KPvK (broken
    slots too, where two pieces share a square) and slots past the end, one by one against
    ``slot_text``."""
    import numpy as np
    from tbdb import games
    from tbdb.games.chess.material import Material
    from tbdb.games.chess.tables import table_slots
    g = games.get("chess")
    for table, stride in (("KPvK", 5), ("KQvK", 1)):
        size = table_slots(Material.parse(table))
        slots = np.r_[np.arange(0, size, stride), np.arange(size, size + 3)]
        one_by_one = [g.slot_text(table, int(s)) if s < size else None for s in slots]
        assert g.slot_texts(table, slots) == one_by_one


def test_sparse_placement_is_the_board_placement():
    import random
    from tbdb.games.chess.position import Position, sparse_placement
    rng = random.Random(5)
    for _ in range(3000):
        squares = rng.sample(range(64), rng.randint(0, 7))
        codes = [rng.choice([1, 2, 3, 4, 5, 6, 9, 10, 11, 12, 13, 14]) for _ in squares]
        board = [0] * 64
        for sq, c in zip(squares, codes):
            board[sq] = c
        assert sparse_placement(zip(squares, codes)) == Position(tuple(board), 0, -1).placement
