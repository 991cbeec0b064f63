"""What a game is to the rest of tbdb: the ``Game`` base class and the small types it exchanges.

A game brings kernels (``solvers/<game>.py``) and a position type; to the build driver, the
store, the prober and the command line it is a ``Game`` subclass registered in
``tbdb.games``.  The core never names a game: everything game-specific goes through here.

Tables
    ``plan(**build options)``       table names to build, each after the tables it needs
    ``dependencies(table)``         tables whose values ``space``/``solve`` read
    ``space(table, deps)``          an ``IndexSpace`` or ``LevelSpace`` (docs/kernel-contract.md)
                                    over which the generic retrograde solves the table
    ``describe(table, values)``     a ``TableData``: what is stored besides the values (params,
                                    statistics as a player counts positions, texts)
    ``solve(...)``                  only for games the generic retrograde does not solve (Oware)
Positions
    ``parse(text)``, ``recognises(text)``, ``text(position)``, ``play(position, move)``
    ``locate(position, **lookup options)``   a ``Location`` (table, key, symmetry) or ``GameOver``
    ``move_text(position, code, sym)``       a stored move code (on the canonical position that
                                             ``sym`` led to) as the move of ``position``
    ``successors(position, **options)``      every legal move in the game's move order
Batch (engines)
    ``batch_locate(*arrays)`` and ``batch_moves(codes, sym)``: the vectorised ``locate`` and
    ``move_text``; the core groups rows by table and gathers values.
Perft
    ``perft(position, depth, **perft options)`` and ``divide``.

Capabilities
    ``capabilities``: a frozenset of the constants below, what the game has beyond the common
    interface.  Code that needs one asks ``X in game.capabilities`` (the conformance suite,
    tests/test_games.py, selects its checks this way), never which storage kind or value kind
    the game holds.

    ``BATCH_FORM``        ``encode_batch``, ``batch_locate``, ``batch_moves`` (engines)
    ``OWN_PERFT``         ``perft`` by its own kernels, not the generic recursion over
                          ``successors``
    ``OWN_SOLVER``        ``solve`` solves every table itself: no ``space`` for the generic
                          retrograde, no retrograde ``modes``
    ``SHARED_KEY_TABLE``  key tables share one table across builds (``shared_table``,
                          ``search_tables``: ``locate`` may leave the table to the prober)
    ``SCORE_VALUES``      values are net scores by plies left, not win/draw/loss with a
                          distance (a move's value adds what the move itself gains)
    ``PLIES_LEFT``        a lookup option changes the answer (``plies_option``: the plies
                          left; a successor's ``options`` carry one ply less)
    ``DISTANCE_TABLES``   single-agent distance tables beside the two-player ones
                          (successors with ``same_side``)
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

import numpy as np

from tbdb.errors import InvalidArrayError, InvalidPositionError, quote
from tbdb.options import Option


@dataclass(frozen=True)
class Location:
    """Where a position's value is stored: a table, the key within it (a slot of an index
    table, ``(key0, key1, constraint)`` of a key table) and the symmetry that maps the position
    to the stored (canonical) one.  ``plies``: for score tables, the plies left."""
    table: str
    key: Any
    sym: int = 0
    plies: int | None = None


@dataclass(frozen=True)
class GameOver:
    """The position needs no table: the game is over (``result`` for the side to move, WIN/DRAW/
    LOSS at distance 0; ``score`` for score games)."""
    result: int
    score: int | None = None


@dataclass(frozen=True)
class Successor:
    """A legal move, the position after it, what the move itself gains (score games) and the
    lookup options of the position after it (score games: one ply less left).  ``same_side``:
    the same player moves again after it (single-agent tables), so the value after the move is
    the mover's own, not the opponent's."""
    move: str
    position: Any
    gain: int = 0
    options: dict = field(default_factory=dict)
    same_side: bool = False


@dataclass(frozen=True)
class StatRow:
    """One row of ``draw_analysis``: positions of a table under one label (a material as a
    player names it) and side to move, counted as a player counts them."""
    label: str
    pieces: int
    side_to_move: str
    positions: int
    wins: int
    draws: int
    losses: int
    illegal: int = 0
    longest_win: int | None = None
    longest_loss: int | None = None


@dataclass
class TableData:
    """A solved table as the store writes it.

    ``values``: ``IndexValues`` (storage 'index'), a list of ``LevelValues`` (storage 'key'),
    or the game's own run arrays (storage 'runs', see ``RunValues``).  ``texts``: a callable
    yielding (idx int64[n], text list/array) batches for ``tb_texts`` under ``layout`` (written
    once per layout)."""
    storage: str
    values: Any
    params: dict
    stats: list[StatRow]
    slots: int
    raw_positions: int
    positions_answered: int
    fixed_positions: int = 0
    illegal: int = 0
    mode: str = ""
    estimate_bytes: int | None = None  # the peak expected when the mode was chosen
    peak_bytes: int | None = None  # measured while solved and written (set by the build)
    layout: str | None = None
    texts: Callable[[], Iterator[tuple[np.ndarray, Any]]] | None = None
    constraints: np.ndarray | None = None  # key tables: per key row (aligned with values)


@dataclass
class RunValues:
    """Score-by-plies-left values as runs: for position i, runs ``offsets[i]..offsets[i+1]-1``
    with first plies ``start`` (the first is 1), ``score`` and ``move``; the last run of a
    position lasts up to ``horizon``."""
    offsets: np.ndarray  # int64[n + 1]
    start: np.ndarray  # int16[R]
    score: np.ndarray  # int8/int16[R]
    move: np.ndarray  # int8/int32[R]
    horizon: int


@dataclass(frozen=True)
class BatchLocation:
    """``batch_locate`` for n rows: ``tables`` named once; ``which`` int32[n] indexes it (-1:
    the game is over, value in ``over``, or a row of ``by_children``); ``keys`` int64[n]
    slots (or int64[n, 3] keys with constraint); ``sym`` int8[n]; ``plies`` int16[n] or
    None."""
    tables: list[str]
    which: np.ndarray
    keys: np.ndarray
    sym: np.ndarray
    over: np.ndarray
    plies: np.ndarray | None = None
    # (row, position) of rows no table stores, valued by their children (``by_children``);
    # ``which`` is -1 there and their best move a code on the row's own position (sym 0)
    by_children: tuple = ()
    # optional: the rows whose ``which`` is not -1, grouped by it in ascending order (a game
    # that grouped its rows to locate them; the prober would otherwise sort them again)
    grouped: np.ndarray | None = None


def require_integers(**arrays: np.ndarray) -> None:
    """``InvalidArrayError`` naming the first of a batch's ``arrays`` (by keyword) that is not
    an integer array: the batch forms' dtype check, before their range checks."""
    for name, a in arrays.items():
        if not np.issubdtype(a.dtype, np.integer):
            raise InvalidArrayError(f"{name} must be an integer array, not {a.dtype}")


