"""tb_lookup, tb_canonical, tb_locate and tb_row: lookup's power inside SQL."""
import pytest

import tbdb
from tbdb.cli.run import main


def test_a_position_is_found_in_either_orientation(kcvp_db):
    with tbdb.open(kcvp_db) as tb:
        for text in ("8/8/8/pKC5 r", "8/8/8/Pkc5 b"):  # the stored row and its colour twin
            (value, stored), = tb.sql(f"SELECT tb_lookup('cdc', '{text}'), "
                                      f"tb_canonical('cdc', '{text}')").fetchall()
            r = tb.lookup(text)
            assert value == {"outcome": r.outcome, "distance": r.distance, "score": None,
                             "best_move": r.best_move}
            assert stored == "8/8/8/pKC5 r"
            row, = tb.sql(f"SELECT result, distance FROM tb_row('cdc', '{text}')").fetchall()
            assert row == (1, r.distance)
            assert tb.sql(f"WITH c AS MATERIALIZED (SELECT tb_canonical('cdc', '{text}') AS p) "
                          "SELECT count(*) FROM cdc_positions, c WHERE position = c.p"
                          ).fetchall() == [(1,)]


def test_every_stored_row_is_its_own_canonical_form(kcvp_db):
    with tbdb.open(kcvp_db) as tb:
        wrong = tb.sql("SELECT position FROM cdc_positions WHERE idx % 37 = 1 AND "
                       "tb_canonical('cdc', position) <> position").fetchall()
        n = tb.sql("SELECT count(*) FROM cdc_positions WHERE idx % 37 = 1").fetchall()[0][0]
    assert n > 100 and wrong == []


def test_missing_tables_are_null_and_bad_text_is_an_error(kcvp_db):
    with tbdb.open(kcvp_db) as tb:
        assert tb.sql("SELECT tb_lookup('cdc', '4g2K/8/8/8 r'), tb_canonical('cdc', "
                      "'4g2K/8/8/8 r'), tb_lookup('cdc', NULL)").fetchall() == [(None, None, None)]
        assert tb.sql("SELECT * FROM tb_row('cdc', '4g2K/8/8/8 r')").fetchall() == []
        with pytest.raises(Exception, match="'nonsense'"):
            tb.sql("SELECT tb_lookup('cdc', 'nonsense')").fetchall()
        with pytest.raises(Exception, match="'backgammon'"):
            tb.sql("SELECT tb_lookup('backgammon', 'x')").fetchall()


def test_the_functions_work_in_tbdb_sql_and_leave_the_file_alone(kcvp_db, capsys):
    before = open(kcvp_db, "rb").read()
    assert main(["sql", "--db", kcvp_db, "--csv", "SELECT tb_lookup('cdc', '8/8/8/Pkc5 b')"
                 ".best_move AS m, tb_locate('cdc', '8/8/8/Pkc5 b').table_name AS t"]) == 0
    assert capsys.readouterr().out.splitlines() == ["m,t", "c1xa1,KCvP"]
    assert open(kcvp_db, "rb").read() == before


def test_the_functions_outlive_the_tablebase_that_registered_them(kcvp_db):
    """Two tablebases on one file share DuckDB's instance and so its functions: closing the
    first (whose registration made them) left the second calling freed memory, a segfault.
    Run in a child process, so that a crash is a failure, not the end of the test run."""
    import subprocess
    import sys
    script = (
        "import gc, tbdb\n"
        f"first = tbdb.open({kcvp_db!r})\n"
        "first.sql('SELECT 1').fetchall()\n"
        f"second = tbdb.open({kcvp_db!r})\n"
        "first.close(); del first; gc.collect()\n"
        "junk = [object() for _ in range(100000)]\n"
        "print(second.sql(\"SELECT tb_lookup('cdc', '8/8/8/pKC5 r').outcome, "
        "tb_canonical('cdc', '8/8/8/Pkc5 b')\").fetchall())\n"
        "second.close()\n"
        f"third = tbdb.open({kcvp_db!r})\n"  # the instance closed with the second: made anew
        "print(third.sql(\"SELECT tb_lookup('cdc', '8/8/8/pKC5 r').outcome\").fetchall())\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, (out.returncode, out.stderr[-2000:])
    assert out.stdout.splitlines() == ["[('win', '8/8/8/pKC5 r')]", "[('win',)]"], out.stdout
