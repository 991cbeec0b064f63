"""The documentation: the MkDocs site builds with no warning (a broken link, a link to a missing
anchor, a page left out of the nav: mkdocs.yml's ``validation``), the generated reference pages
are what the code gives today, and the README stays a five-minute read that starts with the
two set-up commands (.ci/run runs the second)."""
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
COMMANDS = [
    'python -m pip install -e . && tbdb build cdc',
    'python -m pip install -e ".[test,web,cluster]" && python -m pytest -q',
]


@pytest.mark.skipif(importlib.util.find_spec("mkdocs") is None,
                    reason="mkdocs is not installed (the test extra has it)")
def test_the_site_builds_strict_with_no_warning(tmp_path):
    r = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict",
                        "-f", str(ROOT / "mkdocs.yml"), "-d", str(tmp_path / "site")],
                       cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert "WARNING" not in r.stderr and "WARNING" not in r.stdout, r.stderr[-3000:]
    assert (tmp_path / "site" / "index.html").exists()


def test_every_page_is_in_the_nav():
    """mkdocs warns of a page left out (omitted_files); without mkdocs installed, this says
    the same of every page of docs/."""
    nav = (ROOT / "mkdocs.yml").read_text()
    pages = sorted(str(p.relative_to(ROOT / "docs")) for p in (ROOT / "docs").rglob("*.md"))
    assert pages and [p for p in pages if f": {p}\n" not in nav] == []


def test_docs_rules_holds_markdown_only():
    """docs/rules/ is also the installed package tbdb.rules (pyproject.toml's package-dir)."""
    assert {p.suffix for p in (ROOT / "docs" / "rules").iterdir() if p.is_file()} == {".md"}


def test_the_generated_pages_are_current():
    r = subprocess.run([sys.executable, str(ROOT / "docs" / "gen_reference.py"), "--check"],
                       cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr[-3000:]
    for page in ("cli.md", "games.md"):
        first = (ROOT / "docs" / page).read_text().splitlines()[0]
        assert "Generated" in first and "docs/gen_reference.py" in first, first


def test_the_readme_is_short_and_starts_with_the_two_commands():
    lines = README.splitlines()
    assert len(lines) <= 250, len(lines)
    assert lines[0].startswith("# ")
    first_block = README[README.index("```bash\n") + 8:]
    first_block = first_block[:first_block.index("```")].splitlines()
    assert [line.partition("  #")[0].strip() for line in first_block] == COMMANDS
    assert README.index("```bash\n") < README.index("\n## ")  # before anything else
