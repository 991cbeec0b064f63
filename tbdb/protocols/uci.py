"""``tbdb uci``: a UCI engine that answers chess endgames from tbdb's tables (modelled on the
USI engine, tbdb/protocols/usi.py).

A GUI or a script (python-chess's ``chess.engine.SimpleEngine.popen_uci``) starts it and speaks
UCI on its stdin and stdout.  In a position some table holds, ``go`` answers at once with the
stored value (``info depth D score mate N pv ...``: N in moves as UCI counts them, negative when
the engine is being mated; ``score cp 0`` for a draw) and the stored best move: the quickest
mate, the longest resistance.  ``go infinite`` holds its ``bestmove`` back until ``stop``.
Outside the tables (too many pieces, a table not built) it says so in an ``info string`` and
answers ``bestmove 0000``.  A malformed command gets an ``info string`` and the engine keeps
running.  The database is only read.
"""
from __future__ import annotations

import sys
import time
from typing import TextIO

from tbdb.process import version
from tbdb.protocols.session import EngineSession
from tbdb.errors import TbdbError, one_line, quote

ENGINE_NAME = "tbdb"
AUTHOR = "the tbdb authors"
DRAW_PV = 12  # plies of a drawn line shown (a draw has no end to play towards)
START_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1"  # castling rights dropped


class UciCommandError(ValueError):
    """A UCI command tbdb cannot read; the message quotes it."""


def parse_position_command(text: str):
    """``position startpos|fen F [moves M ...]``: the chess Position after the moves, or
    ``UciCommandError`` / ``InvalidPositionError`` / ``InvalidMoveError`` quoting the fault."""
    from tbdb.games.chess import Position
    tokens = text.split()[1:]
    if not tokens:
        raise UciCommandError(f"position command {quote(text)} names no position: "
                              f"'position startpos|fen ... [moves ...]'")
    if tokens[0] == "startpos":
        fen, rest = START_FEN, tokens[1:]
    elif tokens[0] == "fen":
        body = tokens[1:]
        n = body.index("moves") if "moves" in body else len(body)
        if not 4 <= n <= 6:
            raise UciCommandError(f"position command {quote(text)}: 'fen' takes four to six "
                                  f"FEN fields, then 'moves'")
        fen, rest = " ".join(body[:n]), body[n:]
    else:
        raise UciCommandError(f"position command {quote(text)}: expected 'startpos' or 'fen' "
                              f"after 'position', not {quote(tokens[0])}")
    if rest and rest[0] != "moves":
        raise UciCommandError(f"position command {quote(text)}: expected 'moves' after the "
                              f"position, not {quote(rest[0])}")
    position = Position.read(fen)
    for move in rest[1:]:
        position = position.push(move)
    return position


def _score(r) -> str:
    """UCI's score: mate in moves (a win in d plies is mate (d + 1) / 2; a loss in d plies is
    mate -d / 2), a draw ``cp 0``."""
    if r.outcome == "win":
        return f"mate {(r.distance + 1) // 2}"
    if r.outcome == "loss":
        return f"mate -{r.distance // 2}"
    return "cp 0"


