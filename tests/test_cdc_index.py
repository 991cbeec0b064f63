"""CDC index functions: bijections, canonical under the four symmetries, exact counts."""
import numpy as np
import pytest

from tbdb.solvers.cdc import edges, index
from tbdb.games.cdc import Material, all_materials

def census(m):
    """(valid, orbit) of every placement index of a material (red to move)."""
    kind, mult = edges.census(m.desc, m.size, 0, m.size)
    return (kind == 0).astype(np.int8), mult


MATERIALS = ["KvK", "KGvR", "PvPP", "KPPvN", "PPvCC", "GGvMM", "KGMvC", "PPPvK", "CvCC"]


def test_signature_counts():
    counts = [len(all_materials(n)) for n in (2, 3, 4, 5)]
    assert [counts[0], counts[1] - counts[0], counts[2] - counts[1], counts[3] - counts[2]] == \
        [49, 378, 1737, 5946]  # 5946: issue 13's count of 5-piece signatures


@pytest.mark.parametrize("name", MATERIALS)
def test_unrank_then_rank_is_identity(name):
    m = Material.parse(name)
    idx = np.arange(m.size, dtype=np.int64)
    squares = index.unrank_many(m.desc, idx)
    assert (np.sort(squares, axis=1)[:, 1:] != np.sort(squares, axis=1)[:, :-1]).all()
    back = np.array([index.index_of(sq.astype(np.int64), m.desc) for sq in squares])
    assert (back == idx).all()


@pytest.mark.parametrize("name", MATERIALS)
def test_rows_times_orbits_count_every_placement(name):
    from math import comb, factorial
    m = Material.parse(name)
    valid, orbit = census(m)
    expected = factorial(32) // factorial(32 - m.pieces)
    for code in set(m.codes):
        expected //= factorial(m.codes.count(code))
    assert int(orbit[valid == 1].astype(np.int64).sum()) == expected == m.placements()
    assert comb(32, 2) == 496


@pytest.mark.parametrize("name", ["KGvR", "PPvCC", "KPPvN"])
def test_canonical_is_invariant_under_symmetries(name):
    m = Material.parse(name)
    rng = np.random.default_rng(1)
    tmp = np.empty(16, np.int64)
    for _ in range(300):
        sq = rng.choice(32, m.pieces, replace=False).astype(np.int64)
        base, _ = index.canonical(sq, m.desc, tmp)
        for s in range(4):
            image = index.SYM[s, sq].astype(np.int64)
            assert index.canonical(image, m.desc, tmp)[0] == base
            # identical pieces are unordered: swapping two of a kind changes nothing
            if m.pieces > 2 and m.slot_codes[1] == m.slot_codes[2]:
                image[[1, 2]] = image[[2, 1]]
                assert index.canonical(image, m.desc, tmp)[0] == base


def test_fixed_positions_of_two_pairs():
    # PPvCC: a placement fixed by a symmetry puts each pair on a symmetric pair of squares;
    # 16 such square pairs per symmetry, 16 * 15 placements each, three symmetries.
    m = Material.parse("PPvCC")
    valid, orbit = census(m)
    fixed = orbit[(valid == 1) & (orbit < 4)].astype(np.int64).sum()
    assert fixed == 3 * 16 * 15


@pytest.mark.parametrize("n, distinct", [(0, 1), (1, 1), (5_000, 7), (60_000, 40_000)])
def test_group_rows_groups_equal_keys(n, distinct):
    """``group_rows`` (CDC batches: the rows of each material) against NumPy's sort: every
    group holds exactly the rows of one key, ascending, numbered as keys first appear; 40,000
    distinct keys outgrow its first hash table."""
    from tbdb.solvers.cdc.locate import group_rows
    rng = np.random.default_rng(n)
    keys = rng.integers(-2, distinct, n) * 6 ** 9  # the -1 and -2 of a side without pieces
    group, order, starts, first = group_rows(keys)
    uniq, first_seen, inverse = np.unique(keys, return_index=True, return_inverse=True)
    assert len(first) == len(uniq) and list(first) == sorted(first_seen)
    by_key = np.argsort(inverse, kind="stable")  # rows of each key, ascending
    bounds = np.searchsorted(inverse[by_key], np.arange(len(uniq) + 1))
    for g, r in enumerate(first):
        rows = order[starts[g]:starts[g + 1]]
        u = inverse[r]
        assert rows.tolist() == by_key[bounds[u]:bounds[u + 1]].tolist()
        assert (group[rows] == g).all()
    assert starts[-1] == n
