"""The Python API: lookups, moves, batch forms and the documented errors."""
import random

import numpy as np
import pytest

import tbdb
from tbdb.games.cdc import Position


def test_lookup_fields_and_moves(kcvp_db):
    with tbdb.open(kcvp_db) as tb:
        r = tb.lookup("8/8/8/pKC5 r")  # cannon c1 jumps the general to take the soldier
        assert (r.outcome, r.distance, r.best_move) == ("win", 1, "c1xa1")
        assert r.moves[0].move == "c1xa1" and r.moves[0].outcome == "win"
        assert {m.move for m in r.moves} == {"c1xa1", "b1-b2", "c1-c2", "c1-d1"}
        keys = [m.value_key() for m in r.moves]
        assert keys == sorted(keys) and r.moves[0].move == r.best_move


def test_colour_swapped_lookup_answers_from_the_same_table(kcvp_db):
    with tbdb.open(kcvp_db) as tb:
        a = tb.lookup("8/8/8/pKC5 r")
        b = tb.lookup("8/8/8/Pkc5 b")  # PvKC: colours and side to move swapped
        assert (a.outcome, a.distance, a.best_move) == (b.outcome, b.distance, b.best_move)
        m = tb.lookup("5CKp/8/8/8 r")  # mirrored board (h-file to a-file, rank 1 to 4)
        assert (m.outcome, m.distance, m.best_move) == ("win", 1, "f4xh4")


def test_errors(kcvp_db):
    with tbdb.open(kcvp_db) as tb:
        with pytest.raises(tbdb.InvalidPositionError, match="'4g2K/8/8 r'") as info:
            tb.lookup("4g2K/8/8 r")
        assert isinstance(info.value, ValueError)
        with pytest.raises(tbdb.MissingTableError, match="KvG") as info:
            tb.lookup("4g2K/8/8/8 r")
        assert isinstance(info.value, KeyError)
        assert tb.get("4g2K/8/8/8 r") is None
        assert tb.get("8/8/8/pKC5 r").outcome == "win"
        with pytest.raises(tbdb.UnknownGameError, match="'backgammon'") as info:
            tb.lookup("8/8/8/pKC5 r", game="backgammon")
        assert isinstance(info.value, KeyError)
        with pytest.raises(tbdb.InvalidPositionError, match="'hello'"):
            tb.lookup("hello")
        with pytest.raises(tbdb.InvalidOptionError, match="turns_left"):
            tb.lookup("8/8/8/pKC5 r", turns_left=3)
    with pytest.raises(FileNotFoundError, match="missing.duckdb"):
        tbdb.open("/nonexistent/missing.duckdb")


def test_game_over_positions(kcvp_db):
    with tbdb.open(kcvp_db) as tb:
        assert tb.lookup("8/8/8/KC6 b").outcome == "loss"  # black has nothing left


def test_batch_forms_agree_with_single_lookups(kcvp_db):
    with tbdb.open(kcvp_db) as tb:
        rows = tb.sql("SELECT position FROM cdc_positions ORDER BY material, side_to_move, idx"
                      ).fetchall()
        texts = [r[0] for r in rows][::7]
        random.Random(4).shuffle(texts)  # materials interleaved: each row answered in place
        singles = [tb.lookup(t) for t in texts]
        many = tb.lookup_many(texts)
        assert [(r.outcome, r.distance, r.best_move) for r in many] == \
               [(r.outcome, r.distance, r.best_move) for r in singles]
        positions = [Position.parse(t) for t in texts]
        boards = np.array([p.board for p in positions], np.int8)
        sides = np.array([p.side for p in positions], np.int8)
        res, dist, best = tb.lookup_arrays("cdc", boards, sides)
        assert [{1: "win", 0: "draw", -1: "loss"}[int(x)] for x in res] == \
               [r.outcome for r in singles]
        assert dist.tolist() == [r.distance for r in singles]
        from tbdb.games.cdc import Move
        assert [str(Move.from_code(int(b))) if b >= 0 else None for b in best] == \
               [r.best_move for r in singles]


def test_sql_view_positions_are_canonical_texts_that_look_up_to_themselves(kcvp_db):
    with tbdb.open(kcvp_db) as tb:
        rows = tb.sql("SELECT position, result, distance, best_move FROM cdc_positions "
                      "USING SAMPLE 300 ROWS").fetchall()
        for text, result, distance, best in rows:
            r = tb.lookup(text)
            assert (r.position, r.outcome, r.distance, r.best_move) == (text, result, distance,
                                                                         best)


