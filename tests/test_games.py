"""Conformance: every registered game honours the engine's contract (OpenSpiel-style).

A game is tested here the moment it is registered: its example build, verify (clean, and
failing on a changed value, best move, count or checkpoint), resume after SIGKILL mid-table,
lookups on every symmetric image against the batch form, the SQL functions against lookups,
text round trips, perft against the game's independent slow reference (tests/naive_*.py), and
its errors.  Every game runs the same checks; what only some games have is selected by the
capabilities the game declares (``tbdb.games.base``), never by its storage or value kind.
"""
import random
import re
import shutil
import signal
from pathlib import Path

import duckdb
import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import tbdb
from tbdb import games
import tbdb.cli.run as cli
from tbdb.games.base import (BATCH_FORM, CAPABILITIES, DISTANCE_TABLES, OWN_PERFT, OWN_SOLVER,
                             PLIES_LEFT, SCORE_VALUES, SHARED_KEY_TABLE, Game, GameOver)
from tbdb.build import DIE_IN_FIRST_TABLE
from tbdb.solvers.retrograde import DRAW, LOSS, WIN
from tbdb.storage import storage_of
from tests import naive_cdc, naive_chinese_checkers, naive_oware, naive_tictactoe, naive_uttt
from tests.test_resume import checkpoint_states, interrupt

NAMES = games.names()
ALL_GAMES = {"cdc", "chess", "chinese-checkers", "oware", "shogi", "tictactoe", "uttt"}
# the tables tests damage: tb_index_values is a view over tb_index_rows and Parquet files
WRITABLE = {"tb_index_values": "tb_index_rows"}


def _cli_options(g, options: dict | None = None) -> list[str]:
    out = []
    for name, value in (g.example_build if options is None else options).items():
        out += ["--" + name.replace("_", "-"), str(value)]
    return out


@pytest.fixture(scope="module", params=NAMES)
def built(request, tmp_path_factory):
    g = games.get(request.param)
    path = tmp_path_factory.mktemp(g.name) / "tb.duckdb"
    for options in (g.example_build,) + g.more_example_builds:
        tbdb.build(g.name, db=str(path), progress=False, **options)
    return g, str(path)


def _sample_rows(g, path, n=40, seed=3) -> list[tuple[str, object]]:
    """(table name, key) of stored positions: an index (``idx``) or a (key0, key1, constraint)
    key, whichever columns the game's values table has."""
    rng = random.Random(seed)
    with tbdb.open(path) as tb:  # one process may not hold a file with two configurations
        values = storage_of(g).values
        columns = [c for c, in tb.sql(f"SELECT column_name FROM (DESCRIBE {values})").fetchall()]
        key = "v.idx" if "idx" in columns else "v.key0, v.key1, v.key_constraint"
        legal = " AND v.result >= -1" if "result" in columns else ""
        rows = tb.sql(f"SELECT DISTINCT t.table_name, {key} FROM {values} v JOIN tb_tables t "
                      f"USING (table_id) WHERE t.game = $game{legal}",
                      params={"game": g.name}).fetchall()
    keys = sorted((r[0], r[1] if len(r) == 2 else tuple(r[1:])) for r in rows)
    return rng.sample(keys, min(n, len(keys)))


def _sample_positions(g, path, n=20, seed=3):
    """Stored positions (as position objects), rendered by the game from stored keys."""
    return [g.parse(g.slot_text(t, k)) for t, k in _sample_rows(g, path, n, seed)]


def test_registry_knows_every_game_and_rejects_others(capsys):
    assert set(NAMES) == ALL_GAMES
    assert [g.name for g in games.all_games()] == sorted(ALL_GAMES)
    from tbdb.cli.run import main
    assert main(["games"]) == 0
    shown = re.findall(r"^(\S+): ", capsys.readouterr().out, re.M)
    assert sorted(shown) == sorted(ALL_GAMES)
    with pytest.raises(tbdb.UnknownGameError, match="'go'"):
        games.get("go")
    # a database's views are made from the files without importing the games: the same files
    from tbdb.db.sql_files import game_view_files
    assert [p.name for p in game_view_files()] == \
        sorted(g.views for g in games.all_games() if g.views)


