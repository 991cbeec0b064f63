"""``tbdb lookup GAME POSITION``: a position's value, its best move and every legal move with
what it leads to, best first; ``-`` reads positions from stdin and writes JSON lines."""
from __future__ import annotations

import json
import sys

from tbdb.cli.parsing import DB_HELP, add_game_options, game_subparsers, given_options

NAME = "lookup"
WRITES = False
PER_GAME = True


def add_parser(sub, names: list[str]) -> None:
    from tbdb import games
    lk = sub.add_parser(NAME, help="the value of a position and of each of its moves",
                        description="Print a position's value, best move, and every legal move "
                                    "with what it leads to, best first. POSITION '-' reads "
                                    "positions from stdin, one per line, and writes JSON lines.")
    per_game = game_subparsers(lk)
    for name in names:
        g = games.get(name)
        gl = per_game.add_parser(name, help=g.title, description=f"Look up a position: "
                                                                 f"{g.title}; e.g. {g.sample!r}.")
        gl.add_argument("position", help=f"position text, e.g. {g.sample!r}, or '-' for stdin")
        add_game_options(gl, g.lookup_options)
        gl.add_argument("--db", help=DB_HELP + "; or a directory of probe files (tbdb export)")
        gl.add_argument("--json", action="store_true", help="print JSON")
        gl.add_argument("--line", action="store_true",
                        help="print the best line to the end of the game")


def _ply(n: int) -> str:
    return f"{n} ply" if n == 1 else f"{n} plies"


def _value_text(outcome: str, distance, extras: dict) -> str:
    if "score" in extras:
        return f"{extras['score']:+d}"
    if outcome == "draw" or distance is None:
        return outcome
    if distance == 0:
        return f"{outcome} (game over)"
    return f"{outcome} in {_ply(distance)}"


def run(args) -> int:
    import tbdb
    from tbdb import games
    from tbdb.options import resolve
    g = games.get(args.game)
    options = resolve(f"{g.name} lookup", g.lookup_options,
                      given_options(args, g.lookup_options), text=True)
    with tbdb.open(args.db) as tb:
        if args.position == "-":
            return _lookup_stream(tb, g, options)
        position = g.coerce(args.position)  # the game's lenient reading (e.g. 'startpos')
        views = [] if options else g.perspectives(position)
        if views:  # every perspective's value (a star's lone players), the first in full
            return _print_views(tb, g, position, views, args)
        r = tb.lookup(position, game=g.name, **options)
        if args.json:
            print(json.dumps(r.to_dict(line=args.line)))
            return 0
        _print_lookup(g, r, position)
        if args.line:
            _print_line(r)
    return 0


def _print_views(tb, g, position, perspectives: list[tuple[dict, str]], args) -> int:
    """A position with a value per perspective (``Game.perspectives``): JSON, the first
    perspective's answer with ``perspectives`` listing each one's value and best move; text,
    the board and then each perspective's value and moves."""
    views = [v for v, _ in perspectives]
    results = [tb.lookup(position, game=g.name, **v) for v in views]
    if args.json:
        out = results[0].to_dict(line=args.line)
        out["perspectives"] = [dict(v, outcome=r.outcome, distance=r.distance,
                                    best_move=r.best_move) for v, r in zip(views, results)]
        out["summary"] = g.perspective_summary(position, results)
        print(json.dumps(out))
        return 0
    diagram = g.diagram(position)
    if diagram:
        print(diagram)
    print(f"position:  {results[0].position}")
    for name, players in g.perspective_summary(position, results).items():
        print(f"{name.replace('_', ' ') + ':':12} {', '.join(map(str, players)) or 'none'}")
    for (_, title), r in zip(perspectives, results):
        print(f"\n{title}:")
        _print_lookup(g, r, position, board=False)
        if args.line:
            _print_line(r)
    return 0


def _print_line(r) -> None:
    print("line:")
    for i, step in enumerate(r.line(), 1):
        print(f"  {i:3}. {step.move:10} {step.position}   "
              f"{_value_text(step.outcome, step.distance, step.extras)}")


def _print_lookup(g, r, position, board: bool = True) -> None:
    diagram = g.diagram(position) if board else None
    if diagram:
        print(diagram)
    if board:
        print(f"position:  {r.position}")
    rest = dict(r.extras)
    score = rest.pop("score", None)  # a net-score game's value, on a line of its own
    if score is not None:
        extra = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in rest.items())
        print(f"score:     {score:+d}" + (f" ({extra})" if extra else ""))
    print(f"outcome:   {_value_text(r.outcome, r.distance, {})}")
    print(f"best move: {r.best_move or '(none: the game is over)'}")
    groups = {"win": [], "draw": [], "loss": []}
    for m in r.moves:
        groups[m.outcome].append(m)
    for outcome, title in (("win", "winning"), ("draw", "drawing"), ("loss", "losing")):
        if groups[outcome]:
            print(f"{title} moves:")
            for m in groups[outcome]:
                print(f"  {m.move:10} {_value_text(m.outcome, m.distance, m.extras)}")


def _lookup_stream(tb, g, options) -> int:
    """Positions from stdin, one per line; a JSON line each (errors as {"error": ...}), flushed
    (a co-process writes a line and waits for its answer).  Lines are bytes decoded here, so a
    line that is not UTF-8 (or too long) is one error line, whatever the locale, and the stream
    goes on (sys.stdin as text would raise at the first bad byte)."""
    from tbdb.errors import TbdbError, one_line
    from tbdb.protocols.session import BadLine, read_lines
    for line in read_lines(sys.stdin):
        text = line.strip()
        if isinstance(line, BadLine):  # not looked up: the text is not what was sent
            out = {"position": line.shown, "error": line.problem}
        elif not text:
            continue
        else:
            try:
                out = tb.lookup(text, game=g.name, **options).to_dict(moves=False)
            except (TbdbError, ValueError) as exc:
                out = {"position": text, "error": one_line(exc)}
            except Exception as exc:  # noqa: BLE001 - one line's failure, not the stream's
                out = {"position": text, "error": f"{type(exc).__name__}: {one_line(exc)}"}
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()
    return 0
