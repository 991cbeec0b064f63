"""The JSON of a lookup: what ``tbdb lookup --json`` prints and ``GET /api/{game}`` returns.

One function makes both, so the command line and the web API cannot drift apart.
"""
from __future__ import annotations

from tbdb.results import LookupResult


def lookup_json(result: LookupResult, line: bool = False) -> dict:
    """``result`` as plain data: game, position, value, best move and every move best first;
    with ``line`` also the principal variation under ``"line"``."""
    out = result.to_dict()
    if line:
        out["line"] = [step.to_dict() for step in result.line()]
    return out
