"""``tbdb verify --db DIR`` past the checksums: what a lookup takes on trust from a probe file.

A file crafted (or written by a faulty tool) with valid checksums can hold a best move no move
of its position has, a move that is not legal there, or a result code that is no outcome of a
real position (ILLEGAL on a line); lookups then met IndexErrors, KeyErrors and StopIterations
(issue 61).  So every index table with best moves is checked as ``tbdb verify`` checks a
database (``driver.check_chunks``): each slot's kind against the game's census, each value
re-derived from one ply of moves and the stored values of its children, each best move a legal
move realising it, in the same Numba kernels (``check_rows``), a chunk of slots at a time.
A probe file keeps no multiplicities, so the census's are not compared (``check_chunks``
compares them, which is why this loop is its own).  Key tables: every stored result an
outcome.  Score-run tables (Oware) are checked by their checksums alone."""
from __future__ import annotations

import numpy as np

from tbdb.probe_files.container import ProbeFile
from tbdb.probe_files.header import ProbeFileError

_WHAT = {1: "value", 2: "best move", 3: "result code"}


class _Values:
    """An index table's values decoded whole from its probe file, as ``IndexValues`` holds
    them (what ``game.space`` reads of a dependency, and what the check reads of the table)."""

    def __init__(self, f: ProbeFile, row: dict, store):
        if not f.direct:  # span by span into the narrow arrays (no int64 copy of a stream)
            from tbdb.probe_files.build_dir import FileValues
            v = FileValues(f)
            self.result, self.distance = v.result, v.distance
            self.best = v.best if f.moves else None
            return
        from tbdb.probe_files.coder import unpack_values
        from tbdb.storage import storage_of
        t = storage_of(f.storage).probe_file.table(storage_of(row), store, row, f)
        self.result, self.distance = unpack_values(t.values.all())
        self.best = t.moves.all().astype(np.int32) if t.moves is not None else None

    @property
    def size(self) -> int:
        return len(self.result)


def value_problems(d, entries: dict, checked: set) -> list[str]:
    """Problems of the stored values of the tables ``checked`` ((game, table) keys of
    ``entries``, ProbeDir ``d``'s manifest entries whose files passed every file check), each
    "<path>: ..."; a table whose dependencies are not all in the directory has its result
    codes checked, not its values and moves (their children's values are not there)."""
    from tbdb import games
    problems: list[str] = []
    by_game: dict[str, list[str]] = {}
    for g, t in checked:
        by_game.setdefault(g, []).append(t)
    for name, tables in sorted(by_game.items()):
        try:
            g = games.get(name)
        except KeyError:  # a game this tbdb does not know: nothing to check values against
            continue
        problems += _game_problems(d, g, entries, sorted(tables), checked)
    return problems


def _game_problems(d, g, entries: dict, tables: list[str], checked: set) -> list[str]:
    from tbdb.storage import storage_of
    order = sorted(tables, key=lambda t: (len(g.dependencies(t)), t))
    needed: dict[str, int] = {}  # how many tables still to check read each table
    for t in order:
        for dep in g.dependencies(t):
            needed[dep] = needed.get(dep, 0) + 1
    cache: dict[str, _Values] = {}
    problems = []

    def load(t: str) -> _Values:
        if t not in cache:
            row = d.table(g.name, t)
            cache[t] = _Values(d.open_file(g.name, t), row, d)
        return cache[t]

    for t in order:
        e = entries[(g.name, t)]
        row = d.table(g.name, t)
        layout = storage_of(row).probe_file
        try:
            if layout.outcome_section is not None:
                problems += [f"{e['path']}: {p}"
                             for p in _outcome_problems(d, g, t, layout.outcome_section)]
            elif layout.rederived and _generic(g, t):
                deps = g.dependencies(t)
                whole = all((g.name, dep) in checked for dep in deps)
                values = load(t)
                if whole:
                    dv = {dep: g.from_stored(dep, d.table(g.name, dep), load(dep))
                          for dep in deps}
                    space = g.space(t, dv)
                else:
                    space = None
                problems += [f"{e['path']}: {p}" for p in _index_problems(g, t, space, values)]
        except ProbeFileError as exc:
            problems.append(f"{e['path']}: {exc}")
        finally:  # tables no table left to check reads are dropped (a game's set is large)
            for dep in g.dependencies(t):
                needed[dep] -= 1
                if needed[dep] == 0:
                    cache.pop(dep, None)
            if needed.get(t, 0) == 0:
                cache.pop(t, None)
    return problems


