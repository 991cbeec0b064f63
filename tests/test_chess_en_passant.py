"""En passant inside chess tables with pawns of both colours (docs/rules/chess.md): the en
passant slots a double step beside an enemy pawn leads to.  The fast tests check the slots
against python-chess on KPvKP's kernels alone; the slow ones build KPvKP and compare it, en
passant positions included, with the naive reference (``tests/naive_chess.py``, which keys
positions by FEN with the en passant square)."""
import chess
import numpy as np
import pytest

from tbdb import games
from tbdb.games.chess.material import Material
from tbdb.games.chess.position import Move
from tbdb.games.chess.tables import ChessSpace, en_passant_keys

G = games.get("chess")


class _Zeros:
    """A solved table whose every value is a draw (the kernels only read them)."""

    def __init__(self, m: Material):
        n = 2 * m.half + len(en_passant_keys(m))
        self.result, self.distance = np.zeros(n, np.int8), np.zeros(n, np.int16)


@pytest.fixture(scope="module")
def kpkp():
    m = Material.parse("KPvKP")
    return m, ChessSpace(m, {c.name: _Zeros(c) for c in m.children()})


def _moves(space, slot) -> dict[str, int]:
    count, child, move = (a.copy() for a in space.children(np.array([slot]))[:3])
    return {Move.from_code(int(c)).uci(): int(s) for c, s in
            zip(move[0, :count[0]], child[0, :count[0]])}


def _parents(space, slot) -> set[int]:
    count, parent = space.parents(np.array([slot]))[:2]
    return set(parent[0, :count[0]].tolist())


def test_a_double_step_beside_an_enemy_pawn_leads_to_an_en_passant_slot(kpkp):
    m, space = kpkp
    assert space.size == 2 * m.half + len(en_passant_keys(m)) > 2 * m.half
    before = G.locate(G.coerce("7k/8/8/8/3p4/8/4P3/K7 w - - 0 1")).key
    moves = _moves(space, before)
    ep = moves["e2e4"]
    assert ep >= 2 * m.half and G.slot_text("KPvKP", ep) == "7k/8/8/8/3pP3/8/8/K7 b - e3 0 1"
    assert moves["e2e3"] < 2 * m.half  # a single step gives no right
    # its moves are python-chess's, the en passant capture (out of the table) included
    after = _moves(space, ep)
    board = chess.Board("7k/8/8/8/3pP3/8/8/K7 b - e3 0 1")
    assert sorted(after) == sorted(mv.uci() for mv in board.legal_moves)
    assert after["d4e3"] == -1
    # its one parent is the double step; the board without the right is not the double
    # step's child, so that position does not list it as a parent
    assert _parents(space, ep) == {before}
    plain = G.locate(G.coerce("7k/8/8/8/3pP3/8/8/K7 b - - 0 1")).key
    assert before not in _parents(space, plain)
    # a double step beside no enemy pawn leads to an ordinary slot
    far = G.locate(G.coerce("7k/8/8/8/p7/8/4P3/K7 w - - 0 1")).key
    assert _moves(space, far)["e2e4"] < 2 * m.half


def test_en_passant_slots_read_back_as_their_fen(kpkp):
    """A sample of the slots: python-chess finds the en passant capture legal in each slot's
    text, and tbdb's FEN reader keeps the en passant square."""
    m, space = kpkp
    keys = en_passant_keys(m)
    texts = {G.slot_text("KPvKP", 2 * m.half + e) for e in range(0, len(keys), 97)}
    for text in texts:
        board = chess.Board(text)
        assert board.has_legal_en_passant() and board.is_valid(), text
        assert G.coerce(text).text == text  # the right is kept through FEN


def test_en_passant_slots_are_python_chess_positions_with_a_legal_capture(kpkp):
    """Every KPvKP board (both sides to move) whose FEN has an en passant square a legal
    capture uses, counted with python-chess, against the slots (each stands for a board and
    its mirror image)."""
    m, _ = kpkp
    count = 0
    board = chess.Board(None)
    for turn, rank, behind in ((chess.WHITE, 4, 1), (chess.BLACK, 3, -1)):
        for f in range(8):
            for g in (f - 1, f + 1):
                if not 0 <= g < 8:
                    continue
                mover = chess.square(f, rank)  # the pawn that double-stepped
                pawns = {mover: chess.Piece(chess.PAWN, not turn),
                         chess.square(g, rank): chess.Piece(chess.PAWN, turn)}
                free = set(range(64)) - set(pawns) - {chess.square(f, rank + behind),
                                                      chess.square(f, rank + 2 * behind)}
                for wk in free:
                    for bk in free - {wk}:
                        if chess.square_distance(wk, bk) < 2:
                            continue
                        board.set_piece_map({**pawns, wk: chess.Piece(chess.KING, True),
                                             bk: chess.Piece(chess.KING, False)})
                        board.turn = turn
                        board.ep_square = chess.square(f, rank + behind)
                        if board.is_valid() and board.has_legal_en_passant():
                            count += 1
    assert count == 2 * len(en_passant_keys(m)) > 0