class UciEngine(EngineSession):
    """One UCI session (``EngineSession``: one command a line, False after ``quit``)."""

    game = "chess"

    # ------------------------------------------------------------------ commands

    def _uci(self, text: str) -> None:
        self.emit(f"id name {ENGINE_NAME} {version()} (chess endgame tables)")
        self.emit(f"id author {AUTHOR}")
        default = self.options["Database"] or "<empty>"
        self.emit(f"option name Database type string default {default}")
        self.emit("uciok")

    def _isready(self, text: str) -> None:
        try:
            self._open()
        finally:
            self.emit("readyok")

    def _setoption(self, text: str) -> None:
        words = text.split()
        if len(words) < 3 or words[1] != "name":
            raise UciCommandError(f"setoption command {quote(text)}: expected 'setoption name "
                                  f"N [value V]'")
        rest = text.split(None, 2)[2]
        name, _, value = rest.partition(" value")
        name, value = name.strip(), value.strip()
        if name == "Database":
            self.options["Database"] = value
            self.close()
            self._tb_error = None
        # other options (Hash, Threads, Ponder, ...) that GUIs send: nothing to set

    def _ucinewgame(self, text: str) -> None:
        pass

    def _position(self, text: str) -> None:
        self.position = None  # a refused command leaves no position: go then says so
        self.position = parse_position_command(text)

    def _go(self, text: str) -> None:
        if self._held is not None:
            self.say("error: go while a search is running; send stop first")
            return
        words = text.split()
        held = "infinite" in words or "ponder" in words
        try:
            answer = self._answer(time.perf_counter())
        except Exception as exc:  # noqa: BLE001 - a damaged table, a bug: the GUI still waits
            detail = one_line(exc) if isinstance(exc, (TbdbError, ValueError)) else \
                f"{type(exc).__name__}: {one_line(exc)}"
            self.say(f"error: go failed: {detail}")
            answer = "bestmove 0000"
        if held:
            self._held = answer
        else:
            self.emit(answer)

    def _stop(self, text: str) -> None:
        if self._held is not None:
            answer, self._held = self._held, None
            self.emit(answer)

    def _ponderhit(self, text: str) -> None:
        self._stop(text)

    def _quit(self, text: str) -> bool:
        self._stop(text)
        return False

    # ------------------------------------------------------------------ answers

    def _answer(self, started: float) -> str:
        """Info lines said; the bestmove line returned."""
        if self.position is None:
            self.say("error: no position to search: send a valid 'position' command first")
            return "bestmove 0000"
        tb = self._open()
        if tb is None:
            return "bestmove 0000"
        before = tb.stats().probes
        try:
            r = tb.lookup(self.position, game="chess")
        except TbdbError as exc:
            self.say(f"tbdb: no table answers this position: {exc}")
            return "bestmove 0000"
        pv = self._pv(tb, self.position, r)
        ms = int((time.perf_counter() - started) * 1000)
        nodes = tb.stats().probes - before
        self.emit(f"info depth {max(1, len(pv))} seldepth {len(pv)} score {_score(r)} "
                  f"nodes {nodes} time {ms}" + (f" pv {' '.join(pv)}" if pv else ""))
        if not pv:
            self.say("tbdb: the side to move has no legal move")
            return "bestmove 0000"
        return f"bestmove {pv[0]}" + (f" ponder {pv[1]}" if len(pv) > 1 else "")

    def _pv(self, tb, position, r) -> list[str]:
        """The stored best moves: to the mate for a decided position, the first DRAW_PV plies
        (or to a repetition) for a draw."""
        limit = r.distance if r.outcome != "draw" else DRAW_PV
        moves, seen = [], {position.placement + str(position.turn)}
        while len(moves) < limit:
            move = r.best_move if r.best_move is not None else \
                (r.moves[0].move if r.outcome == "draw" and r.moves else None)
            if move is None:
                break
            moves.append(move)
            position = position.push(move)
            key = position.placement + str(position.turn)
            if key in seen:
                break
            seen.add(key)
            try:
                r = tb.lookup(position, game="chess")
            except TbdbError:
                break  # bare kings or a table not built: the line ends here
        return moves


UciEngine.commands = {"uci": UciEngine._uci, "isready": UciEngine._isready,
             "setoption": UciEngine._setoption, "ucinewgame": UciEngine._ucinewgame,
             "position": UciEngine._position, "go": UciEngine._go, "stop": UciEngine._stop,
             "ponderhit": UciEngine._ponderhit, "quit": UciEngine._quit}


def serve(db: str | None = None, stdin: TextIO | None = None, out: TextIO | None = None) -> int:
    """Run a UCI session on stdin/stdout until ``quit`` or the end of the input."""
    return UciEngine(db, out).run(stdin if stdin is not None else sys.stdin)
