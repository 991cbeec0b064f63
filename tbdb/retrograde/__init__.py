"""The retrograde driver: solves one game's table with the kernels of ``tbdb.solvers.retrograde``.

``driver`` plans a table's solve and runs the mode the memory budget allows (levels, index,
by-levels); ``compact`` is the mode of one packed state word a slot, resumable per pass;
``budget`` reads ``--memory`` and estimates each mode's peak; ``shared_levels`` is the key
table several builds share; ``memory`` asks the C allocator to give freed memory back.
It knows the games and the solvers, never the database or the probe files.
"""
