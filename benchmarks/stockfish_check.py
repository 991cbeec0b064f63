"""Check built chess tables against Stockfish, position by position: random slots of each
table named, until 8 wins in at most 15 plies and 4 draws are found; a win in d plies must be
a mate in (d + 1) / 2 moves for Stockfish's mate search, a draw must have no mate at depth 14.
For a set too big for the test suite (the 5-piece set as probe files):

    python benchmarks/stockfish_check.py --db chess5/ KBPvKR KNPvKQ KQBvKP

Stockfish's search bounded by a mate length alone may report a longer mate than the shortest
on a hard position; such a position is searched again for ``--seconds`` before it counts as a
disagreement.  Prints a line per table and the machine; exits 1 on any disagreement.
"""
from __future__ import annotations

import argparse
import os
import platform
import random
import shutil
import sys
import time

# this directory holds benchmarks/chess.py, which would shadow python-chess
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]
import chess  # noqa: E402
import chess.engine  # noqa: E402

import tbdb  # noqa: E402
from tbdb import games  # noqa: E402


def _sample(tb, g, table: str, slots: int, rnd: random.Random, wins: int, draws: int):
    """(wins as (fen, d), draws as fens) of random slots of ``table``."""
    won, drawn = [], []
    for _ in range(200_000):
        if len(won) >= wins and len(drawn) >= draws:
            break
        try:
            fen = g.slot_text(table, rnd.randrange(slots))
            r = tb.lookup(fen)
        except ValueError:  # a slot no legal position fills
            continue
        if r.outcome == "win" and 1 <= r.distance <= 15 and len(won) < wins:
            won.append((fen, r.distance))
        elif r.outcome == "draw" and len(drawn) < draws and \
                not chess.Board(fen).is_game_over():
            drawn.append(fen)
    return won, drawn


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", required=True, help="a database or a directory of probe files")
    ap.add_argument("tables", nargs="+", help="chess tables, as Syzygy names them")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--seconds", type=float, default=40.0)
    args = ap.parse_args()
    engine = shutil.which("stockfish") or shutil.which("stockfish", path="/usr/games")
    if engine is None:
        print("stockfish_check: no stockfish binary (apt-get install stockfish)",
              file=sys.stderr)
        return 2
    g = games.get("chess")
    rnd = random.Random(args.seed)
    print(f"machine: {platform.processor() or platform.machine()}, {platform.system()}, "
          f"python {platform.python_version()}, {engine}")
    bad = 0
    with tbdb.open(args.db) as tb, chess.engine.SimpleEngine.popen_uci(engine) as sf:
        sf.configure({"Threads": 1, "Hash": 64})
        slots = {t["table_name"]: t["slots"] for t in tb.tables("chess")}
        for table in args.tables:
            if table not in slots:
                print(f"stockfish_check: no table {table!r} in {args.db!r}", file=sys.stderr)
                return 2
            t0 = time.perf_counter()
            won, drawn = _sample(tb, g, table, slots[table], rnd, 8, 4)
            again = 0
            for fen, d in won:
                want = (d + 1) // 2
                board = chess.Board(fen)
                mate = sf.analyse(board, chess.engine.Limit(mate=want))["score"] \
                    .pov(board.turn).mate()
                if mate != want:  # the bounded search may miss the shortest mate: longer
                    again += 1
                    mate = sf.analyse(board, chess.engine.Limit(time=args.seconds))["score"] \
                        .pov(board.turn).mate()
                if mate != want:
                    bad += 1
                    print(f"  {table}: {fen}: tbdb wins in {d} plies, Stockfish: mate {mate}")
            for fen in drawn:
                board = chess.Board(fen)
                mate = sf.analyse(board, chess.engine.Limit(depth=14))["score"] \
                    .pov(board.turn).mate()
                if mate is not None:
                    bad += 1
                    print(f"  {table}: {fen}: tbdb draws, Stockfish: mate {mate}")
            print(f"{table:8} {len(won)} wins, {len(drawn)} draws, {again} searched again, "
                  f"{time.perf_counter() - t0:.1f} s")
    print(f"disagreements: {bad}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
