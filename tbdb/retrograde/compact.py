"""The compact retrograde mode: one state word (result and distance packed, uint8 while distances
fit) and one counter per slot while solving, 2 bytes per slot for most tables (3 once
distances pass 125 or a position has more than 254 children), and a solve that resumes from
its last saved pass after a kill.

The passes: the census and one ``children`` (or ``summaries``) pass set every state and
counter; then distance by distance a scan finds the positions resolved at it and their
``parents`` are updated (``tbdb.solvers.retrograde.compact``); finally the states are unpacked
into the usual ``IndexValues``, best moves are picked by one more ``children`` pass and the
multiplicities come from the census again.  Rows are identical to the other modes'.  A game
whose moves fit a byte (``move_bytes``: Chinese Checkers) gets the parents' moves as bytes,
and a position won in the table keeps its best move in its counter, which it no longer needs:
the last pass picks only the other positions' moves (on 5x5 with 6 pieces, most positions are
won).

**Resuming.** Inside ``resume_in(directory)`` the solve saves its state (the two arrays and
where it is) to that directory every ``SAVE_SECONDS`` at most: inside the children pass at
chunk boundaries, after it, then at the boundaries of the distance passes; a solve started
with a saved state of the same table continues from it, if its arrays still match their
sha256 (else it starts over).  A kill while saving leaves the previous save (``_Saved``).
"""
from __future__ import annotations

import contextlib
import contextvars
import hashlib
import json
import os
import shutil
import time
from pathlib import Path

import numba
import numpy as np

from tbdb import safe_json
from tbdb.retrograde.spaces import DAMAGED_SAVE, RESUMED, RESUMED_CHILDREN
from tbdb.solvers import retrograde as k
from tbdb.solvers.retrograde import compact as cp

NARROW, WIDE = 255, 65535  # the largest state word of uint8 and uint16
SAVE_SECONDS = float(os.environ.get("TBDB_SAVE_SECONDS", 600))  # pass boundaries between saves

_resume: contextvars.ContextVar[Path | None] = contextvars.ContextVar("tbdb_resume", default=None)


@contextlib.contextmanager
def resume_in(directory: str | os.PathLike | None, fresh: bool = False):
    """Compact solves inside this block save their state to ``directory`` and resume from it
    (``fresh``: a saved state is deleted first).  The directory is removed once the solve has
    finished."""
    if directory is None:
        yield
        return
    directory = Path(directory)
    if fresh and directory.exists():
        shutil.rmtree(directory)
    token = _resume.set(directory)
    try:
        yield
    finally:
        _resume.reset(token)


def bytes_per_slot(space) -> int:
    """The solve's bytes per slot (state + counter) before any widening."""
    return 1 + (1 if _counter_dtype(space) == np.uint8 else 2)


def _counter_dtype(space):
    return np.uint8 if space.max_children < NARROW else np.uint16


def _won_bytes(space) -> bool:
    """Whether the game writes its moves as bytes (``move_bytes``) that fit below the
    counter's "never": a won position's counter then keeps its best move (``cp_apply``)."""
    n = getattr(space, "move_bytes", 0)
    return 0 < n < np.iinfo(_counter_dtype(space)).max


# what a save's meta.json must hold to be resumed from: where the children pass stopped, or
# where the back-up stopped (a save that lacks one, hand-edited or hostile, is a damaged save,
# not a KeyError half-way through the resume)
_FIELDS = {True: ("children", "longest", "needs", "waits", "word"),
           False: ("level", "top", "direct", "word")}
_WORD_DTYPES = {NARROW: np.dtype(np.uint8), WIDE: np.dtype(np.uint16)}


