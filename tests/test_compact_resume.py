"""A compact solve killed inside a table resumes from its saved state (kill -9 at several
points: right after the children pass, mid-way through the distances) and gives the rows of an
uninterrupted build; a save of another table is ignored; a finished table leaves no save."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from tbdb.retrograde import driver
from tbdb.retrograde.compact import resume_in
from tests.test_resume import fingerprint

BUILD = ["build", "chinese-checkers", "--board", "4", "--pieces", "6", "--mode", "compact",
         "--no-progress"]
SAVES = ("chinese-checkers", "4x4-6")


def _kill_at_level(db: Path, level: int) -> int:
    """Start the build, kill -9 it once its save has reached ``level``; the level saved."""
    env = dict(os.environ, TBDB_SAVE_SECONDS="0")  # save at every pass boundary
    proc = subprocess.Popen([sys.executable, "-m", "tbdb.cli.run", *BUILD, "--db", str(db)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    meta = Path(f"{db}.solving").joinpath(*SAVES, "meta.json")
    deadline = time.monotonic() + 300
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                saved = json.loads(meta.read_text())["level"]
            except (OSError, ValueError, KeyError):
                saved = -1
            if saved >= level:
                proc.send_signal(signal.SIGKILL)
                break
            time.sleep(0.02)
    finally:
        proc.wait(timeout=60)
    assert proc.returncode == -signal.SIGKILL, f"the build ended before level {level}"
    return json.loads(meta.read_text())["level"]


def _rerun(db: Path) -> str:
    done = subprocess.run([sys.executable, "-m", "tbdb.cli.run", *BUILD, "--db", str(db)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return done.stderr


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    db = tmp_path_factory.mktemp("ref") / "ref.duckdb"
    _rerun(db)
    assert not Path(f"{db}.solving").joinpath(*SAVES).exists()  # removed once solved
    return fingerprint(db)[0]


@pytest.mark.slow  # three builds and a reference build of 4x4-6 in subprocesses: ~2 min
@pytest.mark.parametrize("level", [0, 9, 27])
def test_a_build_killed_mid_table_resumes_from_its_saved_state(tmp_path, reference, level):
    db = tmp_path / "cc.duckdb"
    saved = _kill_at_level(db, level)
    status = subprocess.run([sys.executable, "-m", "tbdb.cli.run", "status", "--db", str(db)],
                            capture_output=True, text=True, timeout=120)
    assert f"4x4-6: interrupted mid-build; its solve is saved at distance {saved}" in \
        status.stdout, status.stdout + status.stderr
    err = _rerun(db)
    assert f"resuming its solve at distance {saved}" in err, err
    assert fingerprint(db)[0] == reference
    assert not Path(f"{db}.solving").exists()


class _Stop(Exception):
    pass


@pytest.mark.parametrize("stop_at", [1, 9, 20])
def test_a_solve_stopped_between_passes_resumes_to_the_same_rows(tmp_path, monkeypatch,
                                                                 stop_at):
    """In process (the kill -9 builds above are slow): stopped after pass ``stop_at`` of
    5x5-2 (25 plies), solved again in the same save directory, it resumes there."""
    from tbdb.retrograde import compact
    from tbdb.games.chinese_checkers.tables import RhombusTable
    monkeypatch.setattr(compact, "SAVE_SECONDS", 0.0)
    want = driver.solve_index(RhombusTable(5, 2), "edges")

    def stop(stage, done, total):
        if stage == "levels" and done >= stop_at:
            raise _Stop

    resumed = []
    with resume_in(tmp_path / "save"):
        with pytest.raises(_Stop):
            driver.solve_index(RhombusTable(5, 2), "compact", stop)
        got = driver.solve_index(RhombusTable(5, 2), "compact",
                                 lambda stage, done, total: resumed.append(done)
                                 if stage == "resumed" else None)
    assert resumed == [stop_at - 1]  # the last pass saved before the stop
    for field in ("result", "distance", "best", "multiplicity"):
        assert (getattr(got, field) == getattr(want, field)).all(), field
    # the finished state stays saved until the rows are stored: a kill while they are being
    # written (best moves are picked then) resumes at the write, with no pass to redo
    passes = []
    with resume_in(tmp_path / "save"):
        again = driver.solve_index(RhombusTable(5, 2), "compact",
                                   lambda stage, done, total: passes.append((stage, done)))
    assert passes[0][0] == "resumed" and not [p for p in passes if p[0] in ("children",
                                                                           "levels")]
    assert (again.result == want.result).all()
    again.stored()
    assert not (tmp_path / "save").exists()


def test_a_solve_stopped_inside_its_children_pass_resumes_there(tmp_path, monkeypatch):
    """The first pass over 10^9 slots takes an hour: it saves at chunk boundaries, and a solve
    stopped inside it continues from the saved chunk (not from slot 0) to the same rows."""
    from tbdb.retrograde import compact
    from tbdb.retrograde.compact import saved_solve
    from tbdb.games.chinese_checkers.tables import RhombusTable
    monkeypatch.setattr(compact, "SAVE_SECONDS", 0.0)
    from tbdb.retrograde import spaces
    monkeypatch.setattr(spaces, "CHUNK_SLOTS", 4096)  # 5x5-2: 19 chunks (the compact passes)
    want = driver.solve_index(RhombusTable(5, 2), "edges")

    def stop(stage, done, total):
        if stage == "children" and done >= 40_000:
            raise _Stop

    with resume_in(tmp_path / "save"):
        with pytest.raises(_Stop):
            driver.solve_index(RhombusTable(5, 2), "compact", stop)
        assert saved_solve(tmp_path / "save") == \
            "saved in its first (children) pass, at slot 36,864 of 75,900"
        seen = []
        got = driver.solve_index(RhombusTable(5, 2), "compact",
                                 lambda stage, done, total: seen.append((stage, done)))
    assert seen[0] == ("resumed children", 36_864)
    assert seen[1] == ("children", 36_864 + 4096)  # no chunk before the save done again
    for field in ("result", "distance", "best", "multiplicity"):
        assert (getattr(got, field) == getattr(want, field)).all(), field
    got.stored()
    assert not (tmp_path / "save").exists()


@pytest.mark.parametrize("damage", ["bit", "cut", "meta", "no level", "word", "dtype"])
def test_a_damaged_save_is_not_resumed_from(tmp_path, monkeypatch, damage):
    """A save whose state no longer holds what was written (a bit flipped on disk, a file cut
    short, a meta.json that does not parse, lacks a field or names the wrong state word) is
    said and dropped, and the table solved from the start to the same rows: resumed from, a
    flipped bit became a wrong value in every row it reached, and a file cut short or a missing
    field a traceback."""
    from tbdb.retrograde import compact
    from tbdb.games.chinese_checkers.tables import RhombusTable
    monkeypatch.setattr(compact, "SAVE_SECONDS", 0.0)
    want = driver.solve_index(RhombusTable(5, 2), "edges")

    def stop(stage, done, total):
        if stage == "levels" and done >= 9:
            raise _Stop

    save = tmp_path / "save"
    with resume_in(save):
        with pytest.raises(_Stop):
            driver.solve_index(RhombusTable(5, 2), "compact", stop)
        meta = json.loads((save / "meta.json").read_text())
        state = save / f"state.{meta['generation']}.npy"
        if damage == "bit":  # a byte of the words near the end (the header is at the start)
            data = bytearray(state.read_bytes())
            data[-100] ^= 0x01
            state.write_bytes(bytes(data))
        elif damage == "cut":
            state.write_bytes(state.read_bytes()[:-100])
        elif damage == "meta":
            (save / "meta.json").write_text('{"level": 9, "fingerprint": ')
        elif damage == "no level":  # parses, names this table, lacks where it stopped
            del meta["level"]
            (save / "meta.json").write_text(json.dumps(meta))
        elif damage == "word":  # a state word no state array has
            (save / "meta.json").write_text(json.dumps(dict(meta, word=7)))
        else:  # a narrow save said to be wide: its bytes would be read as other words
            (save / "meta.json").write_text(json.dumps(dict(meta, word=65535)))
        seen = []
        got = driver.solve_index(RhombusTable(5, 2), "compact",
                                 lambda stage, done, total: seen.append(stage))
    said = [s for s in seen if s.startswith("damaged save: ")]
    assert len(said) == 1 and "resumed" not in seen and "children" in seen, seen[:5]
    assert ("sha256" in said[0]) == (damage == "bit"), said
    if damage == "no level":
        assert said[0] == "damaged save: meta.json has no 'level'", said
    for field in ("result", "distance", "best", "multiplicity"):
        assert (getattr(got, field) == getattr(want, field)).all(), field


def test_a_save_of_another_table_is_not_used(tmp_path):
    """The save is keyed by the table's size and shape: another table's save is ignored."""
    from tests.test_retrograde_graphs import long_graph
    space = long_graph(1, 40)
    want = driver.solve_index(space, "edges")
    with resume_in(tmp_path / "save"):
        other = long_graph(2, 50)
        from tbdb.retrograde import compact
        saved = compact._Saved(tmp_path / "save", other)
        state = np.zeros(other.size, np.uint8)
        saved.save({"level": 3, "top": 5, "direct": True, "word": 255}, state, state, force=True)
        got = driver.solve_index(space, "compact")
    for field in ("result", "distance", "best"):
        assert (getattr(got, field) == getattr(want, field)).all(), field


def test_status_reads_what_a_save_says(tmp_path):
    from tbdb.retrograde.compact import saved_solve
    assert saved_solve(tmp_path) is None  # no save
    (tmp_path / "meta.json").write_text('{"level": 12, "top": 30}')
    assert saved_solve(tmp_path) == "saved at distance 12 (the longest so far 30)"
    (tmp_path / "meta.json").write_text('{"level": 31, "top": 30}')
    assert saved_solve(tmp_path) == "solved, its rows not yet written"
    (tmp_path / "meta.json").write_text('{"level": "x"')  # torn or hostile: no claim
    assert saved_solve(tmp_path) is None
