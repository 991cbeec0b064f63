"""Storage kinds, one class each (``tbdb.storage.base.Storage``): index, key and score-run
tables.  The core asks ``storage_of(game)`` (or of a catalogue row, or of ``TableData``) for the
object that writes, loads, probes and summarises that kind's values, and never asks which kind
it holds.

    base.py     the Storage base class, StoredTable (a table as the prober holds it), wdl values
    index.py    IndexStorage: a dense index per table (tb_index_rows, Parquet values files)
    keys.py     KeyStorage: exact keys stored level by level (tb_key_values)
    runs.py     RunStorage: a score by plies left as runs (tb_score_runs)
    arrow_rows.py  the Arrow schemas and rows every kind shares (catalogue, stats, texts, levels)
    probe_layouts.py  each kind's probe-file layout (``Storage.probe_file``): its sections,
                its reader, how ``verify --against`` compares it
    solve.py    a table solved and checked by the game's own method or its kind's retrograde
    shared_levels.py  key tables several builds share (UTTT's one store per scoring)
    build_cache.py  what a build holds between tables: dependencies, the writer beside a solve
"""
from __future__ import annotations

from tbdb.storage.base import RowMissing, Storage, StoredTable
from tbdb.storage.index import IndexStorage
from tbdb.storage.keys import KeyStorage
from tbdb.storage.runs import RunStorage
from tbdb.storage.probe_layouts import IndexFile, KeyFile, RunFile

INDEX = IndexStorage()
KEYS = KeyStorage()
RUNS = RunStorage()
# set here, not in the kinds' modules: the layouts' readers subclass the kinds' tables
INDEX.probe_file, KEYS.probe_file, RUNS.probe_file = IndexFile(), KeyFile(), RunFile()
KINDS: dict[str, Storage] = {s.name: s for s in (INDEX, KEYS, RUNS)}

__all__ = ["INDEX", "KEYS", "KINDS", "RUNS", "IndexStorage", "KeyStorage", "RowMissing",
           "RunStorage", "Storage", "StoredTable", "storage_of"]


def storage_of(what) -> Storage:
    """The storage kind of a game, a ``TableData``, a catalogue row (dict) or a kind's name."""
    name = what.get("storage") if isinstance(what, dict) else getattr(what, "storage", what)
    try:
        return KINDS[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown storage {name!r}; tbdb stores "
                         f"{', '.join(map(repr, KINDS))}") from None
