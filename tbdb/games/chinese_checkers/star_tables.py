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

from tbdb.errors import InvalidArrayError, InvalidOptionError, InvalidPositionError, \
    MissingTableError, quote
from tbdb.games.base import BatchLocation, Location, StatRow, Successor, TableData, \
    first_row_outside, require_integers
from tbdb.games.chinese_checkers.small_star import PASS, SMALL_HOLES, SmallStarPosition, \
    star_rules, turn_cells
from tbdb.games.chinese_checkers.star_build import StarValues, solve_compact
from tbdb.games.chinese_checkers.stars import SEATS, star_space
from tbdb.solvers.chinese_checkers import star_values
from tbdb.solvers.chinese_checkers.geometry import STAR_SIZES, star
from tbdb.solvers.retrograde import DRAW, ILLEGAL, LOSS, WIN

#: the boards a table is built for (the one-byte solve's bitboards hold up to 64 cells)
BUILT_HOLES = (13, 37)
BOARDS = {f"star{h}": h for h in SMALL_HOLES}
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


def dependencies(table: str) -> list[str]:
    """Four players: lone player 2's table reads lone player 1's (the kingmaker counts need
    both)."""
    holes, players, marbles, lone = parse_table_name(table)
    return [table_name(holes, players, marbles, 1)] if lone == 2 else []


def build(table: str, deps: dict, progress=None) -> TableData:
    """The table solved by the one-byte coalition solve on every core, described; the last
    stored lone player's table also counts the kingmakers (``kingmaker``)."""
    holes, players, marbles, lone = parse_table_name(table)
    space = star_space(holes, players, marbles)
    say = progress or (lambda *a: None)

    def log(level: int, done: int, made: int) -> None:
        say("levels", level + 1, level + 2 if done else level + 1)

    state = solve_compact(space, lone, log=log)
    values = StarValues(space, lone, state)
    kings = None
    if lone == stored_lone(players)[-1]:
        first = state if lone == 1 else \
            state_codes(deps[table_name(holes, players, marbles, 1)].result, players, 1)
        kings = kingmaker(holes, players, marbles, first, state)
    return describe(table, values, kings)


def state_codes(result: np.ndarray, players: int, lone: int) -> np.ndarray:
    """A stored table's mover's side results as ``star_compact`` state codes of who won (what
    ``kingmaker_counts`` reads of a table solved in an earlier build)."""
    from tbdb.solvers.chinese_checkers import star_compact
    mover = np.arange(len(result)) % players + 1
    lone_wins = (result == WIN) == (mover == lone)
    out = np.where(lone_wins, star_compact.DECIDED, star_compact.DECIDED + 1).astype(np.uint8)
    out[result == DRAW] = 1
    out[result == ILLEGAL] = star_compact.ILLEGAL_CODE
    return out


def kingmaker(holes: int, players: int, marbles: int, first: np.ndarray,
              second: np.ndarray) -> dict:
    """How many positions have k single players who force their own win as the lone player,
    and j players whom the others force to lose: ``joint[k][j]`` (lone player 1's state bytes
    ``first``, lone player 2's ``second`` with four players)."""
    space = star_space(holes, players, marbles)
    turns = np.stack([turn_cells(holes, players, (-s) % players) for s in range(players)])
    stored = np.array([shift_of(players, p)[0] for p in range(1, players + 1)], np.int64)
    joint = np.zeros((players + 1, players + 1), np.int64)
    star_values.kingmaker_counts(players, stored, turns.astype(np.int16),
                                 space.compact_tables, space.unrank_tables, first, second, joint)
    return {"joint": joint.tolist(),
            "own_wins": joint.sum(axis=1).tolist(), "forced_losses": joint.sum(axis=0).tolist(),
            "all_draw": int(joint[0, 0])}


