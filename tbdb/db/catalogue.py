"""The catalogue of built tables (``tb_tables``, ``tb_stats``) and the build checkpoints
(``build_checkpoints``, ``build_levels``) of an open database: ``Catalogue`` is that part of
``tbdb.db.store.Store``, with the transaction and bulk-insert helpers every write goes through.
"""
from __future__ import annotations

import datetime as dt
from typing import Any, Iterable

import duckdb
import pyarrow as pa

from tbdb.db.connect import is_disk_full
from tbdb.errors import DamagedTableError, MissingTableError, NotADatabaseError, quote
from tbdb import safe_json
from tbdb.db.values_files import ValuesFile


class Catalogue:
    """The catalogue and checkpoints of ``self.con`` (mixed into ``tbdb.db.store.Store``)."""

    # ------------------------------------------------------------------ catalogue

    def tables(self, game: str | None = None) -> list[dict]:
        """Catalogue rows (dicts, params decoded), of one game or all."""
        where, args = ("WHERE game = ?", [game]) if game else ("", [])
        cur = self.con.execute(f"SELECT * FROM tb_tables {where} ORDER BY game, table_name", args)
        cols = [d[0] for d in cur.description]
        out = []
        for row in cur.fetchall():
            item = dict(zip(cols, row))
            item["params"] = self._params(item["game"], item["table_name"], item["params"])
            out.append(item)
        return out

    def table(self, game: str, table: str) -> dict | None:
        """The catalogue row of a table that is completely built, or None."""
        rows = self.query(
            "SELECT t.table_id, t.storage, t.params, t.layout, t.slots, t.positions "
            "FROM tb_tables t JOIN build_checkpoints c ON c.game = t.game AND "
            "c.table_name = t.table_name AND c.state = 'done' "
            "WHERE t.game = ? AND t.table_name = ?", [game, table])
        if not rows:
            return None
        table_id, storage, params, layout, slots, positions = rows[0]
        for name, count in (("slots", slots), ("positions", positions)):
            if count is None or count < 0:
                self._refuse(game, table, f"{count} {name}")
        return {"table_id": table_id, "storage": storage,
                "params": self._params(game, table, params), "layout": layout, "slots": slots,
                "positions": positions, "table_name": table}

    def _params(self, game: str, table: str, text) -> dict:
        """A catalogue row's params: the JSON object tbdb writes, else ``NotADatabaseError``."""
        try:
            params = safe_json.loads(text)
        except (TypeError, ValueError):
            params = None
        if not isinstance(params, dict):
            self._refuse(game, table, f"params {quote(text)}")
        return params

    def _refuse(self, game: str, table: str, what: str):
        raise NotADatabaseError(f"{self.path!r} records {what} for {game} table {table!r}, "
                                f"which tbdb never writes; tbdb does not read such a file")

    def require_table(self, game: str, table: str, what: str, how: str) -> dict:
        """The catalogue row of a built table, else ``MissingTableError`` saying how to build
        it (``what`` names what needs it, ``how`` is the build command, None: there is none)."""
        row = self.table(game, table)
        if row is None:
            state = self.states(game).get(table)
            raise MissingTableError(
                f"{what} needs table {table!r} of {game}, which is not built in {self.path!r}"
                + (f" (state: {state})" if state and state != "done" else "")
                + (f"; build it with: {how} --db {self.path}" if how else
                   "; this tbdb builds no such table"))
        return row

    # ------------------------------------------------------------------ checkpoints

    def states(self, game: str) -> dict[str, str]:
        rows = self.query("SELECT table_name, state FROM build_checkpoints WHERE game = ?", [game])
        return dict(rows)

    def plan(self, game: str, tables: Iterable[str]) -> None:
        """Record the tables a build will make (pending), leaving known ones as they are."""
        known = self.states(game)
        new = [name for name in tables if name not in known]
        if new:
            self.insert_rows("INSERT INTO build_checkpoints (game, table_name, state) "
                         "SELECT ?, table_name, 'pending' FROM {src}",
                         pa.table({"table_name": new}), [game])

    def mark_building(self, game: str, table: str) -> None:
        self.con.execute(
            "UPDATE build_checkpoints SET state = 'building', started = ?, finished = NULL, "
            "seconds = NULL, rows = NULL WHERE game = ? AND table_name = ?",
            [dt.datetime.now(), game, table])

    def levels_done(self, game: str, table: str) -> dict[int, int]:
        """Levels of a level-by-level table already stored: {level: rows}."""
        return dict(self.query("SELECT level, rows FROM build_levels WHERE game = ? AND "
                               "table_name = ?", [game, table]))

    # ------------------------------------------------------------------ writing

    def insert_rows(self, sql: str, arrow: Any, params: list | None = None) -> None:
        name = "_tbdb_load"
        self.con.register(name, arrow)
        try:
            self.con.execute(sql.format(src=name), params or [])
        except BaseException:
            try:  # an aborted transaction refuses even this; the caller rolls back
                self.con.unregister(name)
            except duckdb.Error:
                pass
            raise
        self.con.unregister(name)

    def _transaction(self, work) -> None:
        con = self.con
        con.begin()
        try:
            work()
            con.commit()
        except BaseException as exc:
            try:
                con.rollback()
            except duckdb.TransactionException:
                pass  # DuckDB already aborted it (an interrupted statement does)
            if isinstance(exc, (duckdb.InterruptException, RuntimeError)) and \
                    "interrupted" in str(exc):
                raise KeyboardInterrupt from exc  # Ctrl-C inside a DuckDB statement
            if isinstance(exc, duckdb.Error) and is_disk_full(exc):
                raise OSError(28, f"the disk holding {self.path!r} is full; nothing of the table "
                                  f"being written was kept: free space and run the same build "
                                  f"again to resume") from exc
            raise

    def table_ids(self, game: str, table: str) -> tuple[int | None, int]:
        """(the table's current id or None, a fresh id)."""
        old = self.query("SELECT table_id FROM tb_tables WHERE game = ? AND table_name = ?",
                         [game, table])
        (top,), = self.query("SELECT coalesce(max(table_id), 0) FROM tb_tables")
        return (old[0][0] if old else None), top + 1

    def delete_table(self, table_id: int) -> None:
        for t in ("tb_index_rows", "tb_key_values", "tb_score_runs", "tb_stats", "tb_tables"):
            self.con.execute(f"DELETE FROM {t} WHERE table_id = ?", [table_id])
        if self.query("SELECT 1 FROM tb_index_files WHERE table_id = ?", [table_id]):
            self.con.execute("DELETE FROM tb_index_files WHERE table_id = ?", [table_id])
            self.refresh_index_view()

    # ------------------------------------------------------------------ reading

    def values_file(self, table_id: int) -> ValuesFile | None:
        """The Parquet file holding an index table's values, if they are not in the database."""
        rows = self.query("SELECT path, rows, bytes, sha256 FROM tb_index_files "
                          "WHERE table_id = ?", [table_id])
        return ValuesFile(*rows[0]) if rows else None

    def checked_file(self, table_id: int) -> ValuesFile | None:
        f = self.values_file(table_id)
        if f is not None:
            rows = self.query("SELECT game, table_name FROM tb_tables WHERE table_id = ?",
                              [table_id])
            f.check(self.path, *(rows[0] if rows else (None, None)))
        return f

    def table_label(self, table_id: int) -> str:
        rows = self.query("SELECT game, table_name FROM tb_tables WHERE table_id = ?", [table_id])
        return f"{rows[0][0]} table {rows[0][1]!r}" if rows else f"table id {table_id}"

    def damaged_table(self, table_id: int, what: str,
                      name: str | None = None) -> DamagedTableError:
        name = name or self.table_label(table_id)
        return DamagedTableError(f"{name} in {self.path!r} is damaged: it holds {what}; build "
                                 f"it again with --rebuild")
