"""The storage kinds' contract (``tbdb.storage``): for each kind, a build writes its values, the
kind loads them back, probes a row from memory and from the file alike, and ``tb_row`` finds
the row ``lookup`` answers from (index: CDC, keys: tic-tac-toe and UTTT, score runs: Oware)."""
import pytest

import tbdb
from tbdb import games
from tbdb.games.base import Location
from tbdb.storage import KINDS, storage_of
from tbdb.db.store import Store

BUILDS = {"index": ("cdc", {"material": "KCvP"}), "key": ("tictactoe", {}),
          "runs": ("oware", {"max_seeds": 3})}


@pytest.fixture(scope="module", params=sorted(BUILDS))
def built(request, tmp_path_factory):
    name, options = BUILDS[request.param]
    path = str(tmp_path_factory.mktemp(f"storage-{request.param}") / "tb.duckdb")
    tbdb.build(name, db=path, progress=False, **options)
    return request.param, games.get(name), path


def _positions(tb, g, start: str | None = None) -> list[str]:
    """A position (the game's sample) and the positions its moves lead to (those with a
    stored row)."""
    start = start or g.sample
    out = [g.text(g.parse(start))]
    out += [m.position for m in tb.lookup(start, game=g.name).moves]
    return [p for p in out if isinstance(g.locate(g.parse(p)), Location)]


def _tb_row(tb, g, text):
    return tb.sql("SELECT result, distance, best_move, score FROM tb_row(?, ?)",
                  params=[g.name, text]).fetchall()


def test_storage_of_names_every_kind():
    for name, kind in KINDS.items():
        assert storage_of(name) is kind and storage_of({"storage": name}) is kind
    for g in games.all_games():
        assert storage_of(g).name == g.storage
    with pytest.raises(ValueError, match="'nonsense'"):
        storage_of("nonsense")


def test_write_load_probe_and_tb_row_agree(built):
    kind_name, g, path = built
    kind = storage_of(kind_name)
    store = Store(path, read_only=True)
    try:
        rows = [r for r in store.tables(g.name) if r["storage"] == kind_name]
        assert rows
        for row in rows:
            full = store.table(g.name, row["table_name"])
            assert kind.load(store, full) is not None  # loads whole, checks what it reads
        with tbdb.open(path) as tb:
            positions = _positions(tb, g)
            assert positions
            for text in positions:
                loc = g.locate(g.parse(text))
                full = store.table(g.name, loc.table)
                in_memory = kind.open(store, full, load=True).probe(loc.key, loc.plies)
                from_file = kind.open(store, full, load=False).probe(loc.key, loc.plies)
                assert in_memory == from_file is not None
                r = tb.lookup(text, game=g.name)
                (result, distance, best, score), = _tb_row(tb, g, text)
                assert best == in_memory[-1]
                if kind.value_kind == "score":
                    assert (result, distance) == (None, None)
                    assert score == r.extras["score"] == in_memory[0]
                else:
                    assert score is None
                    assert (result, distance) == in_memory[:2]
                    assert {1: "win", 0: "draw", -1: "loss"}[result] == r.outcome
                    assert distance == r.distance
    finally:
        store.close()


def test_tb_row_answers_oware_with_the_most_plies_left(built):
    kind_name, g, path = built
    if kind_name != "runs":
        pytest.skip("score runs only")
    with tbdb.open(path) as tb:
        text = "0 0 0 0 0 1 0 0 1 0 0 0"
        (_, _, _, score), = _tb_row(tb, g, text)
        assert score == tb.lookup(text, game="oware").extras["score"]
        assert tb.lookup(text, game="oware").extras["turns_left"] == 200


def test_tb_row_answers_uttt(tmp_path):
    g = games.get("uttt")
    path = str(tmp_path / "tb.duckdb")
    tbdb.build("uttt", db=path, progress=False, **g.example_build)
    with tbdb.open(path) as tb:
        positions = _positions(tb, g, g.example_build["from"])
        assert positions
        for text in positions:
            r = tb.lookup(text, game="uttt")
            (result, distance, _, score), = _tb_row(tb, g, text)
            assert {1: "win", 0: "draw", -1: "loss"}[result] == r.outcome
            assert (distance, score) == (r.distance, None)
            (canonical,), = tb.sql("SELECT tb_canonical('uttt', ?)", params=[text]).fetchall()
            assert canonical is not None
