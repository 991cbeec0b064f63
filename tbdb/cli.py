"""The ``tbdb`` command: build, lookup, sql, status, verify."""
from __future__ import annotations

import argparse
import json
import os
import sys

from tbdb.store import DEFAULT_DB_ENV, default_db_path

DB_HELP = f"DuckDB file (default: ${DEFAULT_DB_ENV}, else ./tbdb.duckdb)"


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    return value


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="tbdb", description="Endgame tablebases: build with Numba, store in DuckDB, query "
                                 "in SQL and Python.")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    b = sub.add_parser("build", help="build tables (resumes an interrupted build)",
                       description="Build a game's tables into a DuckDB file. Running the same "
                                   "command again resumes: done tables are skipped.")
    b.add_argument("game", help="cdc or oware")
    b.add_argument("--db", help=DB_HELP)
    b.add_argument("--max-pieces", type=_positive_int,
                   help="cdc: every endgame with 2..N pieces (default 3, at most 4)")
    b.add_argument("--material", help="cdc: one table (e.g. KMvGP) and the tables it needs")
    b.add_argument("--max-seeds", type=_positive_int,
                   help="oware: the books for 1..N seeds on the board (default 12)")
    b.add_argument("--no-progress", action="store_true", help="no progress bar")

    lk = sub.add_parser("lookup", help="the value of a position and of each of its moves",
                        description="Print a position's value, best move, and every legal move "
                                    "with what it leads to, best first.")
    lk.add_argument("game", help="cdc or oware")
    lk.add_argument("position", help="position text, e.g. '4g2K/8/8/8 r'")
    lk.add_argument("--db", help=DB_HELP)
    lk.add_argument("--turns-left", type=_positive_int,
                    help="oware: plies left before the 200-ply limit (default 200)")
    lk.add_argument("--json", action="store_true", help="print JSON")

    q = sub.add_parser("sql", help="run SQL on the database and print the result",
                       description="Run one SQL statement (views: cdc_positions, draw_analysis, "
                                   "symmetry_stats, build_checkpoints, ...).")
    q.add_argument("query")
    q.add_argument("--db", help=DB_HELP)
    q.add_argument("--csv", action="store_true", help="print CSV instead of a table")

    s = sub.add_parser("status", help="build checkpoints: which tables are done",
                       description="Show the build checkpoints stored in the database.")
    s.add_argument("--db", help=DB_HELP)
    s.add_argument("--game", help="only this game")
    s.add_argument("--all", action="store_true", help="one line per table, not a summary")

    v = sub.add_parser("verify", help="re-derive every stored value from its children",
                       description="Check every stored value against one ply of moves and the "
                                   "stored values of the children; exit 1 on any mismatch.")
    v.add_argument("--db", help=DB_HELP)
    v.add_argument("--game", help="only this game")
    v.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "build" and argv is None:  # the tbdb command, not a call from Python
        import signal
        signal.signal(signal.SIGINT, _stop_now)
    import tbdb  # after argument parsing, so --help stays quick
    try:
        return _COMMANDS[args.command](args)
    except (tbdb.TbdbError, OSError) as exc:
        print(f"tbdb {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"\ntbdb {args.command}: interrupted; finished tables are kept, run the same "
              f"command again to resume", file=sys.stderr)
        return 130


def _stop_now(signum, frame) -> None:
    """Ctrl-C during a build: leave at once, as kill -9 would.  That is safe at any moment (each
    table commits with its checkpoint in one transaction) and, unlike a KeyboardInterrupt, it
    cannot surface as some other error from inside Numba or DuckDB."""
    sys.stderr.write("\ntbdb build: interrupted; finished tables are kept, run the same command "
                     "again to resume\n")
    sys.stderr.flush()
    os._exit(130)


def _build(args) -> int:
    import tbdb
    options = {k: v for k, v in (("max_pieces", args.max_pieces), ("material", args.material),
                                 ("max_seeds", args.max_seeds)) if v is not None}
    summary = tbdb.build(args.game, db=args.db, progress=not args.no_progress, **options)
    print(summary)
    with tbdb.open(summary.db) as tb:
        label = "seeds" if args.game == "oware" else "pieces"
        rows = tb.sql(
            "SELECT pieces, sum(positions), sum(wins), sum(draws), sum(losses), max(longest_win) "
            "FROM draw_analysis WHERE game = ? GROUP BY pieces ORDER BY pieces", [args.game])
        _print_rows([label, "positions", "wins", "draws", "losses", "longest win"],
                    [(p, f"{n:,}", f"{w:,}", f"{d:,}", f"{lo:,}", lw) for p, n, w, d, lo, lw in rows])
    return 0


