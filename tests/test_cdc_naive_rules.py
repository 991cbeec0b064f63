"""The CDC rules, as implemented by the naive reference (tests/naive_cdc.py), on hand-checked cases.

These tests document the rules of /work/shared/rules/cdc.md.  Board diagrams in the
comments show rank 4 at the top; squares are a1 (bottom left) .. h4 (top right).
"""

from __future__ import annotations

import os
import random
import re
import sys
from math import comb

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import naive_cdc as naive  # noqa: E402


def moves(text: str) -> set[str]:
    board, side = naive.parse(text)
    return set(naive.legal_moves(board, side))


def captures(text: str) -> set[str]:
    return {m for m in moves(text) if "x" in m}


def value(text: str) -> tuple[str, int]:
    board, side = naive.parse(text)
    return naive.solve(naive.material_of(board))[text]


def manhattan(a: str, b: str) -> int:
    return abs(ord(a[0]) - ord(b[0])) + abs(int(a[1]) - int(b[1]))


# ------------------------------------------------------------------ notation


def test_parse_example():
    board, side = naive.parse("4g2K/8/8/8 r")
    assert board == {"e4": "g", "h4": "K"}
    assert side == "r"
    assert naive.to_text(board, side) == "4g2K/8/8/8 r"


def test_to_text_uses_maximal_runs():
    assert naive.to_text({}, "b") == "8/8/8/8 b"
    assert naive.to_text({"a1": "P", "h1": "k", "d3": "C"}, "r") == "8/3C4/8/P6k r"


@pytest.mark.parametrize(
    "text",
    [
        "8/8/8 r",  # three ranks
        "8/8/8/8/8 r",  # five ranks
        "7/8/8/8 r",  # rank sums to 7
        "9/8/8/8 r",  # 9 is not a run length
        "K8/8/8/8 r",  # rank sums to 9
        "0K7/8/8/8 r",  # zero run
        "44/8/8/8 r",  # adjacent digits (non-canonical)
        "3K13/8/8/8 r",  # adjacent digits after a piece
        "x7/8/8/8 r",  # bad letter
        "8/8/8/8 w",  # bad side
        "8/8/8/8r",  # no space
        "8/8/8/8  r",  # two spaces
        "8/8/8/8 r ",  # trailing space
        "KK6/8/8/8 r",  # two red generals
        "GGG5/8/8/8 b",  # three advisors
        "pppppp2/8/8/8 b",  # six soldiers
        "",
    ],
)
def test_parse_errors_quote_the_input(text):
    with pytest.raises(ValueError, match=re.escape(repr(text))):
        naive.parse(text)


@pytest.mark.parametrize("material", ["KvK", "CvPP", "GvCP"])
def test_round_trip_every_position(material):
    for text in naive.positions(material):
        board, side = naive.parse(text)
        assert naive.to_text(board, side) == text
        assert naive.material_of(board) == material


def test_material_signature():
    board, _ = naive.parse("Kg1p1c1P/8/8/Gk1PpP1M r")
    # red K G M P P P; black k g c p p, both in upper case ordered K G M R N C P
    assert naive.material_of(board) == "KGMPPPvKGCPP"
    assert naive.material_of({"a1": "K", "b1": "G"}) == "KGv"
    assert naive.material_of({"a1": "r"}) == "vR"


def test_position_counts():
    assert len(list(naive.positions("KvK"))) == 2 * 32 * 31
    pair = list(naive.positions("PPvK"))  # identical soldiers unordered
    assert len(pair) == 2 * comb(32, 2) * 30
    assert len(set(pair)) == len(pair)
    two_pairs = sum(1 for _ in naive.positions("CCvPP"))
    assert two_pairs == 2 * comb(32, 2) * comb(30, 2) == 431_520


# ------------------------------------------------------------------ moves


def test_steps_to_empty_squares_only():
    # corner general: two steps
    assert moves("8/8/8/K7 r") == {"a1-a2", "a1-b1"}
    # centre piece: four steps
    assert moves("8/8/3N4/8 r") == {"d2-d3", "d2-d1", "d2-c2", "d2-e2"}
    # black's pieces do not move on red's turn
    assert moves("8/8/8/K6k r") == {"a1-a2", "a1-b1"}


