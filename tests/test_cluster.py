"""Cluster builds on Dask (tbdb/cluster/dask_build.py) against the embedded build, the reference:
rows, statistics and catalogue table by table; corrupt files rebuilt; a worker and the coordinator
killed with SIGKILL.  Skipped only when the optional extra tbdb[cluster] is not installed."""
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

import tbdb
from tbdb.db.store import Store
from tbdb.storage.solve import solve_table
from tbdb.cluster.files import ClusterFileError, TablePaths, verified_manifest

distributed = pytest.importorskip("distributed")

from tbdb.cluster.dask_build import build_cluster  # noqa: E402

MATERIAL = "GMvNC"  # 9 tables: 2, 3 and 4 pieces, dependencies two levels deep
TABLES = ['GvC', 'GvN', 'MvC', 'MvN', 'GMvC', 'GMvN', 'NCvG', 'NCvM', 'GMvNC']


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None)
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


@pytest.fixture(scope="module")
def embedded(tmp_path_factory):
    path = tmp_path_factory.mktemp("embedded") / "tb.duckdb"
    tbdb.build("cdc", db=str(path), material=MATERIAL, progress=False)
    return str(path)


@pytest.fixture(scope="module")
def built(client, embedded, tmp_path_factory):  # embedded first: it fills the Numba cache
    base = tmp_path_factory.mktemp("cluster")
    out, db = base / "out", base / "tb.duckdb"
    summary = build_cluster("cdc", db=str(db), out=str(out), client=client, threads=1,
                            progress=False, material=MATERIAL)
    return out, str(db), summary


def _contents(db: str) -> dict:
    """{table: (values rows sorted, stats rows sorted, catalogue counts)} of every cdc table."""
    con = duckdb.connect(db, read_only=True)
    try:
        out = {}
        for table_id, name, counts in con.execute(
                "SELECT table_id, table_name, [slots, positions, raw_positions, "
                "positions_answered, fixed_positions, illegal] FROM tb_tables "
                "WHERE game = 'cdc'").fetchall():
            values = con.execute("SELECT idx, result, distance, best_move, multiplicity FROM "
                                 "tb_index_values WHERE table_id = ? ORDER BY idx",
                                 [table_id]).fetchall()
            stats = con.execute("SELECT * EXCLUDE (table_id) FROM tb_stats WHERE table_id = ? "
                                "ORDER BY ALL", [table_id]).fetchall()
            out[name] = (values, stats, counts)
        done = dict(con.execute("SELECT table_name, state FROM build_checkpoints "
                                "WHERE game = 'cdc'").fetchall())
        assert set(done.values()) == {"done"}, done
        return out
    finally:
        con.close()


def _values_files(db: str) -> int:
    con = duckdb.connect(db, read_only=True)
    try:
        return con.execute("SELECT count(*) FROM tb_index_files").fetchall()[0][0]
    finally:
        con.close()


def _same_as_embedded(db: str, embedded: str, tables=TABLES) -> None:
    mine, ref = _contents(db), _contents(embedded)
    assert sorted(mine) == sorted(tables) and set(tables) <= set(ref)
    for t in tables:
        assert mine[t] == ref[t], f"table {t} differs from the embedded build"


def test_cluster_build_equals_embedded_table_by_table(embedded, built):
    out, db, summary = built
    assert sorted(summary.built) == sorted(TABLES) and summary.skipped == 0
    _same_as_embedded(db, embedded)
    for t in TABLES:
        assert verified_manifest(out, "cdc", t)["rows"] > 0
    report = tbdb.verify(db, "cdc", progress=False)
    assert report.ok and report.checked == len(TABLES)
    from tbdb.storage import index
    with pytest.MonkeyPatch.context() as patch:  # read back packed, a chunk at a time
        patch.setattr(index, "WHOLE_LOAD_SLOTS", 0)
        report = tbdb.verify(db, "cdc", progress=False)
    assert report.ok and report.checked == len(TABLES)
    with tbdb.open(db) as mine, tbdb.open(embedded) as ref:  # lookups read them unchanged
        for position in ("8/8/8/GMnc4 r", "8/2G5/1n6/M6c b", "c7/8/G1n5/7M r"):
            assert mine.lookup(position) == ref.lookup(position)


