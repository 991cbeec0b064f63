"""The generic retrograde engine against a naive solver on random game graphs.

A game graph here is explicit: each slot lists its moves in order, each move leading to a slot
of the table or out of it (to an already solved value).  The naive solver below is the
definition, computed round by round: a position is won in d if a move reaches a position lost
in d - 1, lost in d if every move reaches a position won in at most d - 1 (one of them exactly),
and drawn if neither ever happens.  Every retrograde mode and the verifier are checked against
it, and the verifier must flag each kind of planted error, the draw rule included.
"""
from __future__ import annotations

import numpy as np
import pytest

from tbdb.retrograde import driver
from tbdb.solvers.retrograde import DRAW, ILLEGAL, LOSS, NONE, WIN


class GraphSpace:
    """An IndexSpace (docs/kernel-contract.md) over an explicit graph.

    moves[p]: list of (move code, child slot or -1, ext result, ext distance).  ``codes``:
    parents() gives each move's code too; "bytes": and the codes are the moves' bytes
    (``move_bytes``, below 32 here), which a compact solve keeps in a won position's counter."""

    def __init__(self, moves, kind, codes=False):
        self.moves = moves
        self.kind = np.asarray(kind, np.int8)
        self.size = len(moves)
        self.max_children = max(1, max(len(m) for m in moves))
        self.codes = codes  # parents() also gives each move's code (move codes ascend in order)
        if codes == "bytes":
            self.move_bytes = 32
        par = [[] for _ in moves]
        for p, ms in enumerate(moves):
            for m, c, _, _ in ms:
                if c >= 0:
                    par[c].append((p, m))
        self.par = par
        self.max_parents = max(1, max(len(x) for x in par))

    def census(self, lo, hi):
        kind = self.kind[lo:hi].copy()
        return kind, np.where(kind == NONE, 0, 1).astype(np.int16)

    def children(self, positions):
        k, w = len(positions), self.max_children
        count = np.zeros(k, np.int16)
        child = np.full((k, w), -1, np.int64)
        move = np.zeros((k, w), np.int32)
        ext_r = np.zeros((k, w), np.int8)
        ext_d = np.zeros((k, w), np.int16)
        for r, p in enumerate(positions):
            for e, (m, c, er, ed) in enumerate(self.moves[p]):
                move[r, e], child[r, e], ext_r[r, e], ext_d[r, e] = m, c, er, ed
            count[r] = len(self.moves[p])
        return count, child, move, ext_r, ext_d

    def moves_of_bytes(self, positions, codes):
        return np.asarray(codes, np.int32)

    def parents(self, positions, as_bytes=False):
        assert not as_bytes or self.codes == "bytes"
        k = len(positions)
        count = np.zeros(k, np.int32)
        parent = np.full((k, self.max_parents), -1, np.int64)
        code = np.full((k, self.max_parents), -1, np.int32)
        for r, p in enumerate(positions):
            count[r] = len(self.par[p])
            for e, (q, m) in enumerate(self.par[p]):
                parent[r, e], code[r, e] = q, m
        return (count, parent, code) if self.codes else (count, parent)


def random_graph(seed, n=60, codes=False):
    rng = np.random.default_rng(seed)
    kind = np.zeros(n, np.int8)
    odd = rng.random(n)
    kind[odd < 0.08] = ILLEGAL
    kind[(odd >= 0.08) & (odd < 0.14)] = NONE
    real = np.flatnonzero(kind == 0)
    moves = [[] for _ in range(n)]
    for p in real:
        for m in range(int(rng.integers(0, 5))):
            if rng.random() < 0.25:  # out of the table: a solved value, or the game ends
                er = int(rng.choice([WIN, DRAW, LOSS]))
                ed = 0 if er == DRAW else int(rng.integers(0, 6))
                moves[p].append((m * 7 + 3, -1, er, ed))
            else:  # repeats allowed: two moves may reach one position
                c = int(rng.choice(real))
                if c != p:
                    moves[p].append((m * 7 + 3, c, 0, 0))
    return GraphSpace(moves, kind, codes)


