"""THE key binary search: exact keys are rows of int64 words sorted lexicographically (word 0,
then word 1, ...).  The level-by-level solve finds children by their two key words; lookups in
stored key tables by (key0, key1, constraint).  A query compares as many words as it has, so
a two-word query also finds its row among wider keys sorted by those words first."""
import numpy as np

from tbdb.solvers.jit import kernel, parallel_kernel, prange


@kernel
def _key_less(keys, i, key):
    """Whether row i of keys sorts before ``key`` (on key's words)."""
    for w in range(key.shape[0]):
        a = keys[i, w]
        if a != key[w]:
            return a < key[w]
    return False


@kernel
def find_key(keys, key):
    """Row of ``key`` (int64[w]) in keys int64[n, >= w] sorted by their first w words, or -1."""
    lo = 0
    hi = keys.shape[0]
    while lo < hi:
        mid = (lo + hi) // 2
        if _key_less(keys, mid, key):
            lo = mid + 1
        else:
            hi = mid
    if lo == keys.shape[0]:
        return -1
    for w in range(key.shape[0]):
        if keys[lo, w] != key[w]:
            return -1
    return lo


@parallel_kernel
def find_keys(keys, query):
    """``find_key`` for each row of query int64[m, w]: int64[m] rows, -1 where absent."""
    out = np.empty(query.shape[0], np.int64)
    for i in prange(query.shape[0]):
        out[i] = find_key(keys, query[i])
    return out
