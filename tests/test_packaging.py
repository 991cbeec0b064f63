"""The installed distribution adds only the ``tbdb`` package.

A wheel is built from this checkout and unpacked into a fresh directory; Python then runs with
no site processing (so the editable install of the checkout is invisible), the unpacked wheel
first on its path and the dependencies after it, from a project directory that has its own
``migrations`` and ``solvers`` packages — the situation that broke tbdb 0.1 inside Django and
Alembic projects.
"""
import os
import site
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """(the wheel built from this checkout, the build's log): built once for this file."""
    dist = tmp_path_factory.mktemp("dist")
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--verbose", "--no-deps",
                        "--no-build-isolation", "-w", str(dist), str(ROOT)],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    wheel, = dist.glob("tbdb-*.whl")
    return wheel, r.stdout + r.stderr


def test_the_build_names_every_package_it_installs(built):
    """setuptools warns, 40 lines each, for a directory it installs as data that Python could
    import as a package (tbdb.web.static was one): every such directory is listed."""
    wheel, log = built
    assert "SetuptoolsDeprecationWarning" not in log, log[-3000:]
    names = zipfile.ZipFile(wheel).namelist()
    for needed in ("tbdb/web/static/index.html", "tbdb/web/static/boards/cdc.js",
                   "tbdb/rules/cdc.md", "tbdb/rules/chess.md"):
        assert needed in names, needed


def test_tbdb_games_points_at_files_the_wheel_installs(built, tmp_path):
    """`tbdb games` names each game's rules and SQL views by files an install has (not the
    repository's docs/rules and sql/games, which a wheel does not hold)."""
    wheel, _ = built
    installed = tmp_path / "installed"
    zipfile.ZipFile(wheel).extractall(installed)
    script = (
        "import sys\n"
        f"sys.path[:0] = [{str(installed)!r}] + {site.getsitepackages()!r}\n"
        "from tbdb.cli.run import main\n"
        "sys.exit(main(['games']))\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    r = subprocess.run([sys.executable, "-S", "-c", script], cwd=tmp_path, capture_output=True,
                       text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stderr[-2000:]
    named = [line.split(": ", 1)[1] for line in r.stdout.splitlines()
             if line.startswith(("  rules: ", "  SQL views: "))]
    games = [line for line in r.stdout.splitlines() if not line.startswith(" ")]
    rules = [line for line in r.stdout.splitlines() if line.startswith("  rules: ")]
    assert len(games) >= 7 and len(rules) == len(games) and len(named) > len(rules), r.stdout
    for path in named:
        assert Path(path).is_file() and Path(path).is_relative_to(installed), (path, r.stdout)
    rules = Path([p for p in named if p.endswith("cdc.md")][0]).read_text()
    assert rules == (ROOT / "docs" / "rules" / "cdc.md").read_text()


def test_the_wheel_holds_only_tbdb_and_works_beside_other_migrations(built, tmp_path):
    wheel, _ = built
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names}
    assert {t for t in tops if not t.endswith(".dist-info")} == {"tbdb"}, tops
    for needed in ("tbdb/solvers/cdc/index.py", "tbdb/games/cdc/game.py", "tbdb/migrations/env.py",
                   "tbdb/sql/01_draw_analysis.sql", "tbdb/sql/games/cdc.sql",
                   "tbdb/migrations/versions/0003_generic.py"):
        assert needed in names, needed
    installed = tmp_path / "installed"
    zipfile.ZipFile(wheel).extractall(installed)

    project = tmp_path / "someone_elses_project"
    for pkg in ("migrations", "solvers", "sql"):
        (project / pkg).mkdir(parents=True)
        (project / pkg / "__init__.py").write_text("raise ImportError('not tbdb')\n")
    (project / "migrations" / "env.py").write_text("raise SystemExit('wrong env.py')\n")
    script = (
        "import sys\n"
        f"sys.path[:0] = [{str(project)!r}, {str(installed)!r}] + {site.getsitepackages()!r}\n"
        "import tbdb\n"
        f"assert tbdb.__file__.startswith({str(installed)!r}), tbdb.__file__\n"
        # tic-tac-toe: the smallest kernels to compile in a fresh place (no Numba cache there)
        f"tbdb.build('tictactoe', db={str(tmp_path / 'new.duckdb')!r}, progress=False)\n"
        f"r = tbdb.open({str(tmp_path / 'new.duckdb')!r}).lookup('x...o....')\n"
        "assert (r.outcome, r.distance) == ('draw', 0), r\n"
        "print('ok')\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    r = subprocess.run([sys.executable, "-S", "-c", script], cwd=project, capture_output=True,
                       text=True, timeout=600, env=env)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr[-2000:]
