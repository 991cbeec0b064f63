"""JSON from a file or a database is untrusted input: the one reader tbdb parses it with.

A manifest, a probe file's header, a database's ``tb_tables.params``, a build's saved state may
have been written by anyone.  Python's ``json`` recurses once per nesting level, so 100,000
``[`` end in a ``RecursionError`` (no ``ValueError``: every caller's "does not parse" missed
it); it also takes ``NaN``, ``Infinity`` and ``1e999`` (no JSON, and no number tbdb writes),
numbers of any length, and a key given twice (keeping the last, where the C prober's reader
takes the first: the two would read different files).  ``loads`` refuses all of these with a
``ValueError`` of one line, which each caller already turns into its error naming the file or
table.  tbdb writes none of them (its manifests nest four levels).
"""
from __future__ import annotations

import json
import math
import re

# levels of arrays and objects, as the C prober's reader (native/src/text.c) allows about
MAX_DEPTH = 32
# digits of an integer: tbdb writes 64-bit counts (19 digits); Python would convert up to
# 4,300 digits (quadratic time) before its own limit
MAX_DIGITS = 20

# a string (to its closing quote, or to the end if it has none) or a bracket: one pass of the
# regex engine, which never looks at a character twice, so a hostile text costs linear time
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"?|[\[{]|[\]}]', re.S)


def loads(text: str | bytes | bytearray | memoryview):
    """The value of JSON ``text`` (bytes: UTF-8), else ``ValueError`` in one line."""
    if isinstance(text, (bytes, bytearray, memoryview)):
        text = bytes(text).decode("utf-8")  # UnicodeDecodeError is a ValueError
    if not isinstance(text, str):
        raise TypeError(f"JSON text must be str or bytes, not {type(text).__name__}")
    check_depth(text)
    return json.loads(text, parse_constant=_constant, parse_float=_float, parse_int=_int,
                      object_pairs_hook=_object)


def loads_object(text: str | bytes | bytearray | memoryview) -> dict:
    """``loads`` of text that must hold a JSON object, else ``ValueError``."""
    value = loads(text)
    if not isinstance(value, dict):
        raise ValueError(f"a JSON {type(value).__name__}, not an object")
    return value


def check_depth(text: str) -> None:
    """``ValueError`` if arrays and objects in ``text`` nest more than ``MAX_DEPTH`` deep
    (brackets inside strings do not count)."""
    depth = 0
    for m in _TOKENS.finditer(text):
        c = m.group()[0]
        if c in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                raise ValueError(f"arrays and objects nested more than {MAX_DEPTH} deep (at "
                                 f"character {m.start()})")
        elif c in "]}":
            depth -= 1


def _constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number {text[:40]!r} is out of range")
    return value


def _int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise ValueError(f"a number of {len(text):,} digits (tbdb writes at most {MAX_DIGITS})")
    return int(text)


def _object(pairs: list) -> dict:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen = set()
        for key, _ in pairs:
            if key in seen:
                raise ValueError(f"an object gives key {key[:60]!r} twice")
            seen.add(key)
    return out
