"""Load on ``tbdb serve``: the first answers after it starts, then 50 concurrent clients on
localhost, requests per second and latency.

First answers: ``tbdb serve`` prepares the games list and each game's first lookup before it
serves (issue 28: /api/games and each game's first lookup within 200 ms); the script times the
start to the banner, then ``/api/games`` and, per game, the first ``/api/GAME/game`` request
(what the page asks for) of a served sample other than the prepared one where there is one.

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


def _first_answers(port: int) -> tuple[list[dict], list[tuple[str, float]]]:
    """/api/games, then each game's first lookup as the page asks it, timed one by one."""
    ms, body = _get(port, "/api/games")
    listed = json.loads(body)
    out = [("/api/games", ms)]
    for g in listed:
        if not g["samples"]:
            continue
        text = g["samples"][1] if len(g["samples"]) > 1 else g["samples"][0]
        ms, _ = _get(port, f"/api/{g['name']}/game?position={quote(text)}")
        out.append((f"first lookup: {g['name']}", ms))
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
    t_start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "tbdb.cli", "serve", "--db", db,
                             "--port", str(port)], stdout=subprocess.PIPE, text=True)
    try:
        for line in proc.stdout:  # the banner follows the preparation
            if "http://" in line:
                break
        started = time.perf_counter() - t_start
        _wait_up(port, proc)
        listed, first = _first_answers(port)
        print(f"start to banner (preparation included): {started:.1f} s")
        print(f"{'request':<40} {'ms':>8}")
        for what, ms in first:
            print(f"{what:<40} {ms:>8.1f}")
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
