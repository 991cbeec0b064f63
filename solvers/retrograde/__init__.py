"""Generic retrograde kernels for win/draw/loss games: arrays and scalars in, arrays out.

Nothing here knows a board.  A game describes a table through batch methods (``children``,
``parents``, ``expand``; the contract is ``docs/kernel-contract.md``) and the Python driver
``tbdb.retrograde.driver`` feeds their output to these kernels chunk by chunk.

    values.py     value codes (WIN, DRAW, LOSS, ILLEGAL, NONE), the child-value reduction,
                  the best-move rule, the tally of a solved table
    rows.py       per-row helpers: sorted without repeats, parents deduplicated
    checks.py     best moves and the verifier's check over ``children`` batches
    edges.py      mode "edges": the edge list in memory, degree counting by distance
    edge_free.py  mode "edge-free": counters only, parents regenerated on each pass
    keys.py       the binary search in sorted exact keys
    levels.py     level by level (key tables, no cycles)
    exits.py      other tables' values kept only at the slots a table's moves reach (ranked
                  bits; for a game whose tables read children that outweigh them)

Every mode reduces children with ``values.add_child``/``reduced_value`` (or, counting degrees,
reaches the same values) and picks best moves with ``values.realises``.
"""
from tbdb.solvers.retrograde.checks import check_rows, pick_best
from tbdb.solvers.retrograde.edge_free import (drop_settled, ef_apply, ef_census, ef_finish,
                                               ef_init, ef_init_summaries, ef_live,
                                               ef_resolved, ef_unpack, group_by, settle,
                                               state_dtype)
from tbdb.solvers.retrograde.edges import best_of_rows, pack_rows, reverse_edges, solve_graph
from tbdb.solvers.retrograde.keys import find_key, find_keys
from tbdb.solvers.retrograde.levels import level_values
from tbdb.solvers.retrograde.rows import dedupe_rows, drop_repeated_parents, sorted_unique
from tbdb.solvers.retrograde.values import (DRAW, EXT_DRAW, ILLEGAL, LOSS, NO_EXT, NO_MOVE,
                                            NONE, UNKNOWN, WIN, tally)

__all__ = ["WIN", "DRAW", "LOSS", "ILLEGAL", "NONE", "UNKNOWN", "NO_EXT", "EXT_DRAW", "NO_MOVE",
           "tally", "sorted_unique", "drop_repeated_parents", "dedupe_rows", "pick_best",
           "check_rows", "pack_rows", "reverse_edges", "solve_graph", "best_of_rows", "ef_census",
           "ef_init", "ef_init_summaries", "ef_resolved", "group_by", "ef_live", "settle",
           "drop_settled", "ef_apply", "ef_finish", "ef_unpack", "state_dtype",
           "find_key", "find_keys",
           "level_values"]
