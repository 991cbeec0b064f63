"""Shogi tables: names, the index (census, symmetry, locate), children against the move
generator, parents against children (exactness), and the two retrograde modes agreeing."""
import random

import numpy as np
import pytest

from tests.shogi_random import random_position
from tbdb.errors import InvalidMaterialError, InvalidPositionError
from tbdb.games.shogi import Position
from tbdb.games.shogi.tables import ShogiTable, Symmetry, all_tables, locate, table_of
from tbdb.retrograde.driver import solve_index

THREE = ["KRK", "KBK", "KGK", "KSK", "KNK", "KLK", "KPK"]


def test_table_names():
    assert sorted(all_tables(3)) == sorted(THREE)
    assert len(all_tables(4)) == 28 and "KRGK" in all_tables(4) and "KGGK" in all_tables(4)
    assert ShogiTable("KRGK").types == (6, 7)
    for bad in ("KGRK", "KK G", "GK", "KXK", 7):
        with pytest.raises(InvalidMaterialError):
            ShogiTable(bad)
    with pytest.raises(InvalidMaterialError, match="'KRGK'"):
        ShogiTable("KGRK")


def _random_in_table(rng, table, n):
    """n random real positions (slots) of a table."""
    out = []
    while len(out) < n:
        lo = rng.randrange(table.size)
        kind, _ = table.census(lo, min(table.size, lo + 64))
        out.extend((lo + np.flatnonzero(kind == 0)).tolist()[:2])
    return np.array(out[:n], np.int64)


def test_census_counts_every_raw_position_once():
    table = ShogiTable("KGK")
    kind, mult = table.census(0, table.size)
    # 1,838,844 legal KGK positions (either side to move) by the naive enumeration in
    # tests/naive_shogi.py, which uses no symmetry
    assert int(mult[kind == 0].sum()) == 1_838_844
    assert set(np.unique(mult[kind == -3])) == {0} and set(np.unique(mult[kind >= -2])) <= {2, 4}


@pytest.mark.parametrize("name", THREE + ["KGPK", "KRGK", "KPPK"])
def test_children_are_the_legal_moves(name):
    table = ShogiTable(name)
    rng = random.Random(name)
    slots = _random_in_table(rng, table, 60)
    count, child, move, _, _ = table.children(slots)
    for r, slot in enumerate(slots):
        position = table.position(slot)
        assert position.side == 0 and table.locate(position) == (slot, Symmetry(False, False))
        codes = position.legal_codes().tolist()
        assert move[r, :count[r]].tolist() == codes
        for e, code in enumerate(codes):
            after = position.push(position.legal_moves()[e])
            assert table.locate(after)[0] == child[r, e]


def _check_parents(table, slots):
    """For these positions: every listed parent has the position among its children
    (soundness), and each position is listed among the parents of each of its children
    (completeness, seen from the other side)."""
    count, parent = table.parents(slots)
    for r, c in enumerate(slots):
        ps = np.unique(parent[r, :count[r]])
        kind, _ = zip(*(table.census(int(p), int(p) + 1) for p in ps)) if len(ps) else ((), ())
        assert all(k[0] == 0 for k in kind)
        ccount, cchild, _, _, _ = table.children(ps)
        for i in range(len(ps)):
            assert c in cchild[i, :ccount[i]]
    ccount, cchild, _, _, _ = table.children(slots)
    for r, p in enumerate(slots):
        kids = np.unique(cchild[r, :ccount[r]])
        pcount, pparent = table.parents(kids)
        for i in range(len(kids)):
            assert p in pparent[i, :pcount[i]]


@pytest.mark.parametrize("name", ["KPK", "KRGK"] + [pytest.param(n, marks=pytest.mark.slow)
                                                    for n in ("KGPK", "KBNK", "KLLK")])
def test_parents_are_exact_on_samples(name):
    table = ShogiTable(name)
    _check_parents(table, _random_in_table(random.Random(name), table, 150))


@pytest.mark.slow
@pytest.mark.parametrize("name", THREE)
def test_parents_are_exact_on_whole_tables(name):
    table = ShogiTable(name)
    kind, _ = table.census(0, table.size)
    real = np.flatnonzero(kind == 0)
    count, child, _, _, _ = table.children(real)
    live = np.arange(child.shape[1])[None, :] < count[:, None]
    assert (kind[child[live]] == 0).all()
    forward = np.unique(child[live] * table.size + np.repeat(real, count))
    pcount, parent = table.parents(real)
    plive = np.arange(parent.shape[1])[None, :] < pcount[:, None]
    backward = np.unique(np.repeat(real, pcount) * table.size + parent[plive])
    assert np.array_equal(forward, backward)


def test_a_pawn_drop_mate_has_no_un_drop_parent():
    table = ShogiTable("KGPK")
    before = Position.parse("8k/6G2/8K/9/9/9/9/9/9 b P 1")
    assert "P*1b" not in {str(m) for m in before.legal_moves()}
    # the same picture with the pawn on 1b and white to move arose from a pawn move, never a drop
    mated = Position.parse("8k/6G1P/8K/9/9/9/9/9/9 w - 1")
    assert mated.legal_moves() == []
    slot, _ = table.locate(mated)
    count, parent = table.parents(np.array([slot]))
    parents = {table.locate(before)[0]} & set(parent[0, :count[0]].tolist())
    assert not parents
    # while an un-move of the pawn (from 1c) is one: with the king elsewhere
    stepped = Position.parse("8k/6G2/7KP/9/9/9/9/9/9 b - 1")
    assert "1c1b" in {str(m) for m in stepped.legal_moves()}


