"""Chess move generation, perft, FEN and SAN: against published perft numbers and python-chess."""
import random

import chess
import pytest

import tbdb
from tbdb import games
from tbdb.games.chess import Move, Position, san

G = games.get("chess")

# published perft numbers (chessprogramming.org "Perft Results"); positions without castling
# rights, or whose castling cannot happen within the depth
PUBLISHED = [
    ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", [14, 191, 2812, 43238, 674624]),  # position 3
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1", [20, 400, 8902, 197281]),
    ("n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1", [24, 496, 9483, 182838]),  # promotions
]

# positions with en passant, pins through en passant, promotions with capture, mates
TRICKY = [
    "8/8/1k6/2b5/2pP4/8/5K2/8 b - d3 0 1",
    "8/8/8/KPp4r/8/8/8/6k1 w - c6 0 1",  # en passant would expose the king: not legal
    "3k4/3p4/8/K1P4r/8/8/8/8 b - - 0 1",
    "8/8/4k3/8/2p5/8/B2P2K1/8 w - - 0 1",
    "8/P1k5/K7/8/8/8/8/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w - - 0 1",
    "8/5bk1/8/2Pp4/8/1K6/8/8 w - d6 0 1",
    "4k3/8/8/8/8/8/1p6/R3K3 b - - 0 1",
]


def _python_chess_perft(board: chess.Board, depth: int) -> int:
    if depth == 0:
        return 1
    n = 0
    for m in board.legal_moves:
        board.push(m)
        n += _python_chess_perft(board, depth - 1)
        board.pop()
    return n


@pytest.mark.parametrize("fen, counts", PUBLISHED)
def test_perft_matches_the_published_numbers(fen, counts):
    p = G.parse_for_perft(fen)
    assert [G.perft(p, d) for d in range(1, len(counts) + 1)] == counts


@pytest.mark.parametrize("fen", TRICKY)
def test_perft_matches_python_chess(fen):
    p = G.parse_for_perft(fen)
    board = chess.Board(fen)
    for depth in (1, 2, 3):
        assert G.perft(p, depth) == _python_chess_perft(board, depth), (fen, depth)


def test_perft_on_the_command_line(capsys):
    from tbdb.cli.run import main
    assert main(["perft", "chess", PUBLISHED[0][0], "4"]) in (0, None)
    assert "43238" in capsys.readouterr().out


def _random_positions(n, seed=5):
    """Positions of random games from a few start positions (every kind of move occurs)."""
    rng = random.Random(seed)
    out = []
    starts = [fen for fen, _ in PUBLISHED] + TRICKY
    while len(out) < n:
        board = chess.Board(rng.choice(starts))
        for _ in range(rng.randrange(1, 40)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
            out.append(board.copy(stack=False))
    return out


def test_moves_san_and_fen_agree_with_python_chess():
    for board in _random_positions(300):
        p = G.coerce(board)
        assert p.text == board.fen(en_passant="legal")
        assert G.parse(p.text) == p
        ours = [m.uci() for m in p.legal_moves()]
        assert sorted(ours) == sorted(m.uci() for m in board.legal_moves)
        for m in board.legal_moves:
            assert san(p, Move.from_uci(m.uci())) == board.san(m)
            after = p.push(m.uci())
            board.push(m)
            assert after.text == board.fen(en_passant="legal")
            board.pop()
        assert p.is_check() == board.is_check()


def test_fen_errors_quote_the_text():
    for bad, why in [
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "castling rights"),
        ("8/8/8/8/8/8/8/KQ5k w - - 0 1", "black, not to move, is in check"),
        ("8/8/8/8/8/8/8/K7 w - - 0 1", "black has 0 kings"),
        ("P7/8/8/8/8/8/8/K6k w - - 0 1", "first or last rank"),
        ("8/8/8/8/8/8/8/K6k x - - 0 1", "malformed"),
        ("8/8/8/8/8/8/8/K6k w - e3 0 1", "en passant square"),
        ("8/8/8/8/8/8/9/K6k w - - 0 1", "malformed"),
    ]:
        with pytest.raises(tbdb.InvalidPositionError, match=why) as exc:
            G.coerce(bad)
        assert repr(bad) in str(exc.value)


