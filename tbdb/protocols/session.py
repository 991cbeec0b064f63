"""What the UCI (chess, ``tbdb.protocols.uci``) and USI (Shogi, ``tbdb.protocols.usi``) engines share: a session
that runs one command a line, says what it has to say a line at a time, flushed, and opens its
tablebase on first use (a failure said once, the engine running on without it).

The protocols are ASCII words sent as lines of bytes, so the session reads bytes and decodes each
line as UTF-8 itself, whatever the locale: a line that is not UTF-8 (or is longer than
MAX_LINE_BYTES) is answered with one ``info string`` quoting it and the next line is read as
usual.  (Reading ``sys.stdin`` as text would raise on the first bad byte and end the engine,
taking the commands already buffered with it.)  Nothing a command does ends the session: an
unexpected error is said in one ``info string``, and a ``go`` is always answered."""
from __future__ import annotations

import io
import os
import re
import sys
import threading
from typing import TextIO

from tbdb.errors import TbdbError, one_line, quote

MAX_LINE_BYTES = 1 << 20  # a command line longer than this is refused, not held in memory


class EngineSession:
    """One protocol session.  ``handle(line)`` runs one command (False after ``quit``);
    subclasses name their ``game`` and map command words to methods in ``commands``."""

    game = ""
    commands: dict = {}

    def __init__(self, db: str | None = None, out: TextIO | None = None):
        self.out = out if out is not None else sys.stdout
        self.options = {"Database": db or ""}
        self._tb = None
        self._tb_error: str | None = None
        self._write_lock = threading.Lock()
        self.position = None
        self._held: str | None = None  # a bestmove kept back by go infinite / go ponder

    def emit(self, line: str) -> None:
        # what the output's encoding cannot hold (a quoted '²' under LANG=C) is escaped
        encoding = getattr(self.out, "encoding", None) or "utf-8"
        line = line.encode(encoding, "backslashreplace").decode(encoding)
        with self._write_lock:
            try:
                self.out.write(line + "\n")
                self.out.flush()
            except (BrokenPipeError, OSError, ValueError):
                pass  # the GUI has gone; quit (or the end of stdin) follows

    def say(self, text: str) -> None:
        """An ``info string``: one line, whatever the text."""
        self.emit("info string " + " ".join(str(text).split()))

    def handle(self, line: str) -> bool:
        text = line.strip()
        command = self.commands.get(text.split(None, 1)[0]) if text else None
        if isinstance(line, BadLine):
            # its command word is its leading letters ('go\xff' is a go)
            command = self.commands.get(re.match("[a-z]*", text).group())
            # said once; a command it still names runs on its text (a `go` is owed its
            # bestmove, a `position` is refused, `stop` and `quit` still stop)
            self.say(f"error: {line.problem}" + (f"; read as {quote(text)}" if command else
                                                   "; ignored"))
            if command is None:
                return True
        if not text:
            return True
        if command is None:
            self.say(f"error: unknown command {quote(text)}")
            return True
        try:
            return command(self, text) is not False
        except (TbdbError, ValueError) as exc:  # quoted, one line, and the engine carries on
            self.say(f"error: {one_line(exc)}")
        except Exception as exc:  # noqa: BLE001 - a bug or a damaged table: said, never fatal
            self.say(f"error: {text.split(None, 1)[0]} failed: {type(exc).__name__}: "
                     f"{one_line(exc)}")
        return True

    def run(self, stdin) -> int:
        """Commands from ``stdin`` (a binary stream, or a text one: a text stream with a
        ``buffer`` is read through it) until ``quit`` or the end of the input."""
        try:
            for line in read_lines(stdin):
                if not self.handle(line):
                    break
        finally:
            self.close()
        return 0

    def close(self) -> None:
        if self._tb is not None:
            self._tb.close()
            self._tb = None

    def _open(self):
        """The open tablebase, opened now if need be; None (said once) if it cannot be."""
        if self._tb is not None:
            return self._tb
        import tbdb
        from tbdb.db.connect import default_db_path
        path = self.options["Database"] or default_db_path()
        try:
            if not os.path.exists(path):
                raise FileNotFoundError(f"database {path!r} does not exist: set the option "
                                        f"Database, $TBDB_DB or --db to a file built with "
                                        f"'tbdb build {self.game}' (or a directory from tbdb "
                                        f"export)")
            self._tb = tbdb.open(path)
            self._tb_error = None
        except Exception as exc:  # noqa: BLE001 - any failure is said, and the engine runs on
            message = f"tbdb: cannot open the database: {one_line(exc)}"
            if message != self._tb_error:
                self.say(message)
                self._tb_error = message
            return None
        return self._tb


class BadLine(str):
    """A line of input that is not UTF-8 (its text: the line with each bad byte as ``\\xNN``)
    or too long (its text: empty), with ``problem`` saying what is wrong and ``shown`` the line
    as it may be printed."""
    problem = ""
    shown = ""


def read_lines(stdin):
    """The lines of ``stdin`` as text, each decoded as UTF-8 on its own; a bad one as a
    ``BadLine``.  (A text stream with a ``buffer`` is read through it; a StringIO or a list
    of lines is already text.)"""
    binary = getattr(stdin, "buffer", None)
    if binary is None and (isinstance(stdin, io.TextIOBase) or not hasattr(stdin, "readline")):
        yield from stdin
        return
    binary = binary if binary is not None else stdin
    while True:
        raw = binary.readline(MAX_LINE_BYTES + 1)
        if not raw:
            return
        if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
            head = raw[:60].decode("utf-8", "backslashreplace")
            while raw and not raw.endswith(b"\n"):  # the rest of the line, thrown away
                raw = binary.readline(MAX_LINE_BYTES)
            yield _bad("", f"a line longer than {MAX_LINE_BYTES:,} bytes ({head!r}...)",
                       head + "...")
            continue
        try:
            yield raw.decode("utf-8")
        except UnicodeDecodeError:
            raw = raw.rstrip(b"\r\n")
            # the bytes' repr in the message: exact, and safe to print in any encoding
            yield _bad(raw.decode("utf-8", "backslashreplace"),
                       f"line {quote(raw)} is not UTF-8", raw[:200].decode("utf-8",
                                                                         "backslashreplace"))


def _bad(text: str, problem: str, shown: str) -> BadLine:
    line = BadLine(text)
    line.problem, line.shown = problem, shown
    return line
