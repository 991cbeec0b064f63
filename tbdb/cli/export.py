"""``tbdb export``: a memory-mapped probe file per built table, for lookups without DuckDB (the
database is only read; the directory of probe files is written)."""
from __future__ import annotations

from tbdb.cli.parsing import DB_HELP

NAME = "export"
WRITES = True  # the probe files: a KeyboardInterrupt leaves each one whole or absent


def add_parser(sub) -> None:
    ex = sub.add_parser(NAME, help="write a compact probe file per table, for lookups "
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


def run(args) -> int:
    from tbdb.probe_files import export
    if args.table and not args.game:
        raise ValueError("--table needs --game (table names are per game)")
    print(export(args.db, args.out, args.game, args.table, moves=not args.no_moves,
                 progress="lines" if args.no_progress else True, direct=args.direct))
    return 0
