"""``tbdb verify``: every stored field of a database re-derived from the rules, or every probe
file of a directory checked against its manifest (and, with ``--against DB``, the database)."""
from __future__ import annotations

import os

from tbdb.cli.parsing import DB_HELP

NAME = "verify"
WRITES = False


def add_parser(sub) -> None:
    v = sub.add_parser(NAME, help="re-derive every stored field from the rules",
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


def run(args) -> int:
    import tbdb
    if args.db and os.path.isdir(args.db):
        return _verify_dir(args)
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


def _verify_dir(args) -> int:
    from tbdb import games
    from tbdb.probe_files import compare_dir, verify_dir
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
