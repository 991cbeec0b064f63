"""The build driver: plan tables -> solve -> bulk-load -> checkpoint, resuming where it stopped;
and ``verify``, which re-derives every stored field.

Every table is written with its 'done' checkpoint in one transaction (on a second connection,
while the next table solves; that table is marked 'building' in the same transaction), so an
interrupted build (Ctrl-C, SIGTERM or kill -9) leaves complete tables and at most one
'building' row; running the same build again skips the done tables and rebuilds the rest.
Level-by-level tables are stored and checkpointed a level at a time: a rerun resumes at the
level it was on.
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass, field

from numba.core import event as numba_event

from tbdb import games
from tbdb.db.connect import default_db_path
from tbdb.db.store import Store
from tbdb.db.verify_rows import catalogue_problems
from tbdb.errors import (DamagedTableError, InvalidOptionError, MissingTableError,
                         MissingValuesFileError)
from tbdb.options import Option, resolve
from tbdb.progress import Progress
from tbdb.retrograde import budget, driver
from tbdb.retrograde.compact import resume_in
from tbdb.retrograde.memory import reuse_freed_memory
from tbdb.retrograde.spaces import DAMAGED_SAVE, RESUMED, RESUMED_CHILDREN
from tbdb.storage import shared_levels, storage_of
from tbdb.storage.build_cache import TableWriter, cache_bytes, dependencies, load_table, \
    settle, trim_cache  # noqa: F401  (load_table: tbdb.build's API since 0.1)
from tbdb.storage.solve import solve_table, verify_table

# Fault injection for the resume tests: a build run with this set to 1 kills itself (SIGKILL)
# right after marking its first table 'building', where a blind timed kill would have to land
# inside a table that takes milliseconds; set to "stage", at the first progress report of its
# first table's solve (levels a game stores as it solves them may be written by then), or,
# for a solve that reports none, right after it, before the table's write is committed
DIE_IN_FIRST_TABLE = "TBDB_TEST_DIE_IN_FIRST_TABLE"


def _die() -> None:
    import signal
    os.kill(os.getpid(), signal.SIGKILL)


def _die_in_first_table(i: int, when: str) -> None:
    """The fault hook: killed if table ``i`` is the build's first and ``DIE_IN_FIRST_TABLE``
    is ``when``.  ``stage`` is also tried after each solve, before its write is committed: a
    solve that reported no stage would have died there, and never did (a test then built the
    whole table for nothing before trying the next hook)."""
    if i == 0 and os.environ.get(DIE_IN_FIRST_TABLE) == when:
        _die()


MODE_OPTION = Option("mode", "retrograde mode: auto (the fastest that fits --memory), edges "
                             "(in memory, fastest for small tables), edge-free (about 11 bytes "
                             "per position) or compact (2-3 bytes per position while solving, "
                             "resumable inside a table)",
                     type=str, choices=("auto", "edges", "edge-free", "compact"),
                     default="auto")


@dataclass
class BuildSummary:
    game: str
    db: str
    tables: int
    built: list[str] = field(default_factory=list)
    skipped: int = 0
    rows: int = 0
    seconds: float = 0.0
    reused: int = 0  # positions reached that a shared level store already held


    def __str__(self) -> str:
        size = _bytes_at(self.db) / 1e6
        return (f"{self.game}: {self.tables} tables in {self.db!r} ({size:.1f} MB): "
                f"{len(self.built)} built ({self.rows:,} rows"
                + (f", {self.reused:,} reused" if self.reused else "")
                + f") in {self.seconds:.1f} s, "
                f"{self.skipped} already done")


def _bytes_at(path: str) -> int:
    """The size of a database file, or of every file under a directory of probe files."""
    if os.path.isdir(path):
        return sum(os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(path)
                   for f in files)
    return os.path.getsize(path) if os.path.exists(path) else 0


def plan(game: str, mode: str = "auto", rebuild=(), memory=None, on_workers: bool = False,
         **options):
    """(game, checked options, tables to build in order, tables to rebuild, memory budget in
    bytes or None): every check a build makes before it touches a database.  ``on_workers``:
    the budget is for a scheduler's workers, not this machine."""
    g = games.get(game)
    opts = resolve(f"{game} build", g.build_options, options, defaults=False)
    mode = MODE_OPTION.convert(mode)
    if mode != "auto" and mode not in g.modes:
        raise InvalidOptionError(f"{game} tables are not built in mode {mode!r}; "
                                 f"it builds with: {', '.join(g.modes)}")
    tables = g.plan(**opts)
    rebuild = [g.check_table(t) for t in rebuild]
    outside = [t for t in rebuild if t not in tables]
    if outside:
        raise InvalidOptionError(f"--rebuild {outside[0]!r}: that table is not part of this build "
                                 f"(its tables: {', '.join(tables[:8])}"
                                 f"{', ...' if len(tables) > 8 else ''})")
    limit = _budget(g, tables, memory, on_workers)
    return g, mode, tables, rebuild, limit


