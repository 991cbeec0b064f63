"""``tbdb usi``, ``tbdb uci`` and ``tbdb lookup GAME -`` fed what a hostile or broken peer sends
(issue 61, items 5, 6, 8 and 11): bytes that are not UTF-8 under several locales, ``go`` lines
with every parameter malformed, lookups that raise, fallback engines that never finish their
handshake or write bad bytes, and a small fuzz.  Every ``go`` is answered, the process never
writes a traceback, and ends with status 0 at ``quit`` or the end of its input.

Each engine runs as a subprocess read by a thread, so a test that would hang fails at its
timeout instead."""
import io
import os
import queue
import random
import subprocess
import sys
import threading
import time
from pathlib import Path

import chess
import cshogi
import pytest

import tbdb
from tbdb.protocols import usi_fallback
from tbdb.protocols.uci import UciEngine
from tbdb.protocols.usi import UsiEngine

STUB = Path(__file__).with_name("usi_hostile_stub.py")
SHOGI_MATE_IN_1 = "4k4/9/4K4/9/9/9/9/9/9 b G 1"      # G*5b, the gold guarded by the king
CHESS_MATE_IN_1 = "k7/8/1K6/8/8/8/8/7R w - - 0 1"     # Rh8# (Ra1+ Kb8 escapes)
LOCALES = [{"PYTHONIOENCODING": "utf-8"},              # what en_US.UTF-8 gives
           {"LC_ALL": "C", "LANG": "C"},
           {"PYTHONIOENCODING": "ascii"},
           {"PYTHONIOENCODING": "latin-1"}]
ANSWERS = ("bestmove", "checkmate")


@pytest.fixture(scope="module")
def shogi_db(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("hostile-usi") / "kgk.duckdb")
    tbdb.build("shogi", db=path, table="KGK", progress=False)
    return path


@pytest.fixture(scope="module")
def chess_db(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("hostile-uci") / "krk.duckdb")
    tbdb.build("chess", db=path, material="KRvK", progress=False)
    return path


def _env(extra: dict) -> dict:
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONIOENCODING", "LC_ALL", "LANG", "PYTHONUTF8")}
    env.update(extra)
    return env


def run(argv: list[str], data: bytes, env: dict | None = None, timeout: float = 120):
    """``tbdb ARGV`` fed ``data`` on stdin: (status, stdout lines, stderr); a hang fails."""
    r = subprocess.run([sys.executable, "-m", "tbdb.cli.run", *argv], input=data,
                       capture_output=True, timeout=timeout, env=_env(env or {}))
    return r.returncode, r.stdout.decode("utf-8", "replace").splitlines(), \
        r.stderr.decode("utf-8", "replace")


class Engine:
    """An engine process whose output a thread reads into a queue: ``until`` waits for a
    line starting with one of ``ends`` and fails (never hangs) after ``timeout`` seconds."""

    def __init__(self, argv: list[str]):
        self.proc = subprocess.Popen([sys.executable, "-m", "tbdb.cli.run", *argv],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE)
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for raw in self.proc.stdout:
            self.lines.put(raw.decode("utf-8", "replace").rstrip("\n"))
        self.lines.put(None)

    def send(self, line: str) -> None:
        self.proc.stdin.write(line.encode() + b"\n")
        self.proc.stdin.flush()

    def until(self, *ends: str, timeout: float) -> list[str]:
        heard, deadline = [], time.monotonic() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"no {ends} within {timeout} s; heard {heard}") from None
            assert line is not None, f"the engine ended; heard {heard}"
            heard.append(line)
            if line.split(" ", 1)[0] in ends:
                return heard

    def quit(self) -> str:
        self.send("quit")
        try:
            status = self.proc.wait(timeout=30)
        finally:
            self.proc.kill()
        stderr = self.proc.stderr.read().decode("utf-8", "replace")
        assert status == 0 and "Traceback" not in stderr, stderr
        return stderr


def _shogi_mates(move: str) -> bool:
    board = cshogi.Board(SHOGI_MATE_IN_1)
    assert move in [cshogi.move_to_usi(m) for m in board.legal_moves]
    board.push_usi(move)
    return board.is_game_over()


def _chess_mates(move: str) -> bool:
    board = chess.Board(CHESS_MATE_IN_1)
    board.push(chess.Move.from_uci(move))  # (from_uci and push refuse nonsense)
    return board.is_checkmate()


# ---------------------------------------------------------------- item 5: bytes, locales

