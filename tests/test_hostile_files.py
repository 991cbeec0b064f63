"""Hostile files (issue 22): links planted where tbdb writes, FIFOs and devices named as the
database, damaged and foreign databases, leftovers of killed builds, an unreachable cluster.
Every command answers with one line quoting the file, exits 2 and leaves the file as it was."""
import os
import shutil
import signal
import stat
import subprocess
import sys

import duckdb
import pyarrow.parquet as pq
import pytest

import tbdb
from tbdb.cli.run import main
from tbdb.errors import NotADatabaseError
from tests.test_safety import _one_line_error, copy_db  # noqa: F401 (a fixture)

READ_COMMANDS = [["lookup", "cdc", "8/8/8/pKC5 r"],
                 ["sql", "SELECT count(*), sum(result) FROM tb_index_values"],
                 ["status"], ["verify", "--no-progress"]]
WRITE_COMMANDS = [["build", "cdc", "--material", "CvP", "--no-progress"], ["upgrade"]]


@pytest.fixture
def alarm():
    """Fail a command that hangs (opening a FIFO waits for a writer) instead of hanging."""
    def ring(signum, frame):
        raise TimeoutError("the command hung")
    old = signal.signal(signal.SIGALRM, ring)
    signal.alarm(60)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


def _damaged(kcvp_db, tmp_path):
    data = open(kcvp_db, "rb").read()
    half = tmp_path / "half.duckdb"
    half.write_bytes(data[:len(data) // 2])
    mid = len(data) // 2
    garbage = tmp_path / "garbage.duckdb"  # 64 KiB of garbage in the middle
    garbage.write_bytes(data[:mid] + bytes(range(256)) * 256 + data[mid + 65536:])
    return [str(half), str(garbage)]


# --------------------------------------------------------------------------- sql --parquet

def test_sql_parquet_never_writes_through_a_planted_link(copy_db, kcvp_db, tmp_path, capsys):
    victim = tmp_path / "victim.duckdb"
    shutil.copy(kcvp_db, victim)
    before = victim.read_bytes()
    out = tmp_path / "out.parquet"
    os.symlink(victim, str(out) + ".tbdb-partial")  # where tbdb 0.1 wrote its temporary file
    assert main(["sql", "--db", copy_db, "SELECT 42 AS a", "--parquet", str(out)]) == 0
    assert victim.read_bytes() == before
    assert pq.read_table(out).column("a").to_pylist() == [42]
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o666 & ~_umask()
    assert sorted(os.listdir(tmp_path)) == ["copy.duckdb", "out.parquet",
                                            "out.parquet.tbdb-partial", "victim.duckdb"]


def _umask():
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def test_sql_parquet_writes_only_a_regular_file_or_a_new_path(copy_db, kcvp_db, tmp_path,
                                                             capsys):
    fifo = tmp_path / "fifo.parquet"
    os.mkfifo(fifo)
    link = tmp_path / "link.parquet"
    os.symlink(kcvp_db, link)
    for target, needle in ((fifo, "is a FIFO"), (link, "is a symbolic link"),
                           ("/dev/null", "is a character device"), (tmp_path, "a directory")):
        code = main(["sql", "--db", copy_db, "SELECT 1 AS a", "--parquet", str(target)])
        _one_line_error(capsys, code, repr(str(target)), needle)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and os.path.islink(link)
    assert sorted(os.listdir(tmp_path)) == ["copy.duckdb", "fifo.parquet", "link.parquet"]


# --------------------------------------------------------------------------- special --db

@pytest.mark.parametrize("kind", ["fifo", "socket", "/dev/null"])
def test_every_command_refuses_a_special_file_without_opening_it(kind, tmp_path, capsys,
                                                                 alarm):
    if kind == "fifo":
        path = str(tmp_path / "f.duckdb")
        os.mkfifo(path)
    elif kind == "socket":
        import socket
        path = str(tmp_path / "s.duckdb")
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(path)
    else:
        path = kind
    needle = {"fifo": "is a FIFO", "socket": "is a socket", "/dev/null": "character device"}
    commands = READ_COMMANDS + WRITE_COMMANDS + [["import", str(tmp_path)], ["serve"]]
    for args in commands:
        _one_line_error(capsys, main(args + ["--db", path]), repr(path), needle[kind])
    with pytest.raises(NotADatabaseError, match=needle[kind]):
        tbdb.open(path)
    with pytest.raises(NotADatabaseError, match=needle[kind]):
        tbdb.build("cdc", db=path, material="CvP", progress=False)
    assert stat.S_ISREG(os.stat(path).st_mode) is False


# --------------------------------------------------------------------------- damaged files

def test_every_command_names_a_damaged_file_and_leaves_it(kcvp_db, tmp_path, capsys):
    (tmp_path / "out").mkdir()
    commands = READ_COMMANDS + WRITE_COMMANDS + [["import", str(tmp_path / "out")]]
    for path in _damaged(kcvp_db, tmp_path):
        before = open(path, "rb").read()
        for args in commands:
            code = main(args + ["--db", path])
            if code == 0:  # garbage in blocks this command never reads: a correct answer
                assert args[0] == "status" and "garbage" in path, args
                capsys.readouterr()
            else:
                _one_line_error(capsys, code, repr(path), "is damaged", "restore it")
            assert open(path, "rb").read() == before, (path, args)
        with pytest.raises(NotADatabaseError, match="is damaged"):
            with tbdb.open(path) as tb:
                tb.lookup("8/8/8/pKC5 r")
    assert sorted(os.listdir(tmp_path)) == ["garbage.duckdb", "half.duckdb", "out"]


def test_serve_answers_500_naming_a_damaged_file(kcvp_db, tmp_path, capsys):
    pytest.importorskip("starlette")
    pytest.importorskip("httpx")
    from starlette.testclient import TestClient
    from tbdb.web.app import create_app
    half, garbage = _damaged(kcvp_db, tmp_path)
    _one_line_error(capsys, main(["serve", "--db", half]), repr(half), "is damaged")
    with TestClient(create_app(garbage)) as client:
        r = client.get("/api/cdc", params={"position": "8/8/8/pKC5 r"})
    assert r.status_code == 500 and "is damaged" in r.json()["error"], r.text


def test_build_refuses_empty_and_foreign_files_before_writing(kcvp_db, tmp_path, capsys):
    empty_duckdb = tmp_path / "empty.duckdb"
    duckdb.connect(str(empty_duckdb)).close()  # a DuckDB file without a table
    zero = tmp_path / "zero.duckdb"
    zero.write_bytes(b"")
    for path, needle in ((empty_duckdb, "without tables"), (zero, "is an empty file")):
        before = path.read_bytes()
        for args in WRITE_COMMANDS + [["import", str(tmp_path)]] + READ_COMMANDS:
            err = _one_line_error(capsys, main(args + ["--db", str(path)]), repr(str(path)))
            assert "not a tbdb database" in err, err
            if args[0] == "build" or path == zero:
                assert needle in err, err
            assert path.read_bytes() == before, (path, args)


def test_import_refuses_a_plain_file_as_the_directory(copy_db, capsys):
    before = open(copy_db, "rb").read()
    _one_line_error(capsys, main(["import", "/etc/passwd", "--db", copy_db]),
                    "'/etc/passwd' is not a directory")
    assert open(copy_db, "rb").read() == before


# --------------------------------------------------------------------------- leftovers

def test_a_build_removes_leftovers_of_dead_builds_only(tmp_path):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        db = tmp_path / "x.duckdb"
        stale = [f"x.duckdb.creating-{dead.pid}", f"x.duckdb.creating-{dead.pid}.wal"]
        for name in stale:
            (tmp_path / name).write_bytes(b"left by a killed build")
        (tmp_path / f"x.duckdb.creating-{dead.pid}-abc123").mkdir()
        (tmp_path / f"x.duckdb.creating-{dead.pid}-abc123" / "x.duckdb").write_bytes(b"x")
        mine = f"x.duckdb.creating-{live.pid}-def456"
        (tmp_path / mine).mkdir()
        tbdb.build("cdc", db=str(db), material="CvP", progress=False)
        assert sorted(os.listdir(tmp_path)) == sorted(["x.duckdb", mine])
    finally:
        live.kill()
        live.wait()


# --------------------------------------------------------------------------- cluster

def test_an_unreachable_scheduler_creates_nothing(tmp_path, monkeypatch, capsys):
    pytest.importorskip("distributed")
    from tbdb.cluster import dask_build as cluster
    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT", "1s")
    db, out = tmp_path / "tb.duckdb", tmp_path / "out"
    code = main(["build", "cdc", "--material", "CvP", "--cluster", "tcp://127.0.0.1:1",
                 "--out", str(out), "--db", str(db), "--no-progress"])
    _one_line_error(capsys, code, "'tcp://127.0.0.1:1'", "cannot reach the scheduler")
    assert os.listdir(tmp_path) == []
