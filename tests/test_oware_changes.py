"""The Oware change-list solver (tbdb.solvers.oware.changes, ``solve_book``) against the solver
it replaced (``solve_book_levels``), run for run, and against a plain full pass: every position
recomputed at every plies-left level from the move lists of ``moves.transitions``, the
article's algorithm as benchmarks/oware_reference.cpp runs it, written here with numpy."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from tbdb.games.oware import book as oware
from tbdb.games.oware.book import ReplayBook, solve_book, solve_book_levels, solve_books
from tbdb.solvers.oware import changes, index, moves
from tbdb.solvers.oware.levels import MAX_T

SUITE_N = 12  # old and new compared run for run up to here in the suite; SLOW_N in a slow test
SLOW_N = 14


def same_book(a, b) -> bool:
    return (a.n == b.n and a.stable_from == b.stable_from
            and a.moves_stable_from == b.moves_stable_from
            and all(np.array_equal(getattr(a, k), getattr(b, k))
                    for k in ("run_offsets", "run_from", "run_score", "run_move")))


@pytest.fixture(scope="module")
def both():
    """Books 0..SUITE_N by the change-list solver and by the levels solver."""
    return solve_books(SUITE_N), solve_books(SUITE_N, solve=solve_book_levels)


def full_pass(max_n: int):
    """Yield ``(t, scores, moves)`` for t = 1 .. MAX_T: every position of books 0 .. max_n laid
    end to end (``book_bases``), each recomputed from V(., t - 1) at every level."""
    base = index.book_bases(max_n)
    total = int(base[max_n + 1])
    high = total  # a cell holding 127: an illegal move reads it and never wins
    child = np.empty((total, 6), np.int64)
    gain = np.empty((total, 6), np.int64)
    own = np.empty(total, np.int64)
    for n in range(max_n + 1):
        c, cap = moves.transitions(n)
        legal = cap >= 0
        lo, hi = int(base[n]), int(base[n + 1])
        book_of_child = np.where(legal, n - cap, 0)
        child[lo:hi] = np.where(legal, base[book_of_child] + c, high)
        gain[lo:hi] = np.where(legal, cap, 0)
        own[lo:hi] = index.unrank_many(n, np.arange(hi - lo)).astype(np.int64)[:, :6].sum(1)
    stuck = (child == high).all(axis=1)
    prev = np.zeros(total + 1, np.int64)
    prev[high] = 127
    houses = 7 - np.arange(6)
    for t in range(1, MAX_T + 1):
        keys = (gain - prev[child]) * 8 + houses
        best = keys.max(axis=1)
        score = np.where(stuck, own, best >> 3)
        move = np.where(stuck, -1, 7 - (best & 7))
        yield t, score, move
        prev[:total] = score


def test_new_and_old_solvers_agree_run_for_run(both):
    new, old = both
    assert len(new) == len(old) == SUITE_N + 1
    for a, b in zip(new, old):
        assert same_book(a, b), a.n


@pytest.mark.slow
def test_new_and_old_solvers_agree_run_for_run_up_to_14():
    new = solve_books(SLOW_N)
    old = solve_books(SLOW_N, solve=solve_book_levels)
    for a, b in zip(new, old):
        assert same_book(a, b), a.n


def test_every_value_at_every_level_matches_a_full_pass(both):
    """Books 0..9 against the full pass at every t: the runs the full pass implies (a run
    wherever score or best move changes) are the books' runs, including those of the 9-seed
    positions whose score changes last (at 145 plies left: the longest strategy) and of
    positions whose only children that changed at the step before were in smaller books (a
    capture fed them)."""
    new, _ = both
    max_n = 9
    base = index.book_bases(max_n)
    b9 = new[9]
    child, cap = moves.transitions(9)
    own_child = np.where((cap == 0), base[9] + child, -1)  # children in book 9 itself
    pos_runs, t_runs, score_runs, move_runs = [], [], [], []
    prev_score = prev_move = None
    child_changed = None
    lower_driven = 0
    last_change = np.zeros(int(base[max_n + 1]), np.int64)
    for t, score, move in full_pass(max_n):
        if prev_score is None:
            at = np.arange(len(score))
        else:
            at = np.flatnonzero((score != prev_score) | (move != prev_move))
            changed = score != prev_score
            last_change[changed] = t
            if changed.any():
                fed = changed[base[9]:] & ~np.where(
                    own_child >= 0, child_changed[np.maximum(own_child, 0)], False).any(axis=1)
                lower_driven += int(fed.sum())
            if not changed.any():
                break
        pos_runs.append(at)
        t_runs.append(np.full(len(at), t))
        score_runs.append(score[at])
        move_runs.append(move[at])
        child_changed = (score != prev_score) if prev_score is not None else (score != 0)
        prev_score, prev_move = score, move
    pos = np.concatenate(pos_runs)
    order = np.lexsort((np.concatenate(t_runs), pos))
    pos, t_from = pos[order], np.concatenate(t_runs)[order]
    score, move = np.concatenate(score_runs)[order], np.concatenate(move_runs)[order]
    for n in range(max_n + 1):
        b = new[n]
        lo, hi = np.searchsorted(pos, [base[n], base[n + 1]])
        counts = np.bincount(pos[lo:hi] - base[n], minlength=b.size)
        assert np.array_equal(np.diff(b.run_offsets), counts), n
        assert np.array_equal(b.run_from, t_from[lo:hi]), n
        assert np.array_equal(b.run_score, score[lo:hi]), n
        assert np.array_equal(b.run_move, move[lo:hi]), n
        assert b.stable_from == max(int(last_change[base[n]:base[n + 1]].max()), 1)
    # the late changers: book 9 positions whose score last changes at 145
    late = np.flatnonzero(last_change[base[9]:] == 145)
    assert b9.stable_from == 145 and len(late) > 0
    assert all(b9.lookup(int(i), 144)[0] != b9.lookup(int(i), 145)[0] for i in late)
    assert lower_driven > 0


def test_per_level_work(both):
    new, _ = both
    for b in new[1:]:
        assert b.work.dtype == np.int64 and b.work.shape == (MAX_T + 1,)
        assert b.work[0] == 0 and b.work[1] == b.size  # every position at t = 1
        assert (b.work <= b.size).all()
        assert (b.work[b.moves_stable_from + 2:] == 0).all()  # nothing after the stop
        # a position evaluated at a step either changed or had a child change
        assert b.work.sum() >= b.num_runs
    b9 = new[9]
    # the change lists skip most of the work of one pass per level
    assert b9.work.sum() < b9.size * (b9.stable_from + 1) / 10


def test_move_table_encodes_transitions():
    # 12 seeds: a house of 12 laps the board (moves.sow's general case, not the short path)
    for n in list(range(0, 9)) + [12]:
        base = index.book_bases(n)
        packed = changes.move_table(n, base, 64)
        in_parallel = np.empty_like(packed)
        changes.move_rows_parallel(n, base, changes.child_table(n, base), 64, in_parallel)
        assert np.array_equal(packed, in_parallel)
        child, cap = moves.transitions(n)
        f = (packed >> changes.CELL_BITS).astype(np.int64)
        cell = (packed & changes.CELL_MASK).astype(np.int64)
        neg, high, _ = changes.cells(n, base)
        legal = cap >= 0
        assert (f[legal] == cap[legal]).all() and (f[~legal] == 0).all()
        assert (cell[legal] == base[n - cap[legal]] + child[legal]).all()
        stuck = ~legal.any(axis=1)
        assert (cell[~legal & ~stuck[:, None]] == high).all()
        if stuck.any():
            own = index.unrank_many(n, np.flatnonzero(stuck))[:, :6].sum(axis=1)
            assert (cell[stuck, 0] == neg + own).all()
            assert (cell[stuck, 1:] == high).all()


def test_event_growth_and_replay_windows_change_nothing(both, monkeypatch):
    """Books 9 and 10 with one event slot per position to start (every group grows) and the
    smaller books' changes replayed a few hundred at a time (many windows)."""
    new, _ = both
    monkeypatch.setattr(oware, "_runs_guess", lambda n, lower: 1)
    monkeypatch.setattr(oware, "REPLAY_WINDOW_CHANGES", 300)
    for n in (9, 10):
        assert same_book(solve_book(n, new[: n - 1]), new[n])


