"""The ``.sql`` files that define tbdb's views: generic ones in ``sql/`` (applied by migrations
as frozen copies) and each game's in ``sql/games/`` (applied when a build opens the file)."""
from __future__ import annotations

from pathlib import Path


def sql_dir() -> Path:
    import tbdb.sql
    return Path(tbdb.sql.__file__).resolve().parent


def split(text: str) -> list[str]:
    """Statements of a .sql text (comment lines dropped; no statement of ours has a ';' inside
    a string)."""
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("--")]
    return [s.strip() for s in "\n".join(lines).split(";") if s.strip()]


def statements(path: Path) -> list[str]:
    return split(Path(path).read_text())
