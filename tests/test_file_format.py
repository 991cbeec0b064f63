"""Files tbdb writes open in DuckDB 1.x clients (the shell, other languages), not only in the
DuckDB that wrote them."""
import os
import shutil
import struct
import subprocess

import pytest


def _storage_version(path) -> int:
    with open(path, "rb") as f:
        head = f.read(16)
    assert head[8:12] == b"DUCK", head
    return struct.unpack("<Q", head[12:16] + b"\0" * 4)[0]


def test_built_files_use_the_storage_format_of_duckdb_1_0(kcvp_db):
    # 64 is the storage version of DuckDB 1.0 and 1.1, which every 1.x client reads
    assert _storage_version(kcvp_db) == 64


def _duckdb_cli():
    """A DuckDB shell: $TBDB_DUCKDB_CLI (.ci/run installs the oldest duckdb-cli on the package
    index there), else one on PATH."""
    path = os.environ.get("TBDB_DUCKDB_CLI") or shutil.which("duckdb")
    if not path:
        pytest.skip("no DuckDB shell here (set TBDB_DUCKDB_CLI; .ci/run does)")
    return path


def test_the_duckdb_shell_runs_the_readme_queries(kcvp_db):
    cli = _duckdb_cli()
    before = open(kcvp_db, "rb").read()
    r = subprocess.run(
        [cli, "-readonly", "-csv", kcvp_db,
         "-c", "SELECT material, position, distance, best_move FROM cdc_positions "
               "WHERE result = 'win' ORDER BY distance DESC, position LIMIT 3",
         "-c", "SELECT material, side_to_move, draw_rate FROM draw_analysis "
               "WHERE game = 'cdc' ORDER BY material, side_to_move"],
        capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "material,position,distance,best_move"
    assert lines[1].startswith("KCvP,") and len(lines[1].split(",")) == 4
    assert "CvP,red,1.0" in lines  # a cannon and a soldier can never capture: all draws
    assert open(kcvp_db, "rb").read() == before