class _Saved:
    """The saved solve of one table: ``meta.json`` names the generation of the arrays
    (``state.G.npy``, ``remaining.G.npy``) it belongs to; a new generation's arrays are
    written and synced before ``meta.json`` is replaced, so a kill at any moment leaves one
    whole save."""

    def __init__(self, directory: Path | None, space):
        self.dir = directory
        self.fingerprint = {"size": int(space.size), "max_children": int(space.max_children),
                            "max_parents": int(space.max_parents),
                            "kind": type(space).__name__}
        if _won_bytes(space):  # the counters of won positions hold best moves
            self.fingerprint["won_bytes"] = True
        self.last = time.monotonic()
        self.generation = 0

    def load(self):
        """(meta, state, remaining) of the save, None if there is none of this table;
        ``DamagedSave`` if it cannot be used (then nothing of it is)."""
        if self.dir is None or not (self.dir / "meta.json").exists():
            return None
        try:
            meta = safe_json.loads((self.dir / "meta.json").read_text())
            if not isinstance(meta, dict):
                raise ValueError("meta.json is not an object")
        except (OSError, ValueError) as exc:
            raise DamagedSave(f"meta.json: {exc}") from None
        if meta.get("fingerprint") != self.fingerprint:
            return None  # another table's save: start over
        arrays = []
        try:
            generation = int(meta["generation"])
            for field in _FIELDS["children" in meta]:
                int(meta[field])  # absent or not a number: a KeyError or ValueError
            word = int(meta["word"])
            if word not in _WORD_DTYPES:
                raise ValueError(f"word {word} is not a state word ({NARROW} or {WIDE})")
            for name in ("state", "remaining"):
                a = np.load(self.dir / f"{name}.{generation}.npy", allow_pickle=False)
                if a.shape != (self.fingerprint["size"],):
                    raise ValueError(f"{name} holds {a.shape}, not the table's slots")
                if name == "state" and a.dtype != _WORD_DTYPES[word]:
                    raise ValueError(f"state is {a.dtype}, not the {_WORD_DTYPES[word]} of "
                                     f"word {word}")
                want = meta.get("sha256", {}).get(name)  # (none in saves made before they were)
                if want is not None and _digest(a) != want:
                    raise ValueError(f"{name}.{generation}.npy does not match its sha256")
                arrays.append(a)
        except KeyError as exc:
            raise DamagedSave(f"meta.json has no {exc}") from None
        except (OSError, ValueError, TypeError, AttributeError) as exc:
            raise DamagedSave(str(exc)) from None
        self.generation = generation
        return (meta, *arrays)

    def save(self, meta: dict, state: np.ndarray, remaining: np.ndarray, force=False) -> None:
        if self.dir is None or (not force and time.monotonic() - self.last < SAVE_SECONDS):
            return
        self.dir.mkdir(parents=True, exist_ok=True)
        old, new = self.generation, self.generation + 1
        for name, array in (("state", state), ("remaining", remaining)):
            _write_synced(self.dir / f"{name}.{new}.npy",
                          lambda f, a=array: np.save(f, a, allow_pickle=False))
        text = json.dumps(dict(meta, fingerprint=self.fingerprint, generation=new,
                               sha256={"state": _digest(state),
                                       "remaining": _digest(remaining)}))
        _write_synced(self.dir / "meta.tmp.json", lambda f: f.write(text.encode()))
        os.replace(self.dir / "meta.tmp.json", self.dir / "meta.json")
        self.generation = new
        for name in ("state", "remaining"):
            (self.dir / f"{name}.{old}.npy").unlink(missing_ok=True)
        self.last = time.monotonic()

    def clear(self) -> None:
        if self.dir is not None and self.dir.exists():
            shutil.rmtree(self.dir, ignore_errors=True)


class DamagedSave(ValueError):
    """A saved solve that cannot be used: unreadable, cut short or not matching its sha256."""


def _digest(a: np.ndarray) -> str:
    """The sha256 of an array's bytes: a save is resumed only if it still holds what was
    written (a bit flipped on disk would become a wrong value, kept in every row of the
    table; a second or so even for the largest tables' state, once every 10 minutes)."""
    return hashlib.sha256(np.ascontiguousarray(a).view(np.uint8)).hexdigest()


