"""The ``.sql`` files that define tbdb's views: generic ones in ``sql/`` (applied by migrations
as frozen copies) and each game's in ``sql/games/`` (applied when a build opens the file); and
where the installed package keeps the games' rules (``docs/rules`` of the repository)."""
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


def rules_file(name: str) -> Path:
    """The installed copy of a game's rules document ``docs/rules/<name>`` (package data of
    ``tbdb.rules`` in a wheel; the checkout's ``docs/rules`` in an editable install, also one
    made before tbdb.rules existed, whose import hook does not know it)."""
    try:
        import tbdb.rules
        here = Path(next(iter(tbdb.rules.__path__))).resolve()
    except (ImportError, StopIteration):
        here = Path(__file__).resolve().parent.parent / "docs" / "rules"
    return here / Path(name).name
