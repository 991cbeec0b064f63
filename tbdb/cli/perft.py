"""``tbdb perft GAME POSITION DEPTH``: count the leaves of the move tree (checks a move
generator against known counts)."""
from __future__ import annotations

from tbdb.cli.parsing import add_game_options, game_subparsers, given_options

NAME = "perft"
WRITES = False
PER_GAME = True


def add_parser(sub, names: list[str]) -> None:
    from tbdb import games
    pf = sub.add_parser(NAME, help="count move-generation leaves (checks a move generator)",
                        description="Count the leaves of the move tree DEPTH plies deep from a "
                                    "position (or 'start').")
    per_game = game_subparsers(pf)
    for name in names:
        g = games.get(name)
        gp = per_game.add_parser(name, help=g.title)
        gp.add_argument("position", help="position text, or 'start'")
        gp.add_argument("depth", help="plies")
        gp.add_argument("--divide", action="store_true", help="count per first move")
        add_game_options(gp, g.perft_options)


def run(args) -> int:
    from tbdb import games
    from tbdb.errors import InvalidOptionError
    from tbdb.options import Option, resolve
    g = games.get(args.game)
    options = resolve(f"{g.name} perft", g.perft_options, given_options(args, g.perft_options),
                      text=True)
    depth = Option("depth", "plies", min=0, max=64).convert(args.depth, text=True, label="depth")
    if args.position == "start":
        try:
            position = g.start(**options)
        except NotImplementedError as exc:
            raise InvalidOptionError(f"{exc}; give a position") from None
    else:
        position = g.parse_for_perft(args.position, **options)
    if args.divide:
        total = 0
        for move, count in g.divide(position, depth, **options):
            print(f"{move} {count}")
            total += count
        print(f"total {total}")
    else:
        print(g.perft(position, depth, **options))
    return 0