def test_cannon_captures_over_enemy_screen_at_distance_along_a_row():
    # C . p . . g . .   (rank 1): screen p on c1, target g on f1
    assert captures("8/8/8/C1p2g2 r") == {"a1xf1"}


def test_cannon_captures_over_own_screen_at_distance():
    # C P . . . . . k  (rank 1): own soldier is the screen, general is the target
    assert captures("8/8/8/CP5k r") == {"a1xh1"}


def test_cannon_captures_along_a_column():
    # a4 = p (target), a3 empty, a2 = p (screen), a1 = C
    assert captures("p7/8/p7/C7 r") == {"a1xa4"}
    # and downwards, black cannon on h4 over h3 onto h1
    assert captures("7c/7P/8/7R b") == {"h4xh1"}


def test_cannon_captures_in_every_direction():
    # rank 4:  . . . n . . . .      d2 up:    d3 screen, d4 target
    # rank 3:  . . . p . . . .      d2 left:  c2 screen, b2 empty, a2 target
    # rank 2:  g . p C p m . .      d2 right: e2 screen, f2 target
    # rank 1:  . . . r . . . .      d2 down:  d1 adjacent, nothing beyond: no capture
    assert captures("3n4/3p4/g1pCpm2/3r4 r") == {"d2xd4", "d2xa2", "d2xf2"}


def test_cannon_cannot_capture_adjacent_piece():
    assert captures("8/8/8/Cp6 r") == set()
    assert "a1-b1" not in moves("8/8/8/Cp6 r")
    # even when there is something beyond it: then the adjacent piece is the screen
    assert captures("8/8/8/Cpg5 r") == {"a1xc1"}


def test_cannon_cannot_capture_over_two_screens():
    # C P P g: the first piece beyond the screen is red's own soldier: nothing to take
    assert captures("8/8/8/CPPg4 r") == set()
    # C p p g: the first piece beyond the screen is taken, never the one after it
    assert captures("8/8/8/Cppg4 r") == {"a1xc1"}


def test_cannon_cannot_capture_own_piece():
    assert captures("8/8/8/Cp1P4 r") == set()


def test_cannon_never_captures_by_stepping():
    # a cannon next to a soldier it could "outrank" cannot take it by stepping
    assert moves("8/8/8/Cp6 r") == {"a1-a2"}


def test_cannon_takes_any_rank_by_jumping():
    assert captures("8/8/8/CP1k4 r") == {"a1xd1"}


def test_soldier_captures_general():
    assert captures("8/8/k7/P7 r") == {"a1xa2"}


def test_general_cannot_capture_soldier():
    assert captures("8/8/p7/K7 r") == set()
    assert moves("8/8/p7/K7 r") == {"a1-b1"}


def test_soldier_captures_soldier_but_not_cannon_or_others():
    assert captures("8/8/p7/Pc6 r") == {"a1xa2"}
    for letter in "gmrnc":
        assert captures(f"8/8/8/P{letter}6 r") == set(), letter


def test_equal_rank_captures():
    for letter in "KGMRNP":
        text = f"8/8/8/{letter}{letter.lower()}6 r"
        assert captures(text) == {"a1xb1"}, text


def test_higher_rank_captures_lower_not_the_reverse():
    assert captures("8/8/8/Gm6 r") == {"a1xb1"}
    assert captures("8/8/8/Mg6 r") == set()
    assert captures("8/8/8/Kg6 r") == {"a1xb1"}
    assert captures("8/8/8/Gk6 r") == set()
    assert captures("8/8/8/Nc6 r") == {"a1xb1"}  # a horse takes a cannon
    assert captures("8/8/8/Rn6 r") == {"a1xb1"}


def test_apply_move():
    board, _ = naive.parse("8/8/8/C1p2g2 r")
    after = naive.apply_move(board, "a1xf1")
    assert naive.to_text(after, "b") == "8/8/8/2p2C2 b"
    assert naive.to_text(naive.apply_move(board, "a1-a2"), "b") == "8/8/C7/2p2g2 b"
    assert board == {"a1": "C", "c1": "p", "f1": "g"}  # input unchanged


