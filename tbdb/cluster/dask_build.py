"""Cluster builds on Dask distributed: one task per table, each after the tables it reads.

``tbdb build GAME ... --cluster local|tcp://HOST:PORT --out DIR --db FILE``.  Each task runs
on a worker: it reads its dependencies from their files under ``DIR``, solves its table with
the game's own ``solve`` and writes values, statistics and a manifest with checksums
(``tbdb.cluster.files``).  The coordinator (this process) holds the database: as each table's
files arrive it checks them and records the table with ``Store.write_table`` (catalogue,
statistics, texts, the values file and the 'done' checkpoint in one transaction; with
``self_contained``, or an fsspec URL for ``DIR``, the values are copied in instead), so lookup,
verify and the views see a cluster-built table exactly as an embedded one.  ``import_values``
(``tbdb import DIR``) copies recorded values files into the database later, and complete
tables under DIR that no database recorded (a new database can be made from files alone).

Resume: tables done in the database are skipped; tables whose files are complete and verified
are imported without solving; everything else is solved.  A worker killed mid-task leaves at
most a temporary file; Dask runs the task again elsewhere.  Any index-storage game works (the
retrograde driver's ``Game`` API only); Dask is an optional extra (``tbdb[cluster]``).
"""
from __future__ import annotations

import contextlib
import os
import time
import uuid
from dataclasses import dataclass, field

import numpy as np

from tbdb import games
from tbdb.retrograde import budget
from tbdb.build import BuildSummary, plan
from tbdb.cluster.fs import OutDir
from tbdb.cluster.files import (ClusterFileError, TablePaths, complete, read_stats, read_values,
                                stat_tuples, verified_manifest, write_table_files)
from tbdb.errors import InvalidOptionError
from tbdb.games.base import StatRow, TableData
from tbdb.storage import solve as storage_solve
from tbdb.progress import Progress
from tbdb.storage import storage_of
from tbdb.db.store import Store
from tbdb.db.values_files import ValuesFile
from tbdb.db.connect import default_db_path

# dependencies a worker process keeps in memory between tasks: {(game, table, sha256): values}
_WORKER_CACHE: dict[tuple, object] = {}
_WORKER_CACHE_TABLES = 16


class ClusterUnavailableError(InvalidOptionError):
    """``--cluster`` without Dask installed."""


def _dask():
    try:
        import distributed
    except ImportError:
        raise ClusterUnavailableError(
            "--cluster needs Dask distributed, which is not installed: "
            "pip install 'tbdb[cluster]'") from None
    return distributed


def _dependency(g, out: str, table: str):
    manifest = verified_manifest(out, g.name, table)
    key = (g.name, table, manifest["files"]["values"]["sha256"])
    if key not in _WORKER_CACHE:
        if len(_WORKER_CACHE) >= _WORKER_CACHE_TABLES:
            _WORKER_CACHE.pop(next(iter(_WORKER_CACHE)))
        values = read_values(out, g.name, table, manifest)
        row = {"params": manifest["catalogue"]["params"], "storage": "index",
               "slots": manifest["catalogue"]["slots"], "table_name": table}
        _WORKER_CACHE[key] = g.from_stored(table, row, values)
    return _WORKER_CACHE[key]


def solve_table(game: str, table: str, mode: str, out: str, threads: int | None,
                memory: int | None, *after) -> dict:
    """The Dask task: solve ``table`` from its dependencies' files and write its own files;
    returns the manifest.  ``after`` are the dependencies' results (only ordering: the values
    are read from the files); ``threads``: Numba threads for this worker (a LocalCluster
    shares the cores between its worker processes; None leaves Numba's default); ``memory``:
    this worker's budget in bytes, which "auto" chooses the mode by (None: no budget).  Done files
    are kept: a task run again after its worker died between writing and reporting returns
    at once."""
    g = games.get(game)
    if threads:
        import numba
        numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    done = complete(out, game, table)
    if done is not None:
        return done
    t0 = time.perf_counter()
    deps = {d: _dependency(g, out, d) for d in g.dependencies(table)}
    t1 = time.perf_counter()
    with budget.within(memory):
        data = storage_solve.solve_table(g, table, deps, mode)
    return write_table_files(out, game, table, data, time.perf_counter() - t1,
                             read_seconds=t1 - t0)


