"""The probe file of a score-run table (Oware's books), written a range of positions at a
time: ``docs/probe-format.md``'s layout 2 unchanged, byte for byte the file ``write_table``
makes of the whole table.

The whole export held the book's runs (4 bytes a run, 8 a position: ``load_runs``), hashed
them and wrote them: Oware's 19- and 20-seed books (1.2 and 1.9 billion runs) were killed for
the memory.  Yet every section of the layout is an array over positions (``ROFF``) or over runs
(``RSTA``, ``RSCO``, ``RMOV``) in position order, and its length follows from two counts
(positions, runs) known before anything is read.  So the file's place is laid out first
(header, then the four sections at their final offsets) and each range of positions read
from the database (``RunRanges``, about ``chunk_runs()`` runs) is written straight into the
four sections at its place, each section's sha256 fed in order; the header goes in last, the
whole file is read back once for the manifest's sha256, and the temporary file is renamed into
place.  Memory is a range's, whatever the book; the file does not depend on the range size.
"""
from __future__ import annotations

import hashlib
import os

import numpy as np

from tbdb.probe_files.header import (LAYOUT_RUNS, SECTION_RUN_MOVES, SECTION_RUN_OFFSETS,
                                     SECTION_RUN_SCORES, SECTION_RUN_STARTS, pad8)

# a score-run table's sections in order, and their element types (``RunFile`` writes them whole)
TAGS = (SECTION_RUN_OFFSETS, SECTION_RUN_STARTS, SECTION_RUN_SCORES, SECTION_RUN_MOVES)
DTYPES = ("<i8", "<i2", "i1", "i1")


def section_lengths(positions: int, runs: int) -> list[int]:
    """The byte lengths of ``TAGS``' sections for a table of ``positions`` and ``runs``."""
    return [8 * (positions + 1), 2 * runs, runs, runs]


def write_runs_file(store, game: str, row: dict, path: str, note=None,
                    chunk: int | None = None) -> tuple[int, str, int]:
    """Write score-run table ``row``'s probe file to ``path`` (by a temporary file renamed
    into place), reading about ``chunk`` runs at a time; (its size, its sha256, its runs).
    ``note(text)`` hears how far it got."""
    from tbdb.probe_files.streamed import bounded_reads, chunk_runs
    from tbdb.storage.runs import RunRanges
    chunk = chunk_runs() if chunk is None else int(chunk)
    if chunk < 1:
        raise ValueError(f"chunk of {chunk} runs: need at least 1")
    note = note or (lambda text: None)
    with bounded_reads(store.con):
        reader = RunRanges(store, row["table_id"], int(row["slots"]),
                           int(row["params"].get("horizon", 0)), chunk)
        return write_streamed(reader, game, row, path, note)


def write_streamed(reader, game: str, row: dict, path: str, note) -> tuple[int, str, int]:
    from tbdb.probe_files.container import file_head
    from tbdb.safe_files import check_target, publish, remove_quietly, temporary_beside
    label = f"{game} {row['table_name']}"
    n, runs = reader.positions, reader.total
    lengths = section_lengths(n, runs)
    # the header's size does not depend on the digests: lay it out with blank ones
    head_bytes = sum(len(b) for b in file_head(game, row, True, n, runs,
                                               [(t, k, bytes(32)) for t, k in
                                                zip(TAGS, lengths)], LAYOUT_RUNS))
    places, end = [], head_bytes
    for k in lengths:
        places.append(end)
        end += k + pad8(k)
    check_target(path, "probe file")
    fd, tmp = temporary_beside(path)
    try:
        os.ftruncate(fd, end)  # zeros everywhere not written below: the padding
        digests = [hashlib.sha256() for _ in TAGS]
        written = 0
        for lo, at, counts, cols in reader:
            if not len(counts):  # a table of no positions: ROFF is its closing entry alone
                continue
            offsets = np.empty(len(counts), np.int64)  # ROFF[lo .. lo + len(counts) - 1]
            offsets[0] = at
            np.cumsum(counts[:-1], out=offsets[1:])
            offsets[1:] += at
            parts = (offsets, cols["turns_left_from"], cols["score"], cols["best_move"])
            del cols
            for i, (part, dtype) in enumerate(zip(parts, DTYPES)):
                data = np.ascontiguousarray(part).astype(dtype, copy=False)
                size = data.dtype.itemsize
                _pwrite(fd, data, places[i] + size * (lo if i == 0 else at))
                digests[i].update(data)
            written = at + len(parts[1])
            del parts, data
            note(f"{label}: {100 * (lo + len(counts)) // max(n, 1)}%")
        # the iteration checked that every run lay in the table and was counted: written ==
        # runs; ROFF's last entry closes the last position
        last = np.array([written], "<i8")
        _pwrite(fd, last, places[0] + 8 * n)
        digests[0].update(last)
        head = file_head(game, row, True, n, runs,
                         [(t, k, d.digest()) for t, k, d in zip(TAGS, lengths, digests)],
                         LAYOUT_RUNS)
        _pwrite(fd, b"".join(head), 0)
        whole = hashlib.sha256()
        for piece in _pieces(fd):
            whole.update(piece)
        os.close(fd)
        fd = -1
        publish(tmp, path)
    except BaseException:
        if fd >= 0:
            os.close(fd)
        remove_quietly(tmp)
        raise
    return end, whole.hexdigest(), runs


def _pwrite(fd: int, data, offset: int) -> None:
    """All of ``data`` (bytes or a contiguous array) at ``offset`` of ``fd``."""
    view = memoryview(data).cast("B")
    while len(view):
        done = os.pwrite(fd, view, offset)
        view, offset = view[done:], offset + done


def _pieces(fd: int, size: int = 1 << 22):
    """The contents of file ``fd`` from its start, ``size`` bytes at a time."""
    at = 0
    while True:
        piece = os.pread(fd, size, at)
        if not piece:
            return
        at += len(piece)
        yield piece
