"""Crafted probe directories (issue 61, items 7 and 8): manifests that disagree with their files'
headers, and tables whose stored best moves or results are wrong while every checksum passes
(the sections and the manifest re-hashed after crafting).  ``tbdb verify --db DIR`` refuses
what a lookup refuses, naming the field and both values, and finds every slot a lookup would
stumble on; a lookup, line or moves list that meets such a value says "damaged" in one line
(the Python API, the CLI with exit 2, the web server with a JSON 500), and ``tbdb serve``
starts and answers the other tables."""
import json
import os
import shutil
from types import SimpleNamespace

import numpy as np
import pytest

import tbdb
from tbdb import games
from tbdb.cli.run import main
from tbdb.errors import TbdbError
from tbdb.probe_files import export, verify_dir
from tbdb.probe_files.build_dir import FileValues
from tbdb.probe_files.directory import sha256_file
from tbdb.probe_files.format import ProbeFile, write_table
from tbdb.probe_files.header import ProbeFileError
from tbdb.solvers.retrograde import DRAW, ILLEGAL, LOSS, WIN

# (game, table crafted, what the build takes): a small table of each game with best moves
TABLES = [("cdc", "KCvP", {"material": "KCvP"}),
          ("chess", "KPvK", {"material": "KPvK"}),
          ("chinese-checkers", "4x4-1", {"board": 4, "pieces": 1}),
          ("shogi", "KGK", {"table": "KGK"})]


@pytest.fixture(scope="session")
def source(tmp_path_factory):
    """One directory of probe files of every table of ``TABLES`` (and what they read)."""
    base = tmp_path_factory.mktemp("crafted")
    db = str(base / "tb.duckdb")
    for game, _, build in TABLES:
        tbdb.build(game, db=db, progress=False, **build)
    out = str(base / "dir")
    export(db, out, progress=False)
    direct = str(base / "direct")
    export(db, direct, game="cdc", progress=False, direct=True)
    return SimpleNamespace(path=out, direct=direct)


# --------------------------------------------------------------------------- crafting

def stored(path: str, game: str, table: str):
    """(result, distance, best) of a table of directory ``path``, decoded in the game's slot
    order, and its file's header (what ``craft`` writes back)."""
    e = _entry(path, game, table)
    f = ProbeFile(os.path.join(path, e["path"]))
    try:
        if f.direct:
            from tbdb.probe_files.direct import Cells, Column
            from tbdb.probe_files.coder import unpack_values
            layout = Cells.parse(f.section("CALP"), f.moves, f.path)
            cells = f.section("CELL")
            result, distance = unpack_values(Column(cells, layout, "values", f.slots).all())
            best = Column(cells, layout, "moves", f.slots).all().astype(np.int32)
        else:
            v = FileValues(f)
            result, distance, best = v.result.copy(), v.distance.copy(), v.best.copy()
        return result.copy(), distance.copy(), best.copy(), dict(f.meta), f.direct
    finally:
        f.close()


def craft(src: str, dst: str, game: str, table: str, change) -> None:
    """Copy directory ``src`` to ``dst`` with ``table``'s values changed by ``change(result,
    distance, best)`` (in place), coded again by tbdb's own writer, the file's sections hashed
    again (the writer does) and its manifest entry given the new size and sha256: every
    checksum passes."""
    shutil.copytree(src, dst)
    result, distance, best, meta, direct = stored(dst, game, table)
    change(result, distance, best)
    row = {"table_name": meta["table"], "storage": meta["storage"], "params": meta["params"],
           "layout": meta["layout"], "slots": meta["slots"], "positions": meta["positions"]}
    data = write_table(game, row, SimpleNamespace(result=result, distance=distance, best=best),
                       moves=True, direct=direct)
    m = _manifest(dst)
    e = next(e for e in m["files"] if (e["game"], e["table"]) == (game, table))
    path = os.path.join(dst, e["path"])
    os.remove(path)
    with open(path, "wb") as f:
        f.write(data)
    e["size"], e["sha256"] = len(data), sha256_file(path)
    _write_manifest(dst, m)


def _manifest(path: str) -> dict:
    with open(os.path.join(path, "manifest.json")) as f:
        return json.load(f)


def _write_manifest(path: str, m: dict) -> None:
    with open(os.path.join(path, "manifest.json"), "w") as f:
        json.dump(m, f)


