"""The C prober against hostile files and input (issue 61, items 1, 3 and 10): probe files
changed under an open base (rewritten or truncated in place: the probe fails naming the file,
never a crash, an out-of-bounds read or a wrong value; replaced by rename: the base keeps
answering), a manifest that is a FIFO or a link out of its directory, and the batch mode's long
lines and line-by-line answers.  The C parts run under AddressSanitizer as test_native.py runs
them."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

import tbdb
from tests.native_lib import NATIVE, make

# positions of KCvP (the table changed) and one of CvP (left alone); their values are tbdb's
KCVP = ["8/8/8/pKC5 r", "8/8/1K6/6pC b", "8/8/8/pKC5 b"]
CVP = "8/8/8/pC6 r"
CHANGED, OK = -7, 0


def _sanitized(target: str) -> str:
    try:
        make(f"build/{target}")
    except subprocess.CalledProcessError as err:
        pytest.skip(f"no AddressSanitizer here: {err.stderr[-200:]}")
    return os.path.join(NATIVE, "build", target)


@pytest.fixture(scope="module")
def probe_dir(kcvp_db, tmp_path_factory):
    out = str(tmp_path_factory.mktemp("hostile") / "probe")
    from tbdb.probe_files import export
    export(kcvp_db, out, progress=False)
    return out


@pytest.fixture
def copy(probe_dir, tmp_path):
    d = tmp_path / "probe"
    shutil.copytree(probe_dir, d)
    return d


def _python_values(probe_dir: str) -> list[tuple]:
    """(outcome, distance, best move) of each position by tbdb's Python path (independent of C)."""
    env = dict(os.environ, TBDB_NATIVE="0")
    code = ("import sys, tbdb\ntb = tbdb.open(sys.argv[1])\nfor t in sys.argv[2:]:\n"
            "    r = tb.lookup(t, game='cdc'); print(r.outcome, r.distance, r.best_move)")
    out = subprocess.run([sys.executable, "-c", code, probe_dir, *KCVP, CVP], env=env,
                         capture_output=True, text=True, check=True).stdout.split("\n")
    return [tuple(line.split()) for line in out if line]


# --------------------------------------------------------------------- item 1, in C

