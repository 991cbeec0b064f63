"""The retrograde driver: solves one game's table with the kernels of ``tbdb.solvers.retrograde``.

``driver`` plans a table's solve and runs the mode the memory budget allows (levels, index,
by-levels); ``compact`` is the mode of one packed state word a slot, resumable per pass;
``levels`` solves key tables level by level; ``spaces`` holds the contracts and values the
modes share; ``budget`` reads ``--memory`` and estimates each mode's peak; ``memory`` asks the
C allocator to give freed memory back.  It knows the solvers and the games' table contracts,
never the database, the storage kinds or the probe files.
"""
