"""The extension's SIGBUS guard (``tbdb._tbprobe``): a read of a probe file truncated under
its mapping sees zeros and is counted, instead of killing the process (issue 61).  Apart from
``native`` (libtbprobe's lookups): every reader registers its mappings here, built or not."""
from __future__ import annotations


def guarded_extension():
    """The extension if it is built with the mapping guard, whether or not lookups use it
    (``TBDB_NATIVE=0`` or a stale build leave lookups in Python; the guard still helps)."""
    try:
        from tbdb import _tbprobe
    except ImportError:
        return None
    return _tbprobe if hasattr(_tbprobe, "guard_mapping") else None


def guard_mapping(address: int, length: int) -> bool:
    """Absorb a read of ``length`` bytes at ``address`` (a mapping of a probe file) past the
    end of its file if it is truncated under the reader: the read sees zeros, ``faults()``
    counts it, instead of SIGBUS killing the process.  Whether the range is guarded (False
    without the extension, or on a platform without signals)."""
    m = guarded_extension()
    if m is None or not address or not length:
        return False
    try:
        m.guard_mapping(address, length)
    except OSError:
        return False
    return True


def unguard_mapping(address: int) -> None:
    """Release the range ``guard_mapping`` registered at ``address`` (before it is unmapped)."""
    m = guarded_extension()
    if m is not None and address:
        m.unguard_mapping(address)


def faults() -> int:
    """Reads past the end of a truncated file absorbed so far (0 without the extension)."""
    m = guarded_extension()
    return m.faults() if m is not None else 0
