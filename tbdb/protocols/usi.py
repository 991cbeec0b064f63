"""``tbdb usi``: a USI engine that answers Shogi endgames from tbdb's tables.

A GUI (ShogiGUI, Shogidokoro, Electron Shogi) or a script (``cshogi.usi.Engine``) starts it and
speaks USI on its stdin and stdout.  In a position some table holds, ``go`` answers at once with
the stored value (``info depth 1 seldepth N score mate N ... pv ...``; N in plies, negative when
the engine is being mated; ``score cp 0`` for a draw) and the stored best move: the shortest
win, the longest resistance.  ``go mate`` answers ``checkmate <moves>`` or ``checkmate nomate``.
Outside the tables it says so (``info string``) and resigns, or hands the position to the engine
named by the option ``Fallback`` and relays its answer (tbdb/protocols/usi_fallback.py).  A
malformed command gets an ``info string`` and the engine keeps running.  The database is opened
read-only: the engine never writes it.

``go`` never blocks the loop that reads commands: a table answer is computed at once and, for
``go infinite`` and ``go ponder``, its ``bestmove`` is held back until ``stop`` (or
``ponderhit``); a fallback's search runs in its own process while this loop keeps reading.

Every ``go`` is answered whatever goes wrong (a malformed parameter, a damaged table, a bug: said
in an ``info string``, then ``bestmove resign``), and every ``isready`` gets ``readyok``.  A
fallback engine that fails its handshake (tbdb/protocols/usi_fallback.py's timeouts) or hangs in a
search is given up on once, not waited for at every ``go``.
"""
from __future__ import annotations

import os
import re
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import TextIO

from tbdb.process import version
from tbdb.protocols.session import EngineSession
from tbdb.errors import TbdbError, one_line, quote

ENGINE_NAME = "tbdb"
AUTHOR = "the tbdb authors"
DRAW_PV = 12  # plies of a drawn line shown (a draw has no end to play towards)
_GO_NUMBERS = ("btime", "wtime", "byoyomi", "binc", "winc", "nodes", "movetime", "depth")
_ACCEPTED_OPTIONS = ("USI_Hash", "USI_Ponder")  # every GUI sends them; nothing to do here
_CHECK_OPTIONS = ("MateChecksOnly",)
_GO_WORDS = _GO_NUMBERS + ("infinite", "ponder", "mate")
_MAX_DIGITS = 18  # a go number: up to 10**18 - 1 (31 million years of milliseconds)
_DIGITS = re.compile(r"[0-9]{1,%d}" % _MAX_DIGITS)
_LATER = object()  # an answer a worker thread gives when it is done (a check-only mate search)
# `setoption name N [value V]`: V may hold spaces (a path) or be empty (an option cleared)
_SETOPTION = re.compile(r"setoption\s+name\s+(\S.*?)(?:\s+value(?:\s+(.*))?)?")


class UsiCommandError(ValueError):
    """A USI command tbdb cannot read; the message quotes it."""


