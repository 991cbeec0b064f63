"""How the process asks the C allocator for memory during builds, and how much it holds.

A build allocates and frees the same large batch arrays (children, parents, edge lists, Arrow
columns) thousands of times.  glibc serves blocks above its mmap threshold (at most 32 MB by
default) with fresh ``mmap`` calls and hands them back on ``free``, so every batch page-faults
its memory in again: on the 4-piece CDC build that system time was a large share of the
whole.  Raising the threshold keeps those blocks in the heap, where freed memory is reused; the
trim threshold bounds how much freed memory the heap keeps.  Elsewhere (not glibc) this does
nothing.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import os

M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 256 << 20  # blocks below this come from the heap (a 10^9-slot array does not)
TRIM_THRESHOLD = 512 << 20  # freed heap memory kept for the next batch

_done = False


def reuse_freed_memory() -> bool:
    """Make glibc keep and reuse freed batch-sized blocks (once per process); True if it could."""
    global _done
    if _done:
        return True
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    _done = bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and \
        bool(mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD))
    return _done


_trim = None


def release_freed_memory() -> bool:
    """Hand the C heap's free pages back to the system (glibc ``malloc_trim``); True if it could.

    Blocks below the mmap threshold (``reuse_freed_memory``) stay in the heap when freed, and
    a heap only shrinks from its top: a solver that frees many such blocks out of order (Oware's
    event groups, each grown by half again and again, then freed one by one while its runs are
    written) keeps their pages resident until they are reused.  ``malloc_trim`` gives back every
    whole free page, wherever it is.  It walks the free lists: call it after a batch of frees,
    not after each."""
    global _trim
    if _trim is None:
        try:
            libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
            _trim = libc.malloc_trim
            _trim.argtypes = (ctypes.c_size_t,)
            _trim.restype = ctypes.c_int
        except (OSError, AttributeError):
            _trim = False
    if _trim is False:
        return False
    _trim(0)
    return True


def rss() -> int:
    """The process's resident memory now, in bytes."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        import resource
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
