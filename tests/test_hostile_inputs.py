"""Hostile inputs of issue 61: JSON nested 100,000 deep (a manifest, a probe file's header, a
database's ``tb_tables.params``), dangling links and empty directories given to import and
build, raw Python errors of the API, and command-line messages a new user meets.  Every
command answers with one line naming the file, exits 2, prints no traceback and leaves the
files as they were (or does not create them)."""
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import time

import duckdb
import numba
import numpy as np
import pytest

import tbdb
from tbdb import safe_json
from tbdb.errors import InvalidArrayError, TbdbError
from tbdb.probe_files.header import HEADER, SECTION, pad8

DEEP = "[" * 100000 + "]" * 100000
POSITION = "8/8/8/pKC5 r"
TBDB = [sys.executable, "-m", "tbdb.cli"]  # the console script's entry point


def _tbdb(*args, stdin: str = "", env: dict | None = None, cwd=None, timeout: int = 120):
    """``tbdb ARGS`` in a subprocess: (exit status, stdout, stderr)."""
    run = subprocess.run([*TBDB, *args], input=stdin, text=True,
                         capture_output=True, timeout=timeout, cwd=cwd,
                         # (a warning, such as a stale native build's, is not the error)
                         env={**os.environ, "PYTHONWARNINGS": "ignore", **(env or {})})
    return run.returncode, run.stdout, run.stderr


def _refused(args, *, names: str, stdin: str = "", env=None, status: int = 2, cwd=None):
    code, out, err = _tbdb(*args, stdin=stdin, env=env, cwd=cwd)
    assert "Traceback" not in err and "Error:" not in err.replace("error:", ""), err[-2000:]
    lines = err.strip().splitlines()
    assert code == status, (code, err[-2000:])
    assert len(lines) == 1 and names in lines[0], err[-2000:]
    return lines[0]


def _snapshot(path) -> dict:
    """{relative path: sha256} of every file under ``path`` (or of the file itself)."""
    if os.path.isfile(path):
        return {"": hashlib.sha256(open(path, "rb").read()).hexdigest()}
    out = {}
    for head, _, files in os.walk(path):
        for f in files:
            p = os.path.join(head, f)
            out[os.path.relpath(p, path)] = hashlib.sha256(open(p, "rb").read()).hexdigest()
    return out


@pytest.fixture(scope="module")
def probe_dir(kcvp_db, tmp_path_factory):
    out = tmp_path_factory.mktemp("probe") / "pf"
    tbdb.probe_files.export(kcvp_db, str(out), progress=False)
    return str(out)


# --------------------------------------------------------------------------- the JSON reader

def test_the_reader_refuses_what_json_would_recurse_on_or_take_silently():
    for text in (DEEP, "{\"a\":" * 50000 + "1" + "}" * 50000, "[" * 33 + "]" * 33):
        with pytest.raises(ValueError, match="nested more than 32 deep"):
            safe_json.loads(text)
    assert safe_json.loads("[" * 32 + "]" * 32) == json.loads("[" * 32 + "]" * 32)
    # brackets inside strings (with escaped quotes) are text, not nesting
    assert safe_json.loads('["' + "[{" * 100 + '\\"' + "[" * 100 + '", 1]') == \
        ["[{" * 100 + '"' + "[" * 100, 1]
    for text, what in (("NaN", "NaN"), ("[-Infinity]", "Infinity"), ("[1e999]", "out of range"),
                       ('{"files": 1, "files": 2}', "twice"), ("1" * 5000, "5,000 digits")):
        with pytest.raises(ValueError, match=what):
            safe_json.loads(text)
    assert safe_json.loads(b'{"a": [1, 2.5, -3, "x"]}') == {"a": [1, 2.5, -3, "x"]}
    with pytest.raises(ValueError):
        safe_json.loads(b"\xff")
    with pytest.raises(ValueError, match="not an object"):
        safe_json.loads_object("[1]")


def test_the_reader_takes_linear_time_on_hostile_strings():
    # an unterminated string of escaped quotes: a regular expression that retried at each
    # quote would take quadratic time (minutes) here
    text = '"' + '\\"' * 500000
    start = time.perf_counter()
    with pytest.raises(ValueError):
        safe_json.loads(text)
    assert time.perf_counter() - start < 5


# --------------------------------------------------------------------------- nested manifests