# ------------------------------------------------------------------ KPvKP built (slow)

@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """KPvKP and every table its captures and promotions reach."""
    import tbdb
    path = tmp_path_factory.mktemp("kpkp") / "tb.duckdb"
    tbdb.build("chess", db=str(path), material="KPvKP", progress=False)
    with tbdb.open(str(path)) as tb:
        yield tb


_VALUE = {"win": 1, "draw": 0, "loss": -1}


def _value(tb, board: chess.Board) -> tuple[int, int]:
    got = tb.lookup(board)
    r = _VALUE[got.outcome]
    return r, got.distance if r else 0


def stored_en_passant_slots(tb, table: str = "KPvKP") -> dict[str, tuple[int, int]]:
    """{EPD: (result, distance)} of the table's stored en passant slots, read from its rows."""
    m = Material.parse(table)
    rows = tb.sql("SELECT v.idx, v.result, v.distance FROM tb_index_values v JOIN tb_tables t "
                  "USING (table_id) WHERE t.game = 'chess' AND t.table_name = $t AND "
                  "v.idx >= $lo", params={"t": table, "lo": 2 * m.half}).fetchall()
    assert len(rows) == len(en_passant_keys(m))
    return {G.slot_text(table, i).rsplit(" ", 2)[0]: (r, d if r else 0) for i, r, d in rows}


def _keep(board: chess.Board, move: chess.Move) -> bool:
    """Inside one pawn configuration: king moves, and double steps that give an en passant
    right (the positions they lead to are what this checks)."""
    if board.piece_type_at(move.to_square) != chess.PAWN:
        return True
    return abs(move.to_square - move.from_square) == 16 and board.has_legal_en_passant()


def _root(white_pawn: str, black_pawn: str) -> chess.Board:
    """A legal KPvKP board with the pawns there, white to move."""
    pawns = {chess.parse_square(white_pawn): chess.Piece(chess.PAWN, chess.WHITE),
             chess.parse_square(black_pawn): chess.Piece(chess.PAWN, chess.BLACK)}
    for wk in range(64):
        for bk in range(64):
            if wk in pawns or bk in pawns or chess.square_distance(wk, bk) < 2:
                continue
            board = chess.Board(None)
            board.set_piece_map({**pawns, wk: chess.Piece(chess.KING, chess.WHITE),
                                 bk: chess.Piece(chess.KING, chess.BLACK)})
            if board.is_valid():
                return board
    raise AssertionError((white_pawn, black_pawn))


# pawn configurations where a double step meets an en passant reply (e2-e4 beside d4,
# ...e7-e5 beside d5, b2-b4 beside a4), and one where none can
CONFIGURATIONS = [("e2", "d4"), ("d5", "e7"), ("b2", "a4"), ("a3", "h6")]


@pytest.mark.slow
@pytest.mark.parametrize("white_pawn, black_pawn", CONFIGURATIONS)
def test_pawn_configurations_equal_the_naive_reference(built, white_pawn, black_pawn):
    """Every KPvKP position with the pawns on these squares (kings anywhere, either side to
    move) and every position with an en passant right a double step from them leads to,
    solved by the naive reference over king moves and those double steps; the moves that
    leave them (other pawn moves, captures, promotions) valued by tbdb's tables.  tbdb's
    lookups, and its stored en passant slots, agree with it on every one.  (A solve without
    en passant slots stored other values for 708 positions each of e2/d4 and d5/e7.)"""
    from tests import naive_chess
    outside: dict[str, tuple[int, int]] = {}

    def value_outside(board):
        key = board.epd()
        if key not in outside:
            outside[key] = _value(built, board)
        return outside[key]

    expected = naive_chess.solve_reachable([_root(white_pawn, black_pawn)], value_outside,
                                           _keep)
    with_right = [k for k in expected if k.split(" ")[3] != "-"]
    assert len(expected) > 6000 and (len(with_right) > 100) == (white_pawn != "a3")
    got = {k: _value(built, chess.Board(k)) for k in expected}
    bad = [(k, want, got[k]) for k, want in expected.items() if got[k] != want]
    assert not bad, f"{len(bad)} of {len(expected)} differ, e.g. {bad[:5]}"
    slots = stored_en_passant_slots(built)
    seen = [k for k in with_right if k in slots]
    assert len(seen) >= len(with_right) // 3  # the others are mirror images
    assert all(slots[k] == expected[k] for k in seen), \
        [(k, slots[k], expected[k]) for k in seen if slots[k] != expected[k]][:5]


@pytest.mark.slow
def test_every_mode_solves_the_en_passant_slots_alike(built, tmp_path):
    """KPvKP solved again edge-free and compact (the modes that walk ``parents``, where the en
    passant slots' parents matter) gives the rows the edges build gave, and ``verify``
    re-derives every row, en passant slots included, from one ply."""
    import shutil

    import tbdb
    src = built.path
    want = _rows(built)
    for mode in ("edge-free", "compact"):
        path = str(tmp_path / f"{mode}.duckdb")
        shutil.copy(src, path)
        tbdb.build("chess", db=path, material="KPvKP", mode=mode, rebuild=["KPvKP"],
                   progress=False)
        with tbdb.open(path) as tb:
            got = _rows(tb)
        assert all(np.array_equal(got[c], want[c]) for c in want), mode
    report = tbdb.verify(src, "chess", progress=False, tables=["KPvKP"])
    assert report.ok and report.checked >= 1, report


