"""``tbdb usi`` driven as a GUI drives it, through cshogi's USI client (``cshogi.usi.Engine``):
the handshake, every command, ``score mate`` on hand-checked distances, mates played out and
judged by cshogi's own rules, ``go mate``, positions outside the tables, garbage, ``stop``
during ``go infinite``, ``quit``, the fallback engine and the ``tbdb-usi`` entry point."""
import hashlib
import shutil
import stat
import subprocess
import sys
import threading
from pathlib import Path

import cshogi
import pytest
from cshogi.usi import Engine

import tbdb

from .usi_stub_engine import STUB_MOVE

STUB = Path(__file__).with_name("usi_stub_engine.py")
MATE_IN_93 = "8K/9/9/9/9/9/G8/1k7/9 b - 1"
MATE_IN_1 = "4k4/9/4K4/9/9/9/9/9/9 b G 1"           # G*5b, guarded by the king
BARE_KING_WINS_IN_3 = "9/9/9/9/9/4k4/4G4/9/4K4 w - 1"  # 5f5g, a king step, a gold drop
MATED = "4k4/4G4/4K4/9/9/9/9/9/9 w - 1"
BARE_KINGS = "4k4/9/9/9/9/9/9/9/4K4 b - 1"
KGGK = "4k4/9/4G4/9/9/9/9/9/4K4 b G 1"                 # a table this database does not hold
WATCHDOG_SECONDS = 900  # only a hung engine meets it (the module takes minutes when loaded)


@pytest.fixture(scope="module")
def kgk_db(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("usi") / "kgk.duckdb")
    tbdb.build("shogi", db=path, table="KGK", progress=False)
    return path


def _digest(path: str) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def unchanged_db(kgk_db):
    """The database, checked byte for byte after every test of the module has run."""
    before = _digest(kgk_db)
    yield kgk_db
    assert _digest(kgk_db) == before, "the USI engine wrote to its database"


class _Strict:
    """cshogi's client reads until an answer and compares bytes with '' at the end of the
    output, so a dead engine would hang it: here the end of the output raises."""

    def __init__(self, stream):
        self.stream = stream

    def readline(self):
        line = self.stream.readline()
        if not line:
            raise EOFError("the engine closed its output")
        return line

    def flush(self):
        pass