def naive_solve(space):
    """(result, distance, best) by the definition, one distance at a time."""
    n = space.size
    result = np.where(space.kind == 0, 127, space.kind).astype(np.int64)  # 127: unknown
    distance = np.zeros(n, np.int64)

    def value(m):
        _, c, er, ed = m
        return (er, ed) if c < 0 else (result[c], distance[c])

    horizon = 2 * n + 10
    for d in range(horizon):
        found = {}
        for p in np.flatnonzero(result == 127):
            vals = [value(m) for m in space.moves[p]]
            if any(r == LOSS and dd == d - 1 for r, dd in vals) and \
                    not any(r == LOSS and dd < d - 1 for r, dd in vals):
                found[p] = WIN
            elif all(r == WIN for r, _ in vals) and \
                    max([dd for _, dd in vals], default=-1) == d - 1:
                found[p] = LOSS
        for p, r in found.items():
            result[p], distance[p] = r, d
    result[result == 127] = DRAW
    best = np.full(n, -1, np.int64)
    for p in np.flatnonzero(space.kind == 0):
        want = {WIN: (LOSS, distance[p] - 1), LOSS: (WIN, distance[p] - 1)}.get(result[p])
        for m in space.moves[p]:
            r, dd = value(m)
            if (want is None and r == DRAW) or (want is not None and (r, dd) == want):
                best[p] = m[0]
                break
    return result, distance, best


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize("mode, codes", [("edges", False), ("edge-free", False),
                                         ("edge-free", True), ("compact", False),
                                         ("compact", "bytes")])
def test_both_modes_match_the_definition(seed, mode, codes):
    space = random_graph(seed, codes=codes)
    got = driver.solve_index(space, mode)
    result, distance, best = naive_solve(space)
    real = space.kind == 0
    assert got.result.tolist() == result.tolist()
    assert got.distance[real].tolist() == distance[real].tolist()
    assert got.best[real].tolist() == best[real].tolist()
    assert not driver.check_index(space, got).any()


@pytest.mark.parametrize("seed", range(10))
def test_edge_free_without_best_moves_keeps_the_values_and_holds_no_moves(seed):
    """``without_best_moves``: the same results and distances, every best move NO_MOVE, and
    the best moves one value standing for every slot (none copied out of the records)."""
    space = random_graph(seed, codes=True)
    with driver.without_best_moves():
        got = driver.solve_index(space, "edge-free")
    result, distance, _ = naive_solve(space)
    real = space.kind == 0
    assert got.result.tolist() == result.tolist()
    assert got.distance[real].tolist() == distance[real].tolist()
    assert (got.best == -1).all() and got.best.strides == (0,) and len(got.best) == len(result)


def test_the_random_graphs_have_every_kind_of_value():
    seen = set()
    for seed in range(40):
        seen |= set(naive_solve(random_graph(seed))[0].tolist())
    assert {WIN, DRAW, LOSS, ILLEGAL, NONE} <= seen


def _small():
    """0 <-> 1 cycle (draws); 2 wins by leaving the table (the opponent lost at once) or can
    enter the cycle; 3 can only move to 2 (lost in 2); 4 has no move (lost in 0)."""
    moves = [[(10, 1, 0, 0)], [(11, 0, 0, 0)], [(20, 0, 0, 0), (21, -1, LOSS, 0)],
             [(30, 2, 0, 0)], []]
    return GraphSpace(moves, [0] * 5)


@pytest.mark.parametrize("codes", [False, True])
def test_hand_checked_graph(codes):
    space = _small()
    space.codes = codes
    values = driver.solve_index(space, "edge-free")
    assert values.result.tolist() == [DRAW, DRAW, WIN, LOSS, LOSS]
    assert values.distance.tolist() == [0, 0, 1, 2, 0]
    assert values.best.tolist() == [10, 11, 21, 30, -1]


@pytest.mark.parametrize("slot, field, value, flag", [
    (0, "result", LOSS, 1),  # a drawn position said lost
    (3, "result", DRAW, 1),  # the draw rule: every move of 3 reaches a won position
    (2, "result", DRAW, 1),  # a won position said drawn
    (2, "distance", 3, 1),  # a win said longer than it is
    (3, "distance", 1, 1),
    (2, "best", 20, 2),  # a legal move that does not win
    (2, "best", 99, 2),  # not a legal move
    (4, "best", 30, 2),  # a move where there is none
    (0, "distance", 5, 1),  # draws have distance 0
    (1, "multiplicity", 3, 3),
])
def test_verify_flags_each_planted_error(slot, field, value, flag):
    space = _small()
    values = driver.solve_index(space, "edges")
    getattr(values, field)[slot] = value
    bad = driver.check_index(space, values)
    assert bad[slot] == flag, bad.tolist()


