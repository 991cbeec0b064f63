"""The command line: ``tbdb COMMAND ...``, one module per command.

``main`` installs the signal handlers before anything heavy loads (``tbdb.process``), then
parses the arguments and runs the command (``tbdb.cli.run``).  Each command's module
(``tbdb/cli/build.py``, ``lookup.py``, ...) gives its parser, its handler and whether it writes;
``tbdb.cli.commands`` builds the command table and the read-only set from that list.
"""
from __future__ import annotations


def main() -> int:
    """``tbdb ARGS``: stop cleanly from the first moment, then run the command."""
    from tbdb.process import exit_on_signals
    exit_on_signals("tbdb")
    from tbdb.cli.run import main as run_main
    return run_main()


def parser():
    """The whole command line's parser, every game's sub-parsers included (the CLI reference
    in docs/ is generated from it)."""
    from tbdb.cli.commands import parser as whole
    return whole()
