"""The engine ``tbdb usi`` hands positions outside its tables to (the USI option ``Fallback``).

A second USI engine runs as a child process.  tbdb speaks to it as a GUI would (``usi``,
``isready``, ``position``, ``go``, ``stop``, ...) and relays what it answers during a search
(``info ...``, ``bestmove ...``, ``checkmate ...``) to its own GUI word for word, so the GUI sees
one engine: one that answers from the tables where it can and searches elsewhere.

A reader thread owns the child's stdout.  Outside a search its lines go to a queue that the
handshakes (``usiok``, ``readyok``) wait on; during a search they go straight to ``emit``, until
the line that ends the search (``bestmove`` or ``checkmate``).
"""
from __future__ import annotations

import queue
import shlex
import subprocess
import threading
import time
from typing import Callable

# How long the engine may take to answer `usi` with `usiok` (it only names itself and its
# options: a second or so even for a Python engine) and `isready` with `readyok` (it may load
# evaluation files first).  One that does not is given up on once (tbdb/protocols/usi.py), not
# waited for at every go.
USIOK_SECONDS = 10.0
READYOK_SECONDS = 60.0
# How long past its time (the go line's clock: movetime, or its side's time + byoyomi + inc;
# or since `stop`) a search may run before tbdb answers for it (`bestmove resign`), ends it and
# gives it up: a hung engine must not leave the GUI waiting for a move.
ANSWER_GRACE_SECONDS = 10.0
SEARCH_ENDS = ("bestmove", "checkmate")
HANDSHAKE_ANSWERS = ("usiok", "readyok")


class FallbackError(ValueError):
    """The fallback engine could not be started or did not answer its handshake."""