def _overrides(g, method: str) -> bool:
    return getattr(type(g), method) is not getattr(Game, method)


@pytest.mark.parametrize("name", NAMES)
def test_capabilities_are_what_the_game_implements(name):
    """A declared capability is backed by what it names, and what a game implements is
    declared (the suite selects its checks by the declarations)."""
    g = games.get(name)
    assert g.capabilities <= CAPABILITIES, g.capabilities - CAPABILITIES
    has = g.capabilities.__contains__
    assert has(BATCH_FORM) == _overrides(g, "batch_locate") == _overrides(g, "encode_batch")
    assert has(OWN_PERFT) == _overrides(g, "perft")
    assert has(OWN_SOLVER) == (not g.modes) and (not has(OWN_SOLVER) or _overrides(g, "solve"))
    assert has(SHARED_KEY_TABLE) == _overrides(g, "shared_table") == _overrides(g, "search_tables")
    assert has(SCORE_VALUES) == (storage_of(g).value_kind == "score")
    assert has(PLIES_LEFT) == (g.plies_option is not None)
    if has(PLIES_LEFT):
        assert g.plies_option in {o.name for o in g.lookup_options}
    if has(DISTANCE_TABLES):
        assert _overrides(g, "solve")  # distance tables are solved by the game


def test_game_is_guessed_from_its_notation_only():
    for g in games.all_games():
        assert games.guess(g.sample) is g
    with pytest.raises(tbdb.InvalidPositionError, match="'hello'"):
        games.guess("hello")


@pytest.fixture(params=["whole", "packed"])
def read_back(request, monkeypatch):
    """Index tables read back as whole arrays, or packed (as tables above
    ``WHOLE_LOAD_SLOTS`` are: state words, best moves a chunk at a time)."""
    if request.param == "packed":
        from tbdb.storage import index
        monkeypatch.setattr(index, "WHOLE_LOAD_SLOTS", 0)
    return request.param


def test_verify_is_clean(built, read_back):
    g, path = built
    if read_back == "packed" and storage_of(g).name != "index":
        pytest.skip("not an index game")
    report = tbdb.verify(path, g.name, progress=False)
    assert report.ok and report.checked >= 1, report


@pytest.mark.parametrize("name", NAMES)
def test_kernels_honour_the_contract(name):
    """docs/kernel-contract.md on the example build's tables: children are real positions of
    the table reached by legal moves (codes >= 0, at most max_children); parents(c) is exactly
    {p : c is a child of p} (at most max_parents); a key table's children are on lower levels."""
    from tbdb.retrograde import driver
    g = games.get(name)
    if OWN_SOLVER in g.capabilities:
        pytest.skip(f"{name} solves its tables itself")
    rng = np.random.default_rng(5)
    deps = {}
    for table in g.plan(**g.example_build):
        space = g.space(table, {d: deps[d] for d in g.dependencies(table)})
        if storage_of(g).by_levels:
            levels = driver.enumerate_levels(space)
            keys = np.concatenate([levels[lv] for lv in sorted(levels)])
            terminal, count, child, move = space.expand(keys)
            own = space.level(keys)
            for r in np.flatnonzero(terminal == 2)[:5000]:
                assert 0 < count[r] <= space.max_children and (move[r, :count[r]] >= 0).all()
                assert (space.level(child[r, :count[r]]) < own[r]).all(), keys[r]
            values = driver.solve_levels(space, levels)
            deps[table] = g.from_stored(table, None, [values[lv] for lv in sorted(values)])
            continue
        kind, _ = space.census(0, space.size)
        real = np.flatnonzero(kind == 0)
        if len(real) > 4000:
            real = np.sort(rng.choice(real, 4000, replace=False))
        count, child, move, ext_result, ext_distance = space.children(real)
        assert (count <= space.max_children).all()
        edges = {}
        first_move = {}  # (parent, child) -> the first move from parent to child
        for r, p in enumerate(real.tolist()):
            m = move[r, :count[r]]
            assert (m >= 0).all() and len(set(m.tolist())) == len(m), (table, p)
            for c, code in zip(child[r, :count[r]].tolist(), m.tolist()):
                if c >= 0:
                    assert kind[c] == 0, (table, p, c)  # a move never reaches a non-position
                    edges.setdefault(c, set()).add(p)
                    first_move.setdefault((p, c), code)
        if hasattr(space, "summaries"):
            _check_summaries(space, real, count, child, move, ext_result, ext_distance)
        if "edge-free" in g.modes:
            targets = np.array(sorted(edges), np.int64)
            if len(targets) > 4000:
                targets = np.sort(rng.choice(targets, 4000, replace=False))
            rows = space.parents(targets)
            pcount, parent = rows[0], rows[1]
            assert (pcount <= space.max_parents).all()
            chosen = set(real.tolist())
            for r, c in enumerate(targets.tolist()):
                found = set(parent[r, :pcount[r]].tolist())
                if getattr(space, "parents_distinct", False):  # a promise the engine trusts
                    assert len(found) == pcount[r], (table, c)
                assert edges[c] <= found, (table, c)  # every parent is listed ...
                for p in found:  # ... and nothing else (checked on the sampled parents)
                    assert kind[p] == 0, (table, c, p)
                    if p in chosen:
                        assert p in edges[c], (table, c, p)
                if len(rows) == 3:  # codes: the smallest over a parent's entries is its
                    smallest = {}   # first move to c, as the best-move rule needs
                    for p, code in zip(parent[r, :pcount[r]].tolist(),
                                       rows[2][r, :pcount[r]].tolist()):
                        smallest[p] = min(code, smallest.get(p, code))
                    for p in edges[c]:
                        assert smallest[p] == first_move[(p, c)], (table, c, p)
            if getattr(space, "parents_unsettled", False):
                _check_unsettled(space, targets, [a.copy() for a in rows], rng)
            if hasattr(space, "keyed_moves"):
                _check_order_keys(space, real, count.copy(), move.copy(), targets, edges)
        deps[table] = g.from_stored(table, None, driver.solve_index(space, "edges"))


