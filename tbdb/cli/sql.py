"""``tbdb sql``: read-only SQL on a tbdb database, streamed.

The file is opened read-only with external access, extension loading and configuration changes
switched off (``tbdb.db.connect.READ_CONFIG``), and only statements that read are run: nothing typed
here can write the database or any other file, read files outside it, or load code.  Results
stream in batches, so a result of any size takes constant memory: on a terminal the first rows
are shown with the total count; ``--csv``, ``--json`` and ``--parquet FILE`` write every row.
"""
from __future__ import annotations

import csv
import datetime as dt
import decimal
import json
import os
import signal
import sys
import threading

import duckdb

from tbdb.cli.parsing import DB_HELP
from tbdb.cli.stopping import leave_at_once
from tbdb.cli.tables import cell_text
from tbdb.errors import TbdbError, quote
from tbdb.safe_files import check_target, publish, remove_quietly, temporary_beside

NAME = "sql"
WRITES = False
BATCH = 10_000
READING = {"SELECT", "EXPLAIN", "PRAGMA"}  # statement types tbdb sql runs


class SqlError(TbdbError, ValueError):
    """A statement tbdb sql refuses or DuckDB cannot run."""


def add_parser(sub) -> None:
    q = sub.add_parser(NAME, help="run read-only SQL on the database",
                       description="Run SQL on the database, read-only (views: draw_analysis, "
                                   "symmetry_stats, build_progress and each game's; `tbdb games` "
                                   "lists them). Without a query: an interactive prompt.")
    q.add_argument("query", nargs="?")
    q.add_argument("--db", help=DB_HELP)
    fmt = q.add_mutually_exclusive_group()
    fmt.add_argument("--csv", action="store_true", help="write every row as CSV")
    fmt.add_argument("--json", action="store_true", help="write every row as JSON lines")
    fmt.add_argument("--parquet", metavar="FILE", help="write every row to a Parquet file")
    q.add_argument("--limit", type=int, default=40, metavar="N",
                   help="rows shown as a table (default 40); --all shows all")
    q.add_argument("--all", action="store_true", help="show every row as a table")


def on_signals(run):
    """Leave at once, but on the main thread: there Ctrl-C cancels the query running
    (``_run_cancellable``) and, at the prompt, clears the line."""
    return leave_at_once(NAME, run, worker=False)


def statements(con: duckdb.DuckDBPyConnection, text: str) -> list:
    """The statements of ``text`` (DuckDB's parser), each checked to be a read."""
    if not text or not text.strip().strip(";").strip():
        raise SqlError("empty query: give a SELECT statement (or no query for a prompt)")
    try:  # a byte that is not UTF-8 (in sys.argv, or at the prompt) arrives as a surrogate
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise SqlError(f"the query is not valid UTF-8: {quote(text)}") from None
    try:
        found = duckdb.extract_statements(text)
    except duckdb.Error as exc:
        raise SqlError(_first_line(str(exc))) from None
    for st in found:
        kind = st.type.name
        if kind not in READING:
            raise SqlError(f"tbdb sql is read-only and runs only queries; {_short(st.query)!r} is "
                           f"{'an' if kind[0] in 'AEIOU' else 'a'} {kind} statement")
        if kind == "PRAGMA" and not st.query.strip().lower().startswith(
                ("pragma show", "pragma table_info", "pragma database_size", "pragma version")):
            raise SqlError(f"tbdb sql runs only reading PRAGMAs (show_tables, table_info, "
                           f"database_size, version), not {_short(st.query)!r}")
    return found


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 60 else text[:57] + "..."


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else text


def _raise_damage(exc: duckdb.Error) -> None:
    """A damaged file is not the query's fault: DuckDB's error goes on to ``tbdb.cli.run``, which
    names the file and what to do."""
    from tbdb.db.connect import is_damage
    if is_damage(exc):
        raise exc


def _execute(con, query: str):
    try:
        return con.execute(query)
    except duckdb.Error as exc:
        _raise_damage(exc)
        raise SqlError(_first_line(str(exc))) from None


def run(args) -> int:
    import tbdb
    from tbdb.db.connect import default_db_path
    if args.db and os.path.isdir(args.db):
        raise SqlError(f"{args.db!r} is a directory of probe files, which answer lookups only: "
                       f"sql needs the DuckDB database they were exported from")
    path = args.db or default_db_path()
    if args.parquet:
        target = os.path.abspath(args.parquet)
        if target == os.path.abspath(path) or (os.path.exists(target) and os.path.exists(path)
                                               and os.path.samefile(target, path)):
            raise SqlError(f"--parquet {args.parquet!r} is the database itself; name another "
                           f"file")
        check_target(args.parquet, "--parquet")  # before the query runs: nothing half-done
    with tbdb.open(path) as tb:
        tb.store.prepare_for_sql()
        con = tb.store.con
        try:  # no statement may undo READ_CONFIG
            con.execute("SET lock_configuration = true")
        except duckdb.InvalidInputException:
            pass  # this process has locked the file's configuration already (an earlier run)
        if args.query is None:
            return _prompt(con, args)
        found = statements(con, args.query)
        for i, st in enumerate(found):
            if i and not (args.csv or args.json or args.parquet):
                print()
            _run_cancellable(con, st.query, args)
    return 0


