"""A build's memory budget: what ``--memory`` reads, what each retrograde mode is expected to
take, and the peak a table actually took.

``auto`` picks, per table, the fastest mode (edges, then edge-free, then compact) whose
estimated peak fits the budget beside what the process already holds (the tables a build keeps
for the tables that read them, the previous table still being written); a table that fits no
mode is refused before anything of it is written.  The estimates are per slot, from the arrays
each mode keeps (see ``tbdb.retrograde.driver`` and ``tbdb.retrograde.compact``), plus the batch
buffers and DuckDB's write buffers; ``benchmarks/memory_modes.py`` measures them.
"""
from __future__ import annotations

import contextlib
import contextvars
import os
import re
import threading

from tbdb.errors import InvalidOptionError, TbdbError, quote
from tbdb.retrograde.memory import rss  # noqa: F401  (budget.rss: what a build measures)

# DuckDB's write buffers (tbdb.db.connect.WRITE_MEMORY_LIMIT) and the Arrow batches of a write
WRITE_BYTES = 640 << 20
BATCH_BUFFERS = 3 * (96 << 20)  # children/parents batches and their kernels' scratch
# compact's output where a game reads the values whole: best moves int16 and multiplicities int8
# where they fit (CDC move codes do; a game whose codes do not takes 2 bytes a slot more) and
# the state word they were unpacked from
COMPACT_OUTPUT_BYTES = 7
ORDER = ("edges", "edge-free", "compact")  # fastest first
# the least any mode takes, bytes a slot: compact's state and counter, one byte more once its
# state widens (a build refuses a table below this before it starts; each table's own
# estimate is checked again before it solves)
LEANEST_BYTES = 3
_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


class MemoryBudgetError(TbdbError, ValueError):
    """A table that fits the memory budget in no mode it may be built in."""


def parse_memory(text) -> int:
    """Bytes from '8G', '512M', '1.5g', '2000000000' (binary units; a trailing 'B' or 'iB'
    allowed); ``InvalidOptionError`` quoting anything else."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kmgtKMGT]?)(?:i?[bB])?\s*", str(text))
    if m is None or float(m.group(1)) <= 0:
        raise InvalidOptionError(f"--memory {quote(text)}: expected a size such as 8G, 512M or "
                                 f"a number of bytes")
    return int(float(m.group(1)) * _UNITS[m.group(2).lower()])


def check_machine_holds(memory, limit: int) -> None:
    """``InvalidOptionError`` for a ``--memory`` budget above this machine's RAM: "auto" would
    choose modes by memory the machine does not have, and the kernel's OOM killer end the
    solve, again on every resume (a budget on a scheduler's workers is theirs, not checked)."""
    ram = machine_memory()
    if ram and limit > ram:
        raise InvalidOptionError(f"--memory {quote(memory)} is {text(limit)}, more than this "
                                 f"machine's {text(ram)} of RAM")


def machine_memory() -> int:
    """Physical memory in bytes (0 if unknown)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 0


def default_memory() -> int:
    """Most of the machine's RAM: 80% (the rest for the system and DuckDB's own threads)."""
    return int(0.8 * machine_memory()) or (8 << 30)


def text(n: int) -> str:
    """A byte count for a person: '2.41 GiB', '310 MiB'."""
    if n >= 1 << 40:
        return f"{n / (1 << 40):.2f} TiB"
    if n >= 1 << 30:
        return f"{n / (1 << 30):.2f} GiB"
    return f"{n / (1 << 20):.0f} MiB" if n >= 1 << 20 else f"{n:,} bytes"  # not "0 MiB"


def estimate(space, mode: str) -> int:
    """Bytes ``mode`` is expected to add at its peak, solve and write of ``space``'s table."""
    from tbdb.retrograde.compact import bytes_per_slot
    size = space.size
    extra = 0
    if mode == "edges":
        # 12 bytes per move (target, code, reverse edge; about 12 moves a position) and the
        # per-slot arrays of the solve and the output
        per_slot = 30 + min(space.max_children, 12) * 12
    elif mode == "edge-free":
        from tbdb.solvers.retrograde import state_dtype
        # a record per slot (the output and the counter) and the multiplicities, all solve
        # long, and the levels' queues: at most one entry (int32 below 2^31 slots) per slot
        # won or lost and not yet backed up; they are gone when the records are unpacked
        per_slot = state_dtype(space.max_children).itemsize + 2 + (4 if size < 1 << 31 else 8)
        extra = size // 8  # and a bit a slot, the levels' settled positions (``drop_settled``)
    else:
        # the state and counter while solving (a widened state: one byte more); then the
        # output: whole narrow arrays where the game reads them whole, else the state and the
        # multiplicities while the values stream to the store (``compact_output_bytes``)
        output = getattr(space, "compact_output_bytes", COMPACT_OUTPUT_BYTES)
        per_slot = max(bytes_per_slot(space) + 1, output)
    return size * per_slot + extra + BATCH_BUFFERS + WRITE_BYTES


