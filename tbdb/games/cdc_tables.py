"""Chinese Dark Chess tables for the generic engine: plan, solve, store, load, verify, probe."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from tbdb.solvers import cdc as kernels
from tbdb.solvers import retrograde
from tbdb.errors import BuildOptionError, MissingTableError, reject_options
from tbdb.games.cdc import (MAX_PIECES, Material, Move, Position, all_materials)
from tbdb.results import OUTCOMES, LookupResult, MoveResult, outcome_name

DEFAULT_MAX_PIECES = 3
# plain lists: indexing them from Python is several times faster than indexing numpy arrays
_SYM = kernels.SYM.tolist()
_CAPTURE = kernels.CAPTURE_FLAG
_MOVE_TEXT = [str(Move.from_code(code)) for code in range(2 * _CAPTURE)]


@dataclass
class CdcSolved:
    """One solved material table.  Positions are ``side * size + idx``; ``result`` is
    INVALID where an index is not canonical (``orbit`` 0 there)."""
    material: Material
    result: np.ndarray  # int8[2 * size]
    distance: np.ndarray  # int16[2 * size]
    best: np.ndarray  # int16[2 * size], move codes on the canonical board
    orbit: np.ndarray  # int8[size], placements an index stands for (0: not canonical)


def _closure(material: Material) -> set[Material]:
    """A canonical material and every table its captures lead to, recursively."""
    out: set[Material] = set()
    stack = [material.canonical()[0]]
    while stack:
        m = stack.pop()
        if m in out:
            continue
        out.add(m)
        stack.extend(c.canonical()[0] for c in m.capture_children().values() if c is not None)
    return out


class CdcGame:
    name = "cdc"

    # ------------------------------------------------------------------ planning

    def plan(self, max_pieces: int | None = None, material: str | None = None,
             **other) -> list[str]:
        """Canonical tables to build, smaller first.  ``material`` builds one table (either
        orientation) and what it needs; otherwise every table up to ``max_pieces``."""
        reject_options("cdc build", other)
        if material is not None:
            if max_pieces is not None:
                raise BuildOptionError("give either a material or a maximum number of pieces, "
                                       f"not both (material={material!r}, "
                                       f"max_pieces={max_pieces!r})")
            m = Material.parse(material)
            m.desc  # noqa: B018 - raises InvalidMaterialError beyond what the index supports
            tables = _closure(m)
        else:
            max_pieces = DEFAULT_MAX_PIECES if max_pieces is None else max_pieces
            if not isinstance(max_pieces, int) or not 2 <= max_pieces <= MAX_PIECES:
                raise BuildOptionError(f"max_pieces must be an integer from 2 to {MAX_PIECES}, "
                                       f"not {max_pieces!r}")
            tables = {m for m in all_materials(max_pieces) if m.is_canonical}
        return [m.name for m in sorted(tables, key=lambda m: (m.pieces, m.name))]

    def dependencies(self, table: str) -> list[str]:
        m = Material.parse(table)
        return sorted({c.canonical()[0].name for c in m.capture_children().values()
                       if c is not None})

    # ------------------------------------------------------------------ solving

    def _edges(self, m: Material, valid: np.ndarray, deps: dict[str, CdcSolved]):
        """The kernel's edge arrays, reading capture children from the solved ``deps``."""
        k = m.pieces
        codes = m.slot_codes
        children = m.capture_children()
        slot_child = np.zeros((k, k), np.int64)
        cdesc = np.zeros((k, kernels.DESC_LEN), np.int64)
        cswap = np.zeros(k, np.int64)
        ckind = np.zeros(k, np.int64)
        coff = np.zeros(k, np.int64)
        csize = np.zeros(k, np.int64)
        parts_res, parts_dist, offset, seen = [], [], 0, {}
        for o, code in enumerate(codes):
            if code not in children:
                continue  # nobody on the board can capture this piece
            child = children[code]
            if child is None:
                ckind[o] = 1  # the victim's side has no piece left
                continue
            cm, swap = child.canonical()
            solved = deps[cm.name]
            if cm.name not in seen:
                seen[cm.name] = offset
                parts_res.append(solved.result)
                parts_dist.append(solved.distance)
                offset += len(solved.result)
            cdesc[o] = cm.desc
            cswap[o] = swap
            coff[o] = seen[cm.name]
            csize[o] = cm.size
            free = list(cm.slot_codes)
            taken = [False] * len(free)
            for j, cj in enumerate(codes):
                if j == o:
                    continue
                want = (1 - cj // 7) * 7 + cj % 7 if swap else cj
                slot = next(s for s in range(len(free)) if not taken[s] and free[s] == want)
                taken[slot] = True
                slot_child[o, j] = slot
        cres = np.concatenate(parts_res) if parts_res else np.zeros(1, np.int8)
        cdist = np.concatenate(parts_dist) if parts_dist else np.zeros(1, np.int16)
        width = 4 * max(len(m.red), len(m.black))
        return kernels._table_edges(m.desc, m.size, valid, width, slot_child, cdesc, cswap,
                                    ckind, coff, csize, cres, cdist)

    def solve(self, table: str, deps: dict[str, CdcSolved]) -> CdcSolved:
        m = Material.parse(table)
        valid, orbit = kernels._table_census(m.desc, m.size)
        edges = self._edges(m, valid, deps)
        result, distance, best = retrograde.solve_wdl(np.concatenate([valid, valid]), *edges)
        return CdcSolved(m, result, distance, best, orbit)

    def verify(self, table: str, solved: CdcSolved, deps: dict[str, CdcSolved]) -> list[str]:
        """Texts of positions whose stored value one ply of moves contradicts."""
        m = solved.material
        valid = (solved.orbit > 0).astype(np.int8)
        edges = self._edges(m, valid, deps)
        bad = retrograde.check_wdl(np.concatenate([valid, valid]), solved.result,
                                   solved.distance, *edges)
        return [self._text(m, int(i)) for i in np.flatnonzero(bad)[:20]], int(bad.sum())

    @staticmethod
    def _text(m: Material, i: int) -> str:
        side, idx = divmod(i, m.size)
        sq = kernels._unrank_many(m.desc, np.array([idx], np.int64))[0]
        board = [-1] * 32
        for code, s in zip(m.slot_codes, sq):
            board[int(s)] = code
        return Position(tuple(board), side).text

    # ------------------------------------------------------------------ storage

    def rows(self, solved: CdcSolved, store) -> tuple[list[tuple[str, pa.Table]], int]:
        m = solved.material
        idx = np.flatnonzero(solved.orbit).astype(np.int64)
        n = len(idx)
        both = np.concatenate([idx, idx + m.size])
        values = pa.table({
            "material_id": pa.array(np.full(2 * n, m.material_id, np.int32)),
            "side": pa.array(np.repeat(np.array([0, 1], np.int8), n)),
            "idx": pa.array(np.concatenate([idx, idx]).astype(np.int32)),
            "result": pa.array(solved.result[both]),
            "distance": pa.array(solved.distance[both]),
            "best_move": pa.array(solved.best[both]),
            "multiplicity": pa.array(np.concatenate([solved.orbit[idx], solved.orbit[idx]])),
        })
        meta = pa.table({
            "material_id": pa.array([m.material_id], pa.int32()),
            "material": [m.name], "swapped_material": [m.swapped().name],
            "pieces": pa.array([m.pieces], pa.int16()), "letters": [m.letters],
            "shape": [m.shape], "size": pa.array([m.size], pa.int64()),
        })
        loads = [("INSERT INTO cdc_tables SELECT * FROM {src}", meta),
                 ("INSERT INTO cdc_values SELECT * FROM {src}", values)]
        known = store.query("SELECT 1 FROM cdc_squares WHERE shape = ? LIMIT 1", [m.shape])
        if not known:
            sq = kernels._unrank_many(m.desc, idx)
            text = kernels._patterns(sq).view("S36").ravel().astype(str)
            squares = {"shape": pa.array([m.shape] * n), "idx": pa.array(idx.astype(np.int32)),
                       "pattern": pa.array(text)}
            for j in range(4):
                squares[f"s{j}"] = (pa.array(sq[:, j].astype(np.int16)) if j < m.pieces
                                    else pa.nulls(n, pa.int16()))
            loads.append(("INSERT INTO cdc_squares SELECT * FROM {src}", pa.table(squares)))
        return loads, 2 * n

    def deletes(self, table: str) -> list[tuple[str, list]]:
        mid = Material.parse(table).material_id
        return [("DELETE FROM cdc_values WHERE material_id = ?", [mid]),
                ("DELETE FROM cdc_tables WHERE material_id = ?", [mid])]

    def load(self, table: str, store) -> CdcSolved:
        m = Material.parse(table)
        cols = store.con.execute(
            "SELECT side, idx, result, distance, best_move, multiplicity FROM cdc_values "
            "WHERE material_id = ?", [m.material_id]).fetchnumpy()
        if len(cols["idx"]) == 0:
            raise MissingTableError(f"CDC table {table!r} is not in {store.path!r}")
        size = m.size
        at = cols["side"].astype(np.int64) * size + cols["idx"].astype(np.int64)
        result = np.full(2 * size, retrograde.INVALID, np.int8)
        distance = np.zeros(2 * size, np.int16)
        best = np.full(2 * size, -1, np.int16)
        orbit = np.zeros(size, np.int8)
        result[at] = cols["result"]
        distance[at] = cols["distance"]
        best[at] = cols["best_move"]
        orbit[cols["idx"]] = cols["multiplicity"]
        return CdcSolved(m, result, distance, best, orbit)

    # ------------------------------------------------------------------ probing

    def parse(self, text: str) -> Position:
        return Position.parse(text)

    def prober(self, store) -> CdcProber:
        return CdcProber(self, store)


class CdcProber:
    """Answers lookups from one store; tables are read into memory on first use."""

    def __init__(self, game: CdcGame, store):
        self.game = game
        self.store = store
        self.tables: dict[str, CdcSolved] = {}
        self._sq = np.empty(16, np.int64)
        self._tmp = np.empty(16, np.int64)
        self._materials: dict[tuple, tuple] = {}

    def table(self, material: Material) -> CdcSolved:
        name = material.name
        solved = self.tables.get(name)
        if solved is None:
            self.store.require_done("cdc", name, f"CDC table {name!r}",
                                    f"tbdb build cdc --material {name}")
            solved = self.tables[name] = self.game.load(name, self.store)
        return solved

    def _entry(self, board) -> tuple:
        """(canonical material, colour swap, solved table) of a board's material, cached."""
        key = tuple(sorted(c for c in board if c >= 0))
        entry = self._materials.get(key)
        if entry is None:
            material = Position(tuple(board), 0).material
            cm, swap = material.canonical()
            entry = self._materials[key] = (cm, int(swap), cm.desc, cm.size, self.table(cm))
        return entry

    def value(self, position: Position) -> tuple[int, int, int]:
        """(result, distance, best move code in the position's orientation)."""
        board = position.board
        red = any(0 <= c < 7 for c in board)
        black = any(c >= 7 for c in board)
        if not red or not black:
            # one side has nothing left: the game is over, lost for a mover without pieces
            lost = not (red if position.side == 0 else black)
            return (-1 if lost else 1), 0, -1
        cm, swap, desc, size, solved = self._entry(board)
        kernels._slots_of_board(np.array(board, np.int8), desc, swap, self._sq)
        idx, sym = kernels._canonical(self._sq, desc, self._tmp)
        i = (position.side ^ swap) * size + idx
        best = int(solved.best[i])
        if best >= 0 and sym:
            # the stored move is on the canonical board; symmetries are their own inverses
            image = _SYM[sym]
            best = (best & _CAPTURE) | image[(best & 1023) >> 5] << 5 | image[best & 31]
        return int(solved.result[i]), int(solved.distance[i]), best

    def lookup(self, text: str | Position, **other) -> LookupResult:
        reject_options("cdc lookup", other)
        if isinstance(text, Position):
            position, text = text, text.text
        else:
            position = Position.parse(text)  # accepts only the canonical spelling of a text
        result, distance, best = self.value(position)
        return LookupResult(
            game="cdc", position=text, outcome=OUTCOMES[result], distance=distance,
            best_move=_MOVE_TEXT[best] if best >= 0 else None,
            moves_fn=lambda: self._moves(position))

    def _moves(self, position: Position) -> list[MoveResult]:
        out = []
        for move in position.legal_moves():
            result, distance, _ = self.value(position.push(move))
            out.append(MoveResult(str(move), outcome_name(-result), distance + 1))
        return sorted(out, key=MoveResult.sort_key)

    def lookup_arrays(self, boards: np.ndarray, sides: np.ndarray):
        """Batch probe: boards int8[n, 32] of piece codes (a1 first, -1 empty), sides int8[n]
        (0 red, 1 black to move) -> (result int8[n], distance int16[n], best move code
        int16[n], in each board's own orientation)."""
        boards = np.ascontiguousarray(boards, np.int8)
        sides = np.ascontiguousarray(sides, np.int8)
        if boards.ndim != 2 or boards.shape[1] != 32 or sides.shape != (len(boards),):
            raise ValueError(f"expected boards of shape (n, 32) and sides of shape (n,), got "
                             f"{boards.shape} and {sides.shape}")
        n = len(boards)
        res = np.empty(n, np.int8)
        dist = np.zeros(n, np.int16)
        best = np.full(n, -1, np.int16)
        keys = kernels._material_keys(boards)
        order = np.argsort(keys, kind="stable")
        sorted_keys = keys[order]
        starts = np.flatnonzero(np.r_[True, sorted_keys[1:] != sorted_keys[:-1]])
        for start, end in zip(starts, np.r_[starts[1:], n]):
            rows = order[start:end]
            key = sorted_keys[start]
            if key < 0:  # a side has no piece: the game is over
                red_missing = key == -1
                res[rows] = np.where(sides[rows] == (0 if red_missing else 1), -1, 1)
                continue
            cm, swap, desc, size, solved = self._entry(boards[rows[0]].tolist())
            sub_res = np.empty(len(rows), np.int8)
            sub_dist = np.empty(len(rows), np.int16)
            sub_best = np.empty(len(rows), np.int16)
            kernels._probe_many(boards[rows], sides[rows], desc, swap, size, solved.result,
                                solved.distance, solved.best, sub_res, sub_dist, sub_best)
            res[rows], dist[rows], best[rows] = sub_res, sub_dist, sub_best
        return res, dist, best
