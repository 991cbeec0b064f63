"""Direct cells (``tbdb export --direct``, docs/probe-format.md layout 3): the cell packer
against a bit-by-bit reference, a streamed export giving the held table's file byte for byte,
the command line, and damaged alphabets refused in one line by Python and by C.  (Every slot
of every game through both codings: ``test_probe_files``; C against Python: ``test_native``.)"""
from __future__ import annotations

import hashlib
import json
import os
import shutil

import numpy as np
import pytest

import tbdb
from tbdb.cli.run import main
from tbdb.probe_files import ProbeDir, ProbeFileError, export
from tbdb.probe_files.direct import ALPHABETS, Cells, Column, symbol_bits
from tbdb.probe_files.format import ProbeFile
from tbdb.probe_files.streamed import ENV

from tests.test_probe_streamed import replace_table_file


def _reference_cells(values, moves, value_bits: int, width: int) -> bytes:
    """The cells written one bit at a time, least significant bit first (the format's words)."""
    bits = []
    for i, v in enumerate(values):
        cell = int(v) | (int(moves[i]) << value_bits if moves is not None else 0)
        bits += [(cell >> b) & 1 for b in range(width)]
    out = bytearray((len(bits) + 7) // 8 + 8)
    for i, b in enumerate(bits):
        out[i >> 3] |= b << (i & 7)
    return bytes(out)


@pytest.mark.parametrize("kv, km, n", [(1, 0, 50), (1, 1, 9), (2, 0, 64), (3, 5, 333),
                                       (123, 300, 1000), (65536, 65536, 257), (7, 1, 40)])
def test_cells_pack_as_the_bit_by_bit_reference_and_read_back(kv, km, n):
    rng = np.random.default_rng(kv * 1000 + km)
    values = np.sort(rng.choice(1 << 30, kv, replace=False)).astype(np.int32) - (1 << 29)
    moves = np.arange(km, dtype=np.int32) * 3 - 1 if km else None
    at_v = rng.integers(0, kv, n)
    at_m = rng.integers(0, km, n) if km else None
    cells = Cells(values, moves)
    assert (cells.value_bits, cells.move_bits) == (symbol_bits(kv), symbol_bits(km))
    packed = cells.pack(values[at_v], moves[at_m] if km else None, tail=True)
    assert packed.tobytes() == _reference_cells(at_v, at_m, cells.value_bits, cells.width)
    # packed a chunk of 8k slots at a time, the pieces join into the same bytes
    pieces = [cells.pack(values[at_v[lo:lo + 16]], moves[at_m[lo:lo + 16]] if km else None,
                         tail=lo + 16 >= n) for lo in range(0, n, 16)]
    assert np.concatenate(pieces).tobytes() == packed.tobytes()
    v = Column(packed, cells, "values", n)
    assert v.all().tolist() == values[at_v].tolist()
    order = rng.permutation(n)
    assert v.gather(order).tolist() == values[at_v][order].tolist()
    if km:
        m = Column(packed, cells, "moves", n)
        assert m.all().tolist() == moves[at_m].tolist()
        assert [m.at(int(i)) for i in order[:20]] == moves[at_m][order[:20]].tolist()


def test_more_symbols_than_a_cell_holds_is_one_line():
    with pytest.raises(ProbeFileError, match="65,537 distinct best moves; direct cells hold at "
                                             "most 65,536"):
        Cells(np.arange(3), np.arange(65537), "cdc table 'X'")


def _export(db, out, monkeypatch, stream: int, chunk: int, moves: bool = True) -> dict:
    with monkeypatch.context() as m:
        m.setenv(ENV["stream"], str(stream))
        m.setenv(ENV["chunk"], str(chunk))
        export(db, out, progress=False, moves=moves, direct=True)
    return {(e["game"], e["table"]): e for e in ProbeDir(out).manifest["files"]}


@pytest.mark.parametrize("moves", [True, False])
def test_a_streamed_direct_export_is_the_held_tables_file(every_game_db, tmp_path, monkeypatch,
                                                          moves):
    """Tables too large to hold are written a chunk at a time from their census: the same
    bytes as the table held whole, whatever the chunk; every slot then equals the database."""
    held = _export(every_game_db, str(tmp_path / "held"), monkeypatch, 1 << 40, 1024, moves)
    index = {k for k, e in held.items() if e["storage"] == "index"}
    assert any(held[k]["slots"] > 3 * 1024 for k in index)  # several chunks
    for name, chunk in (("one", 1024), ("three", 3 * 1024)):
        got = _export(every_game_db, str(tmp_path / name), monkeypatch, 0, chunk, moves)
        for k in index:
            assert got[k]["direct"] and (got[k]["sha256"], got[k]["size"]) == \
                (held[k]["sha256"], held[k]["size"]), (name, k)
    assert main(["verify", "--db", str(tmp_path / "one"), "--against", every_game_db,
                 "--no-progress"]) == 0


def test_the_export_command_writes_direct_cells(every_game_db, tmp_path, capsys):
    out = str(tmp_path / "probe")
    assert main(["export", "--db", every_game_db, "--out", out, "--game", "cdc", "--direct",
                 "--no-progress"]) == 0
    m = json.load(open(os.path.join(out, "manifest.json")))
    assert m["files"] and all(e["direct"] and e["source"]["direct"] for e in m["files"])
    f = ProbeFile(os.path.join(out, m["files"][0]["path"]))
    assert f.direct and list(f.sections) == ["CALP", "CELL"]
    f.close()
    capsys.readouterr()
    assert main(["lookup", "cdc", "8/8/8/pKC5 r", "--db", out, "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert (got["outcome"], got["distance"], got["best_move"]) == ("win", 1, "c1xa1")


def _damaged_copy(src: str, dst: str, table: str, change) -> str:
    """A copy of directory ``src`` whose ``table``'s CALP section went through ``change``
    (bytes -> bytes of the same length), checksums made to agree: only the reader's checks of
    the section's contents can refuse it."""
    shutil.copytree(src, dst)
    e = ProbeDir(dst).entries[("cdc", table)]
    f = ProbeFile(os.path.join(dst, e["path"]))
    off, length, _ = f.sections["CALP"]
    data = bytearray(bytes(f.buf))
    f.close()
    data[off:off + length] = change(bytes(data[off:off + length]))
    meta = int.from_bytes(data[44:48], "little")
    entry = 48 + meta + -meta % 8  # CALP, the first section
    data[entry + 24:entry + 56] = hashlib.sha256(data[off:off + length]).digest()
    replace_table_file(dst, table, bytes(data))
    return e["path"]


def _swap_values(calp: bytes) -> bytes:
    kv = int.from_bytes(calp[:4], "little")
    assert kv >= 2
    a = bytearray(calp)
    a[16:20], a[20:24] = calp[20:24], calp[16:20]  # the first two values out of order
    return bytes(a)


def _wider(calp: bytes) -> bytes:
    a = bytearray(calp)
    a[8:12] = (int.from_bytes(calp[8:12], "little") + 1).to_bytes(4, "little")
    return bytes(a)


@pytest.mark.parametrize("change, words", [(_swap_values, "CALP"), (_wider, "CALP")])
def test_a_damaged_alphabet_is_refused_in_one_line(every_game_db, tmp_path, change, words):
    from tests.native_lib import Lib, compiler
    src = str(tmp_path / "src")
    export(every_game_db, src, game="cdc", progress=False, direct=True)
    out = str(tmp_path / "bad")
    rel = _damaged_copy(src, out, "KCvP", change)
    with tbdb.open(out) as tb:
        with pytest.raises(ProbeFileError, match=rf"KCvP.tbp.*{words}.*damaged") as err:
            tb.lookup("8/8/8/pKC5 r", game="cdc")
        assert "\n" not in str(err.value)
    if compiler() is not None:
        with pytest.raises(OSError, match=rf"{rel}.*CALP"):
            Lib().open(out)
    assert ALPHABETS.size == 16


def test_a_table_of_no_slots_still_names_a_symbol_a_column():
    """No slots, no values: CALP still holds a value (NONE's) and a move (none), so that the
    file it makes is one a reader accepts (each alphabet holds a symbol)."""
    from tbdb.probe_files.container import file_parts
    from tbdb.probe_files.header import DIRECT
    from tbdb.probe_files.direct import direct_sections
    row = {"table_name": "X", "storage": "index", "params": {}, "slots": 0, "positions": 0}
    sections = direct_sections(np.zeros(0, np.int32), np.zeros(0, np.int32), "cdc table 'X'")
    cells = Cells.parse(np.frombuffer(sections[0][1], np.uint8), True, "X")
    assert (cells.values.tolist(), cells.moves.tolist(), cells.width) == ([-3 << 16], [-1], 0)
    assert len(sections[1][1]) == cells.cell_bytes(0) == 8
    data = b"".join(file_parts("cdc", row, True, 0, 0, sections, DIRECT))
    assert len(data) % 8 == 0