@dataclass
class GoCommand:
    """A parsed ``go`` line.  Time controls are read and checked but a table answers at once
    whatever they are; they matter to a fallback engine, which gets the line as sent (its bad
    parameters left out)."""
    text: str
    numbers: dict[str, int] = field(default_factory=dict)
    infinite: bool = False
    ponder: bool = False
    mate: bool = False
    mate_ms: int | None = None  # None: `go mate infinite` (or no limit given)

    @classmethod
    def parse(cls, text: str) -> tuple[GoCommand, list[str]]:
        """The command and the problems found in it (a bad token is skipped: the GUI is still
        owed an answer).  A line with problems keeps only its good parts in ``text`` (what a
        fallback engine is sent)."""
        go = cls(text)
        problems = []
        tokens = text.split()[1:]
        kept = ["go"]
        i = 0
        while i < len(tokens):
            t = tokens[i]
            nxt = tokens[i + 1] if i + 1 < len(tokens) else None
            if t in ("infinite", "ponder"):
                setattr(go, t, True)
                kept.append(t)
            elif t == "mate":
                go.mate = True
                kept.append(t)
                if nxt == "infinite":
                    kept.append(nxt)
                    i += 1
                elif _number(nxt) is not None:
                    go.mate_ms = _number(nxt)
                    kept.append(nxt)
                    i += 1
                elif nxt is not None and nxt not in _GO_WORDS:
                    problems.append(f"go mate takes a number of milliseconds or 'infinite', "
                                    f"not {quote(nxt)}")
                    i += 1
            elif t in _GO_NUMBERS:
                if _number(nxt) is None:
                    unit = {"nodes": "nodes", "depth": "plies"}.get(t, "milliseconds")
                    got = quote(nxt) if nxt is not None else "nothing"
                    problems.append(f"go {t} takes a number of {unit} (at most {_MAX_DIGITS} "
                                    f"digits), not {got}")
                    if nxt is not None and nxt not in _GO_WORDS:
                        i += 1
                else:
                    go.numbers[t] = _number(nxt)
                    kept += [t, nxt]
                    i += 1
            else:
                problems.append(f"unknown go parameter {quote(t)}")
            i += 1
        if problems:
            go.text = " ".join(kept)
        return go, problems


    def budget(self, side: str) -> float | None:
        """The seconds this search may take by its own clock (``side``: 'b' or 'w', the side
        to move); None without a limit (infinite, or only nodes or depth)."""
        if self.mate:
            return None if self.mate_ms is None else self.mate_ms / 1000
        if self.infinite:
            return None
        n = self.numbers
        if "movetime" in n:
            return n["movetime"] / 1000
        own, inc = ("btime", "binc") if side == "b" else ("wtime", "winc")
        if not any(k in n for k in (own, inc, "byoyomi")):
            return None
        return (n.get(own, 0) + n.get("byoyomi", 0) + n.get(inc, 0)) / 1000


def _number(token: str | None) -> int | None:
    """A go parameter's number: ASCII digits, not too many (``'²'.isdigit()`` is true, and
    ``int`` refuses 5,000 digits), else None."""
    if token is None or not _DIGITS.fullmatch(token):
        return None
    return int(token)


def parse_position_command(text: str):
    """``position startpos|sfen B S H [N] [moves M ...]``: the Position after the moves, or
    ``UsiCommandError`` / ``InvalidPositionError`` / ``InvalidMoveError`` quoting the fault."""
    from tbdb.games.shogi import Position
    from tbdb.games.shogi.position import START_SFEN
    tokens = text.split()[1:]
    if not tokens:
        raise UsiCommandError(f"position command {quote(text)} names no position: "
                              f"'position startpos|sfen ... [moves ...]'")
    if tokens[0] == "startpos":
        sfen, rest = START_SFEN, tokens[1:]
    elif tokens[0] == "sfen":
        body = tokens[1:]
        n = 3 if len(body) < 4 or not body[3].isdigit() else 4
        if len(body) < 3 or (len(body) > n and body[n] != "moves"):
            raise UsiCommandError(f"position command {quote(text)}: 'sfen' takes a board, a side "
                                  f"to move, hands and an optional move number, then 'moves'")
        sfen, rest = " ".join(body[:n]), body[n:]
    else:
        raise UsiCommandError(f"position command {quote(text)}: expected 'startpos' or 'sfen' "
                              f"after 'position', not {quote(tokens[0])}")
    if rest and rest[0] != "moves":
        raise UsiCommandError(f"position command {quote(text)}: expected 'moves' after the "
                              f"position, not {quote(rest[0])}")
    position = Position.parse(sfen)
    for move in rest[1:]:
        position = position.push(move)
    return position


