"""lichess's tablebase server, answered from tbdb's chess tables: ``GET /standard?fen=...`` and
``GET /standard/mainline?fen=...`` with the JSON lila-tablebase returns, so a client written for
lichess (berserk's ``client.tablebase.standard(fen)`` with ``tablebase_url`` pointed here) works
unchanged.

What differs, because the values differ: tbdb stores distance to mate without the 50-move rule,
so ``category`` is ``win``, ``draw`` or ``loss`` (never cursed or blessed: the halfmove clock is
read and ignored), ``dtm`` is exact, and ``dtz``, ``precise_dtz``, ``dtc`` and ``dtw`` are null.
The mainline is the distance-to-mate line to the mate (lichess's follows DTZ to a zeroing move
and claims the 50-move draw); each step also carries its ``dtm``.  As lichess: underscores may
stand for spaces, impossible castling rights and en passant squares are dropped, a position
with castling rights or outside the built tables is 404, a malformed one 400.
"""
from __future__ import annotations

from tbdb import games
from tbdb.errors import MissingTableError, TbdbError, quote
from tbdb.games.chess.game import signed_dtm
from tbdb.games.chess.position import Move, san

#: lila-tablebase's other variants: their rules differ, so no chess table answers them
OTHER_VARIANTS = ("atomic", "antichess")
#: a castling right's king and rook squares (a1 = 0): the right is dropped unless both stand
_CASTLING = {"K": (4, 7, "K", "R"), "Q": (4, 0, "K", "R"), "k": (60, 63, "k", "r"),
             "q": (60, 56, "k", "r")}
_DEPTHS_NOT_STORED = {"dtz": None, "precise_dtz": None, "dtw": None, "dtc": None}
_POSITION_FIELDS = ("checkmate", "stalemate", "variant_win", "variant_loss",
                    "insufficient_material", "dtz", "precise_dtz", "dtm", "dtw", "dtc",
                    "category")


class BadFenError(TbdbError, ValueError):
    """A request without a FEN: 400."""


class NotInTablesError(MissingTableError):
    """A position no table holds (castling rights, a variant): 404, as lichess answers."""


def read_fen(raw: str | None) -> str:
    """The request's FEN as tbdb reads it: underscores as spaces, castling rights whose king or
    rook is not at home dropped, an en passant square no pawn just passed dropped (lichess
    ignores both); a right that could still be used is 404 (no table has castling)."""
    if raw is None or not raw.strip():
        raise BadFenError("give the position: /standard?fen=... (a FEN; underscores may stand "
                          "for spaces), e.g. /standard?fen=4k3/8/4K3/4P3/8/8/8/8_w_-_-_0_1")
    fen = raw.replace("_", " ").strip()
    fields = fen.split()
    if len(fields) < 2:
        return fen  # too short to hold rights: tbdb's parser says what is wrong, quoting it
    board = _board(fields[0])
    if board is None:
        return fen
    if len(fields) >= 3 and fields[2] != "-" and set(fields[2]) <= set(_CASTLING):
        usable = [r for r in fields[2] if board[_CASTLING[r][0]] == _CASTLING[r][2]
                  and board[_CASTLING[r][1]] == _CASTLING[r][3]]
        if usable:
            raise NotInTablesError(f"chess position {quote(raw)} has castling rights "
                                   f"{quote(''.join(usable))}; tables have none")
        fields[2] = "-"
    if len(fields) >= 4 and fields[3] != "-" and not _passed(board, fields[1], fields[3]):
        fields[3] = "-"
    return " ".join(fields)


def _board(placement: str) -> list[str] | None:
    """The 64 squares (a1 first; '.' empty) of a FEN placement, or None if it is malformed."""
    ranks = placement.split("/")
    if len(ranks) != 8:
        return None
    board: list[str] = []
    for rank in reversed(ranks):
        cells = "".join("." * int(ch) if ch in "12345678" else ch for ch in rank)
        if len(cells) != 8:
            return None
        board += cells
    return board


def _passed(board: list[str], turn: str, square: str) -> bool:
    """Whether a pawn of the side not to move just passed ``square`` with a double step (True
    for a malformed square: tbdb's parser says what is wrong with it)."""
    if len(square) != 2 or square[0] not in "abcdefgh" or square[1] not in "12345678":
        return True
    sq = "abcdefgh".index(square[0]) + 8 * (int(square[1]) - 1)
    if (turn, square[1]) == ("w", "6"):
        return board[sq - 8] == "p" and board[sq] == "." and board[sq + 8] == "."
    if (turn, square[1]) == ("b", "3"):
        return board[sq + 8] == "P" and board[sq] == "." and board[sq - 8] == "."
    return False


def _position_info(fields: dict) -> dict:
    info = {"variant_win": False, "variant_loss": False, **_DEPTHS_NOT_STORED}
    info.update((k, fields[k]) for k in _POSITION_FIELDS if k in fields)
    return {k: info[k] for k in _POSITION_FIELDS}


def standard(tb, raw: str | None) -> dict:
    """lila-tablebase's ``/standard`` answer for the FEN ``raw`` (``tb``: an open tablebase)."""
    chess = games.get("chess")
    position = chess.coerce(read_fen(raw))
    r = tb.lookup(position, game="chess")
    moves = []
    for m in r.moves:
        fields = m.to_dict()
        moves.append({"uci": fields["uci"], "san": fields["san"], "zeroing": fields["zeroing"],
                      "conversion": fields["conversion"], **_position_info(fields)})
    return {**_position_info(r.to_dict(moves=False)), "moves": moves}


def mainline(tb, raw: str | None) -> dict:
    """lila-tablebase's ``/standard/mainline`` answer: the best line to the mate (empty for a
    draw) and the winner ('w', 'b' or None)."""
    chess = games.get("chess")
    position = chess.coerce(read_fen(raw))
    r = tb.lookup(position, game="chess")
    steps, winner = [], None
    if r.outcome != "draw":
        winner = "wb"[position.turn if r.outcome == "win" else 1 - position.turn]
        board = position
        for step in r.line():
            steps.append({"uci": step.move, "san": san(board, Move.from_uci(step.move)),
                          "dtz": None, "precise_dtz": None,
                          "dtm": signed_dtm(step.outcome, step.distance)})
            board = board.push(step.move)
    return {"mainline": steps, "winner": winner, "dtz": None, "precise_dtz": None,
            "dtm": r.extras["dtm"]}


def not_served(variant: str) -> NotInTablesError:
    return NotInTablesError(f"variant {quote(variant)} is not served: tbdb's chess tables hold "
                            f"standard chess (GET /standard?fen=...)")