def _check_unsettled(space, targets, rows, rng):
    """A space that leaves out settled parents itself (``parents_unsettled``): given a bitmap
    of slots, its rows are the unfiltered rows without the marked slots, codes and all."""
    marked = rng.random(space.size) < 0.5
    settled = np.packbits(marked, bitorder="little")
    got = [a.copy() for a in space.parents(targets, settled)]
    with pytest.raises(ValueError, match="settled"):  # its kernel would read past the end
        space.parents(targets, settled[:len(settled) // 2])
    assert marked[rows[1][rows[0] > 0, 0]].any()  # something to leave out
    for r in range(len(targets)):
        kept = [e for e in range(rows[0][r]) if not marked[rows[1][r, e]]]
        assert got[0][r] == len(kept), (targets[r], got[0][r], kept)
        for a, b in zip(rows[1:], got[1:]):  # the parents, and their codes if given
            assert (b[r, :got[0][r]] == a[r, kept]).all(), targets[r]


def _check_order_keys(space, real, count, codes, targets, edges):
    """A space whose codes are not in its move order (docs/kernel-contract.md, "Order keys"):
    with ``keyed_moves`` on, ``children`` gives keys that ascend along each row and turn back
    into its codes, and ``parents`` gives keys, the smallest of a parent's entries its first
    move to the child."""
    space.keyed_moves(True)
    try:
        kcount, kchild, keys = [a.copy() for a in space.children(real)[:3]]
        rows = space.parents(targets)
    finally:
        space.keyed_moves(False)
    assert (kcount == count).all()
    first_key = {}
    for r, p in enumerate(real.tolist()):
        row = keys[r, :count[r]]
        assert (np.diff(row) > 0).all(), (p, row)  # the move order, ascending
        back = row.copy()
        space.codes_of_keys(back)
        assert (back == codes[r, :count[r]]).all(), (p, row, codes[r, :count[r]])
        for c, key in zip(kchild[r, :count[r]].tolist(), row.tolist()):
            first_key.setdefault((p, c), key)
    assert len(rows) == 3
    for r, c in enumerate(targets.tolist()):
        smallest = {}
        for p, key in zip(rows[1][r, :rows[0][r]].tolist(), rows[2][r, :rows[0][r]].tolist()):
            smallest[p] = min(key, smallest.get(p, key))
        for p in edges[c]:
            assert smallest[p] == first_key[(p, c)], (c, p)


@pytest.mark.parametrize("name", NAMES)
def test_every_index_mode_gives_the_same_rows(name):
    """The compact mode solves each table of a game's example build to the rows (value,
    distance, best move, multiplicity) of edges in memory (edge-free against edges: each
    game's own tests, which are slower)."""
    from tbdb.retrograde import driver
    g = games.get(name)
    index_modes = [m for m in g.modes if m in driver.MODES]
    if not index_modes:
        pytest.skip(f"{name} has no index tables")
    assert "compact" in index_modes
    deps = {}
    for table in g.plan(**g.example_build):
        space = lambda: g.space(table, {d: deps[d] for d in g.dependencies(table)})  # noqa
        if not hasattr(space(), "census"):
            continue  # a table the game solves itself (distance tables)
        want = driver.solve_index(space(), "edges")
        for mode in ("compact",):
            got = driver.solve_index(space(), mode)
            for field in ("result", "distance", "best", "multiplicity"):
                assert (getattr(got, field) == getattr(want, field)).all(), (table, mode, field)
        deps[table] = g.from_stored(table, None, want)


def _check_summaries(space, real, count, child, move, ext_result, ext_distance):
    """A table's ``summaries`` say what its full ``children`` rows say (docs/kernel-contract.md):
    distinct in-table children (not checked where a child is lost: the count is then unused),
    the smallest external loss and the first move to it, the largest external win and the
    first move to it, whether an external child is drawn."""
    distinct, lo, lo_move, hi, hi_move, dr = (np.array(a) for a in space.summaries(real))
    for r, p in enumerate(real.tolist()):
        n = count[r]
        kids, moves = child[r, :n], move[r, :n]
        res, dist = ext_result[r, :n], ext_distance[r, :n]
        # (distance, place in the move order): the first move in order wins a tie
        lost = [(int(d), e) for e, (c, x, d) in enumerate(zip(kids, res, dist))
                if c < 0 and x == LOSS]
        won = [(-int(d), e) for e, (c, x, d) in enumerate(zip(kids, res, dist))
               if c < 0 and x == WIN]
        want_lo = (min(lost)[0], moves[min(lost)[1]]) if lost else (32767, -1)
        want_hi = (-min(won)[0], moves[min(won)[1]]) if won else (-1, -1)
        assert (lo[r], lo_move[r]) == want_lo, p
        assert (hi[r], hi_move[r]) == want_hi, p
        assert bool(dr[r]) == any(c < 0 and x == DRAW for c, x in zip(kids, res)), p
        if not lost:
            assert distinct[r] == len(set(kids[kids >= 0].tolist())), p


def _corrupted(path, tmp_path, sql):
    bad = tmp_path / "bad.duckdb"
    shutil.copy(path, bad)
    con = duckdb.connect(str(bad))
    try:
        changed = con.execute(sql).fetchall()[0][0]
    finally:
        con.close()
    assert changed == 1, sql
    return str(bad)


def test_verify_catches_a_changed_value_best_move_count_and_checkpoint(built, tmp_path,
                                                                       read_back):
    g, path = built
    if read_back == "packed" and storage_of(g).name != "index":
        pytest.skip("not an index game")
    values = storage_of(g).values
    table = WRITABLE.get(values, values)
    one = f"rowid = (SELECT min(rowid) FROM {table} WHERE best_move >= 0)"
    column = "score" if SCORE_VALUES in g.capabilities else "distance"
    cases = {
        "value": f"UPDATE {table} SET {column} = {column} + 2 WHERE {one}",
        "best move": f"UPDATE {table} SET best_move = 30000 WHERE {one}",
        "count": "UPDATE tb_stats SET wins = wins + 1 WHERE rowid = (SELECT min(rowid) FROM "
                 "tb_stats)",
        "catalogue": "UPDATE tb_tables SET raw_positions = raw_positions + 1 WHERE rowid = "
                     "(SELECT min(rowid) FROM tb_tables)",
    }
    if SCORE_VALUES not in g.capabilities:  # a score run counts no multiplicity
        cases["multiplicity"] = (f"UPDATE {table} SET multiplicity = multiplicity + 1 WHERE "
                                 f"{one}")
    # each corruption verified in the table it hit alone (every table, each time, was a
    # minute of CI's time over the games)
    of_id = "SELECT table_name FROM tb_tables WHERE table_id = "
    where = {"value": f"{of_id}(SELECT table_id FROM {table} WHERE {one})",
             "count": f"{of_id}(SELECT table_id FROM tb_stats WHERE rowid = (SELECT min(rowid) "
                      "FROM tb_stats))",
             "catalogue": "SELECT table_name FROM tb_tables WHERE rowid = (SELECT min(rowid) "
                          "FROM tb_tables)"}
    con = duckdb.connect(str(path), read_only=True)
    try:
        hit = {what: con.execute(sql).fetchall()[0][0] for what, sql in where.items()}
    finally:
        con.close()
    for what, sql in cases.items():
        table_hit = hit.get(what, hit["value"])  # (best move, multiplicity: the value's row)
        report = tbdb.verify(_corrupted(path, tmp_path, sql), g.name, progress=False,
                             tables=[table_hit])
        assert report.problems and not report.ok, what
    pending = _corrupted(path, tmp_path, "UPDATE build_checkpoints SET state = 'pending' "
                                         "WHERE rowid = (SELECT max(rowid) FROM "
                                         "build_checkpoints)")
    report = tbdb.verify(pending, g.name, progress=False)
    assert list(report.unchecked.values()) == ["pending"] and not report.ok


def _fingerprint(path):
    con = duckdb.connect(str(path), read_only=True)
    try:
        out = []
        for table, cols in (("tb_index_values", "idx, result, distance, best_move, multiplicity"),
                            ("tb_key_values", "level, key0, key1, key_constraint, result, "
                                              "distance, best_move, multiplicity"),
                            ("tb_score_runs", "idx, turns_left_from, turns_left_to, score, "
                                              "best_move"),
                            ("tb_stats", "label, pieces, side_to_move, positions, wins, draws, "
                                         "losses, illegal, longest_win, longest_loss")):
            cols = ", ".join(f"v.{c.strip()}" for c in cols.split(","))
            out.append(con.execute(f"SELECT count(*), sum(hash(t.table_name, {cols})) FROM "
                                   f"{table} v JOIN tb_tables t USING (table_id)").fetchall())
        out.append(con.execute("SELECT state, count(*) FROM build_checkpoints GROUP BY ALL "
                               "ORDER BY ALL").fetchall())
        return out
    finally:
        con.close()


def _killed_mid_table(path, build):
    """Kill ``tbdb <build>`` (SIGKILL) while a table is being built: by the build's own fault
    hook, at its first table's first progress report (mid-solve; a game storing levels as it
    solves them has written some), or, for a table whose solve reports nothing, right after
    it is marked 'building'.  (Blind timed kills, the window a table's milliseconds, took up
    to a dozen builds a game; tests/test_resume.py kills CDC's build blindly.)  The
    checkpoint states."""
    seen = []
    for when in ("stage", "1"):
        code, states, _ = interrupt(path, signal.SIGKILL, 120, build,
                                    env={DIE_IN_FIRST_TABLE: when})
        seen.append((when, code, states and sorted(set(states.values()))))
        if code == -signal.SIGKILL and states and "building" in states.values():
            return states
    raise AssertionError(f"never killed mid-table: (hook, code, states) {seen}")


def test_a_build_killed_mid_table_resumes_to_identical_rows(built, tmp_path):
    g, path = built
    build = ["build", g.name, *_cli_options(g), "--no-progress"]
    killed = tmp_path / "killed.duckdb"
    states = _killed_mid_table(killed, build)
    assert "building" in states.values(), states  # a table was being solved or written
    # the same command again, resuming; in this process (the kill needed one of its own; this
    # saves a process start: imports, kernels loaded from the cache)
    assert cli.main([*build, "--db", str(killed)]) == 0
    for options in g.more_example_builds:  # the other kinds of table the fixture's file holds
        assert cli.main(["build", g.name, *_cli_options(g, options), "--no-progress", "--db",
                         str(killed)]) == 0
    assert set(checkpoint_states(killed).values()) == {"done"}
    assert _fingerprint(killed) == _fingerprint(path)


def test_lookup_equals_the_batch_form_on_every_image(built):
    g, path = built
    if BATCH_FORM not in g.capabilities:
        pytest.skip(f"{g.name} has no batch form")
    positions = _sample_positions(g, path)
    with tbdb.open(path) as tb:
        for p in positions:
            images = g.images(p)
            assert g.text(images[0]) == g.text(p)
            singles = [tb.lookup(q, game=g.name) for q in images]
            batch = tb.lookup_arrays(g.name, *g.encode_batch(images))
            best = batch[-1]
            for q, r, code in zip(images, singles, best):
                # every image has the value of the stored row, and the batch's best move is
                # the lookup's, on the image itself
                assert (r.outcome, r.distance) == (singles[0].outcome, singles[0].distance)
                assert (g.move_text(q, int(code), 0) if code >= 0 else None) == r.best_move
                if r.best_move is not None:
                    assert r.moves[0].move == r.best_move
                    g.play(q, r.best_move)  # a legal move of the image
            if SCORE_VALUES in g.capabilities:
                assert batch[0].tolist() == [r.score for r in singles]
            else:
                assert [int(x) for x in batch[0]] == [{"win": 1, "draw": 0, "loss": -1}[r.outcome]
                                                      for r in singles]
                assert batch[1].tolist() == [r.distance for r in singles]


def test_moves_and_line_agree_with_the_stored_values(built):
    g, path = built
    positions = _sample_positions(g, path, n=15, seed=5)
    with tbdb.open(path) as tb:
        for p in positions:
            r = tb.lookup(p, game=g.name)
            for m in r.moves:
                s = next(s for s in g.successors(p) if s.move == m.move)
                child = tb.lookup(g.parse(m.position), game=g.name, **s.options)
                if SCORE_VALUES in g.capabilities:
                    continue  # a move's score adds its own captures: checked per game
                # (a move to a player of the mover's own side keeps the value: a star's
                # coalition, a lone player moving again)
                flip = {"win": "loss", "loss": "win", "draw": "draw"}
                assert m.outcome == (child.outcome if s.same_side else flip[child.outcome])
                assert m.distance == (0 if child.outcome == "draw" else child.distance + 1)
            line = r.line()
            if SCORE_VALUES not in g.capabilities and r.outcome != "draw":
                assert len(line) == r.distance
                assert line[-1].distance == 0 if line else r.distance == 0


def test_text_round_trips(built):
    g, path = built
    for p in _sample_positions(g, path, n=60, seed=7):
        for q in g.images(p):
            assert g.parse(g.text(q)) == q
            for s in g.successors(q):
                assert g.parse(g.text(s.position)) == s.position


def _cdc_perft(g, position, depth):
    board, side = naive_cdc.parse(g.text(position))

    def walk(board, side, depth):
        if depth == 0:
            return 1
        other = "b" if side == "r" else "r"
        return sum(walk(naive_cdc.apply_move(board, m), other, depth - 1)
                   for m in naive_cdc.legal_moves(board, side))
    return walk(board, side, depth)


def _oware_perft(g, position, depth):
    def walk(houses, depth):
        if depth == 0:
            return 1
        return sum(walk(naive_oware.oware_play(houses, h)[0], depth - 1)
                   for h in naive_oware.oware_legal_moves(houses))
    return walk(tuple(int(x) for x in g.text(position).split()), depth)


def _shogi_perft(g, position, depth):
    import cshogi  # what tests/naive_shogi.py plays by

    def walk(board, depth):
        if depth == 0:
            return 1
        n = 0
        for m in list(board.legal_moves):
            board.push(m)
            n += walk(board, depth - 1)
            board.pop()
        return n
    return walk(cshogi.Board(g.text(position)), depth)


UTTT_CLOSED = {"XXXXXXXXX": "xxx......", "OOOOOOOOO": "ooo......", "DDDDDDDDD": "xoxxoxoxo"}


def _uttt_perft(g, position, depth):
    cells, side, con = g.text(position).split(" ")
    blocks = [cells[9 * b:9 * b + 9] for b in range(9)]  # a closed board written by status
    cells = "".join(UTTT_CLOSED.get(b, b) for b in blocks)
    return naive_uttt.perft((cells, side, None if con == "-" else int(con)), depth)


def _chinese_checkers_perft(g, position, depth):
    if hasattr(position, "holes"):  # a small star: tests/naive_cc_star.py
        from tests import naive_cc_star
        ref = naive_cc_star.Star({13: 1, 37: 2, 73: 3}[position.holes], position.players)

        def leaves(cells, mover, depth):
            if depth == 0:
                return 1
            return sum(leaves(c, m, depth - 1) for c, m in naive_cc_star.children(ref, cells,
                                                                                  mover))
        return leaves(tuple(position.cells), position.mover, depth)
    if not hasattr(position, "pieces"):  # the star
        cells = tuple(position.cells)
        return naive_chinese_checkers.star_perft(cells, position.players, position.mover, depth)
    rules = naive_chinese_checkers.Rules(position.m, position.pieces)

    def walk(cells, mover, depth):
        if depth == 0:
            return 1
        return sum(walk(naive_chinese_checkers.apply(cells, s, t), 3 - mover, depth - 1)
                   for s, t in rules.legal_moves(cells, mover))
    return walk(tuple(position.cells), position.mover, depth)


def _chess_perft(g, position, depth):
    import chess  # python-chess's move generation, from the FEN

    def walk(board, depth):
        if depth == 0:
            return 1
        n = 0
        for m in list(board.legal_moves):
            board.push(m)
            n += walk(board, depth - 1)
            board.pop()
        return n
    return walk(chess.Board(g.text(position)), depth)


def _tictactoe_perft(g, position, depth):
    return naive_tictactoe.perft(g.text(position), depth)


# each game's perft by its independent slow reference (tests/naive_*.py), from its text
REFERENCE_PERFT = {"cdc": _cdc_perft, "chess": _chess_perft,
                   "chinese-checkers": _chinese_checkers_perft,
                   "oware": _oware_perft, "shogi": _shogi_perft, "tictactoe": _tictactoe_perft,
                   "uttt": _uttt_perft}


def test_every_game_has_a_reference_perft():
    assert set(REFERENCE_PERFT) == set(NAMES)


def test_perft_matches_the_independent_reference(built):
    """``Game.perft`` (the game's own kernels, or the generic recursion over ``successors``)
    against the slow reference, on stored positions and the start position."""
    g, path = built
    positions = _sample_positions(g, path, n=4, seed=9)
    try:
        positions.append(g.start())
    except NotImplementedError:
        pass
    for p in positions:
        for depth in (1, 2, 3):
            assert g.perft(p, depth) == REFERENCE_PERFT[g.name](g, p, depth), (g.text(p), depth)


def test_sql_functions_answer_as_lookup_does(every_game_db):
    """tb_lookup, tb_canonical, tb_locate and tb_row answer for every game, on every image of
    a sample of stored positions, as ``tb.lookup`` does."""
    outcome_code = {"win": 1, "draw": 0, "loss": -1}
    for g in games.all_games():
        rows = _sample_rows(g, every_game_db, n=8, seed=13)
        assert rows, g.name
        with tbdb.open(every_game_db) as tb:
            for table, key in rows:
                stored = g.slot_text(table, key)
                for q in g.images(g.parse(stored))[:4]:
                    text = g.text(q)
                    r = tb.lookup(q, game=g.name)
                    value, canonical, loc = tb.sql(
                        "SELECT tb_lookup($g, $p), tb_canonical($g, $p), tb_locate($g, $p)",
                        params={"g": g.name, "p": text}).fetchall()[0]
                    assert value == {"outcome": r.outcome, "distance": r.distance,
                                     "score": r.extras.get("score"),
                                     "best_move": r.best_move}, (g.name, text)
                    got = tb.sql("SELECT game, table_name, result, distance, score FROM "
                                 "tb_row($g, $p)", params={"g": g.name, "p": text}).fetchall()
                    if isinstance(g.locate(q), GameOver):  # stored, but no table needed
                        assert (canonical, loc, got) == (None, None, []), (g.name, text)
                        continue
                    assert canonical == stored, (g.name, text)
                    where = (loc["idx"] if isinstance(key, int) else
                             (loc["key0"], loc["key1"], loc["key_constraint"]))
                    assert (loc["table_name"], where) == (table, key), (g.name, text)
                    assert len(got) == 1 and got[0][:2] == (g.name, table), (g.name, text, got)
                    if SCORE_VALUES in g.capabilities:
                        assert got[0][4] == r.score, (g.name, text)
                    else:
                        assert got[0][2:4] == (outcome_code[r.outcome], r.distance), text


@pytest.mark.parametrize("name", NAMES)
def test_sql_functions_answer_in_tbdb_sql(every_game_db, name, capsys):
    from tbdb.cli.run import main
    g = games.get(name)
    table, text = next((t, g.slot_text(t, k)) for t, k in _sample_rows(g, every_game_db, 20, 17)
                       if not isinstance(g.locate(g.parse(g.slot_text(t, k))), GameOver))
    with tbdb.open(every_game_db) as tb:
        r = tb.lookup(text, game=name)
    query = (f"SELECT tb_lookup('{name}', '{text}').outcome AS o, tb_canonical('{name}', "
             f"'{text}') AS c, tb_locate('{name}', '{text}').table_name AS t, "
             f"(SELECT count(*) FROM tb_row('{name}', '{text}')) AS n")
    assert main(["sql", "--db", every_game_db, "--csv", query]) == 0
    assert capsys.readouterr().out.splitlines() == ["o,c,t,n", f"{r.outcome},{text},{table},1"]


@pytest.mark.parametrize("name", NAMES)
def test_plan_is_ordered_and_options_are_checked(name):
    g = games.get(name)
    plan = g.plan(**g.example_build)
    assert len(plan) == len(set(plan))
    for i, table in enumerate(plan):
        assert set(g.dependencies(table)) <= set(plan[:i])
        assert g.check_table(table) == table
    for bogus in ("bogus!", "", "9x9-5"):  # every game rejects a foreign name the same way
        with pytest.raises(tbdb.InvalidOptionError, match=re.escape(repr(bogus))):
            g.check_table(bogus)
    with pytest.raises(tbdb.InvalidOptionError, match="colour='red'"):
        tbdb.build(name, db="never-created.duckdb", colour="red")
    for o in g.build_options:
        if o.type is int and o.max is not None:
            with pytest.raises(tbdb.InvalidOptionError, match=rf"not {o.max + 1}\b"):
                tbdb.build(name, db="never-created.duckdb", **{o.name: o.max + 1})
    assert not Path("never-created.duckdb").exists()


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.text(max_size=90))
@example(text="start")  # aliases belong to coerce, not to the round-tripping notation
@example(text="startpos")
@example(text=" start")
def test_random_text_raises_only_a_quoting_invalid_position_error(name, text):
    g = games.get(name)
    try:
        p = g.parse(text)
    except tbdb.InvalidPositionError as exc:
        assert repr(text) in str(exc)
    else:
        assert g.text(p) == text


@pytest.mark.parametrize("name", NAMES)
def test_lookups_forgive_surrounding_whitespace_and_the_notation_does_not(name):
    g = games.get(name)
    padded = " \t" + g.sample + "\n"  # as pasted from a terminal or read from a file
    assert g.text(g.coerce(padded)) == g.sample
    with pytest.raises(tbdb.InvalidPositionError, match=re.escape(repr(padded))):
        g.parse(padded)
    for bad in ("   ", " no position\n"):  # bad either way: the error quotes it as given
        with pytest.raises(tbdb.InvalidPositionError, match=re.escape(repr(bad))):
            g.coerce(bad)


def test_a_padded_text_looks_up_like_the_text(built):
    g, path = built
    with tbdb.open(path) as tb:
        for p in _sample_positions(g, path, n=3, seed=11):
            text = g.text(p)
            assert tb.lookup(text + "\n").to_dict() == tb.lookup(p, game=g.name).to_dict()
            assert tb.lookup("  " + text, game=g.name).position == text
        with pytest.raises(tbdb.InvalidPositionError, match=re.escape(repr(" x\n"))):
            tb.lookup(" x\n")  # no game reads it: the text as given is quoted
