"""The ``tbdb`` command: build, lookup, perft, games, sql, status, verify, upgrade, import, export,
serve, usi, uci.

Per-game options come from the games' declarations (``tbdb games`` lists them); every error is
one line on stderr quoting what was wrong, with exit status 2, and only ``build``, ``upgrade``
and ``import`` ever write to a database file (``export`` writes a directory of probe files).
"""
from __future__ import annotations

import argparse
import errno
import json
import os
import signal
import sys

if __name__ == "__main__":  # python -m tbdb.cli.run: stop cleanly before the heavy imports below
    from tbdb.process import exit_on_signals
    exit_on_signals("tbdb")

import duckdb

from tbdb.process import version
from tbdb.errors import one_line
from tbdb.options import resolve
from tbdb.db.connect import DEFAULT_DB_ENV, damaged, default_db_path, is_damage, is_disk_full

DB_HELP = f"DuckDB file (default: ${DEFAULT_DB_ENV}, else ./tbdb.duckdb)"
GAME_COMMANDS = ("build", "lookup", "perft")
READ_ONLY = ("lookup", "perft", "games", "sql", "status", "verify", "usi", "uci")  # Ctrl-C: leave at once


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit 2 (argparse prints usage first)
        self.exit(2, f"{self.prog}: error: {message}\n")


def _game_options(parser: argparse.ArgumentParser, options) -> None:
    for o in options:
        parser.add_argument(o.flag, dest=o.name, metavar=o.metavar or o.name.upper(),
                            help=f"{o.help} ({o.describe()})")


def _games_needed(argv: list[str] | None) -> dict[str, list[str]]:
    """Per game command, the games whose options its parser must hold for ``argv``: only the
    game named (``tbdb lookup chess ...`` imports chess alone: a game's import loads its
    kernels' modules, about a second for all seven), every game when the command lists them
    (``tbdb build --help``), none for the other commands.  ``None``: every game everywhere."""
    from tbdb import games
    if argv is None:
        return {c: games.names() for c in GAME_COMMANDS}
    command = next((a for a in argv if not a.startswith("-")), None)
    if command not in GAME_COMMANDS:
        return {}
    rest = argv[argv.index(command) + 1:]
    game = next((a for a in rest if not a.startswith("-")), None)
    return {command: [game] if game in games.names() else games.names()}


def parser() -> argparse.ArgumentParser:
    """The whole command line's parser, every game's sub-parsers included (the CLI reference
    in docs/ is generated from it)."""
    return _parser(None)


