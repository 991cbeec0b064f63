"""A database file is untrusted input (issue 22, item 2): whoever wrote it may have recorded any
path as a values file, redefined tbdb's views, replaced its tables by views or shadowed DuckDB's
functions with macros.  Reading it must never read another file, nor run SQL the file holds in
tbdb's own queries (the web API, ``tbdb status``, the views ``tbdb sql`` names)."""
import os
import shutil

import duckdb
import pytest

import tbdb
from tbdb.cli.run import main
from tests.test_safety import _one_line_error, copy_db  # noqa: F401 (copy_db: a fixture)

SECRET = "TBDB-SECRET-7f3a"
LOOKUP = ["lookup", "cdc", "8/8/8/pKC5 r"]


def _execute(db: str, *statements: str, params=None) -> None:
    con = duckdb.connect(db)  # as whoever crafted the file
    try:
        for st in statements:
            con.execute(st, params) if params and "?" in st else con.execute(st)
    finally:
        con.close()


@pytest.fixture
def file_db(kcvp_db, tmp_path):
    """A copy of the KCvP database whose table CvP keeps its values in a Parquet file under
    tmp_path/out, as a cluster build records it."""
    from tbdb import games
    from tbdb.cluster.dask_build import _export, _import
    from tbdb.cluster.files import verified_manifest
    from tbdb.db.store import Store
    db, out = str(tmp_path / "files.duckdb"), str(tmp_path / "out")
    shutil.copy(kcvp_db, db)
    g = games.get("cdc")
    with Store(db) as store:
        _export(store, g, out, "CvP")
        _import(store, g, out, "CvP", verified_manifest(out, "cdc", "CvP"), copy=False)
    return db


def _values_path(db: str) -> str:
    con = duckdb.connect(db, read_only=True)
    try:
        (path,), = con.execute("SELECT path FROM tb_index_files").fetchall()
        return path
    finally:
        con.close()


def _secret_file(tmp_path) -> str:
    path = tmp_path / "secret.txt"
    path.write_text(f"password={SECRET}\n")
    return str(path)


def _reads(db: str, target: str) -> list:
    """Every way a read command could hand the target's bytes out."""
    q = f"SELECT content FROM read_text('{target}')"
    return [["sql", q], ["sql", f"SELECT * FROM read_blob('{target}')"], ["status"], LOOKUP]


@pytest.mark.parametrize("where", ["environ", "secret", "secret-as-values-file"])
def test_a_recorded_file_that_is_not_the_values_file_is_never_read(where, copy_db, tmp_path,
                                                                   capsys):
    """A tb_index_files row naming /proc/self/environ (size 0) or any file with its true size,
    even at the place a values file would have: the database is refused in one line, and the
    file is never read."""
    target = "/proc/self/environ" if where == "environ" else _secret_file(tmp_path)
    if where == "secret-as-values-file":
        at = tmp_path / "out" / "cdc" / "CvP.values.parquet"
        at.parent.mkdir(parents=True)
        shutil.move(target, at)
        target = str(at)
    size = 0 if where == "environ" else os.path.getsize(target)
    secret = "PATH=" if where == "environ" else SECRET  # this process's environment has PATH
    for table_id in (1, 999):  # a table of the database, and none
        _execute(copy_db, "DELETE FROM tb_index_files",
                 "INSERT INTO tb_index_files VALUES (?, ?, 1, ?, 'aa')",
                 params=[table_id, target, size])
        before = open(copy_db, "rb").read()
        for args in _reads(copy_db, target):
            err = _one_line_error(capsys, main(args + ["--db", copy_db]), repr(target))
            assert secret not in err
        assert open(copy_db, "rb").read() == before