def _import(store: Store, g, out: str, table: str, manifest: dict, copy: bool) -> int:
    """Record one table's verified files in the database (one transaction): catalogue,
    statistics and checkpoint, and its values either copied in (``copy``) or left in the
    values file, which the database then reads through ``tb_index_values``.  The catalogue
    and statistics are the worker's, from the manifest and the stats file (checksummed; verify
    re-derives them from the values): the values are read here only to copy them or to write
    the texts of a layout the database has not seen yet."""
    cat = manifest["catalogue"]
    layout = cat.get("layout")
    new_layout = bool(layout) and not store.query("SELECT 1 FROM tb_texts WHERE layout = ? "
                                                  "LIMIT 1", [layout])
    if copy or new_layout:
        data = g.describe(table, read_values(out, g.name, table, manifest))
        mine = {c: getattr(data, c) for c in cat}
        if mine != cat or stat_tuples(data.stats) != read_stats(out, g.name, table):
            # the values do not give the catalogue and statistics written beside them
            TablePaths.of(out, g.name, table).remove()
            where = out.url if isinstance(out, OutDir) else out
            raise ClusterFileError(f"{g.name} table {table!r}: files under {where!r} disagree "
                                   f"with themselves (catalogue or statistics); removed, run "
                                   f"again to rebuild")
    else:
        stats = [StatRow(*row) for row in read_stats(out, g.name, table)]
        data = TableData(values=None, stats=stats, **cat)
    kept = None
    if not copy:
        paths = TablePaths.of(out, g.name, table)
        f = manifest["files"]["values"]
        kept = ValuesFile(paths.values, manifest["rows"], f["bytes"], f["sha256"])
    return store.write_table(g.name, table, data, manifest["seconds"], values_file=kept)


def _export(store: Store, g, out: str, table: str) -> None:
    """Write a table that is done in the database (and has no valid files) as files, so the
    workers can read it as a dependency."""
    row = store.table(g.name, table)
    values = store.load_index(row["table_id"], row["slots"])
    (mode, seconds), = store.query("SELECT mode, seconds FROM tb_tables WHERE table_id = ?",
                                   [row["table_id"]])
    values.mode = mode
    data = g.describe(table, values)
    write_table_files(out, g.name, table, data, seconds or 0.0)


# how long to try reaching a scheduler (the tests shorten it)
CONNECT_TIMEOUT = "30s"


