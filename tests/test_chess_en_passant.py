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
