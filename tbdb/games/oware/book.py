"""Oware (Abapa) endgame books under the 200-ply limit: the Python driver of the solver kernels
(``tbdb.solvers.oware``).

A book holds, per position of ``n`` seeds, its *runs*: the maximal ranges of plies left ``t``
over which ``(score, best_move)`` is constant (``best_move`` = lowest optimal house, -1 = no
legal move; values and layout in ``tbdb.solvers.oware.levels``).  A run ends where the next
run of the same position starts; the last one lasts up to ``MAX_T``.

``Book.stable_from`` is the smallest t such that every score of the book is the same for all
t' in t .. MAX_T (``MAX_T`` itself if the scores still change at the last step);
``Book.moves_stable_from`` is the same for the (score, best_move) pairs.

Books are built one seed count at a time: ``solve_book(n, lower_books)`` needs only the runs of
books 0 .. n - 2 (a capture takes at least 2 seeds), e.g. reloaded from a database, and replays
them as value changes while t advances; ``solve_books(max_n)`` builds 0 .. max_n in turn.
``solve_book`` runs the change-list solver (``tbdb.solvers.oware.changes``, up to 20 seeds);
``solve_book_levels`` the one it replaced (``levels``, up to 18), kept for the tests to compare
them run for run.  They validate their input and call the kernels, which trust theirs.
"""
from __future__ import annotations

import math
import mmap
import threading
import time
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from dataclasses import dataclass

import numba
import numpy as np
from numba import types
from numba.typed import List

from tbdb.retrograde.memory import release_freed_memory
from tbdb.solvers.oware import changes
from tbdb.solvers.oware.changes import MAX_SOLVE_N
from tbdb.solvers.oware.index import book_bases, book_size
from tbdb.solvers.oware.levels import (MAX_T, events_to_runs, lower_count, lower_fill,
                                       reverse_edges, solve_core)
from tbdb.solvers.oware.moves import MAX_SOLVE_N as LEVELS_MAX_SOLVE_N, move_table
from tbdb.solvers.oware.runs import lookup, lookup_many


@dataclass(frozen=True, eq=False)
class Book:
    """The solved book of ``n`` seeds (array layout in ``tbdb.solvers.oware.levels``).

    ``stable_from``: smallest t such that every score is the same for all t' in t .. MAX_T
    (MAX_T if some score still changes at the last step).  ``moves_stable_from``
    (>= stable_from): the same for (score, best_move) pairs."""

    n: int
    stable_from: int
    moves_stable_from: int
    run_offsets: np.ndarray  # int64[N + 1]
    run_from: np.ndarray  # int16[R]
    run_score: np.ndarray  # int8[R]
    run_move: np.ndarray  # int8[R]
    #: positions evaluated at each plies-left step (int64[MAX_T + 1], index t), if solved here
    work: np.ndarray | None = None

    @property
    def size(self) -> int:
        return len(self.run_offsets) - 1

    @property
    def num_runs(self) -> int:
        return len(self.run_from)

    def lookup(self, idx: int, t: int) -> tuple[int, int]:
        """``(score, best_move)`` of position ``idx`` with ``t`` plies left."""
        if not 0 <= idx < self.size:
            raise IndexError(f"position index {idx!r} out of range for book {self.n}")
        if not 1 <= t <= MAX_T:
            raise ValueError(f"plies left must be in 1..{MAX_T}, got {t!r}")
        s, m = lookup(self.run_offsets, self.run_from, self.run_score, self.run_move, idx, t)
        return int(s), int(m)

    def values_at(self, t: int) -> tuple[np.ndarray, np.ndarray]:
        """``(score int8[N], best_move int8[N])`` of every position at ``t`` plies left."""
        if not 1 <= t <= MAX_T:
            raise ValueError(f"plies left must be in 1..{MAX_T}, got {t!r}")
        return lookup_many(self.run_offsets, self.run_from, self.run_score, self.run_move, t)


