"""``tbdb build GAME``: build a game's tables into a DuckDB file (or a directory of probe
files, or on a Dask cluster); running it again resumes."""
from __future__ import annotations

import os
import signal
import sys

from tbdb.cli.parsing import DB_HELP, Parser, add_game_options, game_subparsers, given_options
from tbdb.cli.tables import print_rows

NAME = "build"
WRITES = True
PER_GAME = True


def add_parser(sub, names: list[str]) -> None:
    from tbdb import games
    b = sub.add_parser(NAME, help="build tables (resumes an interrupted build)",
                       description="Build a game's tables into a DuckDB file. Running the same "
                                   "command again resumes: done tables are skipped.")
    per_game = game_subparsers(b)
    for name in names:
        _add_game(per_game, games.get(name))


def _add_game(per_game, g) -> None:
    from tbdb.storage import storage_of
    gb = per_game.add_parser(g.name, help=g.title, description=f"Build {g.title} tables.")
    add_game_options(gb, g.build_options)
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
    if storage_of(g).clusterable:
        _add_cluster(gb)


def _add_cluster(gb: Parser) -> None:
    """The flags of a build on Dask (``tbdb.cluster.dask_build``; needs tbdb[cluster])."""
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


def on_signals(run):
    """Ctrl-C and SIGTERM leave at once (``_stop_now``), not by a KeyboardInterrupt."""
    signal.signal(signal.SIGINT, _stop_now)
    signal.signal(signal.SIGTERM, _stop_now)
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


def run(args) -> int:
    import tbdb
    from tbdb import games
    from tbdb.options import resolve
    g = games.get(args.game)
    options = resolve(f"{g.name} build", g.build_options, given_options(args, g.build_options),
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
    _print_per_pieces(args, summary, g)
    return 0


def _print_per_pieces(args, summary, g) -> None:
    if getattr(args, "probe_files", None):
        from tbdb.probe_files.build_dir import per_pieces
        rows = per_pieces(summary.db, g.name)
    else:
        import tbdb
        with tbdb.open(summary.db) as tb:
            rows = tb.sql(
                "SELECT pieces, sum(positions), sum(wins), sum(draws), sum(losses), "
                "max(longest_win) FROM draw_analysis WHERE game = ? GROUP BY pieces "
                "ORDER BY pieces", [g.name]).fetchall()
    if rows:  # tables outside draw_analysis (distance tables) have no per-piece summary
        print_rows(["pieces", "positions", "wins", "draws", "losses", "longest win"],
                   [(p, f"{n:,}", f"{w:,}", f"{d:,}", f"{lo:,}", lw)
                    for p, n, w, d, lo, lw in rows])
