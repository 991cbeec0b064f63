"""Single lookups on probe files through libtbprobe (``native/``), the C prober engines use.

``tb.lookup`` on a directory is a dozen Python calls around two Numba kernels: about 15 us on a
warm table, more than the probe itself.  The C library answers the same question from the
text tbdb writes in one call (parse, find the table, decode, write the best move): the
extension ``tbdb._tbprobe``, built by ``setup.py`` from ``native/src`` when a C compiler is at
hand.  Each file is handed to it once the reader has opened and checked it (manifest, size,
header, checksum for files up to 16 MiB), as the reader's own mapping: one mapping, whose pages
``prefault`` maps for both.  It answers only what it can answer exactly as the Python path
does: a stored value with a stored best move, for games whose lookups take no options; anything
else (a table not opened yet, a finished or illegal position, a damaged block, a best move the
Python path would derive) goes the Python way, which opens the table or raises the error
tbdb words.  ``test_native_lookups.py`` compares both on 1,500 slots of every example table
(``test_native.py`` compares the C values with Python's on every slot).

Without the extension, or with ``TBDB_NATIVE=0``, nothing changes but the speed.
"""
from __future__ import annotations

import os

#: The games libtbprobe probes (the names its ``tb_game_of`` knows).
C_GAMES = frozenset({"cdc", "chess", "chinese-checkers", "oware", "shogi", "tictactoe", "uttt"})


def serves(game) -> bool:
    """Whether single lookups of ``game`` go to libtbprobe: index tables (win/draw/loss, a
    stored best move) and no lookup options; Oware's score runs and the key tables of UTTT and
    tic-tac-toe stay with Python."""
    return game.name in C_GAMES and game.storage == "index" and not game.lookup_options


_CURRENT: list = []  # whether the built module matches the checkout's sources (checked once)


def available() -> bool:
    """Whether the extension is built, from the sources beside it, and not turned off
    (``TBDB_NATIVE=0``)."""
    if os.environ.get("TBDB_NATIVE", "1") == "0":
        return False
    try:
        from tbdb import _tbprobe
    except ImportError:
        return False
    if not _CURRENT:
        _CURRENT.append(_matches_checkout(getattr(_tbprobe, "SOURCES", None)))
    return _CURRENT[0]


def checkout() -> str | None:
    """The source tree an editable install runs from (setup.py and native/ beside tbdb/)."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ok = os.path.isfile(os.path.join(root, "setup.py")) and \
        os.path.isdir(os.path.join(root, "native", "src"))
    return root if ok else None


def _matches_checkout(built: str | None) -> bool:
    """An editable install keeps the module it compiled when ``native/`` changes (a pull, an
    edit): such a stale module is not used, with one warning, until ``pip install -e .``
    rebuilds it.  An installed wheel has no ``native/`` beside it and is used as built."""
    import importlib.util
    import warnings
    root = checkout()
    if root is None:
        return True
    spec = importlib.util.spec_from_file_location(
        "_tbprobe_sources", os.path.join(root, "native", "python", "sources_digest.py"))
    digest = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(digest)
    if digest.sources_digest(root) == built:
        return True
    warnings.warn("tbdb._tbprobe was built from other sources than native/ now holds; lookups "
                  "stay in Python until it is rebuilt: pip install -e .", RuntimeWarning,
                  stacklevel=3)
    return False


class NativeProber:
    """A libtbprobe base over the files a ``ProbeDir`` has opened."""

    def __init__(self):
        from tbdb import _tbprobe
        self.base = _tbprobe.Base()
        self.added: set[str] = set()
        self.answered = 0  # lookups it answered (the tests check that it is used)
        self.games: dict[str, bool] = {}  # ``serves`` by game name

    def serving(self, game) -> bool:
        got = self.games.get(game.name)
        if got is None:
            got = self.games[game.name] = serves(game)
        return got

    def add(self, file) -> None:
        """Probe ``file`` (a checked ``ProbeFile`` of an index table) from now on; a file the C
        library refuses stays with the Python path."""
        if file.path in self.added or file.storage != "index":
            return
        self.added.add(file.path)
        try:
            self.base.add_buffer(file.buf, file.path)
        except ValueError:
            pass

    def probe(self, game: str, text: str):
        """(result, distance, best move text) of a position's text, or None: ask Python."""
        got = self.base.probe(game, text, -1)
        if type(got) is not tuple or got[3] is None:
            return None
        self.answered += 1
        return got[0], got[1], got[3]

    def close(self) -> None:
        self.base = None  # tb_close, and the files' buffers released
