"""Single lookups on a directory of probe files through libtbprobe (``tbdb._tbprobe``,
``tbdb/probe_files/native.py``): the same ``LookupResult`` as the Python path, slot by slot on
every example table of each game it serves; errors still raised in tbdb's words; nothing used
with ``TBDB_NATIVE=0``."""
from __future__ import annotations

import json
import random
import threading

import numpy as np
import pytest

import tbdb
from tbdb import games
from tbdb.errors import InvalidPositionError, MissingTableError
from tbdb.games.base import GameOver
from tbdb.probe_files import ProbeDir, export, native

SAMPLE = 1500  # slots a table (the C values themselves are compared slot by slot in test_native)

needs_native = pytest.mark.skipif(not native.available(),
                                  reason="tbdb._tbprobe is not built (no C compiler at install)")


@pytest.fixture(scope="module")
def probe_dir(every_game_db, tmp_path_factory):
    out = str(tmp_path_factory.mktemp("native-lookups") / "probe")
    export(every_game_db, out, progress=False)
    return out


def _texts(probe_dir: str, game: str) -> list[str]:
    """Texts of up to SAMPLE random slots of each of the game's tables (any slot: empty,
    illegal and finished ones raise or answer as the Python path does)."""
    g = games.get(game)
    rnd = random.Random(7)
    out = []
    for (name, table), e in sorted(ProbeDir(probe_dir).entries.items()):
        if name != game or e["storage"] != "index":
            continue
        slots = range(e["slots"])
        for s in rnd.sample(slots, min(SAMPLE, len(slots))):
            try:
                out.append(g.slot_text(table, s))
            except (ValueError, KeyError):  # a slot no position fills
                pass
    return out


def _answer(tb, text, game: str) -> str:
    try:
        return json.dumps(tb.lookup(text, game=game).to_dict(moves=False))
    except (InvalidPositionError, MissingTableError) as err:
        return f"{type(err).__name__}: {err}"


def _stored(game: str, position) -> bool:
    """Whether a position's value is one its table stores, which C answers: not a finished
    game (``GameOver``), nor one valued through its children (``Game.by_children``)."""
    g = games.get(game)
    if g.by_children(position):
        return False
    try:
        return not isinstance(g.locate(position), GameOver)
    except (ValueError, KeyError):
        return False


def _objects(texts: list[str], game: str) -> dict:
    """The position objects of the texts that parse, by text."""
    g = games.get(game)
    out = {}
    for t in texts:
        try:
            out[t] = g.parse(t)
        except ValueError:
            pass
    return out


def _python(probe_dir: str, monkeypatch):
    monkeypatch.setenv("TBDB_NATIVE", "0")
    tb = tbdb.open(probe_dir)
    monkeypatch.delenv("TBDB_NATIVE")
    assert tb.store.native is None
    return tb


SERVED = sorted(g.name for g in games.all_games() if native.serves(g))


@needs_native
@pytest.mark.parametrize("game", SERVED)
def test_lookups_through_libtbprobe_equal_the_python_path(probe_dir, game, monkeypatch):
    texts = _texts(probe_dir, game)
    assert texts
    with _python(probe_dir, monkeypatch) as py:
        want = [_answer(py, t, game) for t in texts]
    with tbdb.open(probe_dir) as tb:
        assert tb.store.native is not None
        first = [_answer(tb, t, game) for t in texts]  # each table's first lookup: Python's
        again = [_answer(tb, t, game) for t in texts]
        # an engine's call, a position object and the game named (``Prober.route``): the
        # same answers, errors included, and C asked once a lookup
        objects = _objects(texts, game)
        before = tb.store.native.answered
        direct = [_answer(tb, p, game) for p in objects.values()]
        direct_hits = tb.store.native.answered - before
        answered = tb.store.native.answered
        hits = tb.stats().hits
    assert first == want
    assert again == want
    by_text = dict(zip(texts, want))
    assert direct == [by_text[t] for t in objects]
    # C answers every stored value, with its stored best move or without one (the move then
    # derived when read: ``DerivedBest``)
    stored = [t for t, p in objects.items() if by_text[t].startswith("{") and _stored(game, p)]
    assert direct_hits == len(stored) > 0
    assert answered >= len(stored)
    assert hits >= answered


@pytest.fixture(scope="module")
def direct_dir(every_game_db, tmp_path_factory):
    out = str(tmp_path_factory.mktemp("native-lookups-direct") / "probe")
    export(every_game_db, out, progress=False, direct=True)
    return out


@needs_native
@pytest.mark.parametrize("coding", ["probe_dir", "direct_dir"])
@pytest.mark.parametrize("limits", [None, "open 0", "check 0"])
def test_an_engines_first_lookups_open_their_tables_in_the_route(coding, limits,
                                                                  monkeypatch, request):
    """Position objects on a directory just opened, so that each table's first lookup is the
    route's (``Prober.route``, the extension's ``Route``): C opens files up to the open limit
    itself (those up to the lazy limit checked whole: "check 0", none) and asks the reader
    (``native_open``) for the others ("open 0": every file); the answers, errors included,
    are the Python path's, and ``tb.stats()`` counts what C answered.  Index tables in
    streams and in direct cells (``export --direct``) alike."""
    probe_dir = request.getfixturevalue(coding)
    if limits == "open 0":
        monkeypatch.setattr(native, "OPEN_LIMIT", 0)
        monkeypatch.setattr(native, "LAZY_LIMIT", 0)
    elif limits == "check 0":
        monkeypatch.setattr(native, "LAZY_LIMIT", 0)
    for game in SERVED:
        texts = _texts(probe_dir, game)[::7]
        objects = _objects(texts, game)
        with _python(probe_dir, monkeypatch) as py:
            want = [_answer(py, t, game) for t in objects]
        with tbdb.open(probe_dir) as tb:
            got = [_answer(tb, p, game) for p in objects.values()]
            routed = tb.store.native.routed
            stats = tb.stats()
            if limits == "open 0":  # every table handed over by the reader, none opened by C
                assert len(tb.store.native.serving_files) == tb.store.native.base.table_count() > 0
        assert got == want, game
        assert routed == sum(1 for w, p in zip(want, objects.values())
                             if w.startswith("{") and _stored(game, p))
        assert stats.hits >= routed > 0 and stats.probes >= stats.hits