def test_locate_maps_every_symmetric_image_to_one_slot():
    rng = random.Random(5)
    for _ in range(200):
        position = random_position(rng, max_pieces=2)
        name, slot, sym = locate(position)
        table = ShogiTable(name)
        stored = table.position(slot)
        # the stored position seen through the symmetry is the position asked about
        board = [0] * 81
        for sq, code in enumerate(stored.board):
            if code:
                board[sym.square(sq)] = code ^ 16 if sym.swap else code
        hands = stored.hands[::-1] if sym.swap else stored.hands
        assert Position(tuple(board), hands, int(sym.swap)) == position
        # and each legal move of the stored position maps to a legal move of the original
        legal = {str(m) for m in position.legal_moves()}
        assert {str(sym.move(c)) for c in stored.legal_codes().tolist()} == legal


def test_locate_accepts_boards_and_rejects_other_tables():
    import cshogi
    name, slot, sym = locate(cshogi.Board("8k/9/9/9/9/9/9/9/K8 w G 1"))
    assert name == "KGK" and sym.swap
    with pytest.raises(InvalidPositionError, match="KGK"):
        ShogiTable("KRK").locate(Position.parse("8k/9/9/9/9/9/9/9/K8 w G 1"))
    assert table_of(Position.parse("8k/9/9/9/9/9/9/+R8/K8 w Gp 1")) == "KRGPK"


def test_both_modes_give_identical_arrays():
    table = ShogiTable("KGK")
    edges = solve_index(table, "edges")
    free = solve_index(table, "edge-free")
    for field in ("result", "distance", "best", "multiplicity"):
        assert np.array_equal(getattr(edges, field), getattr(free, field)), field


@pytest.mark.slow
@pytest.mark.parametrize("name", [t for t in THREE if t != "KGK"])
def test_both_modes_give_identical_arrays_on_every_three_piece_table(name):
    table = ShogiTable(name)
    edges = solve_index(table, "edges")
    free = solve_index(table, "edge-free")
    for field in ("result", "distance", "best", "multiplicity"):
        assert np.array_equal(getattr(edges, field), getattr(free, field)), field


def test_locate_many_agrees_with_locate():
    table = ShogiTable("KGK")
    rng = random.Random(8)
    positions = []
    while len(positions) < 300:
        position = random_position(rng, max_pieces=1)
        if table_of(position) == "KGK":
            positions.append(position)
    boards = np.array([p.board for p in positions], np.int8)
    hands = np.array([p.hands for p in positions], np.int8)
    sides = np.array([p.side for p in positions], np.int8)
    slots, swap, mirror = table.locate_many(boards, hands, sides)
    for i, position in enumerate(positions):
        slot, sym = table.locate(position)
        assert (slots[i], swap[i], mirror[i]) == (slot, sym.swap, sym.mirror)
    other = Position.parse("8k/9/9/9/9/9/9/9/K8 b R 1")
    slots, _, _ = table.locate_many(np.array([other.board], np.int8),
                                    np.array([other.hands], np.int8), np.array([0], np.int8))
    assert slots[0] == -1


def test_origins_are_the_kernels_counts_on_an_empty_board():
    from tbdb.games.shogi.tables import ORIGINS
    from tbdb.solvers.shogi import tables as k
    board = np.zeros(81, np.int8)
    orig = np.empty(64, np.int64)
    for t in range(1, 8):
        most = 0
        for sq in range(81):
            n = k.origins_back(board, t, sq, orig)
            if t <= 6:  # promotable: standing promoted, it may have come as either
                n += k.origins_back(board, t + 8, sq, orig)
            most = max(most, n)
        assert ORIGINS[t] == most, t


@pytest.mark.parametrize("name", ["KRK", "KBK", "KPK", "KRGK", "KRBK", "KGGK", "KLLK"])
def test_parents_rows_are_wide_enough(name):
    from tbdb.solvers.shogi import tables as k
    table = ShogiTable(name)
    slots = _random_in_table(random.Random(name + "wide"), table, 3000)
    if name == "KRGK":  # a dragon in white's zone, a gold in white's hand: many origins
        crafted = Position.parse("9/9/9/9/9/9/9/4+r4/K3k4 b g 1")
        slots = np.append(slots, table.locate(crafted)[0])
    count = np.empty(len(slots), np.int32)
    parent = np.empty((len(slots), 1000), np.int64)  # far wider than any row
    k.parents(table.desc, slots, count, parent)
    assert count.max() <= table.max_parents
    narrow_count, narrow = table.parents(slots)
    assert (narrow_count == count).all()
    for r in range(len(slots)):
        assert (narrow[r, :count[r]] == parent[r, :count[r]]).all()
    if name == "KRGK":
        assert count[-1] >= 0.7 * table.max_parents  # the bound is not loose
