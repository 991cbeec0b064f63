"""``tbdb serve``: the web explorer and its read-only JSON API over a database (needs
tbdb[web])."""
from __future__ import annotations

from tbdb.cli.parsing import DB_HELP
from tbdb.cli.stopping import by_interrupt

NAME = "serve"
WRITES = False


def add_parser(sub) -> None:
    w = sub.add_parser(NAME, help="a web explorer and a JSON API (needs tbdb[web])",
                       description="Serve the explorer page and the read-only JSON API "
                                   "(/api/GAME?position=...) over a database file.")
    w.add_argument("--db", help=DB_HELP)
    w.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    w.add_argument("--port", type=int, default=8000, help="port (default 8000)")


def on_signals(run):
    """A KeyboardInterrupt on the main thread, although serve writes nothing: uvicorn, serving
    there, takes the signals over and shuts the server down."""
    return by_interrupt(run)


def run(args) -> int:
    from tbdb.db.connect import default_db_path
    from tbdb.web.server import serve
    return serve(args.db or default_db_path(), args.host, args.port)