class UsiEngine(EngineSession):
    """One USI session (``EngineSession``: one command a line, False after ``quit``)."""

    game = "shogi"

    def __init__(self, db: str | None = None, out: TextIO | None = None):
        super().__init__(db, out)
        self.options.update({"Fallback": "", "MateChecksOnly": "false"})
        self._fallback = None
        self._fallback_error: str | None = None
        from tbdb.games.shogi.position import START_SFEN
        self.position_command = "position startpos"
        self._start_sfen = START_SFEN
        self._held_until_stop = False   # go infinite: only stop releases it
        self._mate_search: threading.Thread | None = None
        self._mate_stop = threading.Event()
        self._mate_cancelled = False
        self._mate_busy = False

    def close(self) -> None:
        if self._mate_search is not None:
            self._mate_cancelled = True
            self._mate_stop.set()
            self._mate_search.join(5)
        if self._fallback is not None:
            self._fallback.quit()
            self._fallback = None
        super().close()

    # ------------------------------------------------------------------ commands

    def _usi(self, text: str) -> None:
        self.emit(f"id name {ENGINE_NAME} {version()} (Shogi endgame tables)")
        self.emit(f"id author {AUTHOR}")
        for name, value in self.options.items():
            if name in _CHECK_OPTIONS:
                self.emit(f"option name {name} type check default {value}")
            else:
                self.emit(f"option name {name} type string default {value or '<empty>'}")
        self.emit("usiok")

    def _isready(self, text: str) -> None:
        try:
            self._open()
            if self.options["Fallback"]:
                fb = self._ensure_fallback()
                if fb is not None:
                    try:
                        fb.isready()
                    except ValueError as exc:  # it will not get ready: given up on, once
                        self._give_up_fallback(str(exc))
        finally:
            self.emit("readyok")  # whatever failed (said above), the GUI is not kept waiting

    def _setoption(self, text: str) -> None:
        found = _SETOPTION.fullmatch(text)
        if found is None:
            raise UsiCommandError(f"setoption {quote(text)}: expected 'setoption name N "
                                  f"[value V]'")
        name, value = found.group(1), (found.group(2) or "").strip()
        if value == "<empty>":
            value = ""
        if name in _ACCEPTED_OPTIONS:
            return
        if name not in self.options:
            raise UsiCommandError(f"unknown option {quote(name)}; options: "
                                  f"{', '.join(self.options)}")
        if name in _CHECK_OPTIONS:
            if value.lower() not in ("true", "false"):
                raise UsiCommandError(f"option {name} is true or false, not {quote(value)}")
            value = value.lower()
        if value == self.options[name] and not (name == "Fallback" and self._fallback_error):
            return  # (a fallback given up on is tried again when its option is sent again)
        self.options[name] = value
        if name == "Database" and self._tb is not None:
            self._tb.close()
            self._tb = None
        if name == "Database":
            self._tb_error = None
        if name == "Fallback":
            if self._fallback is not None:
                self._fallback.quit()
                self._fallback = None
            self._fallback_error = None

    def _usinewgame(self, text: str) -> None:
        self._held = None
        if self._fallback is not None:
            self._fallback.send("usinewgame")

    def _position(self, text: str) -> None:
        self.position = None  # a refused command leaves no position: go then says so
        self.position = parse_position_command(text)
        self.position_command = text

    def _go(self, text: str) -> None:
        go, problems = GoCommand.parse(text)
        for p in problems:
            self.say(f"error: {p}")
        if self._held is not None or self._mate_searching or \
                (self._fallback is not None and self._fallback.searching):
            self.say("error: go while a search is running; send stop first")
            return
        try:
            self._search(go)
        except Exception as exc:  # noqa: BLE001 - a damaged table, a bug: the GUI still waits
            detail = one_line(exc) if isinstance(exc, (TbdbError, ValueError)) else \
                f"{type(exc).__name__}: {one_line(exc)}"
            self.say(f"error: go failed: {detail}")
            # (as outside the tables: no answer, which `nomate` would not be)
            self._finish("checkmate notimplemented" if go.mate else "bestmove resign", go)

    def _search(self, go: GoCommand) -> None:
        """Answer ``go`` (now, held back, or later from a thread or the fallback engine)."""
        if self.position is None:
            self.say("error: no position to search: send a valid 'position' command first")
            self._finish("checkmate nomate" if go.mate else "bestmove resign", go)
            return
        started = time.perf_counter()
        answer = self._table_answer(self.position, go, started)
        if answer is _LATER:
            return
        if answer is not None:
            self._finish(answer, go)
            return
        fb = self._ensure_fallback() if self.options["Fallback"] else None
        if fb is not None:
            fb.search(self.position_command, go.text, go.mate,
                      go.budget(self.position.sfen.split()[1]), go.ponder)
            return
        self._finish("checkmate notimplemented" if go.mate else "bestmove resign", go)

    @property
    def _mate_searching(self) -> bool:
        return self._mate_busy

    def _stop(self, text: str) -> None:
        if self._mate_searching:
            self._mate_stop.set()  # the search answers `checkmate timeout`
        elif self._held is not None:
            self._release()
        elif self._fallback is not None and self._fallback.searching:
            self._fallback.stop()

    def _ponderhit(self, text: str) -> None:
        if self._held is not None and not self._held_until_stop:
            self._release()
        elif self._fallback is not None and self._fallback.searching:
            self._fallback.ponderhit()

    def _gameover(self, text: str) -> None:
        self._held = None  # the game is over: no move is owed
        self._mate_cancelled = True
        self._mate_stop.set()
        if self._fallback is not None:
            self._fallback.forget_search()
            self._fallback.send(text)

    def _quit(self, text: str) -> bool:
        return False

    # ------------------------------------------------------------------ answers

    def _finish(self, answer: str, go: GoCommand) -> None:
        """Say ``answer`` now, or hold it back until stop (go infinite) or ponderhit."""
        if (go.infinite or go.ponder) and not go.mate:
            self._held = answer
            self._held_until_stop = go.infinite
            return
        self.emit(answer)

    def _release(self) -> None:
        answer, self._held = self._held, None
        self.emit(answer)

    def _table_answer(self, position, go: GoCommand, started: float) -> str | None:
        """The answer from the tables: info lines said, the bestmove / checkmate line
        returned; None (with an info string) where no table holds the position."""
        tb = self._open()
        if tb is None:
            return None
        before = tb.stats().probes
        try:
            r = tb.lookup(position, game="shogi")
        except TbdbError as exc:  # a missing (or damaged) table: the fallback's turn
            self.say(f"tbdb: no table answers this position: {exc}")
            return None
        if r.outcome == "loss" and not r.distance:
            self.say("tbdb: the side to move has no legal move: it has lost")
            return "checkmate nomate" if go.mate else "bestmove resign"
        pv = self._pv(tb, position, r)
        ms = int((time.perf_counter() - started) * 1000)
        nodes = tb.stats().probes - before
        score = {"win": f"mate {r.distance}", "loss": f"mate -{r.distance}"}.get(r.outcome,
                                                                                "cp 0")
        self.emit(f"info depth 1 seldepth {len(pv)} score {score} nodes {nodes} time {ms} "
                  f"pv {' '.join(pv)}")
        if go.mate and r.outcome == "win" and self.options["MateChecksOnly"] == "true":
            self._start_mate_search(tb, position, go)
            return _LATER
        if go.mate:
            return f"checkmate {' '.join(pv)}" if r.outcome == "win" else "checkmate nomate"
        return f"bestmove {pv[0]}" + (f" ponder {pv[1]}" if len(pv) > 1 else "")

    def _start_mate_search(self, tb, position, go: GoCommand) -> None:
        """A check-only mate search (tbdb/protocols/usi_tsume.py) on a thread: the loop goes on
        reading commands, and `stop` (or the time `go mate MS` gives) ends it with `checkmate
        timeout`."""
        from tbdb.protocols.usi_tsume import TsumeSearch
        self._mate_stop = stop = threading.Event()
        self._mate_cancelled = False
        deadline = None if go.mate_ms is None else time.monotonic() + go.mate_ms / 1000

        def run() -> None:
            search = TsumeSearch(tb, stop, deadline)
            try:
                found = search.solve(position)
            except Exception as exc:  # noqa: BLE001 - said; the GUI still gets its answer
                self.say(f"error: the check-only mate search failed: {one_line(exc)}")
                found = "timeout"
            self.say(f"tbdb: check-only mate search: {search.nodes} nodes")
            # no longer busy before the answer is out: the GUI's next `go` may follow at once
            self._mate_busy = False
            if self._mate_cancelled:
                return  # gameover or quit came: no answer is owed
            self.emit("checkmate " + (" ".join(found) if isinstance(found, list) else found))

        self._mate_busy = True
        self._mate_search = threading.Thread(target=run, name="tbdb-usi-mate", daemon=True)
        self._mate_search.start()

    def _pv(self, tb, position, r) -> list[str]:
        """The stored best moves from ``position``: to the mate for a decided position, the
        first DRAW_PV plies (or to a repetition) for a draw."""
        limit = r.distance if r.outcome != "draw" else DRAW_PV
        moves, seen = [], {position.sfen}
        while (move := _best_move(r)) is not None and len(moves) < limit:
            moves.append(move)
            position = position.push(move)
            if position.sfen in seen:
                break
            seen.add(position.sfen)
            try:
                r = tb.lookup(position, game="shogi")
            except TbdbError as exc:  # (a damaged table further down): the line ends here
                self.say(f"tbdb: the line ends after {len(moves)} plies: {one_line(exc)}")
                break
        return moves

    # ------------------------------------------------------------------ resources

    def _ensure_fallback(self):
        """The fallback engine, started (again, if it ended) if need be; None once it has
        failed to start or to answer a handshake: tbdb then answers without it, having said so
        once, until the option Fallback is set again (a GUI is not kept waiting a handshake's
        timeout at every go)."""
        if self._fallback_error is not None:
            return None
        if self._fallback is not None and self._fallback.failure:  # it hung (said then)
            self._fallback_error = self._fallback.failure
            self._fallback.quit()
            self._fallback = None
            return None
        if self._fallback is not None and self._fallback.alive:
            return self._fallback
        if self._fallback is not None:  # it ended: start it again
            self._fallback.quit()
            self._fallback = None
        from tbdb.protocols.usi_fallback import FallbackEngine
        try:
            self._fallback = FallbackEngine(self.options["Fallback"], self.emit)
        except ValueError as exc:
            self._give_up_fallback(str(exc))
            return None
        return self._fallback

    def _give_up_fallback(self, message: str) -> None:
        if self._fallback is not None:
            self._fallback.quit()
            self._fallback = None
        self._fallback_error = message
        self.say(f"tbdb: {message}; positions outside the tables are answered without it "
                 f"(bestmove resign) until the option Fallback is set again")


