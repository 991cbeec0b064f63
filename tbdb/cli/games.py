"""``tbdb games``: every game tbdb knows, with its options, a sample position, its rules page
and its SQL views."""
from __future__ import annotations

NAME = "games"
WRITES = False


def add_parser(sub) -> None:
    sub.add_parser(NAME, help="the games tbdb knows, their options and notations",
                   description="List every game with its options, a sample position and its "
                               "rules.")


def run(args) -> int:
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