def _script(tmp_path: Path, argv: list[str], name: str = "engine") -> str:
    """An executable with no arguments (cshogi runs Popen([path])) that starts ``argv``."""
    path = tmp_path / name
    quoted = " ".join("'" + a.replace("'", "'\\''") + "'" for a in argv)
    path.write_text(f"#!/bin/sh\nexec {quoted}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def _start(cmd: str) -> Engine:
    """cshogi's Engine on ``cmd``, connected as ``Engine(cmd)`` connects (Popen([cmd]), then
    `usi` until `usiok`), but through _Strict and under a watchdog from the first line."""
    engine = Engine(cmd, connect=False)
    engine.proc = subprocess.Popen([cmd], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE)
    engine.proc.stdout = _Strict(engine.proc.stdout)
    timer = threading.Timer(WATCHDOG_SECONDS, engine.proc.kill)
    timer.daemon = True
    timer.start()
    lines = engine.usi()
    engine.name = next(line[len("id name "):] for line in lines if line.startswith("id name "))
    return engine


def _stop_engine(engine: Engine) -> None:
    if engine.proc is not None:
        engine.quit()


@pytest.fixture(scope="module")
def engine(unchanged_db, tmp_path_factory):
    cmd = _script(tmp_path_factory.mktemp("usi-engine"),
                  [sys.executable, "-m", "tbdb.cli.run", "usi", "--db", unchanged_db])
    e = _start(cmd)
    e.isready()
    yield e
    _stop_engine(e)


def send(engine: Engine, line: str) -> None:
    engine.proc.stdin.write(line.encode() + b"\n")
    engine.proc.stdin.flush()


def read_until(engine: Engine, *ends: str) -> list[str]:
    """Lines the engine says up to and including the first starting with one of ``ends``."""
    lines = []
    while True:
        line = engine.proc.stdout.readline().decode().strip()
        lines.append(line)
        if line.split(" ", 1)[0] in ends:
            return lines


def go(engine: Engine, sfen: str, moves=(), **limits) -> tuple[str, list[str]]:
    """(bestmove line, info lines) for a position, through cshogi's position and go."""
    heard = []
    engine.position(list(moves), sfen="sfen " + sfen)
    engine.go(listener=heard.append, **limits)
    return heard[-1], [h for h in heard if h.startswith("info")]


def info_fields(line: str) -> dict:
    words = line.split()
    out = {}
    i = 1
    while i < len(words):
        if words[i] == "pv":
            out["pv"] = words[i + 1:]
            break
        if words[i] == "score":
            out["score"] = (words[i + 1], words[i + 2])
            i += 3
            continue
        if words[i] == "string":
            out["string"] = " ".join(words[i + 1:])
            break
        out[words[i]] = words[i + 1]
        i += 2
    return out


def is_mate(board: cshogi.Board) -> bool:
    return board.is_game_over() and board.is_check()


# --------------------------------------------------------------------------- handshake

def test_handshake_names_the_engine_and_its_options(engine, unchanged_db):
    assert engine.name.startswith("tbdb ")
    lines = engine.usi()
    assert f"option name Database type string default {unchanged_db}" in lines
    assert "option name Fallback type string default <empty>" in lines
    assert any(line.startswith("id author ") for line in lines)
    engine.setoption("USI_Hash", 256)      # every GUI sends these two: taken in silence
    engine.setoption("USI_Ponder", "true")
    send(engine, "setoption name Fallback value")          # cleared: an empty value
    send(engine, "setoption name Fallback value <empty>")
    engine.usinewgame()
    send(engine, "isready")
    assert read_until(engine, "readyok") == ["readyok"]


# --------------------------------------------------------------------------- values

@pytest.mark.parametrize("sfen, moves, score, best", [
    (MATE_IN_1, (), ("mate", "1"), "G*5b"),
    (BARE_KING_WINS_IN_3, (), ("mate", "3"), "5f5g"),
    (BARE_KING_WINS_IN_3, ("5f5g",), ("mate", "-2"), None),   # being mated: negative
    (MATE_IN_93, (), ("mate", "93"), None),
    (MATE_IN_93, ("9g8f",), ("mate", "-92"), None),
    (BARE_KINGS, (), ("cp", "0"), None),                     # a draw
])
def test_go_scores_mate_in_plies_and_draws_as_cp_0(engine, sfen, moves, score, best):
    answer, infos = go(engine, sfen, moves, byoyomi=1000, btime=0, wtime=0)
    fields = info_fields(infos[-1])
    assert fields["depth"] == "1" and fields["score"] == score
    bestmove = answer.split()[1]
    assert fields["pv"][0] == bestmove
    if best is not None:
        assert bestmove == best
    if score[0] == "mate":
        assert len(fields["pv"]) == abs(int(score[1]))
    board = cshogi.Board(sfen)
    for m in moves:
        board.push_usi(m)
    assert board.is_legal(board.move_from_usi(bestmove))


def test_the_pv_ends_in_mate_by_cshogis_rules(engine):
    for sfen in (MATE_IN_1, BARE_KING_WINS_IN_3, MATE_IN_93):
        _, infos = go(engine, sfen)
        pv = info_fields(infos[-1])["pv"]
        board = cshogi.Board(sfen)
        for i, m in enumerate(pv):
            assert not board.is_game_over()
            move = board.move_from_usi(m)
            assert board.is_legal(move), (sfen, i, m)
            board.push(move)
        assert is_mate(board)


def test_playing_both_sides_mates_in_exactly_the_stated_plies(engine):
    """The engine plays both sides of a mate in 93 from the position and the moves so far (as
    a GUI sends them); cshogi judges every move and the end."""
    board = cshogi.Board(MATE_IN_93)
    moves = []
    expected = 93
    while True:
        answer, infos = go(engine, MATE_IN_93, moves, btime=60000, wtime=60000, binc=1000,
                           winc=1000)
        if board.is_game_over():
            assert answer == "bestmove resign"
            break
        score = info_fields(infos[-1])["score"]
        assert score == ("mate", str(expected if len(moves) % 2 == 0 else -expected))
        move = board.move_from_usi(answer.split()[1])
        assert board.is_legal(move)
        board.push(move)
        moves.append(answer.split()[1])
        expected -= 1
    assert len(moves) == 93 and is_mate(board)


def test_a_mated_engine_resigns(engine):
    answer, infos = go(engine, MATED, byoyomi=100)
    assert answer == "bestmove resign"
    assert any("no legal move" in info for info in infos)


def test_nodes_and_every_time_control_are_accepted(engine):
    for limits in ({"nodes": 1000}, {"btime": 5000, "wtime": 5000, "binc": 100, "winc": 100},
                   {"byoyomi": 0}):
        answer, _ = go(engine, MATE_IN_1, **limits)
        assert answer.startswith("bestmove G*5b")
    engine.position(sfen="sfen " + MATE_IN_1)
    send(engine, "go movetime 10 depth 3")
    lines = read_until(engine, "bestmove")
    assert lines[-1] == "bestmove G*5b" and not any("error" in line for line in lines)


# --------------------------------------------------------------------------- go mate

def test_go_mate_answers_checkmate_with_a_mating_line(engine):
    for sfen in (MATE_IN_1, BARE_KING_WINS_IN_3, MATE_IN_93):
        engine.position(sfen="sfen " + sfen)
        answer = engine.go_mate(byoyomi=1000)
        board = cshogi.Board(sfen)
        for m in answer.split():
            board.push_usi(m)
        assert is_mate(board), (sfen, answer)
    engine.position(sfen="sfen " + MATE_IN_1)
    assert engine.go_mate() == "G*5b"   # `go mate infinite`


@pytest.mark.parametrize("sfen", [MATED, BARE_KINGS, "9/9/9/9/9/4k4/9/9/4K4 b g 1"])
def test_go_mate_without_a_mate_says_nomate(engine, sfen):
    engine.position(sfen="sfen " + sfen)
    assert engine.go_mate(byoyomi=1000) == "nomate"


@pytest.mark.parametrize("sfen, plies", [
    (MATE_IN_1, 1),
    ("9/9/9/9/9/9/9/k8/2K6 b G 1", 3),        # G*8h 9h9i 8h8i: every attacking move checks
    ("9/6k2/8K/9/9/9/9/9/9 w g 1", 5),        # white attacks
    (BARE_KING_WINS_IN_3, None),              # its table mate starts with a capture: no check
    ("k8/9/2K6/9/1G7/9/9/9/9 b - 1", None),   # mate in 5, but every check hangs the gold
    (MATED, None),
])
def test_mate_checks_only_answers_tsume_lines(engine, sfen, plies):
    """With MateChecksOnly, go mate answers a tsume solution: the attacker checks with every
    move (cshogi judges each), the line ends in mate; nomate where no check-only mate exists
    (each of these checked by a brute-force check-only search to 7 plies)."""
    engine.setoption("MateChecksOnly", "true")
    try:
        engine.position(sfen="sfen " + sfen)
        answer = engine.go_mate()  # `go mate infinite`
    finally:
        engine.setoption("MateChecksOnly", "false")
    if plies is None:
        assert answer == "nomate"
        return
    moves = answer.split()
    assert len(moves) == plies
    board = cshogi.Board(sfen)
    for i, m in enumerate(moves):
        board.push_usi(m)
        if i % 2 == 0:
            assert board.is_check(), (sfen, moves, i)
    assert is_mate(board)


def test_mate_checks_only_keeps_to_its_time_and_its_option_is_checked(engine):
    engine.setoption("MateChecksOnly", "true")
    try:
        engine.position(sfen="sfen " + MATE_IN_1)
        send(engine, "go mate 0")                  # no time at all: it gives up at once
        assert read_until(engine, "checkmate")[-1] == "checkmate timeout"
        send(engine, "setoption name MateChecksOnly value maybe")
        send(engine, "isready")
        lines = read_until(engine, "readyok")
        assert "true or false" in lines[0]
    finally:
        engine.setoption("MateChecksOnly", "false")
    assert "option name MateChecksOnly type check default false" in engine.usi()


# --------------------------------------------------------------------------- outside the tables

@pytest.mark.parametrize("position", ["startpos", "sfen " + KGGK, "startpos moves 7g7f 3c3d"])
def test_outside_the_tables_it_says_so_and_resigns(engine, position):
    heard = []
    send(engine, f"position {position}")
    answer, _ = engine.go(byoyomi=100, listener=heard.append)
    assert answer == "resign"
    assert any(h.startswith("info string") and "no table" in h for h in heard)
    send(engine, f"position {position}")
    send(engine, "go mate 100")
    assert read_until(engine, "checkmate")[-1] == "checkmate notimplemented"
    assert go(engine, MATE_IN_1)[0] == "bestmove G*5b"  # and it carries on


# --------------------------------------------------------------------------- garbage

@pytest.mark.parametrize("garbage", [
    "hello", "\x00\x01\x02 binary", "position", "position sfen", "position sfen 9/9 b - 1",
    "position startpos moves 7g7x", "position startpos moves 7g7f 7g7f", "position startpos 7g7f",
    "position sfen 4k4/9/4K4/9/9/9/9/9/9 x G 1", "setoption", "setoption name NoSuchOption value 3",
    "x" * 100_000,
])
def test_malformed_commands_get_an_info_string_and_the_engine_runs_on(engine, garbage):
    send(engine, garbage)
    send(engine, "isready")
    lines = read_until(engine, "readyok")
    assert lines[-1] == "readyok"
    assert len(lines) == 2 and lines[0].startswith("info string error: "), lines
    assert len(lines[0]) < 400  # a quoted input is cut short
    if garbage.startswith("position"):  # a refused position leaves none: go says so
        send(engine, "go byoyomi 100")
        lines = read_until(engine, "bestmove")
        assert lines[-1] == "bestmove resign" and "no position" in lines[0]
    assert go(engine, MATE_IN_1)[0] == "bestmove G*5b"


def test_a_bad_go_parameter_is_said_and_the_move_still_comes(engine):
    engine.position(sfen="sfen " + MATE_IN_1)
    send(engine, "go byoyomi soon nodes")
    lines = read_until(engine, "bestmove")
    assert lines[-1] == "bestmove G*5b"
    assert sum(line.startswith("info string error: go byoyomi") for line in lines) == 1
    assert sum(line.startswith("info string error: go nodes") for line in lines) == 1


# --------------------------------------------------------------------------- stop, ponder

def test_go_infinite_holds_the_move_until_stop_while_reading_commands(engine):
    engine.position(sfen="sfen " + MATE_IN_93)
    send(engine, "go infinite")
    send(engine, "isready")           # answered while the search waits for stop
    lines = read_until(engine, "readyok", "bestmove")
    assert lines[-1] == "readyok"
    assert info_fields(lines[0])["score"] == ("mate", "93")
    engine.stop()
    assert read_until(engine, "bestmove")[-1] == "bestmove 9g8f ponder 8h7g"
    send(engine, "stop")              # nothing left to stop: silence
    send(engine, "isready")
    assert read_until(engine, "readyok") == ["readyok"]


def test_go_ponder_answers_on_ponderhit_and_gameover_cancels(engine):
    engine.position(sfen="sfen " + MATE_IN_1)
    send(engine, "go ponder btime 1000 wtime 1000 byoyomi 1000")
    send(engine, "isready")
    assert read_until(engine, "readyok", "bestmove")[-1] == "readyok"
    engine.ponderhit()
    assert read_until(engine, "bestmove")[-1] == "bestmove G*5b"
    send(engine, "go ponder byoyomi 1000")
    engine.gameover("lose")           # the game ended while pondering: no move is owed
    send(engine, "isready")
    assert read_until(engine, "readyok", "bestmove")[-1] == "readyok"
    assert go(engine, MATE_IN_1)[0] == "bestmove G*5b"


def test_go_during_a_search_is_refused(engine):
    engine.position(sfen="sfen " + MATE_IN_1)
    send(engine, "go infinite")
    send(engine, "go")
    send(engine, "isready")
    lines = read_until(engine, "readyok", "bestmove")
    assert lines[-1] == "readyok" and "send stop first" in lines[-2]
    engine.stop()
    assert read_until(engine, "bestmove")[-1] == "bestmove G*5b"


# --------------------------------------------------------------------------- processes

def test_the_end_of_the_input_ends_the_process(unchanged_db, tmp_path):
    cmd = _script(tmp_path, [sys.executable, "-m", "tbdb.cli.run", "usi", "--db", unchanged_db])
    r = subprocess.run([cmd], input="usi\nisready\n", capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.splitlines()[-1] == "readyok"


def test_a_bad_db_argument_is_one_line_and_exit_2(tmp_path):
    r = subprocess.run([sys.executable, "-m", "tbdb.cli.run", "usi", "--db",
                        str(tmp_path / "nope.duckdb")], input="", capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
    assert "nope.duckdb" in r.stderr and "Traceback" not in r.stderr


def test_probe_file_directories_answer_the_same(unchanged_db, tmp_path):
    out = tmp_path / "probe"
    r = subprocess.run([sys.executable, "-m", "tbdb.cli.run", "export", "--db", unchanged_db,
                        "--out", str(out), "--no-progress"], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    e = _start(_script(tmp_path, [sys.executable, "-m", "tbdb.cli.run", "usi", "--db", str(out)]))
    proc = e.proc
    try:
        answer, infos = go(e, MATE_IN_93)
        assert answer == "bestmove 9g8f ponder 8h7g"
        assert info_fields(infos[-1])["score"] == ("mate", "93")
    finally:
        _stop_engine(e)
    assert proc.returncode == 0  # quit ended the process


def _entry_point() -> str:
    found = Path(sys.executable).with_name("tbdb-usi")
    if not found.exists():
        found = shutil.which("tbdb-usi")
        if found is None:
            pytest.skip("tbdb-usi is not installed (pip install -e .)")
    return str(found)


def test_tbdb_usi_takes_its_database_from_the_environment_or_the_option(unchanged_db,
                                                                       tmp_path, monkeypatch):
    monkeypatch.setenv("TBDB_DB", unchanged_db)
    e = _start(_entry_point())      # cshogi runs the bare executable: Popen([path])
    try:
        assert f"option name Database type string default {unchanged_db}" in e.usi()
        assert go(e, MATE_IN_1)[0] == "bestmove G*5b"
    finally:
        _stop_engine(e)

    monkeypatch.setenv("TBDB_DB", str(tmp_path / "missing.duckdb"))
    e = _start(_entry_point())
    try:
        send(e, "isready")
        lines = read_until(e, "readyok")
        assert "cannot open the database" in lines[0] and "missing.duckdb" in lines[0]
        assert go(e, MATE_IN_1)[0] == "bestmove resign"
        e.setoption("Database", unchanged_db)   # what a GUI's option dialog sends
        e.isready()
        assert go(e, MATE_IN_1)[0] == "bestmove G*5b"
    finally:
        _stop_engine(e)


def test_the_fallback_gets_exactly_the_positions_outside_the_tables(unchanged_db, tmp_path):
    log = tmp_path / "stub.log"
    e = _start(_script(tmp_path, [sys.executable, "-m", "tbdb.cli.run", "usi", "--db",
                                  unchanged_db]))
    try:
        # an engine that will not start is said, and the engine resigns outside the tables
        e.setoption("Fallback", str(tmp_path / "no-such-engine"))
        send(e, "isready")
        lines = read_until(e, "readyok")
        assert "no-such-engine" in lines[0] and "did not start" in lines[0]
        send(e, "position startpos")
        assert e.go(byoyomi=100) == ("resign", None)

        e.setoption("Fallback", f"{sys.executable} {STUB} {log}")
        e.isready()
        outside = ["position startpos moves 7g7f", f"position sfen {KGGK}"]
        asked = [f"position sfen {MATE_IN_93}", outside[0], f"position sfen {BARE_KINGS}",
                 outside[1], f"position sfen {MATE_IN_1}"]
        answers = []
        for position in asked:
            heard = []
            send(e, position)
            answers.append(e.go(btime=1000, wtime=2000, byoyomi=300, listener=heard.append)[0])
            if position in outside:  # the fallback's own words come through
                assert "info depth 7 score cp 42 pv " + STUB_MOVE in heard
        assert answers == ["9g8f", STUB_MOVE, answers[2], STUB_MOVE, "G*5b"]
        # go infinite on the fallback: stop is passed on, and its answer relayed
        send(e, outside[0])
        send(e, "go infinite")
        send(e, "isready")
        assert read_until(e, "readyok", "bestmove")[-1] == "readyok"
        e.stop()
        assert read_until(e, "bestmove") == ["bestmove " + STUB_MOVE]  # one readyok, no more
        send(e, outside[1])
        send(e, "go mate 500")
        assert read_until(e, "checkmate")[-1] == "checkmate nomate"
    finally:
        _stop_engine(e)
    received = log.read_text().splitlines()
    positions = [line for line in received if line.startswith("position")]
    assert positions == [outside[0], outside[1], outside[0], outside[1]]
    gos = [line for line in received if line.startswith("go")]
    assert gos == ["go btime 1000 wtime 2000 byoyomi 300"] * 2 + ["go infinite", "go mate 500"]
    assert received[:2] == ["usi", "isready"] and "stop" in received and received[-1] == "quit"
