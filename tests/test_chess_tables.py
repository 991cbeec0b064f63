"""Chess tables: published longest mates, hand-checked positions, colour and board symmetry, and
(slow) every position of KQvK, KRvK and KPvK against the naive reference (tests/naive_chess.py).
"""
import chess
import pytest

import tbdb
from tbdb import games
from tbdb.games.chess.material import Material, all_materials
from tests import naive_chess

G = games.get("chess")


@pytest.fixture(scope="module")
def three(tmp_path_factory):
    """Every 3-piece table (KPvK and what its promotions lead to)."""
    path = tmp_path_factory.mktemp("chess3") / "tb.duckdb"
    tbdb.build("chess", db=str(path), material="KPvK", progress=False)
    with tbdb.open(str(path)) as tb:
        yield tb


def _longest(tb, table: str, side: str = "white") -> int:
    (row,) = tb.sql("SELECT longest_win FROM draw_analysis WHERE game = 'chess' AND "
                    "material = $m AND side_to_move = $s", params={"m": table, "s": side}
                    ).fetchall()
    return row[0]


def test_materials_are_syzygys():
    names = [m.name for m in all_materials(5)]
    assert len(names) == 145 and len(set(names)) == 145
    assert [len([m for m in all_materials(5) if m.pieces == n]) for n in (3, 4, 5)] == [5, 30, 110]
    assert {"KQvKR", "KRPvKR", "KBNvK", "KPvKP", "KRvKB", "KNNvKP"} <= set(names)
    assert Material.parse("KRvKQ").canonical() == (Material.parse("KQvKR"), True)
    assert G.plan(material="KPvK") == ["KBvK", "KNvK", "KQvK", "KRvK", "KPvK"]
    plan = G.plan(max_pieces=4)
    for i, t in enumerate(plan):  # every table after the tables it needs
        assert set(G.dependencies(t)) <= set(plan[:i]), t


def test_published_longest_mates(three):
    # mate in N moves is 2N - 1 plies for the winner to move
    assert _longest(three, "KQvK") == 19  # mate in 10
    assert _longest(three, "KRvK") == 31  # mate in 16
    assert _longest(three, "KBvK") is None and _longest(three, "KNvK") is None


@pytest.mark.slow
@pytest.mark.parametrize("material, plies", [("KBBvK", 37), ("KBNvK", 65)])
def test_published_longest_mates_four_pieces(tmp_path, material, plies):
    path = str(tmp_path / "tb.duckdb")
    tbdb.build("chess", db=path, material=material, progress=False)
    with tbdb.open(path) as tb:
        assert _longest(tb, material) == plies  # mate in 19, in 33


def test_hand_checked_positions(three):
    mate = three.lookup("8/8/8/8/8/5K2/6Q1/7k b - - 0 1")  # Qg2 mates
    assert (mate.outcome, mate.distance, mate.best_move) == ("loss", 0, None)
    stalemate = three.lookup("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")
    assert (stalemate.outcome, stalemate.distance) == ("draw", 0)
    one = three.lookup("7k/8/6K1/8/8/8/8/5Q2 w - - 0 1")
    assert (one.outcome, one.distance) == ("win", 1)
    assert chess.Board("7k/8/6K1/8/8/8/8/5Q2 w - - 0 1").is_checkmate() is False
    board = chess.Board("7k/8/6K1/8/8/8/8/5Q2 w - - 0 1")
    board.push_uci(one.best_move)
    assert board.is_checkmate()
    # the queen hangs: black takes it, bare kings
    hang = three.lookup("8/8/8/8/8/8/6Qk/4K3 b - - 0 1")
    assert (hang.outcome, hang.best_move) == ("draw", "h2g2")


def test_only_underpromotion_wins(three):
    """b8=Q stalemates; b8=R wins (a move generator without underpromotion says draw)."""
    r = three.lookup("8/1P6/k7/8/K7/8/8/8 w - - 0 1")
    assert (r.outcome, r.distance, r.best_move) == ("win", 13, "b7b8r")
    moves = {m.move: (m.outcome, m.distance) for m in r.moves}
    assert moves["b7b8q"] == ("draw", 0) and moves["b7b8r"] == ("win", 13)