@dataclass(frozen=True, eq=False)
class ReplayBook:
    """What solving the bigger books needs of a solved book: per position only the runs whose
    score changes (``changes.score_changes``: int32 offsets, uint8 first plies left, int8
    score; about 1.6 bytes a run where a ``Book`` takes 4, plus 4 bytes a position instead of
    8).  A build keeps its smaller books in this form while the next ones solve (books 0..18,
    1.5 billion runs, while book 20 solves).  ``runs``: the book's number of runs (sizes the
    next books' event buffers)."""

    n: int
    stable_from: int
    runs: int
    run_offsets: np.ndarray  # int32[N + 1]
    run_from: np.ndarray  # uint8[K]
    run_score: np.ndarray  # int8[K]

    @classmethod
    def of(cls, book) -> "ReplayBook":
        """The replay form of a ``Book`` (or of a ``ReplayBook``: itself)."""
        if isinstance(book, ReplayBook):
            return book
        off = np.ascontiguousarray(book.run_offsets, dtype=np.int64)
        rf = np.ascontiguousarray(book.run_from, dtype=np.int16)
        rs = np.ascontiguousarray(book.run_score, dtype=np.int8)
        n = int(book.n)
        if len(off) != book_size(n) + 1 or off[0] != 0 or off[-1] != len(rf) or len(rs) != len(rf):
            raise ValueError(f"book {n}: run arrays do not match its {book_size(n)} positions")
        if len(rf) >= 1 << 31:
            raise ValueError(f"book {n}: {len(rf):,} runs, more than a replay form holds")
        c_off, c_from, c_score = changes.score_changes(off, rf, rs)
        return cls(n, int(book.stable_from), len(rf), c_off, c_from, c_score)

    @property
    def size(self) -> int:
        return len(self.run_offsets) - 1

    @property
    def num_runs(self) -> int:
        return self.runs


#: Positions per task of a step (at most 8192: an event keeps its position in 13 bits).
CHUNK = 4096
#: Books smaller than this are solved on one thread (``parallel=None``): their steps are short,
#: and with every core busy (other processes) the per-step thread barriers cost more than the
#: second thread gains.
PARALLEL_MIN_POSITIONS = 1_000_000
#: In a parallel book, a step runs in parallel only if about this many positions are dirty.
PARALLEL_MIN_DIRTY = 50_000
#: The smaller books' score changes are listed for as many steps at a time as fit in this many
#: changes (5 bytes each; the list of every change would take 7 GB at 20 seeds).
REPLAY_WINDOW_CHANGES = 1 << 26
#: A big book's events are turned into runs this many groups (of 64) at a time, the freed
#: events given back to the system in between (``tbdb.retrograde.memory.release_freed_memory``): the
#: events and the runs of 20 seeds take gigabytes each, and without it both are resident at once.
RELEASE_GROUPS = 4
#: A book solved on one thread gets this much more event room per position than
#: ``_runs_guess``: a chunk with less than a position's worth of room left grows by half,
#: copying its group's events (a share of book 9's time without it); untouched room costs nothing.
SERIAL_EXTRA_ROOM = 4
#: ``solve_books`` makes the moves of this many of the biggest one-thread books (1..2) on the
#: lane, the biggest's first.
EARLY_MOVES = 2
#: ``solve_books`` hands the books of this many positions or more to its threads (below, a book
#: takes less time than handing it to a thread: they are solved in turn first).
PAIR_MIN_POSITIONS = 10_000


#: The item types of the replay forms' typed lists (made once: a type costs microseconds).
_INT32S, _UINT8S, _INT8S = types.int32[::1], types.uint8[::1], types.int8[::1]
#: Arrays of at least this many bytes are made in 2 MB pages (``_empty``).
HUGE_MIN_BYTES = 1 << 20
_HUGE_PAGE = 2 << 20


