"""Oware (Abapa) book kernels (tbdb.solvers.oware) and their driver (tbdb.games.oware.book)
against the naive reference (tests/naive_oware.py)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from tbdb.games.oware.book import Book, solve_book, solve_books
from tbdb.solvers.oware import index, moves
from tbdb.solvers.oware.levels import MAX_T
from tests import naive_oware as naive

SMALL_N = 5  # books compared exhaustively with the naive evaluator
SMALL_T = 60


@pytest.fixture(scope="module")
def books():
    return solve_books(9)


def board(*houses):
    assert len(houses) == 12
    return np.array(houses, dtype=np.int8)


def sow(houses, h):
    out = np.zeros(12, dtype=np.int8)
    cap = moves.sow(np.asarray(houses, dtype=np.int8), h, out)
    return int(cap), tuple(int(x) for x in out)


def position_value(books, houses, t):
    """(score, best move) from the solved books."""
    houses = tuple(houses)
    b = books[sum(houses)]
    return b.lookup(int(index.rank(np.array(houses, dtype=np.int8))), t)


# ---------------------------------------------------------------------------------------------
# Index
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", range(0, 9))
def test_rank_is_the_lexicographic_bijection(n):
    N = index.book_size(n)
    assert N == len(naive.oware_compositions(n))
    houses = index.unrank_many(n, np.arange(N, dtype=np.int64))
    assert houses.dtype == np.int8 and houses.shape == (N, 12)
    assert [tuple(r) for r in houses.tolist()] == list(naive.oware_compositions(n))
    ranks = index.rank_many(houses)
    assert ranks.dtype == np.int64
    assert np.array_equal(ranks, np.arange(N))
    assert tuple(houses[0]) == (0,) * 11 + (n,)  # rank 0: all seeds in house 11
    assert tuple(houses[-1]) == (n,) + (0,) * 11


def test_rank_spot_checks_at_12_seeds():
    n = 12
    N = index.book_size(n)
    assert N == 1_352_078  # C(23, 11)
    rng = np.random.default_rng(12)
    idx = np.concatenate(([0, 1, N - 2, N - 1], rng.integers(0, N - 1, 500)))
    houses = index.unrank_many(n, idx)
    assert np.array_equal(index.rank_many(houses), idx)
    assert (houses.sum(axis=1) == n).all() and (houses >= 0).all()
    assert tuple(houses[0]) == (0,) * 11 + (12,)
    assert tuple(houses[1]) == (0,) * 10 + (1, 11)
    assert tuple(houses[3]) == (12,) + (0,) * 11
    # consecutive ranks are consecutive in lexicographic order
    nxt = index.unrank_many(n, idx[4:] + 1)
    for a, b in zip(houses[4:].tolist(), nxt.tolist()):
        assert tuple(a) < tuple(b)
    # the naive rank counts the same compositions
    for h in houses[:20].tolist():
        assert index.rank(np.array(h, dtype=np.int8)) == _count_smaller(h)


def _count_smaller(h):
    """Number of compositions lexicographically smaller than h, counted digit by digit."""
    from math import comb

    left = sum(h)
    count = 0
    for i in range(11):
        k = 11 - i  # houses after house i
        for d in range(h[i]):
            count += comb(left - d + k - 1, k - 1)
        left -= h[i]
    return count


def test_book_size():
    assert [index.book_size(n) for n in range(4)] == [1, 12, 78, 364]
    assert index.book_size(16) == 13_037_895
    assert list(index.book_bases(2)) == [0, 1, 13, 91]
    with pytest.raises(ValueError):
        index.book_size(-1)


# ---------------------------------------------------------------------------------------------
# Moves
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", range(0, 7))
def test_sow_and_transitions_match_naive(n):
    child, captured = moves.transitions(n)
    assert child.dtype == np.int32 and captured.dtype == np.int8
    assert child.shape == captured.shape == (index.book_size(n), 6)
    for i, pos in enumerate(naive.oware_compositions(n)):
        for h in range(6):
            ref = naive.oware_sow(pos, h)
            cap, after = sow(pos, h)
            if ref is None:
                assert cap == -1 and captured[i, h] == -1 and child[i, h] == -1
                continue
            assert (cap, after) == (ref[1], ref[0])
            flipped = np.zeros(12, dtype=np.int8)
            moves.flip(np.array(after, dtype=np.int8), flipped)
            kid, kcap = naive.oware_play(pos, h)
            assert tuple(flipped) == kid
            assert captured[i, h] == kcap
            assert child[i, h] == naive.oware_rank(kid)
            assert sum(kid) == n - kcap


def test_grand_slam_captures_nothing(books):
    # Mover's house 5 holds 1 seed, the opponent's only seeds are 1 in house 6.  Playing 5 makes
    # house 6 hold 2: a capture, but it would take every opponent seed -> grand slam, nothing
    # is captured and the board stays as sown.
    s = (0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0)
    assert sow(s, 5) == (0, (0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0))
    assert naive.oware_play(s, 5) == ((2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), 0)
    # The child (2 seeds in the new mover's house 0, nothing opposite) has no legal move: sowing
    # house 0 only reaches houses 1-2, the opponent stays empty.  Game over, the new mover takes
    # its own 2 seeds: V(child, t >= 1) = 2.  So V(s, 1) = 0 - V(child, 0) = 0 and
    # V(s, t >= 2) = 0 - 2 = -2, best move 5 (the only legal one).
    assert position_value(books, s, 1) == (0, 5)
    for t in (2, 3, 50, 200):
        assert position_value(books, s, t) == (-2, 5)
    # Control: one more opponent seed in house 8 and the same move captures 2 (not everything).
    assert sow((0, 0, 0, 0, 0, 1, 1, 0, 1, 0, 0, 0), 5) == (2, (0,) * 8 + (1, 0, 0, 0))


def test_capture_chain_stops_at_a_house_not_holding_2_or_3():
    # House 5 (3 seeds) sows into 6, 7, 8: they become 2, 4, 2.  The last seed (house 8) makes 2:
    # captured; going backwards house 7 holds 4: the chain stops there, so house 6 (2 seeds)
    # is NOT captured.  Captured 2; 8 seeds on the opponent's side, so not a grand slam.
    s = (0, 0, 0, 0, 0, 3, 1, 3, 1, 0, 0, 0)
    assert sow(s, 5) == (2, (0, 0, 0, 0, 0, 0, 2, 4, 0, 0, 0, 0))
    assert naive.oware_play(s, 5) == ((2, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), 2)
    # Same but house 7 starts with 2: houses 8, 7, 6 hold 2, 3, 2 -> all three captured (7 seeds);
    # house 11 keeps 1 seed, so it is not a grand slam.
    s = (0, 0, 0, 0, 0, 3, 1, 2, 1, 0, 0, 1)
    assert sow(s, 5) == (7, (0,) * 11 + (1,))
    # A capture never goes past house 6 into the mover's own houses: house 0 sows 6 seeds into
    # 1..6; house 6 makes 2 -> captured; house 5 (the mover's, holding 3) is not.
    s = (6, 0, 0, 0, 0, 2, 1, 1, 0, 0, 0, 0)
    assert sow(s, 0) == (2, (0, 1, 1, 1, 1, 3, 0, 1, 0, 0, 0, 0))


def test_twelve_seed_house_skips_its_origin():
    # 12 seeds in house 0: one each into houses 1..11, the origin is skipped, the 12th seed goes
    # into house 1.  The last seed lands on the mover's side: no capture.
    s = (12,) + (0,) * 11
    assert sow(s, 0) == (0, (0, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1))
    assert naive.oware_play(s, 0) == ((1, 1, 1, 1, 1, 1, 0, 2, 1, 1, 1, 1), 0)
    # 12 seeds in house 5: 6..11 and 0..4 get one each, 5 is skipped, the 12th seed lands in
    # house 6 which then holds 2 -> captured (7 opponent seeds, not a grand slam).  The origin
    # stays empty.
    s = (0, 0, 0, 0, 0, 12) + (0,) * 6
    assert sow(s, 5) == (2, (1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1, 1))
    # 23 seeds in house 2: two full laps of the 11 other houses (22 seeds), then house 3.
    s = (0, 0, 23) + (0,) * 9
    assert sow(s, 2) == (0, (2, 2, 0, 3, 2, 2, 2, 2, 2, 2, 2, 2))


def test_non_feeding_move_is_illegal(books):
    # The opponent has no seed.  House 0 (1 seed) only reaches house 1: illegal (feeding rule).
    # House 5 (1 seed) reaches house 6: legal (no capture, it holds 1).
    s = (1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0)
    assert sow(s, 0)[0] == -1
    assert sow(s, 5) == (0, (1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0))
    assert naive.oware_legal_moves(s) == [5]
    # V(s, 1) = 0 - 0 = 0, best move 5.
    assert position_value(books, s, 1) == (0, 5)
    child, cap = naive.oware_play(s, 5)
    assert (child, cap) == ((1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0), 0)


def test_no_legal_move_scores_own_seeds(books):
    # Houses 0 and 1 hold 1 seed each, nothing opposite: neither move reaches house 6, so the
    # mover has no legal move; the game ends and the mover takes its own 2 seeds.
    s = (1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    assert naive.oware_legal_moves(s) == []
    for t in (1, 2, 199, 200):
        assert position_value(books, s, t) == (2, -1)
    # 4 seeds in house 1 do reach house 5 only: still no legal move, value 4.
    assert position_value(books, (0, 4) + (0,) * 10, 7) == (4, -1)
    # The mover has no seed at all: no legal move, nothing to take.
    assert position_value(books, (0,) * 11 + (3,), 5) == (0, -1)


# ---------------------------------------------------------------------------------------------
# Values
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", range(0, SMALL_N + 1))
def test_books_match_naive_exhaustively(books, n):
    b = books[n]
    comps = naive.oware_compositions(n)
    for t in range(1, SMALL_T + 1):
        score, move = b.values_at(t)
        for i, pos in enumerate(comps):
            v = naive.oware_value(pos, t)
            assert score[i] == v, (pos, t)
            opt = naive.oware_optimal_moves(pos, t)
            assert move[i] == (min(opt) if opt else -1), (pos, t)


def test_random_positions_up_to_9_seeds(books):
    rnd = random.Random(2024)
    max_t = {6: 30, 7: 20, 8: 14, 9: 10}  # the naive evaluator's cost grows fast with n and t
    for _ in range(40):
        n = rnd.randint(6, 9)
        t = rnd.randint(1, max_t[n])
        idx = rnd.randrange(index.book_size(n))
        pos = naive.oware_unrank(n, idx) if n <= 7 else tuple(int(x) for x in index.unrank_many(
            n, np.array([idx], dtype=np.int64))[0])
        assert index.rank(np.array(pos, dtype=np.int8)) == idx
        score, move = books[n].lookup(idx, t)
        assert score == naive.oware_value(pos, t), (pos, t)
        opt = naive.oware_optimal_moves(pos, t)
        assert move == (min(opt) if opt else -1)


def test_run_layout(books):
    for b in books:
        N = index.book_size(b.n)
        off = b.run_offsets
        assert off.dtype == np.int64 and off.shape == (N + 1,) and off[0] == 0
        assert b.run_from.dtype == np.int16 and b.run_score.dtype == np.int8
        assert b.run_move.dtype == np.int8
        assert len(b.run_from) == len(b.run_score) == len(b.run_move) == off[-1]
        counts = np.diff(off)
        assert (counts >= 1).all()
        assert (b.run_from[off[:-1]] == 1).all()  # every position starts at t = 1
        # t_from strictly increases within a position, and consecutive runs differ
        inner = np.ones(len(b.run_from), dtype=bool)
        inner[off[:-1]] = False
        prev = np.arange(len(b.run_from)) - 1
        assert (b.run_from[inner] > b.run_from[prev[inner]]).all()
        differ = ((b.run_score[inner] != b.run_score[prev[inner]])
                  | (b.run_move[inner] != b.run_move[prev[inner]]))
        assert differ.all()
        assert b.run_from.max() <= b.moves_stable_from <= MAX_T
        assert 1 <= b.stable_from <= b.moves_stable_from


def test_stable_from_is_consistent(books):
    for b in books:
        s = b.stable_from
        ref_score, _ = b.values_at(s)
        # runs: no score changes after stable_from
        for t in sorted({s, s + 1, (s + MAX_T) // 2, MAX_T}):
            if t <= MAX_T:
                assert np.array_equal(b.values_at(t)[0], ref_score)
        # minimal: something changes between stable_from - 1 and stable_from
        if s > 1:
            assert not np.array_equal(b.values_at(s - 1)[0], ref_score)
        assert np.array_equal(b.values_at(b.moves_stable_from)[1], b.values_at(MAX_T)[1])
    # against the naive evaluator: V(s, stable_from) == V(s, 200), and the book is not
    # constant from stable_from - 1
    for n in range(0, 4):
        s = books[n].stable_from
        comps = naive.oware_compositions(n)
        for pos in comps:
            assert naive.oware_value(pos, s) == naive.oware_value(pos, MAX_T)
        if s > 1:
            assert any(naive.oware_value(pos, s - 1) != naive.oware_value(pos, s) for pos in comps)
    rnd = random.Random(7)
    for n in (4,):
        s = books[n].stable_from
        for idx in rnd.sample(range(index.book_size(n)), 10):
            pos = naive.oware_unrank(n, idx)
            assert naive.oware_value(pos, MAX_T) == naive.oware_value(pos, s) == books[n].lookup(idx, 150)[0]


def test_known_stable_points(books):
    # Regression values found by this solver (and cross-checked with the naive evaluator for
    # n <= 3 above).
    assert [b.stable_from for b in books] == [1, 2, 10, 29, 39, 67, 84, 92, 99, 145]


def test_solve_book_resumes_from_stored_books(books):
    # Book 9 from copies of books 0..7 (as if reloaded from a database) matches the full build.
    stored = [Book(b.n, b.stable_from, b.moves_stable_from, b.run_offsets.copy(),
                      b.run_from.copy(), b.run_score.copy(), b.run_move.copy())
              for b in books[:8]]
    b9 = solve_book(9, stored[::-1])  # any order, extra books ignored
    ref = books[9]
    assert (b9.stable_from, b9.moves_stable_from) == (ref.stable_from, ref.moves_stable_from)
    for name in ("run_offsets", "run_from", "run_score", "run_move"):
        assert np.array_equal(getattr(b9, name), getattr(ref, name))
    with pytest.raises(ValueError, match="needs the books"):
        solve_book(9, stored[:7])
    with pytest.raises(ValueError):
        solve_book(-1, [])


def test_parallel_and_serial_paths_agree(books, monkeypatch):
    from tbdb.games.oware import book
    monkeypatch.setattr(book, "PARALLEL_MIN_DIRTY", 1)  # every step in parallel
    b8 = solve_book(8, books[:7], parallel=True)
    for name in ("run_offsets", "run_from", "run_score", "run_move"):
        assert np.array_equal(getattr(b8, name), getattr(books[8], name))
    assert b8.stable_from == books[8].stable_from


def test_lookup_validates(books):
    with pytest.raises(IndexError):
        books[3].lookup(index.book_size(3), 1)
    with pytest.raises(ValueError):
        books[3].lookup(0, 0)
    with pytest.raises(ValueError):
        books[3].lookup(0, MAX_T + 1)
