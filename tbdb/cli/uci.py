"""``tbdb uci``: a UCI engine on stdin/stdout over the chess tables (``tbdb.protocols.uci``)."""
from __future__ import annotations

from tbdb.cli.parsing import DB_HELP

NAME = "uci"
WRITES = False


def add_parser(sub) -> None:
    uc = sub.add_parser(NAME, help="a UCI engine over the chess tables (for chess GUIs and "
                                   "python-chess)",
                        description="Speak UCI on stdin/stdout: positions a table holds are "
                                    "answered at once with their stored value (score mate N, "
                                    "in moves) and best move; others get an info string and "
                                    "'bestmove 0000'. The database is only read.")
    uc.add_argument("--db", help=DB_HELP + "; the UCI option Database overrides it")


def run(args) -> int:
    import tbdb
    from tbdb.db.connect import default_db_path
    from tbdb.protocols.uci import serve
    db = args.db or default_db_path()
    with tbdb.open(db):  # a bad --db is a one-line error here, before the session starts
        pass
    return serve(db)
