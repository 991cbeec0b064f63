"""Oware (Abapa) change-list solver: a book solved one plies-left step at a time, recomputing
only the positions one of whose children changed score at the step before, on every core.
One module a part: ``layout`` (cells, shared constants, dirty flags), ``edges`` (moves and
parents), ``replay`` (the smaller books' changes), ``steps`` (one step), ``loop`` (the steps of
a book), ``shared`` (a book two threads share), ``runs`` (events into runs); every name is
importable from here.

Value with ``t`` plies left and the run layout of a solved book: ``levels`` (whose solver this
one replaces; it stays as the reference the tests compare against, run for run).

Differences from ``levels``, each for speed or for memory at 19-20 seeds:

* **Compact moves** (``move_table``): one uint32 per move, bits 28-31 the seeds captured ``f``
  and bits 0-27 the child's cell (books 0 .. 20 hold C(32, 12) = 225,792,840 < 2^28 cells, so
  ``MAX_SOLVE_N`` = 20; a capture takes at most 15 seeds: five houses of 3, six would be a
  grand slam).  A pseudo move's "child" is a constant cell.  Built from a small table of the
  opponent's side's part of each child's rank (``child_table``: a load and an add per move, not
  a sowing and a rank), on every core for big books.
* **Replay windows** (``replay_count``, ``_replay_window``): the smaller books' score changes
  are listed in step order (5 bytes each, a sequential read when replayed) for a window of
  steps at a time, as many as keep the list within a budget, each window by one pass over
  their runs: the whole list at once for small books, a bounded slice of it at 19-20 seeds.
* **Events in one array per group of chunks** (at most 64 groups; 3 bytes an event: uint16
  position in its chunk and move, int8 score), grown group by group, and
  turned into runs group by group (``fill_runs``), each group's events freed as soon as
  its runs are written: at most one copy of the book's runs is in memory, plus one group.
* **Per-level work** (``solve_serial``'s ``work``): positions evaluated at each step.
* **Prefetched steps**: a chunk's dirty positions are listed, then evaluated with their move
  rows prefetched ``AHEAD`` positions ahead (and the parents' offsets and lists when changes
  are applied or replayed): the rows of a dirty set scatter over the table.
* **Bit flags on one thread** (``solve_serial``, ``_flag``): a book solved on one thread keeps
  its dirty flags as bits, in the first-level cache at 9 seeds; the parallel steps of big books
  keep bytes, which several threads may set at once.

Cells (the solver's value array) and the constants the parts share: ``layout``.

The step (two phases over chunks: evaluate the dirty positions, then store the changed scores
and flag their parents), the dirty flags and the stopping rule are those of ``levels`` (read its
comment): a position is evaluated at step t only if one of its children changed score at step
t - 1.  (Two alternatives were slower, measured in benchmarks/RESULTS.md.  Keeping each
position's best key up to date from its children's changes, so that most flagged positions
need one read, evaluated fewer positions: its parent updates are read-modify-writes that two
threads must split by parent, where a dirty flag is a plain store any thread may make.
Flagging only the parents whose best key a change can move, from a per-position key kept by
the evaluations, evaluated exactly the positions that change: the key is one more random read
per parent move.)
"""
# every name the parts define, re-exported: importers use tbdb.solvers.oware.changes.<name>
from tbdb.solvers.oware.changes.layout import MAX_T, MAX_SOLVE_N, CELL_BITS, CELL_MASK, AHEAD, \
    cells
from tbdb.solvers.oware.changes.edges import WRAP, VARIANTS, child_table, move_table, move_rows, \
    move_rows_parallel, parent_counts, parent_lists, reverse_edges
from tbdb.solvers.oware.changes.replay import score_changes, replay_count
from tbdb.solvers.oware.changes.steps import step_serial, step_parallel
from tbdb.solvers.oware.changes.loop import S_T_LO, S_T_HI, S_EST, S_EVENTS, S_STABLE, \
    S_MOVES_STABLE, S_T_END, STATE_SIZE, core_state, event_room, window_due, replay_window, \
    before_step, after_step, solve_serial
from tbdb.solvers.oware.changes.shared import Y_JOIN, Y_JOINED_AT, Y_STOP, Y_DONE, Y_LEAVE, \
    Y_ARRIVE, Y_CLAIM, SYNC_SIZE, LEAVE_AFTER, shared_flags, solve_shared, help_shared
from tbdb.solvers.oware.changes.runs import run_starts, fill_runs, fill_runs_shared