@pytest.mark.parametrize("parts", [1, 2, 3, 4, 5, 8])
def test_backup_threads_own_slots_modulo_their_count(parts):
    """``ef_apply`` gives slot p to thread p mod parts (a mask for powers of two): every
    thread owns its share, and neighbouring slots alternate, so a batch's parents spread."""
    from tbdb.solvers.retrograde.edge_free import owner
    slots = np.arange(0, 1 << 20, 7, dtype=np.int64)
    owners = np.array([owner(p, parts) for p in slots.tolist()])
    assert (owners == slots % parts).all()


@pytest.mark.parametrize("seed", range(5))
def test_edge_free_on_one_thread_matches_the_definition(seed):
    import numba
    space = random_graph(seed, codes=True)
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        got = driver.solve_index(space, "edge-free")
    finally:
        numba.set_num_threads(threads)
    result, distance, best = naive_solve(space)
    real = space.kind == 0
    assert got.result.tolist() == result.tolist()
    assert got.distance[real].tolist() == distance[real].tolist()
    assert got.best[real].tolist() == best[real].tolist()


def long_graph(seed, chain, ext_win=None, ext_loss=None):
    """A random graph with a chain of ``chain`` positions hung on it (each moves to the next,
    the last has no move: distances up to chain - 1), and optionally a position with an
    in-table child and an external child won at ``ext_win`` (its loss waits for that
    distance) and one with an external child lost at ``ext_loss``: distances about the 125
    plies a compact uint8 state holds."""
    base = random_graph(seed)
    moves = [list(m) for m in base.moves]
    kind = base.kind.tolist()
    start = len(moves)
    for i in range(chain):
        moves.append([(5, start + i + 1, 0, 0)] if i + 1 < chain else [])
        kind.append(0)
    real = [p for p in range(start) if kind[p] == 0]
    moves[real[0]].append((99, start, 0, 0))  # the random part reaches into the chain
    if ext_win is not None:  # moves to the chain's won end and to a long external win
        moves.append([(1, start + chain - 2, 0, 0), (2, -1, WIN, ext_win)])
        kind.append(0)
    if ext_loss is not None:
        moves.append([(1, start + 3, 0, 0), (2, -1, LOSS, ext_loss)])
        kind.append(0)
    return GraphSpace(moves, kind)


@pytest.mark.parametrize("chain, ext_win, ext_loss", [
    (120, None, None), (126, None, None), (127, None, None), (128, None, None),
    (300, None, None), (20, 123, None), (20, 124, None), (20, 125, None), (20, 126, None),
    (20, None, 124), (20, None, 125), (20, None, 126), (130, 200, 140)])
def test_compact_distances_about_its_packing_limit(chain, ext_win, ext_loss):
    """The compact state packs result and distance into a byte up to 125 plies and must
    widen, never wrap, past it: its rows equal the definition and the other modes."""
    space = long_graph(chain % 7, chain, ext_win, ext_loss)
    got = driver.solve_index(space, "compact")
    result, distance, best = naive_solve(space)
    real = space.kind == 0
    assert got.result.tolist() == result.tolist()
    assert got.distance[real].tolist() == distance[real].tolist()
    assert got.best[real].tolist() == best[real].tolist()
    assert distance.max() >= min(chain - 1, 125) or max(ext_win or 0, ext_loss or 0) > 122
    edges = driver.solve_index(space, "edges")
    for field in ("result", "distance", "best", "multiplicity"):
        assert (getattr(got, field) == getattr(edges, field)).all(), field


@pytest.mark.parametrize("seed", range(10))
def test_compact_keeps_the_best_move_of_won_positions_in_their_counters(seed):
    """With ``move_bytes`` the final pass picks no move of a position won through a table
    child: its counter holds the move's byte, the smallest of its children lost one ply
    sooner (the definition's first move)."""
    space = random_graph(seed, codes="bytes")
    got = driver.solve_index(space, "compact")
    _, distance, best = naive_solve(space)
    kept = (got.result == WIN) & (got.won != np.iinfo(got.won.dtype).max)
    through_table = [p for p in np.flatnonzero(got.result == WIN)
                     if any(c >= 0 and got.result[c] == LOSS and distance[c] == distance[p] - 1
                            for _, c, _, _ in space.moves[p])
                     and not any(c < 0 and er == LOSS and ed == distance[p] - 1
                                 for _, c, er, ed in space.moves[p])]
    assert np.flatnonzero(kept).tolist() == through_table
    assert got.won[kept].tolist() == best[kept].tolist()
