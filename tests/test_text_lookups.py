"""Lookups of text on probe files answered in C before the rest of tbdb loads
(``tbdb/probe_files/text_lookups.py``): the Python path's answers, errors included, with and
without the game named, on every example table's texts and on damaged texts; a fresh process's
first answer with none of NumPy, Numba and DuckDB imported; ``moves`` and ``line()`` through
the Python path, made when first read."""
from __future__ import annotations

import json
import os
import random
import subprocess
import sys

import pytest

import tbdb
from tbdb import games
from tbdb.errors import ClosedError, InvalidPositionError, MissingTableError
from tbdb.games import notation
from tbdb.games.base import Game
from tbdb.probe_files import ProbeDir, export, native, text_lookups

needs_native = pytest.mark.skipif(not native.available(),
                                  reason="tbdb._tbprobe is not built (no C compiler at install)")

PER_TABLE = 40  # slots a table (test_native_lookups compares 1,500 a table, the game named)


@pytest.fixture(scope="module")
def probe_dir(every_game_db, tmp_path_factory):
    out = str(tmp_path_factory.mktemp("text-lookups") / "probe")
    export(every_game_db, out, progress=False)
    return out


def _texts(probe_dir: str, game: str) -> list[str]:
    g = games.get(game)
    rnd = random.Random(11)
    out = []
    for (name, table), e in sorted(ProbeDir(probe_dir).entries.items()):
        if name != game or e["storage"] != "index":
            continue
        for s in rnd.sample(range(e["slots"]), min(PER_TABLE, e["slots"])):
            try:
                out.append(g.slot_text(table, s))
            except (ValueError, KeyError):
                pass
    return out


def _damaged(texts: list[str], n: int) -> list[str]:
    """Texts one character off (replaced, dropped or doubled), with padding, or with a NUL and
    more after it: what a user mistypes or a caller smuggles, which C must refuse where
    Python does (or leave to it)."""
    rnd = random.Random(5)
    out = []
    for _ in range(n):
        t = rnd.choice(texts)
        i = rnd.randrange(len(t))
        c = rnd.choice("./123456789xkKgGrRpP- bw*")
        out.append(rnd.choice([t[:i] + c + t[i + 1:], t[:i] + t[i + 1:], t[:i] + t[i] + t[i:],
                               f" {t}\n", f"{t}\0{t[i:]}"]))  # (a NUL would end C's text)
    return out


def _answer(tb, text: str, game: str | None) -> str:
    try:
        return json.dumps(tb.lookup(text, game=game).to_dict(moves=False))
    except (InvalidPositionError, MissingTableError) as err:
        return f"{type(err).__name__}: {err}"


def test_the_games_answered_in_c_are_those_c_answers_alone():
    """``GAMES`` is named by hand (importing the games to ask would cost the time it saves):
    it must be every game C serves whose lookups add nothing in Python."""
    def alone(g) -> bool:
        kind = type(g)
        return native.serves(g) and kind.lookup_extras is Game.lookup_extras \
            and kind.by_children is Game.by_children
    assert text_lookups.GAMES == {g.name for g in games.all_games() if alone(g)}


def test_each_games_notation_check_is_the_one_it_recognises_with():
    assert set(notation.LOOKS) == set(games.REGISTRY)
    texts = [g.sample for g in games.all_games()] + ["start", "sfen startpos", "x" * 9,
                                                     "7x7-3 1", "star-distance-1 1", ""]
    for g in games.all_games():
        for t in texts:
            if g.recognises(t):
                assert notation.LOOKS[g.name](t), (g.name, t)
            elif g.name not in notation.PARSES:
                assert not notation.LOOKS[g.name](t), (g.name, t)