def _budget(g, tables, memory, on_workers: bool = False) -> int | None:
    """The build's memory budget in bytes (None: a game whose tables choose no mode); a table
    that even the leanest mode's output arrays cannot fit is refused here, before anything is
    written (each table is checked again, with its real size, before it solves).  A budget
    above this machine's RAM is refused unless it is for a scheduler's workers
    (``on_workers``), which may have more."""
    if not g.modes or g.modes == ("levels",) or not storage_of(g).fits_memory:
        if memory is not None:
            budget.parse_memory(memory)  # still a bad value is a bad option
        return None
    limit = budget.parse_memory(memory) if memory is not None else budget.default_memory()
    if memory is not None and not on_workers:
        budget.check_machine_holds(memory, limit)
    base = budget.rss()
    for t in tables:
        need = base + g.weight(t) * budget.LEANEST_BYTES + budget.BATCH_BUFFERS + \
            budget.WRITE_BYTES
        if need > limit:
            raise budget.MemoryBudgetError(
                f"{g.name} table {t!r} ({g.weight(t):,} slots) needs at least "
                f"{budget.text(need)} in any mode, more than --memory {budget.text(limit)}")
    return limit


def build(game: str, db: str | None = None, *, progress: bool | str = True,
          mode: str = "auto", rebuild=(), memory=None, probe_files: str | None = None,
          moves: bool = True, **options) -> BuildSummary:
    """Build the tables of ``game`` that ``options`` select into ``db`` (default: $TBDB_DB or
    ./tbdb.duckdb).  Options are the game's (``tbdb games`` lists them); ``rebuild`` names
    tables to build again even if done.  ``memory``: a budget ('8G'; default 80% of the RAM)
    that ``mode`` "auto" chooses each table's mode by; a table that fits no mode raises
    ``MemoryBudgetError`` before it is written.  Bad options raise before the database is
    touched.
    ``progress``: True a bar on stderr (lines on a log), "lines" one line per finished table,
    False silent.  ``probe_files``: a directory to build into instead of a database, each
    table coded into its probe file as it is solved (no rows: ``tbdb.probe_files.build_dir``);
    ``moves`` False: those files keep no best moves, which the solve then does not look for
    (``driver.without_best_moves``; a lookup derives them from one ply of probes)."""
    g, mode, tables, rebuild, limit = plan(game, mode, rebuild, memory, **options)
    check_no_moves(moves, probe_files)
    if probe_files is not None:
        from tbdb.probe_files.build_dir import ProbeBuild
        _check_probe_build(g, db)
        path = str(probe_files)
        opened = ProbeBuild(path, g.name, moves)
    else:
        path = str(db) if db is not None else default_db_path()
        opened = Store(path)
    reuse_freed_memory()
    start = time.perf_counter()
    with opened as store:
        store.plan(g.name, tables)
        states = store.states(g.name)
        todo = [t for t in tables if states.get(t) != "done" or t in rebuild]
        run = _Run(g, store, path, mode, rebuild, limit, moves, todo,
                   BuildSummary(g.name, path, len(tables), skipped=len(tables) - len(todo)))
        weight = _weights(g, tables)
        run.bar = Progress(sum(weight.values()), f"{g.name} build", mode=progress,
                           initial=sum(weight[t] for t in tables if t not in todo))
        if run.summary.skipped:
            run.bar.say(f"{g.name}: resuming: {run.summary.skipped} of {len(tables)} tables "
                        f"already done")
        run.writer = TableWriter(store)
        compiling = _CompileNotice(run.bar, g.name)
        try:
            compiling.install()
            for i, t in enumerate(todo):
                compiling.table = t
                data = run.table(i, t)
                run.bar.finished(weight[t], f"{t} ({time.perf_counter() - run.started:.1f} s"
                                            f"{_memory(data)})")
                # the writer and the cache hold what they still need: keep no other reference
                # to this table through the next one's solve (Oware's biggest books are gigabytes)
                data = None
            run.writer.wait(run.summary)
        finally:
            compiling.remove()
            run.writer.close()
            run.bar.close()
            _drop_empty(f"{path}.solving")
    run.summary.seconds = time.perf_counter() - start
    return run.summary


