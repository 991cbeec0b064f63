"""The house rules a newcomer relies on (issue 62), checked on the sources themselves.

- no import circle among tbdb's and the solvers' modules, counting imports inside functions;
- no module over 600 lines in tbdb/, solvers/ and native/ (generated files excepted), no
  function over 100 lines in tbdb/ (a Numba kernel may say in its docstring why it is longer);
- about ten modules at tbdb's root, everything else in its room;
- a ``_private`` name is never imported from another module;
- every old module name of before the rooms still imports, as the same module.
"""
from __future__ import annotations

import ast
import importlib
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ROOTS = {"tbdb": ROOT / "tbdb", "tbdb.solvers": ROOT / "solvers"}
GENERATED = {"native/src/gen_tables.h"}  # written by native/tools/gen_tables.py
ROOT_MODULES = {"__init__", "api", "build", "errors", "moved", "options", "process", "prober",
                "progress", "results", "safe_files", "safe_json"}


def _modules() -> dict[str, Path]:
    """Every Python module of the package, by its installed dotted name."""
    found = {}
    for name, top in ROOTS.items():
        for path in top.rglob("*.py"):
            if "__pycache__" in path.parts:
                continue
            rel = path.relative_to(top).with_suffix("")
            parts = list(rel.parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join([name, *parts])] = path
    return found


def _imported(path: Path, module: str, package: bool) -> set[str]:
    """The modules ``path`` imports, anywhere in it: ``from A import b`` counts A and A.b."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = module.split(".") if package else module.split(".")[:-1]
                parts = parts[:len(parts) - (node.level - 1)]
                base = ".".join(parts + ([base] if base else []))
            out.add(base)
            out |= {f"{base}.{a.name}" for a in node.names}
    return out


def _graph() -> dict[str, set[str]]:
    mods = _modules()
    return {m: {i for i in _imported(p, m, p.name == "__init__.py") if i in mods and i != m}
            for m, p in mods.items()}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index, low, on, stack, out, n = {}, {}, set(), [], [], 0
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = n
        n += 1
        stack.append(root)
        on.add(root)
        while work:
            v, edges = work[-1]
            w = next(edges, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = n
                    n += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def test_the_circle_finder_finds_a_circle():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_no_import_circles():
    assert circles(_graph()) == []


def _source_files():
    for top in ("tbdb", "solvers", "native"):
        for path in sorted((ROOT / top).rglob("*")):
            if path.suffix in (".py", ".c", ".h", ".js", ".mjs") and "build" not in path.parts \
                    and "__pycache__" not in path.parts:
                yield path


def test_no_module_over_600_lines():
    long = {str(p.relative_to(ROOT)): n for p in _source_files()
            if (n := len(p.read_text(errors="replace").splitlines())) > 600}
    assert {p: n for p, n in long.items() if p not in GENERATED} == {}


def test_no_function_over_100_lines_in_tbdb():
    long = []
    for path in (ROOT / "tbdb").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                if lines > 100:
                    long.append((str(path.relative_to(ROOT)), node.name, lines))
    assert long == []


def test_the_root_holds_only_the_front_modules():
    here = {p.stem for p in (ROOT / "tbdb").glob("*.py")}
    assert here == ROOT_MODULES


def test_no_private_name_is_imported_from_another_module():
    found = []
    mods = _modules()
    for m, path in mods.items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and \
                    (node.module.startswith("tbdb") or node.level):
                for a in node.names:
                    if a.name.startswith("_") and not a.name.startswith("__") and \
                            a.name != "_tbprobe":
                        found.append(f"{m}: {node.module}.{a.name}")
    assert found == []


@pytest.mark.parametrize("old", sorted(importlib.import_module("tbdb.moved").MOVED))
def test_every_old_module_name_still_imports_as_the_same_module(old):
    from tbdb.moved import MOVED
    assert importlib.import_module(old) is importlib.import_module(MOVED[old])
    assert sys.modules[old] is sys.modules[MOVED[old]]


def test_every_moved_module_exists_where_the_aliases_say():
    from tbdb.moved import MOVED
    for new in MOVED.values():
        rel = new.replace("tbdb.", "", 1).replace(".", os.sep)
        assert (ROOT / "tbdb" / f"{rel}.py").exists() or \
            (ROOT / "tbdb" / rel / "__init__.py").exists(), new
