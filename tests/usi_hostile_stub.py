"""Badly behaved USI engines for the tests of ``tbdb usi``'s option Fallback
(tests/test_hostile_engines.py).  The first argument picks the fault:

- ``mute``: reads every command and never answers anything (no ``usiok``);
- ``unready``: answers ``usi`` with ``usiok`` but never ``isready`` with ``readyok``;
- ``bytes``: a working engine whose search output holds bytes that are not UTF-8;
- ``hang``: answers the handshakes, then never answers a ``go`` (not even after ``stop``).
"""
import sys

STUB_MOVE = "2g2f"


def main() -> None:
    mode = sys.argv[1]
    out = sys.stdout.buffer

    def say(data: bytes) -> None:
        out.write(data + b"\n")
        out.flush()

    for raw in sys.stdin.buffer:
        words = raw.split()
        if mode == "mute" or not words:
            continue
        if words[0] == b"usi":
            say(b"id name hostile \xff stub")
            say(b"usiok")
        elif words[0] == b"isready" and mode != "unready":
            say(b"readyok")
        elif words[0] == b"go" and mode == "hang":
            say(b"info depth 1 score cp 0")
        elif words[0] == b"go":
            say(b"info string caf\xe9 \xff\xfe")
            say(b"bestmove " + STUB_MOVE.encode())
        elif words[0] == b"quit":
            break


if __name__ == "__main__":
    main()
