"""Oware endgame books as a plug-in of the retrograde driver: one table per seed count
(``seeds-12``, ``tables``), stored as score runs by plies left.

A book stores, per position, runs of plies-left ``t`` over which (score, best move) is
constant; the last run of a position reaches 200.  Book n reads books 0..n-2 (a capture takes at
least two seeds); its own solver (``book.solve_book`` over ``tbdb.solvers.oware``) replays their
runs as value changes.
"""
from __future__ import annotations

import math

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from tbdb.errors import InvalidArrayError, MissingTableError, quote
from tbdb.games.base import BatchLocation, Game, GameOver, Location, RunValues, StatRow, \
    Successor, TableData, first_row_outside, require_integers
from tbdb.games.base import BATCH_FORM, OWN_SOLVER, PLIES_LEFT, SCORE_VALUES  # capabilities
from tbdb.games.oware.book import Book, ReplayBook, solve_book
from tbdb.games.oware.position import HOUSES, TOTAL_SEEDS, OwarePosition
from tbdb.games.oware.tables import seeds_of, table_name
from tbdb.options import Option
from tbdb.solvers.oware import index, levels, moves
from tbdb.solvers.oware.changes import MAX_SOLVE_N
from tbdb.games import notation

MAX_T = levels.MAX_T
DEFAULT_MAX_SEEDS = 12
#: Books from this seed count on solve after the book before is written, not beside its write.
SOLVE_ALONE_FROM = 19
BATCH = 1 << 20