UsiEngine.commands = {"usi": UsiEngine._usi, "isready": UsiEngine._isready,
             "setoption": UsiEngine._setoption, "usinewgame": UsiEngine._usinewgame,
             "position": UsiEngine._position, "go": UsiEngine._go, "stop": UsiEngine._stop,
             "ponderhit": UsiEngine._ponderhit, "gameover": UsiEngine._gameover,
             "quit": UsiEngine._quit}


def _best_move(r) -> str | None:
    """The stored best move; for bare kings (a draw no table stores) the first legal move."""
    if r.best_move is not None:
        return r.best_move
    if r.outcome == "draw" and r.moves:
        return r.moves[0].move
    return None


def serve(db: str | None = None, stdin: TextIO | None = None, out: TextIO | None = None) -> int:
    """Run a USI session on stdin/stdout until ``quit`` or the end of the input."""
    return UsiEngine(db, out).run(stdin if stdin is not None else sys.stdin)


def main() -> int:
    """The ``tbdb-usi`` entry point: a USI engine started with no arguments, as GUIs and
    cshogi start one; its database is $TBDB_DB (else ./tbdb.duckdb) or the option Database."""
    from tbdb.process import exit_on_signals
    exit_on_signals("tbdb-usi")
    if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
        print("tbdb-usi: a USI engine over tbdb's Shogi tables; it takes no arguments. Its "
              "database is $TBDB_DB (else ./tbdb.duckdb) or the USI option Database; the "
              "option Fallback names a USI engine for positions outside the tables. "
              "See docs/engines.md.")
        return 0
    return serve(os.environ.get("TBDB_DB") or None)


if __name__ == "__main__":
    sys.exit(main())
