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
# the installed name of each top folder (pyproject.toml's package-dir says the same)
ROOTS = {"tbdb": "tbdb", "tbdb.solvers": "solvers", "tbdb.migrations": "migrations",
         "tbdb.sql": "sql", "tbdb.rules": "docs/rules"}


def packages() -> list[str]:
    """Every folder under the roots as a package: the Python ones, and the folders of data
    files (the explorer's static files, the rules), so a new game's folders need no list."""
    found = []
    for name, top in ROOTS.items():
        for d, dirs, _ in os.walk(os.path.join(ROOT, top)):
            dirs[:] = sorted(x for x in dirs if x != "__pycache__" and not x.endswith(".egg-info"))
            rel = os.path.relpath(d, os.path.join(ROOT, top))
            found.append(name if rel == "." else name + "." + rel.replace(os.sep, "."))
    return found


setup(packages=packages(), ext_modules=[Extension(
    "tbdb._tbprobe",
    sources=[p for p in SOURCES if p.endswith(".c")],
    include_dirs=["native/include", "native/src"],
    define_macros=[("_DEFAULT_SOURCE", "1"), ("_POSIX_C_SOURCE", "200809L"),
                   ("TBPROBE_SOURCES", f'"{sources_digest(ROOT)}"')],
    extra_compile_args=["-O2"],
    optional=True,
)])
