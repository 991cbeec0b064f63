"""Chinese Checkers rhombus tables: the kernel contract, both retrograde modes, every position of
small tables against the slow solver, symmetry, and the check values."""
import random
from functools import lru_cache

import numpy as np
import pytest

from tests import naive_chinese_checkers as naive
from tbdb.retrograde import driver
from tbdb.errors import InvalidOptionError
from tbdb.games.chinese_checkers import Position
from tbdb.games.chinese_checkers.tables import (RhombusTable, parse_table_name, raw_positions,
                                                slots)

WIN, DRAW, LOSS, ILLEGAL, NONE = 1, 0, -1, -2, -3


@lru_cache(maxsize=None)
def table(m, pieces):
    return RhombusTable(m, pieces)


@lru_cache(maxsize=None)
def solved(m, pieces, mode="edges"):
    return driver.solve_index(table(m, pieces), mode)


def value(position: Position):
    """(result, distance) of a position from its solved table, through the Python mapping."""
    name, slot, _ = position.table_key()
    values = solved(position.m, position.pieces)
    return int(values.result[slot]), int(values.distance[slot])


def one_ply(position: Position):
    """(result, distance) re-derived from the stored values of the children."""
    if position.status == "over":
        return LOSS, 0
    kids = []
    for move in position.legal_moves():
        child = position.push(move)
        kids.append((LOSS, 0) if child.status == "over" else value(child))
    if not kids:
        return LOSS, 0
    lost = [d for r, d in kids if r == LOSS]
    if lost:
        return WIN, min(lost) + 1
    if all(r == WIN for r, _ in kids):
        return LOSS, max(d for _, d in kids) + 1
    return DRAW, 0


def test_seven_by_seven_one_piece_check_values():
    """4,704 positions, none drawn, 96 illegal; 2,304 won for the first player (and as many
    for the second: the player-swap symmetry), which is 2,520 won for the player to move."""
    t = table(7, 1)
    values = solved(7, 1)
    keys = [(a, b, mover) for mover in (1, 2) for a in range(49) for b in range(49) if a != b]
    boards = np.zeros((len(keys), 49), np.int8)
    for i, (a, b, _) in enumerate(keys):
        boards[i, a], boards[i, b] = 1, 2
    movers = np.array([mover for _, _, mover in keys], np.int8)
    slot, _ = t.locate(boards, movers)
    result = values.result[slot]
    assert len(keys) == t.raw_positions == 4704
    assert values.multiplicity.astype(np.int64).sum() == 4704
    assert (result == ILLEGAL).sum() == 96
    assert (result == DRAW).sum() == 0
    first_wins = ((result == WIN) & (movers == 1)) | ((result == LOSS) & (movers == 2))
    second_wins = ((result == WIN) & (movers == 2)) | ((result == LOSS) & (movers == 1))
    assert first_wins.sum() == second_wins.sum() == 2304
    assert (result == WIN).sum() == 2520 and (result == LOSS).sum() == 2088


def test_four_by_four_six_pieces_counts_the_papers_illegal_positions():
    """Sturtevant (ACG 2019, Table 1): 405,420 illegal positions on 4x4 with 6 pieces a side.
    The census's kinds also agree with the reference rules on sampled positions, illegal
    ones (both reasons) and finished games among them."""
    t = table(4, 6)
    kind, mult = t.census(0, t.size)
    assert int(mult[kind == ILLEGAL].astype(np.int64).sum()) == 405_420
    rules = naive.Rules(4, 6)
    rng = np.random.default_rng(46)
    seen = set()
    for group in (np.flatnonzero(kind == ILLEGAL), np.flatnonzero(kind == 0)):
        picked = np.sort(rng.choice(group, 300, replace=False))
        for slot, board in zip(picked, t.boards(picked)):  # the stored frame: 1 to move
            cells, mover = tuple(board.tolist()), 1
            status = rules.status(cells, mover)
            assert (status == "illegal") == (kind[slot] == ILLEGAL), (slot, cells, mover)
            seen.add(status)
            if status == "illegal" and not rules.won(cells, mover):
                seen.add("walled")
    assert seen == {"illegal", "walled", "playing", "over"}


@pytest.mark.parametrize("m,pieces", [(4, 1), (5, 1), (3, 3), (7, 1),
                                      pytest.param(4, 2, marks=pytest.mark.slow),
                                      pytest.param(5, 2, marks=pytest.mark.slow),
                                      pytest.param(3, 4, marks=pytest.mark.slow)])
