"""Every registered game honours the engine's interface (OpenSpiel-style conformance)."""
import random

import pytest

import tbdb
from tbdb import games
from tbdb.games.cdc import Position
from tbdb.games.oware import OwarePosition

def _cdc(rng):
    board = [-1] * 32
    for square, code in zip(rng.sample(range(32), 4), rng.sample(range(14), 4)):
        board[square] = code
    return Position(tuple(board), rng.randrange(2))


SAMPLES = {
    "cdc": _cdc,
    "oware": lambda rng: OwarePosition(tuple(rng.randrange(4) for _ in range(12))),
}


def test_registry_knows_every_game_and_rejects_others():
    assert games.names() == sorted(SAMPLES)
    with pytest.raises(tbdb.UnknownGameError, match="'go'"):
        games.get("go")


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_text_round_trips_and_moves_are_playable(name):
    game = games.get(name)
    rng = random.Random(11)
    for _ in range(300):
        position = SAMPLES[name](rng)
        assert game.parse(position.text) == position
        for move in position.legal_moves():
            child = position.push(str(move))
            assert game.parse(child.text) == child


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_plan_is_ordered_and_rejects_unknown_options(name):
    game = games.get(name)
    plan = game.plan()
    assert len(plan) == len(set(plan))
    for i, table in enumerate(plan):
        assert set(game.dependencies(table)) <= set(plan[:i])
    with pytest.raises(tbdb.InvalidOptionError, match="colour"):
        game.plan(colour="red")
