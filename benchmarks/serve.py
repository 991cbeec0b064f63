"""Load on ``tbdb serve``: the first answers after it starts, then 50 concurrent clients on
localhost, requests per second and latency.

First answers: ``tbdb serve`` prepares the games list and each sample's lookup before it serves
(issue 28: /api/games and each game's first lookup within 200 ms); the script times the start
to the banner, then ``/api/games`` and, per game, the ``/api/GAME/game`` request the page makes
first (the first sample) and then one for a position of the game's largest table picked before
the server started (a table no sample may have touched: the price of a cold table).

Builds every game's example tables into a temporary file (or uses --db), starts ``tbdb serve``
on a free local port, and has N client threads each send a bounded number of lookups (the
served samples of every game, round robin) over keep-alive connections.  Only 127.0.0.1 is
contacted; the run stops after --requests per client or --seconds, whichever comes first.
Timings on a shared 2-core machine are noisy.

    python benchmarks/serve.py [--db FILE] [--clients 50] [--requests 40] [--seconds 60]
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).parent))
from run import machine_line  # noqa: E402


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_up(port: int, proc, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"tbdb serve exited with {proc.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return
        except OSError:
            time.sleep(0.1)
    raise SystemExit("tbdb serve did not start")


def _get(port: int, url: str) -> tuple[float, bytes]:
    con = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    t0 = time.perf_counter()
    con.request("GET", url)
    resp = con.getresponse()
    body = resp.read()
    ms = 1000 * (time.perf_counter() - t0)
    con.close()
    if resp.status != 200:
        raise SystemExit(f"{url}: {resp.status} {body[:200]!r}")
    return ms, body


def _cold_positions(db: str) -> dict[str, str]:
    """Per game, a won position (else any) of its largest table by positions, read before the
    server starts."""
    import tbdb
    from tbdb import games
    from tbdb.web import find
    out = {}
    with tbdb.open(db) as tb:
        for g in games.all_games():
            tables = find.tables(tb, g)
            sizes = dict(tb.sql("SELECT table_name, sum(positions) FROM draw_analysis WHERE "
                                "game = ? GROUP BY ALL", params=[g.name]).fetchall())
            if not tables:
                continue
            table = max(tables, key=lambda t: (sizes.get(t) or 0, t))
            for kind in ("longest-win", "draw", "longest-loss"):
                found = find.find(tb, g, table, kind)["positions"]
                if found:
                    out[g.name] = found[0]["position"]
                    break
    return out


def _first_answers(port: int, cold: dict[str, str]) -> tuple[list[dict], list[tuple]]:
    """/api/games, then per game the page's first lookup and a cold table's, one by one."""
    ms, body = _get(port, "/api/games")
    listed = json.loads(body)
    out = [("/api/games", ms, None)]
    for g in listed:
        if not g["samples"]:
            continue
        first, _ = _get(port, f"/api/{g['name']}/game?position={quote(g['samples'][0])}")
        other = None
        if g["name"] in cold:
            other, _ = _get(port, f"/api/{g['name']}/game?position={quote(cold[g['name']])}")
        out.append((g["name"], first, other))
    return listed, out


def _client(port, urls, n, stop_at, latencies, errors, start_gate, offset):
    con = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    start_gate.wait()
    for i in range(n):
        if time.monotonic() > stop_at:
            break
        url = urls[(offset + i) % len(urls)]
        t0 = time.perf_counter()
        try:
            con.request("GET", url)
            resp = con.getresponse()
            resp.read()
            ok = resp.status == 200
        except (OSError, http.client.HTTPException):
            ok = False
            con.close()
            con = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        latencies.append(time.perf_counter() - t0)
        if not ok:
            errors.append(url)
    con.close()


def _percentile(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", help="a tbdb file (default: every game's example build, made now)")
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--requests", type=int, default=40, help="per client")
    ap.add_argument("--seconds", type=float, default=60, help="stop sending after this long")
    args = ap.parse_args()
    tmp = tempfile.TemporaryDirectory()
    db = args.db
    if db is None:
        import tbdb
        from tbdb import games
        db = os.path.join(tmp.name, "tb.duckdb")
        for g in games.all_games():
            tbdb.build(g.name, db=db, progress=False, **g.example_build)
    port = _free_port()
    cold = _cold_positions(db)
    t_start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "tbdb.cli.run", "serve", "--db", db,
                             "--port", str(port)], stdout=subprocess.PIPE, text=True)
    try:
        for line in proc.stdout:  # the banner follows the preparation
            if "http://" in line:
                break
        started = time.perf_counter() - t_start
        _wait_up(port, proc)
        listed, first = _first_answers(port, cold)
        print(f"start to banner (preparation included): {started:.1f} s")
        print(f"{'first answers':<20} {'page ms':>8} {'cold table ms':>14}")
        for what, ms, other in first:
            shown = f"{other:>14.1f}" if other is not None else f"{'':>14}"
            print(f"{what:<20} {ms:>8.1f} {shown}")
        print()
        urls = [f"/api/{g['name']}?position={quote(s)}" for g in listed for s in g["samples"]]
        for url in urls:  # warm: tables are read into memory on first use
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            c.request("GET", url)
            c.getresponse().read()
            c.close()
        latencies: list[float] = []
        errors: list[str] = []
        gate = threading.Barrier(args.clients + 1)
        stop_at = time.monotonic() + args.seconds
        threads = [threading.Thread(target=_client, args=(port, urls, args.requests, stop_at,
                                                          latencies, errors, gate, i))
                   for i in range(args.clients)]
        for t in threads:
            t.start()
        gate.wait()
        t0 = time.perf_counter()
        for t in threads:
            t.join()
        wall = time.perf_counter() - t0
    finally:
        proc.terminate()
        proc.wait(10)
        proc.stdout.close()
        tmp.cleanup()
    n = len(latencies)
    print(f"{'clients':>8} {'requests':>9} {'errors':>7} {'req/s':>8} {'p50 ms':>8} "
          f"{'p99 ms':>8} {'max ms':>8}")
    print(f"{args.clients:>8} {n:>9} {len(errors):>7} {n / wall:>8.0f} "
          f"{1000 * _percentile(latencies, 0.5):>8.1f} {1000 * _percentile(latencies, 0.99):>8.1f} "
          f"{1000 * max(latencies):>8.1f}")
    print(f"({len(urls)} distinct lookups of {len(listed)} games, moves included; one uvicorn "
          f"worker; the shared machine makes timings noisy)")
    print(machine_line())
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