# Independent restatement of the move rules, written from the definitions (all
# pairs of squares, no ray walking), compared with naive.legal_moves on random boards.
STEP_CAPTURES = {  # attacker -> kinds it may take by stepping onto an adjacent square
    "K": set("KGMRNC"),  # not the soldier
    "G": set("GMRNCP"),
    "M": set("MRNCP"),
    "R": set("RNCP"),
    "N": set("NCP"),
    "C": set(),  # never by stepping
    "P": set("PK"),  # soldiers and the general
}


def definition_moves(board: dict[str, str], side: str) -> set[str]:
    out = set()
    mine = (lambda p: p.isupper()) if side == "r" else (lambda p: p.islower())
    squares = [f + r for f in "abcdefgh" for r in "1234"]
    for s, piece in board.items():
        if not mine(piece):
            continue
        for t in squares:
            d = manhattan(s, t)
            target = board.get(t)
            if d == 1:
                if target is None:
                    out.add(f"{s}-{t}")
                elif not mine(target) and target.upper() in STEP_CAPTURES[piece.upper()]:
                    out.add(f"{s}x{t}")
            if piece.upper() == "C" and d >= 2 and target is not None and not mine(target):
                if s[0] == t[0] or s[1] == t[1]:  # same file or same rank
                    between = [
                        q for q in squares
                        if q in board
                        and manhattan(s, q) + manhattan(q, t) == d
                        and (q[0] == s[0] == t[0] or q[1] == s[1] == t[1])
                        and q not in (s, t)
                    ]
                    if len(between) == 1:
                        out.add(f"{s}x{t}")
    return out


def test_move_generator_matches_definitions_on_random_boards():
    rng = random.Random(20240601)
    letters = "KGGMMRRNNCCPPPPP"
    squares = [f + r for f in "abcdefgh" for r in "1234"]
    for _ in range(3000):
        n_pieces = rng.randint(2, 14)
        pool = list(letters + letters.lower())
        chosen = rng.sample(pool, n_pieces)
        board = dict(zip(rng.sample(squares, n_pieces), chosen))
        for side in "rb":
            assert set(naive.legal_moves(board, side)) == definition_moves(board, side), (
                naive.to_text(board, side)
            )


# ------------------------------------------------------------------ solving


def test_completely_blocked_side_loses_in_zero():
    # black soldier in the corner a1, red cannons on a2 and b1: the soldier cannot take
    # cannons and cannot step: no legal move, loss in 0.
    text = "8/8/C7/pC6 b"
    assert moves(text) == set()
    assert value(text) == ("loss", 0)
    # a general walled in by soldiers it may not take; with red to move a soldier takes it
    assert moves("8/8/P7/kP6 b") == set()
    assert value("8/8/P7/kP6 b") == ("loss", 0)
    assert value("8/8/P7/kP6 r") == ("win", 1)


def test_side_without_pieces_loses():
    # Red takes the last black piece: the child has black to move with nothing: loss 0,
    # so the capture is a win in 1.
    assert value("8/8/8/Kk6 r") == ("win", 1)
    assert naive.value("8/8/8/K7 b") == ("loss", 0)
    assert naive.solve("Kv")["8/8/8/K7 b"] == ("loss", 0)
    assert naive.solve("Kv")["8/8/8/K7 r"] == ("win", 1)


def test_kvk_hand_checked():
    # generals side by side, red to move takes: win in 1
    assert value("8/8/8/Kk6 r") == ("win", 1)
    # red general cornered on a1, black general on b2: both a2 and b1 touch b2 -> loss in 2
    assert value("8/8/1k6/K7 r") == ("loss", 2)
    # black general cornered on a1, red on c2: c2-b2 leaves black the previous case: win in 3
    assert value("8/8/2K5/k7 r") == ("win", 3)
    assert value("8/8/1K6/k7 b") == ("loss", 2)


