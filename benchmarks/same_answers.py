"""Same answers before and after a refactor: build one database per game, fingerprint every view
and 1,000 sampled lookups per game, compare two fingerprints.

    python benchmarks/same_answers.py fingerprint OUT.json [--work DIR]
    python benchmarks/same_answers.py compare BEFORE.json AFTER.json

Run ``fingerprint`` once with the old code (e.g. a ``git archive`` of the old commit installed in
a virtualenv, or ``PYTHONPATH``) and once with the new; ``compare`` prints the views and games
whose answers differ and exits 1 if any do.  The databases: CDC <= 3 pieces, Oware <= 9 seeds,
Shogi KGK, Chinese Checkers 5x5 with 2 pieces, the UTTT example subtree, tic-tac-toe (issue 23).

A view's fingerprint is its row count and, per column, the sum of the column's hashes (order-free);
columns that hold build times are left out.  Lookups follow random walks (seeded) from each game's
sample position through the moves a lookup lists, so both runs ask the same positions as long as
the answers agree; an error is recorded as its message.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import sys
import time

BUILDS = [("cdc", {"max_pieces": 3}), ("oware", {"max_seeds": 9}), ("shogi", {"table": "KGK"}),
          ("chinese-checkers", {"board": 5, "pieces": 2}), ("uttt", None), ("tictactoe", {})]
LOOKUPS = 1000
WALK = 30  # plies before a walk starts again from the sample
# columns that say when or how long, not what: they differ between any two builds
VOLATILE = {"started", "finished", "seconds", "seconds_done", "built_at", "created", "updated"}


def fingerprint(work: str) -> dict:
    import tbdb
    from tbdb import games
    db = os.path.join(work, "same_answers.duckdb")
    if os.path.exists(db):
        os.remove(db)
    out: dict = {"views": {}, "lookups": {}, "seconds": {}}
    for name, options in BUILDS:
        g = games.get(name)
        t0 = time.perf_counter()
        tbdb.build(name, db=db, progress=False, **(g.example_build if options is None else options))
        out["seconds"][name] = round(time.perf_counter() - t0, 1)
    with tbdb.open(db) as tb:
        views = [v for (v,) in tb.sql("SELECT DISTINCT view_name FROM duckdb_views() WHERE NOT "
                                      "internal ORDER BY 1").fetchall()]
        for view in views:
            cols = [c for (c,) in tb.sql("SELECT column_name FROM (DESCRIBE SELECT * FROM "
                                         f'"{view}")').fetchall() if c not in VOLATILE]
            sums = ", ".join(f'sum(hash("{c}"))::VARCHAR' for c in cols)
            row = tb.sql(f'SELECT count(*), {sums} FROM "{view}"').fetchall()[0]
            out["views"][view] = dict(zip(["rows"] + cols, [str(v) for v in row]))
        for name, _ in BUILDS:
            out["lookups"][name] = _walks(tb, games.get(name), random.Random(name), db)
    out["files"] = _probe_files(db, os.path.join(work, "same_answers.probe"))
    return out


def _probe_files(db: str, out: str) -> dict:
    """The sha256 of every probe file ``tbdb export`` writes of the database (the manifest
    is left out: it says when it was written)."""
    import shutil
    from tbdb.probe_files import export
    shutil.rmtree(out, ignore_errors=True)
    export(db, out)
    digests = {}
    for d, _, files in os.walk(out):
        for f in sorted(files):
            if f.endswith(".tbp"):
                with open(os.path.join(d, f), "rb") as fh:
                    digests[os.path.relpath(os.path.join(d, f), out)] = \
                        hashlib.sha256(fh.read()).hexdigest()
    return digests


def _first(g) -> str:
    """Where a game's walks start: a position of the tables built here."""
    if g.name == "chinese-checkers":
        start = g.start(board=5, pieces=2)
        return getattr(start, "text", str(start))
    return g.example_build.get("from", g.sample)


def _walks(tb, g, rng: random.Random, db: str) -> dict:
    from tbdb.errors import TbdbError
    digest, errors, asked = hashlib.sha256(), 0, 0
    first = _first(g)
    position, steps = first, 0
    while asked < LOOKUPS:
        asked += 1
        try:
            r = tb.lookup(position, game=g.name)
            answer = json.dumps(r.to_dict(), sort_keys=True, default=str)
            onward = [m.position for m in r.moves if m.position]
        except (TbdbError, ValueError, KeyError) as exc:
            # the message names the database, which lies elsewhere in the other run
            answer, onward, errors = f"error: {exc}".replace(db, "DB"), [], errors + 1
        digest.update(f"{position}\t{answer}\n".encode())
        steps += 1
        if not onward or steps >= WALK:
            position, steps = first, 0
        else:
            position = rng.choice(onward)
    return {"asked": asked, "errors": errors, "sha256": digest.hexdigest()}


def compare(before: dict, after: dict) -> int:
    differ = 0
    for kind in ("views", "lookups", "files"):
        for key in sorted(set(before.get(kind, {})) | set(after.get(kind, {}))):
            a, b = before.get(kind, {}).get(key), after.get(kind, {}).get(key)
            if a != b:
                differ += 1
                print(f"{kind[:-1]} {key}: differs\n  before {a}\n  after  {b}")
    print(f"{len(after['views'])} views, {len(after['lookups'])} games x {LOOKUPS} lookups, "
          f"{len(after['files'])} probe files: "
          f"{'identical' if not differ else f'{differ} differ'}")
    return 1 if differ else 0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)
    f = sub.add_parser("fingerprint")
    f.add_argument("out")
    f.add_argument("--work", default=".")
    c = sub.add_parser("compare")
    c.add_argument("before")
    c.add_argument("after")
    args = p.parse_args()
    if args.command == "fingerprint":
        result = fingerprint(args.work)
        with open(args.out, "w") as fh:
            json.dump(result, fh, indent=1, sort_keys=True)
        print(f"{args.out}: {len(result['views'])} views, build seconds {result['seconds']}")
        return 0
    with open(args.before) as a, open(args.after) as b:
        return compare(json.load(a), json.load(b))


if __name__ == "__main__":
    sys.exit(main())