def _rows(tb) -> dict:
    return tb.sql("SELECT v.idx, v.result, v.distance, v.best_move FROM tb_index_values v "
                  "JOIN tb_tables t USING (table_id) WHERE t.game = 'chess' AND "
                  "t.table_name = 'KPvKP' ORDER BY v.idx").fetchnumpy()


@pytest.mark.slow
def test_hand_checked_positions_where_en_passant_changes_the_value(built):
    """Values a solve without en passant got wrong (it stored the first as a win in 21 plies,
    the second as a black win in 21, the third as a draw).

    1. White Kd3, e2; black Kd1, d4; white to move.  The d4 pawn is lost (Kxd4 leaves e2 to
       the black king; e3 is met by dxe3 Kxe3), and e2-e4, the one try that would win if the
       d-pawn could not take, is met by dxe3 e.p. Kxe3: bare kings.  A draw."""
    r = built.lookup("8/8/8/8/3p4/3K4/4P3/3k4 w - - 0 1")
    assert (r.outcome, r.distance) == ("draw", 0)
    assert {m.move: m.outcome for m in r.moves}["e2e4"] == "draw"
    after = built.lookup("8/8/8/8/3pP3/3K4/8/3k4 b - e3 0 1")
    assert (after.outcome, after.best_move) == ("draw", "d4e3")
    # the same board with no right to take: black loses (what the solve without en passant
    # thought e2-e4 led to)
    assert built.lookup("8/8/8/8/3pP3/3K4/8/3k4 b - - 0 1").outcome == "loss"
    # 2. The same with colours swapped, for black: ...d7-d5 is met by exd6 e.p. Kxd6.
    r = built.lookup("3K4/3p4/4k3/4P3/8/8/8/8 b - - 0 1")
    assert (r.outcome, r.distance) == ("draw", 0)
    assert built.lookup("3K4/8/4k3/3pP3/8/8/8/8 w - d6 0 1").best_move == "e5d6"
    # 3. White Ka3, e2; black Kd1, d4 (the white king too far to help): the solve without
    #    en passant found a draw through e2-e4; dxe3 e.p. refutes it (black's pawn queens),
    #    so white loses.
    r = built.lookup("8/8/8/8/3p4/K7/4P3/3k4 w - - 0 1")
    assert (r.outcome, r.distance) == ("loss", 22)
    ep = built.lookup("8/8/8/8/3pP3/K7/8/3k4 b - e3 0 1")
    assert (ep.outcome, ep.distance, ep.best_move) == ("win", 21, "d4e3")
    # the stored en passant slots hold the values the lookups derive from their children
    slots = stored_en_passant_slots(built)
    assert slots["8/8/8/8/3pP3/K7/8/3k4 b - e3"] == (1, 21)
    assert slots["8/8/8/8/3pP3/3K4/8/3k4 b - e3"] == (0, 0)


@pytest.mark.slow
def test_only_en_passant_wins_or_draws(built):
    """Lookups of a position with an en passant right are valued from its children: here only
    the en passant capture wins (or draws), the same position without the right does not."""
    tb = built
    win = tb.lookup("8/8/7k/8/3Pp3/8/7K/8 b - d3 0 1")
    assert (win.outcome, win.distance, win.best_move) == ("win", 19, "e4d3")
    assert tb.lookup("8/8/7k/8/3Pp3/8/7K/8 b - - 0 1").outcome == "draw"
    draw = tb.lookup("8/8/8/8/1pP5/1K6/8/7k b - c3 0 1")
    assert (draw.outcome, draw.best_move) == ("draw", "b4c3")
    assert [m.move for m in draw.moves if m.outcome == "draw"] == ["b4c3"]
    assert (tb.lookup("8/8/8/8/1pP5/1K6/8/7k b - - 0 1").outcome) == "loss"
    # the batch form values the same rows alike (best moves as codes on each row)
    texts = ["8/8/7k/8/3Pp3/8/7K/8 b - d3 0 1", "8/8/7k/8/3Pp3/8/7K/8 b - - 0 1",
             "8/8/8/8/1pP5/1K6/8/7k b - c3 0 1", "8/8/8/8/1pP5/1K6/8/7k b - - 0 1"]
    positions = [G.coerce(t) for t in texts]
    result, distance, best = tb.lookup_arrays("chess", *G.encode_batch(positions))
    for p, r, d, b in zip(positions, result, distance, best):
        one = tb.lookup(p)
        assert ({1: "win", 0: "draw", -1: "loss"}[int(r)], int(d)) == \
            (one.outcome, one.distance or 0)
        assert G.move_text(p, int(b), 0) == one.best_move
