"""Oware endgame books for the generic engine: one table per seed count (``seeds-12``).

A book stores, per position, runs of plies-left ``t`` over which (score, best move) is constant;
the last run of a position reaches 200.  Book n reads books 0..n-2 (captures take >= 2 seeds).
"""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from tbdb.solvers import oware as kernels
from tbdb.errors import InvalidOptionError, MissingTableError, reject_options
from tbdb.games.oware import HOUSES, OwarePosition
from tbdb.results import LookupResult, MoveResult

MAX_T = kernels.MAX_T
DEFAULT_MAX_SEEDS = 12


def table_name(seeds: int) -> str:
    return f"seeds-{seeds:02d}"


def seeds_of(table: str) -> int:
    return int(table.split("-")[1])


def _outcome(score: int) -> str:
    return "win" if score > 0 else "loss" if score < 0 else "draw"


BATCH_POSITIONS = 1 << 20
_RUNS_SCHEMA = pa.schema([("seeds", pa.int16()), ("idx", pa.int32()),
                          ("turns_left_from", pa.int16()), ("turns_left_to", pa.int16()),
                          ("score", pa.int8()), ("best_move", pa.int8())])
_POSITIONS_SCHEMA = pa.schema([("seeds", pa.int16()), ("idx", pa.int32()),
                               ("position", pa.string())])


def _run_batches(book: kernels.Book):
    """oware_runs rows, a batch per BATCH_POSITIONS positions; a position's last run ends at 200."""
    off = book.run_offsets
    for lo in range(0, book.size, BATCH_POSITIONS):
        hi = min(book.size, lo + BATCH_POSITIONS)
        a, b = off[lo], off[hi]
        idx = np.repeat(np.arange(lo, hi, dtype=np.int32), np.diff(off[lo:hi + 1]))
        to = np.empty(b - a, np.int16)
        to[:-1] = book.run_from[a + 1:b] - 1
        to[off[lo + 1:hi + 1] - 1 - a] = MAX_T
        yield pa.record_batch([
            pa.array(np.full(b - a, book.n, np.int16)), pa.array(idx),
            pa.array(book.run_from[a:b]), pa.array(to), pa.array(book.run_score[a:b]),
            pa.array(book.run_move[a:b])], schema=_RUNS_SCHEMA)


def _position_batches(book: kernels.Book):
    """oware_positions rows: the text of every position of the book, in index order."""
    for lo in range(0, book.size, BATCH_POSITIONS):
        hi = min(book.size, lo + BATCH_POSITIONS)
        houses = kernels._unrank_many(book.n, np.arange(lo, hi, dtype=np.int64))
        text = pc.binary_join_element_wise(
            *[pc.cast(pa.array(houses[:, h]), pa.string()) for h in range(HOUSES)], " ")
        yield pa.record_batch([pa.array(np.full(hi - lo, book.n, np.int16)),
                               pa.array(np.arange(lo, hi, dtype=np.int32)), text],
                              schema=_POSITIONS_SCHEMA)


