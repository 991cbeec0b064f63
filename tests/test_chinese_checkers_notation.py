"""Chinese Checkers position texts: round trips, rejections, statuses against the reference."""
import random

import pytest

from tests import naive_chinese_checkers as naive
from tbdb.errors import InvalidPositionError
from tbdb.games.chinese_checkers import Position, StarPosition
from tbdb.solvers.chinese_checkers.geometry import rhombus


def test_start_positions_read_as_documented():
    assert Position.start(3, 1).text == "3x3-1 1/../.../../2 1"
    assert Position.start(4, 6).text == "4x4-6 1/11/111/..../222/22/2 1"
    assert Position.start(5, 4).text == "5x5-4 1/11/.1./..../...../..../.2./22/2 1"
    assert Position.start(5, 2).text == "5x5-2 1/1./.../..../...../..../.../.2/2 1"
    star = StarPosition.start(2).text.split(" ")
    assert star[0] == "star-2" and star[2] == "1"
    assert star[1].split("/")[:5] == ["1", "11", "111", "1111", "." * 13]


@pytest.mark.parametrize("m,pieces", [(3, 1), (4, 6), (6, 3), (9, 2)])
def test_rhombus_text_round_trips(m, pieces):
    rng = random.Random(m)
    n = m * m
    for _ in range(200):
        spots = rng.sample(range(n), 2 * pieces)
        cells = [0] * n
        for c in spots[:pieces]:
            cells[c] = 1
        for c in spots[pieces:]:
            cells[c] = 2
        position = Position(m, pieces, tuple(cells), rng.choice((1, 2)))
        assert Position.parse(position.text) == position
        assert Position.parse(position.text).text == position.text


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_star_text_round_trips(players):
    position = StarPosition.start(players)
    assert StarPosition.parse(position.text) == position
    rng = random.Random(players)
    for _ in range(10):
        position = position.push(rng.choice(position.legal_moves()))
        assert StarPosition.parse(position.text) == position


@pytest.mark.parametrize("text", [
    "3x3-1 1/../.../../2",            # no player to move
    "3x3-1 1/../.../../2 3",          # no player 3
    "3x4-1 1/../.../../2 1",          # not a rhombus
    "3x3-5 1/../.../../2 1",          # 5 pieces is not a game
    "2x2-1 1/../2 1",                 # board too small
    "3x3-4 1/11/1.2/22/. 1",          # three pieces for player 2
    "3x3-1 1/../..../../2 1",         # a row too long
    "3x3-1 1/../.../2 1",             # a row missing
    "3x3-1 1/../.x./../2 1",          # unknown cell
    "3x3-1 1/1./.../../2 1",          # two pieces for player 1
    "3x3-1 ./../.../../2 1",          # none for player 1
    "3x3-1  1/../.../../2 1",         # two spaces
    "star-5 1 1",                     # no 5-player star
    "star-2 1/11 1",                  # rows missing
    "03x03-1 1/../.../../2 1",        # a leading 0 would not round-trip
    "\u0663x\u0663-1 1/../.../../2 1",  # digits are ASCII
    "star-02 1 1",
    "star-2 1/11 \u0661",
])
def test_malformed_texts_are_rejected_quoting_them(text):
    with pytest.raises(InvalidPositionError) as err:
        (StarPosition if text.startswith("star") else Position).parse(text)
    assert repr(text) in str(err.value)


def test_star_piece_counts_are_checked():
    text = StarPosition.start(2).text.replace("1111", "111.", 1)
    with pytest.raises(InvalidPositionError, match="player 1 has 9 pieces"):
        StarPosition.parse(text)


@pytest.mark.parametrize("m,pieces", [(3, 3), (4, 4), (4, 6), (5, 6), (3, 4)])
def test_status_matches_the_reference(m, pieces):
    rng = random.Random(m * 7 + pieces)
    rules = naive.Rules(m, pieces)
    n = m * m
    seen = set()
    for _ in range(1200):
        cells = [0] * n
        # crowd the tips so that wins, illegal and blocked goals come up
        weights = [1 + 6 * (c in rules.goal[1] or c in rules.goal[2]) for c in range(n)]
        spots = []
        while len(spots) < 2 * pieces:
            c = rng.choices(range(n), weights)[0]
            if c not in spots:
                spots.append(c)
        for c in spots[:pieces]:
            cells[c] = 1
        for c in spots[pieces:]:
            cells[c] = 2
        mover = rng.choice((1, 2))
        position = Position(m, pieces, tuple(cells), mover)
        want = rules.status(tuple(cells), mover)
        assert position.status == want, position.text
        seen.add(want)
        if want == "playing":
            got = sorted((mv.from_cell, mv.to_cell) for mv in position.legal_moves())
            assert got == rules.legal_moves(tuple(cells), mover), position.text
    assert seen == {"illegal", "over", "playing"}


def test_a_blocked_tip_is_illegal_with_six_pieces():
    # the second player keeps four pieces round the empty bottom tip of the first player's goal
    geo = rhombus(5)
    n = geo.cells
    cells = [0] * n
    tip = n - 1
    a, b = (int(c) for c in geo.nbr[tip] if c >= 0)
    c_, e = geo.nbr[a][2], geo.nbr[b][3]  # one more step away from the tip, NW and NE
    guards = {a, b, int(c_), int(e)}
    assert len(guards) == 4 and all(g >= 0 for g in guards)
    for g in guards:
        cells[g] = 2
    for g in (0, 1):
        cells[g] = 2
    for g in (5, 7, 9, 11, 12, 13):
        cells[g] = 1
    position = Position(5, 6, tuple(cells), 1)
    assert position.status == "illegal"
    assert naive.Rules(5, 6).unreachable(tuple(cells), 1) == [tip]