def test_replay_form_keeps_the_score_changes(both):
    """``ReplayBook``: per position the runs whose score differs from the run before (or from
    0, the value with no ply left, for the first), in 1.6 bytes a run instead of 4."""
    new, _ = both
    for b in new:
        r = ReplayBook.of(b)
        assert (r.run_offsets.dtype, r.run_from.dtype, r.run_score.dtype) == (
            np.int32, np.uint8, np.int8)
        assert r.n == b.n and r.stable_from == b.stable_from and r.num_runs == b.num_runs
        first = np.zeros(b.num_runs, bool)
        first[b.run_offsets[:-1][np.diff(b.run_offsets) > 0]] = True
        before = np.concatenate([[0], b.run_score[:-1]]).astype(np.int8)
        before[first] = 0
        keep = b.run_score != before
        assert np.array_equal(r.run_from, b.run_from[keep])
        assert np.array_equal(r.run_score, b.run_score[keep])
        owner = np.repeat(np.arange(b.size), np.diff(b.run_offsets))
        assert np.array_equal(np.diff(r.run_offsets), np.bincount(owner[keep], minlength=b.size))
        assert ReplayBook.of(r) is r
    assert sum(ReplayBook.of(b).run_from.size for b in new) < 0.8 * sum(b.num_runs for b in new)


