"""Probe files: one compact, memory-mapped file per built table, for lookups without DuckDB.

The format is ``docs/probe-format.md`` (version 3: ``header.FORMAT_VERSION``).  The modules:

    header.py      the magic, format version, layout numbers, section tags, header/section/
                   stream layouts and ``ProbeFileError``
    coder.py       the stream coder: pair substitution, then a table-wide canonical Huffman
                   code, in blocks of ``BLOCK_SLOTS`` slots that decode alone (``Stream``)
    container.py   a file's header, JSON and section table around its sections, and
                   ``ProbeFile`` (one file opened read-only with ``numpy.memmap``: header and
                   section checks, its sections, ``verify``)
    format.py      ``write_table`` (a built table's arrays -> the file's bytes); the sections are
                   its storage kind's layout's (``tbdb.storage.probe_layouts``)
    tables.py      a file's table for each storage kind, answering ``probe`` and ``gather``
                   exactly as its DuckDB ``StoredTable`` does, so the prober works unchanged
    directory.py   ``ProbeDir`` (a directory and its ``manifest.json``, standing in for the DuckDB
                   store under the prober: ``tbdb.open(DIR)``), the manifest read and written
    export_dir.py  ``export`` (``tbdb export``)
    checks.py      ``verify_dir`` (``tbdb verify --db DIR``), ``compare_dir`` (``--against DB``)
    build_dir.py   ``ProbeBuild``: a directory as a build's store (``tbdb build --probe-files``),
                   each table coded as it is solved
    streamed.py, streamed_runs.py, direct.py   files written a range at a time, direct cells
    native.py, guard.py   libtbprobe's lookups, and the extension's guard of the mappings
"""
from tbdb.probe_files.header import (BLOCK_SLOTS, FORMAT_VERSION, MAGIC, MANIFEST, SUFFIX,
                                     VERSION, ProbeFileError)

# Every other name is imported on first use: the coder and the readers import NumPy, which a
# lookup answered in C never needs (``text_lookups``), and the modules above the storage kinds
# (which read files through ``container`` and write their sections with ``coder``) must not be
# imported halfway through ``tbdb.storage``'s own import.
_LAZY = {"Stream": "coder", "encode_stream": "coder", "pack_values": "coder",
         "unpack_values": "coder", "ProbeFile": "container", "write_table": "format",
         "ProbeDir": "directory", "read_manifest": "directory", "ExportSummary": "export_dir",
         "export": "export_dir", "compare_dir": "checks", "verify_dir": "checks"}


def __getattr__(name: str):
    if name in _LAZY:
        from importlib import import_module
        value = getattr(import_module(f"{__name__}.{_LAZY[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["BLOCK_SLOTS", "FORMAT_VERSION", "MAGIC", "MANIFEST", "SUFFIX", "VERSION",
           "ExportSummary", "ProbeDir", "ProbeFile", "ProbeFileError", "Stream", "compare_dir",
           "encode_stream", "export", "read_manifest", "pack_values", "unpack_values",
           "verify_dir", "write_table"]