def _empty(shape, dtype) -> np.ndarray:
    """``np.empty(shape, dtype)``, in memory of its own advised to be backed by 2 MB pages
    (transparent huge pages) from ``HUGE_MIN_BYTES`` on.  The first touch of a 4 KB page costs a
    page fault, dear on a virtual machine: the 9-seed book's moves, parents, events and runs
    are some 20 MB of fresh memory, 5,000 faults and a good share of its time, and ten faults in
    2 MB pages (which also spare the random reads of the moves and parents most TLB misses).
    Where the system gives no huge page, the memory is ordinary pages, as ``np.empty``'s."""
    dtype = np.dtype(dtype)
    nbytes = math.prod(shape if isinstance(shape, tuple) else (shape,)) * dtype.itemsize
    if nbytes < HUGE_MIN_BYTES or not hasattr(mmap, "MADV_HUGEPAGE"):
        return np.empty(shape, dtype)
    size = -(-nbytes // _HUGE_PAGE) * _HUGE_PAGE
    buf = mmap.mmap(-1, size + _HUGE_PAGE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    raw = np.frombuffer(buf, dtype=np.uint8)
    skip = -raw.ctypes.data % _HUGE_PAGE  # a huge page must start on a 2 MB boundary
    buf.madvise(mmap.MADV_HUGEPAGE, skip, size)
    return raw[skip:skip + nbytes].view(dtype).reshape(shape)


def _lower_runs(n: int, lower_books) -> tuple[list, int]:
    """``([(run_offsets, run_from, run_score) of books 0 .. n - 2], their max stable_from)``,
    checked and contiguous."""
    by_n = {}
    for b in lower_books:
        by_n[int(b.n)] = b
    missing = [m for m in range(n - 1) if m not in by_n]
    if missing:
        raise ValueError(f"book {n} needs the books of {missing!r} seeds")
    lower = []
    for m in range(n - 1):
        b = by_n[m]
        off = np.ascontiguousarray(b.run_offsets, dtype=np.int64)
        rf = np.ascontiguousarray(b.run_from, dtype=np.int16)
        rs = np.ascontiguousarray(b.run_score, dtype=np.int8)
        if len(off) != book_size(m) + 1 or off[0] != 0 or off[-1] != len(rf) or len(rs) != len(rf):
            raise ValueError(f"book {m}: run arrays do not match its {book_size(m)} positions")
        lower.append((off, rf, rs))
    return lower, max([int(by_n[m].stable_from) for m in range(n - 1)], default=1)


def _runs_guess(n: int, lower_books) -> int:
    """Event room per position to start with: a little more than the runs per position of the
    books just below (runs per position grow by about 1.5 per seed from n = 9 on); a chunk that
    runs out grows by half."""
    guess = 8
    for b in lower_books:
        m = int(b.n)
        if m in (n - 1, n - 2) and book_size(m):
            extra = 2.0 if m == n - 1 else 3.5
            guess = max(guess, int(b.num_runs / book_size(m) + extra) + 1)
    return guess


@dataclass(frozen=True, eq=False)
class BookMoves:
    """What solving book ``n`` needs besides the smaller books: every move of its positions
    (``changes.move_table``) and their parents (``changes.reverse_edges``).  It depends on
    nothing else, so ``solve_books`` makes a big book's while the books below it solve."""

    n: int
    base: np.ndarray  # int64[n + 2], ``index.book_bases(n)``
    packed: np.ndarray  # uint32[N, 6]
    rev_off: np.ndarray  # int32[...]
    rev_par: np.ndarray  # int32[E]

    @classmethod
    def of(cls, n: int, parallel: bool = False) -> "BookMoves":
        """Book ``n``'s moves and parents (``parallel``: the move table on Numba's threads)."""
        if not 0 <= n <= MAX_SOLVE_N:
            raise ValueError(f"seed count must be in 0..{MAX_SOLVE_N}, got {n!r}")
        base = book_bases(n)
        N = book_size(n)
        packed = _empty((N, 6), np.uint32)
        tab = changes.child_table(n, base)
        if parallel:
            changes.move_rows_parallel(n, base, tab, CHUNK, packed)
        else:
            changes.move_rows(n, base, tab, CHUNK, 0, (N + CHUNK - 1) // CHUNK, packed)
        rev_off, rev_par = changes.reverse_edges(n, base, packed, _empty)
        return cls(n, base, packed, rev_off, rev_par)


def solve_book(n: int, lower_books, parallel: bool | None = None,
               moves: BookMoves | None = None, helper: Executor | None = None) -> Book:
    """Solve the book of ``n`` seeds given the solved books of 0 .. n - 2 seeds, with the
    change-list solver (``tbdb.solvers.oware.changes``).

    ``lower_books``: a sequence of ``Book`` or ``ReplayBook`` that contains the books
    0 .. n - 2; others are ignored (book n - 1, if given, only sizes the event buffers).  Their
    runs are replayed as value changes, not recomputed.  ``parallel``: run the big steps on
    Numba's threads (None: if the book has at least PARALLEL_MIN_POSITIONS positions and Numba
    has more than one thread).  The result does not depend on it.  ``moves``: book ``n``'s
    ``BookMoves`` if already made (else made here).  ``helper``: an executor (one thread) a
    book solved on one thread may share its steps with, from when that thread is free
    (``changes.solve_shared``), and sort half of its runs on."""
    if not 0 <= n <= MAX_SOLVE_N:
        raise ValueError(f"seed count must be in 0..{MAX_SOLVE_N}, got {n!r}")
    if moves is not None and moves.n != n:
        raise ValueError(f"book {n} given the moves of book {moves.n}")
    lower_books = list(lower_books)
    by_n = {int(b.n): b for b in lower_books}
    missing = [m for m in range(n - 1) if m not in by_n]
    if missing:
        raise ValueError(f"book {n} needs the books of {missing!r} seeds")
    runs_guess = _runs_guess(n, lower_books)
    lower_stable = max([int(by_n[m].stable_from) for m in range(n - 1)], default=1)
    replay = None
    offs = List.empty_list(_INT32S)
    starts = List.empty_list(_UINT8S)
    scores = List.empty_list(_INT8S)
    for m in range(n - 1):
        replay = ReplayBook.of(by_n[m])
        if replay.size != book_size(m) or replay.run_offsets[-1] != len(replay.run_from):
            raise ValueError(f"book {m}: replay arrays do not match its {book_size(m)} positions")
        offs.append(replay.run_offsets)
        starts.append(replay.run_from)
        scores.append(replay.run_score)
    del replay, by_n
    N = book_size(n)
    if parallel is None:
        parallel = N >= PARALLEL_MIN_POSITIONS and numba.get_num_threads() > 1
    if moves is None:
        moves = BookMoves.of(n, parallel)
    base, packed, rev_off, rev_par = moves.base, moves.packed, moves.rev_off, moves.rev_par
    del moves
    if parallel:
        evs, evs_sc, cpg, seg_start, step_cnt, work, state = _solve_parallel(
            n, base, packed, rev_off, rev_par, offs, starts, scores, lower_stable, CHUNK,
            runs_guess, REPLAY_WINDOW_CHANGES)
    elif helper is None:  # the events in one buffer of huge pages (a big book's grow apart)
        runs_guess += SERIAL_EXTRA_ROOM
        room = changes.event_room(n, CHUNK, runs_guess)
        evs, evs_sc, cpg, seg_start, step_cnt, work, state = changes.solve_serial(
            n, base, packed, rev_off, rev_par, offs, starts, scores, lower_stable, CHUNK,
            runs_guess, REPLAY_WINDOW_CHANGES, _empty(room, np.uint16), _empty(room, np.int8))
    else:
        evs, evs_sc, cpg, seg_start, step_cnt, work, state = _solve_shared(
            n, base, packed, rev_off, rev_par, offs, starts, scores, lower_stable,
            runs_guess + SERIAL_EXTRA_ROOM, helper)
    del packed, rev_off, rev_par, offs, starts, scores
    t_end = int(state[changes.S_T_END])
    if parallel:
        release_freed_memory()
    rstart = changes.run_starts(step_cnt, t_end)
    R = int(rstart[-1])
    off = _empty(N + 1, np.int64)
    rf, rs, rm = _empty(R, np.int16), _empty(R, np.int8), _empty(R, np.int8)
    if parallel:  # a big book: the events' memory back to the system as their runs are written
        for g in range(0, len(evs), RELEASE_GROUPS):
            changes.fill_runs(g, min(len(evs), g + RELEASE_GROUPS), N, CHUNK, evs, evs_sc, cpg,
                              seg_start, step_cnt, t_end, rstart, off, rf, rs, rm)
            release_freed_memory()
    else:  # with ``helper``, on both threads if it is free (the events are one buffer)
        claims = np.zeros(3, dtype=np.int64)
        if helper is not None:
            helper.submit(changes.fill_runs_shared, N, CHUNK, evs, evs_sc, cpg, seg_start,
                          step_cnt, t_end, rstart, off, rf, rs, rm, claims, False)
        changes.fill_runs_shared(N, CHUNK, evs, evs_sc, cpg, seg_start, step_cnt, t_end, rstart,
                                 off, rf, rs, rm, claims, True)
    return Book(n, int(state[changes.S_STABLE]), int(state[changes.S_MOVES_STABLE]), off, rf, rs,
                rm, work)


#: ``_help`` joins a book's steps only if at most this many threads are running on the machine
#: (the book's and the helper's own) in one of ``IDLE_SAMPLES`` looks 1 ms apart (one look
#: could catch a kernel thread's moment, or a process just exiting).
IDLE_RUNNING = 2
IDLE_SAMPLES = 3


def _machine_idle() -> bool:
    """Whether no other work is running here (Linux's ``procs_running``; True where there is no
    /proc/stat).  Two threads sharing a book's steps meet three times a step: when a third
    party runs on one of the two cores, either thread may lose its core mid-step while the
    other waits, and the shared book took longer than one thread alone (on an idle second core
    it is much faster)."""
    for i in range(IDLE_SAMPLES):
        if i:
            time.sleep(0.001)
        try:
            with open("/proc/stat", "rb") as f:
                for line in f:
                    if line.startswith(b"procs_running "):
                        if int(line.split()[1]) <= IDLE_RUNNING:
                            return True
                        break
        except OSError:
            return True
    return False


def _help(*args) -> int:
    """``changes.help_shared`` if the machine has a core to spare, else nothing."""
    if not _machine_idle():
        return 0
    return changes.help_shared(*args)


def _solve_shared(n, base, packed, rev_off, rev_par, offs, starts, scores, lower_stable,
                  runs_guess, helper):
    """``changes.solve_serial`` as ``changes.solve_shared`` on this thread, with
    ``changes.help_shared`` queued on ``helper``: when that thread is free (its earlier tasks
    done) it joins the steps still to come."""
    room = changes.event_room(n, CHUNK, runs_guess)
    (state, vals, move, _, _, evs, evs_sc, cpg, seg_start, seg_cap, used, step_cnt, evals,
     cnt_score, flagged, work, _) = changes.core_state(n, base, CHUNK, runs_guess,
                                                       _empty(room, np.uint16),
                                                       _empty(room, np.int8))
    flags = changes.shared_flags(n, CHUNK)
    sync = np.zeros(changes.SYNC_SIZE, dtype=np.int64)
    helper.submit(_help, n, base, packed, rev_off, rev_par, CHUNK, vals, move, evs, evs_sc, cpg,
                  seg_start, used, step_cnt, evals, cnt_score, flagged, flags, sync)
    try:
        return changes.solve_shared(n, base, packed, rev_off, rev_par, offs, starts, scores,
                                    lower_stable, CHUNK, REPLAY_WINDOW_CHANGES, state, vals,
                                    move, evs, evs_sc, cpg, seg_start, seg_cap, used, step_cnt,
                                    evals, cnt_score, flagged, work, flags, sync)
    finally:
        sync[changes.Y_DONE] = 1  # (already, unless it failed): the helper must not wait on


def _solve_parallel(n, base, packed, rev_off, rev_par, offs, starts, scores, lower_stable, chunk,
                    runs_guess, window_changes):
    """``changes.solve_serial`` with the loop here, each step on Numba's threads when about
    ``PARALLEL_MIN_DIRTY`` positions or more are flagged (a parallel call has a fixed cost
    even when there is little to do).  The loop is Python so that no cached kernel calls the
    parallel one (``changes``' comment on the loop); a big book's step takes milliseconds to
    seconds, the loop's own calls tens of microseconds."""
    N = book_size(n)
    (state, vals, move, cur, nxt, evs, evs_sc, cpg, seg_start, seg_cap, used, step_cnt, evals,
     cnt_score, flagged, work, todo) = changes.core_state(n, base, chunk, runs_guess,
                                                          np.empty(0, np.uint16),
                                                          np.empty(0, np.int8))
    nchunks = len(seg_start)
    base_n = int(base[n])
    rev_lo = int(base[n - 1]) if n >= 1 else 0
    toff = changes.replay_count(offs, starts, scores)
    pos = np.empty(0, np.int32)
    sc = np.empty(0, np.int8)
    for t in range(1, MAX_T + 1):
        if changes.window_due(t, state, toff, window_changes):
            pos = sc = None  # free the last window first
            pos, sc = changes.replay_window(base, offs, starts, scores, toff, state)
        if changes.before_step(t, N, chunk, cpg, toff, pos, sc, vals, rev_off, rev_par, cur,
                               evs, evs_sc, seg_start, seg_cap, used, state):
            release_freed_memory()  # the moved groups' old arrays
        step = (changes.step_parallel if state[changes.S_EST] >= PARALLEL_MIN_DIRTY
                else changes.step_serial)
        step(len(evs), cpg, nchunks, chunk, N, base_n, rev_lo, packed, vals, move, cur, nxt,
             rev_off, rev_par, evs, evs_sc, seg_start, used, step_cnt, evals, t, cnt_score,
             flagged, todo)
        cur, nxt = nxt, cur  # cur is all zero again: it becomes the next step's nxt
        if changes.after_step(t, lower_stable, cnt_score, used, evals, flagged, work, state):
            break
    return evs, evs_sc, cpg, seg_start, step_cnt, work, state


def solve_book_levels(n: int, lower_books, parallel: bool | None = None) -> Book:
    """``solve_book`` with the solver it replaced (``tbdb.solvers.oware.levels``: a materialised
    list of the smaller books' changes, 27-bit moves, up to 18 seeds), kept as the reference the
    tests compare the change-list solver with, run for run.

    ``lower_books``: a sequence of ``Book`` (or any objects with the attributes ``n``,
    ``stable_from``, ``run_offsets``, ``run_from``, ``run_score``) that contains the books
    0 .. n - 2; others are ignored (book n - 1, if given, only sizes the event buffers).  Their
    runs are replayed as value changes, not recomputed.  ``parallel``: run the big steps on
    Numba's threads (None: if the book has at least PARALLEL_MIN_POSITIONS positions and Numba
    has more than one thread).  The result does not depend on it."""
    if not 0 <= n <= LEVELS_MAX_SOLVE_N:
        raise ValueError(f"seed count must be in 0..{LEVELS_MAX_SOLVE_N}, got {n!r}")
    lower, lower_stable = _lower_runs(n, lower_books)
    by_n = {int(b.n): b for b in lower_books}
    base = book_bases(n)
    # replay schedule of the smaller books' score changes, grouped by step
    low_toff = np.zeros(MAX_T + 2, dtype=np.int64)
    for off, rf, rs in lower:
        lower_count(off, rf, rs, low_toff)
    np.cumsum(low_toff, out=low_toff)
    low_pos = np.empty(int(low_toff[-1]), dtype=np.int32)
    low_sc = np.empty(int(low_toff[-1]), dtype=np.int8)
    fill = low_toff.copy()
    for m, (off, rf, rs) in enumerate(lower):
        lower_fill(int(base[m]), off, rf, rs, fill, low_pos, low_sc)
    del lower, fill
    # event buffer: a little more than the runs per position of the books just below (it grows
    # by half if too small); runs per position grow by about 1.5 per seed from n = 9 on
    runs_guess = 8
    for m, extra in ((n - 1, 2.5), (n - 2, 5.0)):
        if m >= 0 and m in by_n:
            ratio = len(by_n[m].run_from) / book_size(m)
            runs_guess = max(runs_guess, int(ratio * 1.05 + extra) + 1)
    N = book_size(n)
    if parallel is None:
        parallel = N >= PARALLEL_MIN_POSITIONS and numba.get_num_threads() > 1
    packed = move_table(n, base, CHUNK)
    rev_off, rev_par = reverse_edges(n, base, packed)
    (ev_local, ev_score, ev_move, seg_start, step_cnt,
     stable_from, moves_stable_from, t_end) = solve_core(
        n, base, packed, rev_off, rev_par, low_toff, low_pos, low_sc, lower_stable, CHUNK,
        bool(parallel), PARALLEL_MIN_DIRTY, runs_guess)
    del packed, rev_off, rev_par, low_toff, low_pos, low_sc
    off, rf, rs, rm = events_to_runs(N, CHUNK, seg_start, step_cnt, ev_local, ev_score, ev_move,
                                      t_end)
    return Book(n, int(stable_from), int(moves_stable_from), off, rf, rs, rm)


_LANE: ThreadPoolExecutor | None = None
_LANE_LOCK = threading.Lock()


def _lane() -> ThreadPoolExecutor:
    """The second thread ``solve_books`` runs moves and books on, in the order given, started
    once per process: on a busy machine starting a thread took milliseconds."""
    global _LANE
    with _LANE_LOCK:
        if _LANE is None:
            _LANE = ThreadPoolExecutor(max_workers=1, thread_name_prefix="oware-lane")
        return _LANE


def solve_books(max_n: int, parallel: bool | None = None, solve=None) -> list[Book]:
    """Solve the books of 0 .. ``max_n`` seeds; ``result[n]`` is book ``n``.

    Book n needs books 0 .. n - 2 only.  The books small enough to be solved on one thread each
    (see ``solve_book``'s ``parallel``) go on two threads, this one and a second (``_lane``;
    the kernels release the GIL): the smallest in turn here, then the others by parity, the
    biggest's here and the rest there, each started as soon as the books it needs are solved,
    so that books n and n + 1 solve side by side and the biggest, which takes most of the time,
    starts the moment the books two below it are done.  The moves of the biggest need no other
    book: the second thread makes them first, while the books below solve (then its own books,
    the next biggest's moves before it; the chain solved here makes its own moves: when the
    second thread made them all first, the chain waited for it).  Bigger books
    go one at a time after them, each using Numba's threads.  ``solve``: ``solve_book``
    (default) or ``solve_book_levels``."""
    solve = solve_book if solve is None else solve
    if not 0 <= max_n <= MAX_SOLVE_N:
        raise ValueError(f"seed count must be in 0..{MAX_SOLVE_N}, got {max_n!r}")

    def threaded(m):
        if parallel is not None:
            return not parallel
        return book_size(m) < PARALLEL_MIN_POSITIONS or numba.get_num_threads() == 1

    def form(b):
        """What the bigger books read of ``b``: solve_book its replay form, made once, for
        the books a bigger one still needs (0 .. max_n - 2)."""
        return ReplayBook.of(b) if solve is solve_book and b.n <= max_n - 2 else b

    top = max_n
    while top >= 0 and not threaded(top):
        top -= 1
    solved = {m: Future() for m in range(top + 1)}  # m -> (book m, its form for the books above)
    moves = {}  # m -> Future of BookMoves
    lane = _lane()

    def run(m):
        """Solve book ``m`` once the books it needs are (the lane's tasks wait here too)."""
        lower = [solved[k].result()[1] for k in range(m - 1)]
        if m in moves:  # the biggest, solved here when the lane is done: half its runs there
            b = solve(m, lower, False, moves[m].result(), lane if m == top else None)
        else:
            b = solve(m, lower, False)
        solved[m].set_result((b, form(b)))

    def on_lane(m):
        try:
            run(m)
        except BaseException as e:
            solved[m].set_exception(e)

    if solve is solve_book:  # made on the lane, each before it is needed
        for m in (top, top - 1)[:EARLY_MOVES]:
            if m >= 0 and book_size(m) >= PAIR_MIN_POSITIONS:
                moves[m] = None
    # the lane: first the moves of the biggest (solved here), then its books, each after its
    # moves; the chain of books solved here makes its own as it goes
    if top in moves:
        moves[top] = lane.submit(BookMoves.of, top)
    here = []
    for m in range(top + 1):
        if book_size(m) < PAIR_MIN_POSITIONS or (top - m) % 2 == 0:
            here.append(m)
            continue
        if m in moves:
            moves[m] = lane.submit(BookMoves.of, m)
        lane.submit(on_lane, m)
    try:
        for m in here:
            run(m)
    except BaseException:  # the lane must not wait for a book that never comes
        for m in here:
            if not solved[m].done():
                solved[m].set_exception(RuntimeError(f"book {m} was not solved"))
        raise
    books = [solved[m].result()[0] for m in range(top + 1)]
    below = [solved[m].result()[1] for m in range(top + 1)]
    for m in range(top + 1, max_n + 1):
        b = solve(m, below, parallel)
        books.append(b)
        below.append(form(b))
    return books
