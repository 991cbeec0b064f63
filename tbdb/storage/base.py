"""What a storage kind is: the ``Storage`` base class, and the two kinds of value it stores.

A storage kind owns everything that depends on how a table's values are laid out in the file:
writing them (Arrow streams into its value table), loading them back (into the arrays a build
or the prober reads), probing one row (in memory, or straight from the file for large tables),
its histogram and sample SQL for the web app, and its branch of the ``tb_row`` macro.  The core
asks ``tbdb.storage.storage_of(game)`` for the object and calls it; it never asks which kind
it holds.

Two kinds of value sit on top of the layouts: win/draw/loss with a distance (``WdlStorage``:
index and key tables) and a net score by plies left (score runs).  They shape what lookups
return: the value of a finished game, a ``LookupResult``, a move's or a line step's value, and
the columns of the batch form.
"""
from __future__ import annotations

import numpy as np

from tbdb.results import LineStep, LookupResult, MoveResult, outcome_name

# The Numba kernels (``tbdb.solvers``) are imported where they are used, not here: the command
# line imports the store, and compiling nothing still costs a noticeable wait to import Numba.


class RowMissing(LookupError):
    """A batch row whose key a loaded table has no value for (the table is damaged): ``row``
    (its place among the rows asked) and ``key`` (as the damage report quotes it)."""

    def __init__(self, row: int, key):
        super().__init__(row, key)
        self.row, self.key = row, key


class StoredTable:
    """One built table as the prober holds it: its catalogue row, and its values once loaded
    (``load``); until then single rows are read from the file (``probe``)."""

    def __init__(self, storage: Storage, store, row: dict):
        self.storage = storage
        self.store = store
        self.name = row["table_name"]
        self.id = row["table_id"]
        self.params = row["params"]
        self.row = row
        self.loaded = False

    def load(self) -> None:
        if not self.loaded:
            self._load()
            self.loaded = True

    def _load(self) -> None:
        raise NotImplementedError

    def probe(self, key, plies: int | None = None) -> tuple | None:
        """The stored value at ``key`` (``plies`` left, score tables), or None if no row."""
        raise NotImplementedError

    def gather(self, keys: np.ndarray, plies: np.ndarray | None) -> tuple[np.ndarray, ...]:
        """The value columns of batch rows ``keys`` (the table loaded); ``RowMissing`` for a
        row the table has no value for."""
        raise NotImplementedError


class Storage:
    """A storage kind (see the module docstring); one instance per kind, no state."""
    name: str = ""  # what the catalogue's ``storage`` column and ``Game.storage`` say
    values: str = ""  # the table (or view) holding the values, with a ``table_id`` column
    order: str = ""  # the column rows were stored in order of (histogram slices)
    columns: str = ""  # the columns a histogram reads
    histogram_sql: str = ""  # the GROUP BY over one table's rows ({src}; $id: the table_id)
    histogram_kind: str = ""  # what its histogram's bins count: 'distance' or 'score'
    by_levels = False  # solved and stored a level at a time (resumable mid-table)
    clusterable = False  # a Dask cluster can build it (``tbdb.cluster.dask_build``)
    fits_memory = False  # its solve picks the retrograde mode that fits ``--memory``
    builds_probe_files = False  # ``build --probe-files``: coded into probe files as it solves
    table_type: type[StoredTable] = StoredTable
    probe_file = None  # its probe-file layout (``probe_layouts.ProbeLayout``, set in __init__)

    # ------------------------------------------------------------------ value kind
    value_kind: str = "wdl"
    derives_best = True  # a missing best move can be derived from the children's values

    def describe(self, game) -> dict:
        """What the web app's game list says of the values (``value_kind``, ``plies_option``)."""
        return {"value_kind": self.value_kind, "plies_option": None}

    def over_value(self, over) -> tuple:
        """The value of a finished game (``GameOver``), in the form ``probe`` returns."""
        raise NotImplementedError

    def lookup_result(self, game, text: str, got: tuple, best: str | None, loc,
                      options: dict) -> LookupResult:
        raise NotImplementedError

    def move_result(self, successor, got: tuple, child: str) -> MoveResult:
        """What ``successor`` leads to, its position's stored value ``got``."""
        raise NotImplementedError

    def line_step(self, move: str, text: str, after: tuple) -> LineStep:
        raise NotImplementedError

    def batch_columns(self, over: np.ndarray) -> list[np.ndarray]:
        """The batch form's columns, finished games filled in from ``over``; best move last."""
        raise NotImplementedError

    # ------------------------------------------------------------------ solving
    def solve(self, game, table: str, deps: dict, mode: str, progress, store=None,
              fresh: bool = False):
        """``game``'s table solved by the generic retrograde, as a ``TableData`` (a game whose
        tables the generic engine does not solve overrides ``Game.solve``); kinds solved
        level by level store each level in ``store`` as it is solved."""
        raise NotImplementedError(f"{game.name} does not say how to solve its tables")

    def verify(self, game, table: str, values, deps: dict) -> tuple[list[str], int]:
        """(examples, count) of stored positions the generic retrograde check contradicts."""
        raise NotImplementedError(f"{game.name} does not say how to verify its tables")

    # ------------------------------------------------------------------ writing
    def write(self, store, game: str, table: str, data, values_file=None) -> tuple[int, int]:
        """Store a solved table's values (inside the store's transaction, before its catalogue
        row): (its table_id, the number of value rows)."""
        old, new = store.table_ids(game, table)
        if old is not None:
            store.delete_table(old)
        for sql, stream in self.streams(new, data):
            store.insert_rows(sql, stream)
        return new, self.row_count(data)

    def streams(self, table_id: int, data) -> list[tuple[str, object]]:
        """(INSERT statement reading {src}, Arrow stream) pairs of a table's values."""
        raise NotImplementedError

    def row_count(self, data) -> int:
        raise NotImplementedError

    def shared_table(self, game, table: str) -> str | None:
        """The table whose rows hold ``table``'s positions when builds share them, or None."""
        return None

    # ------------------------------------------------------------------ reading
    def size(self, row: dict) -> int:
        """Rows a catalogue row's table holds in memory (the prober loads small tables)."""
        return row["positions"]

    def load(self, store, row: dict):
        """A built table's values as builds read them back (``Game.from_stored`` takes them)."""
        raise NotImplementedError

    def open(self, store, row: dict, load: bool) -> StoredTable:
        """The table of catalogue row ``row`` as the prober holds it (loaded if ``load``)."""
        t = self.table_type(self, store, row)
        if load:
            t.load()
        return t

    def samples(self, game) -> tuple[str, list]:
        """(SQL, parameters): (table name, key) of a few stored positions of ``game`` worth a
        look, the best first (the web app's starting points)."""
        raise NotImplementedError

    def find_sql(self, game, kind: str) -> tuple[str, dict] | None:
        """(SQL, parameters) selecting (key, a value column) of one table's stored positions of
        a kind the explorer's "find" links name (``tbdb.web.find.KINDS``), best first;
        parameters $id (the table_id), $seed (random kinds) and $limit are left to the caller.
        None: the kind does not apply to this storage."""
        raise NotImplementedError

    def histogram_bins(self, rows: list[tuple], scale: float) -> list[dict]:
        """``histogram_sql``'s rows as the keyword arguments of ``tbdb.web.histogram.Bin``."""
        raise NotImplementedError

    def tb_row(self) -> str:
        """Its branch of the ``tb_row`` macro: a SELECT of (game, table_name, idx, key0, key1,
        result, distance, best_move, multiplicity, score) from ``loc.w`` (``tb_locate``)."""
        raise NotImplementedError


