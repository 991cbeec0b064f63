"""Oware books through the engine: build, SQL, lookup, verify, resume, errors."""
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

import tbdb
from tests import naive_oware as naive

MAX_SEEDS = 8


@pytest.fixture(scope="module")
def oware_db(tmp_path_factory):
    path = tmp_path_factory.mktemp("oware") / "tb.duckdb"
    tbdb.build("oware", db=str(path), max_seeds=MAX_SEEDS, progress=False)
    return str(path)


def text(houses):
    return " ".join(map(str, houses))


def test_lookup_matches_the_naive_evaluator(oware_db):
    rng = random.Random(5)
    with tbdb.open(oware_db) as tb:
        for _ in range(80):  # (150 took 17 s of CI's time, most of it the naive evaluator's)
            n = rng.randint(1, 6)
            houses = naive.oware_unrank(n, rng.randrange(len(naive.oware_compositions(n))))
            t = rng.choice([1, 2, 3, 7, 20, 40, 60])
            r = tb.lookup(text(houses), turns_left=t)
            assert r.score == naive.oware_value(tuple(houses), t), (houses, t)
            best = naive.oware_optimal_moves(tuple(houses), t)
            assert (int(r.best_move) if r.best_move else None) == (min(best) if best else None)
            assert {int(m.move) for m in r.moves} == set(naive.oware_legal_moves(tuple(houses)))
            assert r.moves[0].score == r.score if r.moves else r.best_move is None


def test_default_turns_left_is_200_and_the_sql_example_agrees(oware_db):
    with tbdb.open(oware_db) as tb:
        r = tb.lookup("0 0 0 0 0 1 0 0 0 0 0 0")
        assert r.turns_left == 200
        (score,), = tb.sql("SELECT score FROM oware_values WHERE position = "
                           "'0 0 0 0 0 1 0 0 0 0 0 0' AND 200 BETWEEN turns_left_from AND "
                           "turns_left_to").fetchall()
        assert score == r.score == naive.oware_value((0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0), 60)


def test_runs_cover_every_t_once_and_stop_changing_at_stable_from(oware_db):
    with tbdb.open(oware_db) as tb:
        gaps = tb.sql("""
            SELECT count(*) FROM (
                SELECT turns_left_from, lag(turns_left_to) OVER (PARTITION BY seeds, idx
                    ORDER BY turns_left_from) AS prev_to FROM oware_values)
            WHERE (prev_to IS NULL AND turns_left_from <> 1)
               OR (prev_to IS NOT NULL AND turns_left_from <> prev_to + 1)""").fetchall()[0][0]
        assert gaps == 0
        rows = tb.sql("""
            SELECT c.seeds, c.stable_from,
                   max(r.turns_left_from) FILTER (WHERE r.turns_left_from > 1) AS last_change
            FROM oware_convergence c JOIN oware_values r USING (seeds) GROUP BY ALL""").fetchall()
        for seeds, stable_from, last_change in rows:
            # scores alone may stabilise before best moves do, never after
            assert last_change is None or stable_from <= last_change or seeds == 0
        changed = tb.sql("""
            SELECT count(*) FROM oware_values r1 JOIN oware_values r2 USING (seeds, idx)
            JOIN oware_convergence c USING (seeds)
            WHERE r2.turns_left_from = r1.turns_left_to + 1 AND r1.score <> r2.score
              AND r2.turns_left_from > c.stable_from""").fetchall()[0][0]
        assert changed == 0
        # stable_from is the smallest such t: some score changes right at it
        for seeds, stable_from in tb.sql("SELECT seeds, stable_from FROM oware_convergence "
                                         "WHERE stable_from > 1").fetchall():
            assert tb.sql("""
                SELECT count(*) FROM oware_values r1 JOIN oware_values r2 USING (seeds, idx)
                WHERE seeds = ? AND r2.turns_left_from = ? AND r1.turns_left_to = ? - 1
                  AND r1.score <> r2.score""",
                [seeds, stable_from, stable_from]).fetchall()[0][0] > 0


def test_draw_analysis_and_checkpoints_cover_oware(oware_db):
    with tbdb.open(oware_db) as tb:
        rows = tb.sql("SELECT material, positions, wins + draws + losses FROM draw_analysis "
                      "WHERE game = 'oware' ORDER BY pieces").fetchall()
        assert [r[1] for r in rows] == [len(naive.oware_compositions(n))
                                        for n in range(MAX_SEEDS + 1)]
        assert all(r[1] == r[2] for r in rows)
        states = tb.sql("SELECT count(*) FROM build_checkpoints WHERE game = 'oware' "
                        "AND state = 'done'").fetchall()[0][0]
        assert states == MAX_SEEDS + 1


