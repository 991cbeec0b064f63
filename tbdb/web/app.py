"""The ASGI app behind ``tbdb serve``: a JSON API modelled on lichess's tablebase server and the
static explorer page, for every registered game.

The database is opened read-only once and shared.  A DuckDB connection and the prober's lazily
loaded tables are not safe to use from two threads at once, and Starlette runs these (sync)
endpoints in a thread pool, so every use of the tablebase holds one lock; lookups are short and
CPU-bound under the GIL anyway.  Nothing here runs SQL given by a client or writes anything.
"""
from __future__ import annotations

import contextlib
import threading
import time
from importlib import resources
from typing import Any

import duckdb
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

import tbdb
from tbdb import games
from tbdb.errors import (DamagedDatabaseError, DamagedTableError,
                         MissingTableError, TbdbError, UnknownGameError, quote)
from tbdb.options import resolve
from tbdb.storage import storage_of
from tbdb.db.connect import damaged, is_damage
from tbdb.web import find, lichess, play
from tbdb.web.histogram import histogram

STATIC = resources.files("tbdb.web") / "static"
TABLE_COLUMNS = ("game", "table_name", "material", "pieces", "side_to_move", "positions", "wins",
                 "draws", "losses", "illegal", "draw_rate", "longest_win", "longest_loss")


