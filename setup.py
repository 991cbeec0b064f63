"""The optional C extension tbdb._tbprobe: libtbprobe (native/src) for lookups on probe files.

Everything else about the package is in pyproject.toml.  Without a C compiler the extension is
skipped (``optional``) and tbdb answers every lookup from Python, as before.
"""
import glob

from setuptools import Extension, setup

setup(ext_modules=[Extension(
    "tbdb._tbprobe",
    sources=sorted(glob.glob("native/src/*.c")) + ["native/python/tbprobe_module.c"],
    include_dirs=["native/include", "native/src"],
    define_macros=[("_DEFAULT_SOURCE", "1"), ("_POSIX_C_SOURCE", "200809L")],
    extra_compile_args=["-O2"],
    optional=True,
)])