def saved_solve(directory: str | os.PathLike) -> str | None:
    """What a compact solve saved in ``directory`` says of its progress, for ``tbdb status``:
    'saved at distance N (M so far the longest)', 'saved in its first (children) pass, at slot
    S of N', or 'solved, not yet written'; None when
    there is no readable save."""
    try:
        meta = safe_json.loads((Path(directory) / "meta.json").read_text())
        if "children" in meta:
            at, size = int(meta["children"]), int(meta["fingerprint"]["size"])
            return f"saved in its first (children) pass, at slot {at:,} of {size:,}"
        level, top = int(meta["level"]), int(meta["top"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    if level > top:
        return "solved, its rows not yet written"
    return f"saved at distance {level} (the longest so far {top})"


def _write_synced(path: Path, write) -> None:
    with open(path, "wb") as f:
        write(f)
        f.flush()
        os.fsync(f.fileno())


def solve_compact(space, progress) -> "CompactValues":
    """An index table solved compactly: its values as ``CompactValues`` (the state words,
    unpacked and given best moves chunk by chunk as they are written)."""
    saved = _Saved(_resume.get(), space)
    try:
        loaded = saved.load()
    except DamagedSave as exc:  # never resumed from: the table is solved from the start
        progress(f"{DAMAGED_SAVE}{exc}", 0, 0)
        saved.clear()
        loaded = None
    meta = None
    if loaded is not None and "children" in loaded[0]:  # saved inside the children pass
        progress(RESUMED_CHILDREN, int(loaded[0]["children"]), int(space.size))
        meta, state, remaining = _initial(space, progress, int(loaded[0]["word"]), saved,
                                          loaded)
        if meta is None:  # a narrow save whose external distances outgrew it
            meta, state, remaining = _initial(space, progress, WIDE, saved)
        saved.save(meta, state, remaining, force=True)
    elif loaded is not None:
        meta, state, remaining = loaded
        progress(RESUMED, int(meta["level"]), int(meta["top"]))
    else:
        meta, state, remaining = _initial(space, progress, NARROW, saved)
        if meta is None:  # an external distance too long for a uint8 state
            meta, state, remaining = _initial(space, progress, WIDE, saved)
        saved.save(meta, state, remaining, force=True)
    finished = int(meta["level"]) > int(meta["top"])
    state, meta = _back_up(space, meta, state, remaining, saved, progress)
    if not finished:
        # the finished state, so that a kill while the table is written (best moves are
        # picked then: hours on the biggest tables) resumes at the write, not at the solve
        saved.save(meta, state, remaining, force=True)
    won = remaining if _won_bytes(space) else None
    del remaining
    return CompactValues(space, state, NARROW if state.dtype == np.uint8 else WIDE,
                         _multiplicity(space), saved, progress, won)


class CompactValues:
    """A compact solve's values: the finished state word of every slot (1-2 bytes) and the
    census's multiplicities (1 byte), unpacked and given their best moves ``chunks`` at a
    time, so writing a table of 2.4·10^9 slots holds 2-3 bytes a slot, not the 6 of whole
    output arrays.  ``result``, ``distance``, ``best`` and ``multiplicity`` are the whole
    arrays (``IndexValues``'s fields), made on first use for readers that need them (a table
    other tables read, the conformance tests).  ``stored()`` drops the saved solve once the
    rows are committed."""

    def __init__(self, space, state, word: int, multiplicity, saved: _Saved, progress,
                 won=None):
        self.space, self.state, self.word = space, state, word
        self.won = won  # the counters: best moves of positions won in the table, as bytes
        self.multiplicity = multiplicity
        self.saved, self.progress = saved, progress
        self.mode, self.estimate = "compact", None
        self.stream_peak = 0  # the process's largest RSS seen while chunks streamed
        self._result = self._distance = self._best = None

    @property
    def size(self) -> int:
        return len(self.state)

    @property
    def result(self) -> np.ndarray:
        if self._result is None:
            self._result, self._distance = _unpack(self.state, self.word)
        return self._result

    @property
    def distance(self) -> np.ndarray:
        self.result
        return self._distance

    @property
    def best(self) -> np.ndarray:
        if self._best is None:
            from tbdb.retrograde.spaces import CHUNK_SLOTS
            self._best = _whole_best(self.chunks(CHUNK_SLOTS), self.size)
        return self._best

    def chunks(self, step: int, best: bool = True):
        """(lo, result, distance, best or None, multiplicity) of slots lo..lo+step, in order;
        best moves are picked here unless the whole arrays exist."""
        from tbdb.retrograde.memory import rss
        from tbdb.retrograde.spaces import CHUNK_SLOTS
        step = min(step, CHUNK_SLOTS)
        size = self.size
        for lo in range(0, size, step):
            hi = min(size, lo + step)
            if self._result is not None:
                result, distance = self._result[lo:hi], self._distance[lo:hi]
            else:
                result, distance = np.empty(hi - lo, np.int8), np.empty(hi - lo, np.int16)
                cp.cp_unpack(self.state, lo, self.word, result, distance)
            moves = None
            if best and self._best is not None:
                moves = self._best[lo:hi]
            elif best:
                moves = _pick_chunk(self.space, self.state, self.word, result, lo,
                                    np.empty(hi - lo, np.int32), self.won)
                self.progress("best moves", hi, size)
            yield lo, result, distance, moves, self.multiplicity[lo:hi]
            self.stream_peak = max(self.stream_peak, rss())

    def stored(self) -> None:
        """The table's rows are committed: its saved solve is no longer needed."""
        self.saved.clear()

    def release(self) -> None:
        from tbdb.retrograde.spaces import release
        release(self.space)


def _initial(space, progress, top: int, saved: "_Saved", resumed=None):
    """(meta, state, remaining) after the census and the children pass; all None if an
    external distance does not fit a state of largest word ``top``.  The pass saves where it
    is at chunk boundaries (every ``SAVE_SECONDS``: on the largest tables it runs long) and
    continues from a ``resumed`` save of itself."""
    size = space.size
    if resumed is not None:
        at, state, remaining = resumed
        start, longest, needs, waits = (int(at["children"]), int(at["longest"]),
                                        int(at["needs"]), bool(at["waits"]))
    else:
        state = np.empty(size, np.uint8 if top == NARROW else np.uint16)
        remaining = np.zeros(size, _counter_dtype(space))
        start, longest, needs, waits = 0, 0, 0, False
    never = np.iinfo(remaining.dtype).max
    from tbdb.retrograde.spaces import CHUNK_SLOTS, batches, children_batch
    step = children_batch(space.max_children)
    summaries = getattr(space, "summaries", None)
    for lo in range(start, size, CHUNK_SLOTS):
        hi = min(size, lo + CHUNK_SLOTS)
        kind, _ = space.census(lo, hi)
        cp.cp_census(kind, lo, top, state)
        real = lo + np.flatnonzero(kind == 0)
        del kind
        for batch in batches(real, step):
            if summaries is not None:
                distinct, ext_loss, _, ext_win, _, ext_draw = summaries(batch)
                out = cp.cp_init_summaries(batch, distinct, ext_loss, ext_win, ext_draw, top,
                                           state, remaining, never)
            else:
                count, child, _, ext_result, ext_distance = space.children(batch)
                out = cp.cp_init(batch, count, child, ext_result, ext_distance,
                                 space.max_children, top, state, remaining, never)
            longest, needs = max(longest, int(out[0])), max(needs, int(out[1]))
            waits = waits or bool(out[2])
            if needs > cp.limit(top):
                return None, None, None
        progress("children", hi, size)
        if hi < size:
            saved.save({"children": hi, "longest": longest, "needs": needs, "waits": waits,
                        "word": top}, state, remaining)
    meta = {"level": 0, "top": longest, "direct": not waits, "word": top}
    return meta, state, remaining


def _back_up(space, meta: dict, state, remaining, saved: _Saved, progress):
    """Distance by distance until no position is resolved any later: (state, meta) where the
    state may be a widened copy and meta says where the solve ended."""
    from tbdb.retrograde.spaces import CHUNK_SLOTS, batches, parents_batch
    size = space.size
    never = np.iinfo(remaining.dtype).max
    pstep = parents_batch(space.max_parents)
    distinct = getattr(space, "parents_distinct", False)
    as_bytes = _won_bytes(space)
    direct = bool(meta["direct"])
    level, top, word = int(meta["level"]), int(meta["top"]), int(meta["word"])
    parts = numba.get_num_threads()
    while level <= top:
        if level + 1 > cp.limit(word):
            if word == WIDE:
                raise ValueError(f"a distance above {cp.limit(WIDE)} plies: more than the "
                                 f"int16 distances of a table hold")
            wide = np.empty(size, np.uint16)
            cp.cp_widen(state, wide, NARROW, WIDE)
            state, word = wide, WIDE
        for lo in range(0, size, CHUNK_SLOTS << 2):
            hi = min(size, lo + (CHUNK_SLOTS << 2))
            frontier = cp.cp_scan(state, 2 * level, 2 * level + 1, lo, hi)
            for batch in batches(frontier, pstep):
                rows = space.parents(batch, as_bytes=True) if as_bytes else space.parents(batch)
                count, parent = rows[0], rows[1]
                codes = rows[2] if as_bytes else parent  # (not read without bytes)
                if not distinct:
                    k.dedupe_rows(count, parent, codes, as_bytes)
                top = max(top, int(cp.cp_apply(batch, count, parent, codes, state, remaining,
                                               level, word, never, direct, parts, as_bytes)))
        if not direct:
            top = max(top, _pending_losses(space, state, level, word))
        level += 1
        progress("levels", level, top + 1)
        meta = {"level": level, "top": top, "direct": direct, "word": word}
        saved.save(meta, state, remaining)
    return state, meta


def _pending_losses(space, state, level: int, word: int) -> int:
    """Resolve the positions whose last in-table child was won at ``level``: lost at
    1 + max(level, largest external win), the latter asked of the game again."""
    from tbdb.retrograde.spaces import CHUNK_SLOTS, batches, children_batch
    pending = word - 3
    top = 0
    summaries = getattr(space, "summaries", None)
    step = children_batch(space.max_children)
    for lo in range(0, space.size, CHUNK_SLOTS << 2):
        found = cp.cp_scan(state, pending, pending, lo, min(space.size, lo + (CHUNK_SLOTS << 2)))
        for batch in batches(found, step):
            if summaries is not None:
                ext_win = np.asarray(summaries(batch)[3], np.int16)
            else:
                count, child, _, ext_result, ext_distance = space.children(batch)
                live = np.arange(child.shape[1])[None, :] < count[:, None]
                won = live & (child < 0) & (ext_result == k.WIN)
                ext_win = np.where(won, ext_distance, -1).max(axis=1, initial=-1)
                ext_win = ext_win.astype(np.int16)
            top = max(top, int(cp.cp_losses(batch, ext_win, level, state)))
    return top


def _unpack(state, word: int):
    from tbdb.retrograde.spaces import CHUNK_SLOTS
    size = len(state)
    result = np.empty(size, np.int8)
    distance = np.empty(size, np.int16)
    for lo in range(0, size, CHUNK_SLOTS):
        hi = min(size, lo + CHUNK_SLOTS)
        cp.cp_unpack(state, lo, word, result[lo:hi], distance[lo:hi])
    return result, distance


def _pick_chunk(space, state, word: int, result, lo: int, out, won=None) -> np.ndarray:
    """The best moves of slots lo..lo+len(out) (``result``: their values) into ``out`` int32,
    the children's values read from the state words; ``won``: the counters, whose bytes give
    the best moves of positions won in the table (the rest are picked)."""
    from tbdb.retrograde.spaces import batches, children_batch
    out.fill(k.NO_MOVE)
    solved = (result >= k.LOSS) & (result <= k.WIN)
    if won is not None:
        part = won[lo:lo + len(out)]
        kept = (result == k.WIN) & (part != np.iinfo(won.dtype).max)
        at = np.flatnonzero(kept)
        out[at] = space.moves_of_bytes(lo + at, part[at])
        solved &= ~kept
    rows = lo + np.flatnonzero(solved)
    pick_best = getattr(space, "pick_best", None)
    if pick_best is not None:  # the game's own: moves generated only up to the best one
        pick_best(rows, lo, state, word, out)
        return out
    for batch in batches(rows, children_batch(space.max_children)):
        count, child, move, ext_result, ext_distance = space.children(batch)
        cp.cp_pick_best_state(batch, lo, count, child, move, ext_result, ext_distance, state,
                              word, out)
    return out


def _whole_best(chunks, size: int) -> np.ndarray:
    """Every slot's best move from ``CompactValues.chunks``, int16 while every code fits (CDC,
    Chinese Checkers), widened to int32 at the first that does not."""
    best = np.full(size, k.NO_MOVE, np.int16)
    for lo, _, _, part, _ in chunks:
        if best.dtype == np.int16 and len(part) and part.max() > np.iinfo(np.int16).max:
            best = best.astype(np.int32)
        best[lo:lo + len(part)] = part
    return best


def _multiplicity(space) -> np.ndarray:
    """Multiplicities from the census again, int8 while they fit (they count a position's
    symmetric images: a handful), else int16."""
    from tbdb.retrograde.spaces import CHUNK_SLOTS
    multiplicity = np.empty(space.size, np.int8)
    for lo in range(0, space.size, CHUNK_SLOTS):
        hi = min(space.size, lo + CHUNK_SLOTS)
        part = space.census(lo, hi)[1]
        if multiplicity.dtype == np.int8 and len(part) and part.max() > np.iinfo(np.int8).max:
            multiplicity = multiplicity.astype(np.int16)
        multiplicity[lo:hi] = part
    return multiplicity