def test_a_values_file_changed_in_place_is_refused_by_its_checksum(file_db, capsys):
    """Same size, other bytes: the sha256 recorded at the build, not the size, decides."""
    assert main(LOOKUP + ["--db", file_db]) == 0
    capsys.readouterr()
    path = _values_path(file_db)
    data = bytearray(open(path, "rb").read())
    data[len(data) // 2] ^= 0xFF
    open(path, "wb").write(bytes(data))
    for args in (LOOKUP, ["sql", "SELECT count(*) FROM tb_index_values"], ["status"]):
        _one_line_error(capsys, main(args + ["--db", file_db]), "sha256", repr(path))


def test_a_recorded_path_outside_the_values_layout_is_refused(file_db, tmp_path, capsys):
    """A real values file, but recorded under another name or through '..': only
    DIR/<game>/<table>.values.parquet of the table that records it is read."""
    path = _values_path(file_db)
    other = tmp_path / "elsewhere.parquet"
    shutil.copy(path, other)
    odd = os.path.join(os.path.dirname(path), "..", "cdc", os.path.basename(path))
    for bad in (str(other), odd):
        _execute(file_db, "UPDATE tb_index_files SET path = ?", params=[bad])
        _one_line_error(capsys, main(LOOKUP + ["--db", file_db]), repr(bad))
        _one_line_error(capsys, main(["sql", "SELECT 1", "--db", file_db]), repr(bad))


def test_views_the_file_redefines_are_not_what_tbdb_reads(file_db, tmp_path, capsys):
    """draw_analysis, build_progress, tb_index_values and a game's view redefined in the file:
    /api/tables, tbdb status and tbdb sql still answer from tbdb's own views."""
    pytest.importorskip("starlette")
    from tbdb.web.app import Explorer
    secret = _secret_file(tmp_path)
    crafted = f"(SELECT content FROM read_text('{secret}'))"
    _execute(file_db, *(
        f"CREATE OR REPLACE VIEW {name} AS SELECT {crafted} AS {cols}"
        for name, cols in (
            ("draw_analysis", "game, 1 AS table_name, 1 AS material, 1 AS pieces, "
                              "1 AS side_to_move, 1 AS positions, 1 AS wins, 1 AS draws, "
                              "1 AS losses, 1 AS illegal, 1 AS draw_rate, 1 AS longest_win, "
                              "1 AS longest_loss"),
            ("build_progress", "game, 1 AS tables, 1 AS done, 1 AS building, 1 AS pending, "
                               "1 AS rows_done, 1 AS seconds_done"),
            ("tb_index_values", "table_id"),
            ("cdc_positions", "position"))))
    explorer = Explorer(file_db)
    try:
        tables = explorer.tables()
    finally:
        explorer.close()
    assert {t["game"] for t in tables} == {"cdc"} and len(tables) > 4
    assert main(["status", "--db", file_db]) == 0
    out = capsys.readouterr().out
    assert "cdc" in out and "password" not in out
    for q in ("SELECT DISTINCT game FROM draw_analysis",
              "SELECT count(*) > 0 FROM tb_index_values WHERE table_id IS NOT NULL",
              "SELECT count(DISTINCT position) > 1 FROM cdc_positions"):
        assert main(["sql", "--csv", q, "--db", file_db]) == 0
        out = capsys.readouterr().out
        assert "password" not in out and out.splitlines()[1] in ("cdc", "True"), (q, out)
    with tbdb.open(file_db) as tb:  # the Python API's SQL too
        assert tb.sql("SELECT count(DISTINCT position) > 1 FROM cdc_positions").fetchall() == \
            [(True,)]


@pytest.mark.parametrize("craft, needle", [
    # tbdb's tables replaced by views: reading the catalogue would run the file's SQL
    (["DROP TABLE tb_index_files",
      "CREATE VIEW tb_index_files AS SELECT 1 AS table_id, content AS path, 1 AS rows, "
      "0 AS bytes, '' AS sha256 FROM read_text('{secret}')"], "'tb_index_files'"),
    (["CREATE TABLE tb_stats2 AS SELECT * FROM tb_stats", "DROP TABLE tb_stats",
      "CREATE VIEW tb_stats AS SELECT * REPLACE ((SELECT content FROM read_text('{secret}')) "
      "AS label) FROM tb_stats2"], "'tb_stats'"),
    # a generated column runs SQL each time it is read
    (["DROP TABLE tb_index_files",
      "CREATE TABLE tb_index_files (table_id INTEGER, p VARCHAR, path VARCHAR GENERATED "
      "ALWAYS AS (p || current_setting('threads')) VIRTUAL, rows BIGINT, bytes BIGINT, "
      "sha256 VARCHAR)"], "'tb_index_files'"),
    # a macro named like a DuckDB function changes what tbdb's own views compute
    (["CREATE MACRO translate(a, b, c) AS 'crafted'"], "'translate'"),
    (["CREATE MACRO \"||\"(a, b) AS (SELECT content FROM read_text('{secret}'))"], "'||'"),
    (["CREATE MACRO read_parquet(f, filename := true) AS TABLE "
      "SELECT content AS idx FROM read_text('{secret}')"], "'read_parquet'"),
])
def test_tables_replaced_or_functions_shadowed_are_refused(craft, needle, copy_db, tmp_path,
                                                          capsys):
    secret = _secret_file(tmp_path)
    # read clean first: this process does not check an unchanged file twice, a changed one again
    assert main(LOOKUP + ["--db", copy_db]) == 0
    capsys.readouterr()
    _execute(copy_db, *(st.format(secret=secret) for st in craft))
    before = open(copy_db, "rb").read()
    for args in (LOOKUP, ["status"], ["sql", "SELECT * FROM cdc_positions LIMIT 3"]):
        err = _one_line_error(capsys, main(args + ["--db", copy_db]), needle)
        assert SECRET not in err
    assert open(copy_db, "rb").read() == before


def test_the_checked_tables_are_tbdb_s_tables(tmp_path):
    from tbdb.db import models
    from tbdb.db.store import Store
    from tbdb.db.untrusted import COLUMNS, TABLES
    assert set(TABLES) == set(models.metadata.tables) | {"alembic_version"}
    # the columns and types checked are those of a file the migrations make
    with Store(str(tmp_path / "new.duckdb")) as store:
        made = store.query("SELECT table_name, column_name, data_type FROM duckdb_columns() "
                           "WHERE schema_name = 'main' ORDER BY table_name, column_index")
    assert {t: {c: ty for t2, c, ty in made if t2 == t} for t in TABLES} == COLUMNS


@pytest.mark.parametrize("craft, needle", [
    ("ALTER TABLE tb_tables DROP COLUMN params", "table 'tb_tables' has no column 'params'"),
    ("ALTER TABLE tb_stats ALTER wins TYPE VARCHAR", "tb_stats.wins is VARCHAR, not BIGINT"),
    ("DROP TABLE tb_texts", "no table 'tb_texts'"),
])
def test_a_table_without_its_columns_is_refused_in_one_line(craft, needle, copy_db, capsys):
    """A file of the current schema whose tables lack a column tbdb reads (or hold it with
    another type): DuckDB's binder errors came out of lookups and tbdb sql as tracebacks."""
    _execute(copy_db, craft)
    before = open(copy_db, "rb").read()
    for args in (LOOKUP, ["status"], ["sql", "SELECT 1"]):
        _one_line_error(capsys, main(args + ["--db", copy_db]), needle)
    with pytest.raises(tbdb.NotADatabaseError, match=needle):
        tbdb.open(copy_db)
    assert open(copy_db, "rb").read() == before


@pytest.mark.parametrize("craft, needle", [
    ("UPDATE tb_tables SET params = '{bad'", "records params '{bad' for cdc table 'KCvP'"),
    ("UPDATE tb_tables SET params = '[1]'", "records params '[1]' for cdc table 'KCvP'"),
    ("UPDATE tb_tables SET slots = -5", "records -5 slots for cdc table 'KCvP'"),
])
def test_catalogue_values_tbdb_never_writes_are_refused_in_one_line(craft, needle, copy_db,
                                                                  capsys):
    """They came out as JSON's or numpy's messages, naming neither the file nor the table."""
    _execute(copy_db, craft)
    before = open(copy_db, "rb").read()
    _one_line_error(capsys, main(LOOKUP + ["--db", copy_db]), needle, "never writes")
    assert open(copy_db, "rb").read() == before