@pytest.mark.parametrize("locale", LOCALES, ids=lambda e: "-".join(e.values()))
def test_usi_answers_a_line_that_is_not_utf8_and_runs_on(shogi_db, locale):
    data = (b"usi\n\xff\nposition sfen " + SHOGI_MATE_IN_1.encode() + b"\ngo\n"
            b"go \xfe\xff byoyomi 100\n"            # a go that is not UTF-8 is still a go
            b"caf\xc3\xa9 \xe9\n" + "isready ²\n".encode() + b"quit\n")
    status, lines, stderr = run(["usi", "--db", shogi_db], data, locale)
    assert status == 0 and "Traceback" not in stderr, stderr
    assert "info string error: line b'\\xff' is not UTF-8; ignored" in lines
    assert any("b'caf\\xc3\\xa9 \\xe9'" in line for line in lines)  # the bytes, quoted exactly
    moves = [line.split()[1] for line in lines if line.startswith("bestmove")]
    assert len(moves) == 2 and all(_shogi_mates(m) for m in moves)
    assert "readyok" in lines
    assert any("score mate 1 " in line for line in lines)


@pytest.mark.parametrize("locale", LOCALES, ids=lambda e: "-".join(e.values()))
def test_uci_answers_a_line_that_is_not_utf8_and_runs_on(chess_db, locale):
    data = (b"uci\n\xff\xfe\nposition fen " + CHESS_MATE_IN_1.encode() + b"\ngo\n"
            b"go movetime \xff\n" + "setoption name ² value ²\n".encode() + b"isready\nquit\n")
    status, lines, stderr = run(["uci", "--db", chess_db], data, locale)
    assert status == 0 and "Traceback" not in stderr, stderr
    assert "info string error: line b'\\xff\\xfe' is not UTF-8; ignored" in lines
    moves = [line.split()[1] for line in lines if line.startswith("bestmove")]
    assert len(moves) == 2 and all(_chess_mates(m) for m in moves)
    assert "readyok" in lines and any("score mate 1 " in line for line in lines)


@pytest.mark.parametrize("locale", LOCALES, ids=lambda e: "-".join(e.values()))
def test_a_lookup_stream_answers_a_bad_line_with_an_error_line_and_goes_on(kcvp_db, locale):
    import json
    good = ["8/8/8/pKC5 r", "8/8/1K6/6pC b"]
    data = (good[0].encode() + b"\n\xff\x00\n" + b"a" * (2 << 20) + b"\n" + good[1].encode()
            + "\n8/8/8/pKC5 ²\n".encode())
    status, lines, stderr = run(["lookup", "cdc", "-", "--db", kcvp_db], data, locale)
    assert status == 0 and "Traceback" not in stderr, stderr
    out = [json.loads(line) for line in lines]
    assert len(out) == 5
    with tbdb.open(kcvp_db) as tb:  # the good lines: what a lookup of each says
        for i, text in ((0, good[0]), (3, good[1])):
            r = tb.lookup(text, game="cdc")
            assert (out[i]["outcome"], out[i]["distance"]) == (r.outcome, r.distance)
    assert out[0]["outcome"] == "win" and out[0]["distance"] == 1  # the cannon takes the pawn
    assert "not UTF-8" in out[1]["error"] and "\\xff" in out[1]["error"]
    assert "longer than" in out[2]["error"] and len(lines[2]) < 1000
    assert "²" in out[4]["error"]


# ---------------------------------------------------------------- item 6: go always answered

MALFORMED_GOS = ["go btime ²", "go mate ²", "go btime " + "9" * 5000, "go mate " + "9" * 5000,
                 "go byoyomi -1", "go wtime 1e9", "go nodes", "go depth depth", "go mate btime",
                 "go ¹²³ ponderhit", "go binc ٣", "go movetime 0x10", "go winc +5",
                 "go mate nomate 5", "go " + "x " * 3000]


def test_every_malformed_usi_go_gets_its_answer(shogi_db):
    e = Engine(["usi", "--db", shogi_db])
    try:
        e.send("usi")
        e.until("usiok", timeout=60)
        e.send(f"position sfen {SHOGI_MATE_IN_1}")
        for go in MALFORMED_GOS:
            e.send(go)
            answer = e.until(*ANSWERS, timeout=30)[-1].split()
            assert answer[1] == "G*5b" and _shogi_mates(answer[1]), (go[:40], answer)
        e.send("position sfen nonsense")
        for go in MALFORMED_GOS:
            e.send(go)
            assert e.until(*ANSWERS, timeout=30)[-1] in ("bestmove resign", "checkmate nomate")
    finally:
        e.quit()