def _entry(path: str, game: str, table: str) -> dict:
    return next(e for e in _manifest(path)["files"] if (e["game"], e["table"]) == (game, table))


def _checksums_pass(path: str) -> bool:
    """What ``verify --db DIR`` checked before: sizes, sha256s, the sections' checksums."""
    for e in _manifest(path)["files"]:
        p = os.path.join(path, e["path"])
        f = ProbeFile(p)
        bad = f.verify()
        f.close()
        if bad or os.path.getsize(p) != e["size"] or sha256_file(p) != e["sha256"]:
            return False
    return True


def _decided_slots(path, game, table, n=6):
    """Up to ``n`` slots, spread over the table, of won or lost positions with a best move."""
    result, _, best, _, _ = stored(path, game, table)
    slots = np.flatnonzero(((result == WIN) | (result == LOSS)) & (best >= 0))
    return [int(s) for s in slots[np.linspace(0, len(slots) - 1, n).astype(int)]]


def _text(game, table, slot):
    g = games.get(game)
    text = g.text(g.parse(g.slot_text(table, slot)))
    loc = g.locate(g.parse(text))
    assert (loc.table, loc.key) == (table, slot)  # the position is the slot's own
    return text


def _illegal_code(path, game, table, slot):
    """A best move code stored elsewhere in the table that is no legal move at ``slot``."""
    g = games.get(game)
    p = g.parse(g.slot_text(table, slot))
    sym = g.locate(p).sym
    legal = {s.move for s in g.successors(p)}
    _, _, best, _, _ = stored(path, game, table)
    for code in np.unique(best[best >= 0]).tolist():
        try:
            if g.move_text(p, code, sym) not in legal:
                return code
        except ValueError:
            continue
    raise AssertionError("every stored move code is legal here")


def _changes(path, game, table, slot):
    """The crafted variants of one slot: (name, change)."""
    illegal = _illegal_code(path, game, table, slot)

    def out_of_range(r, d, b):
        b[slot] = 1 << 24

    def negative(r, d, b):
        b[slot] = 1 << 30

    def not_legal(r, d, b):
        b[slot] = illegal

    def illegal_result(r, d, b):
        r[slot] = ILLEGAL

    def longer(r, d, b):
        d[slot] += 2

    return [("out_of_range", out_of_range), ("huge", negative), ("not_legal", not_legal),
            ("illegal_result", illegal_result), ("longer", longer)]


def _readers(tb, game, text):
    """What each reader does with position ``text``: {reader: None (answered) or the error}.
    Anything not a tbdb error is raised (the bug)."""
    out = {}
    for name, read in (("lookup", lambda: tb.lookup(text, game=game)),
                       ("line", lambda: tb.lookup(text, game=game).line()),
                       ("moves", lambda: tb.lookup(text, game=game).moves),
                       ("to_dict", lambda: tb.lookup(text, game=game).to_dict())):
        try:
            read()
            out[name] = None
        except TbdbError as exc:
            assert len(str(exc).splitlines()) == 1, str(exc)
            out[name] = exc
    return out


@pytest.fixture(params=["native", "python"])
def path_kind(request, monkeypatch):
    """Lookups through libtbprobe where it is built, and through the Python path alone."""
    if request.param == "python":
        monkeypatch.setenv("TBDB_NATIVE", "0")
    return request.param


# --------------------------------------------------------------------------- item 7

def test_the_source_directory_verifies_clean(source, capsys):
    assert main(["verify", "--db", source.path]) == 0
    assert main(["verify", "--db", source.direct]) == 0
    assert _checksums_pass(source.path)


@pytest.mark.parametrize("pair", [(("cdc", "CvP"), ("cdc", "KCvP")),
                                  (("cdc", "KCvP"), ("chess", "KQvK"))])
