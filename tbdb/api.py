"""The Python query API: ``tbdb.open(path)`` and ``tbdb.lookup(position)``."""
from __future__ import annotations

import re
from typing import Iterable

from tbdb import games
from tbdb.errors import InvalidPositionError, MissingTableError
from tbdb.results import LookupResult
from tbdb.store import Store, default_db_path

_OWARE_TEXT = re.compile(r"\s*\d+(\s+\d+){11}\s*")


def detect_game(text: str) -> str:
    """The game a position text is written for: CDC (``4g2K/8/8/8 r``) or Oware (12 numbers)."""
    if not isinstance(text, str):
        raise InvalidPositionError(f"a position is text, not {text!r}")
    if "/" in text:
        return "cdc"
    if _OWARE_TEXT.fullmatch(text):
        return "oware"
    raise InvalidPositionError(
        f"cannot tell the game of position {text!r}: expected a CDC position like "
        f"'4g2K/8/8/8 r' or an Oware position of 12 numbers like '0 0 0 0 0 1 0 0 0 0 0 0'")


class Tablebase:
    """An open tablebase file.  Use as a context manager or call ``close()``.

    ``lookup`` raises ``MissingTableError`` (a KeyError) for a position outside the built
    tables and ``InvalidPositionError`` (a ValueError) for malformed text; ``get`` returns
    None where ``lookup`` would raise ``MissingTableError``.
    """

    def __init__(self, path: str | None = None):
        self.path = str(path) if path is not None else default_db_path()
        self.store = Store(self.path, read_only=True)
        self._probers: dict[str, object] = {}

    def prober(self, game: str):
        prober = self._probers.get(game)
        if prober is None:
            prober = self._probers[game] = games.get(game).prober(self.store)
        return prober

    def lookup(self, position, *, game: str | None = None, **options) -> LookupResult:
        """The value of one position (text, or a game's Position object).  Options are the
        game's (Oware: ``turns_left``, default 200)."""
        if game is None:
            game = getattr(position, "game", None) or detect_game(
                position if isinstance(position, str) else str(position))
        return self.prober(game).lookup(position, **options)

    def get(self, position, *, game: str | None = None, **options) -> LookupResult | None:
        """As ``lookup``, but None for a position whose table is not built."""
        try:
            return self.lookup(position, game=game, **options)
        except MissingTableError:
            return None

    def lookup_many(self, positions: Iterable, *, game: str | None = None,
                    **options) -> list[LookupResult]:
        """Many positions at once (texts or Position objects), in order."""
        return [self.lookup(p, game=game, **options) for p in positions]

    def lookup_arrays(self, game: str, *arrays, **options):
        """The fast batch form on encoded arrays (see each game's prober ``lookup_arrays``;
        CDC: boards int8[n, 32] of piece codes and sides int8[n])."""
        return self.prober(game).lookup_arrays(*arrays, **options)

    def sql(self, query: str, params=None) -> list[tuple]:
        return self.store.query(query, params)

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> Tablebase:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def open(path: str | None = None) -> Tablebase:  # noqa: A001 - mirrors builtins.open on purpose
    """Open a tablebase file (default: $TBDB_DB, else ./tbdb.duckdb)."""
    return Tablebase(path)


_default: Tablebase | None = None


def lookup(position, **options) -> LookupResult:
    """``open().lookup(...)`` on the default database, kept open between calls."""
    global _default
    if _default is None or _default.path != default_db_path():
        if _default is not None:
            _default.close()
        _default = Tablebase()
    return _default.lookup(position, **options)