@pytest.mark.parametrize("args, stdin", [
    (["lookup", "cdc", POSITION, "--db", "{d}"], ""),
    (["verify", "--db", "{d}"], ""),
    (["status", "--db", "{d}"], ""),
    (["usi", "--db", "{d}"], "usi\nquit\n"),
    (["serve", "--db", "{d}", "--port", "59151"], ""),  # (refused before it binds)
    (["export", "--db", "{db}", "--out", "{d}"], ""),
    (["build", "cdc", "--material", "CvP", "--probe-files", "{d}", "--no-progress"], ""),
])
def test_a_manifest_nested_deep_is_refused_in_one_line(args, stdin, probe_dir, kcvp_db,
                                                        tmp_path):
    d = tmp_path / "pf"
    shutil.copytree(probe_dir, d)
    (d / "manifest.json").write_text(DEEP)
    before = _snapshot(d)
    _refused([a.format(d=d, db=kcvp_db) for a in args], stdin=stdin,
             names=f"{os.path.join(d, 'manifest.json')!r}")
    assert _snapshot(d) == before


def test_python_refuses_a_deep_manifest_with_its_error(probe_dir, tmp_path):
    d = tmp_path / "pf"
    shutil.copytree(probe_dir, d)
    (d / "manifest.json").write_text(DEEP)
    with pytest.raises(tbdb.probe_files.ProbeFileError, match="nested more than 32 deep"):
        tbdb.open(str(d))


# --------------------------------------------------------------------------- probe file headers

def _with_meta(data: bytes, meta: bytes) -> bytes:
    """Probe file ``data`` with its header's JSON replaced by ``meta`` (sections moved along,
    their checksums unchanged: a crafted file, as valid as the original otherwise)."""
    f = list(HEADER.unpack(data[:HEADER.size]))
    head_bytes, n, old = f[2], f[7], f[8]
    at = HEADER.size + old + pad8(old)
    sections = [SECTION.unpack(data[at + i * SECTION.size:at + (i + 1) * SECTION.size])
                for i in range(n)]
    new_head = HEADER.size + len(meta) + pad8(len(meta)) + SECTION.size * n
    f[2], f[8] = new_head, len(meta)
    table = b"".join(SECTION.pack(tag, r, off + new_head - head_bytes, length, digest)
                     for tag, r, off, length, digest in sections)
    return HEADER.pack(*f) + meta + b"\0" * pad8(len(meta)) + table + data[head_bytes:]


def _craft(probe_dir, tmp_path, meta_of) -> str:
    """A copy of ``probe_dir`` whose KCvP file has the header JSON ``meta_of(original)``, its
    manifest entry rewritten to match the new file (size and sha256)."""
    d = tmp_path / "pf"
    shutil.copytree(probe_dir, d)
    path = d / "cdc" / "KCvP.tbp"
    data = path.read_bytes()
    meta_bytes = HEADER.unpack(data[:HEADER.size])[8]
    data = _with_meta(data, meta_of(data[HEADER.size:HEADER.size + meta_bytes]))
    path.write_bytes(data)
    manifest = json.loads((d / "manifest.json").read_text())
    for e in manifest["files"]:
        if e["table"] == "KCvP":
            e["size"], e["sha256"] = len(data), hashlib.sha256(data).hexdigest()
    (d / "manifest.json").write_text(json.dumps(manifest, indent=1))
    return str(d)


def test_the_crafting_keeps_a_file_that_reads(probe_dir, tmp_path):
    # the same header JSON, re-spaced: the file still answers (the craft itself is sound)
    d = _craft(probe_dir, tmp_path, lambda meta: json.dumps(json.loads(meta)).encode())
    with tbdb.open(d) as crafted, tbdb.open(probe_dir) as original:
        assert crafted.lookup(POSITION).to_dict() == original.lookup(POSITION).to_dict()


@pytest.mark.parametrize("meta", [DEEP.encode(), b"[1]"], ids=["deep", "a list"])
@pytest.mark.parametrize("native", ["0", "1"])
def test_a_probe_header_nested_deep_is_refused_in_one_line(meta, native, probe_dir, tmp_path):
    d = _craft(probe_dir, tmp_path, lambda _: meta)
    before = _snapshot(d)
    env = {"TBDB_NATIVE": native}
    name = f"{os.path.join(d, 'cdc', 'KCvP.tbp')!r}"
    line = _refused(["lookup", "cdc", POSITION, "--db", d], env=env, names=name)
    assert "damaged" in line
    code, out, err = _tbdb("verify", "--db", d, env=env)
    assert code == 1 and "Traceback" not in err and name in out + err, (out, err)
    assert _snapshot(d) == before


