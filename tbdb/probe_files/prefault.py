"""Mapping a probe file's pages into the process before probes touch them.

A probe that touches a page of a mapped file for the first time takes a page fault even when
the page is in the page cache.  On this project's machines (virtual machines) a fault costs
more than the probe's own decoding: on Chinese Checkers 7x7-3 one or two faults made a probe
in a fresh block twice as slow or more.  Linux maps every page of a range in one call with
``madvise(MADV_POPULATE_READ)`` (5.14 and later; a file's faults one at a time took many times
as long).  A background thread does it a
chunk at a time, so opening still costs milliseconds whatever the size and a lookup never
waits for it.  The pages are the page cache's, shared with every other process: nothing is
copied, and the kernel may drop them under memory pressure as it would any cached file page.

Files up to ``SMALL_BYTES`` are left alone: the reader checks their checksums when it opens
them (``CHECK_ON_OPEN``), and reading them whole maps their pages as well, up to 16 a fault,
for less than the call would cost on the 40 pages of a typical CDC table.  Elsewhere (another
system, an older kernel, a mapping the kernel refuses) this does nothing: probes then fault
pages in as they touch them.  ``TBDB_PREFAULT=0`` turns it off.
"""
from __future__ import annotations

import ctypes
import os
import sys
import threading

from tbdb.probe_files.header import CHECK_ON_OPEN

MADV_POPULATE_READ = 22  # <linux/mman.h>
PAGE = 4096
SMALL_BYTES = CHECK_ON_OPEN  # files up to this size are read whole when opened
CHUNK = 16 << 20  # the background thread's step: a closing file waits for one chunk at most
BUDGET_FRACTION = 4  # map ahead at most 1/4 of the machine's RAM per process

_madvise = None
_lock = threading.Lock()
_budget = [None]  # bytes this process may still map ahead (None: not yet known)


def _libc_madvise():
    global _madvise
    if _madvise is None:
        _madvise = False
        if sys.platform.startswith("linux") and os.environ.get("TBDB_PREFAULT", "1") != "0":
            try:
                f = ctypes.CDLL(None, use_errno=True).madvise
                f.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
                f.restype = ctypes.c_int
                _madvise = f
            except (OSError, AttributeError):
                pass
    return _madvise


def _take(nbytes: int) -> bool:
    """Whether ``nbytes`` more may be mapped ahead (and count them): tables together larger
    than a quarter of RAM are left to fault in as probes touch them."""
    with _lock:
        if _budget[0] is None:
            try:
                _budget[0] = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") \
                    // BUDGET_FRACTION
            except (ValueError, OSError):
                _budget[0] = 0
        if nbytes > _budget[0]:
            return False
        _budget[0] -= nbytes
        return True


def _populate(address: int, length: int) -> bool:
    """Map ``length`` bytes from page-aligned ``address``; False if the kernel cannot."""
    f = _libc_madvise()
    return bool(f) and f(address, length, MADV_POPULATE_READ) == 0


class Prefault:
    """The pages of one mapping (``buf``, a NumPy view of a whole mapped file of more than
    ``SMALL_BYTES``), mapped ahead in the background; ``stop`` before the mapping is closed."""

    def __init__(self, buf=None):
        self.stopped = threading.Event()
        self.thread = None
        self.taken = 0
        if buf is not None:
            self._start(buf.ctypes.data, int(buf.nbytes))

    @classmethod
    def of_range(cls, address: int, nbytes: int) -> "Prefault":
        """The pages of a mapping made elsewhere (libtbprobe's own), from its address."""
        p = cls()
        p._start(address, nbytes)
        return p

    def _start(self, address: int, n: int) -> None:
        if n <= SMALL_BYTES or not _libc_madvise() or not _take(n):
            return
        self.taken = n
        self.address = address
        if self.address % PAGE:
            return
        self.length = (n + PAGE - 1) & ~(PAGE - 1)
        self.thread = threading.Thread(target=self._run, name="tbdb-prefault", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        at = 0
        while at < self.length and not self.stopped.is_set():
            step = min(CHUNK, self.length - at)
            if not _populate(self.address + at, step):
                return
            at += step

    def stop(self) -> None:
        """Wait for the background thread to leave the mapping (one chunk at most)."""
        self.stopped.set()
        if self.thread is not None:
            self.thread.join()
            self.thread = None
        if self.taken:
            with _lock:
                _budget[0] += self.taken
            self.taken = 0


class _Nothing:
    def stop(self) -> None:
        pass


NO_PREFAULT = _Nothing()  # a file that failed its checks (or is being written) maps nothing ahead
