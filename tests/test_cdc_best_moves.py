"""Every stored best move realises its position's value, judged by the naive reference."""
import pytest

import tbdb
from tests import naive_cdc as naive

TABLES = ["KCvP", "CCvR", "GvCP", "KvNN"]


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("best") / "tb.duckdb"
    for material in TABLES:
        tbdb.build("cdc", db=str(path), material=material, progress=False)
    return str(path)


def naive_value(text):
    board, side = naive.parse(text)
    if not any(c.isupper() for c in board.values()) or not any(c.islower() for c in board.values()):
        return ("loss", 0)  # the side to move has no piece left
    return naive.solve(naive.material_of(board))[text]


@pytest.mark.parametrize("material", TABLES)
def test_best_moves_realise_the_value(db, material):
    values = naive.solve(material)
    wrong = []
    with tbdb.open(db) as tb:
        results = tb.lookup_many(list(values))
    for text, r in zip(values, results):
        outcome, distance = values[text]
        if r.best_move is None:
            board, side = naive.parse(text)
            if naive.legal_moves(board, side):
                wrong.append((text, "no best move"))
            continue
        board, side = naive.parse(text)
        child = naive.to_text(naive.apply_move(board, r.best_move), "b" if side == "r" else "r")
        child_outcome, child_distance = naive_value(child)
        want = {"win": "loss", "loss": "win", "draw": "draw"}[outcome]
        if child_outcome != want or (outcome != "draw" and child_distance != distance - 1):
            wrong.append((text, r.best_move, outcome, distance, child_outcome, child_distance))
    assert not wrong, wrong[:10]