# --------------------------------------------------------------------------- tb_tables.params

@pytest.fixture
def deep_params_db(kcvp_db, tmp_path):
    db = str(tmp_path / "deep.duckdb")
    shutil.copy(kcvp_db, db)
    con = duckdb.connect(db)
    con.execute("UPDATE tb_tables SET params = ? WHERE table_name = 'KCvP'", [DEEP])
    con.close()
    return db


@pytest.mark.parametrize("args", [
    ["lookup", "cdc", POSITION, "--db", "{db}"],
    ["verify", "--db", "{db}", "--no-progress"],
    ["export", "--db", "{db}", "--out", "{out}"],
])
def test_params_nested_deep_are_refused_in_one_line(args, deep_params_db, tmp_path):
    before = _snapshot(deep_params_db)
    out = tmp_path / "out"
    line = _refused([a.format(db=deep_params_db, out=out) for a in args],
                    names=f"{deep_params_db!r}")
    assert "cdc table 'KCvP'" in line
    assert _snapshot(deep_params_db) == before


def test_python_refuses_deep_params(deep_params_db):
    with tbdb.open(deep_params_db) as tb, pytest.raises(tbdb.NotADatabaseError, match="params"):
        tb.lookup(POSITION)


# --------------------------------------------------------------------------- import and build

def test_import_into_a_dangling_link_is_refused(kcvp_db, tmp_path):
    out = tmp_path / "out"
    (out / "cdc").mkdir(parents=True)
    (out / "cdc" / "KCvP.json").write_text("{}")  # something to import, or so it seems
    link = tmp_path / "link.duckdb"
    target = tmp_path / "elsewhere.duckdb"
    os.symlink(target, link)
    line = _refused(["import", str(out), "--db", str(link)], names=f"{str(link)!r}")
    assert "symbolic link" in line
    assert not target.exists() and os.path.islink(link)


def test_a_build_into_a_dangling_link_is_refused(tmp_path):
    link = tmp_path / "link.duckdb"
    target = tmp_path / "elsewhere.duckdb"
    os.symlink(target, link)
    line = _refused(["build", "cdc", "--material", "CvP", "--db", str(link), "--no-progress"],
                    names=f"{str(link)!r}")
    assert "symbolic link" in line
    assert not target.exists() and sorted(os.listdir(tmp_path)) == ["link.duckdb"]


def test_an_import_with_nothing_to_import_creates_nothing(kcvp_db, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "notes.txt").write_text("no tables here")
    new = tmp_path / "new.duckdb"
    _refused(["import", str(empty), "--db", str(new)], names=f"{str(empty)!r}")
    assert not new.exists()
    db = tmp_path / "copy.duckdb"
    shutil.copy(kcvp_db, db)
    before = _snapshot(db)
    _refused(["import", str(empty), "--db", str(db)], names=f"{str(empty)!r}")
    assert _snapshot(db) == before and sorted(os.listdir(tmp_path)) == ["copy.duckdb", "empty"]


# --------------------------------------------------------------------------- the Python API

def test_a_path_with_a_null_byte_is_a_tbdb_error_quoting_it():
    for path in ("a\0b", "a\0b/pf"):
        with pytest.raises(tbdb.NotADatabaseError) as err:
            tbdb.open(path)
        assert repr(path) in str(err.value) and "\n" not in str(err.value)


def test_bytes_and_path_objects_name_the_file(kcvp_db):
    import pathlib
    for path in (os.fsencode(kcvp_db), pathlib.Path(kcvp_db)):
        with tbdb.open(path) as tb:
            assert tb.path == kcvp_db


@pytest.mark.parametrize("where", ["db", "dir"])
def test_load_of_a_table_name_that_is_no_text_is_a_tbdb_error(where, kcvp_db, probe_dir):
    with tbdb.open(kcvp_db if where == "db" else probe_dir) as tb:
        for bad in (None, 5, b"KCvP"):
            with pytest.raises(TbdbError) as err:
                tb.load("cdc", bad)
            assert isinstance(err.value, ValueError) and repr(bad) in str(err.value)
        assert tb.load("cdc", "KCvP") >= 0  # text still loads


