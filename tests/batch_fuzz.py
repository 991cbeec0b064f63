"""Hostile arrays for one game's batch form (``tb.lookup_arrays``), run as a script by
``test_batch_fuzz.py`` so that a crash of a kernel fails that test instead of killing pytest.

    python -m tests.batch_fuzz DB GAME

prints one JSON line per case, before the case runs ({"case": ...}) and after it ({"case": ...,
"outcome": "error" | "answer", ...}); a case with no outcome line crashed the process.
"""
from __future__ import annotations

import json
import sys

import numpy as np

import tbdb
from tbdb import games
SIGNED = (np.int8, np.int16, np.int32, np.int64)
UNSIGNED = (np.uint8, np.uint64)


def extremes(dtype) -> list[int]:
    """The values of ``dtype`` that no encoding uses: its ends, -1 where it has one, and the
    largest int64 and uint64 (where one sums a row, they wrap)."""
    info = np.iinfo(dtype)
    out = [int(info.min), int(info.max)]
    if info.min < 0:
        out.append(-1)
    return [v for v in out if v != 0]


def cases(g, arrays: tuple[np.ndarray, ...]):
    """(name, arrays, accept) per case: ``accept`` says whether an answer may come back (only
    for values a valid encoding may hold, and for layouts that change nothing)."""
    two = tuple(np.concatenate([a, a]) for a in arrays)  # rows 0 and 1: the sample
    for k, base in enumerate(two):
        signed = (base < 0).any()  # the sample itself needs a signed type (-1: empty)
        for dtype in SIGNED + (() if signed else UNSIGNED):
            for v in extremes(dtype):
                for where in ("cell", "row"):
                    a = base.astype(dtype)
                    if where == "cell":
                        a.reshape(2, -1)[1, 0] = v
                    else:
                        a[1] = v
                    yield f"array {k} {np.dtype(dtype).name} {where} = {v}", _with(two, k, a), \
                        v == -1
        big = base.astype(np.int64)
        big[1] = 2 ** 63 - 1
        yield f"array {k} int64 row = 2**63-1", _with(two, k, big), False
        if not signed:
            big = base.astype(np.uint64)
            big[1] = 2 ** 64 - 1
            yield f"array {k} uint64 row = 2**64-1", _with(two, k, big), False
        if base.ndim > 1:  # two big values and a small one: a sum that wraps past the check
            wrap = base.astype(np.int64)
            wrap.reshape(2, -1)[1, :3] = [2 ** 63 - 1, 2 ** 63 - 1, 2]
            yield f"array {k} int64 wrapping row = 2**63-1", _with(two, k, wrap), False
            if not signed:
                wrap = base.astype(np.uint64)
                wrap.reshape(2, -1)[1, :3] = [2 ** 64 - 1, 2 ** 64 - 1, 2]
                yield f"array {k} uint64 wrapping row = 2**64-1", _with(two, k, wrap), False
        for dtype in (np.float64, np.bool_, object, np.str_):
            yield f"array {k} dtype {np.dtype(dtype).name}", _with(two, k, base.astype(dtype)), \
                False
        yield f"array {k} a list of rows", _with(two, k, base.tolist()), True
        if len(two) > 1:
            yield f"array {k} one row fewer", _with(two, k, base[:1]), False
        yield f"array {k} a scalar", _with(two, k, np.array(1)), False
        yield f"array {k} one more axis", _with(two, k, base[None]), False
        if base.ndim > 1:
            yield f"array {k} a column fewer", _with(two, k, base[..., :-1]), False
            yield f"array {k} rows flattened", _with(two, k, base.reshape(-1)), False
            yield f"array {k} Fortran order", _with(two, k, np.asfortranarray(base)), True
        strided = np.repeat(base, 2, axis=0)[::2]  # rows 0 and 1 again, not contiguous
        yield f"array {k} every other row", _with(two, k, strided), True
    yield "no rows", tuple(a[:0] for a in two), True


def _with(arrays, k, a):
    return tuple(a if i == k else x for i, x in enumerate(arrays))


def main(db: str, name: str) -> None:
    g = games.get(name)
    arrays = g.encode_batch([g.coerce(g.sample)])
    extra = {"oware": [("turns_left", [0, -1, 201, 2 ** 63 - 1, 2 ** 64 - 1, 1.5])]}
    with tbdb.open(db) as tb:
        todo = list(cases(g, arrays))
        for option, values in extra.get(name, []):
            two = tuple(np.concatenate([a, a]) for a in arrays)
            for v in values:
                dtype = np.uint64 if v == 2 ** 64 - 1 else None
                t = np.array([100, v], dtype)
                label = f"{option} row 1 = {v}" if isinstance(v, int) else f"{option} {v}"
                todo.append((label, two, False, {option: t}))
        for case in todo:
            label, arrs, accept = case[:3]
            options = case[3] if len(case) > 3 else {}
            print(json.dumps({"case": label}), flush=True)
            out = {"case": label, "accept": accept}
            try:
                got = tb.lookup_arrays(name, *arrs, **options)
            except Exception as exc:  # noqa: BLE001 - what escapes is what the test judges
                out.update(outcome="error", type=type(exc).__name__,
                           value_error=isinstance(exc, ValueError),
                           tbdb_error=isinstance(exc, tbdb.TbdbError), message=str(exc))
            else:
                out.update(outcome="answer", values=[np.asarray(x).tolist() for x in got])
            print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
