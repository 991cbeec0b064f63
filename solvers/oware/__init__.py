"""Oware (Abapa) kernels (Numba: arrays and scalars in, arrays out).

- ``index``: rank / unrank of seed compositions, book sizes and the solver's global index space
- ``moves``: sowing and captures, every move of a book, the solver's packed move table
- ``changes``: the book solver (up to 20 seeds), one plies-left step at a time, recomputing only
  the positions with a child that changed score (a package: its parts in its docstring)
- ``levels``: the solver it replaced (up to 18 seeds; the tests' reference), the run layout, and
  the verifier's step check
- ``runs``: (score, best move) of positions read from a book's runs

The Python driver (``Book``, ``solve_book``) is ``tbdb.games.oware.book``.
"""
