"""The Numba decorators every kernel uses: the project's flag sets, named for what they are.

A kernel is compiled with exactly the flags of its decorator; change a flag set here and every
kernel wearing it changes, so add a new name rather than edit one in place.

* ``cache=True`` everywhere: compiled code is written next to the source (``__pycache__`` or
  ``NUMBA_CACHE_DIR``) so the next process skips compiling.  Numba does not notice edits in
  other files a kernel calls into: give CI and benchmarks a fresh ``NUMBA_CACHE_DIR``.
* No ``fastmath``: the kernels are integer code whose results must not depend on the machine.

``prange`` is re-exported so a kernel module needs only this import from Numba's side.
"""
import os

from numba import njit, prange
from numba.core import config, errors, types
from numba.core.registry import CPUDispatcher

# ``TBDB_JIT_INLINE=0``: ``inline_kernel`` helpers compiled as plain kernels (see below), cached
# apart: Numba's cache key holds no compile flags, so a build sharing the cache would load them
INLINE = os.environ.get("TBDB_JIT_INLINE") != "0"
if not INLINE:
    _cache = os.environ.get("NUMBA_CACHE_DIR") or os.path.join(os.path.expanduser("~"),
                                                               ".cache", "tbdb-numba")
    if os.path.basename(_cache) != "no-inline":  # (a child process inherits the parent's)
        os.environ["NUMBA_CACHE_DIR"] = os.path.join(_cache, "no-inline")
        config.reload_config()

__all__ = ["kernel", "inline_kernel", "nogil_kernel", "parallel_kernel", "parallel_nogil_kernel",
           "prange"]


class _Dispatcher(CPUDispatcher):
    """Numba's dispatcher, but a call from another kernel compiles for the arguments' plain
    types: ``f(x, 0)`` and ``f(x, y)`` share one compiled ``f(int64, int64)`` instead of a
    second one for ``Literal[int](0)``.  The code is the same either way (a literal is typed
    int64 where it is used), and the compiles were not: literal copies were a large share of
    the suite's Numba cache (benchmarks/RESULTS.md).  A kernel that
    cannot compile without its literal still gets it, after the plain types failed to type."""

    def get_call_template(self, args, kws):
        plain = tuple(types.unliteral(a) for a in args)
        plain_kws = {k: types.unliteral(v) for k, v in kws.items()}
        if plain != tuple(args) or plain_kws != kws:
            try:
                return super().get_call_template(plain, plain_kws)
            except (errors.TypingError, errors.ForceLiteralArg):
                pass
        return super().get_call_template(args, kws)


def _njit(**flags):
    """A decorator compiling each function it gets with ``flags`` (a fresh ``njit`` per kernel,
    so no kernel shares an options dict with another)."""
    def decorate(func):
        dispatcher = njit(**flags)(func)
        dispatcher.__class__ = _Dispatcher  # the one method above; nothing else differs
        return dispatcher
    return decorate


#: A plain compiled kernel or helper (most of them).
kernel = _njit(cache=True)

#: A tiny helper (a bit test, a lookup in a constant table) called in hot loops: inlined at
#: Numba's IR level into every caller, so no call overhead and the caller's loop can be
#: optimised through it.  ``TBDB_JIT_INLINE=0`` in the environment compiles them as plain
#: kernels instead (LLVM still inlines what it likes): the same results, compiled much
#: faster and run slower (measured in benchmarks/RESULTS.md).  The test suite sets it
#: (tests/conftest.py), where compiling takes most of the time; builds leave it unset.
inline_kernel = _njit(cache=True, inline="always" if INLINE else "never")

#: A long-running kernel that releases the GIL: a deep perft or an Oware book step runs for
#: minutes.  The command line runs such work on a worker thread (``tbdb.command.in_worker``) so
#: the main thread can still handle Ctrl-C; Oware solves small books on Python threads side by
#: side.  Both only help if the kernel does not hold the GIL.
nogil_kernel = _njit(cache=True, nogil=True)

#: A kernel whose ``prange`` loops run on Numba's threads (``numba.set_num_threads``).
#: Iterations must be independent: each writes slots no other iteration writes.  Call it from
#: Python, not from another cached kernel: Numba 0.68 can write a cached caller's entry so that
#: a later process loading it segfaults (the Oware solver's loop did, when one compiled kernel
#: called its parallel step; its loop now runs in Python for the books that step in parallel).
parallel_kernel = _njit(cache=True, parallel=True)

#: ``parallel_kernel`` that also releases the GIL: a parallel perft (run by ``in_worker``), a
#: long parallel Oware step.
parallel_nogil_kernel = _njit(cache=True, parallel=True, nogil=True)
