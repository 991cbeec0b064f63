"""What the commands' parsers share: the parser class whose errors are one line, the ``--db``
help, per-game options as flags, and reading those flags back."""
from __future__ import annotations

import argparse

from tbdb.db.connect import DEFAULT_DB_ENV

DB_HELP = f"DuckDB file (default: ${DEFAULT_DB_ENV}, else ./tbdb.duckdb)"


class Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit 2 (argparse prints usage first)
        self.exit(2, f"{self.prog}: error: {message}\n")


def game_subparsers(parser: argparse.ArgumentParser):
    """The action a game command adds one sub-parser a game to."""
    return parser.add_subparsers(dest="game", required=True, metavar="GAME", parser_class=Parser)


def add_game_options(parser: argparse.ArgumentParser, options) -> None:
    """A flag for each option a game declares (``tbdb.options.Option``)."""
    for o in options:
        parser.add_argument(o.flag, dest=o.name, metavar=o.metavar or o.name.upper(),
                            help=f"{o.help} ({o.describe()})")


def given_options(args, declared) -> dict:
    """The declared options the command line gave, by name (those left out are not there)."""
    return {o.name: getattr(args, o.name) for o in declared if getattr(args, o.name) is not None}
