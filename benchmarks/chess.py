"""Build chess tables with ``tbdb build chess`` and report time, memory and the longest mates.

    python benchmarks/chess.py                   # every 3- and 4-piece table (target: <= 5 min)
    python benchmarks/chess.py --max-pieces 3
    python benchmarks/chess.py --material KQvKR --memory 3G
    python benchmarks/chess.py --db chess4.duckdb --export   # and the probe files' size
    python benchmarks/chess.py --db chess4.duckdb --export --syzygy DIR   # beside Syzygy's
    python benchmarks/chess.py --material KRPvKR --memory 20G   # one 5-piece table and the set

The build runs in a child process (``run.cli_child``: wall, CPU and the child's own peak RSS),
after a warm-up build of KQvK in another child so that Numba's compile time (timed apart) is not
in the table times.  Then one row per table from the catalogue (mode, seconds, slots, peak) and
the longest win per material with the published longest mates beside it.  ``--export``: also
write the probe files (``tbdb export``) and print their bytes, bits per slot and bits per
position answered (a table answers both colours: KRvKQ through KQvKR).  An existing ``--db``
that already holds the tables is not rebuilt (its build times are the catalogue's).
``--syzygy DIR`` (python-chess's 3-4 piece Syzygy files: ``python tests/fetch_syzygy.py DIR``):
their size beside tbdb's, python-chess's Syzygy probes beside ``tb.lookup`` on ``--samples``
random positions per material, and the agreement of every value.
``--probe-files DIR``: build into a directory of probe files instead (``tbdb build
--probe-files``: no database; each table coded as it is solved), and report from its manifest:
per table the solve's and the coding's seconds and the file's size, and the bits a slot and a
position of every table by pieces beside Syzygy's and Nalimov's published sizes.  With
``--report`` nothing is built: the report of a directory another build made (or is making).
``--read-back TABLE`` (repeatable): the seconds a build takes to read TABLE back from its file
(a table with a pawn on each side reads eight 710M-slot tables this way).
When 5-piece tables were built, the time of the whole 5-piece set (110 tables) is extrapolated
from their seconds a slot, by the number of pawns (a class not measured takes the nearest one's
rate, and says so): the issue's target is 3 hours.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))

from run import cli_child, machine_line  # noqa: E402

# published longest mates, in plies for the side to move (mate in N = 2N - 1)
PUBLISHED = {"KQvK": 19, "KRvK": 31, "KBBvK": 37, "KBNvK": 65, "KQvKR": 69,
             "KRvKN": 79, "KQvKN": 41, "KQvKB": 33, "KRRvK": 13, "KQQvK": 7, "KPvK": 55}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-pieces", type=int, default=4)
    ap.add_argument("--material")
    ap.add_argument("--memory", default="3G")
    ap.add_argument("--db", help="build here (default: a temporary file)")
    ap.add_argument("--export", action="store_true", help="also export probe files and report "
                                                          "their size")
    ap.add_argument("--syzygy", metavar="DIR", help="Syzygy tables (python tests/fetch_syzygy.py "
                    "DIR): sizes, probe times and agreement beside tbdb's")
    ap.add_argument("--samples", type=int, default=2000,
                    help="random positions per material for --syzygy")
    ap.add_argument("--probe-files", metavar="DIR",
                    help="build into this directory of probe files, not a database")
    ap.add_argument("--no-moves", action="store_true",
                    help="with --probe-files: build files without best moves (tbdb build "
                         "--no-moves)")
    ap.add_argument("--report", action="store_true",
                    help="with --probe-files: build nothing, report the directory")
    ap.add_argument("--read-back", metavar="TABLE", action="append", default=[],
                    help="with --probe-files: time reading TABLE's result and distance back "
                         "from its file, as the build of a table that reads it does")
    args = ap.parse_args()
    if args.probe_files:
        _probe_build(args)
        return
    tmp = tempfile.mkdtemp(prefix="tbdb-chess-bench-")
    db = args.db or os.path.join(tmp, "chess.duckdb")
    what = ["--material", args.material] if args.material else \
        ["--max-pieces", str(args.max_pieces)]
    print(machine_line())
    print(f"load average before: {os.getloadavg()[0]:.1f} (other work on the machine slows "
          f"every number below)")
    wall, cpu, peak = cli_child(["build", "chess", "--material", "KQvK", "--db",
                                 os.path.join(tmp, "warm.duckdb"), "--no-progress"])
    print(f"warm-up (compiling the kernels, KQvK): {wall:.1f} s wall, {cpu:.1f} s CPU")
    wall, cpu, peak = cli_child(["build", "chess", *what, "--db", db, "--memory", args.memory,
                                 "--no-progress"])
    import tbdb
    with tbdb.open(db) as tb:
        rows = tb.sql("SELECT table_name, slots, mode, seconds, peak_bytes FROM tb_tables "
                      "WHERE game = 'chess' ORDER BY table_id").fetchall()
        longest = dict(tb.sql("SELECT material, max(longest_win) FROM draw_analysis WHERE "
                              "game = 'chess' GROUP BY material").fetchall())
    print(f"\n{'table':<8} {'slots':>12} {'mode':<10} {'seconds':>8} {'peak MiB':>9} "
          f"{'longest win':>12} {'published':>10}")
    for name, slots, mode, seconds, peak_bytes in rows:
        pub = PUBLISHED.get(name)
        lw = longest.get(name)
        print(f"{name:<8} {slots:>12,} {mode:<10} {seconds:>8.1f} "
              f"{(peak_bytes or 0) / 2**20:>9.0f} {'-' if lw is None else lw:>12} "
              f"{'' if pub is None else pub:>10}{'  DIFFERS' if pub and lw != pub else ''}")
    print(f"\n{len(rows)} tables: {wall:.1f} s wall, {cpu:.1f} s CPU, peak {peak / 2**30:.2f} GiB "
          f"(target for every 3-4 piece table: <= 300 s)")
    _five_piece_set(rows)
    probe = os.path.join(tmp, "probe")
    if args.export:
        _export_sizes(db, probe)
    if args.syzygy:
        _against_syzygy(db, probe if args.export else None, args.syzygy, args.samples)
    print(f"load average after: {os.getloadavg()[0]:.1f}")


# published sizes of the complete 3-5 piece sets (145 materials)
SYZYGY_BYTES = 939 * 2**20  # WDL + DTZ
NALIMOV_BYTES = int(7.1 * 2**30)  # DTM


def _probe_build(args) -> None:
    """Build into (or only report) a directory of probe files: per table the solve's and the
    coding's seconds, the file's bytes and bits a slot; per number of pieces the sizes."""
    import json
    from tbdb.games.chess.material import all_materials
    print(machine_line())
    if not args.report:
        print(f"load average before: {os.getloadavg()[0]:.1f}")
        what = ["--material", args.material] if args.material else \
            ["--max-pieces", str(args.max_pieces)]
        wall, cpu, peak = cli_child(["build", "chess", *what, "--probe-files",
                                     args.probe_files, "--memory", args.memory,
                                     "--no-progress", *(["--no-moves"] if args.no_moves else [])])
        print(f"build: {wall:.1f} s wall, {cpu:.1f} s CPU, peak {peak / 2**30:.2f} GiB")
    with open(os.path.join(args.probe_files, "manifest.json")) as f:
        entries = [e for e in json.load(f)["files"] if e["game"] == "chess"]
    print(f"\n{'table':<8} {'slots':>13} {'mode':<10} {'solve s':>8} {'coding s':>9} "
          f"{'peak GiB':>9} {'MiB':>9} {'bits/slot':>9} {'longest':>8} {'published':>9}")
    rows = []
    for e in entries:
        solve = e.get("solve", {})
        longest = max((s["longest_win"] for s in e.get("stats", ()) if s["longest_win"]),
                      default=None)
        pub = PUBLISHED.get(e["table"])
        coding = solve.get("coding_seconds")
        peak = solve.get("peak_bytes")
        print(f"{e['table']:<8} {e['slots']:>13,} {solve.get('mode', '-'):<10} "
              f"{solve.get('seconds', 0):>8.1f} {'-' if coding is None else f'{coding:.1f}':>9} "
              f"{'-' if peak is None else f'{peak / 2**30:.2f}':>9} {e['size'] / 2**20:>9.1f} "
              f"{8 * e['size'] / e['slots']:>9.2f} {'-' if longest is None else longest:>8} "
              f"{'' if pub is None else pub:>9}{'  DIFFERS' if pub and longest != pub else ''}")
        rows.append((e["table"], e["slots"], solve.get("mode"), solve.get("seconds"), peak))
    by = {e["table"]: e for e in entries}
    print(f"\n{'pieces':<7} {'tables':>12} {'bytes':>16} {'bits/slot':>10} "
          f"{'bits/legal':>11} {'bits/answered':>14}")
    for pieces in (3, 4, 5):
        want = [m.name for m in all_materials(pieces) if m.pieces == pieces]
        have = [by[t] for t in want if t in by]
        if not have:
            continue
        size = sum(e["size"] for e in have)
        slots = sum(e["slots"] for e in have)
        raw = sum(e["solve"]["raw_positions"] for e in have if "solve" in e)
        answered = sum(e["solve"]["positions_answered"] for e in have if "solve" in e)
        print(f"{pieces:<7} {len(have):>5} of {len(want):<4} {size:>16,} {8 * size / slots:>10.2f} "
              f"{8 * size / raw if raw else 0:>11.2f} "
              f"{8 * size / answered if answered else 0:>14.2f}")
    total = sum(e["size"] for e in entries)
    done = len(entries)
    kind = "DTM and best moves" if all(e["moves"] for e in entries) else \
        "DTM, no best moves" if not any(e["moves"] for e in entries) else "mixed"
    print(f"\nall: {done} of 145 tables, {total / 2**30:.2f} GiB of probe files ({kind}); "
          f"Syzygy's 145 (WDL+DTZ): {SYZYGY_BYTES / 2**30:.2f} GiB, Nalimov's (DTM): "
          f"{NALIMOV_BYTES / 2**30:.1f} GiB")
    _five_piece_set(rows, "the coding of the files comes")
    for table in args.read_back:
        _read_back(args.probe_files, table)
    coded = [(by[t]["slots"], by[t]["solve"]["coding_seconds"]) for t in by
             if by[t].get("solve", {}).get("coding_seconds") is not None
             and by[t]["slots"] > 10**8]
    if coded:
        us = 1e6 * sum(c for _, c in coded) / sum(n for n, _ in coded)
        five = sum(2 * m.half for m in all_materials(5) if m.pieces == 5)
        print(f"coding the files: {us:.3f} us a slot over {len(coded)} big tables: the 5-piece "
              f"set's {five:,} slots {five * us / 3.6e9:.2f} hours on top of solving")


def _read_back(directory: str, table: str) -> None:
    """Time a build's reading of ``table`` from its probe file (after a small table, so that
    the decoding kernels are compiled)."""
    import json
    import time
    import tbdb.games
    from tbdb.build import load_table
    from tbdb.probe_files.build_dir import ProbeBuild
    g = tbdb.games.get("chess")
    with open(os.path.join(directory, "manifest.json")) as f:
        moves = all(e["moves"] for e in json.load(f)["files"] if e["game"] == "chess")
    with ProbeBuild(directory, "chess", moves) as store:
        load_table(g, store, "KQvK")
        t = time.perf_counter()
        values = load_table(g, store, table)
        seconds = time.perf_counter() - t
    n = len(values.result)
    print(f"read back {table}: {n:,} slots in {seconds:.1f} s ({1e9 * seconds / n:.1f} ns a "
          f"slot), result and distance")


def _five_piece_set(rows, on_top: str = "the writes to the database come") -> None:
    """The 5-piece set's solving time from the 5-piece tables of ``rows`` (the catalogue's
    seconds of each table's own solve), class by class of pawns."""
    from tbdb.games.chess.material import Material, all_materials
    from tbdb.games.chess.tables import en_passant_keys

    def slots(m):
        return 2 * m.half + len(en_passant_keys(m))

    rate: dict[int, list[float]] = {}
    for name, n, _, seconds, _ in rows:
        m = Material.parse(name)
        if m.pieces == 5 and seconds:
            got = rate.setdefault(m.pawns, [0.0, 0.0])
            got[0] += seconds
            got[1] += n
    if not rate:
        return
    print(f"\n{'5 pieces':<10} {'tables':>6} {'slots':>16} {'us a slot':>10} {'hours':>6}")
    total = 0.0
    for pawns in range(4):
        of = [m for m in all_materials(5) if m.pieces == 5 and m.pawns == pawns]
        n = sum(slots(m) for m in of)
        near = min(rate, key=lambda p: (abs(p - pawns), -p))
        us = 1e6 * rate[near][0] / rate[near][1]
        total += n * us / 1e6
        note = "" if near == pawns else f"  (not measured: {near} pawns' rate)"
        print(f"{pawns} pawns{'':<3} {len(of):>6} {n:>16,} {us:>10.3f} {n * us / 3.6e9:>6.2f}"
              f"{note}")
    # the recorded seconds are wall clock: a table solved beside other work (tests, a
    # paused build) counts as slow as it was, so this is no "alone" figure unless they were
    print(f"the 5-piece set at the recorded solve seconds (wall clock, whatever else ran): "
          f"about {total / 3600:.2f} hours (target: <= 3 h; {on_top} on top)")


