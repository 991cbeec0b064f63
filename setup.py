"""The optional C extension tbdb._tbprobe: libtbprobe (native/src) for lookups on probe files.

Everything else about the package is in pyproject.toml.  Without a C compiler the extension is
skipped (``optional``) and tbdb answers every lookup from Python, as before.
"""
import glob
import hashlib

from setuptools import Extension, setup

SOURCES = sorted(glob.glob("native/src/*.[ch]") + glob.glob("native/include/*.h")
                 + glob.glob("native/python/*.c"))


def sources_digest(paths) -> str:
    """What tbdb/probe_files/native.py recomputes from an editable checkout: a module built
    from other sources than the tree now holds is not used (a reinstall rebuilds it)."""
    h = hashlib.sha256()
    for p in paths:
        with open(p, "rb") as f:
            h.update(p.replace("\\", "/").encode() + b"\0" + f.read())
    return h.hexdigest()[:16]


setup(ext_modules=[Extension(
    "tbdb._tbprobe",
    sources=[p for p in SOURCES if p.endswith(".c")],
    include_dirs=["native/include", "native/src"],
    define_macros=[("_DEFAULT_SOURCE", "1"), ("_POSIX_C_SOURCE", "200809L"),
                   ("TBPROBE_SOURCES", f'"{sources_digest(SOURCES)}"')],
    extra_compile_args=["-O2"],
    optional=True,
)])