def describe(table: str, values, kings: dict | None = None) -> TableData:
    """What the store writes of a star table: per player to move, its positions by the
    mover's side's result, counted a chunk at a time (``StarValues`` makes them then, without
    searching for best moves)."""
    holes, players, marbles, lone = parse_table_name(table)
    n = players
    counts = np.zeros((n, 4), np.int64)  # per mover: WIN, DRAW, LOSS, ILLEGAL
    longest = np.full((n, 2), -1, np.int64)  # per mover: the longest WIN, LOSS
    for lo, result, distance, _, _ in values.chunks(1 << 20, best=False):
        movers = (lo + np.arange(len(result))) % n
        for k, code in enumerate((WIN, DRAW, LOSS, ILLEGAL)):
            at = result == code
            counts[:, k] += np.bincount(movers[at], minlength=n)
            if k in (0, 2) and at.any():
                j = k // 2
                top = np.full(n, -1, np.int64)
                np.maximum.at(top, movers[at], distance[at].astype(np.int64))
                longest[:, j] = np.maximum(longest[:, j], top)
    stats = []
    for m in range(n):
        side = "lone" if m + 1 == lone else "coalition"
        win, draw, loss, illegal = (int(x) for x in counts[m])
        stats.append(StatRow(f"{table} player {m + 1} ({side})", n * marbles, str(m + 1),
                             win + draw + loss + illegal, win, draw, loss, illegal,
                             None if longest[m, 0] < 0 else int(longest[m, 0]),
                             None if longest[m, 1] < 0 else int(longest[m, 1])))
    size = values.size
    lones = n // len(stored_lone(n))  # the lone players each slot answers
    return TableData(
        storage="index", values=values,
        params={"holes": holes, "players": players, "marbles": marbles, "lone": lone,
                "answers_lone": [p for p in range(1, n + 1) if shift_of(n, p)[0] == lone],
                **({"kingmaker": kings} if kings else {})},
        stats=stats, slots=size, raw_positions=size, positions_answered=size * lones,
        illegal=int(counts[:, 3].sum()), mode=values.mode)


def slot_text(table: str, slot: int) -> str:
    holes, players, marbles, _ = parse_table_name(table)
    return SmallStarPosition.of_slot(holes, players, marbles, int(slot)).text


def locate(position: SmallStarPosition, lone: int | None) -> Location:
    """Where lone player ``lone``'s value (1 when None) of ``position`` is stored: the slot of
    the board turned back onto a stored lone player; ``sym`` is the turn in seats.  A finished
    game is stored too (as the rhombus's are, and as libtbprobe reads it): WIN at distance 0
    for the mover if the winner, who moved last, is on its side."""
    n = position.players
    lone = 1 if lone is None else lone
    if not 1 <= lone <= n:
        raise InvalidPositionError(f"position {position.text!r} has players 1..{n}: no lone "
                                   f"player {quote(lone)}")
    if position.status == "illegal":
        raise InvalidPositionError(f"Chinese Checkers position {position.text!r} cannot arise: "
                                   f"a player other than the last to move has every marble on "
                                   f"its goal (the game would have ended before)")
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
        if position.pairs != [(-1, -1)]:
            raise ValueError("a stored pass where the player has a move")
        return PASS
    s, t = divmod(code, 64)
    if not (0 <= code < 64 * 64 and s < len(position.cells) and t < len(position.cells)):
        raise ValueError(f"{code!r} is no move code of the {position.holes}-hole star")
    if sym:  # the stored cells are on the board turned back: turn them forward
        where = turn_cells(position.holes, position.players, sym % position.players)
        s, t = int(where[s]), int(where[t])
    if (s, t) not in position.pairs:
        raise ValueError(f"{s}-{t} is not a move of {position.text!r}")
    return str(position.move_of(s, t))


def successors(position: SmallStarPosition, lone: int | None) -> list[Successor]:
    """Every move with the position after it; ``same_side``: its mover is on the side of this
    position's mover (both the lone player's, or both the coalition's)."""
    lone = 1 if lone is None else lone
    options = {"lone": lone}
    side = position.mover == lone
    out = []
    for s, t in position.pairs:
        after = position.after_pair(s, t)
        out.append(Successor(str(position.move_of(s, t)), after, options=options,
                             same_side=(after.mover == lone) == side))
    return out



