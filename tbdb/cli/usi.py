"""``tbdb usi``: a USI engine on stdin/stdout over the Shogi tables (``tbdb.protocols.usi``)."""
from __future__ import annotations

from tbdb.cli.parsing import DB_HELP

NAME = "usi"
WRITES = False


def add_parser(sub) -> None:
    us = sub.add_parser(NAME, help="a USI engine over the Shogi tables (for shogi GUIs and "
                                   "cshogi)",
                        description="Speak USI on stdin/stdout: positions a table holds are "
                                    "answered at once with their stored value (score mate N) "
                                    "and best move; others get 'bestmove resign', or go to the "
                                    "engine named by the USI option Fallback. The database is "
                                    "only read. GUIs that start an engine with no arguments: "
                                    "use tbdb-usi (docs/engines.md).")
    us.add_argument("--db", help=DB_HELP + "; or a directory of probe files (tbdb export); the "
                                           "USI option Database overrides it")


def run(args) -> int:
    import tbdb
    from tbdb.db.connect import default_db_path
    from tbdb.protocols.usi import serve
    db = args.db or default_db_path()
    with tbdb.open(db):  # a bad --db is a one-line error here, before the session starts
        pass
    return serve(db)
