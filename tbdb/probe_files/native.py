"""Single lookups on probe files through libtbprobe (``native/``), the C prober engines use.

``tb.lookup`` on a directory is a dozen Python calls around two Numba kernels: on a warm table
they take more than the probe itself.  The C library answers the same question from the
text tbdb writes in one call (parse, find the table, decode, write the best move): the
extension ``tbdb._tbprobe``, built by ``setup.py`` from ``native/src`` when a C compiler is at
hand.  Its base is a lazy one over the directory (``TB_OPEN_LAZY``): a file of at most
``LAZY_LIMIT`` bytes opens in C on the first probe that needs it, checked as the Python reader
checks it (manifest, size, header, SHA-256) and indexed, with no Python object made for it;
a larger file the reader opens, checks and maps ahead in the background, then hands to C as
its own mapping (``add``).  C answers only what it can answer exactly as the Python path
does: a stored value with a stored best move, for games whose lookups take no options; anything
else (a file C refused, a finished or illegal position, a damaged block, a best move the
Python path would derive) goes the Python way, which opens the table or raises the error
tbdb words.  ``test_native_lookups.py`` compares both on 1,500 slots of every example table
(``test_native.py`` compares the C values with Python's on every slot).

Without the extension, or with ``TBDB_NATIVE=0``, nothing changes but the speed.

A file changed in place under an open base (rewritten, truncated: issue 61) is found by the
probe that reads it (libtbprobe checks the file's identity after every value it reads), which
raises ``ProbeFileError`` naming the file; a read past the end of a truncated file is absorbed
(``guard_mapping``: the extension's SIGBUS handler maps zeros there) rather than killing the
process.  The Python readers register their own mappings with it too.
"""
from __future__ import annotations

import os

from tbdb.probe_files.guard import faults, guard_mapping, guarded_extension, \
    unguard_mapping  # noqa: F401
from tbdb.probe_files.header import CHECK_ON_OPEN, ProbeFileError

#: Files up to this size (``CHECK_ON_OPEN``: those the Python reader checks whole when it opens
#: them) libtbprobe checks whole when it opens them on their first probe: their SHA-256 against
#: the manifest, and their checkpoints made (16 a block: a probe decodes a few codes, not its
#: block up to its slot), a small cost for a small file.  Larger files it opens with the
#: reader's checks of a large file (listed, inside, size, header against the manifest),
#: unindexed, and the reader maps their pages ahead in the background (``prefault``).
LAZY_LIMIT = CHECK_ON_OPEN

#: Files over this size libtbprobe leaves to the reader, which opens and checks them and hands
#: them over (``add``); by default none, so that a first lookup in C needs no Python reader.
OPEN_LIMIT = (1 << 64) - 1

#: The games libtbprobe probes (the names its ``tb_game_of`` knows).
C_GAMES = frozenset({"cdc", "chess", "chinese-checkers", "oware", "shogi", "tictactoe", "uttt"})


def serves(game) -> bool:
    """Whether single lookups of ``game`` go to libtbprobe: index tables (win/draw/loss, a
    stored best move) and no lookup option with a default (one changes every answer: Oware's
    plies left; a lookup that gives an option is Python's anyway); Oware's score runs and the
    key tables of UTTT and tic-tac-toe stay with Python."""
    from tbdb.storage import storage_of
    return game.name in C_GAMES and storage_of(game).probe_file.native and \
        all(o.default is None for o in game.lookup_options)


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
    """A lazy libtbprobe base over a directory of probe files (``ProbeDir.native``)."""

    def __init__(self, path: str):
        from tbdb import _tbprobe
        _tbprobe.set_changed_error(ProbeFileError)  # a file changed under the base: one line
        # files open in C on their first probe, those up to the lazy limit checked against
        # the manifest's SHA-256 and indexed; files over the open limit through ``add``
        self.base = _tbprobe.Base(path, OPEN_LIMIT, LAZY_LIMIT)
        self.prefaults: list = []  # the large files C mapped, mapped ahead in the background
        self.base.set_on_mapped(self._mapped)
        self.added: set[str] = set()  # files offered
        self.serving_files: set[str] = set()  # files C took
        self.asked = 0  # lookups answered through ``base.probe`` (its routes count their own)
        self._routed_before_close = 0
        self.games: dict[str, bool] = {}  # ``serves`` by game name

    @property
    def routed(self) -> int:
        """Lookups the base's routes (``Prober.route``) answered."""
        return self._routed_before_close + (self.base.answered if self.base is not None else 0)

    @property
    def answered(self) -> int:
        """Lookups C answered, by probe or by route (the tests check that it is used)."""
        return self.asked + self.routed

    def serving(self, game) -> bool:
        got = self.games.get(game.name)
        if got is None:
            got = self.games[game.name] = serves(game)
        return got

    def _mapped(self, address: int, size: int) -> None:
        """A file C opened itself: a large one's pages mapped ahead, as the reader's are."""
        from tbdb.probe_files.prefault import SMALL_BYTES, Prefault
        if size > SMALL_BYTES:
            self.prefaults.append(Prefault.of_range(address, size))

    def add(self, file) -> bool:
        """Probe ``file`` (a checked ``ProbeFile`` of an index table over the lazy limit) from
        now on; a file the C library refuses stays with the Python path.  Whether C has it."""
        if file.path in self.added:
            return file.path in self.serving_files
        self.added.add(file.path)
        from tbdb.storage import storage_of
        if not storage_of(file.storage).probe_file.native or len(file.buf) <= LAZY_LIMIT:
            return False  # (C opens a small file itself, indexed, or has refused it)
        try:
            self.base.add_buffer(file.buf, file.path)
        except ValueError:
            return False
        self.serving_files.add(file.path)
        return True

    def close(self) -> None:
        self._routed_before_close = self.routed
        for p in self.prefaults:  # out of C's mappings before tb_close unmaps them
            p.stop()
        self.prefaults.clear()
        if self.base is not None:
            self.base.set_on_mapped(None)  # (the base may outlive this object in a route)
        self.base = None  # tb_close, and the files' buffers released