class OwareGame:
    name = "oware"

    # ------------------------------------------------------------------ planning

    def plan(self, max_seeds: int | None = None, **other) -> list[str]:
        """Books 0..max_seeds (book 0, the empty board, is the trivial base of the others)."""
        reject_options("oware build", other)
        max_seeds = DEFAULT_MAX_SEEDS if max_seeds is None else max_seeds
        if not isinstance(max_seeds, int) or not 1 <= max_seeds <= kernels.MAX_SOLVE_N:
            raise InvalidOptionError(f"max_seeds must be an integer from 1 to "
                                     f"{kernels.MAX_SOLVE_N}, not {max_seeds!r}")
        return [table_name(n) for n in range(max_seeds + 1)]

    def dependencies(self, table: str) -> list[str]:
        return [table_name(m) for m in range(seeds_of(table) - 1)]

    # ------------------------------------------------------------------ solving

    def solve(self, table: str, deps: dict) -> kernels.Book:
        return kernels.solve_book(seeds_of(table), list(deps.values()))

    def verify(self, table: str, book: kernels.Book, deps: dict) -> tuple[list[str], int]:
        """Re-derive V(s, t) and the best move of every position from one ply of moves and the
        stored values of the children, for every t up to where nothing changes any more."""
        n = book.n
        books = {b.n: b for b in deps.values()}
        books[n] = book
        order = sorted(books)
        first = np.zeros(n + 1, np.int64)  # where each book starts in the values laid end to end
        total = 0
        for m in order:
            first[m] = total
            total += books[m].size
        child, captured = kernels._transitions(n)
        legal = captured >= 0
        # every move's child as an index into those values (-1: illegal)
        move_child = np.where(legal, first[n - np.where(legal, captured, 0)] + child, -1)
        houses = kernels._unrank_many(n, np.arange(book.size, dtype=np.int64))
        own_seeds = houses[:, :6].astype(np.int16).sum(axis=1)
        last = max(max(b.moves_stable_from for b in books.values()), 1)
        bad = np.zeros(book.size, bool)
        prev = np.zeros(total, np.int8)  # V(., 0) = 0
        for t in range(1, min(MAX_T, last + 1) + 1):
            score, move = book.values_at(t)
            kernels._check_step(move_child, captured, prev, own_seeds, score, move, bad)
            for m in order:
                if t <= books[m].moves_stable_from:  # beyond it a book's values no longer change
                    prev[first[m]:first[m] + books[m].size] = books[m].values_at(t)[0]
        examples = [OwarePosition(tuple(int(x) for x in houses[i])).text
                    for i in np.flatnonzero(bad)[:20]]
        return examples, int(bad.sum())

    # ------------------------------------------------------------------ storage

    def rows(self, book: kernels.Book, store) -> tuple[list[tuple[str, object]], int]:
        """Runs and position texts as streams of Arrow batches (a million positions each): the
        16-seed book has ~220M runs, too many to materialise as whole columns next to it."""
        n = book.n
        convergence = pa.table({
            "seeds": pa.array([n], pa.int16()),
            "stable_from": pa.array([book.stable_from], pa.int16()),
            "moves_stable_from": pa.array([book.moves_stable_from], pa.int16()),
            "positions": pa.array([book.size], pa.int64()),
            "runs": pa.array([book.num_runs], pa.int64()),
        })
        runs = pa.RecordBatchReader.from_batches(_RUNS_SCHEMA, _run_batches(book))
        positions = pa.RecordBatchReader.from_batches(_POSITIONS_SCHEMA, _position_batches(book))
        loads = [("INSERT INTO oware_runs SELECT * FROM {src}", runs),
                 ("INSERT INTO oware_positions SELECT * FROM {src}", positions),
                 ("INSERT INTO oware_convergence SELECT * FROM {src}", convergence)]
        return loads, book.num_runs

    def deletes(self, table: str) -> list[tuple[str, list]]:
        n = seeds_of(table)
        return [(f"DELETE FROM {t} WHERE seeds = ?", [n])
                for t in ("oware_runs", "oware_positions", "oware_convergence")]

    def load(self, table: str, store) -> kernels.Book:
        n = seeds_of(table)
        conv = store.query("SELECT stable_from, moves_stable_from, positions FROM "
                           "oware_convergence WHERE seeds = ?", [n])
        if not conv:
            raise MissingTableError(f"Oware book {table!r} is not in {store.path!r}")
        stable_from, moves_stable_from, N = conv[0]
        cols = store.con.execute(
            "SELECT idx, turns_left_from, score, best_move FROM oware_runs WHERE seeds = ? "
            "ORDER BY idx, turns_left_from", [n]).fetchnumpy()
        offsets = np.zeros(N + 1, np.int64)
        np.cumsum(np.bincount(cols["idx"], minlength=N), out=offsets[1:])
        return kernels.Book(n, int(stable_from), int(moves_stable_from), offsets,
                            cols["turns_left_from"].astype(np.int16),
                            cols["score"].astype(np.int8), cols["best_move"].astype(np.int8))

    # ------------------------------------------------------------------ probing

    def parse(self, text: str) -> OwarePosition:
        return OwarePosition.parse(text)

    def prober(self, store) -> OwareProber:
        return OwareProber(self, store)


