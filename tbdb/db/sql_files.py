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
        here = Path(__file__).resolve().parents[2] / "docs" / "rules"
    return here / Path(name).name


def game_view_files() -> list:
    """Every game's SQL views file (``Game.views``: ``sql/games/<file>``), in name order,
    without importing the games: opening a database makes every game's views, and importing
    seven games with their kernels took a one-lookup process most of a second.
    tests/test_games.py checks that these are exactly the files the games name."""
    return sorted((sql_dir() / "games").glob("*.sql"))


def function_view_files() -> list:
    """The views over tbdb's SQL functions (``sql/functions/*.sql``), made TEMP on each of
    tbdb's own connections where the functions are registered."""
    return sorted((sql_dir() / "functions").glob("*.sql"))


_PROBE = "__tbdb_probe"


def drop_copies_the_file_matches(con) -> list[str]:
    """Drop this read-only connection's TEMP copy of each view the file itself defines as tbdb
    does (``tbdb.db.untrusted`` makes the copies in front of the file's, which may have been
    redefined): with both, ``information_schema.tables`` listed every view twice.  The file's
    definition counts as tbdb's when DuckDB, given the file's view text (as it renders it from
    the file), renders it exactly as it renders tbdb's: the same query either way.  A copy stays
    where they differ (a view redefined, or written by another tbdb), where the file's text no
    longer binds (DuckDB 2 refuses the ``->`` lambdas it renders from a file in DuckDB 1.0's
    format: the UTTT views), or where it holds more than one statement.  The names returned."""
    import duckdb
    (catalog,), = con.execute("SELECT system.main.current_database()").fetchall()
    rows = con.execute(
        "SELECT view_name, sql, temporary FROM system.main.duckdb_views() WHERE NOT internal "
        "AND schema_name = 'main' AND (temporary OR database_name = ?)", [catalog]).fetchall()
    files = {name: sql for name, sql, temporary in rows if not temporary}
    dropped = []
    for name, own, temporary in rows:
        if not temporary or name not in files or not name.isidentifier():
            continue
        body = _body(files[name], f"CREATE VIEW {name} AS ")
        if body is None or ";" in body:
            continue
        try:
            con.execute(f"CREATE OR REPLACE TEMP VIEW {_PROBE} AS {body}")
            (probe,), = con.execute(
                "SELECT sql FROM system.main.duckdb_views() WHERE temporary AND view_name = ?",
                [_PROBE]).fetchall()
        except duckdb.Error:
            continue
        finally:
            con.execute(f"DROP VIEW IF EXISTS temp.main.{_PROBE}")
        mine = _body(own, f"CREATE TEMP VIEW {name} AS ")
        if mine is not None and _body(probe, f"CREATE TEMP VIEW {_PROBE} AS ") == mine:
            con.execute(f"DROP VIEW temp.main.{name}")
            dropped.append(name)
    return dropped


def _body(sql: str, head: str) -> str | None:
    """The query of a view's text as duckdb_views() gives it (``head`` then the query and
    ';'), or None for another form."""
    if not sql.startswith(head):
        return None
    return sql[len(head):].rstrip().removesuffix(";")
