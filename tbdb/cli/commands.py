"""The command table: every ``tbdb`` command's module, in the order ``tbdb --help`` lists them.
A new command is one module in ``tbdb/cli/`` (``NAME``, ``WRITES``, ``add_parser``, ``run``;
``PER_GAME`` when it has a sub-parser per game, ``on_signals`` when it stops its own way) and
its name in ``COMMANDS`` below.
"""
from __future__ import annotations

import argparse

import tbdb.cli.build as build
import tbdb.cli.export as export
import tbdb.cli.games as games_command
import tbdb.cli.import_ as import_
import tbdb.cli.lookup as lookup
import tbdb.cli.perft as perft
import tbdb.cli.serve as serve
import tbdb.cli.sql as sql
import tbdb.cli.status as status
import tbdb.cli.uci as uci
import tbdb.cli.upgrade as upgrade
import tbdb.cli.usi as usi
import tbdb.cli.verify as verify
from tbdb.cli.parsing import Parser

COMMANDS = [build, lookup, perft, games_command, sql, status, verify, serve, export, import_,
            usi, uci, upgrade]
BY_NAME = {c.NAME: c for c in COMMANDS}
GAME_COMMANDS = tuple(c.NAME for c in COMMANDS if getattr(c, "PER_GAME", False))
# the commands that only read: Ctrl-C leaves at once, unless the module says otherwise (sql
# stays on the main thread, serve lets uvicorn stop)
READ_ONLY = tuple(c.NAME for c in COMMANDS if not c.WRITES)


def games_needed(argv: list[str] | None) -> dict[str, list[str]]:
    """Per game command, the games whose options its parser must hold for ``argv``: only the
    game named (``tbdb lookup chess ...`` imports chess alone: a game's import loads its
    kernels' modules, about a second for all seven), every game when the command lists them
    (``tbdb build --help``), none for the other commands.  ``None``: every game everywhere."""
    from tbdb import games
    if argv is None:
        return {c: games.names() for c in GAME_COMMANDS}
    command = next((a for a in argv if not a.startswith("-")), None)
    if command not in GAME_COMMANDS:
        return {}
    rest = argv[argv.index(command) + 1:]
    game = next((a for a in rest if not a.startswith("-")), None)
    return {command: [game] if game in games.names() else games.names()}


def parser_for(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The whole command line's parser, with the per-game parsers ``argv`` needs (all of them
    when ``argv`` is None)."""
    from tbdb.process import version
    needed = games_needed(argv)
    p = Parser(prog="tbdb", description="Endgame tablebases: build with Numba, store in "
                                        "DuckDB, query in SQL and Python.")
    p.add_argument("--version", action="version", version=f"tbdb {version()}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=Parser)
    for c in COMMANDS:
        if getattr(c, "PER_GAME", False):
            c.add_parser(sub, needed.get(c.NAME, ()))
        else:
            c.add_parser(sub)
    return p


def parser() -> argparse.ArgumentParser:
    """The whole command line's parser, every game's sub-parsers included (the CLI reference
    in docs/ is generated from it)."""
    return parser_for(None)
