"""How a command stops on Ctrl-C and SIGTERM (``tbdb/cli/__init__.py`` installed an exit at
once before the heavy imports; the command then keeps it or replaces it).  A command that only
reads leaves at once; one that writes gets a KeyboardInterrupt, so its transaction rolls back;
a command's module may choose for itself with an ``on_signals(run)`` of its own."""
from __future__ import annotations

import signal


def leave_at_once(command: str, run, worker: bool = True):
    """Exit at once, saying '<tbdb command>: interrupted'.  With ``worker``, ``run`` goes to a
    worker thread, so the main thread handles a signal even while a Numba kernel runs."""
    from tbdb.process import exit_on_signals, in_worker
    exit_on_signals(f"tbdb {command}")
    if worker:
        return lambda args: in_worker(run, args)
    return run


def by_interrupt(run):
    """Ctrl-C raises a KeyboardInterrupt in ``run`` (on the main thread); SIGTERM ends the
    process as it would any other."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    return run
