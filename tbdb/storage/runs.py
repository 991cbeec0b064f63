"""Score-run storage: a net score by plies left (a game played to a move limit), stored
as runs of plies over which score and best move stay the same, in ``tb_score_runs``.  A
position's runs tile 1..horizon plies left; its value with the most plies left is its last run.
"""
from __future__ import annotations

import numpy as np
import pyarrow as pa

from tbdb.results import LineStep, LookupResult, MoveResult, score_outcome
import tbdb.storage.arrow_rows as arrow_rows
from tbdb.storage.base import Storage, StoredTable


class RunTable(StoredTable):
    def _load(self) -> None:
        from tbdb.solvers import lookup as kernels
        self.kernels = kernels
        self.runs = self.storage.load(self.store, self.row)

    def probe(self, key, plies=None):
        """(score, best move) of position ``key`` with ``plies`` left."""
        if not self.loaded:
            return self.storage.read_row(self.store, self.id, key, plies)
        r = self.runs
        if not 0 <= key < len(r.offsets) - 1 or r.offsets[key] == r.offsets[key + 1]:
            return None
        score, move = self.kernels.run_value(r.offsets, r.start, r.score, r.move, key, plies)
        return int(score), int(move)

    def gather(self, keys, plies):
        r = self.runs
        return self.kernels.run_values(r.offsets, r.start, r.score, r.move, keys,
                                       plies.astype(np.int16))


class RunStorage(Storage):
    name = "runs"
    values = "tb_score_runs"
    order = "idx"
    columns = "table_id, score, turns_left_to"
    # a position's value with the most plies left is its last run (turns_left_to = horizon)
    histogram_sql = ("SELECT score, count(*) FROM {src} WHERE table_id = $id AND turns_left_to = "
                     "(SELECT max(turns_left_to) FROM tb_score_runs WHERE table_id = $id) "
                     "GROUP BY ALL ORDER BY ALL")
    histogram_kind = "score"
    table_type = RunTable
    value_kind = "score"
    derives_best = False

    def describe(self, game) -> dict:
        return {"value_kind": self.value_kind, "plies_option": game.plies_option}

    def horizon(self, game) -> int:
        """The plies left a lookup assumes when none are given (the game's plies option)."""
        return next(o.default for o in game.lookup_options if o.name == game.plies_option)

    # ------------------------------------------------------------------ values
    def over_value(self, over) -> tuple:
        return over.score or 0, -1

    def lookup_result(self, game, text, got, best, loc, options) -> LookupResult:
        from tbdb.games.base import Location
        plies = loc.plies if isinstance(loc, Location) else options.get(game.plies_option)
        return LookupResult(game.name, text, score_outcome(got[0]), None, best,
                            {"score": got[0], game.plies_option: plies})

    def move_result(self, successor, got, child) -> MoveResult:
        score = successor.gain - got[0]
        return MoveResult(successor.move, score_outcome(score), None, child, {"score": score})

    def line_step(self, move, text, after) -> LineStep:
        return LineStep(move, text, score_outcome(after[0]), None, {"score": after[0]})

    def batch_columns(self, over) -> list[np.ndarray]:
        return [over.astype(np.int16), np.full(len(over), -1, np.int32)]

    # ------------------------------------------------------------------ writing
    def streams(self, table_id, data):
        stream = pa.RecordBatchReader.from_batches(arrow_rows.RUNS_SCHEMA,
                                                   _batches(table_id, data.values))
        return [("INSERT INTO tb_score_runs SELECT * FROM {src}", stream)]

    def row_count(self, data) -> int:
        return int(data.values.offsets[-1])

    # ------------------------------------------------------------------ reading
    def load(self, store, row):
        return self.load_runs(store, row["table_id"], row["slots"],
                              int(row["params"].get("horizon", 0)))

    def load_runs(self, store, table_id: int, positions: int, horizon: int):
        """A score table's runs (``tbdb.games.base.RunValues``), read a range of positions at a
        time (about ``LOAD_BATCH_RUNS`` runs: ``RunRanges``) straight into the arrays it
        returns: 4 bytes a run and 8 a position, where reading all columns at once took 18
        (and sorting them all in DuckDB more): Oware's 20-seed book holds 1.9 billion runs."""
        from tbdb.games.base import RunValues
        reader = RunRanges(store, table_id, positions, horizon)
        total = reader.total
        offsets = np.zeros(positions + 1, np.int64)
        start = np.empty(total, np.int16)
        score = np.empty(total, np.int8)
        move = np.empty(total, np.int8)
        for lo, at, counts, cols in reader:
            k = len(cols["idx"])
            start[at:at + k] = cols["turns_left_from"]
            score[at:at + k] = cols["score"]
            move[at:at + k] = cols["best_move"]
            offsets[lo + 1:lo + 1 + len(counts)] = counts
            del cols
        np.cumsum(offsets, out=offsets)
        return RunValues(offsets, start, score, move, horizon)

    def read_row(self, store, table_id: int, idx: int, plies: int) -> tuple[int, int] | None:
        rows = store.query("SELECT score, best_move FROM tb_score_runs WHERE table_id = ? AND "
                           "idx = ? AND ? BETWEEN turns_left_from AND turns_left_to",
                           [table_id, int(idx), int(plies)])
        return rows[0] if rows else None

    def samples(self, game):
        return ("SELECT t.table_name, r.idx FROM tb_score_runs r JOIN tb_tables t USING "
                "(table_id) WHERE t.game = ? AND r.turns_left_to >= ? "
                "ORDER BY r.score DESC, t.table_name, r.idx LIMIT 4",
                [game.name, self.horizon(game)])

    # the explorer's "find" kinds on a position's value with the most plies left
    _FIND = {"longest-win": ("score > 0", "score DESC, idx"),
             "longest-loss": ("score < 0", "score, idx"),
             "draw": ("score = 0", "hash(idx, $seed)"),
             "one-winning-move": ("score > 0", "hash(idx, $seed)")}

    def find_sql(self, game, kind):
        where, order = self._FIND[kind]
        return (f"SELECT idx, score FROM tb_score_runs WHERE table_id = $id AND turns_left_to = "
                f"$horizon AND {where} ORDER BY {order} LIMIT $limit",
                {"horizon": self.horizon(game)})

    def histogram_bins(self, rows, scale) -> list[dict]:
        return [{"rows": round(n * scale), "positions": round(n * scale), "score": int(s)}
                for s, n in rows]

    def tb_row(self) -> str:
        # the run a lookup without plies answers: the last one (the most plies left)
        return ("SELECT t.game, t.table_name, v.idx, NULL, NULL, NULL, NULL, v.best_move, NULL, "
                "v.score\n"
                "FROM loc, tb_tables t JOIN tb_score_runs v USING (table_id)\n"
                "WHERE t.game = game_name AND t.table_name = loc.w.table_name "
                "AND v.idx = loc.w.idx\n  AND v.turns_left_to = (SELECT max(r.turns_left_to) "
                "FROM tb_score_runs r WHERE r.table_id = t.table_id AND r.idx = loc.w.idx)")