class WdlStorage(Storage):
    """Win/draw/loss values with a distance in plies (index and key tables)."""
    histogram_kind = "distance"
    histogram_sql = ("SELECT result, distance, count(*), sum(multiplicity) FROM {src} "
                     "WHERE table_id = $id AND result BETWEEN -1 AND 1 GROUP BY ALL ORDER BY ALL")
    columns = "table_id, result, distance, multiplicity"

    def over_value(self, over) -> tuple:
        return over.result, 0, -1

    def lookup_result(self, game, text, got, best, loc, options) -> LookupResult:
        return LookupResult(game.name, text, outcome_name(got[0]), got[1], best)

    def move_result(self, successor, got, child) -> MoveResult:
        from tbdb.solvers.retrograde import DRAW
        r, d = got[0], got[1]
        outcome = outcome_name(r if successor.same_side else -r)
        return MoveResult(successor.move, outcome, 0 if r == DRAW else d + 1, child)

    def line_step(self, move, text, after) -> LineStep:
        return LineStep(move, text, outcome_name(after[0]), after[1])

    def batch_columns(self, over) -> list[np.ndarray]:
        n = len(over)
        return [over.astype(np.int8), np.zeros(n, np.int16), np.full(n, -1, np.int32)]

    # the explorer's "find" kinds: (which rows, in which order); {key}: the storage's key
    _FIND = {"longest-win": ("result = 1", "distance DESC, {key}"),
             "longest-loss": ("result = -1", "distance DESC, {key}"),
             "draw": ("result = 0", "hash({key}, $seed)"),
             "one-winning-move": ("result = 1", "hash({key}, $seed)")}
    key_sql = ""  # the expression of a stored row's key, as ``Game.slot_text`` reads it

    def find_sql(self, game, kind):
        where, order = self._FIND[kind]
        return (f"SELECT {self.key_sql}, distance FROM {self.values} WHERE table_id = $id AND "
                f"{where} ORDER BY {order.format(key=self.key_sql)} LIMIT $limit", {})

    def histogram_bins(self, rows, scale) -> list[dict]:
        from tbdb.results import OUTCOMES
        return [{"rows": round(n * scale), "positions": round(p * scale),
                 "outcome": OUTCOMES[int(r)], "distance": int(d)} for r, d, n, p in rows]


def check_filled(result: np.ndarray, at: np.ndarray) -> None:
    """``RowMissing`` for the first gathered ``result`` with no value (NONE), ``at``: where
    each was read."""
    from tbdb.solvers.retrograde import NONE
    if (result == NONE).any():
        bad = int(np.argmax(result == NONE))
        raise RowMissing(bad, int(at[bad]))
