"""Write the docs pages that the code knows: docs/cli.md from the command line's parser (every
command and every game's sub-parser, as ``--help`` prints them) and docs/games.md from what
``tbdb games`` prints.  Pasted by hand they drift; generated, they cannot.

    python docs/gen_reference.py          # rewrite both pages
    python docs/gen_reference.py --check  # exit 1 naming each page that is not current

tests/test_docs_site.py runs the check.  The site leaves this file out (mkdocs.yml's
exclude_docs), and docs/rules/ is untouched: it is also the package tbdb.rules.
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
REGENERATE = "python docs/gen_reference.py"
# `tbdb games` wraps nothing, but one width everywhere keeps its output the same for anyone
WIDTH = "100"


def _banner(what: str) -> str:
    return (f"<!-- Generated from {what} by docs/gen_reference.py: do not edit. "
            f"Regenerate: {REGENERATE} -->\n")


def _parsers(p: argparse.ArgumentParser):
    """``p`` and every sub-parser under it, depth first, in the order they were added."""
    yield p
    for action in p._actions:
        if isinstance(action, argparse._SubParsersAction):
            seen = set()
            for sub in action.choices.values():
                if id(sub) not in seen:  # (an alias maps a second name to the same parser)
                    seen.add(id(sub))
                    yield from _parsers(sub)


def _help(action: argparse.Action, prog: str) -> str:
    """An argument's help with argparse's ``%(default)s``-style fields filled in."""
    text = action.help or ""
    if "%" in text:
        text = text % {**vars(action), "prog": prog}
    return " ".join(text.split()).replace("|", "\\|")


def _usage_name(action: argparse.Action) -> str:
    """How the reference names an argument: ``--memory SIZE``, ``-h, --help``, ``GAME``."""
    if not action.option_strings:
        return action.metavar or action.dest
    takes = action.nargs != 0
    meta = action.metavar or action.dest.upper()
    if isinstance(meta, tuple):
        meta = " ".join(meta)
    return ", ".join(f"{o} {meta}" if takes else o for o in action.option_strings)


def _parser_section(p: argparse.ArgumentParser) -> list[str]:
    """One parser as Markdown: its description, its sub-commands, its arguments.  Built from
    the parser's actions, not from ``format_help``: the page is the same on every Python
    (argparse's text layout changes between versions)."""
    out = [f"## `{p.prog}`\n"]
    if p.description:
        out.append(" ".join(p.description.split()) + "\n")
    rows = []
    for action in p._actions:
        if action.help == argparse.SUPPRESS:
            continue
        if isinstance(action, argparse._SubParsersAction):
            out += ["| sub-command | what |", "|---|---|"]
            out += [f"| `{c.dest}` | {_help(c, p.prog)} |" for c in action._choices_actions]
            out.append("")
            continue
        rows.append(f"| `{_usage_name(action)}` | {_help(action, p.prog)} |")
    if rows:
        out += ["| argument | what |", "|---|---|", *rows, ""]
    return out


def cli_page() -> str:
    """docs/cli.md: ``tbdb`` and each command and game under it, argument by argument."""
    from tbdb.cli import parser
    lines = [_banner("the parser `tbdb.cli.parser()`"),
             "# Command-line reference\n",
             "Every `tbdb` command with its arguments, as `--help` says them. A game command "
             "(`build`, `lookup`, `perft`) has one sub-command per game, with the options that "
             "game declares. The tasks they serve: [building](building.md), "
             "[looking up](lookup.md), [SQL](sql.md), [probe files](probe-files.md).\n"]
    for p in _parsers(parser()):
        lines += _parser_section(p)
    return "\n".join(lines).rstrip() + "\n"


def _games_output() -> str:
    """What ``tbdb games`` prints: the command itself, run as a user runs it."""
    r = subprocess.run([sys.executable, "-m", "tbdb.cli", "games"], capture_output=True,
                       text=True, timeout=300, env={**os.environ, "COLUMNS": WIDTH})
    if r.returncode:
        raise SystemExit(f"tbdb games exited {r.returncode}: {r.stderr[-2000:]}")
    return r.stdout


_OPTION = re.compile(r"  (build|lookup|perft) (--[\w-]+): (.*)")
# the installed files' paths, which differ from one install to another: named from the
# repository's top instead
_RULES = re.compile(r"  rules: .*[/\\]rules[/\\]([\w.-]+\.md)")
_VIEWS = re.compile(r"  SQL views: .*[/\\](sql[/\\]games[/\\][\w.-]+\.sql)")
_SAMPLE = re.compile(r"  sample position: (.*)")


def games_page() -> str:
    """docs/games.md: per game, its sample position (the notation), its rules page, the
    options each command takes and its SQL views, as ``tbdb games`` lists them."""
    lines = [_banner("`tbdb games`"), "# The games' options and notations\n",
             "What `tbdb games` prints, game by game: a sample position in the game's "
             "notation, the options `tbdb build`, `tbdb lookup` and `tbdb perft` take for it "
             "(`tbdb build GAME --help` says the same), and its readable SQL views. What each "
             "game's tables hold, its commands and measurements: [the games](the-games.md).\n"]
    for line in _games_output().splitlines():
        if not line.startswith(" "):
            name, _, title = line.partition(": ")
            lines += ["", f"## `{name}`\n", f"{title}\n", "| command | option | what |",
                      "|---|---|---|"]
            continue
        option, rules, views, sample = (r.fullmatch(line) for r in (_OPTION, _RULES, _VIEWS,
                                                                     _SAMPLE))
        if option:
            what = option.group(3).replace("|", "\\|")
            lines.append(f"| {option.group(1)} | `{option.group(2)}` | {what} |")
        elif sample:
            lines.append(f"| | sample position | `{sample.group(1)}` |")
        elif rules:
            lines.append(f"| | rules | [rules/{rules.group(1)}](rules/{rules.group(1)}) |")
        elif views:
            lines.append(f"| | SQL views | `{views.group(1).replace(os.sep, '/')}` |")
        else:  # a line this page does not know yet: as printed
            lines.append(f"| | | {line.strip()} |")
    return "\n".join(lines) + "\n"


PAGES = {"cli.md": cli_page, "games.md": games_page}


def main(argv: list[str] | None = None) -> int:
    a = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    a.add_argument("--check", action="store_true",
                   help="write nothing; exit 1 if a committed page is not what the code gives")
    args = a.parse_args(argv)
    stale = []
    for name, make in PAGES.items():
        path, text = DOCS / name, make()
        if args.check:
            if not path.exists() or path.read_text() != text:
                stale.append(name)
        elif not path.exists() or path.read_text() != text:
            path.write_text(text)
            print(f"wrote docs/{name}")
    for name in stale:
        print(f"docs/{name} is not current: run {REGENERATE}", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
