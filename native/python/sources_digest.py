"""The digest of libtbprobe's sources that tbdb._tbprobe is compiled with: setup.py compiles it
in, and tbdb/probe_files/native.py recomputes it from an editable checkout, where a module built
from other sources than the tree now holds is not used.  One function for both, so that the two
never disagree (setup.py runs without tbdb importable, so it lives here, beside the binding)."""
import glob
import hashlib
import os


def source_paths(root: str) -> list[str]:
    """The files the extension is built from, relative to ``root`` and sorted."""
    found = (glob.glob(os.path.join(root, "native", "src", "*.[ch]"))
             + glob.glob(os.path.join(root, "native", "include", "*.h"))
             + glob.glob(os.path.join(root, "native", "python", "*.c")))
    return sorted(os.path.relpath(p, root).replace(os.sep, "/") for p in found)


def sources_digest(root: str) -> str:
    h = hashlib.sha256()
    for rel in source_paths(root):
        with open(os.path.join(root, rel), "rb") as f:
            h.update(rel.encode() + b"\0" + f.read())
    return h.hexdigest()[:16]
