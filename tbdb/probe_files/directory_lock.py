"""One writer at a time in a directory of probe files.

A build into a directory (``tbdb build --probe-files``) and an export (``tbdb export --out``)
each read the manifest, write files and rewrite the manifest with what they hold.  Two of them
in one directory lost each other's updates (the last manifest written won: tables built by the
other went unlisted, to be built again), and two chess set builds of many GB each would have
met the OOM killer.  DuckDB refuses a second writer of a database; this refuses a second writer of
a directory, in the same words.

The lock is ``flock`` on the directory itself: no file is made, so a refused command leaves
the directory as it was, and the lock goes with the process however it ends (``kill -9``
included).  Where the system or the file system has no ``flock`` (Windows, some FUSE and
network mounts), there is no lock.
"""
from __future__ import annotations

import os

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX
    fcntl = None

from tbdb.probe_files.header import ProbeFileError


class DirectoryLock:
    """The exclusive lock on directory ``path`` (it must exist) for its writer; ``flag`` names
    the option that gave the directory (``--probe-files``, ``--out``) in the refusal."""

    def __init__(self, path: str, flag: str):
        self.fd = None
        if fcntl is None:
            return
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holders = _holders(os.fstat(fd))
            os.close(fd)
            by = f"process {holders[0]}" if len(holders) == 1 else "another process"
            raise ProbeFileError(
                f"{flag} {path!r} is held by {by} (a build or an export writing into it): one "
                f"process writes a directory of probe files at a time; wait for it to finish "
                f"or stop it, then try again") from None
        except OSError:  # a file system without locks (some FUSE and network mounts): as
            os.close(fd)  # where there is no flock, no lock, rather than no build
            return
        self.fd = fd

    def release(self) -> None:
        if self.fd is not None:
            os.close(self.fd)  # closing the only descriptor drops the lock
            self.fd = None


def _holders(st: os.stat_result) -> list[int]:
    """The pids holding a ``flock`` on the file of ``st``, from ``/proc/locks`` (Linux; empty
    elsewhere).  Its lines: ``1: FLOCK  ADVISORY  WRITE 3491 08:01:1234 0 EOF``."""
    try:
        with open("/proc/locks") as f:
            lines = f.read().splitlines()
    except OSError:
        return []
    pids = []
    for line in lines:
        fields = line.split()
        if len(fields) >= 6 and fields[1] == "FLOCK" and fields[-3].rsplit(":", 1)[-1] == \
                str(st.st_ino) and fields[-4].isdigit():
            pids.append(int(fields[-4]))
    return sorted(set(pids))