def test_every_position_matches_the_slow_solver(m, pieces):
    reference = naive.solve(m, pieces)
    t = table(m, pieces)
    values = solved(m, pieces)
    keys = list(reference)
    boards = np.array([cells for cells, _ in keys], np.int8)
    movers = np.array([mover for _, mover in keys], np.int8)
    slot, _ = t.locate(boards, movers)
    want = np.array(list(reference.values()))
    assert (values.result[slot] == want[:, 0]).all()
    legal = want[:, 0] != ILLEGAL
    assert (values.distance[slot][legal] == want[legal, 1]).all()
    # every raw position is counted once through the multiplicities
    assert values.multiplicity.astype(np.int64).sum() == len(reference) == t.raw_positions


def check_contract(t: RhombusTable):
    """Children are real positions or winning moves, moves distinct and >= 0, and the
    (child, parent) pairs of ``parents`` are exactly those of ``children``."""
    kind, mult = t.census(0, t.size)
    assert ((kind == NONE) == (mult == 0)).all()
    real = np.flatnonzero(kind == 0)
    count, child, move, ext_result, ext_distance = t.children(real)
    assert count.max() <= t.max_children
    live = np.arange(child.shape[1])[None, :] < count[:, None]
    assert (move[live] >= 0).all()
    ordered = np.sort(np.where(live, move, -1), axis=1)
    assert not ((ordered[:, 1:] == ordered[:, :-1]) & (ordered[:, 1:] >= 0)).any()
    kids = child[live]
    rows = np.repeat(real, count)
    external = kids < 0
    assert (ext_result[live][external] == LOSS).all()
    assert (ext_distance[live][external] == 0).all()
    assert (kind[kids[~external]] == 0).all()
    forward = np.unique(kids[~external] * t.size + rows[~external])
    pcount, parent, _ = t.parents(real)
    assert pcount.max() <= t.max_parents
    plive = np.arange(parent.shape[1])[None, :] < pcount[:, None]
    pairs = np.repeat(real, pcount) * t.size + parent[plive]
    backward = np.unique(pairs)
    assert np.array_equal(forward, backward)
    assert len(backward) == len(pairs)  # no row lists a parent twice (parents_distinct)
    # summaries: the first winning move, else the number of distinct in-table children
    distinct, ext_loss, win_move, ext_win, _, ext_draw = (np.array(a) for a in t.summaries(real))
    wins = live & (child < 0)
    first_win = np.where(wins.any(axis=1), np.where(wins, move, 1 << 30).min(axis=1), -1)
    assert np.array_equal(win_move, first_win)
    assert np.array_equal(ext_loss == 0, first_win >= 0) and (ext_win == -1).all()
    assert not ext_draw.any()
    kids_sorted = np.sort(np.where(live & (child >= 0), child, -1), axis=1)
    new_kid = (kids_sorted >= 0) & np.concatenate(
        [np.ones((len(real), 1), bool), kids_sorted[:, 1:] != kids_sorted[:, :-1]], axis=1)
    assert np.array_equal(distinct[first_win < 0], new_kid.sum(axis=1)[first_win < 0])


@pytest.mark.parametrize("ncell,k", [(25, 6), (49, 3), (16, 4), (9, 1)])
def test_prepared_ranks_equal_ranks_counted_from_scratch(ncell, k):
    """The parents and children kernels rank a piece's moves from tables prepared once per
    piece (``insertion_base``, ``swap_base``): each entry must be the colex rank counted
    directly, for every destination."""
    from tbdb.solvers.chinese_checkers import index as ix
    from tbdb.solvers.chinese_checkers.geometry import binomials
    binom = binomials(ncell, k)
    rng = random.Random(ncell * 10 + k)
    others, base, table_ = (np.empty(8, np.int64) for _ in range(3))
    below, free = np.empty(8, np.int64), np.arange(ncell, dtype=np.int64)
    for _ in range(200):
        cells = sorted(rng.sample(range(ncell), 2 * k))
        mine = sorted(rng.sample(cells, k))
        taken = np.array(sorted(set(cells) - set(mine)), np.int64)
        mine = np.array(mine, np.int64)
        i = rng.randrange(k)  # insertion_base: mine[i] replaced by each cell c not in mine
        ix.insertion_base(mine, k, i, free, binom, others, base)
        for c in set(range(ncell)) - set(mine.tolist()):
            want = ix.rank(np.array(sorted(set(mine.tolist()) - {mine[i]} | {c}), np.int64), k,
                           binom)
            assert ix.rank_inserted(others, k, base, c, binom) == want
        gone = int(taken[rng.randrange(k)])  # swap_base: taken's gone moved to came
        ix.count_below(mine, k, taken, below)
        ix.swap_base(mine, k, below, gone, binom, table_)
        for came in set(range(ncell)) - set(cells) | {gone}:
            moved = np.array(sorted(set(taken.tolist()) - {gone} | {came}), np.int64)
            assert table_[ix.count_less(mine, k, came)] == ix.rank_free(mine, moved, k, binom)


