"""What the UCI (chess, ``tbdb.uci``) and USI (Shogi, ``tbdb.usi``) engines share: a session
that runs one command a line, says what it has to say a line at a time, flushed, and opens its
tablebase on first use (a failure said once, the engine running on without it)."""
from __future__ import annotations

import os
import sys
import threading
from typing import TextIO

from tbdb.errors import TbdbError, one_line, quote


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
        with self._write_lock:
            try:
                self.out.write(line + "\n")
                self.out.flush()
            except (BrokenPipeError, ValueError):
                pass  # the GUI has gone; quit (or the end of stdin) follows

    def say(self, text: str) -> None:
        """An ``info string``: one line, whatever the text."""
        self.emit("info string " + " ".join(str(text).split()))

    def handle(self, line: str) -> bool:
        text = line.strip()
        if not text:
            return True
        command = self.commands.get(text.split(None, 1)[0])
        if command is None:
            self.say(f"error: unknown command {quote(text)}")
            return True
        try:
            return command(self, text) is not False
        except (TbdbError, ValueError) as exc:  # quoted, one line, and the engine carries on
            self.say(f"error: {exc}")
            return True

    def run(self, stdin: TextIO) -> int:
        try:
            for line in stdin:
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
        from tbdb.database import default_db_path
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