def _parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The whole command line's parser, with the per-game parsers ``argv`` needs (all of them
    when ``argv`` is None)."""
    from tbdb import games
    from tbdb.storage import storage_of
    needed = _games_needed(argv)
    p = _Parser(prog="tbdb", description="Endgame tablebases: build with Numba, store in "
                                         "DuckDB, query in SQL and Python.")
    p.add_argument("--version", action="version", version=f"tbdb {version()}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND",
                           parser_class=_Parser)

    b = sub.add_parser("build", help="build tables (resumes an interrupted build)",
                       description="Build a game's tables into a DuckDB file. Running the same "
                                   "command again resumes: done tables are skipped.")
    bg = b.add_subparsers(dest="game", required=True, metavar="GAME", parser_class=_Parser)
    lk = sub.add_parser("lookup", help="the value of a position and of each of its moves",
                        description="Print a position's value, best move, and every legal move "
                                    "with what it leads to, best first. POSITION '-' reads "
                                    "positions from stdin, one per line, and writes JSON lines.")
    lg = lk.add_subparsers(dest="game", required=True, metavar="GAME", parser_class=_Parser)
    pf = sub.add_parser("perft", help="count move-generation leaves (checks a move generator)",
                        description="Count the leaves of the move tree DEPTH plies deep from a "
                                    "position (or 'start').")
    pg = pf.add_subparsers(dest="game", required=True, metavar="GAME", parser_class=_Parser)
    for name in needed.get("build", ()):
        g = games.get(name)
        gb = bg.add_parser(name, help=g.title, description=f"Build {g.title} tables.")
        _game_options(gb, g.build_options)
        gb.add_argument("--db", help=DB_HELP)
        if g.modes and g.modes != ("levels",):
            gb.add_argument("--mode", default="auto", help="retrograde mode: auto (the "
                            "fastest that fits --memory), " + ", ".join(g.modes))
            gb.add_argument("--memory", metavar="SIZE", help="memory budget, e.g. 8G: auto "
                            "picks per table the fastest mode whose estimated peak fits, and a "
                            "table that fits none is refused (default: 80%% of the RAM)")
        if storage_of(g).builds_probe_files:
            gb.add_argument("--probe-files", metavar="DIR",
                            help="build into this directory of probe files (what tbdb export "
                                 "writes), each table coded as it is solved, instead of into a "
                                 "database: no rows, about a tenth of the disk; lookup, serve "
                                 "and the native prober read it with --db DIR")
            gb.add_argument("--no-moves", action="store_true",
                            help="with --probe-files: keep no best moves in the files (about a "
                                 "quarter of their size; the solve skips looking for them, and "
                                 "a lookup derives the best move from one ply of probes)")
        gb.add_argument("--rebuild", action="append", default=[], metavar="TABLE",
                        help="build this table again even if it is done (repeatable)")
        gb.add_argument("--no-progress", action="store_true", help="no progress bar")
        if storage_of(g).clusterable:  # cluster builds: tbdb/cluster/dask_build.py (needs tbdb[cluster])
            gb.add_argument("--cluster", metavar="ADDRESS", help="build on Dask: 'local' (a "
                            "LocalCluster, one worker per core) or tcp://HOST:PORT")
            gb.add_argument("--out", metavar="DIR", help="with --cluster: directory (shared by "
                            "the workers) for the tables' Parquet files")
            gb.add_argument("--workers", type=int, metavar="N",
                            help="with --cluster local: worker processes (default: cores)")
            gb.add_argument("--self-contained", action="store_true",
                            help="with --cluster: copy the values into the database (one "
                                 "self-contained file) instead of reading them from the "
                                 "Parquet files under --out")
    for name in needed.get("lookup", ()):
        g = games.get(name)
        gl = lg.add_parser(name, help=g.title, description=f"Look up a position: {g.title}; "
                                                           f"e.g. {g.sample!r}.")
        gl.add_argument("position", help=f"position text, e.g. {g.sample!r}, or '-' for stdin")
        _game_options(gl, g.lookup_options)
        gl.add_argument("--db", help=DB_HELP + "; or a directory of probe files (tbdb export)")
        gl.add_argument("--json", action="store_true", help="print JSON")
        gl.add_argument("--line", action="store_true",
                        help="print the best line to the end of the game")
    for name in needed.get("perft", ()):
        g = games.get(name)
        gp = pg.add_parser(name, help=g.title)
        gp.add_argument("position", help="position text, or 'start'")
        gp.add_argument("depth", help="plies")
        gp.add_argument("--divide", action="store_true", help="count per first move")
        _game_options(gp, g.perft_options)

    sub.add_parser("games", help="the games tbdb knows, their options and notations",
                   description="List every game with its options, a sample position and its "
                               "rules.")

    q = sub.add_parser("sql", help="run read-only SQL on the database",
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

    s = sub.add_parser("status", help="build checkpoints: which tables are done",
                       description="Show the build checkpoints stored in the database.")
    s.add_argument("--db", help=DB_HELP)
    s.add_argument("--game", help="only this game")
    s.add_argument("--all", action="store_true", help="one line per table, not a summary")

    v = sub.add_parser("verify", help="re-derive every stored field from the rules",
                       description="Check the stored rows against the catalogue and the "
                                   "checkpoints (row counts, duplicated, stray or missing "
                                   "rows), then every stored value, best move, multiplicity "
                                   "and count against one ply of moves and the stored values "
                                   "of the children; exit 1 on any mismatch, damaged or "
                                   "unbuilt table, naming each table not checked. On a "
                                   "directory of probe files (tbdb export): every file against "
                                   "its manifest and checksums, and with --against DB every "
                                   "slot of every file against the database.")
    v.add_argument("--db", help=DB_HELP)
    v.add_argument("--against", metavar="DB",
                   help="with --db DIR: compare every slot, key and run of the probe files "
                        "with this database (read-only)")
    v.add_argument("--game", help="only this game")
    v.add_argument("--no-progress", action="store_true", help="no progress bar")

    w = sub.add_parser("serve", help="a web explorer and a JSON API (needs tbdb[web])",
                       description="Serve the explorer page and the read-only JSON API "
                                   "(/api/GAME?position=...) over a database file.")
    w.add_argument("--db", help=DB_HELP)
    w.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    w.add_argument("--port", type=int, default=8000, help="port (default 8000)")

    ex = sub.add_parser("export", help="write a compact probe file per table, for lookups "
                                       "without DuckDB",
                        description="Write one memory-mapped probe file per built table "
                                    "(OUT/GAME/TABLE.tbp, docs/probe-format.md) and "
                                    "OUT/manifest.json; files already current are kept. "
                                    "`tbdb lookup --db OUT` and tbdb.open(OUT) read them. The "
                                    "database is only read.")
    ex.add_argument("--db", help=DB_HELP)
    ex.add_argument("--out", required=True, metavar="DIR", help="directory of probe files")
    ex.add_argument("--game", help="only this game")
    ex.add_argument("--table", action="append", default=[], metavar="TABLE",
                    help="only this table (repeatable; needs --game)")
    ex.add_argument("--no-moves", action="store_true",
                    help="leave out best moves of index and key tables (lookups derive them "
                         "with one ply of probes)")
    ex.add_argument("--direct", action="store_true",
                    help="index tables in direct cells: a probe reads one fixed-width cell "
                         "instead of decoding a block (engines probing from C: one cache miss), "
                         "for 3-6 times the size (docs/probe-format.md, layout 3)")
    ex.add_argument("--no-progress", action="store_true", help="no progress bar")

    im = sub.add_parser("import", help="copy tables a cluster build left in Parquet files "
                                       "into the database",
                        description="Copy into the database the values of every table it "
                                    "keeps in a Parquet file found, complete and verified, "
                                    "under DIR (where a cluster build wrote it, or where the "
                                    "files were moved to): the file becomes self-contained. "
                                    "Complete tables under DIR that the database does not "
                                    "hold are checked and copied in too.")
    im.add_argument("dir", metavar="DIR", help="the --out directory (or URL) of the build")
    im.add_argument("--db", help=DB_HELP)

    us = sub.add_parser("usi", help="a USI engine over the Shogi tables (for shogi GUIs and "
                                     "cshogi)",
                        description="Speak USI on stdin/stdout: positions a table holds are "
                                    "answered at once with their stored value (score mate N) "
                                    "and best move; others get 'bestmove resign', or go to the "
                                    "engine named by the USI option Fallback. The database is "
                                    "only read. GUIs that start an engine with no arguments: "
                                    "use tbdb-usi (docs/engines.md).")
    us.add_argument("--db", help=DB_HELP + "; or a directory of probe files (tbdb export); the "
                                           "USI option Database overrides it")

    uc = sub.add_parser("uci", help="a UCI engine over the chess tables (for chess GUIs and "
                                     "python-chess)",
                        description="Speak UCI on stdin/stdout: positions a table holds are "
                                    "answered at once with their stored value (score mate N, "
                                    "in moves) and best move; others get an info string and "
                                    "'bestmove 0000'. The database is only read.")
    uc.add_argument("--db", help=DB_HELP + "; the UCI option Database overrides it")

    u = sub.add_parser("upgrade", help="migrate a database written by an older tbdb",
                       description="Migrate a database file to this tbdb's schema, keeping its "
                                   "data.")
    u.add_argument("--db", help=DB_HELP)
    return p


def main(argv: list[str] | None = None) -> int:
    args_in = sys.argv[1:] if argv is None else argv
    from tbdb import games
    from tbdb.errors import TbdbError
    if len(args_in) > 1 and args_in[0] in GAME_COMMANDS and not args_in[1].startswith("-") \
            and args_in[1] not in games.names():
        print(f"tbdb {args_in[0]}: error: unknown game {args_in[1]!r}; known games: "
              f"{', '.join(games.names())}", file=sys.stderr)
        return 2
    args = _parser(args_in).parse_args(args_in)
    if args.command == "sql" and args.db and os.path.isdir(args.db):
        print(f"tbdb {args.command}: error: {args.db!r} is a directory of probe files, which "
              f"answer lookups only: {args.command} needs the DuckDB database they were "
              f"exported from", file=sys.stderr)
        return 2
    run = _COMMANDS[args.command]
    if argv is None:  # the tbdb command, not a call from Python
        run = _on_signals(args.command, run)
    try:
        return run(args)
    except BrokenPipeError:
        # `tbdb sql ... | head`: the reader has gone; say nothing more
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (TbdbError, OSError, ValueError) as exc:
        if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
            # a file being written (probe files, Parquet): a file is only ever renamed into
            # place whole, so rerunning after freeing space resumes
            where = getattr(args, "probe_files", None) or getattr(args, "out", None) or \
                getattr(args, "db", None) or default_db_path()
            print(f"tbdb {args.command}: error: the disk holding {where!r} is full: free space "
                  f"and run the same command again (what was finished is kept)",
                  file=sys.stderr)
        else:
            print(f"tbdb {args.command}: error: {one_line(exc)}", file=sys.stderr)
        return 2
    except duckdb.Error as exc:
        db = getattr(args, "db", None) or default_db_path()
        if is_damage(exc):  # a block DuckDB read while answering: cut short or overwritten
            print(f"tbdb {args.command}: error: {damaged(db, exc)}", file=sys.stderr)
            return 2
        if not is_disk_full(exc):
            raise
        # the disk filled outside a table's transaction (opening, views, checkpoints): a table
        # is only ever kept whole, so rerunning after freeing space resumes
        print(f"tbdb {args.command}: error: the disk holding {db!r} is full: free space and run "
              f"the same command again (finished tables are kept)", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"\ntbdb {args.command}: interrupted", file=sys.stderr)
        return 130


def _on_signals(command: str, run):
    """How ``command`` stops on Ctrl-C and SIGTERM (tbdb/cli/__init__.py installed an exit before
    the imports): the command to run."""
    from tbdb.process import exit_on_signals, in_worker
    if command == "build":
        signal.signal(signal.SIGINT, _stop_now)
        signal.signal(signal.SIGTERM, _stop_now)
    elif command in READ_ONLY:
        exit_on_signals(f"tbdb {command}")
        if command != "sql":  # sql stays on the main thread: Ctrl-C cancels its query
            return lambda args: in_worker(run, args)
    else:  # upgrade and import: a KeyboardInterrupt lets their transaction roll back
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
    return run


def _stop_now(signum, frame) -> None:
    """Ctrl-C or SIGTERM during a build: leave at once, as kill -9 would.  That is safe at any
    moment (each table commits with its checkpoint in one transaction; an uncommitted one is
    rolled back from DuckDB's write-ahead log on the next open) and, unlike a
    KeyboardInterrupt, it cannot surface as some other error from inside Numba or DuckDB."""
    sys.stderr.write("\ntbdb build: interrupted; finished tables are kept, run the same command "
                     "again to resume\n")
    sys.stderr.flush()
    os._exit(130 if signum == signal.SIGINT else 143)


def _options(args, declared) -> dict:
    return {o.name: getattr(args, o.name) for o in declared if getattr(args, o.name) is not None}


# --------------------------------------------------------------------------- build

def _build(args) -> int:
    import tbdb
    from tbdb import games
    g = games.get(args.game)
    options = resolve(f"{g.name} build", g.build_options, _options(args, g.build_options),
                      defaults=False, text=True)
    progress = "lines" if args.no_progress else True
    from tbdb.build import MODE_OPTION, check_no_moves
    from tbdb.errors import InvalidOptionError
    if getattr(args, "mode", None) is not None:
        MODE_OPTION.convert(args.mode, text=True)  # a bad one named as given: --mode
    if getattr(args, "probe_files", None) and (getattr(args, "cluster", None)
                                               or getattr(args, "out", None)):
        raise InvalidOptionError(f"--probe-files {args.probe_files!r} builds on this machine: "
                                 f"not with --cluster or --out")
    moves = not getattr(args, "no_moves", False)
    check_no_moves(moves, getattr(args, "probe_files", None))  # before the cluster path too
    if getattr(args, "cluster", None) or getattr(args, "out", None):
        from tbdb.cluster.dask_build import build_cluster
        summary = build_cluster(g.name, db=args.db, out=args.out, cluster=args.cluster,
                                workers=args.workers, progress=progress,
                                self_contained=args.self_contained,
                                mode=getattr(args, "mode", "auto"), rebuild=args.rebuild,
                                memory=getattr(args, "memory", None), **options)
    else:
        summary = tbdb.build(g.name, db=args.db, progress=progress,
                             mode=getattr(args, "mode", "auto"), rebuild=args.rebuild,
                             memory=getattr(args, "memory", None),
                             probe_files=getattr(args, "probe_files", None), moves=moves,
                             **options)
    print(summary)
    if getattr(args, "probe_files", None):
        from tbdb.probe_files.build_dir import per_pieces
        rows = per_pieces(summary.db, g.name)
    else:
        with tbdb.open(summary.db) as tb:
            rows = tb.sql(
                "SELECT pieces, sum(positions), sum(wins), sum(draws), sum(losses), "
                "max(longest_win) FROM draw_analysis WHERE game = ? GROUP BY pieces "
                "ORDER BY pieces", [g.name]).fetchall()
    if rows:  # tables outside draw_analysis (distance tables) have no per-piece summary
        _print_rows(["pieces", "positions", "wins", "draws", "losses", "longest win"],
                    [(p, f"{n:,}", f"{w:,}", f"{d:,}", f"{lo:,}", lw)
                     for p, n, w, d, lo, lw in rows])
    return 0


# --------------------------------------------------------------------------- lookup

def _ply(n: int) -> str:
    return f"{n} ply" if n == 1 else f"{n} plies"


def _value_text(outcome: str, distance, extras: dict) -> str:
    if "score" in extras:
        return f"{extras['score']:+d}"
    if outcome == "draw" or distance is None:
        return outcome
    if distance == 0:
        return f"{outcome} (game over)"
    return f"{outcome} in {_ply(distance)}"


def _lookup(args) -> int:
    import tbdb
    from tbdb import games
    g = games.get(args.game)
    options = resolve(f"{g.name} lookup", g.lookup_options, _options(args, g.lookup_options),
                      text=True)
    with tbdb.open(args.db) as tb:
        if args.position == "-":
            return _lookup_stream(tb, g, options)
        position = g.coerce(args.position)  # the game's lenient reading (e.g. 'startpos')
        r = tb.lookup(position, game=g.name, **options)
        if args.json:
            print(json.dumps(r.to_dict(line=args.line)))
            return 0
        _print_lookup(g, r, position)
        if args.line:
            print("line:")
            for i, step in enumerate(r.line(), 1):
                print(f"  {i:3}. {step.move:10} {step.position}   "
                      f"{_value_text(step.outcome, step.distance, step.extras)}")
    return 0


def _print_lookup(g, r, position) -> None:
    diagram = g.diagram(position)
    if diagram:
        print(diagram)
    print(f"position:  {r.position}")
    if "score" in r.extras:
        extra = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in r.extras.items()
                          if k != "score")
        print(f"score:     {r.score:+d}" + (f" ({extra})" if extra else ""))
    print(f"outcome:   {_value_text(r.outcome, r.distance, {})}")
    print(f"best move: {r.best_move or '(none: the game is over)'}")
    groups = {"win": [], "draw": [], "loss": []}
    for m in r.moves:
        groups[m.outcome].append(m)
    for outcome, title in (("win", "winning"), ("draw", "drawing"), ("loss", "losing")):
        if groups[outcome]:
            print(f"{title} moves:")
            for m in groups[outcome]:
                print(f"  {m.move:10} {_value_text(m.outcome, m.distance, m.extras)}")


def _lookup_stream(tb, g, options) -> int:
    """Positions from stdin, one per line; a JSON line each (errors as {"error": ...}), flushed
    (a co-process writes a line and waits for its answer).  Lines are bytes decoded here, so a
    line that is not UTF-8 (or too long) is one error line, whatever the locale, and the stream
    goes on (sys.stdin as text would raise at the first bad byte)."""
    from tbdb.protocols.session import BadLine, read_lines
    from tbdb.errors import TbdbError
    for line in read_lines(sys.stdin):
        text = line.strip()
        if isinstance(line, BadLine):  # not looked up: the text is not what was sent
            out = {"position": line.shown, "error": line.problem}
        elif not text:
            continue
        else:
            try:
                out = tb.lookup(text, game=g.name, **options).to_dict(moves=False)
            except (TbdbError, ValueError) as exc:
                out = {"position": text, "error": one_line(exc)}
            except Exception as exc:  # noqa: BLE001 - one line's failure, not the stream's
                out = {"position": text, "error": f"{type(exc).__name__}: {one_line(exc)}"}
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()
    return 0


# --------------------------------------------------------------------------- perft

def _perft(args) -> int:
    from tbdb import games
    from tbdb.errors import InvalidOptionError
    from tbdb.options import Option
    g = games.get(args.game)
    options = resolve(f"{g.name} perft", g.perft_options, _options(args, g.perft_options),
                      text=True)
    depth = Option("depth", "plies", min=0, max=64).convert(args.depth, text=True, label="depth")
    if args.position == "start":
        try:
            position = g.start(**options)
        except NotImplementedError as exc:
            raise InvalidOptionError(f"{exc}; give a position") from None
    else:
        position = g.parse_for_perft(args.position, **options)
    if args.divide:
        total = 0
        for move, count in g.divide(position, depth, **options):
            print(f"{move} {count}")
            total += count
        print(f"total {total}")
    else:
        print(g.perft(position, depth, **options))
    return 0


# --------------------------------------------------------------------------- games

def _games(args) -> int:
    from tbdb import games
    from tbdb.db.sql_files import rules_file, sql_dir
    for g in games.all_games():
        print(f"{g.name}: {g.title}")
        print(f"  sample position: {g.sample!r}")
        # the installed files (a wheel has no docs/ or sql/ of the repository)
        print(f"  rules: {rules_file(g.rules)}")
        for kind, declared in (("build", g.build_options), ("lookup", g.lookup_options),
                               ("perft", g.perft_options)):
            for o in declared:
                default = f", default {o.default}" if o.default is not None else ""
                print(f"  {kind} {o.flag}: {o.help} ({o.describe()}{default})")
        if g.views:
            print(f"  SQL views: {sql_dir() / 'games' / g.views}")
    return 0


# --------------------------------------------------------------------------- sql

def _sql(args) -> int:
    from tbdb.cli import sql as sqlshell
    return sqlshell.run(args)


# --------------------------------------------------------------------------- status

def _print_rows(columns: list[str], rows: list[tuple]) -> None:
    text = [[cell_text(v) for v in row] for row in rows]
    widths = [max([len(c)] + [len(r[i]) for r in text]) for i, c in enumerate(columns)]
    print("  ".join(c.ljust(w) for c, w in zip(columns, widths)))
    print("  ".join("-" * w for w in widths))
    for r in text:
        print("  ".join(v.ljust(w) for v, w in zip(r, widths)))
    print(f"({len(rows):,} row{'s' if len(rows) != 1 else ''})")


def cell_text(v) -> str:
    """One value as a table cell: empty for NULL, floats rounded."""
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:.3f}" if abs(v) < 1000 else f"{v:,.1f}"
    return str(v)


def _status(args) -> int:
    import tbdb
    from tbdb import games
    path = args.db or default_db_path()
    game = games.get(args.game).name if args.game else None
    if os.path.isdir(path):
        return _status_dir(path, game, args.all)
    with tbdb.open(path) as tb:
        where, params = ("WHERE game = ?", [game]) if game else ("", None)
        if args.all:
            cols = ["game", "table_name", "state", "rows", "started", "finished", "seconds"]
            rows = tb.sql(f"SELECT {', '.join(cols)} FROM build_checkpoints {where} "
                          f"ORDER BY game, started NULLS LAST, table_name", params).fetchall()
        else:
            cols = ["game", "tables", "done", "building", "pending", "rows_done", "seconds_done"]
            rows = tb.sql(f"SELECT {', '.join(cols)} FROM build_progress {where} ORDER BY game",
                          params).fetchall()
        print(f"{path}:")
        _print_rows(cols, rows)
        building = tb.sql(f"SELECT game, table_name FROM build_checkpoints WHERE state = "
                          f"'building' {'AND game = ?' if game else ''}",
                          [game] if game else None).fetchall()
        for g, table in building:
            from tbdb.build import saves_of
            from tbdb.retrograde.compact import saved_solve
            saved = saved_solve(saves_of(path, g, table))
            if saved is not None:
                print(f"{g} {table}: interrupted mid-build; its solve is {saved}: the next "
                      f"build of {g} resumes it there")
            else:
                print(f"{g} {table}: interrupted mid-build; the next build of {g} rebuilds it")
    return 0


def _status_dir(path: str, game: str | None, every: bool) -> int:
    """``tbdb status --db DIR``: the tables a directory of probe files lists (what a build into
    it has finished), per game or (``--all``) per table, with their solve where it recorded
    one (``tbdb build --probe-files``)."""
    from tbdb.probe_files import read_manifest
    entries = [e for e in read_manifest(path)["files"] if game is None or e["game"] == game]

    def bits(size, slots):
        return f"{8 * size / slots:.2f}" if slots else "-"
    if every:
        cols = ["game", "table_name", "slots", "bytes", "bits_a_slot", "mode", "seconds",
                "coding_seconds"]
        rows = [(e["game"], e["table"], f"{e['slots']:,}", f"{e['size']:,}",
                 bits(e["size"], e["slots"]), e.get("solve", {}).get("mode", "-"),
                 e.get("solve", {}).get("seconds", "-"),
                 e.get("solve", {}).get("coding_seconds", "-")) for e in entries]
    else:
        cols = ["game", "tables", "slots", "bytes", "bits_a_slot", "seconds", "coding_seconds"]
        rows = []
        for g in sorted({e["game"] for e in entries}):
            of = [e for e in entries if e["game"] == g]
            slots, size = sum(e["slots"] for e in of), sum(e["size"] for e in of)
            rows.append((g, len(of), f"{slots:,}", f"{size:,}", bits(size, slots),
                         round(sum(e.get("solve", {}).get("seconds", 0) for e in of), 1),
                         round(sum(e.get("solve", {}).get("coding_seconds", 0) for e in of), 1)))
    print(f"{path} (probe files: the tables finished; seconds where a build into the directory "
          f"recorded them):")
    _print_rows(cols, rows)
    return 0


# --------------------------------------------------------------------------- verify

def _verify(args) -> int:
    import tbdb
    if args.db and os.path.isdir(args.db):
        from tbdb.probe_files import compare_dir, verify_dir
        from tbdb import games
        name = games.get(args.game).name if args.game else None  # an unknown game: exit 2
        if args.against:
            from tbdb.db.connect import check_path
            check_path(args.against, create=False)
        checked, problems = verify_dir(args.db, name)
        for p in problems:
            print(p)
        if problems:
            return 1
        of = f" of {name}" if name else ""
        print(f"verify: {checked} probe files{of}, every one matches its manifest and checksums")
        if args.against:
            compared, problems = compare_dir(args.db, args.against, args.game)
            for p in problems:
                print(p)
            if problems:
                return 1
            print(f"verify: {compared} probe files{of}, every slot equals {args.against}")
        return 0
    if args.against:
        from tbdb.errors import InvalidOptionError
        raise InvalidOptionError(f"--against {args.against!r} compares a directory of probe "
                                 f"files with a database: give the directory as --db DIR")
    report = tbdb.verify(args.db, args.game, progress=not args.no_progress)
    for table, (count, examples) in report.problems.items():
        print(f"{table}: {count} inconsistent stored fields, e.g. {'; '.join(examples[:5])}")
    for table, damage in report.damage.items():
        for what in damage:
            print(f"{table}: {what}")
    for table, state in report.unchecked.items():
        print(f"{table}: not checked: the table is {state}, not done (run its build again)")
    if report.ok:
        print(f"verify: {report.checked} tables, every stored field agrees with the rules")
        return 0
    return 1


def _upgrade(args) -> int:
    from tbdb.db.store import Store
    from tbdb.db.connect import check_path, connect, head_revision
    path = args.db or default_db_path()
    check_path(path, create=False)
    con = connect(path, read_only=True, values=False)
    try:
        tbdb_file = con.execute("SELECT count(*) FROM duckdb_tables() WHERE table_name = "
                                "'alembic_version'").fetchall()[0][0]
    finally:
        con.close()
    if not tbdb_file:
        from tbdb.errors import NotADatabaseError
        raise NotADatabaseError(f"{path!r} is not a tbdb database; nothing to upgrade")
    with Store(path) as store:
        print(f"{path}: at schema {store.revision()} (current: {head_revision()})")
    return 0


def _export(args) -> int:
    from tbdb.probe_files import export
    if args.table and not args.game:
        raise ValueError("--table needs --game (table names are per game)")
    print(export(args.db, args.out, args.game, args.table, moves=not args.no_moves,
                 progress="lines" if args.no_progress else True, direct=args.direct))
    return 0


def _usi(args) -> int:
    import tbdb
    from tbdb.protocols.usi import serve
    db = args.db or default_db_path()
    with tbdb.open(db):  # a bad --db is a one-line error here, before the session starts
        pass
    return serve(db)


def _uci(args) -> int:
    import tbdb
    from tbdb.protocols.uci import serve
    db = args.db or default_db_path()
    with tbdb.open(db):  # a bad --db is a one-line error here, before the session starts
        pass
    return serve(db)


def _import(args) -> int:
    from tbdb.cluster.dask_build import import_values
    print(import_values(args.db, args.dir))
    return 0


def _serve(args) -> int:
    from tbdb.web.server import serve
    return serve(args.db or default_db_path(), args.host, args.port)


_COMMANDS = {"build": _build, "lookup": _lookup, "perft": _perft, "games": _games, "sql": _sql,
             "status": _status, "verify": _verify, "upgrade": _upgrade, "import": _import,
             "export": _export, "usi": _usi, "uci": _uci,
             "serve": _serve}


if __name__ == "__main__":
    sys.exit(main())
