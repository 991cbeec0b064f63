"""The README's and the docs pages' example commands, run as they are written, against what
their comments and the text beside them say they print.  Only the examples that build small
tables: the README's first command (every CDC endgame up to 3 pieces, about 10 s with the
kernels warm) and the 3-piece chess tables KRvK and KPvK (a few seconds).  Each command is read
from README.md or docs/*.md, so a comment that no longer matches its command fails here."""
import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
# the README and the handwritten docs pages (an example may stand in both, written alike)
TEXT = "\n".join([README] + [p.read_text() for p in sorted((ROOT / "docs").glob("*.md"))])


def example(prefix: str) -> tuple[list[str], str]:
    """(the arguments, the comment) of the one command line of the README and the docs that
    starts ``prefix`` (where it stands on several pages, it is written the same on each)."""
    found = {line for line in TEXT.splitlines() if line.startswith(prefix)}
    assert len(found) == 1, (prefix, found)
    command, _, comment = found.pop().partition("  # ")
    return shlex.split(command), comment.strip()


def run(args: list[str], cwd) -> str:
    """A README command line (``tbdb ...``) run in ``cwd``; its output."""
    assert args[0] == "tbdb", args
    r = subprocess.run([sys.executable, "-m", "tbdb.cli.run", *args[1:]], cwd=cwd,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, (args, r.stderr[-2000:])
    return r.stdout


def number(text: str) -> int:
    return int(text.replace(",", ""))


@pytest.fixture(scope="module")
def here(tmp_path_factory):
    """A new user's directory: the README's first command run in it (./tbdb.duckdb), that file
    also as tb.duckdb (the SQL examples' name), and chess.duckdb with KRvK and KPvK."""
    d = tmp_path_factory.mktemp("new-user")
    first = README.splitlines()[README.splitlines().index("```bash") + 1]
    install, _, build = first.partition("  #")[0].partition(" && ")
    assert install.strip() == "python -m pip install -e ." and build.strip() == "tbdb build cdc"
    run(shlex.split(build) + ["--no-progress"], d)
    shutil.copyfile(d / "tbdb.duckdb", d / "tb.duckdb")
    for material in ("KRvK", "KPvK"):
        run(["tbdb", "build", "chess", "--material", material, "--db", "chess.duckdb",
             "--no-progress"], d)
    return d


def test_the_first_command_builds_cdc_up_to_three_pieces(here):
    assert "up to 3 pieces into ./tbdb.duckdb" in README.splitlines()[3]
    out = run(["tbdb", "sql", "--db", "tbdb.duckdb", "--csv",
               "SELECT min(pieces), max(pieces) FROM draw_analysis WHERE game = 'cdc'"], here)
    assert out.split() == ["min(pieces),max(pieces)", "2,3"], out


def test_the_first_sql_examples_count_what_they_say(here):
    """A row, the placements it stands for, and positions as a player counts them: the three
    numbers the README gives, each from its own query."""
    rows_args, rows_said = example('tbdb sql "SELECT position FROM cdc_positions')
    out = run(rows_args, here)
    assert re.search(r"\(([\d,]+) rows", out).group(1) == rows_said.split()[0], out[-200:]
    placements_args, placements_said = example(
        'tbdb sql "SELECT sum(multiplicity) FROM cdc_positions')
    placements = number(run(placements_args, here).split()[2])
    assert placements == number(placements_said)
    players_args, players_said = example(
        'tbdb sql "SELECT sum(draws) FROM draw_analysis')
    players = number(run(players_args, here).split()[2])
    assert players == number(players_said)
    # the text beside them: the same numbers, and why they differ
    assert f"stand for {placements_said} placements" in README
    assert f"are {players_said}: what `draw_analysis`" in README
    assert f"stand for {placements_said} placements" in (ROOT / "docs" / "sql.md").read_text()
    # independent of the views: each drawn stored slot of the 3-piece tables, counted from the
    # raw values with its multiplicity, once for its colours and once with them swapped (no
    # 3-piece material is its own colour swap)
    out = run(["tbdb", "sql", "--db", "tb.duckdb", "--csv",
               "SELECT count(*), sum(v.multiplicity) FROM tb_index_values AS v JOIN tb_tables AS t "
               "USING (table_id) WHERE t.game = 'cdc' AND v.result = 0 AND "
               "length(t.table_name) = 4"], here)
    count, total = map(int, out.split()[1].split(","))
    assert (count, total, 2 * total) == (number(rows_said.split()[0]), placements, players)
    # and the build's summary counts as draw_analysis does
    summary = run(["tbdb", "build", "cdc", "--no-progress"], here)
    three, = [line.split() for line in summary.splitlines() if line.startswith("3 ")]
    assert number(three[3]) == players, summary


def test_the_chess_line_is_as_long_as_its_comment_says(here):
    args, said = example('tbdb lookup chess "8/8/8/4k3/8/8/8/KR6 w - - 0 1" --line')
    moves, plies = map(int, re.fullmatch(r"mate in (\d+): (\d+) plies", said).groups())
    assert plies == 2 * moves - 1
    out = run(args, here)
    assert re.search(r"^outcome: +win in (\d+) plies$", out, re.M).group(1) == str(plies), out
    line = out.split("line:\n", 1)[1]
    assert len(re.findall(r"^ +\d+\. ", line, re.M)) == plies, line
    assert line.rstrip().endswith("loss (game over)")


def test_only_the_promotion_the_comment_names_wins(here):
    args, said = example('tbdb lookup chess "8/1P6/k7/8/K7/8/8/8 w - -" --json')
    only = re.fullmatch(r"only (\S+) wins", said).group(1)
    answer = json.loads(run(args, here))
    winning = [m for m in answer["moves"] if m["outcome"] == "win"]  # (category: lichess's,
    assert answer["outcome"] == "win"                                # for the side then to move)
    assert [m["san"] for m in winning] == [only], winning


def test_the_longest_mates_the_readme_lists(here):
    said = re.search(r"Longest\s+mates found: KQvK (\d+) plies, KRvK (\d+),", TEXT)
    assert said, "the README's longest mates"
    out = run(["tbdb", "sql", "--db", "chess.duckdb", "--csv",
               "SELECT table_name, max(longest_win) FROM draw_analysis WHERE table_name IN "
               "('KQvK', 'KRvK') GROUP BY 1 ORDER BY 1"], here)
    assert out.split()[1:] == [f"KQvK,{said.group(1)}", f"KRvK,{said.group(2)}"], out


def test_perft_examples(here):
    args, said = example('tbdb perft chess "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1" 5')
    assert run(args, here).strip() == said.replace(",", "")
    said = re.search(r"`(tbdb perft tictactoe start 9)` prints ([\d,]+)", TEXT)
    assert run(shlex.split(said.group(1)), here).strip() == said.group(2).replace(",", "")


def test_the_sql_functions_examples(here):
    lookup = re.search(r"^(SELECT tb_lookup\('cdc', '([^']+)'\)\.best_move); +-- '(\S+)' "
                       r"\(stored as ([^)]+)\)$", TEXT, re.M)
    assert lookup, "the README's tb_lookup example"
    out = run(["tbdb", "sql", "--db", "tb.duckdb", "--csv", lookup.group(1)], here)
    assert out.splitlines()[1] == lookup.group(3), out
    out = run(["tbdb", "sql", "--db", "tb.duckdb", "--csv",
               f"SELECT tb_canonical('cdc', '{lookup.group(2)}')"], here)
    assert out.splitlines()[1] == lookup.group(4), out


def test_the_tictactoe_rules_examples(tmp_path):
    """docs/rules/tictactoe.md: its build (into ./tbdb.duckdb, as written) and its lookups with
    what their comments say, and the counts it gives for symmetry_stats."""
    doc = (ROOT / "docs" / "rules" / "tictactoe.md").read_text()
    assert "\ntbdb build tictactoe\n" in doc
    run(["tbdb", "build", "tictactoe", "--no-progress"], tmp_path)
    looked = 0
    for line in doc.splitlines():
        if not line.startswith("tbdb lookup tictactoe "):
            continue
        command, _, comment = line.partition("  # ")
        said = re.fullmatch(r".*?(?:: )?(?:a )?(draw|win in \d+ ply|win in \d+ plies|"
                            r"loss \(game over\)|loss in \d+ plies)(?: \(best move (\d)\))?",
                            comment.strip())
        assert said, line
        out = run(shlex.split(command), tmp_path)
        assert re.search(r"^outcome: +(.*)$", out, re.M).group(1) == said.group(1), (line, out)
        if said.group(2):
            assert re.search(r"^best move: (\S+)", out, re.M).group(1) == said.group(2), out
        looked += 1
    assert looked == 4
    stats = re.search(r"`symmetry_stats` shows ([\d,]+) raw positions and ([\d,]+) stored rows",
                      doc)
    out = run(["tbdb", "sql", "--csv", "SELECT raw_positions, canonical_rows FROM symmetry_stats "
               "WHERE game = 'tictactoe'"], tmp_path)
    assert out.splitlines()[1] == f"{number(stats.group(1))},{number(stats.group(2))}", out


def test_the_readme_lookup_prints_what_it_shows(here):
    """The README's lookup example and the answer shown under it, line for line."""
    shown = re.search(r'```bash\n(tbdb lookup cdc "[^"\n]+")\n```\n```\n(.*?)```', README, re.S)
    assert shown, "the README's lookup example"
    assert run(shlex.split(shown.group(1)), here) == shown.group(2)


def test_the_readme_python_example(here):
    """The README's Python block, run as it is written beside ./tbdb.duckdb: what its first
    print says it prints."""
    block = re.search(r"```python\n(.*?)```", README, re.S).group(1)
    first = next(line for line in block.splitlines() if line.lstrip().startswith("print("))
    said = first.rpartition("# ")[2].strip()
    r = subprocess.run([sys.executable, "-c", block], cwd=here, capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.splitlines()[0] == said, r.stdout


def test_the_star_examples_build_and_look_up_what_they_say(tmp_path):
    """docs/the-games.md's 13-hole star: the build makes the slots its comment counts, and the
    lookup of the start says what the text beside it says (no player forces its own win, the
    others force each to lose, lone player 1 in 9 plies)."""
    args, said = example("tbdb build chinese-checkers --board star13 --players 3 --pieces 1")
    out = run(args + ["--no-progress"], tmp_path)
    slots = re.match(r"([\d,]+) slots", said).group(1)
    assert f"({slots} rows)" in out, out
    args, _ = example("tbdb lookup chinese-checkers 'star13-3 1/..../.../3..2/. 1'  ")
    out = run(args, tmp_path)
    assert re.search(r"^own win: +none$", out, re.M), out
    assert re.search(r"^forced loss: 1, 2, 3$", out, re.M), out
    assert "the lone player):\noutcome:   loss in 9 plies" in out, out