# ---------------------------------------------------------------- item 8: lookups that raise

@pytest.mark.parametrize("error", [IndexError("list index out of range"), StopIteration(),
                                   KeyError(-2), tbdb.errors.TbdbError("KGK.tbp is damaged")])
def test_a_lookup_that_raises_still_gets_info_and_a_bestmove(shogi_db, chess_db, error):
    """What crafted tables with valid checksums did to the engines (a lookup raising
    IndexError, KeyError, StopIteration): the GUI is told in one line and gets its move."""
    def boom(*args, **kwargs):
        raise error

    for cls, db, position, owed in ((UsiEngine, shogi_db, f"sfen {SHOGI_MATE_IN_1}",
                                     ("bestmove resign", "checkmate notimplemented")),
                                    (UciEngine, chess_db, f"fen {CHESS_MATE_IN_1}",
                                     ("bestmove 0000",) * 2)):
        out = io.StringIO()
        engine = cls(db, out)
        engine.handle("isready")
        engine._tb.lookup = boom
        for go, answer in (("go", owed[0]), ("go mate 100", owed[1]), ("go btime 5", owed[0])):
            before = len(out.getvalue().splitlines())
            assert engine.handle(f"position {position}") and engine.handle(go)
            said = out.getvalue().splitlines()[before:]
            assert said[-1] == answer and said[-2].startswith("info string "), said
            assert len(said) <= 3
        engine.handle("go infinite")  # held back until stop, as a real answer would be
        assert not out.getvalue().splitlines()[-1].startswith("bestmove")
        engine.handle("stop")
        assert out.getvalue().splitlines()[-1] == owed[0]
        engine.handle("isready")
        assert out.getvalue().splitlines()[-1] == "readyok"
        engine.close()


def _crafted(src: str, dst: str, game: str, table: str, change) -> str:
    """A copy of the probe directory ``src`` whose ``table`` holds the values ``change`` made,
    encoded by tbdb's own writer and hashed in the manifest: valid checksums, bad contents."""
    import json
    import shutil
    from types import SimpleNamespace

    from tbdb.probe_files.build_dir import FileValues
    from tbdb.probe_files.directory import sha256_file
    from tbdb.probe_files.format import ProbeFile, write_table
    shutil.copytree(src, dst)
    manifest = json.loads(Path(dst, "manifest.json").read_text())
    entry = next(e for e in manifest["files"] if (e["game"], e["table"]) == (game, table))
    path = Path(dst, entry["path"])
    f = ProbeFile(str(path))
    v = FileValues(f)
    values = SimpleNamespace(result=v.result.copy(), distance=v.distance.copy(),
                             best=v.best.copy())
    meta = dict(f.meta)
    f.close()
    change(values)
    row = {k: meta[k] for k in ("storage", "params", "layout", "slots", "positions")}
    row["table_name"] = meta["table"]
    data = write_table(game, row, values, moves=True)
    path.unlink()
    path.write_bytes(data)
    entry["size"], entry["sha256"] = len(data), sha256_file(str(path))
    Path(dst, "manifest.json").write_text(json.dumps(manifest))
    return dst


@pytest.mark.parametrize("damage", ["best move out of range", "illegal result"])
def test_the_engines_answer_on_crafted_damaged_probe_files(chess_db, tmp_path, damage):
    """Item 8 as the issue found it: probe files whose checksums are valid but whose best-move
    codes are out of range, or whose results are the illegal code -2.  The GUI is told in an
    info string and still gets its bestmove; the process lives and ends with status 0."""
    def change(v):
        if damage == "illegal result":
            v.result[:] = -2
        else:
            v.best[:] = v.best.max() + 1000
    run(["export", "--db", chess_db, "--out", str(tmp_path / "dir")], b"")
    crafted = _crafted(str(tmp_path / "dir"), str(tmp_path / "crafted"), "chess", "KRvK",
                       change)
    data = (f"uci\nisready\nposition fen {CHESS_MATE_IN_1}\ngo\ngo infinite\nstop\n"
            f"isready\nquit\n").encode()
    status, lines, stderr = run(["uci", "--db", crafted], data)
    assert status == 0 and "Traceback" not in stderr, stderr
    assert lines.count("readyok") == 2
    answers = [i for i, line in enumerate(lines) if line.startswith("bestmove")]
    assert [lines[i] for i in answers] == ["bestmove 0000"] * 2
    assert all(lines[i - 1].startswith("info string ") for i in answers)