def verify(table: str, values) -> tuple[list[str], int]:
    """(examples, count) of slots whose value the rules and the children's stored values
    contradict (``star_solve.check_coalition`` on the lone player's values; the best moves are
    not checked here)."""
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
    geo = star(STAR_SIZES[position.holes])
    # a cell's column: 2x + y (x + y / 2 in half steps), so the rows interleave
    column = [2 * x + y for x, y, _ in geo.coords]
    lo, width = min(column), max(column) - min(column) + 1
    lines = []
    for row in geo.rows:
        marks = [" "] * width
        for c in row:
            marks[column[c] - lo] = ".123456"[position.cells[c]]
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


# ------------------------------------------------------------------ the batch form

#: ``BatchLocation.sym`` of a star row: STAR_SYM + ((k - 1) * 4 + the players' place in
#: PLAYER_COUNTS) * 6 + the turn in seats (the rhombus rows' codes stay below 64)
STAR_SYM = 64
PLAYER_COUNTS = (2, 3, 4, 6)


def check_batch(boards, movers) -> tuple[np.ndarray, np.ndarray] | None:
    """A small star's batch arrays as int8 (boards of 13, 37 or 73 holes), else None."""
    boards = np.asarray(boards)
    if boards.ndim != 2 or boards.shape[1] not in (13, 37, 73):
        return None
    movers = np.asarray(movers)
    if movers.shape != (len(boards),):
        raise InvalidArrayError(f"expected movers of shape ({len(boards)},), got "
                                f"{movers.shape}")
    require_integers(boards=boards, movers=movers)
    bad = first_row_outside(boards, 0, 6)
    if bad is not None:
        raise InvalidArrayError(f"row {bad}: star cells are 0 (empty) or the player 1..6, got "
                                f"{quote(boards[bad].tolist())}")
    bad = first_row_outside(movers, 1, 6)
    if bad is not None:
        raise InvalidArrayError(f"row {bad}: the player to move is 1..6, got "
                                f"{movers[bad].item()!r}")
    return (np.ascontiguousarray(boards.astype(np.int8, copy=False)),
            np.ascontiguousarray(movers.astype(np.int8, copy=False)))