def _run_cancellable(con, query: str, args) -> None:
    """``_run_one``, where Ctrl-C cancels the query (DuckDB's ``interrupt``) and raises
    ``KeyboardInterrupt`` (the command exits 130; the prompt goes on).  The default handler
    would raise inside DuckDB's wait, which reports it as ``RuntimeError: Query interrupted``."""
    if threading.current_thread() is not threading.main_thread():
        _run_one(con, query, args)  # only the main thread handles signals
        return
    hit = []

    def cancel(signum, frame):
        hit.append(signum)
        con.interrupt()

    previous = signal.signal(signal.SIGINT, cancel)
    try:
        _run_one(con, query, args)
    except Exception:
        if hit:  # the interrupted query's error (duckdb.InterruptException, as a SqlError)
            raise KeyboardInterrupt from None
        raise
    finally:
        signal.signal(signal.SIGINT, previous)
    if hit:
        raise KeyboardInterrupt


def _run_one(con, query: str, args) -> None:
    if args.parquet:
        _write_parquet(con, query, args.parquet)
        return
    cur = _execute(con, query)
    if cur.description is None:
        return
    columns = [d[0] for d in cur.description]
    if args.csv:
        w = csv.writer(sys.stdout, lineterminator="\n")
        w.writerow(columns)
        for rows in _batches(cur):
            w.writerows(rows)
    elif args.json:
        out = sys.stdout
        for rows in _batches(cur):
            out.write("".join(json.dumps(dict(zip(columns, r)), default=_json_value) + "\n"
                              for r in rows))
    else:
        _print_table(cur, columns, None if args.all else max(args.limit, 0))


def _batches(cur):
    while True:
        try:
            rows = cur.fetchmany(BATCH)
        except duckdb.Error as exc:
            _raise_damage(exc)
            raise SqlError(_first_line(str(exc))) from None
        if not rows:
            return
        yield rows


def _json_value(v):
    if isinstance(v, (dt.date, dt.datetime, dt.time)):
        return v.isoformat()
    if isinstance(v, decimal.Decimal):
        return float(v)
    if isinstance(v, bytes):
        return v.hex()
    return str(v)


def _write_parquet(con, query: str, path: str) -> None:
    """Every row to ``path`` through a fresh temporary file (``tbdb.safe_files``: renamed when
    complete, never written through a link), streamed in Arrow batches from a relation (a
    DB-API result would copy every row first)."""
    import pyarrow.parquet as pq
    try:
        relation = con.sql(query)
        if relation is None:
            return  # not a query that returns rows
        # DuckDB 2 names it to_arrow_reader, 1.x fetch_arrow_reader (both stream)
        fetch = getattr(relation, "to_arrow_reader", None) or relation.fetch_arrow_reader
        reader = fetch(BATCH * 10)
    except duckdb.Error as exc:
        _raise_damage(exc)
        raise SqlError(_first_line(str(exc))) from None
    check_target(path, "--parquet")
    fd, tmp = temporary_beside(path)
    try:
        with os.fdopen(fd, "wb") as f, pq.ParquetWriter(f, reader.schema) as writer:
            for batch in reader:
                writer.write_batch(batch)
        publish(tmp, path)
    finally:
        remove_quietly(tmp)


def _print_table(cur, columns: list[str], limit: int | None) -> None:
    shown: list[list[str]] = []
    total = 0
    for rows in _batches(cur):
        for r in rows:
            if limit is None or total < limit:
                shown.append([cell_text(v) for v in r])
            total += 1
        if limit is not None and total > limit and len(rows) < BATCH:
            break
    widths = [max([len(c)] + [len(r[i]) for r in shown]) for i, c in enumerate(columns)]
    out = sys.stdout
    out.write("  ".join(c.ljust(w) for c, w in zip(columns, widths)).rstrip() + "\n")
    out.write("  ".join("-" * w for w in widths) + "\n")
    for r in shown:
        out.write("  ".join(v.ljust(w) for v, w in zip(r, widths)).rstrip() + "\n")
    more = f", {len(shown):,} shown (--all or --csv for every row)" if len(shown) < total else ""
    out.write(f"({total:,} row{'s' if total != 1 else ''}{more})\n")


def _prompt(con, args) -> int:
    """An interactive read-only prompt: statements end with ';', Ctrl-D leaves."""
    interactive = sys.stdin.isatty()
    if hasattr(sys.stdin, "reconfigure"):  # a byte that is not UTF-8: an error line, not a crash
        sys.stdin.reconfigure(errors="surrogateescape")
    if interactive and threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.default_int_handler)  # Ctrl-C clears the line
    if interactive:
        print("tbdb sql (read-only). End statements with ';'. Ctrl-D to leave. "
              "Try: SELECT * FROM draw_analysis LIMIT 5;")
    buffer = ""
    while True:
        try:
            line = input("tbdb> " if not buffer else "  ... ") if interactive else \
                sys.stdin.readline()
        except EOFError:
            line = None
        except KeyboardInterrupt:  # interactive: drop what was typed, as a shell does
            print()
            buffer = ""
            continue
        if line is None or (not interactive and line == ""):
            if buffer.strip():
                _prompt_run(con, buffer, args)
            return 0
        buffer += line + "\n"
        if buffer.strip().endswith(";"):
            _prompt_run(con, buffer, args)
            buffer = ""


def _prompt_run(con, text: str, args) -> None:
    try:
        for st in statements(con, text):
            _run_cancellable(con, st.query, args)
    except SqlError as exc:
        print(f"error: {exc}", file=sys.stderr)
    except KeyboardInterrupt:
        sys.stdout.flush()
        print("interrupted: the query was cancelled", file=sys.stderr)
