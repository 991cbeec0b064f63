"""Fetch real Syzygy tables for the chess comparison tests: python-chess's source distribution
(on the package index) carries the 3-4 piece WDL and DTZ files of regular chess (35 materials,
4.3 MB) for its own tests; this extracts them.

    python tests/fetch_syzygy.py DIR   # then TBDB_SYZYGY_DIR=DIR pytest tests/test_chess_syzygy.py

The installed python-chess's version is fetched (``pip download --no-binary :all:``), so the
files match the prober that reads them.  Exit 0 with DIR filled, else 1 with one line on why.
"""
from __future__ import annotations

import glob
import os
import subprocess
import sys
import tarfile
import tempfile

#: What a directory of them must hold (the tests' materials; python-chess's set has all 35).
MARKERS = ("KQvK.rtbw", "KQvKR.rtbw", "KPvKP.rtbw", "KPvKP.rtbz")


def has_tables(directory: str | None) -> bool:
    return bool(directory) and all(os.path.isfile(os.path.join(directory, m)) for m in MARKERS)


def fetch(directory: str) -> int:
    """Extract ``data/syzygy/regular/*.rtb[wz]`` of the installed python-chess's sdist into
    ``directory``; returns the number of files."""
    import chess
    os.makedirs(directory, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                        "--disable-pip-version-check", "--no-binary", ":all:", "-d", tmp,
                        f"chess=={chess.__version__}"], check=True, capture_output=True,
                       timeout=300)
        (sdist,) = glob.glob(os.path.join(tmp, "chess-*.tar.gz"))
        n = 0
        with tarfile.open(sdist) as tar:
            for member in tar.getmembers():
                parts = member.name.split("/")
                if (member.isfile() and parts[-3:-1] == ["syzygy", "regular"]
                        and parts[-1].endswith((".rtbw", ".rtbz"))):
                    with tar.extractfile(member) as src, \
                            open(os.path.join(directory, parts[-1]), "wb") as dst:
                        dst.write(src.read())
                    n += 1
    return n


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python tests/fetch_syzygy.py DIR", file=sys.stderr)
        return 2
    try:
        n = fetch(argv[0])
    except (subprocess.SubprocessError, ValueError, OSError, tarfile.TarError) as exc:
        print(f"fetch_syzygy: python-chess's source distribution not fetched: {exc}",
              file=sys.stderr)
        return 1
    if not has_tables(argv[0]):
        print(f"fetch_syzygy: {n} files, but not every one the tests need", file=sys.stderr)
        return 1
    print(f"fetch_syzygy: {n} Syzygy files in {argv[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