def test_colour_swap_and_symmetries_answer_alike(three):
    for fen in ["8/8/8/4k3/8/8/8/KQ6 w - - 0 1", "8/8/3k4/8/8/3K4/3P4/8 w - - 0 1",
                "8/8/3k4/8/8/3K4/3P4/8 b - - 0 1", "8/8/8/2k5/8/8/1R6/4K3 b - - 0 1"]:
        p = G.coerce(fen)
        want = three.lookup(p).to_dict()
        for q in G.images(p):
            got = three.lookup(q)
            assert (got.outcome, got.distance) == (want["outcome"], want["distance"])
            # the best move of an image is the image of a best move: same value
            assert (got.outcome, got.distance) in [(m.outcome, m.distance) for m in got.moves
                                                   if m.move == got.best_move] or \
                got.best_move is None


def test_lookup_takes_python_chess_boards(three):
    board = chess.Board("8/8/8/4k3/8/8/8/KQ6 w - - 0 1")
    assert three.lookup(board).to_dict() == three.lookup(board.fen()).to_dict()


def test_a_board_reads_as_its_fen_does():
    """``Position.from_board`` reads python-chess's bitboards, not its FEN: the same position,
    text, counters and en passant right (kept only where a capture can use it) as reading
    ``board.fen()``, on random boards of several materials and just after double steps; what
    a FEN is refused for, a board is refused for in the same words."""
    import random
    from tests.chess_positions import en_passant_boards, random_boards
    from tbdb.errors import InvalidPositionError
    from tbdb.games.chess.position import Position
    rnd = random.Random(4)
    boards = [b for m in ("KQvKR", "KRvKP", "KPPvK", "KBNvK") for b in random_boards(m, 300, rnd)]
    boards += en_passant_boards("KPvKP", 300, rnd)
    for b in boards:
        b.halfmove_clock, b.fullmove_number = rnd.randrange(100), rnd.randrange(1, 500)
        p, q = Position.from_board(b), Position.read(b.fen())
        assert p == q and p.text == q.text == b.fen(), b.fen()
    stale = chess.Board("8/8/8/8/4P3/8/8/K6k b - e3 0 1")  # no black pawn to take it
    assert Position.from_board(stale).text == "8/8/8/8/4P3/8/8/K6k b - - 0 1"
    for fen in ("8/8/8/4k3/8/8/8/KQ5K w - - 0 1", "P3k3/8/8/8/8/8/8/4K3 w - - 0 1",
                "4k3/4Q3/8/8/8/8/8/4K3 w - - 0 1", "4k3/8/8/8/8/8/8/4K2R w K - 0 1"):
        with pytest.raises(InvalidPositionError) as from_fen:
            Position.read(fen)
        with pytest.raises(InvalidPositionError) as from_board:
            Position.from_board(chess.Board(fen))
        assert str(from_board.value) == str(from_fen.value)


def test_a_board_of_another_variant_is_refused(three):
    """python-chess's variant boards subclass ``chess.Board``: an atomic or antichess KRvK was
    answered with standard chess's mate in 15.  Chess960 without castling rights is standard
    chess, and answered."""
    import chess.variant
    from tbdb.errors import InvalidPositionError
    fen = "8/8/8/4k3/8/8/8/KQ6 w - - 0 1"
    for board_type in (chess.variant.AtomicBoard, chess.variant.AntichessBoard,
                       chess.variant.CrazyhouseBoard, chess.variant.ThreeCheckBoard,
                       chess.variant.KingOfTheHillBoard, chess.variant.RacingKingsBoard,
                       chess.variant.HordeBoard):
        with pytest.raises(InvalidPositionError, match=f"{board_type.__name__}, which plays "
                                                       f"{board_type.uci_variant} rules"):
            three.lookup(board_type(fen))
    assert three.lookup(chess.Board(fen, chess960=True)).to_dict() == \
        three.lookup(fen).to_dict()


def test_a_line_mates(three):
    r = three.lookup("8/8/8/4k3/8/8/8/KR6 w - - 0 1")
    line = r.line()
    assert len(line) == r.distance
    board = chess.Board(r.position)
    for step in line:
        board.push_uci(step.move)
    assert board.is_checkmate()


