"""Probe files: one compact, memory-mapped file per built table, for lookups without DuckDB.

The format is ``docs/probe-format.md`` (version 2).  The modules:

    header.py      the magic, version, header/section/stream layouts and ``ProbeFileError``
    coder.py       the stream coder: pair substitution, then a table-wide canonical Huffman
                   code, in blocks of ``BLOCK_SLOTS`` slots that decode alone (``Stream``)
    format.py      ``write_table`` (a built table's arrays -> the file's bytes) and ``ProbeFile``
                   (one file opened read-only with ``numpy.memmap``: header and section checks,
                   its sections, ``verify``)
    tables.py      a file's table for each storage kind, answering ``probe`` and ``gather``
                   exactly as its DuckDB ``StoredTable`` does, so the prober works unchanged
    directory.py   ``ProbeDir`` (a directory and its ``manifest.json``, standing in for the DuckDB
                   store under the prober: ``tbdb.open(DIR)``), ``export`` (``tbdb export``) and
                   ``verify_dir`` (``tbdb verify --db DIR``), ``compare_dir`` (``--against DB``)
    build_dir.py   ``ProbeBuild``: a directory as a build's store (``tbdb build --probe-files``),
                   each table coded as it is solved
"""
from tbdb.probe_files.header import (BLOCK_SLOTS, MAGIC, MANIFEST, SUFFIX, VERSION,
                                     ProbeFileError)
from tbdb.probe_files.coder import Stream, encode_stream, pack_values, unpack_values
from tbdb.probe_files.format import ProbeFile, write_table
from tbdb.probe_files.directory import (ExportSummary, ProbeDir, compare_dir, export,
                                        read_manifest, verify_dir)

__all__ = ["BLOCK_SLOTS", "MAGIC", "MANIFEST", "SUFFIX", "VERSION", "ExportSummary", "ProbeDir",
           "ProbeFile", "ProbeFileError", "Stream", "compare_dir", "encode_stream", "export", "read_manifest",
           "pack_values", "unpack_values", "verify_dir", "write_table"]
