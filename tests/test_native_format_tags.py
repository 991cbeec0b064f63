"""The C prober's names for the probe-file format (native/src/format.h) against Python's: the
magic, version, header sizes, flags, layouts and storage names against tbdb.probe_files.header,
and each layout's section tags against the files tbdb.probe_files writes."""
from __future__ import annotations

import json
import os
import re
from types import SimpleNamespace

import numpy as np
import pytest

from tbdb.probe_files import directory, format as fmt, header, streamed_runs

FORMAT_H = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        "native", "src", "format.h")


def _c_names() -> dict:
    """format.h's #defines (strings, integers, or lists of other names, expanded) and enum."""
    with open(FORMAT_H) as f:
        text = re.sub(r"/\*.*?\*/", "", f.read(), flags=re.S).replace("\\\n", " ")
    names: dict = {}
    for name, value in re.findall(r"^#define (TB_\w+) (.+)$", text, re.M):
        items = [v.strip() for v in value.split(",")]
        parsed = []
        for v in items:
            if v.startswith('"'):
                parsed.append(json.loads(v))
            elif re.fullmatch(r"\d+", v):
                parsed.append(int(v))
            else:
                parsed.extend(names[v] if isinstance(names[v], list) else [names[v]])
        names[name] = parsed if len(items) > 1 or name.endswith("_SECTIONS") else parsed[0]
    for body in re.findall(r"enum \{([^}]*)\}", text):
        for name, value in re.findall(r"(TB_\w+) = (\d+)", body):
            names[name] = int(value)
    return names


C = _c_names()
TAGS = {k: v for k, v in C.items() if k.startswith("TB_SECTION_") and isinstance(v, str)}
LAYOUT_SECTIONS = {"TB_LAYOUT_INDEX": "TB_INDEX_SECTIONS", "TB_LAYOUT_KEY": "TB_KEY_SECTIONS",
                   "TB_LAYOUT_RUNS": "TB_RUNS_SECTIONS", "TB_LAYOUT_DIRECT": "TB_DIRECT_SECTIONS"}


def _python(value):
    return value.decode() if isinstance(value, bytes) else value


def test_every_name_python_has_too_is_pythons():
    """TB_X against header.X wherever Python has X; and Python names every tag and layout."""
    shared = [k for k, v in C.items() if not isinstance(v, list) and hasattr(header, k[3:])]
    assert {k: C[k] for k in shared} == {k: _python(getattr(header, k[3:])) for k in shared}
    for name in [*TAGS, *LAYOUT_SECTIONS, "TB_FORMAT_VERSION", "TB_MAGIC", "TB_MANIFEST",
                 "TB_FLAG_MOVES"]:
        assert name in shared, f"tbdb.probe_files.header has no {name[3:]}"


def test_header_constants_are_pythons():
    assert C["TB_MAGIC"].encode() == header.MAGIC and C["TB_MAGIC_BYTES"] == len(header.MAGIC)
    assert C["TB_FORMAT_VERSION"] == header.VERSION
    assert C["TB_HEADER_BYTES"] == header.HEADER.size
    assert C["TB_SECTION_ENTRY_BYTES"] == header.SECTION.size
    assert {"index": C["TB_LAYOUT_INDEX"], "key": C["TB_LAYOUT_KEY"],
            "runs": C["TB_LAYOUT_RUNS"]} == header.LAYOUTS
    assert C["TB_LAYOUT_COUNT"] == len(header.STORAGE_OF_LAYOUT) == len(LAYOUT_SECTIONS)
    assert C["TB_STORAGE_OF_LAYOUT"] == [header.STORAGE_OF_LAYOUT[i]
                                         for i in range(C["TB_LAYOUT_COUNT"])]


def test_manifest_format_is_what_python_writes(tmp_path):
    directory.write_manifest(str(tmp_path), {})
    with open(tmp_path / header.MANIFEST) as f:
        manifest = json.load(f)
    assert manifest["format"] == C["TB_MANIFEST_FORMAT"]
    assert manifest["version"] == C["TB_FORMAT_VERSION"]


def _tags(data: bytes) -> tuple[int, list[str]]:
    """A probe file's layout and its section table's tags, in order."""
    fields = header.HEADER.unpack(data[:header.HEADER.size])
    layout, sections, meta = fields[3], fields[7], fields[8]
    at = header.HEADER.size + meta + header.pad8(meta)
    return layout, [header.SECTION.unpack(data[at + i * header.SECTION.size:
                                               at + (i + 1) * header.SECTION.size])[0].decode()
                    for i in range(sections)]


def _row(storage: str, slots: int) -> dict:
    return {"table_name": "t", "storage": storage, "params": {}, "layout": None,
            "slots": slots, "positions": slots}


def _written(storage: str, values, moves: bool, direct: bool = False) -> bytes:
    return fmt.write_table("tictactoe", _row(storage, 8), values, moves, direct)


INDEX = SimpleNamespace(result=np.array([1, 0, -1, 1, 0, 0, 1, -1], np.int8),
                        distance=np.arange(8, dtype=np.int16),
                        best=np.arange(8, dtype=np.int32))
KEYS = [SimpleNamespace(keys=np.array([[1, 2], [3, 4]], np.int64),
                        constraint=np.array([0, 1], np.int8),
                        result=np.array([1, -1], np.int8), distance=np.array([3, 4], np.int16),
                        best=np.array([5, 6], np.int32))]
RUNS = SimpleNamespace(offsets=np.array([0, 1, 3], np.int64), start=np.array([0, 0, 5], np.int16),
                       score=np.array([1, 2, 3], np.int8), move=np.array([0, 1, 2], np.int8))


@pytest.mark.parametrize("storage, values, moves, direct, layout", [
    ("index", INDEX, True, False, "TB_LAYOUT_INDEX"),
    ("index", INDEX, False, False, "TB_LAYOUT_INDEX"),
    ("index", INDEX, True, True, "TB_LAYOUT_DIRECT"),
    ("key", KEYS, True, False, "TB_LAYOUT_KEY"),
    ("key", KEYS, False, False, "TB_LAYOUT_KEY"),
    ("runs", RUNS, True, False, "TB_LAYOUT_RUNS"),
])
def test_section_tags_are_what_python_writes(storage, values, moves, direct, layout):
    number, written = _tags(_written(storage, values, moves, direct))
    want = C[LAYOUT_SECTIONS[layout]]
    if not moves:  # an index or key table without best moves leaves out its last section
        want = want[:-1]
    assert written == want and number == C[layout]


def test_streamed_runs_tags_and_every_tag_in_a_layout():
    assert [t.decode() for t in streamed_runs.TAGS] == C["TB_RUNS_SECTIONS"]
    in_layouts = [t for k in LAYOUT_SECTIONS.values() for t in C[k]]
    assert sorted(TAGS.values()) == sorted(in_layouts) and all(len(t) == 4 for t in in_layouts)