@pytest.mark.parametrize("m", [3, 4, 5, 7])
def test_tip_walls_answer_as_the_rule(m):
    """The kernels test the 6-piece rule from cell lists (``_tip_walls``, ``_walled``): on
    random boards, walled tips included, they must answer as the game's own Python statement
    of the rule (``tip_blocked``, one goal at a time)."""
    from tbdb.games.chinese_checkers.position import tip_blocked
    from tbdb.solvers.chinese_checkers import tables as kernels
    nbr = table(m, 2).geometry.nbr
    walls = kernels._tip_walls(nbr)
    rng = np.random.default_rng(m)
    n, seen = m * m, 0
    for _ in range(3000):
        board = rng.integers(0, 3, n).astype(np.int8)
        if rng.random() < 0.5:  # wall one tip in, maybe
            g = rng.integers(2)
            board[walls[g, 0]] = 0
            board[walls[g, 1:][walls[g, 1:] >= 0]] = 2 - g
        cells = board.tolist()
        want = tip_blocked(cells, nbr.tolist(), 1) or tip_blocked(cells, nbr.tolist(), 2)
        seen += want
        assert kernels._walled(board, walls) == want
    assert seen > 100


@pytest.mark.parametrize("m,pieces", [(3, 3), (4, 3), (3, 4), (5, 2),
                                      pytest.param(4, 4, marks=pytest.mark.slow),
                                      pytest.param(4, 6, marks=pytest.mark.slow),
                                      pytest.param(6, 2, marks=pytest.mark.slow)])
def test_parents_are_exactly_the_inverse_of_children(m, pieces):
    check_contract(table(m, pieces))


@pytest.mark.parametrize("m,pieces", [(3, 3), (4, 3), (3, 4), (5, 2),
                                      pytest.param(4, 6, marks=pytest.mark.slow),
                                      pytest.param(5, 3, marks=pytest.mark.slow)])
def test_both_modes_give_the_same_table_and_it_verifies(m, pieces):
    t = table(m, pieces)
    edges = solved(m, pieces, "edges")
    free = solved(m, pieces, "edge-free")
    assert edges.mode == "edges" and free.mode == "edge-free"
    for field in ("result", "distance", "best", "multiplicity"):
        assert (getattr(edges, field) == getattr(free, field)).all(), field
    assert not driver.check_index(t, free).any()


@pytest.mark.parametrize("m,pieces", [(5, 2), (4, 6)])
def test_compact_gives_the_rows_of_the_other_modes(m, pieces):
    """Compact = edges = edge-free row for row (4x4-6: the blocking rule, 38-ply losses)."""
    edges = solved(m, pieces, "edges")
    for mode in ("edge-free", "compact"):
        got = solved(m, pieces, mode)
        assert got.mode == mode
        if mode == "compact":  # first as a build writes it: chunks made from the state words
            # the best moves of positions won through the table were kept as move bytes
            assert ((got.result == WIN) & (got.won != 255)).sum() > 0
            parts = list(zip(*got.chunks(4099)))
            assert parts[0][:3] == (0, 4099, 8198)
            for field, part in zip(("result", "distance", "best", "multiplicity"), parts[1:]):
                assert (np.concatenate(part) == getattr(edges, field)).all(), (mode, field)
        for field in ("result", "distance", "best", "multiplicity"):
            assert (getattr(got, field) == getattr(edges, field)).all(), (mode, field)


@pytest.mark.parametrize("m,pieces,samples", [(5, 3, 150), (4, 6, 60),
                                               pytest.param(6, 4, 300,
                                                            marks=pytest.mark.slow)])
