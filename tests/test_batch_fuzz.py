"""Every game's batch form against hostile arrays (issue 22): extreme values of every integer
type, sums that wrap, wrong shapes, float, bool, object and text arrays, and layouts that change
nothing (lists, Fortran order, strided rows).  A bad array is one line of a tbdb ``ValueError``
naming the row; never a crash or a made-up answer.  The cases run in a subprocess
(``tests/batch_fuzz.py``): a segmentation fault fails the test instead of killing pytest."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tbdb import games
ROOT = Path(__file__).resolve().parent.parent


def _run(db: str, name: str) -> tuple[list[dict], subprocess.CompletedProcess]:
    proc = subprocess.run([sys.executable, "-m", "tests.batch_fuzz", db, name], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    lines = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    return lines, proc


@pytest.mark.parametrize("name", games.names())
def test_hostile_arrays_are_refused_in_one_line(every_game_db, name):
    lines, proc = _run(every_game_db, name)
    started = [x["case"] for x in lines if "outcome" not in x]
    done = {x["case"]: x for x in lines if "outcome" in x}
    crashed = [c for c in started if c not in done]
    assert proc.returncode == 0 and not crashed, (proc.returncode, crashed, proc.stderr[-2000:])
    assert len(done) > 40
    # the sample twice as plain lists: an answer, or the miss of a table not built here
    reference = done["array 0 a list of rows"]
    same = ("values", "message")
    wrong = []
    for case, x in done.items():
        if case == "no rows":
            ok = x["outcome"] == "answer" and all(v == [] for v in x["values"])
        elif x["accept"] and "= -1" in case:
            ok = True if x["outcome"] == "answer" else None  # -1 is in some encodings
        elif x["accept"]:  # a layout that changes nothing
            ok = all(x.get(k) == reference.get(k) for k in same)
        elif x["outcome"] == "answer":
            ok = False  # a made-up answer
        else:
            ok = None
        if ok is None:
            message = x["message"]
            ok = (x["value_error"] and x["tbdb_error"] and "\n" not in message
                  and len(message) < 600 and ("=" not in case or "row 1" in message))
        if not ok:
            wrong.append((case, x))
    assert not wrong, "\n".join(f"{c}: {x}" for c, x in wrong[:15])
