"""Progress of builds and checks on stderr, weighted by positions.

Three forms: a tqdm bar with rate and ETA on a terminal; on a log (not a terminal) a line at most
every 10 seconds; with ``--no-progress`` one line per finished table ("lines"), so a long build's
log still shows life.  From Python, ``progress=False`` is silent.
"""
from __future__ import annotations

import os
import sys
import time


def _count(n: float) -> str:
    for unit, size in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if n >= size:
            return f"{n / size:.1f}{unit}"
    return f"{n:.0f}"


class Progress:
    """``total`` units of work (positions), ``initial`` of them already done (a resumed build).

    ``mode``: True (a bar, or sparse lines when stderr is not a terminal), "lines" (one line per
    ``finished`` item), or False (silent)."""

    def __init__(self, total: int, label: str, *, mode: bool | str = True, initial: int = 0,
                 unit: str = "positions", stream=None):
        self.total = max(int(total), 1)
        self.done = int(initial)
        self.label = label
        self.unit = unit
        self.stream = stream or sys.stderr
        self.mode = mode
        self.start = time.perf_counter()
        self.last_line = -10.0
        self.bar = None
        if mode is True and self.stream.isatty():
            from tqdm import tqdm
            try:
                width = os.get_terminal_size(self.stream.fileno()).columns
            except (OSError, ValueError, AttributeError):
                width = 0
            self.bar = tqdm(total=self.total, initial=self.done, desc=label, unit=" pos",
                            unit_scale=True, file=self.stream, dynamic_ncols=width > 0,
                            # a terminal of unknown size (0 x 0) would show nothing at all
                            ncols=None if width > 0 else 100, nrows=None if width > 0 else 24,
                            smoothing=0.05, bar_format="{desc}: {percentage:3.0f}%|{bar}| "
                            "{n_fmt}/{total_fmt}{unit} [{elapsed}<{remaining}, "
                            "{rate_fmt}]{postfix}")

    def say(self, text: str) -> None:
        """A message of its own (resuming, compiling), in every mode but silent."""
        if self.mode is False:
            return
        if self.bar is not None:
            self.bar.write(text, file=self.stream)
        else:
            self.stream.write(text + "\n")
            self.stream.flush()

    def note(self, text: str) -> None:
        """What is being done now (the table and its stage)."""
        if self.bar is not None:
            self.bar.set_postfix_str(text, refresh=True)
        elif self.mode is True:
            self._line(text)

    def finished(self, step: int, what: str) -> None:
        """``step`` units done by finishing ``what``."""
        self.done += int(step)
        if self.bar is not None:
            self.bar.update(int(step))
            self.bar.set_postfix_str(what, refresh=False)
        elif self.mode == "lines":
            self.stream.write(f"{self.label}: {what} done ({self._status()})\n")
            self.stream.flush()
        elif self.mode is True:
            self._line(what, force=self.done >= self.total)

    def _status(self) -> str:
        elapsed = time.perf_counter() - self.start
        share = min(self.done / self.total, 1.0)
        return (f"{_count(self.done)}/{_count(self.total)} {self.unit}, {100 * share:.0f}%, "
                f"{elapsed:.1f} s")

    def _line(self, note: str, force: bool = False) -> None:
        elapsed = time.perf_counter() - self.start
        if force or elapsed - self.last_line >= 10:
            self.stream.write(f"{self.label}: {self._status()} {note}\n")
            self.stream.flush()
            self.last_line = elapsed

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