def _event_line(what: str, done: int, total: int) -> str | None:
    """The line a solve's event is said in (``tbdb.retrograde.spaces``: a resumed or damaged
    save), or None for a stage's share done."""
    if what == RESUMED:
        return f"resuming its solve at distance {done} (saved state)"
    if what.startswith(DAMAGED_SAVE):  # never resumed from
        return (f"its saved solve cannot be used ({what[len(DAMAGED_SAVE):]}); solving it "
                f"from the start")
    if what == RESUMED_CHILDREN:
        return f"resuming its children pass at slot {done:,} of {total:,} (saved state)"
    return None


@dataclass
class _Run:
    """One build's state between its tables: where it writes, what it keeps for the tables
    still to solve, what it has done."""
    g: object
    store: object
    path: str
    mode: str
    rebuild: tuple
    limit: int | None
    moves: bool
    todo: list
    summary: BuildSummary
    bar: Progress | None = None
    writer: object = None
    started: float = 0.0  # when the table being built started to solve
    cache: dict = field(default_factory=dict)  # solved tables later ones read
    needed: dict = field(default_factory=dict)  # how many tables still to build read each

    def __post_init__(self):
        self.kind = storage_of(self.g)
        for t in self.todo:
            for d in self.g.dependencies(t):
                self.needed[d] = self.needed.get(d, 0) + 1

    def stage(self, i: int, t: str):
        """The progress callback of table ``t`` (the ``i``-th to build)."""
        def stage(what, done, total):  # once a stage reports, it has compiled
            _die_in_first_table(i, "stage")
            line = _event_line(what, done, total)
            if line is not None:
                self.bar.say(f"{self.g.name}: {t}: {line}")
            else:
                self.bar.note(f"{t}: {what} {100 * done // max(total, 1)}%")
        return stage

    def table(self, i: int, t: str):
        """Solve and write table ``t``, the ``i``-th to build; its data."""
        g, store, summary, kind = self.g, self.store, self.summary, self.kind
        deps = dependencies(g, t, store, self.cache, solving=True)
        if i == 0 or kind.by_levels or not g.solve_beside_write(t) \
                or not store.write_beside_solve:
            self.writer.wait(summary)
            store.mark_building(g.name, t)  # later ones: with the previous commit
            _die_in_first_table(i, "1")
        self.bar.note(t)
        stage = self.stage(i, t)
        t0 = self.started = time.perf_counter()
        shared = kind.shared_table(g, t)
        if shared is not None:  # rows go to a store other builds share
            into = shared_levels.solve_into(g, store, t, shared, deps, t in self.rebuild)
            _die_in_first_table(i, "stage")
            data = into.data
            summary.rows += into.new_rows
            summary.reused += into.reused_rows
            store.write_table(g.name, t, data, time.perf_counter() - t0)
        elif kind.by_levels:  # each level stored and checkpointed as it is solved
            data = solve_table(g, t, deps, self.mode, progress=stage, store=store,
                               fresh=t in self.rebuild)
            _die_in_first_table(i, "stage")
            summary.rows += store.write_table(g.name, t, data, time.perf_counter() - t0)
        else:
            data = self.solve_in_memory(i, t, deps, stage)
            nxt = self.todo[i + 1] if i + 1 < len(self.todo) else None
            self.writer.write(summary, g.name, t, data, time.perf_counter() - t0, nxt)
        summary.built.append(t)
        self.keep(t, data, deps, i)
        return data

    def solve_in_memory(self, i: int, t: str, deps: dict, stage):
        """Solve an index table within the memory budget, resumable from its saves.  The
        previous table's write runs beside this solve, and the cache keeps tables for later
        ones, unless the memory they hold would let this table take a faster mode
        (``budget.choose``): then the write is waited for and the cache emptied (its tables
        are read again when needed)."""
        settling = budget.settling(lambda: settle(self.writer, self.summary, self.cache),
                                   lambda: self.writer.holding() + cache_bytes(self.cache))
        with budget.within(self.limit), settling, \
                resume_in(saves_of(self.path, self.g.name, t), fresh=t in self.rebuild), \
                budget.PeakMeter() as meter, driver.without_best_moves(not self.moves):
            data = solve_table(self.g, t, deps, self.mode, progress=stage)
        _die_in_first_table(i, "stage")
        data.estimate_bytes = getattr(data.values, "estimate", None)
        data.peak_bytes = meter.peak
        return data

    def keep(self, t: str, data, deps: dict, i: int) -> None:
        """Keep ``t`` for the tables still to build that read it; drop what none reads."""
        g = self.g
        if self.needed.get(t):
            self.cache[t] = g.dependency_form(t, g.from_stored(t, {"params": data.params},
                                                               data.values))
        for d in deps:
            self.needed[d] -= 1
            if self.needed[d] == 0:
                self.cache.pop(d, None)
        trim_cache(g, self.cache, self.todo[i + 1:], self.limit)