class Explorer:
    """One open tablebase shared by every request, behind a lock."""

    def __init__(self, db: str):
        self.tb = tbdb.open(db)
        self.lock = threading.Lock()
        self._samples: dict[str, list[str]] = {}
        self._histograms: dict[tuple[str, str], dict] = {}
        self._games: list[dict] | None = None

    def prepare(self, say=None) -> float:
        """Everything the first page and each game's first lookup need, done now (``tbdb
        serve`` calls it before it takes requests): the games list with its samples, and a
        lookup of each sample with its moves, which reads their tables (and their moves'
        tables) into memory and loads the compiled kernels: a game's samples may sit in
        different tables (Oware's best scores, one seed count each).  Returns the seconds it
        took; ``say`` reports each game.  A game that cannot be prepared is left to its first
        request (which says why)."""
        t0 = time.perf_counter()
        try:
            listed = self.games()
        except (TbdbError, ValueError, KeyError, duckdb.Error) as exc:
            if say:
                say(f"cannot list the games yet: {str(exc).splitlines()[0]}")
            return time.perf_counter() - t0
        if say:
            say(f"games and their samples: {time.perf_counter() - t0:.1f} s")
        for g in listed:
            t1 = time.perf_counter()
            for text in g["samples"]:
                try:
                    self.record(g["name"], {"position": text})
                except Exception:  # noqa: BLE001 (whatever a bad table raises, the server
                    pass           # starts and serves the rest; the request says why)
            if say:
                n = len(g["samples"])
                say(f"{g['name']}: {g['tables']} table{'s' if g['tables'] != 1 else ''}, "
                    f"{n} sample{'s' if n != 1 else ''} looked up in "
                    f"{time.perf_counter() - t1:.2f} s")
        return time.perf_counter() - t0

    def close(self) -> None:
        with self.lock:
            self.tb.close()

    def lookup(self, game_name: str, params: dict[str, str], line_only: bool = False) -> dict:
        g = games.get(game_name)
        params = dict(params)
        text = params.pop("position", None)
        if text is None:
            raise _BadRequest(f"give the position: /api/{g.name}?position=... "
                              f"(e.g. {g.sample!r})")
        options = resolve(f"{g.name} lookup", g.lookup_options, params, text=True)
        position = g.coerce(text)  # as tbdb lookup reads it
        with self.lock:
            r = self.tb.lookup(position, game=g.name, **options)
            if line_only:
                return {"game": g.name, "position": r.position,
                        "line": [s.to_dict() for s in r.line()]}
            return r.to_dict()

    def record(self, game_name: str, params: dict[str, str]) -> dict:
        """A game played from ``position`` through ``moves`` (comma-separated), each position
        with its value and each move judged (``tbdb.web.play``)."""
        g = games.get(game_name)
        params = dict(params)
        text = params.pop("position", None)
        if text is None:
            raise _BadRequest(f"give the position: /api/{g.name}/game?position=...&moves=... "
                              f"(e.g. {g.sample!r})")
        moves = play.parse_moves(params.pop("moves", None))
        options = resolve(f"{g.name} lookup", g.lookup_options, params, text=True)
        with self.lock:
            return play.record(self.tb, g, text, moves, options)

    def find(self, game_name: str, params: dict[str, str]) -> dict:
        """Without ``table``: the tables to search and the kinds of position; with ``table``
        and ``kind``: positions of that kind (``tbdb.web.find``)."""
        g = games.get(game_name)
        params = dict(params)
        table, kind = params.pop("table", None), params.pop("kind", None)
        seed_text = params.pop("seed", "0")
        if table is None:
            with self.lock:
                tables = find.tables(self.tb, g)
            return {"game": g.name, "tables": tables, "kinds": find.kinds(g)}
        if kind is None:
            raise _BadRequest(f"give the kind: /api/{g.name}/find?table=...&kind=... (one of "
                              f"{', '.join(find.KINDS)})")
        try:
            seed = int(seed_text)
        except ValueError:
            raise _BadRequest(f"seed must be an integer, not {quote(seed_text)}") from None
        options = resolve(f"{g.name} lookup", g.lookup_options, params, text=True)
        with self.lock:
            return find.find(self.tb, g, table, kind, seed, options)

    def start(self, game_name: str, params: dict[str, str]) -> dict:
        """The game's start position as ``tbdb perft GAME start`` takes it (its perft options:
        Chinese Checkers' board, players and pieces), for the editor's Start button."""
        g = games.get(game_name)
        options = resolve(f"{g.name} start", g.perft_options, dict(params), text=True)
        try:
            position = g.start(**options)
        except NotImplementedError as exc:
            raise _NoStart(str(exc)) from None
        return {"game": g.name, "position": g.text(position)}

    def lichess(self, request: Request) -> dict:
        """lila-tablebase's answer (``tbdb.web.lichess``): /standard, /standard/mainline."""
        variant = request.url.path.strip("/").split("/")[0]
        if variant != "standard":
            raise lichess.not_served(variant)
        answer = lichess.mainline if request.url.path.endswith("/mainline") else \
            lichess.standard
        with self.lock:
            return answer(self.tb, request.query_params.get("fen"))

    def diagram(self, game_name: str, text: str | None) -> dict:
        g = games.get(game_name)
        if text is None:
            raise _BadRequest(f"give the position: /api/{g.name}/diagram?position=...")
        position = g.coerce(text)
        return {"game": g.name, "position": g.text(position), "diagram": g.diagram(position)}

    def tables(self) -> list[dict]:
        if self.tb.probe_files:  # no SQL views: what the manifest says of each table
            with self.lock:
                rows = self.tb.tables()
            return [{"game": r["game"], "table_name": r["table_name"],
                     "positions": r["positions"],
                     **{k: None for k in TABLE_COLUMNS if k not in ("game", "table_name",
                                                                     "positions")}}
                    for r in sorted(rows, key=lambda r: (r["game"], r["table_name"]))]
        with self.lock:
            rows = self.tb.sql(f"SELECT {', '.join(TABLE_COLUMNS)} FROM draw_analysis "
                               "ORDER BY game, table_name, pieces, material, side_to_move"
                               ).fetchall()
        return [{k: _plain(v) for k, v in zip(TABLE_COLUMNS, row)} for row in rows]

    def histogram(self, game_name: str, table: str) -> dict:
        """A table's values per (outcome, distance) or score; computed once per table (the
        file is read-only while served)."""
        g = games.get(game_name)
        cached = self._histograms.get((g.name, table))
        if cached is None:
            with self.lock:
                cached = histogram(self.tb, g.name, table).to_dict()
            self._histograms[(g.name, table)] = cached
        return cached

    def samples(self, g) -> list[str]:
        """Positions to start from: the game's sample if its table is built, then the longest
        wins stored (for score games, the highest scores), one table after another."""
        cached = self._samples.get(g.name)
        if cached is not None:
            return cached
        out = []
        with self.lock:
            try:
                self.tb.lookup(g.sample, game=g.name)
                out.append(g.sample)
            except Exception:  # noqa: BLE001 (no sample, not no server: see ``prepare``)
                pass
            if self.tb.probe_files:  # no SQL to find the longest wins: the sample only
                self._samples[g.name] = out
                return out
            sql, params = storage_of(g).samples(g)
            for table, key in self.tb.sql(sql, params=params).fetchall():
                try:
                    text = g.text(g.parse(g.slot_text(table, key)))
                except (ValueError, KeyError, NotImplementedError):
                    continue
                if text not in out:
                    out.append(text)
        self._samples[g.name] = out
        return out

    def games(self) -> list[dict]:
        """Every game with its samples and options (computed once: the file is read-only)."""
        if self._games is None:
            self._games = self._list_games()
        return self._games

    def _list_games(self) -> list[dict]:
        with self.lock:
            if self.tb.probe_files:  # a directory of probe files: its manifest's tables
                built: dict[str, int] = {}
                for r in self.tb.tables():
                    built[r["game"]] = built.get(r["game"], 0) + 1
            else:
                built = dict(self.tb.sql("SELECT game, count(*) FROM build_checkpoints WHERE "
                                         "state = 'done' GROUP BY game").fetchall())
        renderers = {p.name for p in (STATIC / "boards").iterdir()}
        return [{"name": g.name, "title": g.title, "sample": g.sample,
                 **storage_of(g).describe(g),
                 "tables": int(built.get(g.name, 0)),
                 "samples": self.samples(g),
                 "renderer": f"{g.name}.js" in renderers,
                 "options": [{"name": o.name, "help": o.help, "default": o.default,
                              "allowed": o.describe()} for o in g.lookup_options]}
                for g in games.all_games()]


