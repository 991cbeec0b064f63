"""The probe-file container (``docs/probe-format.md``): a file's header, JSON and section table
written around its sections (``file_parts``), and one file opened read-only (``ProbeFile``:
header and section checks, its sections, ``verify``, and the checks that a file changed under
its mapping is refused).  What the sections hold is each storage kind's
(``tbdb.storage.probe_layouts``)."""
from __future__ import annotations

import hashlib
import json
import os
import stat
import weakref

import numpy as np

from tbdb import safe_json
from tbdb.errors import ClosedError
from tbdb.safe_files import kind as file_kind
from tbdb.probe_files.manifest import check_inside  # noqa: F401  (this module's name for it too)
from tbdb.probe_files.prefault import NO_PREFAULT, Prefault
from tbdb.probe_files.header import (FLAG_MOVES, HEADER, LAYOUT_DIRECT, MAGIC, SECTION,
                                     STORAGE_OF_LAYOUT, VERSION, ProbeFileError, pad8)


# --------------------------------------------------------------------------- writing

def meta_of(game: str, row: dict) -> dict:
    """The header's JSON: what a prober needs of the catalogue row (no table id, no time)."""
    return {"game": game, "table": row["table_name"], "storage": row["storage"],
            "params": row["params"], "layout": row.get("layout"), "slots": int(row["slots"]),
            "positions": int(row["positions"])}


def bytes_of(a: np.ndarray, dtype: str) -> np.ndarray:
    """``a`` in the file's little-endian ``dtype``, as a byte view (no copy if it has it)."""
    return np.ascontiguousarray(a, dtype=dtype).reshape(-1).view(np.uint8)


def file_parts(game: str, row: dict, moves: bool, slots: int, rows: int, sections,
               layout: int) -> list:
    """A probe file as its buffers in order: header, JSON, section table, then ``sections``
    (tag, bytes or a byte view); ``layout`` the header's layout number."""
    body = []
    for _, data in sections:
        body += [data, b"\0" * pad8(len(data))]
    return file_head(game, row, moves, slots, rows,
                     [(tag, len(data), hashlib.sha256(data).digest())
                      for tag, data in sections], layout) + body


def file_head(game: str, row: dict, moves: bool, slots: int, rows: int, sections,
              layout: int) -> list:
    """A probe file's buffers before its first section: header, JSON, section table;
    ``sections`` (tag, length, sha256 digest) in order (``streamed`` writes a file whose
    sections it has not held whole); ``layout`` the header's layout number."""
    meta = json.dumps(meta_of(game, row), sort_keys=True, separators=(",", ":")).encode()
    head_bytes = HEADER.size + len(meta) + pad8(len(meta)) + SECTION.size * len(sections)
    table, at = [], head_bytes
    for tag, length, digest in sections:
        table.append(SECTION.pack(tag, 0, at, length, digest))
        at += length + pad8(length)
    head = HEADER.pack(MAGIC, VERSION, head_bytes, layout, FLAG_MOVES if moves else 0, slots,
                       rows, len(sections), len(meta))
    return [head, meta, b"\0" * pad8(len(meta)), *table]


# --------------------------------------------------------------------------- reading

