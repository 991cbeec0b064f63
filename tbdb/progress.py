"""A small progress bar on stderr (redrawn in place on a terminal, sparse lines otherwise)."""
from __future__ import annotations

import sys
import time


class Progress:
    def __init__(self, total: int, label: str, *, enabled: bool = True, initial: int = 0,
                 stream=None):
        self.total = max(total, 1)
        self.done = initial
        self.label = label
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.tty = enabled and self.stream.isatty()
        self.start = time.perf_counter()
        self.last_line = -1.0

    def update(self, step: int = 1, note: str = "") -> None:
        self.done += step
        if not self.enabled:
            return
        elapsed = time.perf_counter() - self.start
        width = 30
        filled = int(width * self.done / self.total)
        line = (f"{self.label} [{'#' * filled}{'.' * (width - filled)}] "
                f"{self.done}/{self.total} {elapsed:6.1f}s {note}")
        if self.tty:
            self.stream.write("\r" + line[:120].ljust(120))
            self.stream.flush()
        elif elapsed - self.last_line >= 10 or self.done >= self.total:
            # logs and CI: a line every 10 seconds at most
            self.stream.write(line + "\n")
            self.stream.flush()
            self.last_line = elapsed

    def close(self) -> None:
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()