def test_rerun_skips_done_tables_and_keeps_files(built, client):
    out, db, _ = built
    before = {p: p.stat().st_mtime_ns for p in Path(out).rglob("*")}
    summary = build_cluster("cdc", db=db, out=str(out), client=client, threads=1,
                            progress=False, material=MATERIAL)
    assert summary.built == [] and summary.imported == [] and summary.skipped == len(TABLES)
    assert {p: p.stat().st_mtime_ns for p in Path(out).rglob("*")} == before


def test_truncated_or_corrupt_files_are_rebuilt_never_read(built, embedded, client, tmp_path):
    out = tmp_path / "out"
    shutil.copytree(built[0], out)
    truncated = Path(TablePaths.of(out, "cdc", "GvN").values)
    truncated.write_bytes(truncated.read_bytes()[:-100])
    flipped = Path(TablePaths.of(out, "cdc", "GMvC").values)
    data = bytearray(flipped.read_bytes())
    data[len(data) // 2] ^= 0x01  # same size: only the checksum can tell
    flipped.write_bytes(bytes(data))
    manifest = Path(TablePaths.of(out, "cdc", "NCvM").manifest)
    manifest.write_text(manifest.read_text()[:50])
    for t in ("GvN", "GMvC", "NCvM"):
        with pytest.raises(ClusterFileError):
            verified_manifest(out, "cdc", t)
    db = str(tmp_path / "tb.duckdb")
    summary = build_cluster("cdc", db=db, out=str(out), client=client, threads=1,
                            progress=False, material=MATERIAL, self_contained=True)
    assert sorted(summary.built) == ["GMvC", "GvN", "NCvM"]
    assert _values_files(db) == 0  # --self-contained: every value copied into the file
    assert sorted(summary.imported) == sorted(set(TABLES) - {"GMvC", "GvN", "NCvM"})
    _same_as_embedded(db, embedded)
    for t in TABLES:
        verified_manifest(out, "cdc", t)


def test_worker_killed_mid_task_is_retried_with_identical_rows(client, embedded, tmp_path):
    marker = tmp_path / "killed"
    pids = set(client.run(os.getpid).values())
    # exec, a builtin, runs in each worker process (a bound method would pickle a copy)
    client.run(exec, f"import os; os.environ['TBDB_CLUSTER_KILL_ONCE'] = {f'GMvNC:{marker}'!r}")
    try:
        db = str(tmp_path / "tb.duckdb")
        summary = build_cluster("cdc", db=db, out=str(tmp_path / "out"), client=client,
                                threads=1, progress=False, material=MATERIAL)
    finally:
        client.run(exec, "import os; os.environ.pop('TBDB_CLUSTER_KILL_ONCE', None)")
    killed = int(marker.read_text())  # the worker that took GMvNC died writing it
    assert killed in pids and killed not in set(client.run(os.getpid).values())
    assert sorted(summary.built) == sorted(TABLES)
    _same_as_embedded(db, embedded)
    assert not list((tmp_path / "out").rglob("*.tmp"))  # the dead worker's partial file is swept
    client.wait_for_workers(2)


def test_coordinator_killed_then_rerun_resumes(client, embedded, tmp_path):
    out, db = tmp_path / "out", str(tmp_path / "tb.duckdb")
    tbdb_cmd = str(Path(sys.executable).with_name("tbdb"))
    proc = subprocess.Popen(
        [tbdb_cmd, "build", "cdc", "--material", MATERIAL, "--db", db, "--out", str(out),
         "--cluster", client.scheduler.address, "--no-progress"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            if len(list(out.glob("cdc/*.json"))) >= 3:
                break
            time.sleep(0.02)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait()
    assert proc.returncode == -signal.SIGKILL, "the build ended before it was killed"
    finished = {t: os.stat(TablePaths.of(out, "cdc", t).manifest).st_mtime_ns for t in TABLES
                if os.path.exists(TablePaths.of(out, "cdc", t).manifest)}
    assert 3 <= len(finished) < len(TABLES)
    time.sleep(1)  # let the scheduler drop the dead coordinator's tasks
    summary = build_cluster("cdc", db=db, out=str(out), client=client, threads=1,
                            progress=False, material=MATERIAL)
    assert not set(summary.built) & set(finished)  # finished tables were not solved again
    assert summary.built, "nothing was left to build: the kill came too late to test resume"
    for t, mtime in finished.items():
        assert os.stat(TablePaths.of(out, "cdc", t).manifest).st_mtime_ns == mtime
    _same_as_embedded(db, embedded)


def test_cli_errors_are_one_line_exit_2(tmp_path, capsys):
    from tbdb.cli.run import main
    db = str(tmp_path / "tb.duckdb")
    assert main(["build", "cdc", "--material", "GvC", "--out", str(tmp_path), "--db", db]) == 2
    assert "--cluster" in capsys.readouterr().err
    assert main(["build", "cdc", "--material", "GvC", "--cluster", "bogus", "--out",
                 str(tmp_path), "--db", db]) == 2
    err = capsys.readouterr().err
    assert "'bogus'" in err and len(err.strip().splitlines()) == 1
    assert not os.path.exists(db)  # refused before the database was created
    assert main(["build", "cdc", "--material", "GvC", "--cluster", "local", "--db", db]) == 2
    assert "--out" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:  # key-storage games have no --cluster option
        main(["build", "tictactoe", "--cluster", "local", "--out", str(tmp_path)])
    assert exc.value.code == 2


@pytest.mark.slow
def test_every_cdc_table_up_to_3_pieces_equals_embedded(client, tmp_path):
    ref = str(tmp_path / "embedded.duckdb")
    tbdb.build("cdc", db=ref, max_pieces=3, progress=False)
    db = str(tmp_path / "cluster.duckdb")
    summary = build_cluster("cdc", db=db, out=str(tmp_path / "out"), client=client, threads=1,
                            progress=False, max_pieces=3)
    assert len(summary.built) == 217
    mine, theirs = _contents(db), _contents(ref)
    assert sorted(mine) == sorted(theirs)
    for t in theirs:
        assert mine[t] == theirs[t], t


# --------------------------------------------------------------------------- values in Parquet

def _sha(path) -> str:
    import hashlib
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def test_values_stay_in_parquet_read_through_views_file_unchanged(built, embedded, capsys):
    from tbdb.cli.run import main
    out, db, _ = built
    con = duckdb.connect(db, read_only=True)
    try:  # nothing copied: the catalogue records one file per table
        assert con.execute("SELECT count(*) FROM tb_index_rows").fetchall() == [(0,)]
        assert con.execute("SELECT count(*) FROM tb_index_files").fetchall() == \
            [(len(TABLES),)]
    finally:
        con.close()
    before = _sha(db)
    for args in (["lookup", "cdc", "8/8/8/GMnc4 r"],
                 ["sql", "SELECT count(*), sum(hash(p.position, p.result, p.distance)) "
                         "FROM cdc_positions p"],
                 ["sql", "SELECT * FROM read_csv('/etc/passwd')"],  # still sealed
                 ["status"], ["verify", "--no-progress"]):
        codes = {main(args + ["--db", d]) for d in (db, embedded)}
        mine_ref = capsys.readouterr()
        assert codes == ({2} if "read_csv" in args[-1] else {0}), (args, mine_ref)
    assert _sha(db) == before  # read commands leave the file byte for byte
    # the per-game view over the Parquet files answers as the embedded one does
    q = ("SELECT count(*), sum(hash(position, result, distance, best_move)) FROM cdc_positions")
    with tbdb.open(db) as mine, tbdb.open(embedded) as ref:
        assert mine.sql(q).fetchall() == ref.sql(q).fetchall()


def test_moved_files_are_one_line_error_then_import_makes_it_self_contained(built, embedded,
                                                                          tmp_path, capsys):
    from tbdb.cli.run import main
    db = str(tmp_path / "tb.duckdb")
    out = tmp_path / "out"
    shutil.copy(built[1], db)
    shutil.copytree(built[0], out)
    con = duckdb.connect(db)  # as if this copy had been built into tmp_path/out
    con.execute("UPDATE tb_index_files SET path = replace(path, ?, ?)",
                [str(built[0]), str(out)])
    con.close()
    Store(db).close()  # a build's open rewrites the view with the new paths
    assert main(["lookup", "cdc", "8/8/8/GMnc4 r", "--db", db]) == 0
    moved = tmp_path / "moved"
    out.rename(moved)
    before = _sha(db)
    for args in (["lookup", "cdc", "8/8/8/GMnc4 r"], ["sql", "SELECT 1"]):
        capsys.readouterr()
        assert main(args + ["--db", db]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and "missing" in err and "tbdb import" in err
        assert str(out / "cdc") in err  # names the file
    assert _sha(db) == before
    assert main(["import", str(tmp_path / "nowhere"), "--db", db]) == 2
    assert "'" + str(tmp_path / "nowhere") + "'" in capsys.readouterr().err
    assert main(["import", str(moved), "--db", db]) == 0
    assert f"{len(TABLES)} tables" in capsys.readouterr().out
    shutil.rmtree(moved)  # self-contained now
    assert _values_files(db) == 0
    _same_as_embedded(db, embedded)
    assert main(["verify", "--db", db, "--no-progress"]) == 0


def test_import_into_a_new_database_takes_complete_unrecorded_tables(built, embedded, tmp_path,
                                                                     capsys):
    """Files no database recorded (the coordinator died first, or they came from elsewhere):
    ``tbdb import`` checks and copies in the complete ones, leaves a truncated one."""
    from tbdb.cli.run import main
    out = tmp_path / "out"
    shutil.copytree(built[0], out)
    broken = TablePaths.of(out, "cdc", "GMvNC").values
    with open(broken, "r+b") as f:
        f.truncate(os.path.getsize(broken) // 2)
    db = str(tmp_path / "new.duckdb")
    assert main(["import", str(out), "--db", db]) == 0
    said = capsys.readouterr().out
    assert f"{len(TABLES) - 1} tables" in said and "not recorded before" in said
    assert "1 left" in said and "cdc:GMvNC" in said
    assert _values_files(db) == 0
    mine, ref = _contents(db), _contents(embedded)
    assert sorted(mine) == sorted(t for t in TABLES if t != "GMvNC")
    for t in mine:
        assert mine[t] == ref[t], t
    capsys.readouterr()
    assert main(["import", str(out), "--db", db]) == 0  # again: nothing new, nothing doubled
    assert "0 tables" in capsys.readouterr().out
    assert main(["verify", "--db", db, "--no-progress"]) == 0


def _rewrite_values(paths, change) -> None:
    """The values file of ``paths`` replaced by ``change(its table)``, its manifest's bytes,
    sha256 and rows made to match: a self-consistent file tbdb never writes."""
    import hashlib
    import json
    import pyarrow.parquet as pq
    table = change(pq.read_table(paths.values))
    pq.write_table(table, paths.values)
    data = open(paths.values, "rb").read()
    m = json.load(open(paths.manifest))
    m["files"]["values"].update(bytes=len(data), sha256=hashlib.sha256(data).hexdigest())
    m["rows"] = table.num_rows
    json.dump(m, open(paths.manifest, "w"))


def _with_idx(table, at, value):
    import pyarrow as pa
    idx = table.column("idx").to_numpy().copy()
    idx[at] = value
    return table.set_column(table.schema.get_field_index("idx"), "idx", pa.array(idx))


@pytest.mark.parametrize("damage", ["no files", "no catalogue", "catalogue slots", "rows text",
                                    "slot negative", "slot too far", "no distance"])
def test_import_refuses_files_tbdb_never_writes_in_one_line(built, tmp_path, capsys, damage):
    """A manifest without its files or catalogue, or with a count that is not one, makes its
    table incomplete (listed, left alone); a values file whose manifest matches it but whose
    slots fall outside the table, or which lacks a column, stops the import in one line
    naming the file.  Each came out as a KeyError, a TypeError or an IndexError, and a
    negative slot wrapped round to the end of the table."""
    import json
    from tbdb.cli.run import main
    out = tmp_path / "out"
    shutil.copytree(built[0], out)
    paths = TablePaths.of(out, "cdc", "GvC")
    m = json.load(open(paths.manifest))
    if damage in ("no files", "no catalogue"):
        del m["files" if damage == "no files" else "catalogue"]
    elif damage == "catalogue slots":
        m["catalogue"]["slots"] = 10  # fewer than the rows
    elif damage == "rows text":
        m["rows"] = str(m["rows"])
    json.dump(m, open(paths.manifest, "w"))
    if damage in ("slot negative", "slot too far"):
        _rewrite_values(paths, lambda t: _with_idx(t, 0, -5 if damage == "slot negative"
                                                   else 10 ** 6))
    elif damage == "no distance":
        _rewrite_values(paths, lambda t: t.drop(["distance"]))
    db = str(tmp_path / "new.duckdb")
    code = main(["import", str(out), "--db", db])
    said = capsys.readouterr()
    if damage.startswith("slot") or damage == "no distance":
        assert code == 2 and said.err.count("\n") == 1, said.err
        assert repr(str(paths.values)) in said.err, said.err
        assert ("outside the table's" if damage.startswith("slot") else "not the values") \
            in said.err
    else:
        assert code == 0 and "1 left" in said.out and "cdc:GvC" in said.out, said


# --------------------------------------------------------------------------- fsspec URLs

def test_memory_url_files_write_verify_and_reject_damage():
    """The file layer through fsspec's in-memory filesystem: temporary names renamed, checksums
    checked, truncation and bit flips detected, no temporary file left."""
    fsspec = pytest.importorskip("fsspec")
    from tbdb.cluster.files import read_values, write_table_files
    from tbdb import games
    g = games.get("cdc")
    data = solve_table(g, "GvC", {}, "auto")
    url = "memory://tbdb-test-files"
    manifest = write_table_files(url, "cdc", "GvC", data, 0.5)
    fs = fsspec.filesystem("memory")
    names = sorted(p.rsplit("/", 1)[1] for p in fs.ls("/tbdb-test-files/cdc", detail=False))
    assert names == ["GvC.json", "GvC.stats.parquet", "GvC.values.parquet"]  # no .tmp left
    assert verified_manifest(url, "cdc", "GvC") == manifest
    back = read_values(url, "cdc", "GvC", manifest)
    for field in ("result", "distance", "best", "multiplicity"):
        assert (getattr(back, field) == getattr(data.values, field)).all()
    values = "/tbdb-test-files/cdc/GvC.values.parquet"
    good = fs.cat_file(values)
    fs.pipe_file(values, good[:-10])
    with pytest.raises(ClusterFileError, match="truncated"):
        verified_manifest(url, "cdc", "GvC")
    flipped = bytearray(good)
    flipped[len(flipped) // 2] ^= 1
    fs.pipe_file(values, bytes(flipped))
    with pytest.raises(ClusterFileError, match="sha256"):
        verified_manifest(url, "cdc", "GvC")
    fs.rm("/tbdb-test-files", recursive=True)


def test_memory_url_cluster_build_copies_values_in(embedded, tmp_path):
    """A whole cluster build to a memory:// URL (in-process workers share the filesystem):
    the values land in the database, since its readers could not reach the URL."""
    pytest.importorskip("fsspec")
    with distributed.Client(processes=False, n_workers=1, threads_per_worker=2,
                            dashboard_address=":0") as local:
        db = str(tmp_path / "tb.duckdb")
        summary = build_cluster("cdc", db=db, out="memory://tbdb-test-build", client=local,
                                threads=1, progress=False, material="GMvC")
    tables = ["GvC", "MvC", "GMvC"]
    assert sorted(summary.built) == sorted(tables) and "the database" in str(summary)
    assert _values_files(db) == 0
    _same_as_embedded(db, embedded, tables)
    import fsspec
    fsspec.filesystem("memory").rm("/tbdb-test-build", recursive=True)


def test_url_without_its_filesystem_package_is_one_line(tmp_path, capsys):
    from tbdb.cli.run import main
    pytest.importorskip("fsspec")
    try:
        import s3fs  # noqa: F401
        pytest.skip("s3fs is installed: no missing package to report")
    except ImportError:
        pass
    db = str(tmp_path / "tb.duckdb")
    assert main(["build", "cdc", "--material", "GvC", "--cluster", "local", "--out",
                 "s3://bucket/tb", "--db", db]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "'s3://bucket/tb'" in err
    assert not os.path.exists(db)


def test_index_tables_load_in_batches_from_parquet_and_database(built, embedded, monkeypatch):
    """load_index streams rows in batches; with batches of 7 rows (the small tables) or a
    seventh of a table and one row (batches of 7 rows over the 4-piece table were 20 s),
    every table (from its Parquet file and from the database) still equals the dense arrays
    built here from plain SQL."""
    import numpy as np

    import tbdb.storage.index as store_module
    from tbdb.solvers.retrograde import NONE
    for db in (built[1], embedded):
        with Store(db, read_only=True) as st:
            for name in TABLES:
                row = st.table("cdc", name)
                rows = np.array(st.query(
                    "SELECT idx, result, distance, best_move, multiplicity FROM "
                    "tb_index_values WHERE table_id = ?", [row["table_id"]]),
                    np.int64).reshape(-1, 5)
                batch = max(7, len(rows) // 7 + 1)
                monkeypatch.setattr(store_module, "LOAD_BATCH_ROWS", batch)
                got = st.load_index(row["table_id"], row["slots"])
                assert len(rows) > batch  # several batches
                want = np.full((row["slots"], 4), [NONE, 0, -1, 0], np.int64)
                want[rows[:, 0]] = rows[:, 1:]
                assert np.array_equal(np.stack([got.result, got.distance, got.best,
                                                got.multiplicity], axis=1), want), (db, name)


def test_a_worker_chooses_its_mode_within_its_memory_budget(tmp_path):
    """``--memory`` reaches the workers: a table that fits no mode in a worker's budget is
    refused there (MemoryBudgetError) before it writes a file; with room it is solved."""
    from tbdb.retrograde import budget
    from tbdb.cluster.dask_build import solve_table
    out = tmp_path / "out"
    with pytest.raises(budget.MemoryBudgetError, match="table 'GvC'"):
        solve_table("cdc", "GvC", "auto", str(out), 1, 1 << 20)
    assert not list(out.rglob("*.parquet"))
    manifest = solve_table("cdc", "GvC", "auto", str(out), 1, 8 << 30)
    assert manifest["rows"] > 0 and manifest["catalogue"]["mode"] == "edges"


def test_streamed_probe_export_reads_parquet_values_as_it_reads_the_database(
        built, embedded, tmp_path, monkeypatch):
    """Forced onto the streamed export (``tbdb.probe_files.streamed``), tables whose values stay
    in Parquet files give the byte-identical probe files the database's rows give, and every
    slot equals the table read whole."""
    import json

    from tbdb.probe_files import compare_dir, export
    from tbdb.probe_files.streamed import ENV
    with monkeypatch.context() as m:
        for what, value in (("stream", "0"), ("chunk", "3072"), ("sample", "2048")):
            m.setenv(ENV[what], value)
        digests = []
        for db, name in ((built[1], "parquet"), (embedded, "rows")):
            export(db, str(tmp_path / name), progress=False)
            with open(tmp_path / name / "manifest.json") as f:
                digests.append({e["table"]: e["sha256"] for e in json.load(f)["files"]})
    assert _values_files(built[1]) > 0 and sorted(digests[0]) == sorted(TABLES)
    assert digests[0] == digests[1]
    assert compare_dir(str(tmp_path / "parquet"), built[1]) == (len(TABLES), [])