class FallbackEngine:
    """A USI engine run as a child process (``command``: its command line, split as a shell
    would), whose answers during a search are passed to ``emit`` line by line."""

    def __init__(self, command: str, emit: Callable[[str], None]):
        self.command = command
        self._emit = emit
        try:
            argv = shlex.split(command)
        except ValueError as exc:
            raise FallbackError(f"fallback command {command!r}: {exc}") from None
        if not argv:
            raise FallbackError("fallback command is empty")
        try:
            self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.DEVNULL, bufsize=1,
                                         # (bytes that are not UTF-8 must not kill the reader)
                                         encoding="utf-8", errors="replace")
        except OSError as exc:
            raise FallbackError(f"fallback command {command!r} did not start: "
                                f"{exc.strerror or exc}") from None
        self.name = argv[0]
        self._dead_answer = "bestmove resign"
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._lock = threading.Lock()
        self._searching = False
        self._search_done = threading.Event()
        self._search_done.set()
        self._budget: float | None = None   # the running search's time, seconds
        self._watch = 0                      # the current watchdog's number
        self.failure: str | None = None      # why it was given up on (it hung in a search)
        self._reader = threading.Thread(target=self._read, name="tbdb-usi-fallback", daemon=True)
        self._reader.start()
        try:
            self._handshake("usi", "usiok", USIOK_SECONDS)
            for line in self._drained():
                if line.startswith("id name "):
                    self.name = line[len("id name "):]
        except FallbackError:
            self.quit()
            raise

    # ------------------------------------------------------------------ the child's output

    def _read(self) -> None:
        for raw in self.proc.stdout:
            line = raw.strip()
            if not line:
                continue
            with self._lock:
                # handshake answers are ours, even while a search runs (`isready` may come
                # at any moment): never relayed, so the GUI hears tbdb's readyok only
                if self._searching and line not in HANDSHAKE_ANSWERS:
                    if line.split(None, 1)[0] in SEARCH_ENDS:
                        # cleared before the GUI can see the answer and send its next `go`
                        self._searching = False
                        self._emit(line)
                        self._search_done.set()
                    else:
                        self._emit(line)
                    continue
            self._lines.put(line)
        with self._lock:  # the child has gone: a GUI waiting for a move must still get one
            if self._searching:
                self._searching = False  # (before the GUI can see the answer and send go)
                self._emit(f"info string fallback engine {self.name!r} ended during its search")
                self._emit(self._dead_answer)
                self._search_done.set()
        self._lines.put(None)

    def _drained(self) -> list[str]:
        out = []
        while True:
            try:
                line = self._lines.get_nowait()
            except queue.Empty:
                return out
            if line is None:
                self._lines.put(None)  # keep the end visible to later waits
                return out
            out.append(line)

    def _handshake(self, command: str, answer: str, seconds: float) -> None:
        self._drained()  # stale lines (after a gameover, say) are not answers to this
        self.send(command)
        kept = []
        deadline = time.monotonic() + seconds  # (an engine chattering on does not extend it)
        while True:
            try:
                line = self._lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise FallbackError(f"fallback engine {self.command!r} did not answer "
                                    f"{command!r} with {answer!r} within "
                                    f"{seconds:.0f} s") from None
            if line is None:
                raise FallbackError(f"fallback engine {self.command!r} ended before answering "
                                    f"{command!r}")
            if line == answer:
                for k in kept:  # `id name` lines, read by the caller
                    self._lines.put(k)
                return
            kept.append(line)

    # ------------------------------------------------------------------ commands

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    @property
    def searching(self) -> bool:
        return self._searching

    def send(self, command: str) -> None:
        try:
            self.proc.stdin.write(command + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            pass  # the reader sees the end and answers for it

    def isready(self) -> None:
        self._handshake("isready", "readyok", READYOK_SECONDS)

    def search(self, position_command: str, go_command: str, mate: bool,
               budget: float | None = None, ponder: bool = False) -> None:
        """Send the position and the ``go`` line; the answer is relayed as it comes.  With a
        ``budget`` (seconds; counted from ponderhit for ``go ponder``) the search is answered
        for if the engine has not answered ANSWER_GRACE_SECONDS after it."""
        self._dead_answer = "checkmate notimplemented" if mate else "bestmove resign"
        self._budget = budget
        with self._lock:
            self._searching = True
            self._search_done.clear()
        if budget is not None and not ponder:
            self._arm(budget + ANSWER_GRACE_SECONDS)
        if not self.alive:  # ended earlier: answer for it now
            with self._lock:
                self._searching = False
                self._emit(f"info string fallback engine {self.name!r} has ended")
                self._emit(self._dead_answer)
                self._search_done.set()
            return
        self.send(position_command)
        self.send(go_command)

    def stop(self) -> None:
        """``stop`` sent on: the answer is owed within ANSWER_GRACE_SECONDS."""
        self.send("stop")
        self._arm(ANSWER_GRACE_SECONDS)

    def ponderhit(self) -> None:
        self.send("ponderhit")
        if self._budget is not None:
            self._arm(self._budget + ANSWER_GRACE_SECONDS)

    def _arm(self, seconds: float) -> None:
        """A watchdog for the running search (replacing any earlier one): if no answer has come
        within ``seconds``, answer for the engine, end it and give it up."""
        self._watch += 1
        number = self._watch

        def watch() -> None:
            if self._search_done.wait(min(seconds, threading.TIMEOUT_MAX)) or \
                    number != self._watch:
                return
            with self._lock:
                if not self._searching or number != self._watch:
                    return
                self.failure = (f"fallback engine {self.name!r} did not answer its search "
                                f"within {seconds:.0f} s")
                self._searching = False  # (before the GUI can see the answer and send go)
                self._emit(f"info string {self.failure}; it is given up on")
                self._emit(self._dead_answer)
                self._search_done.set()
            self.proc.kill()  # (the reader then meets the end, no search running)

        threading.Thread(target=watch, name="tbdb-usi-fallback-watch", daemon=True).start()

    def forget_search(self) -> None:
        """Stop relaying the running search (after ``gameover``: its answer is not wanted)."""
        with self._lock:
            self._searching = False
            self._search_done.set()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until the running search has answered; False on timeout."""
        return self._search_done.wait(timeout)

    def quit(self) -> None:
        self.send("quit")
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