def test_verify_refuses_entries_that_swap_their_files(source, tmp_path, pair, path_kind,
                                                      capsys):
    d = str(tmp_path / "d")
    shutil.copytree(source.path, d)
    m = _manifest(d)
    (a,), (b,) = ([e for e in m["files"] if (e["game"], e["table"]) == k] for k in pair)
    for k in ("path", "size", "sha256"):
        a[k], b[k] = b[k], a[k]
    _write_manifest(d, m)
    assert _checksums_pass(d)  # sizes and sha256s all match: only the headers tell
    checked, problems = verify_dir(d)
    assert len(problems) == 2, problems
    field = "game" if pair[0][0] != pair[1][0] else "table"
    assert all(f"its header says {field} " in p for p in problems), problems
    assert any(f'"{pair[1][1] if field == "table" else pair[1][0]}"' in p
               and f'"{pair[0][1] if field == "table" else pair[0][0]}"' in p
               for p in problems), problems
    assert main(["verify", "--db", d]) == 1
    # lookup refuses the same files, naming the field and both values
    sample = games.get(pair[0][0]).sample if pair[0] == ("cdc", "KCvP") else "8/8/8/pKC5 r"
    with tbdb.open(d) as tb:
        with pytest.raises(ProbeFileError) as err:
            tb.lookup(sample, game=pair[0][0])
    assert "its header says" in str(err.value) and "holds cdc table" not in str(err.value)


@pytest.mark.parametrize("field,value,shown", [
    ("slots", 0, "slots 14880, the manifest 0"),
    ("storage", "key", 'storage "index", the manifest "key"'),
    ("params", {}, "the manifest {}"),
    ("positions", 1, "the manifest 1"),
    ("layout", "cdc:9", 'the manifest "cdc:9"'),
    ("moves", False, "moves true, the manifest false")])
def test_verify_refuses_an_entry_its_header_contradicts(source, tmp_path, field, value, shown,
                                                        path_kind, capsys):
    d = str(tmp_path / "d")
    shutil.copytree(source.path, d)
    m = _manifest(d)
    e = next(e for e in m["files"] if e["table"] == "KCvP")
    e[field] = value
    _write_manifest(d, m)
    _, problems = verify_dir(d)
    assert len(problems) == 1 and "cdc/KCvP.tbp: not the file its manifest lists" in \
        problems[0] and shown in problems[0], problems
    assert main(["verify", "--db", d]) == 1
    assert shown in capsys.readouterr().out
    if path_kind == "native":  # (libtbprobe opens the files it reads itself: not here)
        return
    with tbdb.open(d) as tb:  # the Python path's lookup refuses it as verify does
        with pytest.raises(ProbeFileError) as err:
            tb.lookup("8/8/8/pKC5 r", game="cdc")
    assert shown in str(err.value) and "not the file its manifest lists" in str(err.value)
    assert main(["lookup", "cdc", "8/8/8/pKC5 r", "--db", d]) == 2
    assert shown in capsys.readouterr().err


# --------------------------------------------------------------------------- item 8

def test_crafting_keeps_every_checksum(source, tmp_path):
    slot = _decided_slots(source.path, "cdc", "KCvP")[0]
    d = str(tmp_path / "d")
    craft(source.path, d, "cdc", "KCvP", lambda r, dist, b: b.__setitem__(slot, 1 << 24))
    assert _checksums_pass(d)
    assert stored(d, "cdc", "KCvP")[2][slot] == 1 << 24
    # the slots not crafted decode as they did
    before, after = stored(source.path, "cdc", "KCvP"), stored(d, "cdc", "KCvP")
    keep = np.arange(len(before[0])) != slot
    assert all((x[keep] == y[keep]).all() for x, y in zip(before[:3], after[:3]))


@pytest.mark.parametrize("game,table", [(g, t) for g, t, _ in TABLES])
def test_verify_and_lookups_on_crafted_values(source, tmp_path, game, table, path_kind,
                                              capsys):
    slot = _decided_slots(source.path, game, table)[2]
    text = _text(game, table, slot)
    for name, change in _changes(source.path, game, table, slot):
        d = str(tmp_path / name)
        craft(source.path, d, game, table, change)
        assert _checksums_pass(d)
        _, problems = verify_dir(d, game)
        assert len(problems) == 1 and f"slot {slot}:" in problems[0] and \
            "damaged" in problems[0], (name, problems)
        with tbdb.open(d) as tb:
            got = _readers(tb, game, text)
        if name == "longer":  # a value the rules contradict, but no reader stumbles on it
            continue
        # the line always follows the stored move: damaged; an illegal but decodable move is
        # only found out where the legal moves are made (line), the rest fail at once
        must = ["line"] if name == "not_legal" else ["lookup", "line", "moves", "to_dict"]
        for reader in must:
            assert got[reader] is not None and "damaged" in str(got[reader]), (name, got)
        assert main(["lookup", game, text, "--db", d, "--line"]) == 2
        err = capsys.readouterr().err.strip()
        assert "damaged" in err and len(err.splitlines()) == 1 and "Traceback" not in err


