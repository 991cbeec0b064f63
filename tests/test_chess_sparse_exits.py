"""Chess tables that keep only the child values their captures and promotions reach (sparse
exits, ``solvers/retrograde/exits.py``) answer exactly as with the child tables whole."""
import importlib

import numpy as np
import pytest

import tbdb
from tbdb.games.chess import tables as chess_tables
from tbdb.games.chess.material import Material
from tbdb.games.chess.tables import ChessSpace, table_slots
from tbdb.solvers.retrograde import exits

build_module = importlib.import_module("tbdb.build")


@pytest.fixture(scope="module")
def knvkp(tmp_path_factory):
    """The tables KNvKP (KPvKN) reads, not KNvKP itself: its promotions lead to KQvKN, KRvKN,
    KBvKN and KNvKN, its captures to KNvK and KPvK, a capture that promotes to KQvK, KRvK,
    KBvK or KNvK.  Each is built with the tables it reads in turn."""
    path = tmp_path_factory.mktemp("sparse") / "tb.duckdb"
    for table in tbdb.games.get("chess").dependencies("KNvKP"):
        tbdb.build("chess", db=str(path), material=table, progress=False)
    return str(path)


def _children_tables(path: str, table: str) -> dict:
    from tbdb.build import load_table
    from tbdb.db.store import Store
    g = tbdb.games.get("chess")
    with Store(path, read_only=True) as store:
        return {d: g.dependency_form(d, load_table(g, store, d)) for d in g.dependencies(table)}


def _stored(path: str, table: str):
    from tbdb.build import load_table
    from tbdb.db.store import Store
    with Store(path, read_only=True) as store:
        return load_table(tbdb.games.get("chess"), store, table)


def test_popcount_and_rank_agree_with_numpy():
    rng = np.random.default_rng(7)
    words = rng.integers(-(1 << 63), (1 << 63) - 1, size=1000, dtype=np.int64)
    words[:3] = [0, -1, np.int64(-(1 << 63))]
    bits = np.unpackbits(words.view(np.uint8), bitorder="little").reshape(-1, 64)
    rank, total = exits.rank_words(words)
    assert total == bits.sum()
    assert np.array_equal(rank[1::2], words)
    assert np.array_equal(rank[0::2], np.concatenate([[0], np.cumsum(bits.sum(1))[:-1]]))
    # the marked slots of any range, in order, and where their values start
    marked = np.flatnonzero(bits.reshape(-1))
    slots = 64 * len(words)
    for lo, hi in ((0, 77), (77, 5000), (130, 140), (128, 192), (5000, slots), (slots, slots)):
        got = exits.marked_slots(rank, lo, hi - lo)
        assert np.array_equal(lo + got, marked[(marked >= lo) & (marked < hi)])
        assert exits.rank_of(rank, lo) == np.count_nonzero(marked < lo)


def test_sparse_space_reads_the_values_whole_space_reads(knvkp):
    m = Material.parse("KNvKP")
    deps = _children_tables(knvkp, "KNvKP")
    whole = ChessSpace(m, deps, sparse=False)
    sparse = ChessSpace(m, deps, sparse=True)
    assert not whole.sparse and sparse.sparse
    children = sum(table_slots(Material.parse(d)) for d in deps)
    # only the promotions' and captures' children are kept: a fraction of the tables read
    assert 0 < len(sparse.cres) < children // 3
    kind, _ = whole.census(0, whole.size)
    # every 97th legal position: all of them (11M slots) took two minutes on a 2-core host,
    # every 19th 50 s of CI's time, and a stride prime to the index's digits still meets every
    # square of every piece
    positions = np.flatnonzero(kind == 0)[::97]
    for keyed in (False, True):
        whole.keyed_moves(keyed)
        sparse.keyed_moves(keyed)
        rows_a, rows_b = whole.children(positions), sparse.children(positions)
        count = rows_a[0]
        assert np.array_equal(count, rows_b[0])
        # cells past a row's count, and the values of children inside the table, hold
        # whatever the buffer held before (docs/kernel-contract.md)
        listed = np.arange(whole.max_children) < count[:, None]
        outside = listed & (rows_a[1] < 0)
        assert outside.any() and (listed & ~outside).any()
        for a, b, cells in zip(rows_a[1:], rows_b[1:], (listed, listed, outside, outside)):
            assert np.array_equal(a[cells], b[cells])
        for a, b in zip(whole.summaries(positions), sparse.summaries(positions)):
            assert np.array_equal(a, b)
    result = np.zeros(whole.size, np.int8)  # every in-table child a draw: the first moves
    best_a = np.full(whole.size, -1, np.int32)
    best_b = best_a.copy()
    whole.first_draws(positions, result, best_a)
    sparse.first_draws(positions, result, best_b)
    assert np.array_equal(best_a, best_b)