@pytest.mark.parametrize("where", ["db", "dir"])
def test_lookup_arrays_with_arrays_missing_is_a_tbdb_error(where, kcvp_db, probe_dir):
    boards = np.full((1, 32), -1, np.int8)
    with tbdb.open(kcvp_db if where == "db" else probe_dir) as tb:
        for arrays in ((), (boards,), (boards, np.zeros(1, np.int8), boards)):
            with pytest.raises(InvalidArrayError) as err:
                tb.lookup_arrays("cdc", *arrays)
            text = str(err.value)
            assert "(boards, sides)" in text and f"got {len(arrays)}" in text
            assert "\n" not in text and "batch_locate" not in text


# --------------------------------------------------------------------------- command-line words

def test_an_option_out_of_range_is_named_by_its_flag(tmp_path):
    line = _refused(["build", "cdc", "--max-pieces", "9", "--db", str(tmp_path / "x.duckdb")],
                    names="--max-pieces must be an integer from 2 to 5, not 9")
    assert "max_pieces" not in line and not os.listdir(tmp_path)
    with pytest.raises(tbdb.InvalidOptionError, match="^max_pieces must be"):  # Python's name
        tbdb.build("cdc", db=str(tmp_path / "x.duckdb"), max_pieces=9, progress=False)


def test_no_default_database_says_how_to_build_or_name_one(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "TBDB_DB"}
    run = subprocess.run([*TBDB, "lookup", "cdc", POSITION], text=True,
                         capture_output=True, timeout=300, cwd=tmp_path, env=env)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    line, = run.stderr.strip().splitlines()
    assert "no tbdb database at 'tbdb.duckdb'" in line
    assert "tbdb build GAME --db tbdb.duckdb" in line and "--db" in line.split("`")[-1]
    assert not os.listdir(tmp_path)


def test_a_build_with_a_warm_cache_does_not_say_it_compiles(tmp_path):
    db = str(tmp_path / "x.duckdb")
    args = ["build", "cdc", "--material", "KCvP", "--db", db]
    assert _tbdb(*args)[0] == 0  # (compiles whatever a cold cache lacks)
    os.remove(db)
    code, out, err = _tbdb(*args)
    assert code == 0 and "compil" not in err + out, err


def test_the_compile_notice_speaks_when_numba_compiles():
    from tbdb.build import _CompileNotice
    from tbdb.progress import Progress
    stream = io.StringIO()
    notice = _CompileNotice(Progress(1, "cdc build", mode="lines", stream=stream), "cdc")
    notice.table = "KCvP"
    notice.install()
    try:
        @numba.njit  # a function no cache holds: Numba compiles it here
        def fresh(x):
            return x + 1
        assert fresh(1) == 2 and fresh(2.5) == 3.5  # two compilations, one notice
    finally:
        notice.remove()
    assert stream.getvalue().count("compiling the kernels") == 1
    assert stream.getvalue().startswith("cdc: KCvP: compiling")

    @numba.njit
    def after(x):
        return x - 1
    assert after(1) == 0 and stream.getvalue().count("\n") == 1  # removed: silent again


@pytest.mark.parametrize("where", ["db", "dir"])
def test_tables_of_a_game_that_is_no_name_is_a_tbdb_error(where, kcvp_db, probe_dir):
    with tbdb.open(kcvp_db if where == "db" else probe_dir) as tb:
        for bad in (5, "backgammon"):
            with pytest.raises(tbdb.UnknownGameError, match="unknown game"):
                tb.tables(bad)  # (5 was DuckDB's ConversionException, 'backgammon' [])
        assert sorted(t["table_name"] for t in tb.tables("cdc")) == ["CvP", "KCvP"]


def test_an_import_of_a_fifo_manifest_does_not_hang(tmp_path):
    out = tmp_path / "out"
    (out / "cdc").mkdir(parents=True)
    os.mkfifo(out / "cdc" / "KCvP.json")  # opened to read, it would wait for a writer forever
    code, stdout, err = _tbdb("import", str(out), "--db", str(tmp_path / "new.duckdb"),
                              timeout=60)
    assert code == 0 and "Traceback" not in err, err
    assert "not complete" in stdout and "cdc:KCvP" in stdout