class _BadRequest(TbdbError, ValueError):
    """A request missing what it needs (no position)."""


class _NoStart(TbdbError, KeyError):
    """A game without a start position (CDC's endgames): 404."""

    def __str__(self):
        return str(self.args[0])


def _plain(value: Any) -> Any:
    return float(value) if hasattr(value, "as_integer_ratio") and not isinstance(value, int) \
        else value


def _error(exc: Exception) -> JSONResponse:
    """Malformed input: 400; a missing table or an unknown game: 404; a damaged table or
    file: 500.
    Every message is tbdb's one line, which quotes the input."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    if isinstance(exc, (MissingTableError, UnknownGameError, _NoStart)):
        status = 404
    elif isinstance(exc, (DamagedTableError, DamagedDatabaseError)):
        status = 500
    else:
        status = 400
    return JSONResponse({"error": text}, status_code=status)


def _guarded(fn, db: str):
    def endpoint(request: Request):
        try:
            return JSONResponse(fn(request))
        except (TbdbError, ValueError, KeyError) as exc:
            return _error(exc)
        except duckdb.Error as exc:
            if not is_damage(exc):
                raise
            return _error(damaged(db, exc))  # a block read for this request is damaged
    return endpoint


def create_app(db: str) -> Starlette:
    """The app over the database file ``db`` (opened read-only now, closed at shutdown)."""
    explorer = Explorer(db)

    def unknown_game(request: Request):
        return _error(UnknownGameError(f"unknown game {quote(request.path_params['game'])}; "
                                       f"known games: {', '.join(games.names())}"))

    def game_route(fn):
        def endpoint(request: Request):
            if request.path_params["game"] not in games.names():
                return unknown_game(request)
            return _guarded(fn, db)(request)
        return endpoint

    routes = [
        Route("/", lambda request: FileResponse(str(STATIC / "index.html"))),
        Route("/stats", lambda request: FileResponse(str(STATIC / "stats.html"))),
        Route("/api/games", _guarded(lambda request: explorer.games(), db)),
        Route("/api/tables", _guarded(lambda request: explorer.tables(), db)),
        # a table name may hold '/' (uttt's 'standard/from/...'): the path convertor takes it
        Route("/api/tables/{game}/{table:path}/histogram", game_route(
            lambda request: explorer.histogram(request.path_params["game"],
                                               request.path_params["table"]))),
        Route("/api/{game}", game_route(
            lambda request: explorer.lookup(request.path_params["game"],
                                            dict(request.query_params)))),
        Route("/api/{game}/line", game_route(
            lambda request: explorer.lookup(request.path_params["game"],
                                            dict(request.query_params), line_only=True))),
        Route("/api/{game}/game", game_route(
            lambda request: explorer.record(request.path_params["game"],
                                            dict(request.query_params)))),
        Route("/api/{game}/find", game_route(
            lambda request: explorer.find(request.path_params["game"],
                                          dict(request.query_params)))),
        Route("/api/{game}/start", game_route(
            lambda request: explorer.start(request.path_params["game"],
                                           dict(request.query_params)))),
        Route("/api/{game}/diagram", game_route(
            lambda request: explorer.diagram(request.path_params["game"],
                                             request.query_params.get("position")))),
        # lila-tablebase's paths, for clients written for lichess's tablebase server
        *[Route(f"/{variant}{tail}", _guarded(explorer.lichess, db))
          for variant in ("standard",) + lichess.OTHER_VARIANTS for tail in ("", "/mainline")],
        Mount("/static", StaticFiles(directory=str(STATIC)), name="static"),
    ]
    @contextlib.asynccontextmanager
    async def lifespan(app):
        yield
        explorer.close()

    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.explorer = explorer
    return app