def test_books_solved_from_replay_forms_are_the_same(both):
    """What a build keeps of its smaller books (``Game.dependency_form``: their replay forms)
    solves every book 2..12 to the same runs as the full books do."""
    new, _ = both
    replays = [ReplayBook.of(b) for b in new]
    for n in range(2, SUITE_N + 1):
        assert same_book(solve_book(n, replays[: n - 1]), new[n]), n
    with pytest.raises(ValueError, match=r"needs the books of \[3\] seeds"):
        solve_book(6, replays[:3] + replays[4:5])


def test_parallel_steps_agree(both, monkeypatch):
    new, _ = both
    monkeypatch.setattr(oware, "PARALLEL_MIN_DIRTY", 1)  # every step on the threads
    assert same_book(solve_book(9, new[:8], parallel=True), new[9])


class _Recorder:
    """An executor that keeps the futures of what it is given."""

    def __init__(self, pool):
        self.pool, self.futures = pool, []

    def submit(self, *args):
        self.futures.append(self.pool.submit(*args))
        return self.futures[-1]


def test_shared_steps_agree(both, monkeypatch):
    """Books 9 and 10 with a second thread taking chunks of every step from the second on
    (``changes.solve_shared``/``help_shared``) are the books one thread makes, run for run; a
    helper that starts after the book is solved returns at once."""
    new, _ = both
    monkeypatch.setattr(oware, "_machine_idle", lambda: True)
    with ThreadPoolExecutor(max_workers=1) as pool:
        # the first compiles the helper's kernels (with a fresh cache, maybe after the book is
        # done): waited for, so that the next ones find the helper free
        warm = _Recorder(pool)
        assert same_book(solve_book(8, new[:7], helper=warm), new[8])
        for f in warm.futures:
            f.result()
        for n in (9, 10):
            helper = _Recorder(pool)
            assert same_book(solve_book(n, new[:n - 1], helper=helper), new[n]), n
            steps = helper.futures[0].result()
            assert 0 < steps <= new[n].moves_stable_from + 1, (n, steps)
        late = _Recorder(pool)
        pool.submit(threading.Event().wait, 0.5)  # busy until the book is solved
        assert same_book(solve_book(9, new[:8], helper=late), new[9])
        assert late.futures[0].result() == 0


def test_limits():
    with pytest.raises(ValueError, match="0..20"):
        solve_book(21, [])
    with pytest.raises(ValueError, match="0..18"):
        solve_book_levels(19, [])
    # every cell of books 0..20 (and the constant cells) fits in the 28 bits of a move
    base = index.book_bases(changes.MAX_SOLVE_N)
    assert changes.cells(changes.MAX_SOLVE_N, base)[2] <= 1 << changes.CELL_BITS
    # parents are stored as 8 * position + house in an int32
    assert 8 * index.book_size(changes.MAX_SOLVE_N) + 7 < 2 ** 31