def test_isready_gets_readyok_whatever_opening_the_database_raises(monkeypatch, tmp_path):
    def boom(*args, **kwargs):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(tbdb, "open", boom)
    (tmp_path / "db").mkdir()
    for cls in (UsiEngine, UciEngine):
        out = io.StringIO()
        engine = cls(str(tmp_path / "db"), out)
        engine.handle("isready")
        engine.handle("isready")
        lines = out.getvalue().splitlines()
        assert lines[-1] == "readyok" and lines.count("readyok") == 2
        assert "cannot open the database" in lines[0] and "recursion" in lines[0]
        engine.handle("position startpos")
        engine.handle("go")
        assert out.getvalue().splitlines()[-1] in ("bestmove resign", "bestmove 0000")


# ---------------------------------------------------------------- item 11: fallback engines

def _fallback(mode: str) -> str:
    return f"{sys.executable} {STUB} {mode}"


def test_a_fallback_that_never_says_usiok_is_given_up_once_and_quickly(shogi_db):
    e = Engine(["usi", "--db", shogi_db])
    try:
        e.send("usi")
        e.until("usiok", timeout=60)
        e.send("setoption name Fallback value " + _fallback("mute"))
        started = time.monotonic()
        e.send("isready")
        heard = e.until("readyok", timeout=usi_fallback.USIOK_SECONDS + 20)
        assert time.monotonic() - started < usi_fallback.USIOK_SECONDS + 15
        said = [line for line in heard if line.startswith("info string")]
        assert len(said) == 1 and "did not answer 'usi'" in said[0] and "without it" in said[0]
        for _ in range(3):  # outside the tables: answered at once, without the fallback
            started = time.monotonic()
            e.send("position startpos moves 7g7f")
            e.send("go byoyomi 100")
            heard = e.until(*ANSWERS, timeout=10)
            assert heard[-1] == "bestmove resign" and time.monotonic() - started < 5
            assert not any("Fallback" in line or "fallback" in line for line in heard)
        e.send(f"position sfen {SHOGI_MATE_IN_1}")  # inside them, as before
        e.send("go")
        assert e.until(*ANSWERS, timeout=10)[-1].startswith("bestmove G*5b")
    finally:
        e.quit()


def test_a_fallback_that_never_gets_ready_is_given_up_once(shogi_db, monkeypatch):
    monkeypatch.setattr(usi_fallback, "READYOK_SECONDS", 1.0, raising=False)
    monkeypatch.setattr(usi_fallback, "HANDSHAKE_SECONDS", 1.0, raising=False)  # (its old name)
    out = io.StringIO()
    engine = UsiEngine(shogi_db, out)
    engine.handle("setoption name Fallback value " + _fallback("unready"))
    engine.handle("isready")
    lines = out.getvalue().splitlines()
    assert lines[-1] == "readyok" and "did not answer 'isready'" in lines[-2]
    assert engine._fallback is None  # its process was ended
    for _ in range(3):
        started = time.monotonic()
        engine.handle("position startpos")
        engine.handle("go byoyomi 100")
        assert out.getvalue().splitlines()[-1] == "bestmove resign"
        assert time.monotonic() - started < 1.0  # no handshake tried again
    assert sum("did not answer" in line for line in out.getvalue().splitlines()) == 1
    # setting the option again tries the engine again (a GUI does at every new game)
    engine.handle("setoption name Fallback value " + _fallback("unready"))
    engine.handle("isready")
    assert sum("did not answer" in line for line in out.getvalue().splitlines()) == 2
    engine.close()


def test_a_fallback_writing_bytes_that_are_not_utf8_is_still_relayed(shogi_db):
    e = Engine(["usi", "--db", shogi_db])
    try:
        e.send("setoption name Fallback value " + _fallback("bytes"))
        e.send("isready")
        assert e.until("readyok", timeout=30)[-1] == "readyok"
        e.send("position startpos")
        e.send("go byoyomi 100")
        heard = e.until(*ANSWERS, timeout=30)
        assert heard[-1] == "bestmove 2g2f" and any("caf" in line for line in heard)
    finally:
        e.quit()