def test_verify_passes_and_catches_corruption(oware_db, tmp_path):
    assert tbdb.verify(oware_db, "oware", progress=False).ok
    import shutil
    bad = tmp_path / "bad.duckdb"
    shutil.copy(oware_db, bad)
    con = duckdb.connect(str(bad))
    con.execute("UPDATE tb_score_runs SET score = score + 1 WHERE table_id = (SELECT table_id "
                "FROM tb_tables WHERE table_name = 'seeds-05') AND idx = 77 "
                "AND turns_left_to = 200")
    con.close()
    problems = tbdb.verify(str(bad), "oware", progress=False).problems
    assert "oware:seeds-05" in problems
    # a best move that is legal but not the lowest optimal house is caught too
    worse = tmp_path / "worse.duckdb"
    shutil.copy(oware_db, worse)
    con = duckdb.connect(str(worse))
    (idx,), = con.execute("SELECT idx FROM oware_values WHERE seeds = 6 AND best_move = 0 "
                          "AND turns_left_to = 200 ORDER BY idx LIMIT 1").fetchall()
    con.execute("UPDATE tb_score_runs SET best_move = 1 WHERE table_id = (SELECT table_id "
                "FROM tb_tables WHERE table_name = 'seeds-06') AND idx = ? "
                "AND turns_left_to = 200", [idx])
    con.close()
    assert list(tbdb.verify(str(worse), "oware", progress=False).problems) == ["oware:seeds-06"]


def test_errors(oware_db):
    with tbdb.open(oware_db) as tb:
        for bad in ["0 0 0", "0 0 0 0 0 1 0 0 0 0 0 -1", "0 0 0 0 0 1 0 0 0 0 0  0",
                    "a b c d e f g h i j k l"]:
            with pytest.raises(tbdb.InvalidPositionError) as info:
                tb.lookup(bad, game="oware")
            assert repr(bad) in str(info.value)
        with pytest.raises(tbdb.MissingTableError, match="seeds-09.*--max-seeds 9"):
            tb.lookup("9 0 0 0 0 0 0 0 0 0 0 0")
        assert tb.get("9 0 0 0 0 0 0 0 0 0 0 0") is None
        for t in (0, 201, "5"):
            with pytest.raises(tbdb.InvalidOptionError, match="turns_left"):
                tb.lookup("0 0 0 0 0 1 0 0 0 0 0 0", turns_left=t)
    with pytest.raises(tbdb.InvalidOptionError, match="max_seeds"):
        tbdb.build("oware", db="never-created.duckdb", max_seeds=99)