@needs_native
def test_moves_and_lines_of_a_native_lookup_are_the_python_ones(probe_dir, monkeypatch):
    texts = _texts(probe_dir, "cdc")[:200]
    with _python(probe_dir, monkeypatch) as py:
        want = [json.dumps(py.lookup(t, game="cdc").to_dict(line=True)) for t in texts
                if not _answer(py, t, "cdc").startswith(("Invalid", "Missing"))]
    with tbdb.open(probe_dir) as tb:
        for t in texts:
            _answer(tb, t, "cdc")
        before = tb.store.native.answered
        got = [json.dumps(tb.lookup(t, game="cdc").to_dict(line=True)) for t in texts
               if not _answer(tb, t, "cdc").startswith(("Invalid", "Missing"))]
        # the moves' and the lines' positions went to C too, not only the lookups themselves
        assert tb.store.native.answered - before > 3 * len(got)
    assert got == want


@needs_native
def test_errors_are_tbdbs_own(probe_dir):
    with tbdb.open(probe_dir) as tb:
        tb.lookup("8/8/8/pKC5 r", game="cdc")  # the table in C from now on
        with pytest.raises(MissingTableError, match="needs table 'KGMvGM' of cdc, which is not in the probe files"):
            tb.lookup("8/8/8/mKMgG3 r", game="cdc")
        with pytest.raises(InvalidPositionError, match="cannot arise"):
            tb.lookup("8/8/8/KC6 r", game="cdc")
        with pytest.raises(InvalidPositionError):
            tb.lookup("8/8/8/pKC4 r", game="cdc")  # a rank of seven squares
        r = tb.lookup("8/8/8/KC6 b", game="cdc")  # black has nothing left: lost, game over
        assert (r.outcome, r.best_move) == ("loss", None)


@needs_native
def test_native_lookups_from_many_threads_agree(probe_dir):
    texts = [t for t in _texts(probe_dir, "chinese-checkers")[:400]]
    with tbdb.open(probe_dir) as tb:
        want = [_answer(tb, t, "chinese-checkers") for t in texts]
        out = [None] * 4

        def run(i: int) -> None:
            out[i] = [_answer(tb, t, "chinese-checkers") for t in texts]
        threads = [threading.Thread(target=run, args=(i,)) for i in range(4)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        assert tb.store.native.answered > 0
    assert all(o == want for o in out)


@needs_native
def test_batches_never_hand_tables_to_libtbprobe(probe_dir):
    """lookup_arrays opens tables on its own (Numba): only a single lookup in a table adds it
    to the C base, so a batch over a thousand tables pays nothing for it."""
    g = games.get("cdc")
    texts = _texts(probe_dir, "cdc")[:300]
    ok = []
    with tbdb.open(probe_dir) as tb:
        for t in texts:
            if not _answer(tb, t, "cdc").startswith(("Invalid", "Missing")):
                ok.append(g.parse(t))
    with tbdb.open(probe_dir) as tb:
        tb.lookup_arrays("cdc", *g.encode_batch(ok))
        assert tb.store.native.base.table_count() == 0
        tb.lookup(ok[0], game="cdc")
        assert tb.store.native.base.table_count() == 1


@pytest.mark.parametrize("in_c", [True, False])
def test_closing_while_other_threads_look_up_never_crashes(probe_dir, in_c, monkeypatch):
    """A tablebase closed while threads look up: each lookup answers or raises ClosedError.
    The files (and libtbprobe's base) are unmapped only once no lookup is reading them: before,
    closing under running lookups crashed the process (a segmentation fault), in Python's path
    as in C's."""
    from tbdb.api import ClosedError
    if in_c and not native.available():
        pytest.skip("tbdb._tbprobe is not built")
    if not in_c:
        monkeypatch.setenv("TBDB_NATIVE", "0")
    texts = _texts(probe_dir, "cdc")[:300]
    for _ in range(3):
        tb = tbdb.open(probe_dir)
        assert (tb.store.native is not None) == in_c
        for t in texts:  # every table in C
            _answer(tb, t, "cdc")
        errors, answered = [], [0]

        def run() -> None:
            for t in texts * 3:
                try:
                    _answer(tb, t, "cdc")
                    answered[0] += 1
                except ClosedError:
                    pass
                except Exception as exc:  # noqa: BLE001 - anything else is the failure
                    errors.append(repr(exc))
                    return
        threads = [threading.Thread(target=run) for _ in range(3)]
        for th in threads:
            th.start()
        tb.close()
        for th in threads:
            th.join()
        assert not errors


@needs_native
def test_a_module_built_from_other_sources_is_not_used():
    """An editable install keeps its compiled module when native/ changes: the digest setup.py
    compiled in must match the checkout's sources, or lookups stay in Python (one warning)."""
    from tbdb import _tbprobe
    if native.checkout() is None:
        pytest.skip("an installed wheel: no native/ sources beside the package")
    assert native._matches_checkout(_tbprobe.SOURCES)
    with pytest.warns(RuntimeWarning, match="pip install -e"):
        assert not native._matches_checkout("0" * 16)