class OwareGame(Game):
    name = "oware"
    title = "Oware (Abapa) endgame books under the 200-ply limit"
    rules = "docs/rules/oware.md"
    sample = "0 0 0 0 0 1 0 0 0 0 0 0"
    value_kind = "score"
    storage = "runs"
    plies_option = "turns_left"
    views = "oware.sql"
    modes = ()  # its own solver, no retrograde mode to choose
    position_type = OwarePosition
    example_build = {"max_seeds": 5}
    capabilities = frozenset({BATCH_FORM, OWN_SOLVER, PLIES_LEFT, SCORE_VALUES})
    build_options = (
        Option("max_seeds", f"the books for 0..N seeds on the board (default "
                            f"{DEFAULT_MAX_SEEDS}; 16 takes minutes and 4 GB, 20 about half an "
                            f"hour and 16 GB: see docs/performance.md)",
               min=1, max=MAX_SOLVE_N, metavar="N"),
    )
    lookup_options = (
        Option("turns_left", f"plies left before the {MAX_T}-ply limit", min=1, max=MAX_T,
               default=MAX_T, metavar="T"),
    )

    # ------------------------------------------------------------------ tables

    def plan(self, max_seeds: int | None = None) -> list[str]:
        """Books 0..max_seeds (book 0, the empty board, is the trivial base of the others)."""
        max_seeds = DEFAULT_MAX_SEEDS if max_seeds is None else max_seeds
        return [table_name(n) for n in range(max_seeds + 1)]

    def weight(self, table: str) -> int:
        return math.comb(seeds_of(table) + HOUSES - 1, HOUSES - 1)

    def dependencies(self, table: str) -> list[str]:
        return [table_name(m) for m in range(seeds_of(table) - 1)]

    def check_table(self, table: str) -> str:
        from tbdb.errors import InvalidOptionError
        try:
            n = seeds_of(table)
        except (IndexError, ValueError):
            n = -1
        if table != table_name(n) or not 0 <= n <= MAX_SOLVE_N:
            raise InvalidOptionError(f"no Oware table {quote(table)}: tables are seeds-00 .. "
                                     f"seeds-{MAX_SOLVE_N}")
        return table

    def build_command(self, table: str) -> str | None:
        n = seeds_of(table)  # the batch form names books up to 48 seeds; tbdb builds up to 20
        return f"tbdb build oware --max-seeds {max(n, 1)}" if n <= MAX_SOLVE_N else None

    def solve(self, table: str, deps: dict, mode: str = "auto", progress=None, store=None,
              fresh: bool = False) -> TableData:
        return self.describe(table, solve_book(seeds_of(table), list(deps.values())))

    def from_stored(self, table: str, row: dict | None, values) -> Book:
        if isinstance(values, Book):
            return values
        params = row["params"]
        return Book(seeds_of(table), int(params["stable_from"]), int(params["moves_stable_from"]),
                    values.offsets, values.start, values.score.astype(np.int8),
                    values.move.astype(np.int8))

    def solve_beside_write(self, table: str) -> bool:
        """Books of 19 and 20 seeds wait for the book before to be written: book 19's runs
        held beside book 20's solve raised the build's peak by gigabytes."""
        return seeds_of(table) < SOLVE_ALONE_FROM

    def dependency_form(self, table: str, book: Book) -> ReplayBook:
        """The bigger books replay only a book's score changes (``ReplayBook``)."""
        return ReplayBook.of(book)

    def describe(self, table: str, book: Book) -> TableData:
        n = book.n
        last = book.run_offsets[1:] - 1  # each position's last run: the value with 200 left
        score = book.run_score[last]
        stats = [StatRow(f"{n} seeds", n, "mover", book.size, int((score > 0).sum()),
                         int((score == 0).sum()), int((score < 0).sum()))]

        def texts():
            for lo in range(0, book.size, BATCH):
                hi = min(book.size, lo + BATCH)
                houses = index.unrank_many(n, np.arange(lo, hi, dtype=np.int64))
                text = pc.binary_join_element_wise(
                    *[pc.cast(pa.array(houses[:, h]), pa.string()) for h in range(HOUSES)], " ")
                yield np.arange(lo, hi, dtype=np.int64), text

        return TableData(
            storage="runs",
            values=RunValues(book.run_offsets, book.run_from, book.run_score, book.run_move,
                             MAX_T),
            params={"seeds": n, "stable_from": book.stable_from,
                    "moves_stable_from": book.moves_stable_from, "horizon": MAX_T},
            stats=stats, slots=book.size, raw_positions=book.size,
            positions_answered=book.size, mode="runs", layout=f"oware:{table}", texts=texts)

    def verify(self, table: str, book: Book, deps: dict) -> tuple[list[str], int]:
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
        child, captured = moves.transitions(n)
        legal = captured >= 0
        # every move's child as an index into those values (-1: illegal)
        move_child = np.where(legal, first[n - np.where(legal, captured, 0)] + child, -1)
        houses = index.unrank_many(n, np.arange(book.size, dtype=np.int64))
        own_seeds = houses[:, :6].astype(np.int16).sum(axis=1)
        last = max(max(b.moves_stable_from for b in books.values()), 1)
        bad = np.zeros(book.size, bool)
        prev = np.zeros(total, np.int8)  # V(., 0) = 0
        for t in range(1, min(MAX_T, last + 1) + 1):
            score, move = book.values_at(t)
            levels.check_step(move_child, captured, prev, own_seeds, score, move, bad)
            for m in order:
                if t <= books[m].moves_stable_from:  # beyond it a book's values no longer change
                    prev[first[m]:first[m] + books[m].size] = books[m].values_at(t)[0]
        examples = [OwarePosition(tuple(int(x) for x in houses[i])).text
                    for i in np.flatnonzero(bad)[:20]]
        return examples, int(bad.sum())

    def slot_text(self, table: str, idx) -> str:
        return OwarePosition.from_index(seeds_of(table), int(idx)).text

    # ------------------------------------------------------------------ positions

    def parse(self, text: str) -> OwarePosition:
        return OwarePosition.parse(text)

    def recognises(self, text: str) -> bool:
        return isinstance(text, str) and notation.oware(text)

    def diagram(self, position: OwarePosition) -> str:
        """The opponent's row on top (houses 11..6), the mover's below (0..5), as players sit."""
        h = position.houses
        return "\n".join([
            "  " + " ".join(f"{h[i]:>2}" for i in range(11, 5, -1)) + "   opponent (houses 11-6)",
            "  " + " ".join(f"{h[i]:>2}" for i in range(6)) + "   to move (houses 0-5)"])

    def locate(self, position: OwarePosition, turns_left: int = MAX_T) -> Location | GameOver:
        if turns_left == 0:
            return GameOver(0, score=0)  # nothing left to gain
        if position.seeds > MAX_SOLVE_N:
            raise MissingTableError(
                f"Oware position {quote(position.text)} holds {position.seeds} seeds; tbdb "
                f"builds books of up to {MAX_SOLVE_N} seeds")
        return Location(table_name(position.seeds), position.index, plies=turns_left)

    def move_text(self, position, code: int, sym: int) -> str:
        return str(code)

    def successors(self, position: OwarePosition, turns_left: int = MAX_T) -> list[Successor]:
        out = []
        for house in range(6):
            after = position.play(house)
            if after is not None:
                child, captured = after
                out.append(Successor(str(house), child, captured,
                                     {"turns_left": turns_left - 1}))
        return out

    def start(self) -> OwarePosition:
        return OwarePosition((4,) * HOUSES)

    # ------------------------------------------------------------------ batch

    def encode_batch(self, positions: list[OwarePosition]) -> tuple:
        return (np.array([p.houses for p in positions], np.int8).reshape(-1, HOUSES),)

    def batch_locate(self, houses, turns_left=MAX_T) -> BatchLocation:
        """houses int[n, 12] (mover's view), plies left (a number or int[n], each 1..200)."""
        houses = np.asarray(houses)
        if houses.ndim != 2 or houses.shape[1] != HOUSES:
            raise InvalidArrayError(f"expected houses of shape (n, 12), got {houses.shape}")
        require_integers(houses=houses)
        # each house in range before any arithmetic: a sum of huge values wraps past the check
        bad = first_row_outside(houses, 0, TOTAL_SEEDS)
        seeds = None if bad is not None else houses.astype(np.int64).sum(axis=1)
        if bad is None and (seeds > TOTAL_SEEDS).any():
            bad = int(np.argmax(seeds > TOTAL_SEEDS))
        if bad is not None:
            raise InvalidArrayError(f"row {bad}: houses hold 0 or more seeds, {TOTAL_SEEDS} in "
                                    f"all at most; got {quote(houses[bad].tolist())}")
        t = np.asarray(turns_left)
        if not np.issubdtype(t.dtype, np.integer):
            raise InvalidArrayError(f"turns_left must be integers, not {t.dtype}")
        if t.shape not in ((), (len(houses),)):
            raise InvalidArrayError(f"expected turns_left as a number or of shape "
                                    f"({len(houses)},), got {t.shape}")
        t = np.broadcast_to(t, (len(houses),))
        bad = first_row_outside(t, 1, MAX_T)
        if bad is not None:
            raise InvalidArrayError(f"row {bad}: turns_left must be from 1 to {MAX_T}, got "
                                    f"{t[bad].item()!r}")
        houses = np.ascontiguousarray(houses, np.int8)
        idx = index.rank_many(houses)
        present = np.unique(seeds)
        which = np.searchsorted(present, seeds).astype(np.int32)
        return BatchLocation([table_name(int(s)) for s in present], which, idx,
                             np.zeros(len(houses), np.int8), np.zeros(len(houses), np.int8),
                             t.astype(np.int16))
