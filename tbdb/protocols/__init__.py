"""The engine protocols: tbdb's tables behind UCI (chess) and USI (Shogi).

``session`` is what both engines share (reading lines, options, the tablebase they answer
from); ``uci`` and ``usi`` speak the protocols; ``usi_fallback`` hands positions outside the
tables to another engine, ``usi_tsume`` searches check-only mates.  Not to be confused with
the retrograde driver (``tbdb.retrograde``), which builds the tables.
"""