class _CompileNotice(numba_event.Listener):
    """Says once, when Numba really compiles a kernel during a build, that it does (the first
    table of a cold cache waits for it: seconds even for tic-tac-toe, more for larger games).
    Numba broadcasts "numba:compile" only on a miss of its cache: a kernel loaded from the
    cache says nothing, so a build with a warm cache is not told it compiles."""

    def __init__(self, bar: Progress, game: str):
        self.bar, self.game, self.table, self.said = bar, game, None, False

    def install(self) -> None:
        numba_event.register("numba:compile", self)

    def remove(self) -> None:
        try:
            numba_event.unregister("numba:compile", self)
        except ValueError:  # never installed
            pass

    def on_start(self, ev) -> None:
        if not self.said:
            self.said = True
            self.bar.say(f"{self.game}: {self.table or 'preparing'}: compiling the kernels "
                         f"Numba's cache does not hold yet (it keeps them for later builds)")

    def on_end(self, ev) -> None:
        pass


def check_no_moves(moves: bool, probe_files: str | None) -> None:
    """Refuse a build without best moves anywhere but into probe files."""
    if not moves and not probe_files:
        raise InvalidOptionError("--no-moves builds into probe files: give --probe-files DIR "
                                 "(a database keeps every best move)")


def _check_probe_build(g, db) -> None:
    """Refuse a build into probe files that cannot be one, before anything is written."""
    kind = storage_of(g)
    if db is not None:
        raise InvalidOptionError(f"give --db {db!r} or --probe-files, not both (a build into "
                                 f"probe files writes no database)")
    if not kind.builds_probe_files:
        raise InvalidOptionError(f"{g.name} tables are stored as {kind.name!r}: only index "
                                 f"tables build straight into probe files (build into a "
                                 f"database, then: tbdb export)")


def saves_of(db: str, game: str, table: str) -> str:
    """Where a compact solve of ``table`` saves its state while it runs (beside the database;
    removed when the table is solved)."""
    return os.path.join(f"{db}.solving", game, table)


def _drop_empty(top: str) -> None:
    """Remove ``top`` and the directories under it that hold no saved state any more."""
    for here, _, _ in sorted(os.walk(top), key=lambda w: -len(w[0])):
        try:
            os.rmdir(here)
        except OSError:
            pass  # a table's save is still in it


def _memory(data) -> str:
    """', compact, estimate 1.20 GiB, peak 1.05 GiB' for the build log ('' if not measured)."""
    if getattr(data, "peak_bytes", None) is None:
        return ""
    est = f", estimate {budget.text(data.estimate_bytes)}" if data.estimate_bytes else ""
    return f", {data.mode}{est}, peak {budget.text(data.peak_bytes)}"


def _weights(g, tables) -> dict[str, int]:
    """Each table's share of a progress bar: its positions, roughly (at least 1)."""
    return {t: max(int(g.weight(t)), 1) for t in tables}


# --------------------------------------------------------------------------- verify

