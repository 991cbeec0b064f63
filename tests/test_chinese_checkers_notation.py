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


@pytest.mark.parametrize("board", ["7x7", "x", "", 12])
def test_a_start_on_no_board_is_refused_quoting_it(board):
    from tbdb import games
    from tbdb.errors import InvalidOptionError
    with pytest.raises(InvalidOptionError, match=repr(board) if board != 12 else "not 12"):
        games.get("chinese-checkers").start(board=board, pieces=3)


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


def _walled(m, player, holes=()):
    """Cells with ``player``'s goal tip empty and walled in by the other player (the tip's two
    neighbours and the next cells along both edges), the rest of the pieces placed clear of
    both tips; ``holes``: guard cells left empty instead."""
    geo = rhombus(m)
    n = geo.cells
    tip = n - 1 if player == 1 else 0
    ups = (2, 3) if player == 1 else (4, 5)  # from the bottom tip the edges run NW and NE
    guards = []
    for d in ups:
        a = int(geo.nbr[tip][d])
        guards += [a, int(geo.nbr[a][d])]
    cells = [0] * n
    other = 3 - player
    for g in guards:
        if g not in holes:
            cells[g] = other
    middle = [c for c in geo.rows[m - 1] + geo.rows[m - 2] + geo.rows[m]
              if c not in guards]
    for player_ in (1, 2):
        while cells.count(player_) < 6:
            cells[middle.pop(0)] = player_
    return cells, guards, tip


@pytest.mark.parametrize("player", [1, 2])
@pytest.mark.parametrize("mover", [1, 2])
def test_a_walled_tip_is_illegal_at_either_goal(player, mover):
    cells, guards, tip = _walled(5, player)
    assert len(set(guards)) == 4 and tip not in guards
    position = Position(5, 6, tuple(cells), mover)
    assert position.status == "illegal", position.text
    assert naive.Rules(5, 6).walled_tip(tuple(cells), player)
    for hole in guards:  # one guard missing: the tip can be reached, nothing is illegal
        open_ = Position(5, 6, tuple(_walled(5, player, holes=(hole,))[0][:]), mover)
        assert open_.status == "playing", open_.text


def test_a_goal_out_of_reach_elsewhere_than_its_tip_is_legal():
    # the wider rule (some empty goal cell out of reach while the other player's pieces stay)
    # made this illegal: player 1 can never reach cell 13 of its goal (player 2 on 10, 14, 15
    # and on 11 with 8 behind it).  Sturtevant's count does not: the tip is not walled in
    position = Position.parse("4x4-6 1/.1/.11/2.21/221/.2/2 1")
    assert position.status == "playing"
    assert naive.Rules(4, 6).status(position.cells, 1) == "playing"
    assert position.legal_moves()


def test_the_checks_run_in_the_rules_order():
    # player 1 fills its goal (the bottom six cells) while the top tip, player 2's goal, is
    # walled in by player 1: with player 2 to move the game would be over, but the walled tip
    # is checked first: illegal; with player 1 to move it has already won: illegal
    geo = rhombus(4)
    cells = [0] * geo.cells
    for c in (1, 2, 3, 5):  # around the empty top tip 0, along both edges
        cells[c] = 1
    for c in (10, 11, 12, 13, 14, 15):
        cells[c] = 2 if c in (10, 11, 12, 13) else 1
    assert cells.count(1) == 6 and cells.count(2) == 4
    cells[6], cells[9] = 2, 2
    board = tuple(cells)
    assert naive.Rules(4, 6).won(board, 1) and naive.Rules(4, 6).walled_tip(board, 2)
    assert Position(4, 6, board, 2).status == "illegal"
    assert naive.Rules(4, 6).status(board, 2) == "illegal"
    # without the wall (cell 5 moved away) the same win is a finished game, lost for player 2
    cells[5], cells[7] = 0, 1
    assert Position(4, 6, tuple(cells), 2).status == "over"
    assert Position(4, 6, tuple(cells), 1).status == "illegal"
