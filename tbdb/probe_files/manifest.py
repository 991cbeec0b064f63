"""A directory's ``manifest.json`` read and checked, and the check that a file lies inside its
directory: plain Python (no NumPy), so that a lookup answered in C (``text_lookups``) opens a
directory with nothing else imported."""
from __future__ import annotations

import os
import stat

from tbdb import safe_json
from tbdb.safe_files import kind as file_kind
from tbdb.probe_files.header import MANIFEST, ProbeFileError, VERSION


def check_inside(path: str, root: str, what: str) -> None:
    """``ProbeFileError`` unless ``path`` is a regular file whose real path is under ``root``
    (a link out of the directory, a FIFO, a device are refused; ``os.stat`` never opens)."""
    real, base = os.path.realpath(path), os.path.realpath(root)
    if os.path.commonpath([real, base]) != base:
        raise ProbeFileError(f"{what} {path!r} is a link to {real!r}, outside {root!r}; "
                             f"probe files must lie inside their directory")
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise
    if not stat.S_ISREG(mode):
        raise ProbeFileError(f"{what} {path!r} is {file_kind(mode)}, not a regular file")


def read_manifest(path: str) -> dict:
    """The manifest of directory ``path`` (``ProbeFileError`` if missing or malformed)."""
    mpath = os.path.join(path, MANIFEST)
    try:
        check_inside(mpath, path, "manifest")
        with open(mpath, encoding="utf-8") as f:
            m = safe_json.loads(f.read())
    except FileNotFoundError:
        raise ProbeFileError(f"{path!r} is a directory without {MANIFEST}: not a directory of "
                             f"probe files (write one with: tbdb export --db DB --out "
                             f"{path})") from None
    except ProbeFileError:  # (a ValueError too) a link out, a FIFO: said as it is
        raise
    except (ValueError, UnicodeDecodeError) as exc:
        raise ProbeFileError(f"manifest {mpath!r} does not parse: {exc}") from None
    if not isinstance(m, dict) or m.get("format") != "tbdb-probe-files" \
            or not isinstance(m.get("files"), list):
        raise ProbeFileError(f"manifest {mpath!r} is not a tbdb probe-file manifest")
    if m.get("version") != VERSION:
        raise ProbeFileError(f"manifest {mpath!r} has format version {m.get('version')!r}; "
                             f"this tbdb reads version {VERSION}: export again")
    listed = set()
    for e in m["files"]:
        problem = _entry_problem(e)
        if problem:
            raise ProbeFileError(f"manifest {mpath!r} has a malformed entry ({problem}): "
                                 f"{e!r:.200}")
        if (e["game"], e["table"]) in listed:  # which one answers? (libtbprobe refuses too)
            raise ProbeFileError(f"manifest {mpath!r} lists table {e['table']!r} of "
                                 f"{e['game']} twice")
        listed.add((e["game"], e["table"]))
    return m


_TEXTS = ("game", "table", "sha256", "storage")  # the fields of an entry, by type
_COUNTS = ("size", "slots", "positions")


def _entry_problem(e) -> str | None:
    """What is wrong with manifest entry ``e`` as tbdb writes them, or None: every reader
    takes the fields' types on trust after this (a size written as text was compared with
    the file's and added up, and an entry that was a number raised a TypeError)."""
    if not isinstance(e, dict):
        return "not an object"
    missing = [k for k in ("path", *_TEXTS, *_COUNTS, "params") if k not in e]
    if missing:
        return f"no {missing[0]!r}"
    p = e["path"]
    if not isinstance(p, str) or not p or os.path.isabs(p) or ".." in p.split("/") \
            or "\x00" in p:
        return "a path outside the directory"
    for k in _TEXTS:
        if not isinstance(e[k], str):
            return f"{k!r} is not text"
    for k in _COUNTS:
        if type(e[k]) is not int or e[k] < 0:  # not bool, which is an int
            return f"{k!r} is not a count"
    if not isinstance(e["params"], dict):
        return "'params' is not an object"
    if not isinstance(e.get("moves", True), bool):
        return "'moves' is not true or false"
    return None
