"""The search benchmarks' players are correct searchers: searched to the end (no budget, depth
enough), the Oware player finds the books' exact scores and the CDC player the tables' mates,
with probes inside the search and without.  (Slow: the search kernels compile each run.)"""
import importlib
import random
import sys
from pathlib import Path

import numpy as np
import pytest

import tbdb

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
pytestmark = pytest.mark.slow


def _load(name: str):
    # imported by name: a recursive Numba kernel of a module missing from sys.modules cannot
    # resolve its own symbol ("unresolved symbol")
    if str(BENCHMARKS) not in sys.path:
        sys.path.insert(0, str(BENCHMARKS))
    return importlib.import_module(name)


@pytest.fixture(scope="module")
def oware_db(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("oware") / "oware.duckdb")
    tbdb.build("oware", db=path, max_seeds=8, progress=False)
    return path


def test_oware_full_searches_find_the_books_scores(oware_db):
    from tbdb.games.oware.position import OwarePosition
    search = _load("oware_search")
    rng = random.Random(7)
    with tbdb.open(oware_db) as tb:
        arrays = search.Books(tb, 8).arrays()
        checked = probed = 0
        while checked < 150:
            houses = [0] * 12
            for _ in range(rng.randint(2, 8)):
                houses[rng.randrange(12)] += 1
            p = OwarePosition(tuple(houses))
            if not p.legal_moves():
                continue
            t = rng.randint(1, 6)
            r = tb.lookup(p.text, game="oware", turns_left=t)
            for probe_max in (-1, rng.randint(0, p.seeds - 1), 8):
                stats = np.zeros(3, np.int64)
                move, value, depth, from_book = search.choose(np.array(houses, np.int8), t,
                                                              10**9, probe_max, *arrays, stats)
                assert value == r.score, (p.text, t, probe_max)
                assert from_book == (probe_max >= p.seeds)
                chosen = next(m for m in r.moves if m.move == str(move))
                assert chosen.score == r.score  # the move played realises the value
                probed += int(stats[1])
            checked += 1
        assert probed > 150  # the inner probes were exercised


def test_cdc_full_searches_find_the_tables_mates(kcvp_db):
    from tbdb.games.cdc import Position
    search = _load("cdc_search")
    rng = random.Random(11)
    with tbdb.open(kcvp_db) as tb:
        tables = search.Tables(tb, {"KCvP", "CvP", "KvP", "KCvK"} & set(
            t["table_name"] for t in tb.tables("cdc")))
        arrays = tables.arrays()
        checked = 0
        tried = 0
        while checked < 60 and tried < 20000:
            tried += 1
            board = np.full(32, -1, np.int8)
            codes = [0, 5, 13] if rng.random() < 0.7 else [5, 13]  # KCvP, CvP
            for code, sq in zip(codes, rng.sample(range(32), len(codes))):
                board[sq] = code
            side = rng.randrange(2)
            try:
                r = tb.lookup(Position(tuple(int(c) for c in board), side), game="cdc")
            except (tbdb.InvalidPositionError, tbdb.MissingTableError):
                continue
            if r.outcome == "draw" or not 1 <= r.distance <= 5:
                continue
            expected = search.MATE - r.distance if r.outcome == "win" else \
                -search.MATE + r.distance
            for probe in (False, True):
                stats = np.zeros(3, np.int64)
                # unlimited budget: deepen until the mate is proven (depth >= distance)
                move, value, depth, _ = search.choose(board, side, 3_000_000, probe, *arrays,
                                                      stats)
                assert value == expected or (not probe and depth < r.distance), \
                    (r.position, probe, value, expected, depth)
            checked += 1
        assert checked >= 30
