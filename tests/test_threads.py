"""One ``Tablebase`` shared by 8 threads (issue 22: engines search with threads): every lookup,
text and batch, tables loaded or not, equals the serial one."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import tbdb
from tbdb import games
def _work(tb):
    """(game, kind, text, answer) for each game's sample and the positions after its moves."""
    out = []
    for g in games.all_games():
        start = g.coerce(g.sample)
        positions = [start] + [s.position for s in g.successors(start)][:6]
        for p in positions:
            out.append((g.name, "text", g.text(p)))
            out.append((g.name, "batch", g.text(p)))
    return out


def _answer(tb, job):
    name, kind, text = job
    g = games.get(name)
    try:
        if kind == "text":
            r = tb.lookup(text, game=name)
            return (r.outcome, r.distance, r.best_move, [m.move for m in r.moves])
        got = tb.lookup_arrays(name, *g.encode_batch([g.coerce(text)]))
        return [np.asarray(a).tolist() for a in got]
    except (tbdb.MissingTableError, ValueError) as exc:
        return type(exc).__name__, str(exc)


@pytest.mark.parametrize("load", [False, True], ids=["lazy", "loaded"])
def test_eight_threads_agree_with_serial_lookups(every_game_db, load):
    with tbdb.open(every_game_db) as tb:
        jobs = _work(tb)
        serial = [_answer(tb, j) for j in jobs]
    assert sum(not isinstance(a, tuple) or a[0] not in ("MissingTableError", "ValueError")
               for a in serial) > len(jobs) // 3  # most positions answered
    with tbdb.open(every_game_db) as tb:
        if load:
            for g in games.all_games():
                tb.load(g.name)
        with ThreadPoolExecutor(8) as pool:
            got = list(pool.map(lambda j: _answer(tb, j), jobs * 8))
    assert got == serial * 8