class OwareProber:
    """Answers lookups from one store.  Books of up to ``LOAD_RUNS`` runs are read into memory on
    first use; larger ones (14+ seeds: hundreds of millions of runs) are probed position by
    position in DuckDB, whose zone maps on the insertion-ordered ``idx`` make that a few
    milliseconds; ``load(seeds)`` reads a large book into memory anyway."""
    LOAD_RUNS = 5_000_000

    def __init__(self, game: OwareGame, store):
        self.game = game
        self.store = store
        self.books: dict[int, kernels.Book | None] = {}  # None: probe in the database

    def book(self, seeds: int) -> kernels.Book | None:
        if seeds not in self.books:
            name = table_name(seeds)
            self.store.require_done("oware", name, f"the Oware book for {seeds} seeds",
                                    f"tbdb build oware --max-seeds {seeds}")
            (runs,), = self.store.query("SELECT runs FROM oware_convergence WHERE seeds = ?",
                                        [seeds])
            self.books[seeds] = self.game.load(name, self.store) if runs <= self.LOAD_RUNS else None
        return self.books[seeds]

    def load(self, seeds: int) -> kernels.Book:
        self.book(seeds)  # checks the book is built
        if self.books[seeds] is None:
            self.books[seeds] = self.game.load(table_name(seeds), self.store)
        return self.books[seeds]

    def value(self, position: OwarePosition, turns_left: int) -> tuple[int, int]:
        """(score, best house or -1) with ``turns_left`` plies left (0: nothing left to gain)."""
        if turns_left == 0:
            return 0, -1
        book = self.book(position.seeds)
        if book is None:
            (score, move), = self.store.query(
                "SELECT score, best_move FROM oware_runs WHERE seeds = ? AND idx = ? AND "
                "? BETWEEN turns_left_from AND turns_left_to",
                [position.seeds, position.index, turns_left])
            return int(score), int(move)
        score, move = kernels._lookup(book.run_offsets, book.run_from, book.run_score,
                                      book.run_move, position.index, turns_left)
        return int(score), int(move)

    def lookup(self, text, turns_left: int = MAX_T, **other) -> LookupResult:
        reject_options("oware lookup", other)
        if isinstance(turns_left, bool) or not isinstance(turns_left, (int, np.integer)) \
                or not 1 <= turns_left <= MAX_T:
            raise InvalidOptionError(f"turns_left must be an integer from 1 to {MAX_T}, "
                                     f"not {turns_left!r}")
        position = text if isinstance(text, OwarePosition) else OwarePosition.parse(text)
        score, move = self.value(position, int(turns_left))
        return LookupResult(
            game="oware", position=position.text, outcome=_outcome(score), distance=None,
            best_move=str(move) if move >= 0 else None, score=score, turns_left=int(turns_left),
            moves_fn=lambda: self._moves(position, int(turns_left)))

    def _moves(self, position: OwarePosition, turns_left: int) -> list[MoveResult]:
        out = []
        for house in range(6):
            after = position.play(house)
            if after is None:
                continue
            child, captured = after
            score = captured - self.value(child, turns_left - 1)[0]
            out.append(MoveResult(str(house), outcome=_outcome(score), score=score))
        return sorted(out, key=MoveResult.sort_key)

    def lookup_arrays(self, houses: np.ndarray, turns_left=MAX_T):
        """Batch probe: houses int8[n, 12] (mover's view), plies left (a number or int[n], each
        1..200) -> (score int8[n], best house int8[n], -1 where there is no legal move).
        Every book needed is read into memory."""
        houses = np.ascontiguousarray(houses, np.int8)
        if houses.ndim != 2 or houses.shape[1] != HOUSES or (houses < 0).any():
            raise ValueError(f"expected houses of shape (n, 12), non-negative; got shape "
                             f"{houses.shape}")
        n = len(houses)
        t = np.broadcast_to(np.asarray(turns_left, np.int16), (n,)).copy()
        if ((t < 1) | (t > MAX_T)).any():
            raise InvalidOptionError(f"turns_left must be from 1 to {MAX_T}")
        seeds = houses.astype(np.int16).sum(axis=1)
        idx = kernels._rank_many(houses)
        score = np.empty(n, np.int8)
        move = np.empty(n, np.int8)
        for s in np.unique(seeds):
            rows = np.flatnonzero(seeds == s)
            book = self.load(int(s))
            score[rows], move[rows] = kernels._lookup_rows(
                book.run_offsets, book.run_from, book.run_score, book.run_move, idx[rows],
                t[rows])
        return score, move