def _export_sizes(db: str, out: str) -> None:
    import tbdb
    wall, cpu, _ = cli_child(["export", "--db", db, "--out", out, "--no-progress"])
    with tbdb.open(db) as tb:
        rows = tb.sql("SELECT table_name, slots, raw_positions, positions_answered FROM "
                      "tb_tables WHERE game = 'chess'").fetchall()
    total = slots = raw = answered = 0
    for name, n, r, a in rows:
        total += os.path.getsize(os.path.join(out, "chess", f"{name}.tbp"))
        slots, raw, answered = slots + n, raw + r, answered + a
    print(f"\nprobe files: {len(rows)} tables, {total / 2**20:.1f} MiB (DTM and best moves): "
          f"{8 * total / slots:.2f} bits a slot, {8 * total / raw:.2f} bits a legal position "
          f"({raw:,}: every placement, either side to move), {8 * total / answered:.2f} bits a "
          f"position answered (with the colour-swapped materials: {answered:,}); export "
          f"{wall:.1f} s wall, {cpu:.1f} s CPU")


def _against_syzygy(db: str, probe: str | None, syzygy_dir: str, samples: int) -> None:
    """Syzygy's files for the materials built (WDL + DTZ, what engines hold) beside tbdb's
    (DTM + best moves), python-chess's Syzygy probes beside ``tb.lookup`` on the same random
    positions, and whether every value agrees (``tests/chess_positions.compare``)."""
    import random
    import time

    # this file is benchmarks/chess.py: python-chess is found only with benchmarks/ off the path
    bench = os.path.join(ROOT, "benchmarks")
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != bench]
    import chess.syzygy
    import numpy as np

    import tbdb
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    from chess_positions import compare, random_boards
    with tbdb.open(db) as tb:
        rows = tb.sql("SELECT table_name, positions_answered FROM tb_tables WHERE game = "
                      "'chess' ORDER BY table_name").fetchall()
    names = [n for n, _ in rows]
    answered = sum(a for _, a in rows)
    missing = [n for n in names if not os.path.isfile(os.path.join(syzygy_dir, f"{n}.rtbw"))]
    if missing:
        raise SystemExit(f"--syzygy {syzygy_dir!r} lacks {', '.join(missing[:5])}")
    wdl = sum(os.path.getsize(os.path.join(syzygy_dir, f"{n}.rtbw")) for n in names)
    dtz = sum(os.path.getsize(os.path.join(syzygy_dir, f"{n}.rtbz")) for n in names)
    print(f"\nsizes, {len(names)} materials, {answered:,} positions answered (both colours):")
    sizes = [("Syzygy WDL", wdl), ("Syzygy WDL + DTZ", wdl + dtz),
             ("tbdb DuckDB file (DTM, best moves, the catalogue)", os.path.getsize(db))]
    if probe:
        sizes.append(("tbdb probe files (DTM, best moves)", sum(
            os.path.getsize(os.path.join(probe, "chess", f"{n}.tbp")) for n in names)))
    for what, size in sizes:
        print(f"  {what:<52} {size / 2**20:>9.2f} MiB  {8 * size / answered:>7.3f} bits a "
              f"position")
    boards = []
    for n in names:
        boards += random_boards(n, samples, random.Random(n))
    times: dict[str, list[float]] = {}

    def timed(what, fn):
        out = []
        for b in boards:
            t0 = time.perf_counter()
            fn(b)
            out.append(time.perf_counter() - t0)
        times[what] = out

    with chess.syzygy.open_tablebase(syzygy_dir) as syz:
        for b in boards[:200]:
            syz.probe_dtz(b)
        timed("python-chess Syzygy probe_wdl", syz.probe_wdl)
        timed("python-chess Syzygy probe_dtz", syz.probe_dtz)
        with tbdb.open(db) as tb:
            tb.load("chess")
            timed("tbdb lookup, DuckDB file, tables loaded", tb.lookup)
            bad = compare(tb, syz, boards)
        if probe:
            with tbdb.open(probe) as tb:
                timed("tbdb lookup, probe files", tb.lookup)
    print(f"\nprobe times, {len(boards):,} random legal positions ({samples:,} a material), "
          f"medians (tbdb's lookup also gives DTM and the best move):")
    for what, ts in times.items():
        print(f"  {what:<52} {1e6 * float(np.median(ts)):>9.1f} us")
    print(f"\nagreement: {len(boards) - len(bad):,} of {len(boards):,} positions (win / draw / "
          f"loss, checkmates, DTZ within DTM + 1){'' if not bad else f'; differ: {bad[:3]}'}")


if __name__ == "__main__":
    main()
