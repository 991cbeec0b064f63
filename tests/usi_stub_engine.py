"""A stub USI engine for the tests of ``tbdb usi``'s option Fallback: it writes every command it
receives to the log file named by its argument, answers the handshakes, and answers ``go`` with
a fixed move (held back until ``stop`` or ``ponderhit`` for ``go infinite`` / ``go ponder``, as
a real engine does) and ``go mate`` with ``checkmate nomate``."""
import sys

STUB_MOVE = "2g2f"


def main() -> None:
    log = open(sys.argv[1], "a", buffering=1)
    held = None

    def say(text: str) -> None:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()

    for raw in sys.stdin:
        line = raw.strip()
        log.write(line + "\n")
        words = line.split()
        if line == "usi":
            say("id name stub fallback")
            say("usiok")
        elif line == "isready":
            say("readyok")
        elif words[:1] == ["go"]:
            if "mate" in words:
                say("checkmate nomate")
                continue
            say("info depth 7 score cp 42 pv " + STUB_MOVE)
            if "infinite" in words or "ponder" in words:
                held = "bestmove " + STUB_MOVE
            else:
                say("bestmove " + STUB_MOVE)
        elif line in ("stop", "ponderhit") and held:
            say(held)
            held = None
        elif line == "quit":
            break


if __name__ == "__main__":
    main()