def _client(cluster: str, workers: int | None):
    distributed = _dask()
    if cluster == "local":
        n = workers or os.cpu_count() or 1
        local = distributed.LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                         dashboard_address=None)
        return distributed.Client(local), local, max(1, (os.cpu_count() or 1) // n)
    try:
        return distributed.Client(cluster, timeout=CONNECT_TIMEOUT), None, None
    except OSError as exc:
        raise InvalidOptionError(f"--cluster {cluster!r}: cannot reach the scheduler "
                                 f"({exc})") from None


@contextlib.contextmanager
def _close_on_error(client):
    try:
        yield
    except BaseException:
        if client is not None:
            client.close()
        raise


def build_cluster(game: str, db: str | None = None, *, out: str, cluster: str | None = "local",
                  workers: int | None = None, progress: bool | str = True, mode: str = "auto",
                  rebuild=(), client=None, threads: int | None = None,
                  tables: list[str] | None = None, self_contained: bool = False,
                  memory=None, **options) -> BuildSummary:
    """Build ``game``'s tables on a Dask cluster (``cluster``: 'local' for a LocalCluster of
    ``workers`` processes, default one per core, or a scheduler address; or an existing
    ``client``, whose workers use ``threads`` Numba threads each), writing files under ``out``
    and recording every table in ``db``.  ``tables`` (Python only, benchmarks): build exactly
    these, in this order, instead of the options' plan; what they read must be listed before
    them or be done in ``db``.  The values stay in the Parquet files under a local ``out``,
    which the database reads through views (``tb_index_values``); ``self_contained`` copies
    them into the database instead, as it always does for a URL ``out`` (every reader of the
    database would need that filesystem).  ``tbdb import DIR`` copies them in later.
    ``memory`` ('8G', bytes, None: 80% of the RAM) is each worker's budget on a scheduler's
    workers, and the whole machine's, shared equally by its workers, on a local cluster."""
    # the budget is this machine's only where the build starts its own local cluster; a given
    # client's workers take it each, as a scheduler's do (see per_worker below)
    g, mode, planned, rebuild, limit = plan(
        game, mode, rebuild, memory, on_workers=client is not None or cluster != "local",
        **options)
    tables = planned if tables is None else [g.check_table(t) for t in tables]
    _check_cluster(g, out, cluster, client, workers)
    place = OutDir.of(out)  # an URL whose filesystem is missing fails here, before any work
    copy = self_contained or not place.local
    path = str(db) if db is not None else default_db_path()
    start = time.perf_counter()
    summary = ClusterSummary(g.name, path, len(tables))
    remote = None
    if client is None and cluster != "local":
        # reach the scheduler before creating anything: one that cannot be reached leaves
        # neither a new database nor the --out directory behind
        client, _, threads = _client(cluster, workers)
        remote = client
        summary.start_seconds = time.perf_counter() - start
        summary.workers = len(client.scheduler_info()["workers"])
    with _close_on_error(remote):
        place.makedirs(place.root)
        store = Store(path)
    with store:
        store.plan(g.name, tables)
        states = store.states(g.name)
        for t in rebuild:
            TablePaths.of(out, g.name, t).remove()
        in_db = {t for t in tables if states.get(t) == "done" and t not in rebuild}
        todo = [t for t in tables if t not in in_db]
        summary.skipped = len(in_db)
        _export_read(store, g, out, todo, states, summary)
        on_disk = {t: m for t in todo if (m := complete(out, g.name, t)) is not None}
        weight = {t: max(int(g.weight(t)), 1) for t in tables}
        bar = Progress(sum(weight.values()), f"{g.name} cluster build", mode=progress,
                       initial=sum(weight[t] for t in in_db))
        if in_db or on_disk:
            bar.say(f"{g.name}: resuming: {len(in_db)} of {len(tables)} tables already in "
                    f"{path!r}, {len(on_disk)} more complete under {out!r}")
        own = None
        try:
            for t, manifest in on_disk.items():
                summary.rows += _import(store, g, out, t, manifest, copy)
                summary.imported.append(t)
                bar.finished(weight[t], f"{t} (from its files)")
            solve = [t for t in todo if t not in on_disk]
            if solve:
                if client is None:
                    t0 = time.perf_counter()
                    client, own, threads = _client(cluster, workers)
                    summary.start_seconds = time.perf_counter() - t0
                    summary.workers = len(client.scheduler_info()["workers"])
                per_worker = limit
                if limit is not None and own is not None:  # workers sharing this machine
                    per_worker = limit // max(summary.workers, 1)
                summary.rows += _run(client, store, g, out, mode, threads, per_worker, solve,
                                     weight, bar, summary, copy)
        finally:
            bar.close()
            if own is not None:
                client.close()
                own.close()
            elif remote is not None:
                remote.close()
    summary.values_in = "the database" if copy else f"Parquet files under {out!r}"
    summary.seconds = time.perf_counter() - start
    return summary


def _check_cluster(g, out, cluster, client, workers) -> None:
    """Refuse a cluster build that cannot be one, before anything is written."""
    if not storage_of(g).clusterable:
        raise InvalidOptionError(f"--cluster builds index-storage games; {g.name} stores "
                                 f"{g.storage!r} tables: build it without --cluster")
    if not cluster and client is None:
        raise InvalidOptionError(f"--out {out!r} is for cluster builds: add --cluster local or "
                                 f"--cluster tcp://HOST:PORT")
    if not out:
        raise InvalidOptionError("--cluster needs --out DIR: the directory (shared by the "
                                 "workers) where tables are written")
    if client is None:
        _dask()
        if cluster != "local" and not cluster.startswith(("tcp://", "tls://", "inproc://")):
            raise InvalidOptionError(f"--cluster {cluster!r}: give 'local' or a scheduler "
                                     f"address such as tcp://HOST:8786")
        if workers is not None and workers < 1:
            raise InvalidOptionError(f"--workers {workers}: give at least 1")


def _export_read(store, g, out, todo: list, states: dict, summary) -> None:
    """Write as files the tables the build reads that are done in the database (workers
    read files only)."""
    read = {d for t in todo for d in g.dependencies(t)}
    t0 = time.perf_counter()
    for d in sorted(read - set(todo)):
        if states.get(d) != "done":
            raise InvalidOptionError(f"table {d!r} is read by this build but is neither in "
                                     f"it nor built in {summary.db!r}")
        if complete(out, g.name, d) is None:
            _export(store, g, out, d)
            summary.exported.append(d)
    summary.export_seconds = time.perf_counter() - t0


def _run(client, store, g, out, mode, threads, memory, solve, weight, bar, summary,
         copy) -> int:
    from distributed import as_completed
    futures = {}
    run = uuid.uuid4().hex[:12]  # this run's task keys (a scheduler may outlive a coordinator)
    for t in solve:  # the plan lists every table after the tables it reads
        after = [futures[d] for d in g.dependencies(t) if d in futures]
        # the largest ready table first: the last tables to finish are small ones, so no
        # worker waits long on one table at the end
        futures[t] = client.submit(solve_table, g.name, t, mode, str(out), threads, memory,
                                   *after,
                                   key=f"tbdb-{g.name}-{t}-{run}", pure=False,
                                   retries=2, priority=weight[t])
    table_of = {f.key: t for t, f in futures.items()}
    tables = list(futures)
    rows = 0
    for fut in as_completed(list(futures.values())):
        t = table_of[fut.key]
        fut.result()  # a task's error (after Dask's retries) stops the build here
        t0 = time.perf_counter()
        manifest = verified_manifest(out, g.name, t)
        rows += _import(store, g, out, t, manifest, copy)
        summary.import_seconds += time.perf_counter() - t0
        summary.built.append(t)
        summary.solve_seconds += manifest["seconds"]
        summary.read_seconds += manifest.get("read_seconds", 0.0)
        summary.write_seconds += manifest.get("write_seconds", 0.0)
        summary.parquet_bytes += sum(f["bytes"] for f in manifest["files"].values())
        bar.finished(weight[t], f"{t} ({manifest['seconds']:.1f} s on a worker)")
        del futures[t]  # the scheduler may forget it once its dependants have run
    _sweep(out, g.name, tables)
    return rows


def _sweep(out: str, game: str, tables) -> None:
    """Remove the temporary files that workers killed mid-write left (every task of this run
    has finished, so none is still being written by it)."""
    place = OutDir.of(out)
    for t in tables:
        for tmp in TablePaths.of(place, game, t).temporaries():
            place.remove(tmp)


@dataclass
class ImportSummary:
    """What ``tbdb import DIR`` did: tables copied into the database, tables recorded in files
    that are not (complete) under DIR, tables whose files under DIR are another build's."""
    db: str
    out: str
    copied: list[str] = field(default_factory=list)
    rows: int = 0
    elsewhere: list[str] = field(default_factory=list)
    different: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)  # complete files the database had not recorded
    incomplete: list[str] = field(default_factory=list)  # files left as they are: not complete

    def __str__(self) -> str:
        text = (f"{self.db}: {len(self.copied) + len(self.added)} tables ({self.rows:,} rows) "
                f"copied into the database from {self.out!r}")
        if self.added:
            text += f" ({len(self.added)} of them not recorded before)"
        if self.incomplete:
            text += (f"; {len(self.incomplete)} left, their files are not complete (rebuild "
                     f"them): {', '.join(self.incomplete[:5])}"
                     f"{', ...' if len(self.incomplete) > 5 else ''}")
        if self.different:
            text += (f"; {len(self.different)} left, their files under {self.out!r} are not "
                     f"the ones recorded: {', '.join(self.different[:5])}")
        if self.elsewhere:
            text += (f"; {len(self.elsewhere)} still keep their values in files not under "
                     f"{self.out!r}: {', '.join(self.elsewhere[:5])}"
                     f"{', ...' if len(self.elsewhere) > 5 else ''}")
        return text


