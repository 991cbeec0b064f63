import pytest

import tbdb


@pytest.fixture(scope="session")
def kcvp_db(tmp_path_factory):
    """A small database: KCvP and what it needs (CvP), built once per test session."""
    path = tmp_path_factory.mktemp("kcvp") / "tb.duckdb"
    tbdb.build("cdc", db=str(path), material="KCvP", progress=False)
    return str(path)