def test_kvk_parity():
    # A step changes the Manhattan distance between the generals by one, so the parity of
    # the distance seen by the side to move never changes.  A capture needs distance 1:
    # the side that moves facing an even distance can never capture, hence never win;
    # the side facing an odd distance can never be captured, hence never lose.
    # (The solver finds no draws at all: on 4x8 the chaser always corners the other.)
    for text, (outcome, dist) in naive.solve("KvK").items():
        board, side = naive.parse(text)
        (a, _), (b, _) = board.items()
        if manhattan(a, b) % 2 == 1:
            assert outcome == "win" and dist % 2 == 1, text
        else:
            assert outcome == "loss" and dist % 2 == 0, text
    assert value("7k/8/8/K7 r") == ("loss", 18)  # the longest KvK loss, corner to corner


def test_soldier_against_general():
    # the general cannot take the soldier: red to move next to a black soldier has no
    # capture; black to move takes the general.
    assert value("8/8/8/Kp6 b") == ("win", 1)
    table = naive.solve("KvP")
    # the general can never win in KvP
    assert all(o != "win" for t, (o, _) in table.items() if t.endswith(" r"))
    # and the soldier can never lose
    assert all(o != "loss" for t, (o, _) in table.items() if t.endswith(" b"))


def test_rvp_hand_checked():
    assert value("8/8/8/Rp6 r") == ("win", 1)
    # soldier cornered on a1, chariot on b2, black to move: a2 and b1 both touch b2
    assert value("8/8/1R6/p7 b") == ("loss", 2)
    # Same board, red to move: a draw.  The distance red faces is 2 and, by the parity
    # argument above, red always faces an even distance, so the chariot never captures;
    # the soldier cannot take a chariot; and a lone soldier is never walled in (every
    # square has at least two neighbours, only one other piece).  Nobody can force a result.
    assert value("8/8/1R6/p7 r") == ("draw", 0)


def test_pieces_that_can_never_capture_draw():
    # A cannon needs a screen (a third piece) and a soldier cannot take a cannon; a lone
    # piece always has an empty neighbour: every CvP and CvC position is a draw.
    assert set(naive.solve("CvP").values()) == {("draw", 0)}
    assert set(naive.solve("CvC").values()) == {("draw", 0)}


def test_cannon_wins_using_own_piece_as_screen():
    # C K . . p : the general screens, the cannon takes the soldier (the general cannot)
    assert value("8/8/8/CK2p3 r") == ("win", 1)


def _bellman(material: str) -> None:
    """Check every value of ``solve(material)`` against its children, through the public API.

    win d  <=> some child is lost, d = 1 + min over lost children
    loss d <=> no legal move (d = 0), or every child is won and d = 1 + max over them
    draw   otherwise
    A table satisfying this everywhere is the unique correct one: distances strictly
    decrease along the justifying children, so every win/loss is grounded, and by
    induction on the true distance no true win/loss can be labelled otherwise.
    """
    table = naive.solve(material)
    for text, got in table.items():
        board, side = naive.parse(text)
        other = "b" if side == "r" else "r"
        children = []
        for move in naive.legal_moves(board, side):
            child = naive.apply_move(board, move)
            has_pieces = any((p.isupper() if other == "r" else p.islower()) for p in child.values())
            if not has_pieces:
                children.append(("loss", 0))
            else:
                children.append(naive.solve(naive.material_of(child))[naive.to_text(child, other)])
        lost = [d for o, d in children if o == "loss"]
        if not children:
            want = ("loss", 0)
        elif lost:
            want = ("win", 1 + min(lost))
        elif all(o == "win" for o, _ in children):
            want = ("loss", 1 + max(d for _, d in children))
        else:
            want = ("draw", 0)
        assert got == want, (text, got, want)


@pytest.mark.parametrize("material", ["KvK", "KvP", "RvP", "PvP", "GvR", "CCvR", "KCvP", "GvCP"])
def test_solution_satisfies_bellman_equations(material):
    _bellman(material)


def test_every_position_is_solved():
    for material in ["KvK", "PPvK", "CCvR"]:
        table = naive.solve(material)
        assert set(table) == set(naive.positions(material))
        assert all(o in ("win", "draw", "loss") and d >= 0 for o, d in table.values())