def import_values(db: str | None, out: str) -> ImportSummary:
    """Copy into ``db`` the values of every table it keeps in a Parquet file whose complete,
    verified files (same sha256 as recorded) are under ``out``: the database becomes
    self-contained for those tables.  ``out`` may be where the files were built or where they
    were moved to."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    from tbdb.db.connect import check_path
    from tbdb.storage.arrow_rows import INDEX_SCHEMA
    path = str(db) if db is not None else default_db_path()
    place = OutDir.of(out)
    if place.size(place.root) is None and not place.listdir(place.root):
        raise FileNotFoundError(f"no directory {out!r} to import tables from")
    if place.local and not os.path.isdir(place.root):
        raise NotADirectoryError(f"{out!r} is not a directory: give the --out directory of "
                                 f"the build to import tables from")
    nothing = FileNotFoundError(f"{out!r} holds no table files to import (<game>/<table>.json "
                                f"and its Parquet files, as `tbdb build --out` writes them); "
                                f"nothing imported into {path!r}")
    empty = not _table_manifests(place)
    check_path(path, create=True)  # (what is wrong with the database is said first)
    if empty and not os.path.exists(path):  # before a new path becomes a database
        raise nothing
    summary = ImportSummary(path, str(out))
    with Store(path) as store:
        if empty:  # a database that can be opened, and no files: a mistyped directory?
            raise nothing
        recorded = store.query("SELECT t.game, t.table_name, f.table_id, f.sha256 "
                               "FROM tb_index_files f JOIN tb_tables t USING (table_id) "
                               "ORDER BY t.game, t.table_name")
        for game, table, table_id, sha in recorded:
            name = f"{game}:{table}"
            manifest = complete(place, game, table)
            if manifest is None:
                summary.elsewhere.append(name)
                continue
            if manifest["files"]["values"]["sha256"] != sha:
                summary.different.append(name)
                continue
            paths = TablePaths.of(place, game, table)

            def batches(paths=paths, table_id=table_id):
                with place.open(paths.values, "rb") as f:
                    for b in pq.ParquetFile(f).iter_batches(batch_size=1 << 20):
                        yield pa.record_batch(
                            [pa.array(np.full(b.num_rows, table_id, np.int32)),
                             *(b.column(c).cast(INDEX_SCHEMA.field(c).type)
                               for c in INDEX_SCHEMA.names[1:])], schema=INDEX_SCHEMA)
            store.copy_values_in(table_id, pa.RecordBatchReader.from_batches(INDEX_SCHEMA,
                                                                             batches()))
            summary.copied.append(name)
            summary.rows += manifest["rows"]
        _import_unrecorded(store, place, summary)
    return summary


def _import_unrecorded(store: Store, place, summary: ImportSummary) -> None:
    """Copy in the complete tables under ``place`` the database does not hold yet (a build
    stopped before recording them, or files from another machine's build): each is checked
    against its manifest and statistics, then written with its checkpoint in one transaction."""
    done = {}  # game: its done tables, as they were before this import
    for g, table in _table_manifests(place):
        if g.name not in done:
            done[g.name] = {t for t, state in store.states(g.name).items() if state == "done"}
        try:
            if table in done[g.name] or g.check_table(table) != table:
                continue
        except ValueError:  # not a table name of the game: not tbdb's file
            continue
        manifest = complete(place, g.name, table)
        if manifest is None:
            summary.incomplete.append(f"{g.name}:{table}")
            continue
        store.plan(g.name, [table])
        summary.rows += _import(store, g, place, table, manifest, copy=True)
        summary.added.append(f"{g.name}:{table}")


def _table_manifests(place) -> list[tuple]:
    """(game, table name) of every ``<game>/<table>.json`` under ``place`` of a game whose
    tables a build with --out writes as files: what an import could copy in."""
    from urllib.parse import unquote
    out = []
    for game_dir in place.listdir(place.root):
        name = unquote(game_dir)
        if name not in games.REGISTRY or not storage_of(games.get(name)).clusterable:
            continue
        g = games.get(name)
        out += [(g, unquote(f[:-len(".json")])) for f in place.listdir(place.join(game_dir))
                if f.endswith(".json")]
    return out


class ClusterSummary(BuildSummary):
    """A build summary with what the cluster did."""

    def __init__(self, game: str, db: str, tables: int):
        super().__init__(game, db, tables)
        self.imported: list[str] = []
        self.workers = 0
        self.solve_seconds = 0.0
        self.read_seconds = 0.0  # workers reading dependencies from their files
        self.write_seconds = 0.0  # workers writing Parquet and checksums
        self.parquet_bytes = 0
        self.exported: list[str] = []  # done in the database, written as files for the workers
        self.export_seconds = 0.0
        self.start_seconds = 0.0  # starting a LocalCluster / connecting
        self.import_seconds = 0.0  # checking files and recording them in the database
        self.values_in = "the database"

    def __str__(self) -> str:
        size = os.path.getsize(self.db) / 1e6 if os.path.exists(self.db) else 0.0
        on = f" on {self.workers} workers" if self.workers else ""
        files = f", {len(self.imported)} imported from complete files" if self.imported else ""
        return (f"{self.game}: {self.tables} tables in {self.db!r} ({size:.1f} MB): "
                f"{len(self.built)} built{on}{files} ({self.rows:,} rows) in "
                f"{self.seconds:.1f} s, {self.skipped} already done; values in "
                f"{self.values_in}")