@pytest.mark.parametrize("mode", ["truncate", "half", "flip", "copy", "chmod", "rename"])
@pytest.mark.parametrize("flags", [0, 1, 8 | 2 | 1], ids=["plain", "indexed", "lazy"])
def test_a_file_changed_under_an_open_base_fails_naming_it(copy, probe_dir, tmp_path, mode,
                                                           flags):
    """KCvP.tbp changed in place after its values were read: each later probe of it answers
    TB_CHANGED and tb_changed names the file (under AddressSanitizer: no out-of-bounds read,
    no SIGBUS); CvP, untouched, answers as before; replaced by rename, every answer stays."""
    tool = _sanitized("changed")
    texts = tmp_path / "texts.txt"
    texts.write_text("".join(f"cdc\t{t}\n" for t in KCVP + [CVP]))
    kcvp = str(copy / "cdc" / "KCvP.tbp")
    run = subprocess.run([tool, str(copy), str(texts), kcvp, str(copy / "cdc" / "CvP.tbp"),
                          mode, str(flags)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-3000:]
    lines = run.stdout.splitlines()
    before = [[int(x) for x in ln.split()[1:]] for ln in lines if ln.startswith("before")]
    after = [[int(x) for x in ln.split()[1:]] for ln in lines if ln.startswith("after")]
    assert [b[0] for b in before] == [OK] * 4
    want = _python_values(probe_dir)
    names = {1: "win", 0: "draw", -1: "loss"}
    assert [(names[b[1]], str(b[2])) for b in before] == [w[:2] for w in want]
    changed = [ln for ln in lines if ln.startswith("changed ")][0].split(" ", 1)[1]
    if mode == "rename":
        assert after == before and changed == "-"
    else:
        assert [a[0] for a in after[:3]] == [CHANGED] * 3, after
        assert after[3] == before[3]
        assert changed == kcvp


def _crafted(path, what: str) -> bytes:
    """The file's bytes with its VALS stream's block starts ascending far past its end
    ("starts"), or every pair of its grammar naming itself ("pairs"): what a probe reads again
    from the mapping after the file was checked."""
    import struct
    b = bytearray(open(path, "rb").read())
    meta, nsec = struct.unpack_from("<I", b, 44)[0], struct.unpack_from("<I", b, 40)[0]
    table = 48 + (meta + 7) // 8 * 8
    for i in range(nsec):
        tag, off = bytes(b[table + 56 * i:table + 56 * i + 4]), \
            struct.unpack_from("<Q", b, table + 56 * i + 8)[0]
        if tag == b"VALS":
            break
    k, symbols, _, _, _, blocks = struct.unpack_from("<IIIIQQ", b, off)
    pad = lambda n: (n + 7) // 8 * 8  # noqa: E731
    pairs = off + 32 + pad(4 * k)
    starts = pairs + pad(4 * (symbols - k)) + pad(symbols)
    if what == "starts":
        for j in range(blocks + 1):
            struct.pack_into("<I", b, starts + 4 * j, 0x10000000 + 64 * j)
    else:
        assert symbols > k  # a grammar to descend
        for t in range(k, symbols):
            struct.pack_into("<HH", b, pairs + 4 * (t - k), t, t)
    return bytes(b)


@pytest.mark.parametrize("mode", ["half", "flip", "copy", "starts", "pairs"])
@pytest.mark.parametrize("flags", [16, 16 | 1], ids=["plain", "indexed"])
def test_unwatched_probes_of_a_changed_file_stay_inside_it(copy, tmp_path, mode, flags):
    """TB_OPEN_UNWATCHED (no identity check a probe): a file changed in place may then give
    any answer, but every value read again from the mapping (block starts, pairs, run
    offsets) is bounded: no out-of-bounds read under AddressSanitizer (the issue's SEGV in
    ld64_be), no endless descent, no SIGBUS past a truncated end, and never TB_CHANGED."""
    tool = _sanitized("changed")
    texts = tmp_path / "texts.txt"
    texts.write_text("".join(f"cdc\t{t}\n" for t in KCVP + [CVP]))
    kcvp, other = copy / "cdc" / "KCvP.tbp", copy / "cdc" / "CvP.tbp"
    if mode in ("starts", "pairs"):
        other = tmp_path / "crafted.tbp"
        other.write_bytes(_crafted(kcvp, mode))
        mode = "copy"
    run = subprocess.run([tool, str(copy), str(texts), str(kcvp), str(other), mode,
                          str(flags)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr[-3000:]
    after = [int(ln.split()[1]) for ln in run.stdout.splitlines() if ln.startswith("after")]
    assert len(after) == 4 and CHANGED not in after and "changed -" in run.stdout


@pytest.mark.parametrize("flags", [0, 1, 8 | 2 | 1], ids=["plain", "indexed", "lazy"])
def test_threads_probing_while_a_file_changes_never_get_a_wrong_value(copy, tmp_path, flags):
    """Four threads probe while KCvP.tbp is rewritten in place or truncated under them, 12
    rounds: every answer is the one from before or TB_CHANGED, and after the change the file
    is refused (reads past its new end absorbed, under AddressSanitizer)."""
    tool = _sanitized("changed")
    texts = tmp_path / "texts.txt"
    texts.write_text("".join(f"cdc\t{t}\n" for t in KCVP + [CVP]))
    run = subprocess.run([tool, str(copy), str(texts), str(copy / "cdc" / "KCvP.tbp"),
                          str(copy / "cdc" / "CvP.tbp"), "race", str(flags), "4", "12"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr[-3000:]
    got = dict(zip(run.stdout.split()[::2], map(int, run.stdout.split()[1::2])))
    assert got["wrong"] == 0 and got["unflagged"] == 0 and got["changed"] > 0


def _batch(tool: str, directory, lines: list[str], timeout: float = 20) -> list[str]:
    """The tool's batch mode as a co-process: each line written, its answer read before the
    next is written (a tool that does not flush its answer fails by the timeout)."""
    import selectors
    p = subprocess.Popen([tool, str(directory), "cdc", "-"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    sel = selectors.DefaultSelector()
    sel.register(p.stdout, selectors.EVENT_READ)
    answers = []
    try:
        for line in lines:
            if callable(line):
                line()
                continue
            p.stdin.write(line.encode() + b"\n")
            p.stdin.flush()
            got = b""
            while not got.endswith(b"\n"):
                if not sel.select(timeout):
                    pytest.fail(f"no answer to {line[:60]!r} within {timeout} s")
                chunk = os.read(p.stdout.fileno(), 65536)
                if not chunk:
                    pytest.fail(f"the tool ended: {p.stderr.read().decode()[-3000:]}")
                got += chunk
            answers += got.decode().splitlines()
        p.stdin.close()
        assert p.wait(timeout=timeout) == 0, p.stderr.read().decode()[-3000:]
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    return answers


@pytest.mark.parametrize("mode", ["truncate", "copy"])
def test_the_tool_answers_a_changed_file_with_one_error_line(copy, mode):
    """The issue's reproduction: `tbprobe DIR cdc -`, the file changed between two lines (it
    read out of bounds in ld64_be under AddressSanitizer): one error line naming the file."""
    tool = _sanitized("tbprobe-asan")
    kcvp = copy / "cdc" / "KCvP.tbp"

    def change():
        if mode == "truncate":
            os.truncate(kcvp, 0)
        else:
            shutil.copyfile(copy / "cdc" / "CvP.tbp", kcvp)
    answers = _batch(tool, copy, [KCVP[0], change, KCVP[1], CVP])
    assert json.loads(answers[0])["best_move"] == "c1xa1"
    assert json.loads(answers[1]) == {"error": f"probe file '{kcvp}' changed since it was opened "
                                      "(rewritten or truncated in place); open the directory "
                                      "again"}
    assert json.loads(answers[2])["position"] == CVP


# --------------------------------------------------------------------- item 1, from Python

def _in_python(code: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code), *args],
                          capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("mode", ["truncate", "copy", "rename"])
def test_tb_lookup_on_a_changed_file_is_one_probe_file_error(copy, mode):
    """tb.lookup through libtbprobe (the extension's single lookups): after KCvP.tbp is
    truncated or rewritten in place the lookup raises ProbeFileError naming it, the process
    lives (a truncation used to end in "Bus error") and the next lookup of another table
    answers; replaced by rename, the lookup answers from the file opened."""
    from tbdb.probe_files import native
    if not native.available():
        pytest.skip("tbdb._tbprobe not built (pip install -e .)")
    run = _in_python("""
        import os, shutil, sys, tbdb
        from tbdb.probe_files.header import ProbeFileError
        d, mode = sys.argv[1], sys.argv[2]
        f = os.path.join(d, "cdc", "KCvP.tbp")
        tb = tbdb.open(d)
        print(tb.lookup("8/8/8/pKC5 r").best_move)
        if mode == "truncate":
            os.truncate(f, 0)
        elif mode == "copy":
            shutil.copyfile(os.path.join(d, "cdc", "CvP.tbp"), f)
        else:
            shutil.copyfile(os.path.join(d, "cdc", "CvP.tbp"), f + ".new")
            os.rename(f + ".new", f)
        try:
            r = tb.lookup("8/8/1K6/6pC b")
            print("answer", r.outcome, r.distance, r.best_move)
        except ProbeFileError as e:
            print("error", e)
        print("native", tb.prober.store.native.answered)
    """, str(copy), mode)
    assert run.returncode == 0, run.stderr[-3000:]
    out = run.stdout.splitlines()
    assert out[0] == "c1xa1"
    if mode == "rename":
        assert out[1] == "answer draw 0 g1-g2"
    else:
        kcvp = os.path.join(str(copy), "cdc", "KCvP.tbp")
        assert out[1] == (f"error probe file '{kcvp}' changed since it was opened (rewritten "
                          "or truncated in place); open the directory again")
    assert int(out[2].split()[1]) >= 1  # C answered (the route under test)


def test_guard_mapping_absorbs_a_read_past_a_truncated_files_end(tmp_path):
    """The extension's guard for the Python readers' own mappings: a read of a guarded
    mapping past its file's new end reads zeros and is counted (faults()), where it killed the
    process with SIGBUS; unguarded, the same read still dies by SIGBUS (the handler before
    ours, here the default, gets it)."""
    from tbdb.probe_files import native
    if native.guarded_extension() is None:
        pytest.skip("tbdb._tbprobe not built (pip install -e .)")
    code = """
        import os, sys
        import numpy as np
        from tbdb.probe_files import native
        path, guard = sys.argv[1], sys.argv[2] == "1"
        with open(path, "wb") as f:
            f.write(b"\\x07" * 65536)
        a = np.memmap(path, dtype=np.uint8, mode="r")  # as the Python readers map a file
        addr = a.ctypes.data
        if guard:
            assert native.guard_mapping(addr, 65536)
        before = native.faults()
        print(int(a[40000]))
        os.truncate(path, 4096)
        print(int(a[40000]), int(a[100]), native.faults() - before)
        native.unguard_mapping(addr)
    """
    ok = _in_python(code, str(tmp_path / "f.bin"), "1")
    assert ok.returncode == 0, ok.stderr[-2000:]
    assert ok.stdout.split() == ["7", "0", "7", "1"]
    dies = _in_python(code, str(tmp_path / "g.bin"), "0")
    assert dies.returncode == -7, (dies.returncode, dies.stdout, dies.stderr[-500:])  # SIGBUS


# --------------------------------------------------------------------- issue 61 item 7, in C

def _edit_entry(directory, change, table: str = "KCvP") -> None:
    """KCvP's manifest entry changed by ``change(entry)``, the manifest written as json.dump
    writes it (its size and sha256 still the file's: only the header can tell)."""
    path = os.path.join(str(directory), "manifest.json")
    with open(path) as f:
        m = json.load(f)
    change(next(e for e in m["files"] if e["table"] == table))
    with open(path, "w") as f:
        json.dump(m, f)


def _header(path) -> dict:
    """The file's meta JSON, read from its bytes (docs/probe-format.md section 1)."""
    import struct
    b = open(path, "rb").read()
    return json.loads(b[48:48 + struct.unpack_from("<I", b, 44)[0]])


def _set(k, v):
    return lambda e: e.__setitem__(k, v)


# (what the entry is given, the field named, the manifest's value as json.dump writes it)
CONTRADICTED = [("slots 0", _set("slots", 0), "slots", "0"),
                ("storage key", _set("storage", "key"), "storage", '"key"'),
                ("params {}", _set("params", {}), "params", "{}"),
                ("params pieces 2", lambda e: e["params"].__setitem__("pieces", 2), "params",
                 None),
                ("layout null", _set("layout", None), "layout", "null"),
                ("positions a float", lambda e: e.__setitem__("positions", float(e["positions"])),
                 "positions", None),
                ("slots true", _set("slots", True), "slots", "true"),
                ("moves false", _set("moves", False), "moves", "false")]


@pytest.mark.parametrize("name,change,field,given", CONTRADICTED,
                         ids=[c[0] for c in CONTRADICTED])
def test_tbprobe_refuses_an_entry_its_files_header_contradicts(copy, name, change, field,
                                                               given):
    """An entry whose slots, storage, params, layout, positions or moves flag its file's
    header contradicts (size and sha256 still right): tbprobe refuses the file in one line
    naming the field and both values, as tbdb's Python does (directory.header_mismatch); it
    compared only the table name and answered from a file its manifest misdescribes."""
    tool = _sanitized("tbprobe-asan")
    kcvp = copy / "cdc" / "KCvP.tbp"
    meta = _header(kcvp)
    _edit_entry(copy, change)
    with open(copy / "manifest.json") as f:
        entry = next(e for e in json.load(f)["files"] if e["path"] == "cdc/KCvP.tbp")
    run = subprocess.run([tool, str(copy), "cdc", KCVP[0]], capture_output=True, text=True,
                         timeout=30)
    assert run.returncode == 2 and run.stdout == "", (run.stdout, run.stderr)
    if field == "moves":
        said = "true"
    else:
        said = json.dumps(meta[field], separators=(",", ":"))
    given = given if given is not None else json.dumps(entry[field])
    assert run.stderr == (f"tbprobe: error: probe file '{kcvp}' is not the file its manifest "
                          f"lists: its header says {field} {said}, the manifest {given}; export "
                          "it again\n")


@pytest.mark.parametrize("how", ["members reordered", "an escaped letter", "indented"])
def test_tbprobe_takes_an_entry_that_says_the_same_in_other_words(copy, how):
    """The comparison is of JSON values, not of their text: params with their members in
    another order, a name's letter written \\u004b, or the manifest indented, still answer."""
    tool = _sanitized("tbprobe-asan")
    path = copy / "manifest.json"
    if how == "members reordered":
        _edit_entry(copy, lambda e: e.__setitem__("params", dict(reversed(e["params"].items()))))
    elif how == "an escaped letter":
        text = path.read_text()
        assert text.count('"letters": "KCp"') == 1
        path.write_text(text.replace('"letters": "KCp"', '"letters": "\\u004bCp"'))
    else:
        path.write_text(json.dumps(json.loads(path.read_text()), indent=3))
    run = subprocess.run([tool, str(copy), "cdc", KCVP[0], "--json"], capture_output=True,
                         text=True, timeout=30)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["best_move"] == _python_values(str(copy))[0][2]


@pytest.mark.parametrize("name,change", [(c[0], c[1]) for c in CONTRADICTED[:3]],
                         ids=[c[0] for c in CONTRADICTED[:3]])
def test_the_extension_refuses_an_entry_its_files_header_contradicts(copy, name, change):
    """tbdb._tbprobe (tbdb's single lookups) opens each file itself: with an entry its header
    contradicts, its probe refuses the file (the table's name: not added, the Python path's
    to answer), where it answered from it; CvP still answers; tb.lookup then raises the
    one-line ProbeFileError naming the field, and C answered nothing."""
    from tbdb.probe_files import native
    if native.guarded_extension() is None:
        pytest.skip("tbdb._tbprobe not built (pip install -e .)")
    Base = native.guarded_extension().Base
    assert isinstance(Base(str(copy), 1 << 30).probe("cdc", KCVP[0], -1), tuple)
    want = _python_values(str(copy))[3]
    _edit_entry(copy, change)
    base = Base(str(copy), 1 << 30)
    assert base.probe("cdc", KCVP[0], -1) == "KCvP"
    assert base.probe("cdc", CVP, -1)[3] == want[2]
    run = _in_python("""
        import sys, tbdb
        from tbdb.probe_files.header import ProbeFileError
        tb = tbdb.open(sys.argv[1])
        try:
            print("answer", tb.lookup("8/8/8/pKC5 r").best_move)
        except ProbeFileError as e:
            print("error", e)
        print("native", tb.prober.store.native.answered)
    """, str(copy))
    assert run.returncode == 0, run.stderr[-3000:]
    out = run.stdout.splitlines()
    kcvp = os.path.join(str(copy), "cdc", "KCvP.tbp")
    assert out[0].startswith(f"error probe file '{kcvp}' is not the file its manifest lists: "
                             f"its header says {name.split()[0]} "), out
    assert out[1] == "native 0"


# --------------------------------------------------------------------- issue 61 item 8, in C

def test_shogi_move_text_refuses_every_code_no_move_has():
    """tb_shogi_move_text against tbdb's own decoder (game._stored_move_usi, symmetry 0): the
    same text for every code it reads, nothing for every code it refuses; the C text ignored
    the bits above the promote flag (2 ** 15 + a move read as that move) and read a "to" of 81
    to 127 from square 9i as a square of file 10 to 15."""
    from tbdb.games.shogi.game import _stored_move_usi
    from tests.native_lib import Lib
    lib = Lib()
    pos = lib.parse("shogi", "8K/9/9/9/9/9/G8/1k7/9 b - 1")
    codes = [to | frm << 7 | p for to in (0, 40, 80, 81, 127) for frm in (0, 80, 81, 87, 88, 127)
             for p in (0, 1 << 14)]
    codes = codes + [c + (1 << 15) for c in codes] + [c + (1 << 24) for c in codes[:12]]
    for code in codes:
        try:
            want = _stored_move_usi(code, 0)
        except ValueError:
            want = None
        assert lib.move_text(pos, code) == want, code


# --------------------------------------------------------------------- item 3

def test_a_fifo_manifest_is_refused_at_once(copy):
    tool = _sanitized("tbprobe-asan")
    os.unlink(copy / "manifest.json")
    os.mkfifo(copy / "manifest.json")
    run = subprocess.run([tool, str(copy), "cdc", KCVP[0]], capture_output=True, text=True,
                         timeout=10)
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr == (f"tbprobe: error: manifest '{copy}/manifest.json' is a FIFO (named "
                          "pipe), not a regular file\n")


def test_links_out_of_the_directory_are_refused(copy, probe_dir, tmp_path):
    """manifest.json or a probe file linked to a file outside the directory: one line, as
    tbdb's Python refuses them (format.check_inside); a link inside it is followed."""
    tool = _sanitized("tbprobe-asan")
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    shutil.copy(copy / "manifest.json", outside / "manifest.json")
    os.unlink(copy / "manifest.json")
    os.symlink(outside / "manifest.json", copy / "manifest.json")
    run = subprocess.run([tool, str(copy), "cdc", KCVP[0]], capture_output=True, text=True,
                         timeout=10)
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr == (f"tbprobe: error: manifest '{copy}/manifest.json' is a link to "
                          f"'{outside}/manifest.json', outside '{copy}'; probe files must lie "
                          "inside their directory\n")
    os.unlink(copy / "manifest.json")  # inside: followed
    shutil.move(outside / "manifest.json", copy / "real-manifest.json")
    os.symlink("real-manifest.json", copy / "manifest.json")
    run = subprocess.run([tool, str(copy), "cdc", KCVP[0], "--json"], capture_output=True,
                         text=True, timeout=10)
    assert run.returncode == 0 and json.loads(run.stdout)["best_move"] == "c1xa1"
    kcvp = copy / "cdc" / "KCvP.tbp"
    shutil.move(kcvp, outside / "KCvP.tbp")
    os.symlink(outside / "KCvP.tbp", kcvp)
    run = subprocess.run([tool, str(copy), "cdc", KCVP[0]], capture_output=True, text=True,
                         timeout=10)
    assert run.returncode == 2 and run.stderr.count("\n") == 1
    assert run.stderr == f"tbprobe: error: probe file '{kcvp}' leaves '{copy}'\n"


# --------------------------------------------------------------------- item 10

def test_batch_mode_answers_each_line_once_whatever_its_length(probe_dir):
    """4 lines in, 4 answers out: a line of 5,000 or 100,000 bytes is one error line (it was
    answered in pieces, 6 answers for 4 lines), and the lines around it are answered."""
    tool = _sanitized("tbprobe-asan")
    lines = [KCVP[0], "x" * 5000, KCVP[1] + " " * 100_000, CVP]
    run = subprocess.run([tool, probe_dir, "cdc", "-"], input="\n".join(lines) + "\n",
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr[-2000:]
    answers = [json.loads(a) for a in run.stdout.splitlines()]
    assert len(answers) == 4
    assert answers[0]["best_move"] == "c1xa1" and answers[3]["position"] == CVP
    assert answers[1] == {"error": "a line of 5000 bytes: longer than any position (at most "
                          "4095 bytes a line)"}
    assert answers[2] == {"error": "a line of 100013 bytes: longer than any position (at most "
                          "4095 bytes a line)"}


def test_batch_mode_answers_a_co_process_line_by_line(probe_dir):
    """A co-process writes a line and waits for its answer before the next: each answer comes
    at once (they sat in stdout's buffer until the input ended: a deadlock)."""
    tool = _sanitized("tbprobe-asan")
    answers = _batch(tool, probe_dir, KCVP + ["8/8/8/8 r", CVP])
    assert [json.loads(a).get("best_move", "error") for a in answers][:3] == \
        [v[2] for v in _python_values(probe_dir)[:3]]
    assert "error" in json.loads(answers[3]) and json.loads(answers[4])["position"] == CVP