def test_a_sparse_build_that_empties_its_cache_stores_the_same_tables(knvkp, tmp_path,
                                                                      monkeypatch):
    """With every table forced sparse (a dense limit of 0 bytes) the build of KQvKN (its
    captures lead to KQvK and KNvK) reads its children one at a time
    (``Dependencies.values_at``, nothing kept) and stores the same rows.  And
    ``budget.settling``'s held bytes count the build's cache, which settling empties: here
    every table settles before its solve, so its children are read again from the store."""
    from tbdb.retrograde import budget
    monkeypatch.setattr(chess_tables, "dense_limit", lambda: 0)
    read = []
    from tbdb.storage.build_cache import Dependencies
    real_values_at = Dependencies.values_at

    def values_at(self, name, slots):
        read.append((self.table, name))
        return real_values_at(self, name, slots)
    monkeypatch.setattr(Dependencies, "values_at", values_at)
    real_settling = budget.settling
    held_seen = []

    def settling(settle, held):
        held_seen.append(held())
        settle()
        assert held() == 0
        return real_settling(settle, held)
    monkeypatch.setattr(budget, "settling", settling)
    path = str(tmp_path / "sparse.duckdb")
    tbdb.build("chess", db=path, material="KQvKN", progress=False)
    # KQvKN read its children one at a time
    assert {name for table, name in read if table == "KQvKN"} == {"KQvK", "KNvK"}
    assert max(held_seen) > 0  # something was cached, and was given back
    for table in ("KQvKN", "KQvK", "KNvK"):
        a, b = _stored(knvkp, table), _stored(path, table)
        for field in ("result", "distance", "best"):
            assert np.array_equal(getattr(a, field), getattr(b, field)), (table, field)


def test_a_sparse_build_into_probe_files_reads_only_the_slots_it_needs(tmp_path, monkeypatch):
    """Built into probe files, a sparse table reads its children at the marked slots alone
    (``ProbeBuild.load_values_at``: their blocks decoded, nothing cached), and its files are
    those of the build that keeps every child whole: KPvK, whose promotions lead to KQvK,
    KRvK, KBvK and KNvK (the test above has a table with captures)."""
    from tbdb.probe_files import build_dir
    whole, sparse = tmp_path / "whole", tmp_path / "sparse"
    tbdb.build("chess", probe_files=str(whole), material="KPvK", progress=False)
    asked = []
    real = build_dir.ProbeBuild.load_values_at

    def load_values_at(self, row, slots):
        asked.append((row["table_name"], len(slots)))
        return real(self, row, slots)
    monkeypatch.setattr(build_dir.ProbeBuild, "load_values_at", load_values_at)
    monkeypatch.setattr(chess_tables, "dense_limit", lambda: 0)
    import shutil
    shutil.copytree(whole, sparse)
    tbdb.build("chess", probe_files=str(sparse), material="KPvK", rebuild=["KPvK"],
               progress=False)
    children = tbdb.games.get("chess").dependencies("KPvK")
    # (the tables KPvK reads were built before it: read back at its marked slots alone)
    assert sorted(name for name, _ in asked) == sorted(children)
    assert 0 < sum(n for _, n in asked) < sum(
        table_slots(Material.parse(c)) for c in children) // 3
    with open(whole / "manifest.json") as a, open(sparse / "manifest.json") as b:
        import json
        want = {e["table"]: e["sha256"] for e in json.load(a)["files"]}
        got = {e["table"]: e["sha256"] for e in json.load(b)["files"]}
    assert got == want
