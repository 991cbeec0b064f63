"""Oware table names: one book per seed count, ``seeds-00`` .. ``seeds-20``."""
from __future__ import annotations


def table_name(seeds: int) -> str:
    return f"seeds-{seeds:02d}"


def seeds_of(table: str) -> int:
    return int(table.split("-")[1])