@needs_native
@pytest.mark.parametrize("game", sorted(text_lookups.GAMES))
def test_text_lookups_answer_as_the_python_path(probe_dir, game, monkeypatch):
    """Every example table's texts and damaged ones, the game named and guessed: C's answers
    (and the Python path's errors where C leaves a text to it) are the Python path's."""
    texts = _texts(probe_dir, game)
    texts += _damaged(texts, 300)
    monkeypatch.setattr(text_lookups, "GAMES", frozenset())
    with tbdb.open(probe_dir) as py:
        want = [(_answer(py, t, game), _answer(py, t, None)) for t in texts]
    monkeypatch.undo()
    with tbdb.open(probe_dir) as tb:
        before = tb._text.native.base.answered
        got = [(_answer(tb, t, game), _answer(tb, t, None)) for t in texts]
        answered = tb._text.native.base.answered - before
    assert got == want
    assert answered > len(texts) // 2  # C answered most of them (the valued ones, twice)


@needs_native
def test_moves_and_lines_of_a_text_lookup_come_from_the_python_path(probe_dir, monkeypatch):
    monkeypatch.setattr(text_lookups, "GAMES", frozenset())
    with tbdb.open(probe_dir) as py:
        texts = [t for t in _texts(probe_dir, "chinese-checkers")
                 if _answer(py, t, None).startswith("{")][:30]
        want = [json.dumps(py.lookup(t).to_dict(line=True)) for t in texts]
    monkeypatch.undo()
    with tbdb.open(probe_dir) as tb:
        results = [tb.lookup(t) for t in texts]
        # C's results (a finished game's is the Python path's): their source made when read
        assert sum(callable(r.__dict__.get("_source")) for r in results) >= 20
        got = [json.dumps(r.to_dict(line=True)) for r in results]
    assert got == want
    with tbdb.open(probe_dir) as tb:
        r = tb.lookup(texts[0])
    with pytest.raises(ClosedError, match="is closed: read a result's moves"):
        r.moves


@needs_native
def test_a_fresh_processs_first_answer_loads_no_numpy_numba_or_duckdb(probe_dir):
    text = _texts(probe_dir, "chinese-checkers")[0]
    code = ("import sys, json, tbdb\n"
            "tb = tbdb.open(sys.argv[1])\n"
            "r = tb.lookup(sys.argv[2])\n"
            "print(json.dumps([r.to_dict(moves=False),\n"
            "                  sorted(m for m in ('numpy', 'numba', 'duckdb') if m in sys.modules)]))\n")
    env = {k: v for k, v in os.environ.items() if k != "TBDB_NATIVE"}
    out = subprocess.run([sys.executable, "-c", code, probe_dir, text], capture_output=True,
                         text=True, env=env, check=True).stdout
    got, loaded = json.loads(out)
    with tbdb.open(probe_dir) as tb:
        assert got == tb.lookup(text, game="chinese-checkers").to_dict(moves=False)
    assert loaded == []


@needs_native
def test_a_large_file_c_opens_is_mapped_ahead_and_let_go_on_close(probe_dir, monkeypatch):
    """Files over the lazy limit open in C unverified and unindexed (the Python reader's
    checks of a large file); their mappings go to the reader's prefault, stopped on close.
    The limits lowered here make every example file a large one."""
    from tbdb.probe_files import prefault
    monkeypatch.setattr(native, "LAZY_LIMIT", 0)
    monkeypatch.setattr(prefault, "SMALL_BYTES", 0)
    texts = [t for t in _texts(probe_dir, "cdc")][:50]
    monkeypatch.setattr(text_lookups, "GAMES", frozenset())
    with tbdb.open(probe_dir) as py:
        want = [_answer(py, t, None) for t in texts]
    monkeypatch.setattr(text_lookups, "GAMES", frozenset({"cdc"}))
    tb = tbdb.open(probe_dir)
    got = [_answer(tb, t, None) for t in texts]
    threads = [p.thread for p in tb._text.native.prefaults]
    assert threads and tb.stats().hits >= sum(w.startswith("{") for w in want)
    tb.close()
    assert not tb._text.native.prefaults and all(t is None or not t.is_alive() for t in threads)
    assert got == want
