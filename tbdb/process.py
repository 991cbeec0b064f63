"""How a tbdb process stops on Ctrl-C and SIGTERM, and the version it reports.

The command line (``tbdb.cli``) and the engines (``tbdb.protocols``) start with these.

Nothing heavy is imported here: the handlers are in place before NumPy, Numba and DuckDB load
(a noticeable wait), so an interrupt at any moment ends the command with one line and exit
status 130 (143 for SIGTERM), never a ``KeyboardInterrupt`` traceback.  Commands that only read
leave at once (``os._exit``), as ``kill -9`` would: they have nothing to undo, and a
``KeyboardInterrupt`` raised inside a Numba or DuckDB call surfaces as some other error
(``SystemError``, ``RuntimeError``).
"""
from __future__ import annotations

import os
import signal
import threading

STATUS = {signal.SIGINT: 130, signal.SIGTERM: 143}  # 128 + the signal, as a shell reports it


def exit_on_signals(what: str) -> None:
    """On SIGINT or SIGTERM, write '<what>: interrupted' to stderr and leave at once."""
    def leave(signum, frame):
        # os.write: no Python buffer (a worker thread may hold stderr's lock)
        os.write(2, f"\n{what}: interrupted\n".encode())
        os._exit(STATUS[signum])

    for sig in STATUS:
        signal.signal(sig, leave)


def in_worker(fn, *args, **kwargs):
    """``fn(*args, **kwargs)`` on a worker thread while this (the main) thread waits.

    Python runs signal handlers only in the main thread, between bytecodes: while the main
    thread itself runs a Numba kernel (a deep perft: minutes) an interrupt waits for the kernel.
    Waiting here in short joins instead, the handler runs within a fraction of a second, provided
    the kernel released the GIL (``nogil=True``)."""
    box: dict = {}

    def work():
        try:
            box["result"] = fn(*args, **kwargs)
        except BaseException as exc:  # re-raised in the main thread, where main() handles it
            box["error"] = exc

    worker = threading.Thread(target=work, name="tbdb-command", daemon=True)
    worker.start()
    while worker.is_alive():
        worker.join(0.1)  # a timeout: a signal delivered to the worker still gets handled
    if "error" in box:
        raise box["error"]
    return box["result"]


def version() -> str:
    """The installed tbdb's version (``tbdb --version``, the engines' ``id name``)."""
    from importlib.metadata import PackageNotFoundError, version as of
    try:
        return of("tbdb")
    except PackageNotFoundError:
        return "unknown"
