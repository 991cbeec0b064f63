"""``tbdb ARGS``: parse the arguments, run the command on the way it stops, and turn every
error into one line on stderr quoting what was wrong, with exit status 2.

The commands live one a module (``tbdb.cli.commands`` lists them); only ``build``, ``upgrade``
and ``import`` ever write to a database file (``export`` writes a directory of probe files).
"""
from __future__ import annotations

import errno
import os
import sys

if __name__ == "__main__":  # python -m tbdb.cli.run: stop cleanly before the heavy imports below
    from tbdb.process import exit_on_signals
    exit_on_signals("tbdb")

import duckdb

from tbdb.cli.commands import BY_NAME, GAME_COMMANDS, READ_ONLY, parser_for
from tbdb.cli.stopping import by_interrupt, leave_at_once
from tbdb.db.connect import damaged, default_db_path, is_damage, is_disk_full
from tbdb.errors import TbdbError, one_line


def main(argv: list[str] | None = None) -> int:
    args_in = sys.argv[1:] if argv is None else argv
    from tbdb import games
    if len(args_in) > 1 and args_in[0] in GAME_COMMANDS and not args_in[1].startswith("-") \
            and args_in[1] not in games.names():
        print(f"tbdb {args_in[0]}: error: unknown game {args_in[1]!r}; known games: "
              f"{', '.join(games.names())}", file=sys.stderr)
        return 2
    args = parser_for(args_in).parse_args(args_in)
    run = BY_NAME[args.command].run
    if argv is None:  # the tbdb command, not a call from Python
        run = on_signals(args.command, run)
    return _run(args, run)


def _run(args, run) -> int:
    """``run(args)``, each error it raises one line on stderr and exit status 2."""
    try:
        return run(args)
    except BrokenPipeError:
        # `tbdb sql ... | head`: the reader has gone; say nothing more
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (TbdbError, OSError, ValueError) as exc:
        if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
            # a file being written (probe files, Parquet): a file is only ever renamed into
            # place whole, so rerunning after freeing space resumes
            where = getattr(args, "probe_files", None) or getattr(args, "out", None) or \
                getattr(args, "db", None) or default_db_path()
            print(f"tbdb {args.command}: error: the disk holding {where!r} is full: free space "
                  f"and run the same command again (what was finished is kept)",
                  file=sys.stderr)
        else:
            print(f"tbdb {args.command}: error: {one_line(exc)}", file=sys.stderr)
        return 2
    except duckdb.Error as exc:
        db = getattr(args, "db", None) or default_db_path()
        if is_damage(exc):  # a block DuckDB read while answering: cut short or overwritten
            print(f"tbdb {args.command}: error: {damaged(db, exc)}", file=sys.stderr)
            return 2
        if not is_disk_full(exc):
            raise
        # the disk filled outside a table's transaction (opening, views, checkpoints): a table
        # is only ever kept whole, so rerunning after freeing space resumes
        print(f"tbdb {args.command}: error: the disk holding {db!r} is full: free space and run "
              f"the same command again (finished tables are kept)", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"\ntbdb {args.command}: interrupted", file=sys.stderr)
        return 130


def on_signals(command: str, run):
    """How ``command`` stops on Ctrl-C and SIGTERM (tbdb/cli/__init__.py installed an exit before
    the imports): its module's own ``on_signals``, else at once if it only reads, else by a
    KeyboardInterrupt, so that a transaction rolls back (``tbdb.cli.stopping``)."""
    own = getattr(BY_NAME[command], "on_signals", None)
    if own is not None:
        return own(run)
    if command in READ_ONLY:
        return leave_at_once(command, run)
    return by_interrupt(run)


if __name__ == "__main__":
    sys.exit(main())