def test_missing_tables_and_bad_materials(three):
    with pytest.raises(tbdb.MissingTableError, match="KQvKR"):
        three.lookup("8/8/8/4k3/8/8/r7/KQ6 w - - 0 1")
    with pytest.raises(tbdb.InvalidOptionError, match="'KQvKQQQQ'"):
        tbdb.build("chess", db="never.duckdb", material="KQvKQQQQ")
    with pytest.raises(tbdb.InvalidOptionError, match="'KXvK'"):
        tbdb.build("chess", db="never.duckdb", material="KXvK")


def _compare_with_naive(tb, material: str) -> None:
    """Every legal position of ``material`` (both sides to move): tbdb's outcome and distance
    equal the naive solver's."""
    expected = naive_chess.solve(material)
    pieces = naive_chess.pieces_of(material)
    bad = []
    for (turn, squares), (r, d) in expected.items():
        board = chess.Board(None)
        board.set_piece_map(dict(zip(squares, pieces)))
        board.turn = turn
        got = tb.lookup(board)
        want = ({1: "win", 0: "draw", -1: "loss"}[r], d)
        if (got.outcome, got.distance if r else 0) != want:
            bad.append((board.fen(), want, (got.outcome, got.distance)))
    assert not bad, f"{len(bad)} of {len(expected)} differ, e.g. {bad[:5]}"


@pytest.mark.slow
@pytest.mark.parametrize("material", ["KQvK", "KRvK", "KPvK"])
def test_every_position_equals_the_naive_reference(three, material):
    _compare_with_naive(three, material)


def test_json_has_lichess_fields(three):
    r = three.lookup("8/1P6/k7/8/K7/8/8/8 w - - 0 1").to_dict()
    assert (r["category"], r["dtm"], r["checkmate"], r["stalemate"]) == ("win", 13, False, False)
    assert r["insufficient_material"] is False
    first = r["moves"][0]  # best first; its value for the side to move after it, as lichess
    assert (first["uci"], first["san"], first["category"], first["dtm"], first["zeroing"]) == \
        ("b7b8r", "b8=R", "loss", -12, True)
    queen = next(m for m in r["moves"] if m["uci"] == "b7b8q")
    assert (queen["category"], queen["stalemate"], queen["san"]) == ("draw", True, "b8=Q")
    king = next(m for m in r["moves"] if m["uci"] == "a4b4")
    assert king["zeroing"] is False
    mate = three.lookup("8/8/8/8/8/5K2/6Q1/7k b - - 0 1").to_dict()
    assert (mate["category"], mate["dtm"], mate["checkmate"]) == ("loss", 0, True)
    bare = three.lookup("8/8/8/8/8/8/6Qk/4K3 b - - 0 1").to_dict()["moves"][0]
    assert (bare["san"], bare["insufficient_material"], bare["category"]) == \
        ("Kxg2", True, "draw")
    lost = three.lookup("8/8/8/4k3/8/8/8/KQ6 b - - 0 1").to_dict()
    assert lost["category"] == "loss" and lost["dtm"] < 0


@pytest.mark.slow  # 1.5-3 minutes (two solves of five tables); the contract test checks keys in CI
def test_edge_free_records_the_best_moves_edges_picks():
    """The edge-free solve records best moves on the way, through order keys
    (``solvers/chess/keys.py``); a pawnless 4-piece table has positions that are their own
    mirror image (kings and pieces on a diagonal), whose first move to a child is the smaller
    key of two: every row equals the edges solve's, best moves included."""
    import numpy as np

    from tbdb.retrograde import driver
    deps = {}
    for table in G.plan(material="KRvKN"):
        space = G.space(table, {d: deps[d] for d in G.dependencies(table)})
        want = driver.solve_index(space, "edges")
        got = driver.solve_index(G.space(table, {d: deps[d] for d in G.dependencies(table)}),
                                 "edge-free")
        for field in ("result", "distance", "best", "multiplicity"):
            assert np.array_equal(getattr(got, field), getattr(want, field)), (table, field)
        deps[table] = G.from_stored(table, None, want)
