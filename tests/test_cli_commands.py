"""The command table (``tbdb.cli.commands``): one module per command, each declaring its name,
whether it writes, its parser and its handler; the parser, the read-only set and the game
commands are built from that one list."""
from __future__ import annotations

import argparse

from tbdb import games
from tbdb.cli.commands import BY_NAME, COMMANDS, GAME_COMMANDS, READ_ONLY, parser


def _choices(p: argparse.ArgumentParser) -> list[str]:
    action = next(a for a in p._actions if isinstance(a, argparse._SubParsersAction))
    return list(action.choices)


def test_every_module_declares_what_the_table_needs():
    for c in COMMANDS:
        assert isinstance(c.NAME, str) and isinstance(c.WRITES, bool), c.__name__
        assert callable(c.add_parser) and callable(c.run), c.__name__
    assert len(BY_NAME) == len(COMMANDS)


def test_the_parser_lists_the_table_in_order():
    p = parser()
    assert _choices(p) == [c.NAME for c in COMMANDS]
    for name in GAME_COMMANDS:
        assert _choices(p._subparsers._group_actions[0].choices[name]) == games.names()


def test_only_build_upgrade_import_and_export_write():
    assert {c.NAME for c in COMMANDS if c.WRITES} == {"build", "upgrade", "import", "export"}
    assert set(READ_ONLY) == {c.NAME for c in COMMANDS} - {"build", "upgrade", "import",
                                                          "export"}
    assert GAME_COMMANDS == ("build", "lookup", "perft")