def test_cli_lookup(oware_db):
    r = subprocess.run([sys.executable, "-m", "tbdb.cli.run", "lookup", "oware",
                        "0 3 0 0 2 1 0 1 0 1 0 0", "--turns-left", "37", "--db", oware_db],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    with tbdb.open(oware_db) as tb:  # lookups are checked against the naive evaluator above
        expected = tb.lookup("0 3 0 0 2 1 0 1 0 1 0 0", turns_left=37).score
    assert f"score:     {expected:+d} (turns left 37)" in r.stdout


def test_kill_and_resume_per_seed_count(tmp_path):
    reference = tmp_path / "reference.duckdb"
    tbdb.build("oware", db=str(reference), max_seeds=9, progress=False)
    path = tmp_path / "killed.duckdb"
    cmd = [sys.executable, "-m", "tbdb.cli.run", "build", "oware", "--max-seeds", "9",
           "--no-progress", "--db", str(path)]
    # killed once seeds-05 is reported done (its line comes after seeds-04's commit: the writer
    # commits one table at a time), not after a fixed delay: on a loaded machine the first
    # table alone can take longer than any delay chosen for a quiet one
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        for line in proc.stderr:
            if "seeds-05" in line:
                proc.send_signal(signal.SIGKILL)
                break
    finally:
        proc.kill()
        proc.wait()
    con = duckdb.connect(str(path), read_only=True)
    try:
        done = con.execute("SELECT count(*) FROM build_checkpoints WHERE state = 'done'"
                           ).fetchall()[0][0]
    finally:
        con.close()
    assert 5 <= done < 10
    assert subprocess.run(cmd, capture_output=True).returncode == 0
    query = ("SELECT count(*), sum(hash(seeds, idx, turns_left_from, turns_left_to, score, "
             "best_move)) FROM oware_values")
    got = duckdb.connect(str(path), read_only=True).execute(query).fetchall()
    want = duckdb.connect(str(reference), read_only=True).execute(query).fetchall()
    assert got == want


def test_large_books_are_probed_in_the_database_with_the_same_answers(oware_db, monkeypatch):
    from tbdb.prober import Prober
    rng = random.Random(9)
    texts = [text(naive.oware_unrank(n, rng.randrange(len(naive.oware_compositions(n)))))
             for n in rng.choices(range(1, MAX_SEEDS + 1), k=60)]
    ts = [rng.randint(1, 200) for _ in texts]
    def answers(tb):
        out = []
        for t, u in zip(texts, ts):
            r = tb.lookup(t, turns_left=u)
            out.append((r.score, r.best_move, [(m.move, m.score) for m in r.moves]))
        return out

    with tbdb.open(oware_db) as tb:
        loaded = answers(tb)
    monkeypatch.setattr(Prober, "LOAD_LIMIT", 0)
    with tbdb.open(oware_db) as tb:
        probed = answers(tb)
        assert tb.prober.tables and not any(t.loaded for t in tb.prober.tables.values())
    assert probed == loaded


def test_batch_lookup_agrees_with_single_lookups(oware_db):
    import numpy as np
    rng = random.Random(4)
    positions = [naive.oware_unrank(n, rng.randrange(len(naive.oware_compositions(n))))
                 for n in rng.choices(range(0, MAX_SEEDS + 1), k=300)]
    ts = np.array([rng.randint(1, 200) for _ in positions], np.int16)
    with tbdb.open(oware_db) as tb:
        score, move = tb.lookup_arrays("oware", np.array(positions, np.int8), ts)
        singles = [tb.lookup(text(p), turns_left=int(t)) for p, t in zip(positions, ts)]
        with pytest.raises(tbdb.MissingTableError):
            tb.lookup_arrays("oware", np.array([[9] + [0] * 11], np.int8))
    assert score.tolist() == [r.score for r in singles]
    assert [str(m) if m >= 0 else None for m in move.tolist()] == [r.best_move for r in singles]


def test_rows_streamed_in_small_batches_are_the_same_rows(oware_db, tmp_path, monkeypatch):
    from tbdb.storage import arrow_rows
    from tbdb.games.oware import game as oware_game
    monkeypatch.setattr(arrow_rows, "BATCH", 1000)
    monkeypatch.setattr(oware_game, "BATCH", 1000)
    small = tmp_path / "small-batches.duckdb"
    tbdb.build("oware", db=str(small), max_seeds=MAX_SEEDS, progress=False)
    queries = ["SELECT count(*), sum(hash(seeds, idx, turns_left_from, turns_left_to, score, "
               "best_move, position)) FROM oware_values",
               "SELECT count(*), sum(hash(layout, idx, text)) FROM tb_texts"]
    for q in queries:
        got = duckdb.connect(str(small), read_only=True).execute(q).fetchall()
        want = duckdb.connect(oware_db, read_only=True).execute(q).fetchall()
        assert got == want


def test_runs_load_a_range_of_positions_at_a_time(oware_db, monkeypatch):
    """``RunStorage.load_runs`` reads a big book a range of positions at a time into its final
    arrays (Oware's 20-seed book holds 1.9 billion runs): in many small ranges it loads what
    one range loads, the books the solver makes, and still names a run outside the table."""
    import numpy as np
    from tbdb.games.oware.book import solve_books
    from tbdb.storage import runs
    from tbdb.db.store import Store
    books = solve_books(MAX_SEEDS)

    def load_all():
        with Store(oware_db, read_only=True) as st:
            return [st.load_table(st.table("oware", f"seeds-{n:02d}")) for n in
                    range(MAX_SEEDS + 1)]

    whole = load_all()
    monkeypatch.setattr(runs, "LOAD_BATCH_RUNS", 1000)  # book 8: 350 ranges
    for a, b in zip(load_all(), whole):
        for k in ("offsets", "start", "score", "move"):
            assert np.array_equal(getattr(a, k), getattr(b, k)) and \
                getattr(a, k).dtype == getattr(b, k).dtype
    for book, v in zip(books, whole):
        assert np.array_equal(v.offsets, book.run_offsets) and \
            np.array_equal(v.start, book.run_from) and np.array_equal(v.score, book.run_score) \
            and np.array_equal(v.move, book.run_move)
    bad = str(Path(oware_db).with_name("bad.duckdb"))
    shutil.copyfile(oware_db, bad)
    with duckdb.connect(bad) as con:  # a run moved past the last position of seeds-08
        con.execute("UPDATE tb_score_runs SET idx = 75582 WHERE rowid = (SELECT max(rowid) FROM "
                    "tb_score_runs WHERE table_id = (SELECT table_id FROM tb_tables WHERE "
                    "table_name = 'seeds-08'))")
    with Store(bad, read_only=True) as st, pytest.raises(Exception, match="outside its 75582"):
        st.load_table(st.table("oware", "seeds-08"))


def test_big_books_solve_after_the_book_before_is_written(oware_db, tmp_path, monkeypatch):
    """Books from ``SOLVE_ALONE_FROM`` seeds on wait for the book before to be written (its
    runs would sit beside their solve): marked 'building' again after that write, not only in
    its commit, and the same books come out."""
    from tbdb.games.oware import game as oware_game
    from tbdb.db.store import Store
    monkeypatch.setattr(oware_game, "SOLVE_ALONE_FROM", 6)
    marked = []
    plain = Store.mark_building
    monkeypatch.setattr(Store, "mark_building",
                        lambda self, game, table: (marked.append(table),
                                                   plain(self, game, table))[1])
    path = tmp_path / "alone.duckdb"
    tbdb.build("oware", db=str(path), max_seeds=MAX_SEEDS, progress=False)
    assert [marked.count(f"seeds-{n:02d}") for n in range(MAX_SEEDS + 1)] == \
        [1, 1, 1, 1, 1, 1, 2, 2, 2]
    query = ("SELECT count(*), sum(hash(seeds, idx, turns_left_from, turns_left_to, score, "
             "best_move)) FROM oware_values")
    got = duckdb.connect(str(path), read_only=True).execute(query).fetchall()
    want = duckdb.connect(oware_db, read_only=True).execute(query).fetchall()
    assert got == want
