"""The game registry: one line per game.  ``get(name)`` finds a game, ``guess(text)`` the game a
position text is written for.  What a game implements: ``tbdb.games.base.Game``."""
from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

from tbdb.errors import InvalidPositionError, UnknownGameError, quote

if TYPE_CHECKING:  # (the games' module imports NumPy: a probe-file lookup may need neither)
    from tbdb.games.base import Game

# name -> "module:Class", imported on first use so `tbdb --help` stays quick
REGISTRY = {
    "cdc": "tbdb.games.cdc.game:CdcGame",
    "chess": "tbdb.games.chess.game:ChessGame",
    "chinese-checkers": "tbdb.games.chinese_checkers.game:ChineseCheckersGame",
    "oware": "tbdb.games.oware.game:OwareGame",
    "shogi": "tbdb.games.shogi.game:ShogiGame",
    "tictactoe": "tbdb.games.tictactoe.game:TicTacToeGame",
    "uttt": "tbdb.games.uttt.game:UtttGame",
}

_loaded: dict[str, Game] = {}


def names() -> list[str]:
    return sorted(REGISTRY)


def get(name: str) -> Game:
    """The game called ``name``; ``UnknownGameError`` (a ``KeyError``) names the known ones."""
    game = _loaded.get(name)
    if game is None:
        if not isinstance(name, str) or name not in REGISTRY:
            raise UnknownGameError(f"unknown game {quote(name)}; known games: {', '.join(names())}")
        module, cls = REGISTRY[name].split(":")
        game = _loaded[name] = getattr(import_module(module), cls)()
    return game


_all: tuple[Game, ...] = ()  # every registered game, loaded: guessing a lookup's game reads it


def all_games() -> list[Game]:
    global _all
    if len(_all) != len(REGISTRY):
        _all = tuple(get(n) for n in names())
    return list(_all)


def guess(text: str) -> Game:
    """The one game whose notation ``text`` is written in; none or several is an
    ``InvalidPositionError`` quoting the text and naming the candidates."""
    if not isinstance(text, str):
        raise InvalidPositionError(f"a position is text, not {quote(text)}")
    if len(_all) != len(REGISTRY):
        all_games()
    found = [g for g in _all if g.recognises(text)]  # every game asked: two is an error
    if len(found) == 1:
        return found[0]
    if not found:
        samples = "; ".join(f"{g.name}: {g.sample!r}" for g in all_games())
        raise InvalidPositionError(f"position {quote(text)} is in no game's notation ({samples}); "
                                   f"name the game to see what is wrong with it")
    raise InvalidPositionError(f"position {quote(text)} could be a position of "
                               f"{', '.join(g.name for g in found)}: name the game")
