"""Probe files mapped ahead of their probes (``tbdb.probe_files.prefault``): a large file's
pages are put in the process's page tables by a background thread once it is opened (closing
the file stops it), so the first probe of a block takes no page fault; files small enough to
have their checksums read when opened are left alone."""
from __future__ import annotations

import os
import resource

import numpy as np
import pytest

from tbdb.probe_files import prefault
from tbdb.probe_files.prefault import Prefault

PAGES = 2048  # an 8 MiB file


def _written_page_by_page(tmp_path) -> str:
    """A file written 4 KiB at a time, so that its page-cache folios are single pages (a file
    written in one call may sit in large folios, which one fault maps whole)."""
    path = str(tmp_path / "pages.bin")
    with open(path, "wb", buffering=0) as f:
        for _ in range(PAGES):
            f.write(os.urandom(4096))
    return path


def _faults_reading_every_page(buf: np.ndarray) -> int:
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    int(buf[::4096].sum())
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before


@pytest.fixture
def kernel_populates(tmp_path):
    path = _written_page_by_page(tmp_path)
    probe = np.memmap(path, dtype=np.uint8, mode="r")
    if not prefault._populate(probe.ctypes.data, 4096):
        pytest.skip("this system has no madvise(MADV_POPULATE_READ) (Linux 5.14 and later)")
    del probe
    return path


def test_an_opened_file_is_read_without_page_faults(kernel_populates, monkeypatch):
    path = kernel_populates
    monkeypatch.setattr(prefault, "SMALL_BYTES", 1 << 20)
    ahead = np.memmap(path, dtype=np.uint8, mode="r")
    p = Prefault(ahead)
    p.thread.join()
    assert _faults_reading_every_page(ahead) < 8
    p.stop()
    # the control: the same reads through a mapping nobody populated fault page by page (the
    # kernel maps up to 16 pages around each fault), so the count above says something
    monkeypatch.setattr(prefault, "_madvise", False)
    plain = np.memmap(path, dtype=np.uint8, mode="r")
    q = Prefault(plain)
    assert q.taken == 0
    assert _faults_reading_every_page(plain) >= PAGES // 32


def test_a_large_file_is_mapped_in_the_background_and_closing_stops_it(kernel_populates,
                                                                       monkeypatch):
    monkeypatch.setattr(prefault, "SMALL_BYTES", 1 << 20)
    monkeypatch.setattr(prefault, "CHUNK", 1 << 20)
    budget = prefault._budget[0]
    buf = np.memmap(kernel_populates, dtype=np.uint8, mode="r")
    p = Prefault(buf)
    assert p.thread is not None and p.thread.name == "tbdb-prefault"
    p.thread.join()
    assert _faults_reading_every_page(buf) < 8
    p.stop()
    assert p.thread is None
    assert prefault._budget[0] == budget  # what it took is given back


def test_small_files_and_files_beyond_the_budget_are_left_to_fault_in(kernel_populates,
                                                                      monkeypatch):
    small = Prefault(np.memmap(kernel_populates, dtype=np.uint8, mode="r"))  # 8 MiB: read whole
    assert small.taken == 0 and small.thread is None                         # when opened
    monkeypatch.setattr(prefault, "SMALL_BYTES", 1 << 20)
    monkeypatch.setattr(prefault, "_budget", [PAGES * 4096 - 1])
    buf = np.memmap(kernel_populates, dtype=np.uint8, mode="r")
    p = Prefault(buf)
    assert p.taken == 0 and p.thread is None
    assert _faults_reading_every_page(buf) >= PAGES // 32


def test_closing_a_probe_file_stops_its_background_mapping(tmp_path, monkeypatch):
    """Through the reader: a probe file bigger than SMALL_BYTES starts the thread when opened
    and ``close`` waits for it, so the mapping is never unmapped under it."""
    import tbdb
    from tbdb.cli.run import main
    from tbdb.probe_files.format import ProbeFile
    db, out = str(tmp_path / "t.duckdb"), str(tmp_path / "probe")
    assert main(["build", "tictactoe", "--db", db]) == 0
    assert main(["export", "--db", db, "--out", out]) == 0
    monkeypatch.setattr(prefault, "SMALL_BYTES", 0)
    monkeypatch.setattr(prefault, "CHUNK", 4096)
    path = os.path.join(out, "tictactoe", os.listdir(os.path.join(out, "tictactoe"))[0])
    f = ProbeFile(path)
    if f.prefault.taken:  # the kernel can populate: a thread is running or has run
        assert f.prefault.thread is not None
    f.close()
    assert getattr(f.prefault, "thread", None) is None
    with tbdb.open(out) as tb:  # and the files still answer through a fresh open
        assert tb.lookup("x........", game="tictactoe").outcome == "draw"
