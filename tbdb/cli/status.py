"""``tbdb status``: the build checkpoints of a database (which tables are done, which are
building), or the tables a directory of probe files holds."""
from __future__ import annotations

import os

from tbdb.cli.parsing import DB_HELP
from tbdb.cli.tables import print_rows

NAME = "status"
WRITES = False


def add_parser(sub) -> None:
    s = sub.add_parser(NAME, help="build checkpoints: which tables are done",
                       description="Show the build checkpoints stored in the database.")
    s.add_argument("--db", help=DB_HELP)
    s.add_argument("--game", help="only this game")
    s.add_argument("--all", action="store_true", help="one line per table, not a summary")


def run(args) -> int:
    import tbdb
    from tbdb import games
    from tbdb.db.connect import default_db_path
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
        print_rows(cols, rows)
        _print_interrupted(tb, path, game)
    return 0


def _print_interrupted(tb, path: str, game: str | None) -> None:
    """A line per table a build left half-done: where its next build starts it."""
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
    print_rows(cols, rows)
    return 0
