"""Compile the Numba kernels of the test suite into the Numba cache ahead of it, games split
over processes: ``.ci/run`` runs ``python tests/warm_kernels.py cdc chess tictactoe`` (in that
order) and ``python tests/warm_kernels.py --except cdc chess tictactoe`` (the games solving
their tables themselves first) side by side before pytest.

Why: the suite's two xdist workers each compile what their tests need, and both need most
kernels (about four minutes of compiling on a slow host), so each compiled nearly all of them,
at the same time, for one cache.  Warmed here once and split by game, the workers load them
from the cache (``NUMBA_CACHE_DIR``, which the suite shares).  Only a speed-up: a kernel left
out compiles in the test that needs it.  Compiled as the tests compile them
(``TBDB_JIT_INLINE=0``, tests/conftest.py), into the same cache.

    python tests/warm_kernels.py [--except] GAME ...
"""
from __future__ import annotations

import os
import sys
import tempfile
import time

os.environ.setdefault("TBDB_JIT_INLINE", "0")  # as the tests compile them (tests/conftest.py)


def warm(name: str) -> None:
    """Build the game's example tables in each retrograde mode it has, then verify them."""
    import tbdb
    from tbdb import games
    from tbdb.retrograde import driver
    g = games.get(name)
    modes = [m for m in g.modes if m in driver.MODES] or [None]
    with tempfile.TemporaryDirectory() as tmp:
        for mode in modes:
            db = f"{tmp}/{mode}.duckdb"
            opts = dict(g.example_build)
            if mode is not None:
                opts["mode"] = mode
            tbdb.build(name, db=db, progress=False, **opts)
        tbdb.verify(db, name, progress=False)


def main(argv: list[str]) -> int:
    from tbdb import games
    from tbdb.games.base import OWN_SOLVER
    left_out = argv[:1] == ["--except"]
    named = set(argv[1:] if left_out else argv)
    every = [g.name for g in games.all_games()]
    unknown = named - set(every)
    if unknown:
        print(f"warm_kernels: unknown game {sorted(unknown)[0]!r}", file=sys.stderr)
        return 2
    if left_out:
        # games that solve their tables themselves first: the other process compiles the shared
        # retrograde kernels meanwhile, and this one then loads them from the cache instead of
        # compiling them a second time at the same moment (50 s of a slow host's CPU)
        own = {g.name for g in games.all_games() if OWN_SOLVER in g.capabilities}
        order = sorted(set(every) - named, key=lambda name: (name not in own, name))
    else:
        order = list(dict.fromkeys(argv))  # as given
    for name in order:
        t = time.perf_counter()
        warm(name)
        print(f"warm_kernels: {name} {time.perf_counter() - t:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
