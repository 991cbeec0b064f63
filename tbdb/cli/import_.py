"""``tbdb import DIR``: copy into the database the tables a cluster build left in Parquet
files, so the file becomes self-contained (``import`` is a Python keyword: hence the name)."""
from __future__ import annotations

from tbdb.cli.parsing import DB_HELP

NAME = "import"
WRITES = True


def add_parser(sub) -> None:
    im = sub.add_parser(NAME, help="copy tables a cluster build left in Parquet files "
                                   "into the database",
                        description="Copy into the database the values of every table it "
                                    "keeps in a Parquet file found, complete and verified, "
                                    "under DIR (where a cluster build wrote it, or where the "
                                    "files were moved to): the file becomes self-contained. "
                                    "Complete tables under DIR that the database does not "
                                    "hold are checked and copied in too.")
    im.add_argument("dir", metavar="DIR", help="the --out directory (or URL) of the build")
    im.add_argument("--db", help=DB_HELP)


def run(args) -> int:
    from tbdb.cluster.dask_build import import_values
    print(import_values(args.db, args.dir))
    return 0
