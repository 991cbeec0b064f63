"""A miss suggests a build command: it must be one the command line runs (issue 22: the batch form
suggested ``tbdb build oware --max-seeds 48``, refused by the option's 1..20).  Each suggestion
here is parsed by the CLI's parser and resolved and planned as ``tbdb build`` would; where no
build covers the position, the message says so instead."""
from __future__ import annotations

import re
import shlex

import numpy as np
import pytest

import tbdb
from tbdb import games
from tbdb.cli.commands import parser_for
from tbdb.cli.parsing import given_options
from tbdb.options import resolve

EXTRA = {  # positions far from every table a game builds, or just past its limits
    "oware": ["1 0 0 0 0 0 0 0 0 0 0 4", "2 2 2 2 2 2 2 2 2 2 0 0", "4 4 4 4 4 4 4 4 4 4 4 4"],
    "uttt": ["start"],
    "cdc": ["8/8/8/KGr5 r", "KGMR4/8/8/k7 r"],
    # six pieces (past every table); an en passant right valued through KPvKP's positions
    "chess": ["8/8/8/4k3/8/8/PPPP4/K7 w - - 0 1", "8/8/8/8/3pP3/8/8/K6k b - e3 0 1"],
}


def _misses(tb, g) -> list[str]:
    """The messages of the misses of single and batch lookups of the sample, its children and
    the positions above."""
    start = g.coerce(g.sample)
    positions = [start] + [s.position for s in g.successors(start)][:4] + \
        [g.coerce(t) for t in EXTRA.get(g.name, [])]
    out = []
    for p in positions:
        try:
            tb.lookup(p, game=g.name)
        except tbdb.MissingTableError as exc:
            out.append(str(exc))
        try:
            tb.lookup_arrays(g.name, *g.encode_batch([p]))
        except tbdb.MissingTableError as exc:
            out.append(str(exc))
    return out


def _check_runs(command: str, db: str) -> None:
    argv = shlex.split(command)
    assert argv[:2] == ["tbdb", "build"], command
    args = parser_for().parse_args(argv[1:] + ["--db", db])
    g = games.get(args.game)
    options = resolve(f"{g.name} build", g.build_options,
                      given_options(args, g.build_options),
                      defaults=False, text=True)
    assert g.plan(**options), command


@pytest.mark.parametrize("name", games.names())
def test_every_suggested_build_command_runs(kcvp_db, name):
    g = games.get(name)
    with tbdb.open(kcvp_db) as tb:
        messages = _misses(tb, g)
    assert messages, f"no {name} position missed"
    for message in messages:
        found = re.search(r"with: (tbdb build .*) --db ", message)
        if found:
            _check_runs(found.group(1), kcvp_db)
        else:  # no command: none is suggested, in any wording
            assert not re.search(r"with: |tbdb build [a-z-]+ ", message), message


def test_a_batch_of_more_seeds_than_tbdb_builds_says_so(kcvp_db):
    houses = np.array([[4] * 12, [2] * 9 + [3, 0, 0]])  # 48 and 21 seeds: past 20
    with tbdb.open(kcvp_db) as tb:
        for row in houses:
            with pytest.raises(tbdb.MissingTableError) as info:
                tb.lookup_arrays("oware", row[None])
            assert "--max-seeds" not in str(info.value)
            assert "this tbdb builds no such table" in str(info.value)
        with pytest.raises(tbdb.MissingTableError, match="--max-seeds 5 "):
            tb.lookup_arrays("oware", np.array([[1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4]]))


def test_uttt_far_from_the_end_says_no_build_holds_it(kcvp_db):
    with tbdb.open(kcvp_db) as tb, pytest.raises(tbdb.MissingTableError,
                                                 match="no build this tbdb can make"):
        tb.lookup("start", game="uttt")
