"""A plain reference of the probe-file coder's pair substitution (``tbdb.probe_files.coder.
substitute_pairs``): every round counts all adjacent pairs inside a block from scratch, takes
the most frequent (count descending, then pair ascending; at most ``per_round``, each seen at
least ``min_pair`` times and, unless ``ratio`` is 0, at least 1/``ratio`` as often as the first)
and replaces them left to right.  The kernel keeps its counts up to
date instead of recounting: this is what it must equal."""
from __future__ import annotations

from collections import Counter


def naive_substitute(seq, k: int, block_slots: int, max_symbols: int, per_round: int,
                     min_pair: int, ratio: int):
    """(the substituted sequence, the pairs (left, right) of symbols k, k + 1, ...)."""
    seq = list(seq)
    size = [1] * k
    pairs: list[tuple[int, int]] = []
    while k + len(pairs) < max_symbols and len(seq) > 1:
        counts: Counter = Counter()
        at = 0
        for a, b in zip(seq, seq[1:]):
            at += size[a]
            if at % block_slots:
                counts[a, b] += 1
        best = sorted((p for p, c in counts.items() if c >= min_pair),
                      key=lambda p: (-counts[p], p))
        best = best[:min(per_round, max_symbols - k - len(pairs))]
        if ratio:
            best = [p for p in best if counts[p] * ratio >= counts[best[0]]]
        if not best:
            break
        new = {}
        for p in best:
            new[p] = k + len(pairs)
            pairs.append(p)
            size.append(size[p[0]] + size[p[1]])
        out, i, at = [], 0, 0
        while i < len(seq):
            a = seq[i]
            if i + 1 < len(seq) and (at + size[a]) % block_slots and (a, seq[i + 1]) in new:
                out.append(new[a, seq[i + 1]])
                i += 2
            else:
                out.append(a)
                i += 1
            at += size[out[-1]]
        seq = out
    return seq, pairs
