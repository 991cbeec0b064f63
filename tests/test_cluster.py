"""Cluster builds on Dask (tbdb/cluster.py) against the embedded build, the reference: rows,
statistics and catalogue table by table; corrupt files rebuilt; a worker and the coordinator
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
from tbdb.cluster_files import ClusterFileError, TablePaths, verified_manifest

distributed = pytest.importorskip("distributed")

from tbdb.cluster import build_cluster  # noqa: E402

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


def _same_as_embedded(db: str, embedded: str) -> None:
    mine, ref = _contents(db), _contents(embedded)
    assert sorted(mine) == sorted(ref) == sorted(TABLES)
    for t in TABLES:
        assert mine[t] == ref[t], f"table {t} differs from the embedded build"


def test_cluster_build_equals_embedded_table_by_table(embedded, built):
    out, db, summary = built
    assert sorted(summary.built) == sorted(TABLES) and summary.skipped == 0
    _same_as_embedded(db, embedded)
    for t in TABLES:
        assert verified_manifest(out, "cdc", t)["rows"] > 0
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
    truncated = TablePaths.of(out, "cdc", "GvN").values
    truncated.write_bytes(truncated.read_bytes()[:-100])
    flipped = TablePaths.of(out, "cdc", "GMvC").values
    data = bytearray(flipped.read_bytes())
    data[len(data) // 2] ^= 0x01  # same size: only the checksum can tell
    flipped.write_bytes(bytes(data))
    manifest = TablePaths.of(out, "cdc", "NCvM").manifest
    manifest.write_text(manifest.read_text()[:50])
    for t in ("GvN", "GMvC", "NCvM"):
        with pytest.raises(ClusterFileError):
            verified_manifest(out, "cdc", t)
    db = str(tmp_path / "tb.duckdb")
    summary = build_cluster("cdc", db=db, out=str(out), client=client, threads=1,
                            progress=False, material=MATERIAL)
    assert sorted(summary.built) == ["GMvC", "GvN", "NCvM"]
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
    finished = {t: TablePaths.of(out, "cdc", t).manifest.stat().st_mtime_ns for t in TABLES
                if TablePaths.of(out, "cdc", t).manifest.exists()}
    assert 3 <= len(finished) < len(TABLES)
    time.sleep(1)  # let the scheduler drop the dead coordinator's tasks
    summary = build_cluster("cdc", db=db, out=str(out), client=client, threads=1,
                            progress=False, material=MATERIAL)
    assert not set(summary.built) & set(finished)  # finished tables were not solved again
    assert summary.built, "nothing was left to build: the kill came too late to test resume"
    for t, mtime in finished.items():
        assert TablePaths.of(out, "cdc", t).manifest.stat().st_mtime_ns == mtime
    _same_as_embedded(db, embedded)


def test_cli_errors_are_one_line_exit_2(tmp_path, capsys):
    from tbdb.cli import main
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