_budget: contextvars.ContextVar[int | None] = contextvars.ContextVar("tbdb_budget", default=None)


@contextlib.contextmanager
def within(budget: int | None):
    """Solves in this block choose their mode against ``budget`` bytes (None: no budget)."""
    token = _budget.set(budget)
    try:
        yield
    finally:
        _budget.reset(token)


def current() -> int | None:
    return _budget.get()


# what frees the memory a build holds beside a solve (the previous table, still being written)
_settle: contextvars.ContextVar = contextvars.ContextVar("tbdb_settle", default=None)


@contextlib.contextmanager
def settling(settle, held):
    """Solves in this block call ``settle()`` (once) when the ``held()`` bytes it frees would
    let them take a faster mode than they can beside it (or any mode rather than be refused);
    ``rss`` is then measured again."""
    token = _settle.set((settle, held))
    try:
        yield
    finally:
        _settle.reset(token)


def choose(space, mode: str, modes=ORDER, name: str | None = None) -> tuple[str, int]:
    """(mode, estimated peak of the process) for ``space``: ``mode`` itself, or for "auto" the
    fastest of ``modes`` (in their order, fastest first) that fits the budget;
    ``MemoryBudgetError`` if the one asked for, or every one, would not fit."""
    budget = current()
    base = rss()
    # fastest first: the order ``modes`` gives (a space may put its own: ``fastest_modes``)
    candidates = [m for m in modes if m in ORDER] if mode == "auto" else [mode]
    if "edges" in candidates and space.size >= 1 << 31:
        candidates.remove("edges")  # int32 slots in the edge list
    if budget is None:
        # no budget: the fastest, edges only below 2 GB of estimated edges, else edge-free
        if mode != "auto":
            return mode, base + estimate(space, mode)
        pick = next((m for m in candidates if m != "compact" and (
            m != "edges" or estimate(space, "edges") <= 2 << 30)), "edge-free")
        return pick, base + estimate(space, pick)
    fits = [m for m in candidates if base + estimate(space, m) <= budget]
    waiting = _settle.get()
    if waiting is not None:
        settle, held = waiting
        freed = base - held()
        if [m for m in candidates if freed + estimate(space, m) <= budget][:1] != fits[:1]:
            settle()  # waiting for the previous table's write beats a slower mode
            _settle.set(None)
            base = rss()
            fits = [m for m in candidates if base + estimate(space, m) <= budget]
    if fits:
        return fits[0], base + estimate(space, fits[0])
    lean = min(candidates, key=lambda m: estimate(space, m))
    need = base + estimate(space, lean)
    what = "this table" if name is None else f"table {quote(name)}"
    raise MemoryBudgetError(f"{what} ({space.size:,} slots) needs about {text(need)} in mode "
                            f"{lean} ({text(base)} of it already in use), more than --memory "
                            f"{text(budget)}")


class PeakMeter:
    """The largest resident memory seen while the block runs (sampled every ``every`` s by a
    thread, and at the start and end), in ``peak``."""

    def __init__(self, every: float = 0.05):
        self.every = every
        self.peak = 0
        self._stop = threading.Event()

    def __enter__(self) -> PeakMeter:
        self.peak = rss()
        self._thread = threading.Thread(target=self._run, name="tbdb-peak", daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            self.peak = max(self.peak, rss())

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, rss())
