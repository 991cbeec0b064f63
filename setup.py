"""The optional C extension tbdb._tbprobe: libtbprobe (native/src) for lookups on probe files.

Everything else about the package is in pyproject.toml.  Without a C compiler the extension is
skipped (``optional``) and tbdb answers every lookup from Python, as before.
"""
import os
import sys

from setuptools import Extension, setup

ROOT = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(ROOT, "native", "python"))
from sources_digest import source_paths, sources_digest  # noqa: E402  (what native.py checks)

SOURCES = source_paths(ROOT)

setup(ext_modules=[Extension(
    "tbdb._tbprobe",
    sources=[p for p in SOURCES if p.endswith(".c")],
    include_dirs=["native/include", "native/src"],
    define_macros=[("_DEFAULT_SOURCE", "1"), ("_POSIX_C_SOURCE", "200809L"),
                   ("TBPROBE_SOURCES", f'"{sources_digest(ROOT)}"')],
    extra_compile_args=["-O2"],
    optional=True,
)])
