"""tbdb's chess tables against real Syzygy tables, probed by python-chess (``chess.syzygy``): an
independent generator and prober.  Random legal positions of each material, both colours and
both sides to move (en passant rights too, where a table has pawns of both colours): tbdb's
win / draw / loss equals the sign of Syzygy's WDL (tbdb has no 50-move rule: a "cursed" win,
WDL 1, is a win), checkmate is a loss at distance 0, and Syzygy's distance to a zeroing move is
never more than tbdb's distance to mate (a mate ends the game, and the side choosing DTZ-optimal
moves could also play DTM-optimal ones; + 1 for the rounding DTZ files may use).

The Syzygy files are python-chess's own test tables (all 35 materials of 3-4 pieces) from its
source distribution on the package index: ``TBDB_SYZYGY_DIR`` (``.ci/run`` fills one with
``tests/fetch_syzygy.py``), else fetched once into the user's cache directory; where neither
works (no package index) these tests skip, saying so."""
from __future__ import annotations

import os
import random
import sys

import chess
import chess.syzygy
import pytest

import tbdb

sys.path.insert(0, os.path.dirname(__file__))
from chess_positions import compare, en_passant_boards, random_boards  # noqa: E402
from fetch_syzygy import fetch, has_tables  # noqa: E402


def _syzygy_dir() -> str:
    given = os.environ.get("TBDB_SYZYGY_DIR")
    if given:
        if not has_tables(given):
            pytest.fail(f"TBDB_SYZYGY_DIR={given!r} lacks the Syzygy files "
                        f"(python tests/fetch_syzygy.py DIR fills one)")
        return given
    cache = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"),
                         "tbdb", f"syzygy-python-chess-{chess.__version__}")
    if not has_tables(cache):
        try:
            fetch(cache)
        except Exception as exc:  # noqa: BLE001 (no package index: skipped, saying why)
            pytest.skip(f"no Syzygy tables: python-chess's source distribution not fetched "
                        f"({str(exc).splitlines()[0] if str(exc) else type(exc).__name__}); "
                        f"set TBDB_SYZYGY_DIR (python tests/fetch_syzygy.py DIR)")
    return cache


@pytest.fixture(scope="module")
def syzygy():
    with chess.syzygy.open_tablebase(_syzygy_dir()) as tables:
        yield tables


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """Every 3-piece table (KPvK's closure) and KQvKR."""
    path = str(tmp_path_factory.mktemp("chess-syzygy") / "tb.duckdb")
    for material in ("KPvK", "KQvKR"):
        tbdb.build("chess", db=path, material=material, progress=False)
    with tbdb.open(path) as tb:
        yield tb


@pytest.mark.parametrize("material", ["KQvK", "KRvK", "KBvK", "KNvK", "KPvK", "KQvKR"])
def test_random_positions_equal_syzygy(syzygy, small, material):
    boards = random_boards(material, 800, random.Random(material))  # (python-chess's DTZ
    # probes are most of the time: 1,500 boards a table took 18 s of CI's)
    bad = compare(small, syzygy, boards)
    assert not bad, f"{len(bad)} of {len(boards)} differ from Syzygy, e.g. {bad[:5]}"
    # the comparison can tell: the sample holds each outcome the material has
    outcomes = {small.lookup(b).outcome for b in boards[:300]}
    assert outcomes >= ({"draw"} if material in ("KBvK", "KNvK") else {"win", "draw"})


def test_a_wrong_value_is_seen(syzygy, small):
    """The check itself: a position's value turned around is reported."""
    class Flipped:
        def lookup(self, board):
            r = small.lookup(board)
            r.__dict__["outcome"] = {"win": "loss", "loss": "win", "draw": "draw"}[r.outcome]
            return r
    boards = random_boards("KQvKR", 200, random.Random(1))
    assert compare(Flipped(), syzygy, boards)


@pytest.fixture(scope="module")
def every_four(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("chess-syzygy-4") / "tb.duckdb")
    tbdb.build("chess", db=path, max_pieces=4, progress=False)
    with tbdb.open(path) as tb:
        yield tb


def _materials(tb) -> list[str]:
    return sorted(r["table_name"] for r in tb.tables("chess"))


@pytest.mark.slow
def test_every_three_and_four_piece_table_equals_syzygy(syzygy, every_four):
    """All 35 materials, 2,000 random positions each, and 2,000 en passant positions of KPvKP
    (about 4 minutes of building)."""
    materials = _materials(every_four)
    assert len(materials) == 35
    for material in materials:
        boards = random_boards(material, 2000, random.Random(material))
        bad = compare(every_four, syzygy, boards)
        assert not bad, f"{material}: {len(bad)} of {len(boards)} differ, e.g. {bad[:5]}"
    boards = en_passant_boards("KPvKP", 2000, random.Random(5))
    assert all(b.ep_square is not None for b in boards)
    bad = compare(every_four, syzygy, boards)
    assert not bad, f"KPvKP en passant: {len(bad)} of {len(boards)} differ, e.g. {bad[:5]}"
