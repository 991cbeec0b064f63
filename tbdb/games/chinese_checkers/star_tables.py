"""The small stars' coalition tables (issue 63): their names, their build and what a lookup
needs of them.

One table per star, player count, marbles a player and *stored* lone player:
``star{holes}-{players}-{marbles}-lone{L}``.  Its slots are the star's index
(``StarSpace``: placement * players + mover - 1) and its values are the mover's side's
(``solvers/chinese_checkers/star_values.py``).  Turning the board by one seat maps lone player
p's game onto lone p + 1's, so with 2, 3 and 6 players lone player 1's table answers every
lone player, and with 4 players (the turn by two seats) lone players 1 and 2 answer all.
"""
from __future__ import annotations

import re

import numpy as np

from tbdb.errors import InvalidOptionError, InvalidPositionError, MissingTableError, quote
from tbdb.games.base import GameOver, Location, StatRow, Successor, TableData
from tbdb.games.chinese_checkers.small_star import PASS, SmallStarPosition
from tbdb.games.chinese_checkers.star_build import solve_compact
from tbdb.games.chinese_checkers.stars import SEATS, star_space
from tbdb.retrograde.spaces import IndexValues
from tbdb.solvers.chinese_checkers import star_values
from tbdb.solvers.retrograde import DRAW, ILLEGAL, LOSS, WIN

#: the boards a table is built for (the one-byte solve's bitboards hold up to 64 cells)
BUILT_HOLES = (13, 37)
BOARDS = {f"star{h}": h for h in (13, 37, 73)}
_NAME = re.compile(r"star(13|37|73)-([2346])-([1-9][0-9]?)-lone([1-6])")


def stored_lone(players: int) -> tuple[int, ...]:
    """The lone players whose tables are stored (turns of the board give the others)."""
    return (1, 2) if players == 4 else (1,)


def shift_of(players: int, lone: int) -> tuple[int, int]:
    """(stored lone player, seats to turn back by) of lone player ``lone``: its value is the
    stored lone player's on the board turned back by that many seats."""
    base = stored_lone(players)
    stored = base[(lone - 1) % len(base)]
    return stored, lone - stored


def table_name(holes: int, players: int, marbles: int, lone: int) -> str:
    return f"star{holes}-{players}-{marbles}-lone{lone}"


def parse_table_name(table: str) -> tuple[int, int, int, int]:
    got = _NAME.fullmatch(table) if isinstance(table, str) else None
    if got is None:
        raise InvalidOptionError(f"{quote(table)} names no Chinese Checkers star table "
                                 f"(starH-N-M-loneL: H 13, 37 or 73 holes, N players, M marbles "
                                 f"each, L the lone player)")
    holes, players, marbles, lone = map(int, got.groups())
    check_build(holes, players, marbles)
    if lone not in stored_lone(players):
        raise InvalidOptionError(f"{quote(table)}: the tables of {players} players are those "
                                 f"of lone players {stored_lone(players)}")
    return holes, players, marbles, lone


def is_star_table(table) -> bool:
    return isinstance(table, str) and table.startswith("star") and "-lone" in table


def check_build(holes: int, players: int, marbles: int) -> None:
    """``InvalidOptionError`` unless this tbdb builds the tables of that star."""
    if players not in SEATS:
        raise InvalidOptionError(f"a star is played by {sorted(SEATS)} players, not "
                                 f"{quote(players)}")
    if holes not in BUILT_HOLES:
        raise InvalidOptionError(f"star tables are built for the {BUILT_HOLES[0]}- and "
                                 f"{BUILT_HOLES[1]}-hole stars (star13, star37), not "
                                 f"{quote(f'star{holes}')}")
    star_space(holes, players, marbles)  # (the marbles' range)


def plan(holes: int, players: int, marbles: int) -> list[str]:
    check_build(holes, players, marbles)
    return [table_name(holes, players, marbles, lone) for lone in stored_lone(players)]