def test_fen_forms():
    # four fields and an en passant square no capture can use: lookups read them, the
    # notation writes the six-field form without it
    p = G.coerce("8/8/8/8/4P3/8/8/K6k b - e3")
    assert p.text == "8/8/8/8/4P3/8/8/K6k b - - 0 1"
    with pytest.raises(tbdb.InvalidPositionError, match="not in tbdb's FEN form"):
        G.parse("8/8/8/8/4P3/8/8/K6k b - e3 0 1")
    # a usable en passant square stays
    assert G.coerce("8/8/8/8/3pP3/8/8/K6k b - e3 0 1").ep == chess.E3
    assert G.coerce(chess.Board("8/8/8/8/3pP3/8/8/K6k b - e3 0 1")).ep == chess.E3
    with pytest.raises(tbdb.InvalidMoveError, match="'e2e5'"):
        G.coerce("8/8/8/8/8/8/4P3/K6k w - - 0 1").push("e2e5")
    assert Position.parse("8/8/8/8/8/8/4P3/K6k w - - 0 1").push("e4").text == \
        "8/8/8/8/4P3/8/8/K6k b - - 0 1"


@pytest.mark.parametrize("material", ["KRvKB", "KQvKR", "KBNvKQ", "KRPvKB", "KQBvKR"])
def test_the_table_generator_lists_the_board_generators_moves(material):
    """``pieces.table_moves`` (the table kernels' generator: attack maps for the king's steps,
    tests only for pinned pieces and in check) against ``moves.legal_moves`` (the board
    generator perft checks), move for move and in order, on random positions of tables whose
    sliders pin, check and guard the kings' squares; a generator that skipped the test of a
    pinned piece, or let a king step along a slider's line away from it, fails here.  Listed
    with a limit of one move (a draw's best move), it lists the same first move; counting the
    quiet moves (the first pass), it lists the captures and promotions in the same order and
    counts the others."""
    import numpy as np

    from tbdb.games.chess.material import Material
    from tbdb.solvers.chess import moves, pieces
    from tbdb.solvers.chess.index import half_size, unrank
    from tbdb.solvers.jit import kernel

    @kernel
    def both(desc, slots, got, want, counts, first, loud, takes):
        k = desc[0]
        half = half_size(desc)
        sq = np.empty(8, np.int64)
        order = np.empty(8, np.int64)
        victims = np.empty(moves.MAX_MOVES, np.int64)
        board = np.zeros(64, np.int8)
        chessboard = np.zeros(64, np.int8)
        done = 0
        for r in range(slots.shape[0]):
            side = slots[r] // half
            unrank(desc, slots[r] % half, sq)
            occ = pieces.placement_occupancy(desc, sq, k)
            if occ == 0 or pieces.attacked(desc, sq, sq[1 - side], side, occ, -1):
                continue  # not a placement, or the side not to move in check
            occ = pieces.fill(desc, sq, board)
            for i in range(k):
                chessboard[sq[i]] = desc[2 + i]
            counts[done, 0], _ = pieces.table_moves(desc, sq, side, -1, board, occ, got[done],
                                                    victims, order, moves.MAX_MOVES, False)
            for e in range(counts[done, 0]):
                takes[done, e] = victims[e] >= 0
            counts[done, 2], _ = pieces.table_moves(desc, sq, side, -1, board, occ,
                                                    first[done], victims, order, 1, False)
            counts[done, 3], counts[done, 4] = pieces.table_moves(
                desc, sq, side, -1, board, occ, loud[done], victims, order, moves.MAX_MOVES,
                True)
            counts[done, 1] = moves.legal_moves(chessboard, side, -1, want[done])
            pieces.unfill(desc, sq, board)
            for i in range(k):
                chessboard[sq[i]] = 0
            done += 1
        return done

    desc = Material.parse(material).desc
    rng = np.random.default_rng(5)
    slots = rng.integers(0, 2 * half_size(desc), 20_000)
    got = np.zeros((len(slots), moves.MAX_MOVES), np.int32)
    want = np.zeros_like(got)
    counts = np.zeros((len(slots), 5), np.int64)
    first = np.zeros_like(got)
    loud = np.zeros_like(got)
    takes = np.zeros(got.shape, np.bool_)
    done = both(desc, slots, got, want, counts, first, loud, takes)
    assert done > 5_000
    assert (counts[:done, 0] == counts[:done, 1]).all()
    assert (got[:done] == want[:done]).all()
    some = counts[:done, 0] > 0
    assert ((counts[:done, 2] >= 1) == some).all()
    assert (counts[:done, 2] <= counts[:done, 0]).all()
    assert (first[:done][some, 0] == want[:done][some, 0]).all()
    for r in range(done):
        listed = got[r, :counts[r, 0]]
        not_quiet = listed[(listed >> 12 != 0) | takes[r, :counts[r, 0]]]
        assert list(loud[r, :counts[r, 3]]) == list(not_quiet)
        assert counts[r, 3] + counts[r, 4] == counts[r, 1]
