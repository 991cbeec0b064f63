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

ROOT = Path(__file__).resolve().parents[1]


def test_the_wheel_holds_only_tbdb_and_works_beside_other_migrations(tmp_path):
    dist = tmp_path / "dist"
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
                        "--no-build-isolation", "-w", str(dist), str(ROOT)],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    wheel, = dist.glob("tbdb-*.whl")
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