def build_command(table: str) -> str:
    holes, players, marbles, _ = parse_table_name(table)
    return (f"tbdb build chinese-checkers --board star{holes} --players {players} "
            f"--pieces {marbles}")


def weight(table: str) -> int:
    holes, players, marbles, _ = parse_table_name(table)
    return star_space(holes, players, marbles).placements * players


def solve(table: str, progress=None) -> IndexValues:
    """The table's values by the one-byte coalition solve on every core."""
    holes, players, marbles, lone = parse_table_name(table)
    space = star_space(holes, players, marbles)
    slots = space.placements * players
    say = progress or (lambda *a: None)

    def log(level: int, done: int, made: int) -> None:
        say("levels", level + 1, level + 2 if done else level + 1)

    state = solve_compact(space, lone, log=log)
    result = np.empty(slots, np.int8)
    distance = np.empty(slots, np.int16)
    best = np.empty(slots, np.int16)
    star_values.mover_values(lone, players, space.compact_tables, space.unrank_tables, state,
                             result, distance, best)
    del state
    return IndexValues(result, distance, best, np.ones(slots, np.int8), mode="star-compact")


def describe(table: str, values: IndexValues) -> TableData:
    holes, players, marbles, lone = parse_table_name(table)
    stats = []
    n = players
    illegal_total = 0
    for mover in range(1, n + 1):
        r = values.result[mover - 1::n]
        d = values.distance[mover - 1::n]
        counts = {k: int(np.count_nonzero(r == k)) for k in (WIN, DRAW, LOSS, ILLEGAL)}
        illegal_total += counts[ILLEGAL]
        side = "lone" if mover == lone else "coalition"
        longest = {k: (int(d[r == k].max()) if counts[k] else None) for k in (WIN, LOSS)}
        stats.append(StatRow(f"{table} player {mover} ({side})", n * marbles, str(mover),
                             len(r), counts[WIN], counts[DRAW], counts[LOSS], counts[ILLEGAL],
                             longest[WIN], longest[LOSS]))
    size = len(values.result)
    lones = n // len(stored_lone(n))  # the lone players each slot answers
    return TableData(
        storage="index", values=values,
        params={"holes": holes, "players": players, "marbles": marbles, "lone": lone,
                "answers_lone": [p for p in range(1, n + 1) if shift_of(n, p)[0] == lone]},
        stats=stats, slots=size, raw_positions=size, positions_answered=size * lones,
        illegal=illegal_total, mode=values.mode)


def slot_text(table: str, slot: int) -> str:
    holes, players, marbles, _ = parse_table_name(table)
    return SmallStarPosition.of_slot(holes, players, marbles, int(slot)).text


def locate(position: SmallStarPosition, lone: int | None) -> Location | GameOver:
    """Where lone player ``lone``'s value (1 when None) of ``position`` is stored: the slot of
    the board turned back onto a stored lone player; ``sym`` is the turn in seats.  A finished
    game needs no table: WIN for the mover if the winner, who moved last, is on its side."""
    n = position.players
    lone = 1 if lone is None else lone
    if not 1 <= lone <= n:
        raise InvalidPositionError(f"position {position.text!r} has players 1..{n}: no lone "
                                   f"player {quote(lone)}")
    if position.status == "illegal":
        raise InvalidPositionError(f"Chinese Checkers position {position.text!r} cannot arise: "
                                   f"a player other than the last to move has every marble on "
                                   f"its goal (the game would have ended before)")
    if position.status == "over":
        return GameOver(WIN if (position.last == lone) == (position.mover == lone) else LOSS)
    try:
        check_build(position.holes, n, position.marbles)
    except InvalidOptionError as err:
        raise MissingTableError(f"position {position.text!r}: no table holds it: {err}") \
            from None
    stored, shift = shift_of(n, lone)
    turned = position.turned(-shift) if shift else position
    return Location(table_name(position.holes, n, position.marbles, stored), turned.slot(),
                    shift)