def test_default_database_from_environment(kcvp_db, monkeypatch):
    monkeypatch.setenv("TBDB_DB", kcvp_db)
    assert tbdb.lookup("8/8/8/pKC5 r").outcome == "win"


def test_best_move_is_the_first_move_listed_on_every_image(kcvp_db):
    """One tie-break everywhere: the stored best move comes first among equals, in every
    orientation of the board."""
    with tbdb.open(kcvp_db) as tb:
        texts = [r[0] for r in tb.sql("SELECT position FROM cdc_positions WHERE material = "
                                      "'KCvP' USING SAMPLE 150 ROWS").fetchall()]
        for text in texts:
            for image in _images(Position.parse(text)):
                r = tb.lookup(image)
                assert r.moves[0].move == r.best_move or r.best_move is None


def _images(p):
    """The four board symmetries of a position, and each with colours swapped."""
    from tbdb.solvers.cdc.index import SYM
    out = []
    for s in range(4):
        board = [-1] * 32
        for sq, code in enumerate(p.board):
            board[SYM[s, sq]] = code
        out.append(Position(tuple(board), p.side))
        out.append(Position(tuple(-1 if c < 0 else (c + 7) % 14 for c in board), 1 - p.side))
    return out


def test_results_are_plain_data(kcvp_db):
    import dataclasses
    import json
    with tbdb.open(kcvp_db) as tb:
        r = tb.lookup("8/8/8/pKC5 r")
        d = dataclasses.asdict(r)
        assert d == {"game": "cdc", "position": "8/8/8/pKC5 r", "outcome": "win", "distance": 1,
                     "best_move": "c1xa1", "extras": {}}
        out = json.loads(json.dumps(r.to_dict()))
        assert out["moves"][0] == {"move": "c1xa1", "outcome": "win", "distance": 1,
                                   "position": "8/8/8/CK6 b"}
        assert [m["distance"] for m in out["moves"][1:]] == [0, 0, 0]  # draws are 0 plies


def test_sql_is_a_relation_repr_names_tables_and_close_closes(kcvp_db):
    tb = tbdb.open(kcvp_db)
    rel = tb.sql("SELECT material, count(*) AS n FROM cdc_positions GROUP BY ALL ORDER BY 1")
    assert rel.columns == ["material", "n"] and rel.fetchall() == [("CvP", 496), ("KCvP", 14880)]
    assert tb.sql("SELECT ? + 1", params=[41]).fetchall() == [(42,)]
    assert repr(tb) == f"<tbdb.Tablebase {kcvp_db!r} (cdc: 2 tables)>"
    stats = tb.stats()
    tb.lookup("8/8/8/pKC5 r")
    assert tb.get("4g2K/8/8/8 r") is None
    assert (stats.probes, stats.hits, stats.misses) == (2, 1, 1)
    tb.close()
    assert "closed" in repr(tb)
    with pytest.raises(ValueError, match="closed"):
        tb.lookup("8/8/8/pKC5 r")


def test_load_puts_large_tables_in_memory_with_the_same_answers(kcvp_db, monkeypatch):
    """Tables above the load limit are probed in the file until ``tb.load`` reads them in;
    the answers are the same either way, and errors name what is wrong."""
    from tbdb.prober import Prober
    monkeypatch.setattr(Prober, "LOAD_LIMIT", 10)  # every table counts as large here
    with tbdb.open(kcvp_db) as tb:
        texts = [r[0] for r in tb.sql("SELECT position FROM cdc_positions ORDER BY material, "
                                      "idx").fetchall()][::5]
        from_file = [tb.lookup(t) for t in texts]
        assert tb.stats().tables_loaded == 0
        assert tb.load("cdc", "KCvP") == 1 and tb.stats().tables_loaded == 1
        assert tb.load("cdc") == 1  # CvP; KCvP is in memory already
        assert all(t.loaded for t in tb.prober.tables.values())
        assert [tb.lookup(t) for t in texts] == from_file
        with pytest.raises(tbdb.MissingTableError, match="KvG"):
            tb.load("cdc", "KvG")
        with pytest.raises(ValueError, match="'KXvG'"):
            tb.load("cdc", "KXvG")
        with pytest.raises(tbdb.UnknownGameError, match="'backgammon'"):
            tb.load("backgammon")
