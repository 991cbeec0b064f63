"""Chinese Dark Chess tables and their index spaces.

A table is a canonical material (``KCvP``; it also answers the colour-swapped ``PvKC``).  Its
slots are ``side * size + idx`` (side to move 0 red / 1 black, idx the placement index of
``solvers/cdc/index.py``); captures lead to smaller tables, whose values the ``children`` kernel
(``solvers/cdc/edges.py``) reads.
"""
from __future__ import annotations

import numpy as np

from tbdb.games.cdc.material import Material
from tbdb.solvers.cdc import edges as edge_kernels
from tbdb.solvers.cdc import index as index_kernels


def closure(material: Material) -> set[Material]:
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


class CdcSpace:
    """The index space of one material table (``docs/kernel-contract.md``).  ``deps`` maps the
    canonical names of the capture children to their solved ``IndexValues``."""

    def __init__(self, m: Material, deps: dict):
        self.m = m
        self.name = m.name  # what a memory-budget refusal quotes
        self.half = m.size
        self.size = 2 * m.size
        self.max_children = 8 * max(len(m.red), len(m.black))  # steps and cannon jumps
        self.max_parents = 4 * m.pieces
        k = m.pieces
        codes = m.slot_codes
        children = m.capture_children()
        self.slot_child = np.zeros((k, k), np.int64)
        self.cdesc = np.zeros((k, index_kernels.DESC_LEN), np.int64)
        self.cswap = np.zeros(k, np.int64)
        self.ckind = np.zeros(k, np.int64)
        self.coff = np.zeros(k, np.int64)
        self.csize = np.zeros(k, np.int64)
        parts_res, parts_dist, offset, seen = [], [], 0, {}
        for o, code in enumerate(codes):
            if code not in children:
                continue  # nobody on the board can capture this piece
            child = children[code]
            if child is None:
                self.ckind[o] = 1  # the victim's side has no piece left
                continue
            cm, swap = child.canonical()
            solved = deps[cm.name]
            if cm.name not in seen:
                seen[cm.name] = offset
                parts_res.append(solved.result)
                parts_dist.append(solved.distance)
                offset += len(solved.result)
            self.cdesc[o] = cm.desc
            self.cswap[o] = swap
            self.coff[o] = seen[cm.name]
            self.csize[o] = cm.size
            # where each remaining piece goes among the child table's slots
            free = list(cm.slot_codes)
            taken = [False] * len(free)
            for j, cj in enumerate(codes):
                if j == o:
                    continue
                want = (1 - cj // 7) * 7 + cj % 7 if swap else cj
                slot = next(s for s in range(len(free)) if not taken[s] and free[s] == want)
                taken[slot] = True
                self.slot_child[o, j] = slot
        self.cres = np.concatenate(parts_res) if parts_res else np.zeros(1, np.int8)
        self.cdist = np.concatenate(parts_dist) if parts_dist else np.zeros(1, np.int16)

    def census(self, lo: int, hi: int):
        h = self.half
        if lo == 0 and hi == 2 * h:  # both sides share the placements: classify them once
            kind, mult = edge_kernels.census(self.m.desc, h, 0, h)
            return np.concatenate([kind, kind]), np.concatenate([mult, mult])
        return edge_kernels.census(self.m.desc, h, lo, hi)

    def children(self, positions: np.ndarray):
        n, w = len(positions), self.max_children
        # empty, not zeros: the kernel writes every entry a reader may look at (up to count)
        out = (np.empty(n, np.int16), np.empty((n, w), np.int64), np.empty((n, w), np.int32),
               np.empty((n, w), np.int8), np.empty((n, w), np.int16))
        edge_kernels.children(self.m.desc, self.half, positions, self.slot_child, self.cdesc,
                              self.cswap, self.ckind, self.coff, self.csize, self.cres, self.cdist,
                              *out)
        return out

    def parents(self, positions: np.ndarray):
        n = len(positions)
        out = (np.zeros(n, np.int32), np.zeros((n, self.max_parents), np.int64))
        edge_kernels.parents(self.m.desc, self.half, positions, *out)
        return out
