"""The explorer's "find positions" links: per built table, the longest wins and losses, a random
drawn position and positions with exactly one winning move.

Each kind is one fixed, read-only query per storage kind (``Storage.find_sql``: which stored
rows, in which order; only the table id, a seed and a limit are parameters) whose keys the game
turns into position text (``Game.slot_text``); every position found is then looked up through
the public API, so what the page shows is what ``tbdb lookup`` says about it.  "One winning
move" has no column to select on: the query draws won positions in a seeded random order and
the lookups keep those with exactly one winning move, reading at most ``SEARCH`` of them and
looking them up for at most ``BUDGET`` seconds (a table too large to keep in memory is probed
in DuckDB, about a millisecond a probe, and each candidate probes all its moves).
Score games (Oware) read a positive score as a win: the kinds are the highest and lowest
scores, a position worth 0 and positions with one move of positive score.

Needs the DuckDB file (a directory of probe files has no SQL): ``tb.sql`` refuses it in
tbdb's own words, which the API passes on.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

from tbdb.errors import InvalidOptionError, MissingTableError, quote
from tbdb.storage import storage_of


@dataclass(frozen=True)
class Kind:
    name: str
    wdl: str  # the link's words for win/draw/loss tables
    score: str  # ... for score tables
    random: bool  # a seeded random pick (else best first)

    def label(self, storage) -> str:
        """The link's words for tables of ``storage``: the field named by its value kind."""
        return getattr(self, storage.value_kind)


KINDS = {k.name: k for k in (
    Kind("longest-win", "longest wins", "highest scores", False),
    Kind("longest-loss", "longest losses", "lowest scores", False),
    Kind("draw", "a random draw", "a random position worth 0", True),
    Kind("one-winning-move", "exactly one winning move", "exactly one move that gains", True),
)}
SHOWN = 5  # positions answered per request
SEARCH = 400  # stored positions read at most for "one winning move"
BUDGET = 3.0  # seconds of lookups at most per request
MAX_SEED = 2**31 - 1


def tables(tb, game) -> list[str]:
    """The tables of ``game`` in the file with stored rows (a UTTT build that stored its
    positions in the shared store has none of its own: the store is listed)."""
    storage = storage_of(game)
    rows = tb.sql(f"SELECT table_name FROM tb_tables t WHERE game = $game AND EXISTS (SELECT 1 "
                  f"FROM {storage.values} v WHERE v.table_id = t.table_id) ORDER BY table_name",
                  params={"game": game.name}).fetchall()
    return [r[0] for r in rows]


def kinds(game) -> list[dict]:
    storage = storage_of(game)
    return [{"kind": k.name, "label": k.label(storage), "random": k.random}
            for k in KINDS.values()]


def find(tb, game, table: str, kind: str, seed: int = 0, options: dict | None = None) -> dict:
    """Up to ``SHOWN`` positions of ``table`` of the kind ``kind``, each with its lookup value
    (and, for 'one-winning-move', the move), as the API answers them."""
    if kind not in KINDS:
        raise InvalidOptionError(f"unknown kind of position {quote(kind)}; known kinds: "
                                 f"{', '.join(KINDS)}")
    if not 0 <= seed <= MAX_SEED:
        raise InvalidOptionError(f"seed must be from 0 to {MAX_SEED}, not {seed!r}")
    options = options or {}
    storage = storage_of(game)
    found = tb.sql("SELECT table_id FROM tb_tables WHERE game = $game AND table_name = $table",
                   params={"game": game.name, "table": table}).fetchall()
    built = tables(tb, game)
    if not found or table not in built:
        raise MissingTableError(f"no {game.name} table {quote(table)} with stored positions in "
                                f"this file (tables: {', '.join(built) or 'none'})")
    sql, params = storage.find_sql(game, kind)
    one_move = kind == "one-winning-move"
    limit = SEARCH if one_move else SHOWN
    given = {"id": found[0][0], "seed": seed, "limit": limit, **params}
    rows = tb.sql(sql, params={k: v for k, v in given.items() if f"${k}" in sql}).fetchall()
    out = []
    searched = 0
    deadline = time.perf_counter() + BUDGET
    for key, _ in rows:
        if time.perf_counter() > deadline:
            break
        searched += 1
        text = game.text(game.parse(game.slot_text(table, key)))
        r = tb.lookup(text, game=game.name, **options)
        entry = r.to_dict(moves=False)
        if one_move:
            winning = [m.move for m in r.moves if m.outcome == "win"]
            if len(winning) != 1:
                continue
            entry["winning_move"] = winning[0]
        out.append(entry)
        if len(out) == SHOWN:
            break
    k = KINDS[kind]
    return {"game": game.name, "table": table, "kind": kind,
            "label": k.label(storage),
            "seed": seed if k.random else None, "searched": searched, "positions": out}
