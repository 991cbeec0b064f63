"""SQL functions on tbdb's own connections (``tb.sql``, ``tbdb sql``): the power of ``lookup``
in a query.

    tb_lookup(game, position)    STRUCT(outcome, distance, score, best_move): the value of any
                                 position, in any orientation; NULL if its table is not built
    tb_canonical(game, position) the text of the stored row that answers it (what the
                                 readable views show); NULL if its table is not built
    tb_locate(game, position)    STRUCT(table_name, idx, key0, key1, key_constraint): where that
                                 row is, so a query can go straight to it (see ``tb_row``)
    tb_position(game, table, idx) the text of the position stored in slot ``idx`` of an index
                                 table (the readable form of ``tb_index_values``' rows); NULL
                                 for a slot outside the table
    tb_move_name(game, position, move) a legal move as players write it in that position
                                 (the game's ``move_name``: its players' notation, e.g. SAN)
    tb_row(game, position)       a table macro: the stored values row of the position (one
                                 branch per storage kind; score runs: the run with the most
                                 plies left, its ``score`` in the last column)

The views over these functions (``sql/functions/``: ``chess_positions``) are made TEMP beside
them.  Malformed text is an error quoting it, as everywhere.  Other DuckDB clients do not have these
functions (they are registered by tbdb on its connections, not stored in the file).
"""
from __future__ import annotations

import copy
import os

import duckdb

from tbdb import games
from tbdb.db.connect import sibling
from tbdb.db.sql_files import function_view_files, statements
from tbdb.errors import DatabaseBusyError, MissingTableError
from tbdb.games.base import GameOver

LOOKUP_TYPE = "STRUCT(outcome VARCHAR, distance INTEGER, score INTEGER, best_move VARCHAR)"
LOCATE_TYPE = ("STRUCT(table_name VARCHAR, idx BIGINT, key0 BIGINT, key1 BIGINT, "
               "key_constraint INTEGER)")



def tb_row_sql() -> str:
    """The ``tb_row`` macro: each storage kind's branch (``Storage.tb_row``), the location
    computed once (a materialised CTE), not once per scanned row."""
    from tbdb.storage import KINDS
    return ("CREATE OR REPLACE TEMP MACRO tb_row(game_name, position) AS TABLE\n"
            "WITH loc AS MATERIALIZED (SELECT tb_locate(game_name, position) AS w)\n"
            + "\nUNION ALL\n".join(kind.tb_row() for kind in KINDS.values()))


# DuckDB keeps functions per database instance, and a process opening one file twice shares
# the instance: so the functions are registered once per file and answer through the most
# recently opened of that file's live tablebases.  They are registered on a connection of their
# own, closed with the file's last tablebase: a function stays in the instance after the
# connection that registered it has closed, but DuckDB frees what calls it then, and the next
# call crashed the process (when a tablebase closed while another on the file stayed open).
_LIVE: dict[str, list] = {}
_HOLDERS: dict[str, duckdb.DuckDBPyConnection] = {}


class Registration:
    """The functions' hold on one open tablebase; ``release()`` when it closes."""

    def __init__(self, path: str, inner, prober):
        self.path, self.inner, self.prober = path, inner, prober

    def release(self) -> None:
        live = _LIVE.get(self.path, [])
        if self in live:
            live.remove(self)
        connections = [self.inner.con]
        if not live and self.path in _HOLDERS:
            connections.append(_HOLDERS.pop(self.path))
        for con in connections:
            try:
                con.close()
            except duckdb.Error:
                pass


def register(store, prober_type) -> Registration:
    """Register the functions on ``store.con``.  Lookups inside a query run on a second
    connection to the same database (a query cannot issue queries on its own connection)."""
    inner = copy.copy(store)
    inner.con = store.con.cursor()
    path = os.path.realpath(store.path)  # DuckDB shares one instance per file
    mine = Registration(path, inner, prober_type(inner))
    if path not in _HOLDERS:
        holder = sibling(store.path)  # (not a cursor: one closes with its connection)
        try:
            _create(holder, path)
        except duckdb.CatalogException:
            holder.close()
            inner.con.close()
            raise DatabaseBusyError(
                f"{store.path!r} is open on another DuckDB connection of this process that "
                f"outlived the tablebase which gave it tbdb's SQL functions; close it and "
                f"open the tablebase again") from None
        _HOLDERS[path] = holder
    _LIVE.setdefault(path, []).append(mine)
    store.con.execute(tb_row_sql())
    for file in function_view_files():
        for statement in statements(file):
            store.con.execute(statement)
    return mine