def test_verify_of_a_direct_file_finds_a_crafted_move(source, tmp_path):
    slot = _decided_slots(source.direct, "cdc", "KCvP")[1]
    d = str(tmp_path / "d")
    craft(source.direct, d, "cdc", "KCvP", lambda r, dist, b: b.__setitem__(slot, 1 << 24))
    assert _entry(d, "cdc", "KCvP").get("direct") and _checksums_pass(d)
    _, problems = verify_dir(d)
    assert len(problems) == 1 and f"slot {slot}:" in problems[0], problems
    with tbdb.open(d) as tb:
        with pytest.raises(TbdbError, match="damaged"):
            tb.lookup(_text("cdc", "KCvP", slot), game="cdc")


@pytest.mark.parametrize("game,table", [(g, t) for g, t, _ in TABLES])
def test_a_line_through_an_illegal_result_says_damaged(source, tmp_path, game, table,
                                                       path_kind):
    """The stored result ILLEGAL on a position a line reaches (the child its best move leads
    to, in whichever table holds it): the start answers, the line says damaged."""
    g = games.get(game)
    result, distance = stored(source.path, game, table)[:2]
    decided = np.flatnonzero((result == WIN) | (result == LOSS))
    longest = decided[np.argsort(-distance[decided], kind="stable")][:20]
    draws = np.flatnonzero(result == DRAW)[::997][:20]  # (CDC's KCvP: wins in 1 and draws)
    for slot in np.concatenate([longest, draws]).tolist():
        if result[slot] != DRAW and distance[slot] < 2:  # (a win in 1 ends the game)
            continue
        text = _text(game, table, slot)
        with tbdb.open(source.path) as tb:
            child = tb.lookup(text, game=game).line()[0].position
        loc = g.locate(g.parse(child))
        if getattr(loc, "table", None):  # a stored position, not a game over
            break
    d = str(tmp_path / "d")
    craft(source.path, d, game, loc.table, lambda r, dist, b: r.__setitem__(loc.key, ILLEGAL))
    with tbdb.open(d) as tb:
        r = tb.lookup(text, game=game)
        with pytest.raises(TbdbError, match="damaged"):
            r.line()
        with pytest.raises(TbdbError, match="damaged"):
            r.moves
    assert len(verify_dir(d)[1]) >= 1


def test_serve_starts_on_a_crafted_directory_and_answers_the_rest(source, tmp_path):
    from starlette.testclient import TestClient
    from tbdb.web.app import create_app
    cdc = games.get("cdc")
    loc = cdc.locate(cdc.parse(cdc.sample))  # the sample serve looks up while preparing
    d = str(tmp_path / "d")
    craft(source.path, d, "cdc", loc.table, lambda r, dist, b: b.__setitem__(loc.key, 1 << 24))
    app = create_app(d)
    app.state.explorer.prepare()  # raised IndexError (tbdb serve did not start)
    chess = games.get("chess").sample
    with TestClient(app) as client:
        for url in ("/api/cdc", "/api/cdc/line", "/api/cdc/game"):
            r = client.get(url, params={"position": cdc.sample})
            assert r.status_code == 500 and "damaged" in r.json()["error"], (url, r.text)
        assert client.get("/api/chess", params={"position": chess}).status_code == 200
        assert client.get("/api/games").status_code == 200


@pytest.mark.parametrize("game,table", [(g, t) for g, t, _ in TABLES])
def test_a_sweep_of_crafted_slots_never_crashes_a_reader(source, tmp_path, game, table):
    """Many slots, every variant: no reader raises anything but a one-line tbdb error, and
    what a reader refuses as damaged, verify refuses too."""
    for i, slot in enumerate(_decided_slots(source.path, game, table, 3)):
        text = _text(game, table, slot)
        for name, change in _changes(source.path, game, table, slot):
            d = str(tmp_path / f"{i}-{name}")
            craft(source.path, d, game, table, change)
            with tbdb.open(d) as tb:
                got = _readers(tb, game, text)
            refused = [r for r, exc in got.items() if exc is not None]
            problems = verify_dir(d, game)[1]
            assert problems or not refused, (name, slot, got)
            shutil.rmtree(d)
