"""Where a cluster build's files live: a local (or shared) directory, or any fsspec URL
(``s3://bucket/tb``, ``memory://tb``, ``file:///shared/tb``) where the user has the filesystem
package.

Local directories are written with ``os`` calls (fsync, then an atomic rename); URLs through
fsspec (``fs.mv``: an object store renames by copy and delete, which is why a table is complete
only once its manifest, written last in one piece, names files whose checksums match).
"""
from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from functools import lru_cache

from tbdb.errors import InvalidOptionError
from tbdb.safe_files import kind, publish


class OutUnavailableError(InvalidOptionError):
    """An ``--out`` URL whose filesystem package is not installed, or that fsspec does not
    know."""


@dataclass(frozen=True)
class OutDir:
    """The directory or URL ``url`` a cluster build writes its files under."""
    url: str
    root: str  # a local absolute path, or the path within the fsspec filesystem
    fs: object | None  # None: the local file system through os

    @staticmethod
    def of(out: str | os.PathLike) -> OutDir:
        return _out_dir(str(out))

    @property
    def local(self) -> bool:
        return self.fs is None

    def join(self, *parts: str) -> str:
        return "/".join([self.root.rstrip("/"), *parts]) if self.fs is not None else \
            os.path.join(self.root, *parts)

    def display(self, path: str) -> str:
        """A path as the user can name it (the URL form for fsspec paths)."""
        if self.fs is None:
            return path
        return self.fs.unstrip_protocol(path)

    def makedirs(self, path: str) -> None:
        if self.fs is None:
            os.makedirs(path, exist_ok=True)
        else:
            self.fs.makedirs(path, exist_ok=True)

    def open(self, path: str, mode: str):
        """``mode`` 'wb' makes a new file: locally it is created exclusively, so a link planted
        at the (fresh, temporary) name is refused rather than written through."""
        if self.fs is None:
            if mode == "rb":  # only a regular file: opening a FIFO would wait for a writer
                return _open_regular(path)
            return open(path, "xb" if mode == "wb" else mode)
        return self.fs.open(path, mode)

    def publish(self, tmp: str, final: str) -> None:
        """Make a completely written temporary file the final one."""
        if self.fs is None:
            publish(tmp, final)
        else:
            self.fs.mv(tmp, final)

    def size(self, path: str) -> int | None:
        """The file's size in bytes, None when it does not exist."""
        try:
            return os.path.getsize(path) if self.fs is None else int(self.fs.size(path))
        except (FileNotFoundError, NotADirectoryError):
            return None

    def remove(self, path: str) -> None:
        try:
            os.unlink(path) if self.fs is None else self.fs.rm(path)
        except FileNotFoundError:
            pass

    def glob(self, pattern: str) -> list[str]:
        if self.fs is None:
            import glob
            return glob.glob(pattern)
        return list(self.fs.glob(pattern))

    def listdir(self, path: str) -> list[str]:
        """Names in a directory ([] when it does not exist)."""
        try:
            if self.fs is None:
                return sorted(os.listdir(path))
            return sorted(p.rstrip("/").rsplit("/", 1)[-1] for p in self.fs.ls(path, detail=False))
        except (FileNotFoundError, NotADirectoryError):
            return []


def _open_regular(path: str):
    """``path`` opened to read, else ``ValueError`` if it is no regular file (a FIFO planted as
    a manifest hung an import); opened without blocking, then checked, so nothing waits."""
    def opener(name, flags):
        fd = os.open(name, flags | os.O_NONBLOCK)
        try:
            mode = os.fstat(fd).st_mode
            if not stat.S_ISREG(mode):
                raise ValueError(f"{path!r} is {kind(mode)}, not a regular file")
            os.set_blocking(fd, True)
        except BaseException:
            os.close(fd)
            raise
        return fd
    return open(path, "rb", opener=opener)


@lru_cache(maxsize=16)
def _out_dir(out: str) -> OutDir:
    if "://" not in out:
        return OutDir(out, os.path.abspath(out), None)
    scheme = out.split("://", 1)[0]
    if scheme == "file":  # a local path after all: os calls, atomic renames, viewable
        return OutDir(out, os.path.abspath(out[len("file://"):]), None)
    try:
        import fsspec
    except ImportError:
        raise OutUnavailableError(f"--out {out!r}: URLs need fsspec and the package for "
                                  f"{scheme!r}: pip install fsspec") from None
    try:
        fs, root = fsspec.core.url_to_fs(out)
    except ImportError as exc:  # fsspec knows the scheme; its package is not installed
        raise OutUnavailableError(f"--out {out!r}: the filesystem package for {scheme!r} is "
                                  f"not installed ({exc})") from None
    except ValueError as exc:
        raise OutUnavailableError(f"--out {out!r}: fsspec cannot open it ({exc})") from None
    return OutDir(out, root, fs)
