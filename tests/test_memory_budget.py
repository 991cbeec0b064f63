"""The memory budget: sizes read as a person writes them, auto picks the fastest mode that
fits, a table that fits no mode is refused before the database is touched, and the catalogue
records each table's mode, estimate and measured peak."""
from __future__ import annotations

import subprocess
import sys

import duckdb
import pytest

import tbdb
from tbdb.retrograde import budget
from tbdb.errors import InvalidOptionError


class _Space:
    def __init__(self, size, max_children=20, max_parents=20):
        self.size, self.max_children, self.max_parents = size, max_children, max_parents


@pytest.mark.parametrize("text, want", [("8G", 8 << 30), ("512M", 512 << 20), ("1.5g", 3 << 29),
                                        ("2GiB", 2 << 30), ("2000000", 2000000),
                                        (" 64 MB ", 64 << 20)])
def test_sizes_read_as_written(text, want):
    assert budget.parse_memory(text) == want


@pytest.mark.parametrize("text", ["", "8X", "-1G", "0", "G", "8 G B"])
def test_a_bad_size_is_a_bad_option_quoting_it(text):
    with pytest.raises(InvalidOptionError, match="--memory " + repr(text).replace("\\", "\\\\")):
        budget.parse_memory(text)


@pytest.mark.parametrize("n, said", [(3 << 30, "3.00 GiB"), (310 << 20, "310 MiB"),
                                     (1024, "1,024 bytes")])
def test_a_size_is_said_in_its_unit(n, said):
    assert budget.text(n) == said  # --memory 1K was said as "0 MiB"


def test_auto_takes_the_fastest_mode_that_fits():
    space = _Space(200_000_000)  # compact's peak is 1 byte a slot below edge-free's
    budget.estimate(space, "compact")  # its first call imports the kernels: memory moves
    base = budget.rss()
    need = {m: base + budget.estimate(space, m) for m in budget.ORDER}
    assert need["edges"] > need["edge-free"] > need["compact"]
    slack = 32 << 20  # the process's resident memory moves a little between calls
    for budget_bytes, want in [(need["edges"] + slack, "edges"),
                               (need["edges"] - slack, "edge-free"),
                               (need["edge-free"] - slack, "compact")]:
        with budget.within(budget_bytes):
            assert budget.choose(space, "auto")[0] == want
    with budget.within(need["compact"] - (64 << 20)):
        with pytest.raises(budget.MemoryBudgetError, match="in mode compact"):
            budget.choose(space, "auto", name="the table")
        with pytest.raises(budget.MemoryBudgetError, match="in mode edges"):
            budget.choose(space, "edges")


def test_a_space_may_name_its_fastest_mode_first():
    """A space's own order (``fastest_modes``; chess puts edge-free first): auto takes it
    without a budget and under any budget it fits, the next that fits under a smaller one."""
    from tbdb.retrograde import driver
    from tbdb.games.chess.material import Material
    from tbdb.games.chess.tables import ChessSpace
    space = ChessSpace(Material.parse("KRvK"), {})  # (its captures leave bare kings)
    assert space.fastest_modes[0] == "edge-free"
    assert driver.choose_mode(space)[0] == "edge-free"
    assert driver.choose_mode(_Space(1000))[0] == "edges"  # the default order
    big = _Space(200_000_000)
    big.fastest_modes = ("edge-free", "edges", "compact")
    budget.estimate(big, "compact")
    base = budget.rss()
    need = {m: base + budget.estimate(big, m) for m in budget.ORDER}
    slack = 32 << 20
    for budget_bytes, want in [(need["edges"] + slack, "edge-free"),
                               (need["edge-free"] - slack, "compact")]:
        with budget.within(budget_bytes):
            assert driver.choose_mode(big)[0] == want


def test_a_solve_waits_for_the_write_beside_it_only_when_that_buys_a_faster_mode():
    """``budget.settling``: the memory the previous table's write holds is given back (the
    write waited for) when, without it, the table would take a faster mode; not otherwise."""
    space = _Space(200_000_000)
    budget.estimate(space, "compact")
    base = budget.rss()
    need = {m: base + budget.estimate(space, m) for m in budget.ORDER}
    slack = 32 << 20
    held = [0]
    settled = []

    def settle():
        settled.append(True)
        held[0] = 0  # (this process frees nothing: rss stays, so the choice stays too)

    # a write holding more than the gap between edge-free's need and the budget: waited for
    with budget.within(need["edge-free"] - slack), budget.settling(settle, lambda: held[0]):
        held[0] = 4 * slack
        assert budget.choose(space, "auto")[0] == "compact"
    assert settled == [True]
    # a write holding too little to make edge-free fit: not waited for
    settled.clear()
    with budget.within(need["edge-free"] - 4 * slack), budget.settling(settle, lambda: held[0]):
        held[0] = slack
        assert budget.choose(space, "auto")[0] == "compact"
    assert settled == []
    # the fastest fits anyway: not waited for
    with budget.within(need["edges"] + slack), budget.settling(settle, lambda: 10 * slack):
        assert budget.choose(space, "auto")[0] == "edges"
    assert settled == []


def _tbdb(*args):
    return subprocess.run([sys.executable, "-m", "tbdb.cli.run", *args], capture_output=True,
                          text=True, timeout=300)


def test_a_table_too_large_for_the_budget_is_refused_before_anything_is_written(tmp_path):
    db = tmp_path / "tb.duckdb"
    done = _tbdb("build", "chinese-checkers", "--board", "7", "--pieces", "3", "--memory", "1G",
                 "--db", str(db))
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "'7x7-3'" in lines[0] and "more than --memory 1" in lines[0], \
        done.stderr
    assert not db.exists()
    done = _tbdb("build", "chinese-checkers", "--board", "3", "--pieces", "1", "--memory", "lots",
                 "--db", str(db))
    assert done.returncode == 2 and "'lots'" in done.stderr and not db.exists()
    # a budget the machine does not have: "auto" would pick modes the OOM killer ends
    done = _tbdb("build", "chinese-checkers", "--board", "3", "--pieces", "1", "--memory",
                 "100T", "--db", str(db))
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1, done.stderr
    assert "'100T'" in lines[0] and "more than this machine's" in lines[0] and not db.exists()


def test_the_catalogue_records_mode_estimate_and_peak(tmp_path):
    db = tmp_path / "tb.duckdb"
    tbdb.build("chinese-checkers", db=str(db), board=4, pieces=1, memory="4G", progress=False)
    tbdb.build("chinese-checkers", db=str(db), board=4, pieces=2, mode="compact", progress=False)
    assert not (tmp_path / "tb.duckdb.solving").exists()  # the solved table's save is gone
    con = duckdb.connect(str(db), read_only=True)
    rows = dict((r[0], r[1:]) for r in con.execute(
        "SELECT table_name, mode, estimate_bytes, peak_bytes FROM tb_tables").fetchall())
    con.close()
    assert rows["4x4-1"][0] == "edges" and rows["4x4-2"][0] == "compact"
    for mode, estimate, peak in rows.values():
        assert 0 < peak <= estimate, (mode, estimate, peak)
