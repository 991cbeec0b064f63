"""Rows printed as a table of aligned columns (``tbdb status``, ``tbdb build``'s summary, the
cells of ``tbdb sql``)."""
from __future__ import annotations


def cell_text(v) -> str:
    """One value as a table cell: empty for NULL, floats rounded."""
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:.3f}" if abs(v) < 1000 else f"{v:,.1f}"
    return str(v)


def print_rows(columns: list[str], rows: list[tuple]) -> None:
    """``rows`` under ``columns``, each column as wide as its widest cell, then the count."""
    text = [[cell_text(v) for v in row] for row in rows]
    widths = [max([len(c)] + [len(r[i]) for r in text]) for i, c in enumerate(columns)]
    print("  ".join(c.ljust(w) for c, w in zip(columns, widths)))
    print("  ".join("-" * w for w in widths))
    for r in text:
        print("  ".join(v.ljust(w) for v, w in zip(r, widths)))
    print(f"({len(rows):,} row{'s' if len(rows) != 1 else ''})")