def _generic(g, table: str) -> bool:
    """Whether ``g`` checks ``table`` by the generic retrograde check (not by its own rules,
    as Chinese Checkers' distance tables, which hold distances to the goal and no best
    moves)."""
    return not g.checks_itself(table)


def _index_problems(g, table: str, space, values: _Values, limit: int = 5) -> list[str]:
    """Slots of an index table whose kind (from the census), value or best move is wrong; with
    ``space`` None (the table's dependencies are not in the directory), only the result codes:
    every slot an outcome, ILLEGAL or NONE, and where a census is at hand, the census's kind."""
    from tbdb.retrograde import driver
    from tbdb.solvers import retrograde as k
    result = values.result
    codes = (result >= k.LOSS) & (result <= k.WIN) | (result == k.ILLEGAL) | (result == k.NONE)
    out, count = [], 0
    if not codes.all():
        bad = np.flatnonzero(~codes)
        return [f"{len(bad):,} slots hold no result code, the first slot {int(bad[0])} "
                f"({int(result[bad[0]])}): the file is damaged; export it again"]
    if space is None:
        return []
    best = values.best
    step = driver.children_batch(space.max_children)
    state, top = driver.packed_state(values)
    try:
        for lo in range(0, values.size, driver.CHUNK_SLOTS):
            hi = min(values.size, lo + driver.CHUNK_SLOTS)
            kind, _ = space.census(lo, hi)
            part = result[lo:hi]
            got_kind = np.where((part >= k.LOSS) & (part <= k.WIN), 0, part)
            flags = np.where(kind != got_kind, 3, 0).astype(np.int8)
            real = lo + np.flatnonzero((kind == 0) & (flags == 0))
            moves = best[lo:hi] if best is not None else np.full(hi - lo, -1, np.int32)
            for at in range(0, len(real), step):
                batch = real[at:at + step]
                n, child, move, ext_result, ext_distance = space.children(batch)
                k.check_rows(batch, lo, n, child, move, ext_result, ext_distance, state, top,
                             moves, flags)
            if best is None:  # a file without best moves (--no-moves): values alone
                flags[flags == 2] = 0
            bad = np.flatnonzero(flags)
            count += len(bad)
            for i in bad[:limit - len(out)]:
                slot = lo + int(i)
                out.append(f"{_slot_text(g, table, slot)} (slot {slot}: its "
                           f"{_WHAT[int(flags[i])]}, {_stored(values, slot)})")
    finally:
        driver.release(space)
    if not count:
        return []
    held = "1 slot holds" if count == 1 else f"{count:,} slots hold"
    return [f"{held} a value or best move the rules contradict, e.g. "
            f"{'; '.join(out)}: the file is damaged or not of this table; export it again"]


def _stored(values: _Values, slot: int) -> str:
    from tbdb.results import OUTCOMES
    r, dist = int(values.result[slot]), int(values.distance[slot])
    text = f"{OUTCOMES[r]} in {dist}" if r in OUTCOMES else f"result code {r}"
    if values.best is not None:
        text += f", best move code {int(values.best[slot])}"
    return f"stored {text}"


def _slot_text(g, table: str, slot: int) -> str:
    try:
        return repr(g.slot_text(table, slot))
    except Exception:  # (a slot that is no position: the census said so)  # noqa: BLE001
        return f"slot {slot}"


def _outcome_problems(d, g, table: str, section: bytes) -> list[str]:
    """A key table's rows: every stored result (in ``section``) an outcome (its rows are
    positions)."""
    from tbdb.solvers import retrograde as k
    f = d.open_file(g.name, table)
    result = f.section(section, "i1")
    bad = np.flatnonzero((result < k.LOSS) | (result > k.WIN))
    if not len(bad):
        return []
    return [f"{len(bad):,} rows hold no outcome, the first row {int(bad[0])} (result code "
            f"{int(result[bad[0]])}): the file is damaged; export it again"]