def move_text(position: SmallStarPosition, code: int, sym: int) -> str:
    """A stored best move (on the board turned back by ``sym`` seats) as ``position``'s move."""
    code = int(code)
    if code == star_values.PASS_CODE:
        if position._pairs != [(-1, -1)]:
            raise ValueError("a stored pass where the player has a move")
        return PASS
    s, t = divmod(code, 64)
    if not (0 <= code < 64 * 64 and s < len(position.cells) and t < len(position.cells)):
        raise ValueError(f"{code!r} is no move code of the {position.holes}-hole star")
    if sym:  # the stored cells are on the board turned back: turn them forward
        from tbdb.games.chinese_checkers.small_star import turn_cells
        where = turn_cells(position.holes, position.players, sym % position.players)
        s, t = int(where[s]), int(where[t])
    if (s, t) not in position._pairs:
        raise ValueError(f"{s}-{t} is not a move of {position.text!r}")
    return str(position.move_of(s, t))


def successors(position: SmallStarPosition, lone: int | None) -> list[Successor]:
    """Every move with the position after it; ``same_side``: its mover is on the side of this
    position's mover (both the lone player's, or both the coalition's)."""
    lone = 1 if lone is None else lone
    options = {"lone": lone}
    side = position.mover == lone
    out = []
    for s, t in position._pairs:
        after = position.after_pair(s, t)
        out.append(Successor(str(position.move_of(s, t)), after, options=options,
                             same_side=(after.mover == lone) == side))
    return out



def verify(table: str, values) -> tuple[list[str], int]:
    """(examples, count) of slots whose value the rules and the children's stored values
    contradict (``star_solve.check_coalition`` on the lone player's values) or whose best move
    does not realise it."""
    holes, players, marbles, lone = parse_table_name(table)
    space = star_space(holes, players, marbles)
    result = np.asarray(values.result)
    mover = np.arange(len(result)) % players + 1
    lone_result = np.where(result == ILLEGAL, np.int8(-128),
                           np.where(mover == lone, result, -result)).astype(np.int8)
    bad = space.check(lone, lone_result, np.asarray(values.distance, np.int16))
    if bad < 0:
        return [], 0
    return [f"{slot_text(table, bad)} (stored {int(result[bad])} at "
            f"{int(values.distance[bad])} plies, mover's side)"], 1


def diagram(position: SmallStarPosition) -> str:
    """The star's rows centred, each cell's symbol, with the cell numbers beside."""
    from tbdb.solvers.chinese_checkers.geometry import STAR_SIZES, star
    geo = star(STAR_SIZES[position.holes])
    xs = [x for x, _, _ in geo.coords]
    lines = []
    for row in geo.rows:
        # a cell's column: 2x + y (x + y / 2 in half steps), so the rows interleave
        cols = {2 * geo.coords[c][0] + geo.coords[c][1]: c for c in row}
        lo = min(2 * x + geo.coords[i][1] for i, x in enumerate(xs))
        width = max(2 * x + geo.coords[i][1] for i, x in enumerate(xs)) - lo + 1
        marks = [" "] * width
        for col, c in cols.items():
            marks[col - lo] = ".123456"[position.cells[c]]
        lines.append("".join(marks) + "   " + " ".join(f"{c}" for c in row))
    return "\n".join(lines)


def perspectives(position: SmallStarPosition) -> list[tuple[dict, str]]:
    """Each lone player's lookup options and the line that says whose value it is."""
    n, mover = position.players, position.mover
    out = []
    for lone in range(1, n + 1):
        others = [str(p) for p in range(1, n + 1) if p != lone]
        against = ", ".join(others[:-1]) + " and " + others[-1] if len(others) > 1 else \
            others[0]
        role = "the lone player" if mover == lone else "in the coalition"
        out.append(({"lone": lone}, f"lone player {lone} against {against} (player {mover} "
                                    f"to move, {role})"))
    return out