def _lookup(args) -> int:
    import tbdb
    from tbdb import games
    game = games.get(args.game)
    options = {"turns_left": args.turns_left} if args.turns_left is not None else {}
    with tbdb.open(args.db) as tb:
        r = tb.lookup(game.parse(args.position), game=game.name, **options)
        moves = r.moves
    if args.json:
        out = {k: v for k, v in vars(r).items() if not k.startswith("_") and k != "moves_fn"}
        out["moves"] = [{k: v for k, v in vars(m).items() if v is not None} for m in moves]
        print(json.dumps(out))
        return 0
    print(f"position:  {r.position}")
    if r.score is not None:
        print(f"score:     {r.score:+d} (with {r.turns_left} plies left)")
    print(f"outcome:   {r.outcome}" + (f" in {r.distance} plies" if r.distance is not None and
                                       r.outcome != "draw" else ""))
    print(f"best move: {r.best_move or '(none: no legal move)'}")
    if moves:
        print("moves:")
        for m in moves:
            if m.score is not None:
                print(f"  {m.move:8} {m.score:+d}")
            else:
                tail = f" in {m.distance}" if m.outcome != "draw" else ""
                print(f"  {m.move:8} {m.outcome}{tail}")
    return 0


def _print_rows(columns: list[str], rows: list[tuple], csv: bool = False) -> None:
    if csv:
        import csv as csvmod
        w = csvmod.writer(sys.stdout)
        w.writerow(columns)
        w.writerows(rows)
        return
    text = [[("" if v is None else str(v)) for v in row] for row in rows]
    widths = [max([len(c)] + [len(r[i]) for r in text]) for i, c in enumerate(columns)]
    print("  ".join(c.ljust(w) for c, w in zip(columns, widths)))
    print("  ".join("-" * w for w in widths))
    for r in text:
        print("  ".join(v.ljust(w) for v, w in zip(r, widths)))
    print(f"({len(rows)} row{'s' if len(rows) != 1 else ''})")


def _sql(args) -> int:
    import duckdb

    import tbdb
    with tbdb.open(args.db) as tb:
        try:
            cur = tb.store.con.execute(args.query)
        except duckdb.Error as exc:
            print(f"tbdb sql: error: {exc}", file=sys.stderr)
            return 2
        if cur.description is None:
            return 0
        _print_rows([d[0] for d in cur.description], cur.fetchall(), args.csv)
    return 0


def _status(args) -> int:
    import tbdb
    path = args.db or default_db_path()
    with tbdb.open(path) as tb:
        where, params = ("WHERE game = ?", [args.game]) if args.game else ("", None)
        if args.all:
            cols = ["game", "table_name", "state", "rows", "started", "finished", "seconds"]
            rows = tb.sql(f"SELECT {', '.join(cols)} FROM build_checkpoints {where} "
                          f"ORDER BY game, started NULLS LAST, table_name", params)
        else:
            cols = ["game", "tables", "done", "building", "pending", "rows_done", "seconds_done"]
            rows = tb.sql(f"SELECT {', '.join(cols)} FROM build_progress {where} ORDER BY game",
                          params)
        print(f"{path}:")
        _print_rows(cols, rows)
        building = tb.sql("SELECT game, table_name FROM build_checkpoints "
                          "WHERE state = 'building'")
        for game, table in building:
            print(f"{game} {table}: interrupted mid-build; the next build of {game} rebuilds it")
    return 0


def _verify(args) -> int:
    import tbdb
    problems = tbdb.verify(args.db, args.game, progress=not args.no_progress)
    if not problems:
        print("verify: every stored value agrees with its children")
        return 0
    for table, (count, examples) in problems.items():
        print(f"{table}: {count} inconsistent positions, e.g. {', '.join(examples[:5])}")
    return 1


_COMMANDS = {"build": _build, "lookup": _lookup, "sql": _sql, "status": _status,
             "verify": _verify}


if __name__ == "__main__":
    sys.exit(main())