#: Runs ``RunStorage.load_runs`` reads at a time (about 300 MB of columns).
LOAD_BATCH_RUNS = 1 << 24


class RunRanges:
    """A score table's runs read from ``tb_score_runs`` a range of positions at a time (about
    ``batch_runs`` runs a range, ``LOAD_BATCH_RUNS`` by default), each range checked as it
    comes (``_RunCheck``): what ``load_runs`` gathers into arrays and the probe-file export
    writes out a range at a time (``tbdb.probe_files.streamed_runs``), neither holding more
    than a range of the database's columns.

    ``total`` is the table's run count (one ``count(*)``); iterating gives, for each range
    ``lo..lo + len(counts) - 1`` of positions in order, ``(lo, at, counts, cols)``: ``at``
    the number of runs before the range, ``counts`` int64 runs of each position, ``cols``
    DuckDB's arrays of the range's runs ordered by position then plies (``idx``,
    ``turns_left_from``, ``turns_left_to``, ``score`` int16, ``best_move`` int32).  After the
    last range, a ``DamagedTableError`` if any run lay outside the table's positions or the
    runs did not tile 1..horizon."""

    def __init__(self, store, table_id: int, positions: int, horizon: int,
                 batch_runs: int | None = None):
        self.store, self.table_id = store, int(table_id)
        self.positions, self.horizon = int(positions), int(horizon)
        self.total = int(store.con.execute("SELECT count(*) FROM tb_score_runs WHERE "
                                           "table_id = ?", [self.table_id]).fetchall()[0][0])
        batch = LOAD_BATCH_RUNS if batch_runs is None else int(batch_runs)
        self.step = max(1, int(batch * self.positions // max(self.total, 1)))

    def __iter__(self):
        store, table_id, positions, total = self.store, self.table_id, self.positions, self.total
        check = _RunCheck(store, table_id, positions, self.horizon)
        at = 0
        for lo in range(0, max(positions, 1), self.step):
            hi = min(positions, lo + self.step)
            cols = store.con.execute(
                "SELECT idx, turns_left_from, turns_left_to, score, best_move FROM tb_score_runs "
                "WHERE table_id = ? AND idx >= ? AND idx < ? ORDER BY idx, turns_left_from",
                [table_id, lo, hi]).fetchnumpy()
            idx = np.asarray(cols["idx"], np.int64)
            k = len(idx)
            if at + k > total:
                raise store.damaged_table(table_id, "more runs than it counts")
            check.batch(idx, np.asarray(cols["turns_left_from"], np.int64),
                        np.asarray(cols["turns_left_to"], np.int64))
            counts = np.bincount(idx - lo, minlength=hi - lo) if k else \
                np.zeros(hi - lo, np.int64)
            del idx
            yield lo, at, counts, cols
            at += k
            del cols
        if at != total:  # runs outside 0 .. positions - 1
            bad = store.con.execute(
                "SELECT idx FROM tb_score_runs WHERE table_id = ? AND (idx < 0 OR idx >= ?) "
                "LIMIT 1", [table_id, positions]).fetchall()
            raise store.damaged_table(table_id, f"runs at idx {bad[0][0] if bad else '?'}, "
                                                f"outside its {positions} positions")
        check.finish()


class _RunCheck:
    """Each position's runs (read in batches of whole positions, sorted by idx, then start)
    must tile 1..horizon turns left exactly: a lookup takes the run whose [from, to] holds its
    turns left, so a gap or an overlap answers nothing or two values."""

    def __init__(self, store, table_id: int, positions: int, horizon: int):
        self.store, self.table_id, self.positions, self.horizon = store, table_id, positions, \
            horizon
        self.wrong = 0
        self.example = None  # (idx, start, end) of the first wrong run
        self.firsts = 0

    def batch(self, idx, start, end) -> None:
        if not len(idx):
            return
        first = np.ones(len(idx), bool)
        first[1:] = idx[1:] != idx[:-1]
        last = np.ones(len(idx), bool)  # a batch ends with a position's last run
        last[:-1] = first[1:]
        wrong = np.zeros(len(idx), bool)
        wrong[first] = start[first] != 1
        wrong[last] |= end[last] != self.horizon
        follows = ~last[:-1]  # run i is followed by run i + 1 of the same position
        wrong[:-1][follows] |= end[:-1][follows] != start[1:][follows] - 1
        wrong |= end < start
        count = int(np.count_nonzero(wrong))
        if count and self.example is None:
            at = int(np.argmax(wrong))
            self.example = (int(idx[at]), int(start[at]), int(end[at]))
        self.wrong += count
        self.firsts += int(np.count_nonzero(first))

    def finish(self) -> None:
        if self.wrong:
            i, a, b = self.example
            raise self.store.damaged_table(
                self.table_id, f"{self.wrong} runs that do not tile 1..{self.horizon} turns "
                               f"left, e.g. at idx {i} turns {a}..{b}")
        if self.firsts != self.positions:
            raise self.store.damaged_table(self.table_id, f"runs for {self.firsts} of its "
                                                          f"{self.positions} positions")


def _batches(table_id: int, runs):
    step = arrow_rows.BATCH
    off = runs.offsets
    n = len(off) - 1
    for lo in range(0, n, step):
        hi = min(n, lo + step)
        a, b = off[lo], off[hi]
        idx = np.repeat(np.arange(lo, hi, dtype=np.int64), np.diff(off[lo:hi + 1]))
        to = np.empty(b - a, np.int16)
        to[:-1] = runs.start[a + 1:b] - 1
        to[off[lo + 1:hi + 1] - 1 - a] = runs.horizon  # the last run of a position
        yield pa.record_batch([
            pa.array(np.full(b - a, table_id, np.int32)), pa.array(idx),
            pa.array(runs.start[a:b]), pa.array(to), pa.array(runs.score[a:b].astype(np.int16)),
            pa.array(runs.move[a:b].astype(np.int32))], schema=arrow_rows.RUNS_SCHEMA)