def test_a_fallback_that_never_answers_its_search_is_answered_for_and_given_up(shogi_db):
    grace = usi_fallback.ANSWER_GRACE_SECONDS
    e = Engine(["usi", "--db", shogi_db])
    try:
        e.send("setoption name Fallback value " + _fallback("hang"))
        e.send("isready")
        assert e.until("readyok", timeout=30)[-1] == "readyok"
        e.send("position startpos")
        started = time.monotonic()
        e.send("go btime 0 wtime 0 byoyomi 500")  # black's clock: 0.5 s
        heard = e.until(*ANSWERS, timeout=grace + 20)
        assert heard[-1] == "bestmove resign" and grace < time.monotonic() - started < grace + 10
        assert "did not answer its search" in heard[-2]
        for go in ("go byoyomi 100", "go infinite"):  # given up: answered without it
            e.send(go)
            if go == "go infinite":
                e.send("stop")
            heard = e.until(*ANSWERS, timeout=5)
            assert heard[-1] == "bestmove resign" and not any("fallback" in h for h in heard)
        # tried again when the option is set again; `stop` owes an answer within the grace
        e.send("setoption name Fallback value " + _fallback("hang"))
        e.send("go infinite")
        time.sleep(1)
        started = time.monotonic()
        e.send("stop")
        assert e.until(*ANSWERS, timeout=grace + 20)[-1] == "bestmove resign"
        assert time.monotonic() - started < grace + 10
    finally:
        e.quit()


# ---------------------------------------------------------------- a small fuzz of both engines

def _fuzz_input(rng: random.Random, game: str) -> tuple[bytes, int]:
    """Hostile input and the number of answers it is owed (one per go)."""
    params = ["btime", "wtime", "byoyomi", "binc", "winc", "nodes", "movetime", "depth",
              "mate", "movestogo", "searchmoves"]
    values = ["²", "-1", "", "9" * 5000, "1e9", "0", "٣", "infinite", "\x00", "nan", "7"]
    positions = ([f"sfen {SHOGI_MATE_IN_1}", "startpos", "sfen", "sfen 9/9/9 b", "startpos moves",
                  "startpos moves 7g7f 7g7f", "sfen " + "k" * 5000 + " b - 1", "fen x",
                  f"sfen {SHOGI_MATE_IN_1} moves G*5b G*5b"] if game == "usi" else
                 [f"fen {CHESS_MATE_IN_1}", "startpos", "fen", "fen 8/8 w", "startpos moves",
                  "fen 8/8/8/8/8/8/8/8 w - - 0 1", f"fen {CHESS_MATE_IN_1} moves h1h8 h1h8",
                  "sfen x", "fen " + "K" * 5000 + " w - - 0 1"])
    lines, owed = [game.encode(), b"isready"], 0
    for _ in range(150):
        kind = rng.randrange(7)
        if kind == 0:  # random bytes, after one that no command begins with
            lines.append(b"\x80" + bytes(rng.randrange(256) for _ in range(rng.randrange(40)))
                         .replace(b"\n", b"").replace(b"\r", b""))
        elif kind == 1:
            lines.append(b"position " + rng.choice(positions).encode())
        elif kind in (2, 3):
            words = ["go"] + [rng.choice(params + values) for _ in range(rng.randrange(8))]
            words = [w for w in words if w not in ("infinite", "ponder")]
            lines.append(" ".join(words).encode())
            owed += 1
        elif kind == 4:
            lines.append(rng.choice([b"bogus", b"stop", b"ponderhit", b"usinewgame",
                                     b"ucinewgame", b"gameover win", b"setoption name",
                                     b"setoption name MateChecksOnly value maybe", b"isready",
                                     b"position", b"\t", b"", b"go\xff"]))
            owed += lines[-1] == b"go\xff"
        elif kind == 5:
            lines.append(b"x" * rng.choice([10, 100_000, 1_100_000]))
        else:
            lines.append(b"go infinite")
            lines.append(b"stop")
            owed += 1
    return b"\n".join(lines) + b"\ngo btime", owed + 1  # the end of the input mid-command


@pytest.mark.parametrize("game", ["usi", "uci"])
def test_fuzzed_engines_answer_every_go_and_end_cleanly(shogi_db, chess_db, game):
    rng = random.Random(61)
    for _ in range(2):
        data, owed = _fuzz_input(rng, game)
        db = shogi_db if game == "usi" else chess_db
        status, lines, stderr = run([game, "--db", db], data, {"PYTHONIOENCODING": "utf-8"},
                                    timeout=300)
        assert status == 0 and "Traceback" not in stderr and stderr == "", stderr[-2000:]
        answers = [line for line in lines if line.split(" ", 1)[0] in ANSWERS]
        assert len(answers) == owed
        assert all(len(line) < 5000 for line in lines)  # nothing echoed back whole
    # and quit, not the end of the input, ends it the same way
    status, lines, stderr = run([game, "--db", db], b"isready\ngo\nquit\ngo\n")
    assert status == 0 and lines[-1].split()[0] == "bestmove" and stderr == ""