def test_parents_of_sampled_positions_match_the_reference_unmoves(m, pieces, samples):
    """For sampled positions, every placement the last mover could have come from by the
    reference rules is a parent, and nothing else (a table too big to check whole)."""
    t = table(m, pieces)
    rules = naive.Rules(m, pieces)
    rng = np.random.default_rng(m + pieces)
    sample = []
    while len(sample) < samples:
        lo = int(rng.integers(0, max(1, t.size - 4096)))
        kind, _ = t.census(lo, min(t.size, lo + 4096))
        real = lo + np.flatnonzero(kind == 0)
        sample.extend(rng.choice(real, min(len(real), 5), replace=False).tolist())
    sample = np.array(sample[:samples], np.int64)
    pcount, parent, _ = t.parents(sample)
    boards = t.boards(sample)
    n = m * m
    for r in range(len(sample)):
        cells = tuple(int(c) for c in boards[r])  # stored frame: 1 to move, 2 just moved
        want = []
        if rules.status(cells, 1) == "playing":
            for s in [c for c in range(n) if cells[c] == 2]:
                for t_ in [c for c in range(n) if cells[c] == 0]:
                    before = naive.apply(cells, s, t_)
                    if rules.status(before, 2) == "playing" and \
                            (t_, s) in naive.moves(rules.board, before, 2):
                        want.append(before)
        want_slots = set()
        if want:
            got, _ = t.locate(np.array(want, np.int8), np.full(len(want), 2, np.int8))
            want_slots = set(got.tolist())
        assert set(parent[r, :pcount[r]].tolist()) == want_slots, cells


@pytest.mark.parametrize("m,pieces", [(4, 3), (5, 2), (3, 4),
                                      pytest.param(5, 3, marks=pytest.mark.slow),
                                      pytest.param(4, 6, marks=pytest.mark.slow)])
def test_symmetric_images_have_the_same_value(m, pieces):
    """Sampled positions, their mirror images (when the start areas are symmetric) and their
    player-swapped 180-degree turns: looked up through the Python mapping, each stored value
    equals the one re-derived from that image's own moves and children."""
    t = table(m, pieces)
    values = solved(m, pieces)
    rng = random.Random(m * 31 + pieces)
    n = m * m
    real = np.flatnonzero(values.result >= LOSS)
    boards = t.boards(np.array(rng.sample(list(real), min(25, len(real)))))
    for board in boards:
        cells = tuple(int(c) for c in board)
        images = [Position(m, pieces, cells, 1),
                  Position(m, pieces, tuple({0: 0, 1: 2, 2: 1}[c] for c in cells[::-1]), 2)]
        if t.mirror_symmetric:
            mirrored = tuple(cells[int(t.geometry.mirror[c])] for c in range(n))
            images.append(Position(m, pieces, mirrored, 1))
        stored = {value(p) for p in images}
        assert len(stored) == 1
        for p in images:
            assert one_ply(p) == value(p), p.text


def test_best_moves_map_back_to_moves_that_realise_the_value():
    m, pieces = 5, 3
    t = table(m, pieces)
    values = solved(m, pieces)
    rng = random.Random(3)
    n = m * m
    for _ in range(60):
        spots = rng.sample(range(n), 2 * pieces)
        cells = [0] * n
        for c in spots[:pieces]:
            cells[c] = 1
        for c in spots[pieces:]:
            cells[c] = 2
        position = Position(m, pieces, tuple(cells), rng.choice((1, 2)))
        if position.status != "playing":
            continue
        _, slot, sym = position.table_key()
        r, d, code = values.result[slot], values.distance[slot], values.best[slot]
        move = position.move_from_code(int(code), sym)
        assert move in position.legal_moves()
        child = position.push(move)
        cr, cd = (LOSS, 0) if child.status == "over" else value(child)
        if r == DRAW:
            assert cr == DRAW
        else:
            assert cr == -r and cd == d - 1


def test_table_names_and_sizes():
    assert parse_table_name("7x7-3") == (7, 3)
    for bad in ["7x6-3", "7x7-5", "2x2-1", "3x3-6", "7x7", "x"]:
        with pytest.raises(InvalidOptionError, match=repr(bad)):
            parse_table_name(bad)
    assert raw_positions(7, 3) == 559_352_640
    for m, pieces in [(3, 1), (4, 6), (5, 2), (7, 3)]:
        assert slots(m, pieces) == (table(m, pieces).size if (m, pieces) != (7, 3)
                                    else 141_219_540)
    t = table(4, 6)
    assert t.name == "4x4-6" and t.blocking_rule and t.mirror_symmetric
    assert not table(5, 2).mirror_symmetric
