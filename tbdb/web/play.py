"""A game played in the explorer: a start position and the moves played from it, each judged by
the tablebase.

``record`` answers one request with everything the page shows while playing against the
tablebase: the value of every position along the game, the move the tablebase would have
played in each, whether each move threw a value away (a win given up for a draw or a loss, a
draw for a loss; for score games, seeds given away), and the full lookup of the position
reached (its moves, best first, for the next move).  The page keeps the game in its URL
(``position`` and ``moves``), so a game is shared by its link and survives a reload.
"""
from __future__ import annotations

from tbdb.errors import InvalidMoveError, InvalidOptionError, quote

MAX_MOVES = 600  # a longer game in a URL is refused (Oware's 200-ply limit is the longest)
RANK = {"loss": 0, "draw": 1, "win": 2}


def parse_moves(text: str | None) -> list[str]:
    """The ``moves`` parameter: moves separated by commas (no game's moves hold one)."""
    if text is None or not text.strip():
        return []
    moves = [m.strip() for m in text.split(",")]
    if len(moves) > MAX_MOVES:
        raise InvalidOptionError(f"moves: {len(moves)} moves, at most {MAX_MOVES} are taken "
                                 f"({quote(text)})")
    if not all(moves):
        raise InvalidOptionError(f"moves: an empty move in {quote(text)} (moves are separated "
                                 f"by single commas)")
    return moves


def mistake(before: dict, move: dict) -> str | None:
    """What playing ``move`` (its value for the mover, from ``before['moves']``) gave away from
    ``before``'s value, or None (also for a slower win or a quicker loss: the value holds)."""
    if before.get("score") is not None:
        lost = before["score"] - move["score"]
        return f"gives away {lost} seed{'s' if lost != 1 else ''}" if lost > 0 else None
    if RANK[move["outcome"]] >= RANK[before["outcome"]]:
        return None
    return ("throws the win away" if before["outcome"] == "win" else "throws the draw away") + \
        f" (now a {move['outcome']})"


def record(tb, game, start: str, moves: list[str], options: dict) -> dict:
    """The game from ``start`` through ``moves`` (``tb``: an open tablebase; ``options``: the
    lookup options of the start, such as Oware's plies left)."""
    r = tb.lookup(game.coerce(start), game=game.name, **options)
    here = r.to_dict()
    first = dict(here)
    steps = []
    for i, move in enumerate(moves):
        entry = _find(game, here, move, i)
        if game.plies_option:  # the position after a move has one ply less left
            left = here.get(game.plies_option)
            if left is None or left <= 1:
                raise InvalidMoveError(f"move {i + 1} {quote(move)}: no plies are left")
            options = {**options, game.plies_option: left - 1}
        after = tb.lookup(entry["position"], game=game.name, **options).to_dict()
        step = {"move": entry["move"], "mover": {k: entry.get(k) for k in
                                                  ("outcome", "distance", "score")},
                "best_move": here["best_move"], "mistake": mistake(here, entry)}
        step.update({k: after.get(k) for k in ("position", "outcome", "distance", "score")})
        steps.append(step)
        here = after
    return {"game": game.name, "start": {k: v for k, v in first.items() if k != "moves"},
            "steps": steps, "current": here}


def _find(game, here: dict, move: str, i: int) -> dict:
    """The entry of ``here['moves']`` for ``move``: by its text, else (another spelling of the
    same move, such as a longer Chinese Checkers hop chain) by the position the rules reach."""
    for m in here["moves"]:
        if m["move"] == move:
            return m
    try:
        after = game.text(game.play(game.parse(here["position"]), move))
    except (ValueError, KeyError) as exc:
        raise InvalidMoveError(f"move {i + 1}: {str(exc).splitlines()[0]}") from None
    for m in here["moves"]:
        if m["position"] == after:
            return m
    raise InvalidMoveError(f"move {i + 1} {quote(move)} is not legal in {quote(here['position'])}")