class ProbeFile:
    """One probe file, mapped read-only; the header and the section table are checked here
    (magic, version, sizes); the sections' checksums by ``verify``.

    A file changed in place under its mapping (truncated: a read past its new end is SIGBUS;
    rewritten: the mapping shows the new bytes, which the checks at open never saw) must not
    crash the reader or answer from the new bytes (issue 61).  So the file keeps its
    descriptor and its identity from the open (device, inode, size, modification and change
    times), and every read path calls ``enter`` before it decodes and ``leave`` after: a
    moved identity refuses the read, and the file for good, with one ``ProbeFileError`` naming
    it.  The descriptor is the mapped inode's: a file replaced by rename (a new inode at the
    path) leaves the mapped one as it was, and its lookups go on.  A truncation during a
    decode faults in the kernel, where Python cannot catch it: the mapping is registered with
    ``tbdb._tbprobe.guard_mapping`` (the extension's SIGBUS handler maps zeros over the page), and a
    fault counted during a decode refuses that read too."""

    changed: str | None = None  # the error once the file was found changed (then for good)

    def __init__(self, path: str):
        self.path = path
        self.buf = None
        self.prefault = NO_PREFAULT
        self._guarded = 0  # the mapping's address while registered with the SIGBUS guard
        # O_NONBLOCK: a FIFO put at the path after ``check_inside`` looked does not hang here
        fd = _descriptors(path, lambda: os.open(
            path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)))
        self._file = os.fdopen(fd, "rb", buffering=0)
        self._fd = fd
        try:
            self._open()
        except BaseException:
            self.close()
            raise

    def _open(self) -> None:
        path, fd = self.path, self._fd
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ProbeFileError(f"probe file {path!r} is {file_kind(st.st_mode)}, not a "
                                 f"regular file")
        size = st.st_size
        self._ident = _ident(st)
        self._ctime = st.st_ctime_ns
        guard = guard_extension()
        self._faults = guard.faults if guard is not None else None
        if size < HEADER.size:
            raise ProbeFileError(f"probe file {path!r} is truncated ({size} bytes, shorter than "
                                 f"its header)")
        try:
            self.buf = _descriptors(path, lambda: np.memmap(self._file, dtype=np.uint8, mode="r",
                                                            shape=(size,)))
        except ProbeFileError:
            raise
        except (ValueError, OSError):  # shorter than fstat said a moment ago
            raise ProbeFileError(f"probe file {path!r} changed while it was opened; open the "
                                 f"directory again") from None
        if _guard_mapping(self.buf.ctypes.data, size):
            self._guarded = self.buf.ctypes.data
        (magic, version, head_bytes, layout, flags, self.slots, self.rows, n_sections,
         meta_bytes) = HEADER.unpack(bytes(self.buf[:HEADER.size]))
        if magic != MAGIC:
            raise ProbeFileError(f"{path!r} is not a tbdb probe file (magic {magic!r})")
        if version != VERSION:
            raise ProbeFileError(f"probe file {path!r} has format version {version}; this tbdb "
                                 f"reads version {VERSION}: export it again with this tbdb")
        expect = HEADER.size + meta_bytes + pad8(meta_bytes) + SECTION.size * n_sections
        if head_bytes != expect or head_bytes > size:
            raise ProbeFileError(f"probe file {path!r} is truncated or damaged (header of "
                                 f"{head_bytes} bytes in a file of {size})")
        try:
            self.meta = safe_json.loads_object(bytes(self.buf[HEADER.size:][:meta_bytes]))
        except ValueError:
            raise ProbeFileError(f"probe file {path!r} is damaged (its header's JSON does not "
                                 f"parse)") from None
        if STORAGE_OF_LAYOUT.get(layout) != self.meta.get("storage"):
            raise ProbeFileError(f"probe file {path!r} is damaged (layout {layout})")
        self.storage = STORAGE_OF_LAYOUT[layout]
        self.direct = layout == LAYOUT_DIRECT  # an index table in direct cells
        self.moves = bool(flags & FLAG_MOVES)
        self.sections: dict[str, tuple[int, int, bytes]] = {}
        at = head_bytes - SECTION.size * n_sections
        end = head_bytes
        for i in range(n_sections):
            tag, _, off, length, digest = SECTION.unpack(
                bytes(self.buf[at + i * SECTION.size:at + (i + 1) * SECTION.size]))
            if off != end or off % 8:
                raise ProbeFileError(f"probe file {path!r} is damaged (section {tag!r} at "
                                     f"{off}, expected {end})")
            end = off + length + pad8(length)
            self.sections[tag.decode("ascii", "replace")] = (off, length, digest)
        if end != size:
            state = "truncated" if end > size else "longer than its sections"
            raise ProbeFileError(f"probe file {path!r} is {state} ({size} bytes, its sections "
                                 f"end at {end})")
        self.prefault = Prefault(self.buf)  # its pages mapped ahead of the probes

    def section(self, tag: bytes | str, dtype: str = "u1") -> np.ndarray:
        """Section ``tag`` (``header.SECTION_*``) as an array of ``dtype``."""
        if isinstance(tag, bytes):
            tag = tag.decode("ascii")
        if tag not in self.sections:
            raise ProbeFileError(f"probe file {self.path!r} has no section {tag!r} (damaged)")
        off, length, _ = self.sections[tag]
        a = self.buf[off:off + length]
        size = np.dtype(dtype).itemsize
        if length % size:
            raise ProbeFileError(f"probe file {self.path!r}: section {tag!r} of {length} bytes "
                                 f"is no whole number of {dtype} (damaged)")
        return np.asarray(a).view(dtype)

    def verify(self) -> list[str]:
        """What is wrong with the sections' contents (their sha256), empty if nothing."""
        bad = []
        for tag, (off, length, digest) in self.sections.items():
            if hashlib.sha256(self.buf[off:off + length]).digest() != digest:
                bad.append(f"section {tag} does not match its sha256 (damaged)")
        return bad

    def check(self) -> None:
        """``ProbeFileError`` if the file changed since it was opened (or was found so once):
        one ``os.fstat``.  Its change time alone is compared first: the kernel sets it on every
        write, truncation, chmod or link change, and nothing can set it back."""
        if self.changed is not None:
            raise ProbeFileError(self.changed)
        if self.buf is None:
            raise ClosedError(f"probe file {self.path!r} is closed")
        st = os.fstat(self._fd)
        if st.st_ctime_ns != self._ctime:
            self._moved(st)

    def _moved(self, st: os.stat_result) -> None:
        """The file's change time moved (``check``): refused for good, unless it was only
        unlinked with its size and modification time (replaced by rename, or removed: its
        change time moved with its link count alone; no name is left to write it by)."""
        ctime, mtime, size = self._ident[:3]
        if st.st_nlink == 0 and (st.st_mtime_ns, st.st_size) == (mtime, size):
            self._ctime = st.st_ctime_ns  # (the next checks compare one field again)
            return
        what = "truncated" if st.st_size < size else \
            "rewritten" if (st.st_mtime_ns, st.st_size) != (mtime, size) else \
            "its permissions, links or times changed"
        self.changed = (f"probe file {self.path!r} changed since it was opened ({what}: "
                        f"{st.st_size:,} bytes, {size:,} when opened); open the directory "
                        f"again")
        raise ProbeFileError(self.changed)

    def enter(self) -> int:
        """Before a read of the mapping: ``check``, and the fault count to give ``leave``."""
        if self.changed is not None or self.buf is None or \
                os.fstat(self._fd).st_ctime_ns != self._ctime:  # (``check``, inline: no call)
            self.check()
        return self._faults() if self._faults is not None else 0

    def leave(self, before: int) -> None:
        """After a read begun with ``enter``: ``check`` again (a write during the read), and a
        fault absorbed meanwhile (a read past the end of a file truncated during it: zeros)
        refuses the read too."""
        if self.changed is not None or self.buf is None or \
                os.fstat(self._fd).st_ctime_ns != self._ctime:
            self.check()
        if self._faults is not None and self._faults() != before:
            raise ProbeFileError(f"probe file {self.path!r} changed while it was read (a read "
                                 f"past its end was absorbed); open the directory again")

    def close(self) -> None:
        self.prefault.stop()
        buf, self.buf = self.buf, None
        mm = getattr(buf, "_mmap", None)
        del buf
        address, self._guarded = self._guarded, 0
        if address:  # released before the range is unmapped: another mapping may take it
            guard_extension().unguard_mapping(address)
        if mm is not None:
            try:
                mm.close()
            except BufferError:  # arrays still view it: the mapping goes with the last of them,
                if address and _guard_mapping(address, len(mm)):  # guarded until then
                    weakref.finalize(mm, guard_extension().unguard_mapping, address)
        if self._file is not None:
            self._file.close()
            self._file = None


