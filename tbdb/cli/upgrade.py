"""``tbdb upgrade``: migrate a database written by an older tbdb to this one's schema, keeping
its data."""
from __future__ import annotations

from tbdb.cli.parsing import DB_HELP

NAME = "upgrade"
WRITES = True


def add_parser(sub) -> None:
    u = sub.add_parser(NAME, help="migrate a database written by an older tbdb",
                       description="Migrate a database file to this tbdb's schema, keeping its "
                                   "data.")
    u.add_argument("--db", help=DB_HELP)


def run(args) -> int:
    from tbdb.db.connect import check_path, connect, default_db_path, head_revision
    from tbdb.db.store import Store
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