def batch_locate(boards: np.ndarray, movers: np.ndarray, lone: int | None) -> BatchLocation:
    """boards int[n, H] (H = 13, 37 or 73 holes row by row from the top tip: 0 empty, else the
    player 1..N; every row's players, N = its largest cell, have equal marbles) and movers
    int[n]; ``lone``: the lone player of every row (default 1)."""
    holes = boards.shape[1]
    n_rows = len(boards)
    lone = 1 if lone is None else int(lone)
    players = boards.max(axis=1).astype(np.int64) if n_rows else np.zeros(0, np.int64)
    which = np.full(n_rows, -1, np.int32)
    keys = np.zeros(n_rows, np.int64)
    sym = np.zeros(n_rows, np.int8)
    over = np.zeros(n_rows, np.int8)
    tables: list[str] = []
    for n in np.unique(players).tolist():
        rows = np.flatnonzero(players == n)
        if n not in SEATS:
            raise InvalidArrayError(f"row {int(rows[0])}: a star is played by {sorted(SEATS)} "
                                    f"players, not {n} (the largest cell)")
        if lone > n:
            raise InvalidArrayError(f"row {int(rows[0])}: no lone player {lone} among {n}")
        sub = boards[rows]
        mv = movers[rows].astype(np.int64)
        if ((mv < 1) | (mv > n)).any():
            bad = int(rows[np.argmax((mv < 1) | (mv > n))])
            raise InvalidArrayError(f"row {bad}: the player to move is 1..{n}, not "
                                    f"{int(movers[bad])}")
        counts = np.stack([(sub == p).sum(axis=1) for p in range(1, n + 1)], axis=1)
        k = STAR_SIZES[holes]
        uneven = (counts != counts[:, :1]).any(axis=1) | (counts[:, 0] > k * (k + 1) // 2)
        _, can_rest, in_goal = star_rules(holes, n)
        resting = can_rest[sub, np.arange(holes)].astype(bool) | (sub == 0)
        bad = uneven | ~resting.all(axis=1)
        if bad.any():
            r = int(rows[np.argmax(bad)])
            raise InvalidArrayError(f"row {r}: not a star position (equal marbles for each "
                                    f"player, each where it may rest): "
                                    f"{quote(boards[r].tolist())}")
        won = np.stack([((sub == p) & (in_goal[p] == 0)).sum(axis=1) == 0
                        for p in range(1, n + 1)], axis=1)
        last = (mv - 2) % n + 1
        won_last = won[np.arange(len(rows)), last - 1]
        if (won.sum(axis=1) > won_last).any():
            r = int(rows[np.argmax(won.sum(axis=1) > won_last)])
            raise InvalidArrayError(f"row {r}: the position cannot arise (a player other than "
                                    f"the last to move has every marble on its goal): "
                                    f"{quote(boards[r].tolist())}")
        stored, shift = shift_of(n, lone)  # (a finished game's value is stored too)
        for m in np.unique(counts[:, 0]).tolist():
            sel = counts[:, 0] == m
            group = rows[sel]
            try:
                check_build(holes, n, m)
            except InvalidOptionError as err:
                raise MissingTableError(f"row {int(group[0])}: no table holds it: {err}") \
                    from None
            board = boards[group].astype(np.int8)
            turned_mover = (mv[sel] - 1 - shift) % n + 1
            if shift:  # the board turned back by ``shift`` seats, players renamed p - shift
                where = turn_cells(holes, n, (-shift) % n).astype(np.int64)
                relabel = np.array([0] + [(p - 1 - shift) % n + 1 for p in range(1, n + 1)],
                                   np.int8)
                turned = np.zeros_like(board)
                turned[:, where] = relabel[board]
                board = turned
            space = star_space(holes, n, m)
            ranks = space.rank_rows(np.ascontiguousarray(board), np.arange(len(group)))
            which[group] = len(tables)
            tables.append(table_name(holes, n, m, stored))
            keys[group] = ranks * n + turned_mover - 1
            sym[group] = STAR_SYM + ((k - 1) * 4 + PLAYER_COUNTS.index(n)) * 6 + shift
    return BatchLocation(tables, which, keys, sym, over)


def batch_moves(codes: np.ndarray, sym: np.ndarray, out: np.ndarray) -> None:
    """Star rows' stored move codes (``sym`` >= STAR_SYM) as codes on each row's own
    position, in place in ``out``; the pass (PASS_CODE) and -1 stay."""
    star = (sym >= STAR_SYM) & (codes >= 0) & (codes != star_values.PASS_CODE)
    for code in np.unique(sym[star]).tolist():
        rest = code - STAR_SYM
        shift, group = rest % 6, rest // 6
        k, n = group // 4 + 1, PLAYER_COUNTS[group % 4]
        if not shift:
            continue
        rows = np.flatnonzero(star & (sym == code))
        where = turn_cells(SMALL_HOLES[k - 1], n, shift).astype(np.int64)
        s, t = codes[rows] // 64, codes[rows] % 64
        out[rows] = where[s] * 64 + where[t]



def kingmaker_summary(position: SmallStarPosition, results: list) -> dict:
    """Which single players force their own win as the lone player (``own_win``), and which
    the others force to lose (``forced_loss``); ``results``: the lookups for lone players
    1..n."""
    own, lost = [], []
    for lone, r in enumerate(results, 1):
        if r.outcome != "draw":
            (own if (r.outcome == "win") == (position.mover == lone) else lost).append(lone)
    return {"own_win": own, "forced_loss": lost}


def perft(position: SmallStarPosition, depth: int) -> int:
    """Leaf positions ``depth`` plies below (a pass is a ply; a finished game has none)."""
    if depth == 0:
        return 1
    if position.status != "playing":
        return 0
    space = star_space(position.holes, position.players, position.marbles)
    return space.perft(position.cells, position.mover, depth)
