"""Per-row helpers of the engine, also used by games' kernels: a short row sorted without
repeats, a row of parents with their move codes deduplicated, a whole ``parents`` batch
deduplicated."""
import numpy as np

from tbdb.solvers.jit import kernel, parallel_kernel, prange


@kernel
def sorted_unique(values, n, scratch):
    """Copy values[:n] into scratch sorted, without repeats; return how many (insertion sort:
    rows are short)."""
    m = 0
    for e in range(n):
        v = values[e]
        j = m
        while j > 0 and scratch[j - 1] > v:
            j -= 1
        if j > 0 and scratch[j - 1] == v:
            continue
        for t in range(m, j, -1):
            scratch[t] = scratch[t - 1]
        scratch[j] = v
        m += 1
    return m


@kernel
def drop_repeated_parents(parent, code, m, buf):
    """Sort parent[:m] and drop repeated slots in place, each keeping its smallest code; the
    new count.  (slot, code) packs into one int64: slots < 2^32, codes < 2^31."""
    for e in range(m):
        parent[e] = (parent[e] << 31) | code[e]
    n = sorted_unique(parent, m, buf)
    out = 0
    last = np.int64(-1)
    for e in range(n):
        p = buf[e] >> 31
        if p != last:
            parent[out] = p
            code[out] = buf[e] & 0x7FFFFFFF
            out += 1
            last = p
    return out


@parallel_kernel
def dedupe_rows(count, rows, codes, with_codes):
    """Sort each row of a ``parents`` batch and drop repeats, in place (count updated).  With
    codes, a parent reached by several moves keeps the smallest code (the first in order)."""
    k = count.shape[0]
    width = rows.shape[1]
    nchunk = (k + 1023) // 1024
    scratch = np.empty((nchunk, max(width, 1)), np.int64)
    for ch in prange(nchunk):
        buf = scratch[ch]
        for r in range(ch * 1024, min(k, (ch + 1) * 1024)):
            if not with_codes:
                n = sorted_unique(rows[r], count[r], buf)
                for e in range(n):
                    rows[r, e] = buf[e]
                count[r] = n
                continue
            count[r] = drop_repeated_parents(rows[r], codes[r], count[r], buf)
