"""What a lookup is given, for every game alike (issue 22): something that is not a position is
an ``InvalidPositionError`` quoting it, and an error quotes a huge input cut short, in Python, on
the command line and in the web API's 400s."""
from __future__ import annotations

from urllib.parse import quote as urlquote

import pytest

import tbdb
from tbdb import games
from tbdb.cli.run import main
from tbdb.errors import quote

NAMES = games.names()
HUGE = 100_000
WEB_HUGE = 60_000  # the test client refuses URLs of 64 KiB
LONGEST_ERROR = 600  # a one-line error: the message around a quote of ~100 characters


def _huge_texts(g, size: int = HUGE) -> list[str]:
    """Texts of 100,000 characters that fail at different depths of each game's parser: the
    notation, a part of it (a row, a rank, a hand), and the game's own checks."""
    sample = g.sample
    head, _, tail = sample.partition(" ")
    return ["x" * size, "1" * size, sample + "x" * size, "x" * size + sample,
            head + "1" * size + " " + tail, head + " " + "b" * size, sample + " " + "9" * size,
            "/".join([head] * (size // len(head))) + " " + tail]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("given", [None, b"abc", 42, 4.5, ["x"], object()],
                         ids=["None", "bytes", "int", "float", "list", "object"])
def test_what_is_not_a_position_is_an_invalid_position(kcvp_db, name, given):
    with tbdb.open(kcvp_db) as tb:
        with pytest.raises(tbdb.InvalidPositionError, match=f"^{name} lookups take") as info:
            tb.lookup(given, game=name)
        assert quote(given)[:20] in str(info.value)
        with pytest.raises(tbdb.InvalidPositionError):
            games.get(name).coerce(given)


def test_another_games_position_object_is_refused_by_name(kcvp_db):
    ttt = games.get("tictactoe").start()
    with tbdb.open(kcvp_db) as tb, pytest.raises(tbdb.InvalidPositionError,
                                                 match="^oware lookups take"):
        tb.lookup(ttt, game="oware")


def test_quote_cuts_any_long_value():
    assert quote("abc") == "'abc'"
    assert quote(None) == "None"
    long = quote("y" * HUGE)
    assert long.startswith("'yyy") and long.endswith("... (100,000 characters)")
    assert len(long) < 150
    assert len(quote(b"z" * HUGE)) < 150 and len(quote(list(range(HUGE)))) < 150


@pytest.mark.parametrize("name", NAMES)
def test_errors_quote_a_huge_text_cut_short(kcvp_db, name, capsys):
    g = games.get(name)
    with tbdb.open(kcvp_db) as tb:
        for text in _huge_texts(g):
            with pytest.raises((ValueError, KeyError)) as info:
                tb.lookup(text, game=name)
            message = str(info.value)
            assert len(message) < LONGEST_ERROR, (name, text[:30], message[:300])
            assert main(["lookup", name, text, "--db", kcvp_db]) == 2
            err = capsys.readouterr().err
            assert len(err.strip().splitlines()) == 1 and len(err) < LONGEST_ERROR, err[:300]


@pytest.mark.parametrize("name", NAMES)
def test_web_400s_quote_a_huge_text_cut_short(every_game_db, name):
    pytest.importorskip("httpx")
    from starlette.testclient import TestClient
    from tbdb.web.app import create_app
    g = games.get(name)
    with TestClient(create_app(every_game_db)) as client:
        for text in _huge_texts(g, WEB_HUGE)[:3]:
            r = client.get(f"/api/{name}?position={urlquote(text)}")
            assert r.status_code == 400, r.text[:300]
            assert len(r.json()["error"]) < LONGEST_ERROR, r.text[:300]
        r = client.get(f"/api/{name}?position={urlquote(g.sample)}&{'q' * WEB_HUGE}=1")
        assert r.status_code == 400 and len(r.text) < LONGEST_ERROR, r.text[:300]
