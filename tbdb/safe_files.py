"""Writing a file by a temporary one renamed into place, without ever writing through a link.

A temporary name derived from the target (``OUT.tbdb-partial``) can be planted in advance: a
symbolic link there made the write land in whatever it pointed to (a database, once).  So the
temporary file is made here with a fresh name, created exclusively (``O_EXCL`` never follows a
link), in the target's directory (the rename must stay on one file system); and the target
itself must be a regular file or a new path, since a rename replaces whatever node is there
(as root, ``/dev/full`` became a Parquet file).
"""
from __future__ import annotations

import os
import stat
import tempfile


def check_target(path: str, what: str) -> None:
    """``ValueError`` unless ``path`` is a new name or a regular file (not a link, a directory,
    a device, a FIFO or a socket): what ``publish`` may replace.  ``os.lstat``: a link is
    refused, not followed."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        parent = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(parent):
            raise FileNotFoundError(f"{what} {path!r}: directory {parent!r} does not exist") \
                from None
        return
    if not stat.S_ISREG(mode):
        raise ValueError(f"{what} {path!r} is {kind(mode)}, not a regular file; name a new "
                         f"file (or a regular one to replace)")


def kind(mode: int) -> str:
    """What a file of this ``st_mode`` is, for error messages."""
    for test, name in ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISDIR, "a directory"),
                       (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device")):
        if test(mode):
            return name
    return "not a regular file"


def temporary_beside(path: str, tag: str = "tbdb-partial") -> tuple[int, str]:
    """(an open descriptor, the name) of a new empty file in ``path``'s directory, created
    exclusively under a fresh name (``.<name>.<tag>-<pid>-<random>``)."""
    head, name = os.path.split(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.{tag}-{os.getpid()}-", dir=head)
    os.fchmod(fd, plain_mode())  # mkstemp's is 0600
    return fd, tmp


def plain_mode() -> int:
    """The mode a plain ``open(path, "w")`` gives a new file (0666 less the umask)."""
    umask = os.umask(0o022)
    os.umask(umask)
    return 0o666 & ~umask


def publish(tmp: str, final: str) -> None:
    """Make a completely written temporary file ``final`` (flushed to disk first, so a crash
    leaves the old file or the whole new one)."""
    with open(tmp, "rb") as f:
        os.fsync(f.fileno())
    os.replace(tmp, final)


def remove_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def remove_stale_temporaries(directory: str, tags=("tbdb-partial", "tbdb-bits")) -> list[str]:
    """Remove the temporary files (``temporary_beside``) in ``directory`` that a process no
    longer running left there (a kill -9, or a signal's immediate exit, runs no clean-up: an
    export of Oware's 20-seed book killed midway left gigabytes under a hidden name); the names
    removed.  A file of a live process (its pid in the name) is kept; a regular file only."""
    removed = []
    try:
        names = os.listdir(directory)
    except FileNotFoundError:
        return removed
    for name in names:
        pid = _writer_pid(name, tags)
        if pid is None or pid == os.getpid() or _alive(pid):
            continue
        path = os.path.join(directory, name)
        try:
            if stat.S_ISREG(os.lstat(path).st_mode):
                os.unlink(path)
                removed.append(name)
        except FileNotFoundError:
            pass
    return removed


def _writer_pid(name: str, tags) -> int | None:
    """The pid in a ``temporary_beside`` name (``.<name>.<tag>-<pid>-<random>``), or None."""
    if not name.startswith("."):
        return None
    for tag in tags:
        at = name.rfind(f".{tag}-")
        if at > 0:
            pid, _, rest = name[at + len(tag) + 2:].partition("-")
            if pid.isdigit() and rest:
                return int(pid)
    return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True
