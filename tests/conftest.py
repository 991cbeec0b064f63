import pytest

import tbdb


@pytest.fixture(scope="session")
def kcvp_db(tmp_path_factory):
    """A small database: KCvP and what it needs (CvP), built once per test session."""
    path = tmp_path_factory.mktemp("kcvp") / "tb.duckdb"
    tbdb.build("cdc", db=str(path), material="KCvP", progress=False)
    return str(path)


@pytest.fixture(scope="session")
def every_game_db(tmp_path_factory):
    """Every registered game's example build in one file, built once per test session (the
    web tests)."""
    from tbdb import games
    path = str(tmp_path_factory.mktemp("every-game") / "tb.duckdb")
    for g in games.all_games():
        tbdb.build(g.name, db=path, progress=False, **g.example_build)
    return path
