"""Lookups of a position's text on a directory of probe files, answered in C before the rest
of tbdb is loaded.

An engine's first ``tb.lookup(text)`` in a fresh process used to pay for NumPy, Numba (and its
compiler's set-up), DuckDB and a game's modules before libtbprobe answered in microseconds:
about half a second.  ``tbdb.open(DIR)`` now reads the manifest and opens libtbprobe's lazy
base only, and a lookup of text that C answers exactly as the Python path does (a game of
``GAMES``, a stored value with its stored best move) is one call into C: the text parsed, the
table's file opened and checked on its first probe, the value and best move read, the
position's text written as tbdb writes it.  Anything else (another game, options, a finished
or illegal position, a missing table, an error to word) is the Python path's
(``Tablebase.prober``), made on first need over the same base.  A result's ``moves`` and
``line()`` are read through that path when first asked for.
"""
from __future__ import annotations

import functools

from tbdb.games.notation import LOOKS
from tbdb.probe_files import native
from tbdb.probe_files.manifest import read_manifest
from tbdb.results import OUTCOMES, LookupResult

#: The games whose every lookup C answers as the Python path (``native.serves``, and neither
#: ``Game.lookup_extras`` nor ``Game.by_children``: chess has both); a test compares this with
#: the games' own properties, since naming them here spares importing them.
GAMES = frozenset({"cdc", "chinese-checkers", "shogi"})


class TextLookups:
    """libtbprobe's base over a directory, and the lookups of text it answers alone."""

    def __init__(self, path: str, manifest: dict, base: native.NativeProber):
        self.path = path
        self.manifest = manifest
        self.native = base
        present = {e["game"] for e in manifest["files"]}
        self.games = GAMES & present  # (a text of another game is the Python path's)

    @classmethod
    def open(cls, path: str) -> TextLookups | None:
        """The directory's manifest read and checked (``ProbeFileError`` as the Python reader
        words it), with libtbprobe's base over it; None where the extension is not built (or
        ``TBDB_NATIVE=0``, or it cannot read the manifest): every lookup is the Python path's."""
        manifest = read_manifest(path)
        if not native.available():
            return None
        try:
            base = native.NativeProber(path)
        except ValueError:
            return None
        return cls(path, manifest, base)

    def game_of(self, text: str) -> str | None:
        """The game ``text`` is written for, where only one game's notation fits it (what
        ``tbdb.games.guess`` decides, the one game that parses it confirmed by C's parse)."""
        found = None
        for name, looks in LOOKS.items():
            if looks(text):
                if found is not None:
                    return None  # two notations fit: the Python path says which, or that
                found = name
        return found

    def lookup(self, text: str, game: str | None, source) -> LookupResult | None:
        """C's ``LookupResult`` for ``text`` (of ``game``, or of the game its notation names),
        or None for the Python path.  ``source(game, text, best)``: the result's source for
        its ``moves`` and ``line()`` (``Tablebase``'s), called when they are first read."""
        base = self.native.base  # (once: ``close`` in another thread sets it to None)
        if base is None:
            return None
        name = game if game is not None else self.game_of(text)
        if name not in self.games:
            return None
        got = base.lookup_text(name, text)
        if got is None:
            return None
        result, distance, best, written = got
        r = LookupResult(name, written, OUTCOMES[result], distance, best)
        r.__dict__["_source"] = functools.partial(source, name, written, best)
        return r

    def close(self) -> None:
        self.native.close()