def _current(path: str) -> Registration:
    live = _LIVE.get(path)
    if not live:
        raise RuntimeError(f"the tablebase {path!r} is closed")
    return live[-1]


def _create(con, path: str) -> None:
    for name, fn, params, kind, vectors in _functions(path):
        con.create_function(name, fn, params, kind, type="arrow" if vectors else "native",
                            null_handling="special", side_effects=False)


def _functions(path: str) -> list[tuple]:
    """(name, function, parameter types, return type, whether it takes Arrow vectors) of each
    function, answering through ``path``'s current registration."""
    def _game_position(game_name: str, text: str):
        g = games.get(game_name)
        return g, g.coerce(text)

    def tb_lookup(game_name, text):
        if game_name is None or text is None:
            return None
        g, position = _game_position(game_name, text)
        try:
            r = _current(path).prober.lookup(g, position)
        except MissingTableError:
            return None
        return {"outcome": r.outcome, "distance": r.distance,
                "score": r.extras.get("score"), "best_move": r.best_move}

    def tb_canonical(game_name, text):
        loc = _locate(game_name, text)
        if loc is None or isinstance(loc, GameOver):
            return None
        g = games.get(game_name)
        try:  # the prober caches the catalogue row: no query per call
            _current(path).prober.table(g, loc.table, f"position {text!r}")
        except MissingTableError:
            return None
        return g.slot_text(loc.table, loc.key)

    def tb_locate(game_name, text):
        loc = _locate(game_name, text)
        if loc is None or isinstance(loc, GameOver):
            return None
        key = loc.key
        if isinstance(key, tuple):
            return {"table_name": loc.table, "idx": None, "key0": int(key[0]),
                    "key1": int(key[1]), "key_constraint": int(key[2])}
        return {"table_name": loc.table, "idx": int(key), "key0": None, "key1": None,
                "key_constraint": None}

    def _locate(game_name, text):
        if game_name is None or text is None:
            return None
        g, position = _game_position(game_name, text)
        try:
            loc = g.locate(position)
            if not isinstance(loc, GameOver) and loc.table is None:
                # the game keeps positions in several tables (shared key stores): the built
                # one holding it, as lookups find it
                loc, _ = _current(path).prober.search(g, loc, f"position {text!r}", text)
            return loc
        except MissingTableError:
            return None

    def tb_position(game_names, tables, idxs):
        """A vector of rows at a time (an Arrow function): each (game, table)'s slots to
        ``Game.slot_texts`` together, a slot outside its table NULL."""
        import pyarrow as pa
        game_names, tables, idxs = game_names.to_pylist(), tables.to_pylist(), idxs.to_pylist()
        out = [None] * len(idxs)
        groups: dict[tuple[str, str], list[int]] = {}
        for row, key in enumerate(zip(game_names, tables)):
            if key[0] is not None and key[1] is not None and idxs[row] is not None:
                groups.setdefault(key, []).append(row)
        for (game_name, table), rows in groups.items():
            g = games.get(game_name)
            g.check_table(table)
            for row, text in zip(rows, g.slot_texts(table, [idxs[r] for r in rows])):
                out[row] = text
        return pa.array(out, pa.string())

    def tb_move_name(game_names, texts, moves):
        import pyarrow as pa
        out = []
        for game_name, text, move in zip(game_names.to_pylist(), texts.to_pylist(),
                                         moves.to_pylist()):
            if game_name is None or text is None or move is None:
                out.append(None)
            else:
                g, position = _game_position(game_name, text)
                out.append(g.move_name(position, move))
        return pa.array(out, pa.string())

    two = ["VARCHAR", "VARCHAR"]
    return [("tb_lookup", tb_lookup, two, LOOKUP_TYPE, False),
            ("tb_canonical", tb_canonical, two, "VARCHAR", False),
            ("tb_locate", tb_locate, two, LOCATE_TYPE, False),
            ("tb_position", tb_position, ["VARCHAR", "VARCHAR", "BIGINT"], "VARCHAR", True),
            ("tb_move_name", tb_move_name, ["VARCHAR"] * 3, "VARCHAR", True)]
