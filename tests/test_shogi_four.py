"""Four-piece shogi tables against a mate search of cshogi's (slow: a 4-piece table takes
minutes to build).

Set TBDB_SHOGI4_DB to a database holding built 4-piece tables (``tbdb build shogi --table
KGGK``) to check those; without it the test builds KGGK itself.  The search knows nothing of
tbdb: cshogi makes the moves, and a position with no legal move is lost for the side to move.
Every sampled win at distance d must mate in d plies and not sooner, every loss at distance d
must be mated within d plies against any defence and not sooner, every draw must escape the
shortest mates; and every position's colour swap must read the same through ``tb.lookup``.
"""
import os
import random

import pytest

import tbdb
from tbdb.games.shogi import Position
from tbdb.games.shogi.game import swapped
from tbdb.games.shogi.tables import ShogiTable

cshogi = pytest.importorskip("cshogi")

pytestmark = pytest.mark.slow

PER_KIND = 25  # sampled positions of each kind (win / loss / draw) and table
WIN_PLIES = 3  # the longest wins searched (a drop can be any of ~80 squares: keep it short)
LOSS_PLIES = 4


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = os.environ.get("TBDB_SHOGI4_DB")
    if path:
        return path
    from tbdb.cli.run import main
    path = str(tmp_path_factory.mktemp("shogi4") / "kggk.duckdb")
    assert main(["build", "shogi", "--table", "KGGK", "--db", path, "--no-progress"]) == 0
    return path


def mates_within(board, plies: int) -> bool:
    """The side to move mates within ``plies`` (odd) plies whatever the defence."""
    if plies < 1:
        return False
    for move in list(board.legal_moves):
        board.push(move)
        done = is_mated_within(board, plies - 1)
        board.pop()
        if done:
            return True
    return False


def is_mated_within(board, plies: int) -> bool:
    """The side to move has no legal move now, or is mated within ``plies`` (even) plies
    whatever it plays."""
    moves = list(board.legal_moves)
    if not moves:
        return True
    if plies < 2:
        return False
    for move in moves:
        board.push(move)
        lost = mates_within(board, plies - 1)
        board.pop()
        if not lost:
            return False
    return True


def _sample(tb, table: dict, result: int, most: int, rng: random.Random):
    """Up to PER_KIND (SFEN, distance) of stored positions with ``result`` at distance <=
    ``most``, spread over the distances."""
    rows = tb.sql("SELECT idx, distance FROM (SELECT idx, distance FROM tb_index_values WHERE "
                  "table_id = ? AND result = ? AND distance <= ?) USING SAMPLE reservoir(2000 "
                  "ROWS) REPEATABLE (7)", params=[table["table_id"], result, most]).fetchall()
    rng.shuffle(rows)
    by_distance = {}
    for idx, distance in rows:
        by_distance.setdefault(distance, []).append(idx)
    space = ShogiTable(table["table_name"])
    out = []
    while len(out) < PER_KIND and any(by_distance.values()):
        for distance in sorted(by_distance):
            if by_distance[distance] and len(out) < PER_KIND:
                out.append((space.position(by_distance[distance].pop()).sfen, distance))
    return out


def test_sampled_four_piece_positions_agree_with_a_mate_search(db):
    rng = random.Random(7)
    checked = 0
    with tbdb.open(db) as tb:
        tables = [t for t in tb.tables("shogi") if len(t["table_name"]) == 4
                  and tb.store.table("shogi", t["table_name"]) is not None]  # built ones
        assert tables, f"no 4-piece shogi table in {db!r}"
        for table in tables:
            for sfen, d in _sample(tb, table, 1, WIN_PLIES, rng):
                board = cshogi.Board(sfen)
                assert mates_within(board, d), sfen
                assert not mates_within(board, d - 2), sfen
            for sfen, d in _sample(tb, table, -1, LOSS_PLIES, rng):
                board = cshogi.Board(sfen)
                assert is_mated_within(board, d), sfen
                assert d == 0 or not is_mated_within(board, d - 2), sfen
            for sfen, _ in _sample(tb, table, 0, 0, rng):
                board = cshogi.Board(sfen)
                assert not mates_within(board, 1) and not is_mated_within(board, 2), sfen
                checked += 1
            for sfen, d in _sample(tb, table, 1, 999, rng)[:10]:
                r = tb.lookup(swapped(Position.parse(sfen)))  # white to move, through the swap
                assert (r.outcome, r.distance) == ("win", d), sfen
    assert checked > 0  # draws exist and were searched
