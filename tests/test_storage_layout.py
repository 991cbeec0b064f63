"""Storage kinds own their layouts: no code outside ``tbdb/storage`` compares a storage kind, a
value kind or a probe-file layout with a string (it asks the kind: ``storage_of(x).probe_file``,
``.clusterable``, ...), and each kind's probe-file layout is the one the header names."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tbdb import storage
from tbdb.probe_files import header

ROOT = Path(__file__).resolve().parent.parent / "tbdb"
# the kinds' names, their value kinds, and the probe-file layouts' names
NAMES = frozenset({*storage.KINDS, *(k.value_kind for k in storage.KINDS.values()), "direct"})
# (a file or a folder of tbdb/, the compare's source) left for now, each with why
def string_tests(source: str) -> list[tuple[int, str]]:
    """(line, source) of every compare in ``source`` of something with one of ``NAMES``: ``==``
    or ``!=`` a name, ``in`` / ``not in`` a literal collection holding one, or a name ``in`` a
    string.  (A name ``in`` a mapping, ``"score" in result.extras``, asks for a field.)"""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Compare):
            continue
        left = node.left
        for op, right in zip(node.ops, node.comparators):
            if isinstance(op, (ast.Eq, ast.NotEq)):
                hit = _name(left) or _name(right)
            elif isinstance(op, (ast.In, ast.NotIn)):
                hit = (isinstance(right, (ast.Tuple, ast.List, ast.Set))
                       and any(_name(e) for e in right.elts)) or \
                    (_name(left) and isinstance(right, ast.Constant))
            else:
                hit = False
            if hit:
                found.append((node.lineno, ast.get_source_segment(source, node)))
            left = right
    return found


def _name(node) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in NAMES


def test_the_checker_finds_string_tests_of_kinds():
    src = ('a = row["storage"] == "index"\nb = kind != "runs"\nc = s.value_kind in ("wdl", "x")'
           '\nd = "score" in extras\ne = f"{x}" == "slots"\n')
    assert [line for line, _ in string_tests(src)] == [1, 2, 3]


def test_no_code_outside_storage_compares_a_kind_with_a_string():
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith("storage/"):
            continue
        for line, text in string_tests(path.read_text(encoding="utf-8")):
            found.append(f"tbdb/{rel}:{line}: {text}")
    assert not found, "ask the storage kind (tbdb.storage.storage_of(...)), not its name:\n" + \
        "\n".join(found)


@pytest.mark.parametrize("name", sorted(storage.KINDS))
def test_each_kind_owns_the_layout_its_header_number_names(name):
    kind = storage.KINDS[name]
    layout = kind.probe_file
    assert header.STORAGE_OF_LAYOUT[layout.number] == name
    assert layout.direct_cells == (header.STORAGE_OF_LAYOUT[header.LAYOUT_DIRECT] == name)


def test_section_tags_are_four_distinct_ascii_bytes():
    tags = {k: v for k, v in vars(header).items() if k.startswith("SECTION_") and k != "SECTION"}
    assert len(tags) == 13 and len(set(tags.values())) == len(tags)
    assert all(isinstance(t, bytes) and len(t) == 4 and t.isascii() for t in tags.values())