def _descriptors(path: str, open_it):
    """``open_it()``, which takes a descriptor: a reader holds two a file (its own, for
    ``check``, and the mapping's), so a directory of a thousand tables (CDC's 1,099) outgrows
    the common soft limit of 1,024.  When descriptors run out the soft limit is raised to the
    hard one, once, and the open tried again; past that, one line."""
    import errno
    try:
        return open_it()
    except OSError as exc:
        if exc.errno not in (errno.EMFILE, errno.ENFILE):
            raise
        try:
            import resource
            soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
            if soft < hard:
                resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
                return open_it()
        except (ImportError, ValueError, OSError):
            pass
        raise ProbeFileError(f"probe file {path!r} cannot be opened: {exc.strerror} (each "
                             f"open probe file holds two; raise the limit: ulimit -n)") from None


_GUARD: list = []


def guard_extension():
    """``tbdb._tbprobe`` if it is built with its SIGBUS guard (``guarded_extension``), else None;
    looked up once: a read asks for its ``faults`` counter before and after."""
    if not _GUARD:
        from tbdb.probe_files.guard import guarded_extension
        _GUARD.append(guarded_extension())
    return _GUARD[0]


def _guard_mapping(address: int, length: int) -> bool:
    from tbdb.probe_files.guard import guard_mapping
    return guard_extension() is not None and guard_mapping(address, length)


def _ident(st: os.stat_result) -> tuple:
    """A file's identity as ``ProbeFile`` keeps it."""
    return st.st_ctime_ns, st.st_mtime_ns, st.st_size, st.st_ino, st.st_dev