def first_row_outside(values: np.ndarray, low: int, high: int) -> int | None:
    """The first row of a batch array (n, ...) holding a value outside ``low..high``, or None
    (a batch's range check: two reductions say whether there is one, and only then are the
    rows searched)."""
    if not values.size or (values.min() >= low and values.max() <= high):
        return None
    outside = (values < low) | (values > high)
    return int(np.flatnonzero(outside.reshape(len(values), -1).any(axis=1))[0])


# Capabilities (see the module docstring): a game declares the set it has.
BATCH_FORM = "batch"
OWN_PERFT = "own-perft"
OWN_SOLVER = "own-solver"
SHARED_KEY_TABLE = "shared-key-table"
SCORE_VALUES = "score-values"
PLIES_LEFT = "plies"
DISTANCE_TABLES = "distance-tables"
CAPABILITIES = frozenset({BATCH_FORM, OWN_PERFT, OWN_SOLVER, SHARED_KEY_TABLE, SCORE_VALUES,
                          PLIES_LEFT, DISTANCE_TABLES})


class Game:
    """Base class of every game; subclasses set the attributes and override the methods.
    ``capabilities`` says which optional parts it has (module docstring)."""
    name: str = ""
    title: str = ""
    rules: str = ""  # docs/rules/<game>.md
    sample: str = ""  # a position text that parses
    value_kind: str = "wdl"  # 'wdl' (win/draw/loss + distance) or 'score' (net score by plies)
    plies_option: str | None = None  # score games: the lookup option holding the plies left
    storage: str = "index"  # 'index', 'key' or 'runs'
    views: str | None = None  # file in sql/games with the game's readable views
    build_options: tuple[Option, ...] = ()
    lookup_options: tuple[Option, ...] = ()
    perft_options: tuple[Option, ...] = ()
    modes: tuple[str, ...] = ("edges", "edge-free", "compact")  # retrograde modes it supports
    position_type: type | None = None  # its position objects (tb.lookup accepts them)
    example_build: dict = {}  # options of a small build (conformance tests, docs)
    # further small builds the conformance tests add to the example build's file, so that
    # every kind of table a game has is checked (Chinese Checkers: a star's coalition table)
    more_example_builds: tuple[dict, ...] = ()
    capabilities: frozenset[str] = frozenset()  # BATCH_FORM, OWN_PERFT, ... (module docstring)

    # ------------------------------------------------------------------ tables
    def plan(self, **options) -> list[str]:
        raise NotImplementedError

    def dependencies(self, table: str) -> list[str]:
        return []

    def shared_table(self, table: str) -> str | None:
        """Key tables: the table whose rows hold ``table``'s positions when several builds
        share one (``tbdb.storage.shared_levels``: a build reuses the positions stored
        there and adds its new ones; ``table`` keeps only a catalogue row), or None (its own
        rows)."""
        return None

    def weight(self, table: str) -> int:
        """Roughly how many positions ``table`` holds: progress bars are weighted by it."""
        return 1

    def check_table(self, table: str) -> str:
        """``table`` if it names a table of this game, else ``InvalidOptionError``."""
        raise NotImplementedError

    def build_command(self, table: str) -> str | None:
        """The ``tbdb build`` command (without --db) that builds ``table``: one the command line
        accepts as it is, or None when no build of this tbdb makes the table (a message then says
        so plainly instead of suggesting a command that would be refused)."""
        raise NotImplementedError

    def space(self, table: str, deps: dict[str, Any]):
        raise NotImplementedError

    def describe(self, table: str, values: Any) -> TableData:
        raise NotImplementedError

    def solve(self, table: str, deps: dict[str, Any], mode: str = "auto", progress=None,
              store=None, fresh: bool = False) -> TableData | None:
        """Solve one table by the game's own method; None (the default): the game's storage
        kind solves it by the generic retrograde over ``space`` (``tbdb.storage.solve``: a
        dense index in memory, or level by level into ``store``, each level checkpointed as
        it is solved; ``fresh``: forget stored levels)."""
        return None

    def from_stored(self, table: str, row: dict | None, values: Any) -> Any:
        """A table's values as read from the store (or just solved) in the form ``space`` and
        ``solve`` take them as dependencies (default: as they are)."""
        return values

    def solve_beside_write(self, table: str) -> bool:
        """Whether ``table`` may solve while the table before it is still being written (the
        writer holds that table's values meanwhile); False for a table too big to solve beside
        them, which waits for the write."""
        return True

    def dependency_form(self, table: str, values: Any) -> Any:
        """What a build keeps of a solved table (``from_stored``'s form) while the tables that
        read it solve: by default all of it; a game whose solver reads less of its smaller
        tables keeps only that (Oware: the score changes, 1.6 bytes a run instead of 4; chess:
        result and distance, 3 bytes a slot instead of 9)."""
        return values

    def key_columns(self, table: str, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Key tables: the constraint and the multiplicity of each key int64[n, 2]."""
        raise NotImplementedError

    def slot_text(self, table: str, key: Any) -> str:
        """The position text of a stored key (verify's examples)."""
        return f"key {key}"

    def slot_texts(self, table: str, keys) -> list[str | None]:
        """``slot_text`` of each key, None for one outside the table: SQL's ``tb_position``
        asks a vector of rows at a time (a game may answer them together, faster)."""
        out: list[str | None] = []
        for key in keys:
            try:
                out.append(self.slot_text(table, key))
            except (IndexError, ValueError):
                out.append(None)
        return out

    def slot_digits(self, table: str) -> tuple[int, ...] | None:
        """Index tables whose slot is a mixed-radix number: its digits' radices, most
        significant first (their product the table's slots).  A probe file may then hold the
        slots with the digits in another order, the one its values compress best in
        (``tbdb.probe_files.order``).  None: the file keeps the index's order."""
        return None

    def checks_itself(self, table: str) -> bool:
        """Whether ``verify`` checks ``table`` by the game's own rules (True where the game
        overrides it), not by its storage kind's generic retrograde check."""
        return type(self).verify is not Game.verify

    def verify(self, table: str, values: Any, deps: dict[str, Any]) -> tuple[list[str], int]:
        """(examples, count) of stored positions whose value, best move, kind or multiplicity
        the rules and the stored children contradict; None (the default): the retrograde
        check of the game's storage kind (``tbdb.storage.solve.verify_table``)."""
        return None

    # ------------------------------------------------------------------ positions
    def parse(self, text: str) -> Any:
        raise NotImplementedError

    def recognises(self, text: str) -> bool:
        """Whether ``text`` looks like this game's notation (for guessing the game)."""
        try:
            self.parse(text)
        except ValueError:
            return False
        return True

    def accepts(self, obj: Any) -> bool:
        """Whether ``obj`` is a position object of this game."""
        return self.position_type is not None and isinstance(obj, self.position_type)

    def coerce(self, position: Any) -> Any:
        """A position object of this game from text or from an object of this game: the
        lenient reading of lookups, so surrounding whitespace (a pasted newline) is dropped;
        ``parse`` stays exact.  Anything else (None, bytes, a number, another game's object)
        is an ``InvalidPositionError`` quoting it: the one check of every game's lookups, so an
        engine's wrong argument never surfaces as an AttributeError deep inside a game."""
        if isinstance(position, str):
            return read_padded(self.parse, position)
        if not self.accepts(position):
            raise InvalidPositionError(f"{self.name} lookups take position text or a position "
                                       f"object of the game, not {quote(position)}")
        return position

    def text(self, position: Any) -> str:
        return position.text

    def diagram(self, position: Any) -> str | None:
        """A small board picture for the command line (None: the text says it all)."""
        return None

    def parse_for_perft(self, text: str, **options) -> Any:
        """A position for perft (perft may use positions no table holds)."""
        return self.parse(text)

    def play(self, position: Any, move: str) -> Any:
        return position.push(move)

    def locate(self, position: Any, **options) -> Location | GameOver:
        raise NotImplementedError

    def move_text(self, position: Any, code: int, sym: int) -> str:
        raise NotImplementedError

    def lookup_extras(self, position: Any, result) -> dict:
        """Fields a game adds to a lookup's answer (``LookupResult.extras``: the JSON and the
        web API show them beside tbdb's own; chess: lichess's ``category``, ``dtm``, ...)."""
        return {}

    def perspectives(self, position: Any) -> list[tuple[dict, str]]:
        """(lookup options, title) of each value ``position`` has, when it has more than one
        (a small star's: one per lone player, ``({"lone": 1}, "lone player 1 against ...")``);
        a command-line lookup that gives none of these options shows them all.  Empty: one
        value."""
        return []

    def perspective_summary(self, position: Any, results: list) -> dict[str, list]:
        """What the lookups of every perspective (``results``, in the order of
        ``perspectives``) say together, by name (a star's kingmaker report: the players who
        force their own win, those forced to lose); the command line prints each."""
        return {}

    def move_extras(self, position: Any, successor: Successor, move) -> dict:
        """Fields a game adds to one move of a lookup's ``moves`` (``MoveResult.extras``)."""
        return {}

    def move_name(self, position: Any, move: str) -> str:
        """A legal move as players write it in ``position`` (SQL's ``tb_move_name``): the
        move's text, unless the game's players write moves otherwise (chess: SAN)."""
        return move

    def native_constraint(self, position: Any, options: dict) -> int | None:
        """The constraint libtbprobe probes ``position`` with for a lookup given ``options``
        (a small star's lone player), or None where C does not answer such a lookup (the
        default: every lookup with options is the Python path's)."""
        return None

    def by_children(self, position: Any) -> bool:
        """Whether ``position`` is one no table stores whose value the prober takes from its
        children instead (chess: a position with an en passant right); then ``move_code`` must
        turn a move's text back into a code ``move_text(position, code, 0)`` reads."""
        return False

    def move_code(self, position: Any, move: str) -> int:
        raise NotImplementedError(f"{self.name} has no positions valued by their children")

    def derive_best(self, position: Any, value: tuple, child_value: Callable[[Any], tuple]
                    ) -> int:
        """A best-move code (for ``move_text``) of a position whose table stores none (best
        code -1, distance above 0), found from the stored values of its children
        (``child_value(position)``: the value tuple ``Prober.value`` gives); -1: none."""
        return -1

    # A game whose positions may be in any of several tables (UTTT: one table per --from
    # build) returns ``Location(table=None, key=...)`` from ``locate`` (and None in
    # ``BatchLocation.tables``); the prober then searches these tables, in this order.
    def search_tables(self, built: list[str], **options) -> list[str]:
        """Of the built tables, those to search for a located key."""
        return []

    def cover_command(self, key: Any, text: str | None, **options) -> str | None:
        """The ``tbdb build`` command (without --db) that would store the position, or None
        (as ``build_command``)."""
        raise NotImplementedError

    def successors(self, position: Any, **options) -> list[Successor]:
        return [Successor(str(m), position.push(m)) for m in position.legal_moves()]

    def images(self, position: Any) -> list[Any]:
        """Every position answered by the same stored row as ``position`` (its images under
        the game's symmetries), ``position`` first."""
        return [position]

    # ------------------------------------------------------------------ batch
    def encode_batch(self, positions: list[Any]) -> tuple:
        """The arrays ``batch_locate`` takes for these positions (the batch form's encoding)."""
        raise NotImplementedError(f"{self.name} has no batch form")

    def batch_locate(self, *arrays, **options) -> BatchLocation:
        raise NotImplementedError(f"{self.name} has no batch form")

    def batch_moves(self, codes: np.ndarray, sym: np.ndarray) -> np.ndarray:
        return codes

    # ------------------------------------------------------------------ perft
    def start(self, **options) -> Any:
        """The position ``start`` names (perft from the initial position)."""
        raise NotImplementedError(f"{self.name} has no start position")

    def perft(self, position: Any, depth: int, **options) -> int:
        """Leaves of the move tree ``depth`` plies deep (generic, slow; games override)."""
        if depth == 0:
            return 1
        moves = self.successors(position)
        if depth == 1:
            return len(moves)
        return sum(self.perft(s.position, depth - 1, **options) for s in moves)

    def divide(self, position: Any, depth: int, **options) -> list[tuple[str, int]]:
        return [(s.move, self.perft(s.position, depth - 1, **options))
                for s in self.successors(position)]


def read_padded(read: Callable[[str], Any], text: str) -> Any:
    """``read(text)``, or else ``read`` of the text without the whitespace around it (a pasted
    newline): lookups forgive it; a text bad either way raises the error that quotes it as
    given."""
    try:
        return read(text)
    except InvalidPositionError as exc:
        stripped = text.strip()
        if stripped == text:
            raise
        try:
            return read(stripped)
        except InvalidPositionError:
            raise exc from None