@dataclass
class VerifyReport:
    """``problems``: {"game:table": (count, examples)} of stored fields that disagree with the
    rules; ``damage``: {"game:table": [what is wrong, ...]} of tables whose rows disagree with
    the catalogue or cannot be loaded (these, and the tables that read them, are not checked
    against the rules); ``unchecked``: tables that are not completely built ({"game:table":
    state})."""
    problems: dict[str, tuple[int, list[str]]] = field(default_factory=dict)
    damage: dict[str, list[str]] = field(default_factory=dict)
    unchecked: dict[str, str] = field(default_factory=dict)
    checked: int = 0

    @property
    def ok(self) -> bool:
        return not self.problems and not self.damage and not self.unchecked


def verify(db: str | None = None, game: str | None = None, *, progress: bool | str = True,
           tables=None) -> VerifyReport:
    """Re-derive every stored field of every built table (of ``game``, or of every game):
    values from one ply of moves and the stored values of the children, best moves, which
    slots hold positions and their multiplicities, and the statistics and catalogue counts
    the views read.  Tables not completely built are reported as unchecked."""
    path = str(db) if db is not None else default_db_path()
    reuse_freed_memory()
    report = VerifyReport()
    names = [games.get(game).name] if game else games.names()
    with Store(path, read_only=True) as store:
        for name in names:
            g = games.get(name)
            states = store.states(name)
            for t, state in sorted(states.items()):
                if state != "done":
                    report.unchecked[f"{name}:{t}"] = state
            # rows against the catalogue first: a table whose counts disagree is not loaded
            # (a duplicated or stray row would be silently overwritten, or raise IndexError)
            counted = catalogue_problems(store, name)
            for t, problems in counted.items():
                if tables is None or t in tables:
                    report.damage[f"{name}:{t}"] = problems
            done = [t for t, s in states.items() if s == "done" and t not in counted
                    and (tables is None or t in tables)]
            order = sorted(done, key=lambda t: (len(g.dependencies(t)), t))
            weight = _weights(g, order)
            bar = Progress(sum(weight.values()), f"verify {name}",
                           mode=progress)
            cache: dict[str, object] = {}
            try:
                for t in order:
                    try:
                        # the cache holds whole tables here (``dependencies`` not solving)
                        values = cache[t] if t in cache else load_table(g, store, t)
                        deps = dependencies(g, t, store, cache)
                    except (DamagedTableError, MissingTableError, MissingValuesFileError) as exc:
                        # it, or a table it reads, cannot be loaded: say why, check the rest
                        report.damage[f"{name}:{t}"] = [f"not checked: {exc}"]
                        bar.finished(weight[t], t)
                        continue
                    examples, bad = verify_table(g, t, values, deps)
                    examples2, bad2 = _verify_catalogue(g, store, t, values)
                    if bad or bad2:
                        report.problems[f"{name}:{t}"] = (bad + bad2, examples + examples2)
                    report.checked += 1
                    bar.finished(weight[t], t)
            finally:
                bar.close()
    return report


def _verify_catalogue(g, store: Store, table: str, values) -> tuple[list[str], int]:
    """The statistics and catalogue counts stored for ``table`` against those recomputed from
    its stored values."""
    data = g.describe(table, values)
    row = store.table(g.name, table)
    stored = sorted(store.query(
        "SELECT label, pieces, side_to_move, positions, wins, draws, losses, illegal, "
        "longest_win, longest_loss FROM tb_stats WHERE table_id = ?", [row["table_id"]]))
    expected = sorted((s.label, s.pieces, s.side_to_move, s.positions, s.wins, s.draws,
                       s.losses, s.illegal, s.longest_win, s.longest_loss) for s in data.stats)
    out = []
    if stored != expected:
        diff = [f"{e[0]} {e[2]}" for e in expected if e not in stored] or ["rows"]
        out.append(f"statistics (draw_analysis) differ from the values for {', '.join(diff)}")
    (cat,) = store.query("SELECT raw_positions, positions_answered, fixed_positions, illegal "
                         "FROM tb_tables WHERE table_id = ?", [row["table_id"]])
    want = (data.raw_positions, data.positions_answered, data.fixed_positions, data.illegal)
    if tuple(cat) != want:
        out.append(f"catalogue counts (symmetry_stats) {tuple(cat)} differ from the values "
                   f"{want}")
    return out, len(out)
