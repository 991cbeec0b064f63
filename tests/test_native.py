"""The C prober (native/, issue 25) against Python: every slot of the example tables and
random positions through the C index functions equal ``tb.lookup_arrays``; text parsers and
move text equal tbdb's; the tbprobe tool prints what ``tbdb lookup --json`` prints."""
from __future__ import annotations

import json
import os
import random
import subprocess

import numpy as np
import pytest

import tbdb
from tbdb import games
from tbdb.errors import InvalidPositionError, MissingTableError
from tbdb.games.base import GameOver
from tbdb.probe_files import ProbeDir, export

from tests.native_lib import NATIVE, STATUS, Lib, make

N_RANDOM = 100_000


@pytest.fixture(scope="module")
def lib():
    return Lib()


@pytest.fixture(scope="module")
def probe_dir(every_game_db, tmp_path_factory):
    out = str(tmp_path_factory.mktemp("native") / "probe")
    export(every_game_db, out, progress=False)
    return out


@pytest.fixture(scope="module")
def direct_dir(every_game_db, tmp_path_factory):
    """The same tables with index tables in direct cells (``tbdb export --direct``)."""
    out = str(tmp_path_factory.mktemp("native-direct") / "probe")
    export(every_game_db, out, progress=False, direct=True)
    return out


@pytest.fixture(scope="module")
def both(lib, probe_dir):
    """(C base, Python tablebase) over the same probe files."""
    base = lib.open(probe_dir)
    with tbdb.open(probe_dir) as tb:
        yield base, tb
    base.close()


def _slot_texts(probe_dir: str, game: str):
    """(table, every slot's position text) of each of the game's tables."""
    entries = ProbeDir(probe_dir).entries
    g = games.get(game)
    for (name, table), e in sorted(entries.items()):
        if name == game:
            yield table, [g.slot_text(table, s) for s in range(e["slots"])]


def _compare(base, tb, game_name: str, positions, m: int = 0):
    """C probes of the positions' arrays equal lookup_arrays (status ok on every row)."""
    game = games.get(game_name)
    arrays = game.encode_batch(positions)
    sides = arrays[1] if len(arrays) > 1 else np.zeros(len(positions), np.int8)
    ep = arrays[2] if game_name == "chess" else None  # chess: boards, turns, ep squares
    if m < 0:  # a small star (m = -holes): its players in the constraint column
        ep = np.full(len(positions), positions[0].players, np.int32)
    got = base.probe_rows(game_name, arrays[0], sides, m, constraints=ep)
    bad = np.flatnonzero(got[0] != 0)
    assert not len(bad), (positions[bad[0]].text, STATUS[int(got[0, bad[0]])])
    result, distance, best = tb.lookup_arrays(game_name, *arrays)
    for i, want in enumerate((result, distance, best)):
        diff = np.flatnonzero(got[i + 1] != want)
        assert not len(diff), (positions[diff[0]].text, i, got[i + 1, diff[0]], want[diff[0]])
    return got


def _compare_texts(lib, base, tb, game_name: str, texts, m: int = 0):
    """Every text: C parses it to the board Python parses, and C's value equals Python's
    (lookup_arrays for legal positions; TB_ILLEGAL where Python's locate refuses it)."""
    game = games.get(game_name)
    legal = []
    for text in texts:
        p = game.parse(text)
        try:
            game.locate(p)
        except InvalidPositionError:
            st, *_ = base.probe_text(game_name, text)
            assert STATUS[st] == "illegal", text
            continue
        legal.append(p)
    got = _compare(base, tb, game_name, legal, m)
    # the text path: same parse, same move text as tbdb's lookup
    for i in range(0, len(legal), max(1, len(legal) // 300)):
        p = legal[i]
        c = lib.parse(game_name, p.text)
        assert list(c.cells[:len(game.encode_batch([p])[0][0])]) == \
            game.encode_batch([p])[0][0].tolist()
        r = tb.lookup(p.text, game=game_name)
        st, result, distance, move = base.probe_text(game_name, p.text)
        assert (st >= 0, r.distance, move) == (True, distance, r.best_move
                                               if got[3, i] >= 0 else None), p.text
    return len(legal)


def test_cdc_every_slot_equals_python(lib, both, probe_dir):
    base, tb = both
    for table, texts in _slot_texts(probe_dir, "cdc"):
        assert _compare_texts(lib, base, tb, "cdc", texts) == len(texts)


def _cc_board(table: str) -> int:
    """compare.c's M of a Chinese Checkers table: the rhombus size, or -holes of a star's."""
    if table.startswith("star"):
        return -int(table[4:].split("-")[0])
    return int(table.split("x")[0])


def test_chinese_checkers_every_slot_equals_python(lib, both, probe_dir):
    base, tb = both
    n = 0
    for table, texts in _slot_texts(probe_dir, "chinese-checkers"):
        n += _compare_texts(lib, base, tb, "chinese-checkers", texts, m=_cc_board(table))
    assert n > 100


def test_tictactoe_every_row_equals_python(lib, both, every_game_db):
    base, tb = both
    g = games.get("tictactoe")
    boards = []  # every reachable board: all 3^9 boards that are possible
    for code in range(3 ** 9):
        cells = tuple((code // 3 ** i) % 3 for i in range(9))
        if g.position_type(cells).impossible() is None:
            boards.append(g.position_type(cells))
    assert len(boards) == 5478
    _compare(base, tb, "tictactoe", boards)
    for p in boards[::50]:
        assert base.probe_text("tictactoe", p.text)[3] == tb.lookup(p.text, game="tictactoe").best_move


def _random_cdc(rnd: random.Random, materials) -> list:
    from tbdb.games.cdc.position import Position
    out = []
    for _ in range(N_RANDOM):
        codes = rnd.choice(materials)
        squares = rnd.sample(range(32), len(codes))
        board = [-1] * 32
        for c, s in zip(codes, squares):
            board[s] = c
        out.append(Position(tuple(board), rnd.randrange(2)))
    return out


def test_cdc_random_positions_equal_lookup_arrays(both):
    base, tb = both
    # KCvP and CvP in both colourings: red K C v black P, and black K C v red P
    materials = [[0, 5, 13], [5, 13], [7, 12, 6], [12, 6]]
    _compare(base, tb, "cdc", _random_cdc(random.Random(25), materials))


def test_chinese_checkers_random_positions_equal_lookup_arrays(both):
    from tbdb.games.chinese_checkers.position import Position
    base, tb = both
    rnd = random.Random(25)
    legal, illegal = [], []
    for _ in range(N_RANDOM):
        a, b = rnd.sample(range(16), 2)
        cells = [0] * 16
        cells[a], cells[b] = 1, 2
        p = Position(4, 1, tuple(cells), rnd.choice((1, 2)))
        (illegal if p.status == "illegal" else legal).append(p)
    _compare(base, tb, "chinese-checkers", legal, m=4)
    got = base.probe_rows("chinese-checkers", np.array([p.cells for p in illegal], np.int8),
                          [p.mover for p in illegal], 4)
    assert illegal and set(got[0].tolist()) == {-1}  # TB_ILLEGAL, as Python refuses them


def test_probes_outside_the_tables_and_bad_arrays(lib, both):
    base, _ = both
    board = np.full((1, 32), -1, np.int8)
    board[0, :2] = [0, 7]  # KvK: not built
    assert STATUS[int(base.probe_rows("cdc", board, [0])[0, 0])] == "missing"
    board[0, 1] = 14
    assert STATUS[int(base.probe_rows("cdc", board, [0])[0, 0])] == "invalid"
    board[0, 1] = -1  # black has nothing: red to move cannot be, black to move has lost
    assert STATUS[int(base.probe_rows("cdc", board, [0])[0, 0])] == "invalid"
    assert base.probe_rows("cdc", board, [1])[:, 0].tolist() == [1, -1, 0, -1]  # over: loss
    cc = np.zeros((1, 16), np.int8)
    cc[0, :2] = [1, 1]
    assert STATUS[int(base.probe_rows("chinese-checkers", cc, [1], 4)[0, 0])] == "invalid"


BAD_TEXTS = {
    "cdc": ["", "8/8/8/8", "8/8/8/pKC5 x", "8/8/8/pKC5  r", "9/8/8/8 r", "44/8/8/8 r",
            "8/8/8/pKC4 r", "8/8/8/8/8 r", "8/8/8/pKQ5 r", "8/8/8/PPPPPPP1 r"],
    "chinese-checkers": ["", "4x4-1", "4x4-1 ./../.1./..../.2./../. 3", "4x5-1 . 1",
                         "4x4-1 ./../.1./..../.2./.. 1", "4x4-1 ./../.1./..../.2./../x 1",
                         "04x4-1 ./../.1./..../.2./../. 1", "4x4-2 ./../.1./..../.2./../. 1",
                         "2x2-1 ./../. 1"],
    "tictactoe": ["", "xxxx.....", "x........x", "xxxooo...", "X........"],
    "oware": ["", "0 0 0 0 0 1 0 0 0 0 0", "0 0 0 0 0 01 0 0 0 0 0 0", "0 0 0 0 0 1 0 0 0 0 0 0 0",
              "0  0 0 0 0 1 0 0 0 0 0 0", "9 9 9 9 9 9 0 0 0 0 0 0", "100 0 0 0 0 0 0 0 0 0 0 0",
              "-1 0 0 0 0 1 0 0 0 0 0 0"],
    "shogi": ["", "8k/9/9/9/9/9/9/9/K8 x G 1", "8k/9/9/9/9/9/9/9 b G 1",
              "8k/9/9/9/9/9/9/9/K7 b G 1", "8k/9/9/9/9/9/9/9/K8 b 0G 1", "8k/9/9/9/9/9/9/9/K8 b K 1",
              "8k/9/9/9/9/9/9/9/K8 b G x", "P7k/9/9/9/9/9/9/9/K8 b - 1", "8k/9/9/9/9/9/9/9/K8 b 5G 1",
              "8k/9/9/9/9/9/9/9/8 b G 1", "8k/P8/P8/9/9/9/9/9/K8 b - 1", "8k/9/9/9/9/9/9/9/K+G7 b - 1"],
    "uttt": ["", "start x -", "." * 81 + " x 9", "." * 81 + " y -", "." * 80 + "X x -",
             "XXXXXXXX." + "." * 72 + " x -"],
    "chess": ["", "8/8/8/4k3/8/8/8/KQ6", "8/8/8/4k3/8/8/8/KQ6 x - - 0 1",
              "8/8/8/4k3/8/8/8/KQ6 w KQ - 0 1", "8/8/8/4k3/8/8/8/KQ5 w - - 0 1",
              "8/8/4k3/8/8/8/KQ6 w - - 0 1", "8/8/8/4k3/8/8/8/KQ6 w - - 0 0",
              "8/8/8/4k3/8/8/8/KQ6 w - e9 0 1", "8/8/8/4k3/8/8/8/KQ6 w - e3 0 1",
              "8/8/8/4k3/8/8/8/KQ7 w - - 0 1", "8/8/8/8/8/8/8/KQ6 w - - 0 1",
              "4k3/4Q3/8/8/8/8/8/4K3 w - - 0 1", "P3k3/8/8/8/8/8/8/4K3 w - - 0 1",
              "8/8/8/4k3/8/8/8/KQ6  w - - 0 1", "8/8/8/4k3/8/8/8/K11Q5 w - - 0 1",
              "8/8/8/4k3/8/8/8/KX6 w - - 0 1", "8/8/8/4k3/8/8/8/KQ6 w - - 0 1 2",
              "8/8/8/4k3/8/8/8/KQ6 w - - x 1", "8/8/8/4k3/8/8/8/KQ6 w - - 0 1234567"],
}


def _chess_rows(probe_dir: str, per_table: int, rnd) -> list:
    """Random legal positions of every chess table, each with its images (colours swapped and
    the board turned, the symmetries)."""
    g = games.get("chess")
    out = []
    for _, texts in _slot_texts_sampled(probe_dir, "chess", per_table, rnd):
        for text in texts:
            try:
                g.locate(g.parse(text))
            except InvalidPositionError:  # an illegal slot: the side not to move in check
                continue
            p = g.parse(text)
            out += g.images(p)[:4]
    return out


def _slot_texts_sampled(probe_dir: str, game: str, n: int, rnd):
    g = games.get(game)
    for (name, table), e in sorted(ProbeDir(probe_dir).entries.items()):
        if name == game:
            yield table, [g.slot_text(table, s) for s in rnd.sample(range(e["slots"]),
                                                                     min(n, e["slots"]))]


def test_chess_random_slots_and_images_equal_python(lib, both, probe_dir):
    """Every chess table of the build (KPvK and what its promotions reach): random slots, their
    colour swaps and symmetries, in C's array form and text form, against lookup_arrays and
    lookups (game over, mates and stalemates included)."""
    from tbdb.games.base import GameOver
    base, tb = both
    g = games.get("chess")
    rows = _chess_rows(probe_dir, 400, random.Random(25))
    over = [p for p in rows if isinstance(g.locate(p), GameOver)]  # mates and stalemates
    playing = [p for p in rows if p not in over]
    assert len(playing) > 5000 and len(over) > 3
    assert _compare_texts(lib, base, tb, "chess", [p.text for p in playing]) == len(playing)
    arrays = g.encode_batch(over)
    got = base.probe_rows("chess", arrays[0], arrays[1], constraints=arrays[2])
    result, distance, best = tb.lookup_arrays("chess", *arrays)
    assert (got[0] == 1).all() and got[1].tolist() == result.tolist()
    assert not got[2].any() and not distance.any() and (got[3] == -1).all() and (best == -1).all()
    # an en passant right whose children are not built: missing in both
    with pytest.raises(MissingTableError):
        tb.lookup("8/8/7k/8/3Pp3/8/7K/8 b - d3 0 1")
    assert STATUS[base.probe_text("chess", "8/8/7k/8/3Pp3/8/7K/8 b - d3 0 1")[0]] == "missing"


@pytest.mark.slow
def test_chess_en_passant_rights_equal_python(lib, tmp_path):
    """Positions with an en passant right (valued through their children) in KPvKP: C's probe
    of random ones equals lookup_arrays and the lookups (the best move the first realising
    the value, as Python picks it)."""
    from tbdb.games.chess.position import Position, square_name
    db, out = str(tmp_path / "tb.duckdb"), str(tmp_path / "probe")
    tbdb.build("chess", db=db, material="KPvKP", progress=False)
    export(db, out, progress=False)
    g = games.get("chess")
    rnd = random.Random(5)
    rows = []
    while len(rows) < 400:
        side, f = rnd.randrange(2), rnd.randrange(8)
        beside = f + rnd.choice([-1, 1])
        if not 0 <= beside < 8:
            continue
        board = [0] * 64
        if side:  # white has just played f2-f4
            board[24 + f], board[24 + beside], ep = 1, 9, 16 + f
        else:
            board[32 + f], board[32 + beside], ep = 9, 1, 40 + f
        kings = rnd.sample([s for s in range(64) if not board[s]], 2)
        board[kings[0]], board[kings[1]] = 6, 14
        text = Position(tuple(board), side).text.replace(" - - ", f" - {square_name(ep)} ")
        try:
            p = Position.read(text)
        except InvalidPositionError:
            continue
        if p.ep >= 0:
            rows.append(p)
    base = lib.open(out)
    try:
        with tbdb.open(out) as tb:
            assert _compare_texts(lib, base, tb, "chess", [p.text for p in rows]) == len(rows)
    finally:
        base.close()


def test_text_parsers_refuse_what_tbdb_refuses(lib):
    for game, texts in BAD_TEXTS.items():
        for text in texts:
            with pytest.raises(InvalidPositionError):
                games.get(game).parse(text)
            with pytest.raises(ValueError) as err:
                lib.parse(game, text)
            assert "\n" not in str(err.value) and repr(text)[1:-1] in str(err.value), text


@pytest.mark.parametrize("text", ["8/8/8/pKCCCC2 r", "pppppp2/8/8/KCCC4 r", "KK6/8/8/cccccc2 b",
                                  "GGG5/8/ppppppp1/8 r"])
def test_cdc_too_many_pieces_named_as_tbdb_names_them(lib, text):
    """The whole count of the first kind too many (the C parser once stopped counting at the
    first piece over, 'has 3 C' for four)."""
    with pytest.raises(InvalidPositionError) as ours:
        games.get("cdc").parse(text)
    with pytest.raises(ValueError) as theirs:
        lib.parse("cdc", text)
    assert str(theirs.value) == str(ours.value)


def test_tbprobe_prints_what_tbdb_lookup_json_prints(probe_dir):
    make("tbprobe")
    tool = os.path.join(NATIVE, "tbprobe")
    samples = [("cdc", "8/8/8/pKC5 r"), ("cdc", " 8/8/8/Pkc5 b\n"),
               ("chinese-checkers", "4x4-1 ./../.1./..../.2./../. 1"),
               ("tictactoe", "x...o...."), ("tictactoe", "xxxoo...."),
               ("oware", "0 0 0 0 1 1 0 0 1 0 0 0"), ("shogi", "8k/9/9/9/9/9/9/9/K8 w G 1"),
               ("uttt", _uttt_rows(None, probe_dir)[7].text),
               ("chess", "8/8/8/4k3/8/8/8/KQ6 w - - 0 1"), ("chess", "8/1P6/k7/8/K7/8/8/8 w - -"),
               ("chess", "8/8/8/8/8/8/4p3/4K2k b - - 3 60")]
    for game, text in samples:
        out = subprocess.run([tool, probe_dir, game, text, "--json"], capture_output=True,
                             text=True, check=True).stdout
        got = json.loads(out)
        with tbdb.open(probe_dir) as tb:
            want = tb.lookup(text, game=game).to_dict()
        assert set(got) <= set(want)
        assert {k: got[k] for k in got if k != "game"} == {k: want[k] for k in got if k != "game"}
    bad = subprocess.run([tool, probe_dir, "cdc", "8/8/8/pKC5 x"], capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stdout == "" and bad.stderr.count("\n") == 1
    assert "'8/8/8/pKC5 x'" in bad.stderr
    missing = subprocess.run([tool, probe_dir, "cdc", "8/8/8/kK6 r"], capture_output=True,
                             text=True)
    assert missing.returncode == 2 and "no table" in missing.stderr
    with pytest.raises(MissingTableError):
        with tbdb.open(probe_dir) as tb:
            tb.lookup("8/8/8/kK6 r")


def _sanitized(target: str):
    """Build a sanitizer tool of native/tests (skip where the compiler has no ASan/UBSan)."""
    try:
        make(f"build/{target}")
    except subprocess.CalledProcessError as err:
        pytest.skip(f"no AddressSanitizer/UndefinedBehaviorSanitizer here: {err.stderr[-200:]}")
    return os.path.join(NATIVE, "build", target)


def test_text_parsers_under_sanitizers_with_random_and_mutated_inputs():
    tool = _sanitized("fuzz_text")
    run = subprocess.run([tool, "25", "30000"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-2000:]
    accepted, refused = (int(x) for x in run.stdout.split()[1::2])
    assert accepted > 50 and refused > 10_000  # both paths exercised


@pytest.mark.parametrize("coding", ["probe_dir", "direct_dir"])
def test_truncated_and_corrupt_files_never_crash(coding, request):
    probe_dir = request.getfixturevalue(coding)
    tool = _sanitized("corrupt")
    files = [os.path.join(root, f) for root, _, fs in os.walk(probe_dir) for f in fs
             if f.endswith(".tbp") and os.path.getsize(os.path.join(root, f)) < 100_000]
    # 20 mutations a file under AddressSanitizer (100 took 35 s of CI's time)
    run = subprocess.run([tool, "25", "20", *sorted(files)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-2000:]
    refused, accepted, indexed = (int(x) for x in run.stdout.split()[1::2])
    assert refused > len(files) * 4 and accepted > len(files) and indexed >= len(files)


def test_tb_open_refuses_damaged_directories_in_one_line(lib, probe_dir, tmp_path):
    import shutil
    with pytest.raises(OSError, match="no manifest.json"):
        lib.open(str(tmp_path))
    copy = tmp_path / "probe"
    shutil.copytree(probe_dir, copy)
    kcvp = copy / "cdc" / "KCvP.tbp"
    data = kcvp.read_bytes()
    kcvp.write_bytes(data[:len(data) // 2])
    with pytest.raises(OSError, match="KCvP.tbp' is damaged") as err:
        lib.open(str(copy))
    assert "\n" not in str(err.value)
    kcvp.write_bytes(data[:8] + (2).to_bytes(4, "little") + data[12:])  # no slot order
    with pytest.raises(OSError, match="format version 2; this tbprobe reads version 3"):
        lib.open(str(copy))
    kcvp.unlink()
    os.mkfifo(kcvp)  # a FIFO is never read (nor waited on)
    with pytest.raises(OSError, match="not a regular file"):
        lib.open(str(copy))


def _mapped_bytes(path: str) -> int:
    """Bytes of ``path``'s mappings in this process's page tables (/proc/self/smaps' Rss)."""
    real, total, inside = os.path.realpath(path), 0, False
    with open("/proc/self/smaps") as f:
        for line in f:
            head = line.split()
            if head and "-" in head[0] and len(head) >= 5:  # a mapping's first line
                inside = head[-1] == real
            elif inside and head[:1] == ["Rss:"]:
                total += int(head[1]) * 1024
    return total


def test_tb_open_populate_maps_every_page_of_every_file(lib, probe_dir, tmp_path):
    """TB_OPEN_POPULATE: after opening, every page of every file is in the process's page
    tables (no probe takes a fault); opened without it, only what the checks read is."""
    import shutil
    from tbdb.probe_files import prefault
    if not os.path.exists("/proc/self/smaps"):
        pytest.skip("no /proc/self/smaps here")
    copy = str(tmp_path / "probe")  # files of this test's own (no other base maps them)
    shutil.copytree(probe_dir, copy)
    files = [os.path.join(d, f) for d, _, fs in os.walk(copy) for f in fs if f.endswith(".tbp")]
    big = max(files, key=os.path.getsize)
    probe = np.memmap(big, dtype=np.uint8, mode="r")
    if not prefault._populate(probe.ctypes.data, 4096):
        pytest.skip("this kernel has no MADV_POPULATE_READ")
    del probe
    size = os.path.getsize(big)
    plain = lib.open(copy)
    assert _mapped_bytes(big) < size  # the checks read headers and block starts, not all
    plain.close()
    base = lib.open(copy, lib.POPULATE)
    for f in files:
        assert _mapped_bytes(f) >= os.path.getsize(f), f
    assert base.probe_text("tictactoe", "x........")[0] >= 0  # and it answers as before
    base.close()


def test_tb_open_checks_files_against_the_manifest(lib, probe_dir, tmp_path):
    """Sizes and tables at every opening; SHA-256s with TB_OPEN_VERIFY or tb_verify; each
    failure one line naming the file."""
    import shutil
    copy = tmp_path / "probe"
    shutil.copytree(probe_dir, copy)
    kcvp = copy / "cdc" / "KCvP.tbp"
    data = kcvp.read_bytes()
    for flags in (0, lib.INDEX | lib.VERIFY):
        lib.open(str(copy), flags).close()
    kcvp.write_bytes(data + bytes(8))  # a well-formed longer file is still not the exported one
    with pytest.raises(OSError, match=rf"KCvP.tbp' is damaged.*{len(data) + 8} bytes, its "
                                      rf"manifest says {len(data)}"):
        lib.open(str(copy))
    # one bit of the last section changed: the structure holds, the checksum does not
    kcvp.write_bytes(data[:-40] + bytes([data[-40] ^ 4]) + data[-39:])
    base = lib.open(str(copy))
    with pytest.raises(OSError, match="KCvP.tbp' is damaged: its SHA-256 is not its manifest's"):
        base.verify()
    base.close()
    with pytest.raises(OSError, match="KCvP.tbp' is damaged: its SHA-256") as err:
        lib.open(str(copy), lib.VERIFY)
    assert "\n" not in str(err.value)
    kcvp.write_bytes(data)
    lib.open(str(copy), lib.VERIFY).close()
    # a listed file missing; a file holding another table than its entry says
    manifest = json.loads((copy / "manifest.json").read_text())
    kcvp.unlink()
    with pytest.raises(OSError, match=r"KCvP.tbp' of table 'KCvP' of cdc is missing"):
        lib.open(str(copy))
    entry = next(e for e in manifest["files"] if e["table"] == "KCvP")
    other = next(e for e in manifest["files"] if e["game"] == "cdc" and e["table"] != "KCvP")
    shutil.copy(copy / other["path"], kcvp)
    entry.update(size=other["size"], sha256=other["sha256"])
    (copy / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(OSError, match=rf"holds table '{other['table']}', its manifest says "
                                      r"'KCvP'"):
        lib.open(str(copy))
    (copy / "manifest.json").write_text(json.dumps(dict(manifest, version=1)))
    with pytest.raises(OSError, match="manifest .* has format version 1"):
        lib.open(str(copy))
    (copy / "manifest.json").write_text('{"format": "tbdb-probe-files", "version": 3, "files": '
                                        '[{"path": "../x.tbp"}]}')
    with pytest.raises(OSError, match="malformed entry"):
        lib.open(str(copy))


def test_a_lazy_base_opens_each_file_on_its_first_probe_and_refuses_a_damaged_one(
        lib, probe_dir, tmp_path):
    """TB_OPEN_LAZY reads the manifest only; a probe opens its table's file with the checks of
    an eager opening (here its SHA-256 too), a damaged file is refused for good (its probes:
    missing; tb_lazy_status: the eager opening's words) while the other tables answer, and
    files over tb_lazy_limit are left alone."""
    import shutil
    copy = tmp_path / "probe"
    shutil.copytree(probe_dir, copy)
    kcvp = copy / "cdc" / "KCvP.tbp"
    data = kcvp.read_bytes()
    kcvp.write_bytes(data[:-40] + bytes([data[-40] ^ 4]) + data[-39:])
    eager = lib.open(probe_dir)
    base = lib.open(str(copy), lib.LAZY | lib.VERIFY | lib.INDEX)
    assert base.table_count() == 0
    assert base.lazy_status("cdc", "KCvP")[0] == "missing"  # not probed yet
    good = "8/8/8/pKC5 r"  # KCvP
    name = next(t for g, t in sorted(ProbeDir(probe_dir).entries) if g == "cdc" and t != "KCvP")
    other = next(t for t in (games.get("cdc").slot_text(name, k) for k in range(10_000))
                 if STATUS[eager.probe_text("cdc", t)[0]] == "ok")
    assert STATUS[base.probe_text("cdc", good)[0]] == "missing"
    status, why = base.lazy_status("cdc", "KCvP")
    assert status == "damaged" and "KCvP.tbp' is damaged: its SHA-256 is not its manifest's" in why
    assert STATUS[base.probe_text("cdc", good)[0]] == "missing"  # refused for good
    assert base.probe_text("cdc", other) == eager.probe_text("cdc", other)
    assert base.lazy_status("cdc", name)[0] == "ok" and base.table_count() == 1
    assert base.lazy_status("cdc", "KQvP")[0] == "missing"  # no such table listed
    base.close()
    limited = lib.open(str(copy), lib.LAZY)
    limited.lazy_limit(0)
    assert STATUS[limited.probe_text("cdc", other)[0]] == "missing"
    assert "lazy limit" in limited.lazy_status("cdc", name)[1]
    limited.close()
    eager.close()


def test_position_text_writes_what_tbdb_writes(lib, probe_dir):
    """tb_position_text of a parsed position is tbdb's text of it (every game; SFEN's hands
    in tbdb's order, its move number 1; UTTT's closed boards as written)."""
    lines = _sample_lines(probe_dir, per_table=20) + [
        "shogi\t4k4/9/4G4/9/9/9/9/9/4K4 w 2P3pbR 12", "shogi\tsfen startpos", "uttt\tstart",
        "oware\t12 0 3 0 0 1 0 0 10 0 0 4", "cdc\tkgmrncpP/8/KGMRNCp1/8 b",
        "chinese-checkers\tstar-distance-2 1/../.../..../............./............/.........../"
        "........../........./........../.........../............/............./..../.../../1 5"]
    checked = 0
    for line in lines:
        game, text = line.split("\t")
        try:
            want = games.get(game).parse(text).text
        except InvalidPositionError:
            continue
        assert lib.position_text(lib.parse(game, text)) == want, line
        checked += 1
    assert checked > 200


def _sample_lines(probe_dir: str, per_table: int = 150) -> list[str]:
    rnd = random.Random(25)
    lines = []
    for game in ("cdc", "chinese-checkers"):
        for table, texts in _slot_texts(probe_dir, game):
            for text in rnd.sample(texts, min(per_table, len(texts))):
                lines.append(f"{game}\t{text}")
    from tbdb.games.oware.position import OwarePosition
    lines += [f"oware\t{OwarePosition.from_index(5, i).text}" for i in range(0, 4368, 29)]
    lines += [f"shogi\t{s}" for s in ("8k/9/9/9/9/9/9/9/K8 b G 1", "8k/9/9/9/9/9/9/9/K8 w G 1",
                                       "4k4/9/4G4/9/9/9/9/9/4K4 b - 1",
                                       "4k4/4G4/4K4/9/9/9/9/9/9 w - 1")]
    lines += [f"uttt\t{p.text}" for p in _uttt_rows(None, probe_dir)[::40]]
    lines += [f"chess\t{p.text}" for p in _chess_rows(probe_dir, 10, rnd)]
    lines += ["chess\t8/8/7k/8/3Pp3/8/7K/8 b - d3 7 41", "chess\t8/8/8/8/8/8/8/Kk6 w - - 0 1"]
    lines += ["tictactoe\tx...o....", "tictactoe\txxxoo....", "cdc\t8/8/8/kK6 r",
              "cdc\tnot a position", "chinese-checkers\t4x4-1 ./../.1./..../.2./../. 3"]
    return lines


@pytest.mark.parametrize("coding", ["probe_dir", "direct_dir"])
def test_webassembly_answers_like_the_c_tool(coding, request):
    import shutil
    probe_dir = request.getfixturevalue(coding)
    if not (shutil.which("clang") and shutil.which("wasm-ld") and shutil.which("node")
            and os.path.exists("/usr/lib/wasm32-wasi/libc.a")):
        pytest.skip("no clang, wasm-ld, wasi-libc or node (apt-get install clang lld wasi-libc "
                    "nodejs)")
    make("tbprobe")
    try:
        make("wasm")
    except subprocess.CalledProcessError as err:
        pytest.fail(f"make wasm failed: {err.stderr[-1000:]}")
    lines = "\n".join(_sample_lines(probe_dir)) + "\n"
    native = subprocess.run([os.path.join(NATIVE, "tbprobe"), probe_dir, "cdc", "-"],
                            input=lines, capture_output=True, text=True, check=True).stdout
    node = subprocess.run(["node", os.path.join(NATIVE, "wasm", "probe.mjs"), probe_dir, "cdc",
                           "-"], input=lines, capture_output=True, text=True, check=True).stdout
    n, w = native.splitlines(), node.splitlines()
    assert len(n) == len(w) == lines.count("\n")
    errors = 0
    for a, b in zip(n, w):
        a, b = json.loads(a), json.loads(b)
        if "error" in a:  # the same refusal; its words may differ (the tool's own messages)
            assert "error" in b
            errors += 1
        else:
            assert a == b
    assert errors >= 3  # the two bad texts, the missing table, the illegal slots
    assert n[0] == w[0]  # the same bytes, JSON spacing included


@pytest.mark.parametrize("args, message", [
    (["cdc", "8/8/8/pKC5 r", "5"], "plies left '5' is for oware positions only, not cdc"),
    (["cdc", "8/8/8/pKC5 r", "--bogus"], "unknown option '--bogus'"),
    (["oware", "0 0 0 0 1 1 0 0 1 0 0 0", "abc"],
     "plies left must be an integer from 1 to 200, not 'abc'"),
    (["oware", "0 0 0 0 1 1 0 0 1 0 0 0", "0"],
     "plies left must be an integer from 1 to 200, not '0'"),
    (["CDC", "8/8/8/pKC5 r"], "unknown game 'CDC'"),
])
def test_both_tools_refuse_bad_arguments_alike(probe_dir, args, message):
    """native/tbprobe and the WebAssembly script: one line, exit 2, the same words (an extra
    PLIES_LEFT or an unknown option used to be taken, or ignored, in silence)."""
    import shutil
    make("tbprobe")
    tools = [[os.path.join(NATIVE, "tbprobe")]]
    if (shutil.which("clang") and shutil.which("wasm-ld") and shutil.which("node")
            and os.path.exists("/usr/lib/wasm32-wasi/libc.a")):
        make("wasm")
        tools.append(["node", os.path.join(NATIVE, "wasm", "probe.mjs")])
    for tool in tools:
        r = subprocess.run(tool + [probe_dir] + args, capture_output=True, text=True)
        assert r.returncode == 2 and r.stdout == "", (tool, r)
        assert r.stderr == f"tbprobe: error: {message}\n", (tool, r.stderr)


def test_the_cpp_example_compiles_and_answers(probe_dir, tmp_path):
    import shutil
    cxx = next((c for c in (os.environ.get("CXX"), "c++", "g++", "clang++") if c and
                shutil.which(c)), None)
    if cxx is None:
        pytest.skip("no C++ compiler (apt-get install g++)")
    make("build/libtbprobe.a")
    exe = str(tmp_path / "probe")
    subprocess.run([cxx, "-std=c++17", "-Wall", "-Werror", "-I", os.path.join(NATIVE, "include"),
                    os.path.join(NATIVE, "examples", "probe.cpp"),
                    os.path.join(NATIVE, "build", "libtbprobe.a"), "-o", exe], check=True)
    out = subprocess.run([exe, probe_dir, "8/8/8/pKC5 r"], capture_output=True, text=True,
                         check=True).stdout
    assert out == "win 1 c1xa1\n"


def _uttt_rows(tb, probe_dir: str):
    """Every stored uttt key's position, as the game encodes it."""
    from tbdb.games.uttt.position import Position, key_text
    keys = ProbeDir(probe_dir).open_file("uttt", "standard/positions").section("KEYS", "<i8")
    keys = keys.reshape(-1, 3)
    return [Position.parse(key_text((int(k[0]), int(k[1])))) for k in keys]


def test_uttt_every_row_and_its_images_equal_python(lib, both, probe_dir):
    base, tb = both
    stored = _uttt_rows(tb, probe_dir)
    assert len(stored) > 1000
    g = games.get("uttt")
    rnd = random.Random(25)
    # every stored key, then random images of them with closed boards written out cell by cell
    # (the batch form takes both) up to N_RANDOM rows
    rows = list(stored) + [rnd.choice(stored).transform(rnd.randrange(8))
                           for _ in range(N_RANDOM // 10)]
    cells, side, con = g.encode_batch(rows)
    got = base.probe_rows("uttt", cells, side, constraints=con)
    over = got[0] == 1
    assert (got[0][~over] == 0).all()
    result, distance, best = tb.lookup_arrays("uttt", cells, side, con)
    assert got[1].tolist() == result.tolist() and got[3].tolist() == best.tolist()
    assert got[2][~over].tolist() == distance[~over].tolist()
    for p in rows[::97]:
        st, _, d, move = base.probe_text("uttt", p.text)
        r = tb.lookup(p.text, game="uttt")
        assert (d, move) == (r.distance, r.best_move), p.text


def test_uttt_random_rows_refused_and_over_as_python_refuses_them(both):
    """Random cell arrays: C's TB_INVALID exactly where the batch kernel refuses the row, game
    over with the kernel's value, and otherwise the key's table (missing: not stored)."""
    from tbdb.solvers.uttt import batch as batch_kernels
    base, tb = both
    rnd = np.random.default_rng(25)
    n = N_RANDOM
    cells = np.where(rnd.random((n, 81)) < 0.5, 0, rnd.integers(1, 3, (n, 81))).astype(np.int8)
    closed = rnd.random((n, 9)) < 0.3  # some boards by status alone
    status = rnd.integers(3, 6, (n, 9)).astype(np.int8)
    for b in range(9):
        cells[closed[:, b], 9 * b:9 * b + 9] = status[closed[:, b], b][:, None]
    side = rnd.integers(0, 2, n).astype(np.int8)
    con = rnd.integers(-1, 9, n).astype(np.int8)
    keys, sym = np.empty((n, 3), np.int64), np.empty(n, np.int8)
    over, done, err = np.empty(n, np.int8), np.empty(n, np.bool_), np.empty(n, np.int8)
    batch_kernels.locate_rows(cells, side, con, 0, keys, sym, over, done, err)
    got = base.probe_rows("uttt", cells, side, constraints=con)
    assert ((got[0] == -3) == (err != 0)).all()
    assert ((got[0] == 1) == (done & (err == 0))).all()
    assert (got[1][got[0] == 1] == over[got[0] == 1]).all()
    assert (err != 0).sum() > n // 2 and (got[0] == 1).sum() > 100  # both kinds exercised


def test_oware_every_position_at_every_plies_left_equals_python(both, probe_dir):
    from tbdb.games.oware.position import OwarePosition
    base, tb = both
    entries = ProbeDir(probe_dir).entries
    n = 0
    for (game, table), e in sorted(entries.items()):
        if game != "oware":
            continue
        seeds = e["params"]["seeds"]
        houses = np.array([OwarePosition.from_index(seeds, i).houses for i in range(e["slots"])],
                          np.int8)
        horizon = e["params"]["horizon"]
        rows = np.repeat(houses, horizon, axis=0)  # every position at every plies left
        plies = np.tile(np.arange(1, horizon + 1, dtype=np.int16), len(houses))
        got = base.probe_rows("oware", rows, plies)
        score, best = tb.lookup_arrays("oware", rows, plies)
        assert (got[0] == 0).all()
        assert got[1].tolist() == score.tolist() and got[3].tolist() == best.tolist(), table
        n += len(rows)
    assert n > 5000 * 200


def test_oware_random_positions_and_texts_equal_python(lib, both):
    base, tb = both
    rnd = np.random.default_rng(25)
    rows = np.zeros((N_RANDOM, 12), np.int8)
    for i, seeds in enumerate(rnd.integers(0, 6, N_RANDOM)):  # the example books: 0-5 seeds
        np.add.at(rows[i], rnd.integers(0, 12, seeds), 1)
    plies = rnd.integers(1, 201, N_RANDOM).astype(np.int16)
    got = base.probe_rows("oware", rows, plies)
    score, best = tb.lookup_arrays("oware", rows, plies)
    assert got[1].tolist() == score.tolist() and got[3].tolist() == best.tolist()
    for i in range(0, 2000, 37):
        text = " ".join(str(h) for h in rows[i])
        r = tb.lookup(text, game="oware", turns_left=int(plies[i]))
        st, _, _, move = base.probe_text("oware", text, int(plies[i]))
        assert (st, move) == (0, r.best_move)
    many = np.zeros((1, 12), np.int8)
    many[0, 0] = 19  # beyond the books tbdb builds
    assert STATUS[int(base.probe_rows("oware", many, [5])[0, 0])] == "missing"
    assert base.probe_rows("oware", rows[:1], [0])[:, 0].tolist() == [1, 0, 0, -1]  # nothing left


def _shogi_compare(base, tb, boards, hands, sides):
    got = base.probe_rows("shogi", np.concatenate([boards, hands.reshape(-1, 16)], axis=1),
                          sides)
    result, distance, best = tb.lookup_arrays("shogi", boards, hands, sides)
    illegal = got[0] == -1  # stored illegal: the side not to move is in check
    assert (got[0][~illegal] == 0).all()
    assert (result[illegal] == -2).all() and (result[~illegal] >= -1).all()
    ok = ~illegal
    assert got[1][ok].tolist() == result[ok].tolist()
    assert got[2][ok].tolist() == distance[ok].tolist()
    assert got[3][ok].tolist() == best[ok].tolist()
    return int(illegal.sum())


def _shogi_positions(desc, boards, hands):
    """Fill every slot's board and hands (index.position_of in one compiled loop); which
    slots are positions."""
    import numba

    from tbdb.solvers.shogi import index as k
    position_of = k.position_of

    @numba.njit
    def fill(desc, boards, hands, real):
        for s in range(boards.shape[0]):
            real[s] = position_of(desc, s, boards[s], hands[s])

    real = np.zeros(len(boards), np.bool_)
    fill(desc, boards, hands, real)
    return real


def test_shogi_every_slot_equals_python(both, probe_dir):
    from tbdb.games.shogi.game import _table
    base, tb = both
    for (game, table), e in sorted(ProbeDir(probe_dir).entries.items()):
        if game != "shogi":
            continue
        desc = _table(table).desc
        boards = np.zeros((e["slots"], 81), np.int8)
        hands = np.zeros((e["slots"], 2, 8), np.int8)
        real = _shogi_positions(desc, boards, hands)
        boards, hands = boards[real], hands[real]
        assert _shogi_compare(base, tb, boards, hands, np.zeros(len(boards), np.int8)) > 0
        # the colour swaps of the same positions: white to move, through the other symmetry
        swapped = np.zeros_like(boards)
        occupied = boards != 0
        swapped[:, ::-1] = np.where(occupied, boards ^ 16, 0)
        assert _shogi_compare(base, tb, swapped, hands[:, ::-1].copy(),
                              np.ones(len(boards), np.int8)) > 0


def test_shogi_random_positions_and_texts_equal_python(lib, both):
    from tbdb.games.shogi.position import Position
    base, tb = both
    rnd = random.Random(25)
    boards = np.zeros((N_RANDOM, 81), np.int8)
    hands = np.zeros((N_RANDOM, 2, 8), np.int8)
    sides = np.zeros(N_RANDOM, np.int8)
    for i in range(N_RANDOM):
        while True:
            b, w, g = rnd.sample(range(81), 3)
            if max(abs(b // 9 - w // 9), abs(b % 9 - w % 9)) >= 2:
                break
        boards[i, b], boards[i, w] = 8, 24
        owner = rnd.randrange(2)
        if rnd.random() < 0.3:
            hands[i, owner, 7] = 1  # the gold in a hand
        else:
            boards[i, g] = 7 + 16 * owner
        sides[i] = rnd.randrange(2)
    _shogi_compare(base, tb, boards, hands, sides)
    for i in range(0, 3000, 31):
        p = Position(tuple(boards[i].tolist()), tuple(map(tuple, hands[i].tolist())),
                     int(sides[i]))
        st, _, d, move = base.probe_text("shogi", p.sfen)
        try:
            r = tb.lookup(p.sfen, game="shogi")
        except InvalidPositionError:  # the side not to move is in check
            assert STATUS[st] == "illegal"
            continue
        assert (st, d, move) == (0, r.distance, r.best_move), p.sfen


@pytest.fixture(scope="module")
def rhombus_dir(lib, tmp_path_factory):
    """Small rhombus tables of more piece counts than the example's 4x4-1: with 2 pieces the
    mirror is no symmetry of the game (the index has no mirror classes)."""
    path = tmp_path_factory.mktemp("rhombus")
    db = str(path / "tb.duckdb")
    for board, pieces in ((4, 2), (3, 3), (3, 4)):
        tbdb.build("chinese-checkers", db=db, progress=False, board=board, pieces=pieces)
    out = str(path / "probe")
    export(db, out, progress=False)
    base = lib.open(out)
    with tbdb.open(out) as tb:
        yield base, tb, out
    base.close()


def test_chinese_checkers_more_piece_counts_every_slot_equal_python(lib, rhombus_dir):
    base, tb, out = rhombus_dir
    tables = 0
    for table, texts in _slot_texts(out, "chinese-checkers"):
        _compare_texts(lib, base, tb, "chinese-checkers", texts, m=int(table.split("x")[0]))
        tables += 1
    assert tables == 3


def test_star_distance_placements_equal_python(lib, tmp_path_factory):
    """Every placement of the 1- and 2-piece star distance tables, each towards a random goal
    point: the C rank (the board turned to the bottom goal) gives Python's distance, and for a
    sample the best move C derives from the children is the one tbdb derives."""
    from tbdb.games.chinese_checkers.distance import Placement, distance_table
    path = tmp_path_factory.mktemp("star")
    db, out = str(path / "tb.duckdb"), str(path / "probe")
    tbdb.build("chinese-checkers", db=db, progress=False, distance=2)
    export(db, out, progress=False)
    base = lib.open(out)
    g = games.get("chinese-checkers")
    rnd = random.Random(25)
    with tbdb.open(out) as tb:
        n = 0
        for k in (1, 2):
            t = distance_table(k)
            for rank in range(t.size):
                p = Placement.of_cells(t.cells(rank), rnd.randrange(6))
                _, (result, distance, _) = tb.prober.value(g, p)
                st, r, d, move = base.probe_text("chinese-checkers", p.text)
                assert (st, r, d) == (0, result, distance), p.text
                if rank % 97 == 0:
                    assert move == tb.lookup(p.text, game=g.name).best_move, p.text
                n += 1
    assert n == 121 + 7260
    base.close()


def test_probes_from_many_threads_under_threadsanitizer(probe_dir, tmp_path):
    """Six threads probe a sample of every game's tables at once, two on a plain base, two on an
    indexed one and two on a lazy one whose files they open as they first need them: the
    answers of one thread, and no data race ThreadSanitizer can see (probes write nothing
    shared; a lazy base opens each file once, under its lock, before other threads see it)."""
    try:
        make("build/threads")
    except subprocess.CalledProcessError as err:
        pytest.skip(f"no ThreadSanitizer here: {err.stderr[-200:]}")
    lines = tmp_path / "lines.txt"
    lines.write_text("\n".join(_sample_lines(probe_dir)) + "\n")
    run = subprocess.run([os.path.join(NATIVE, "build", "threads"), probe_dir, str(lines), "6",
                          "3"], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr[-2000:]
    assert "mismatches 0" in run.stdout and "ThreadSanitizer" not in run.stderr


def test_direct_cells_answer_every_slot_as_the_streams_do(lib, both, direct_dir):
    """Index tables exported in direct cells (layout 3): every slot of every CDC, Chinese
    Checkers and Shogi table, and random chess slots with their images, probed by C in the
    array form and from text, equal the Python path over the compressed files."""
    from tbdb.games.shogi.game import _table
    _, tb = both
    base = lib.open(direct_dir)
    try:
        for game in ("cdc", "chinese-checkers"):
            n = 0
            for table, texts in _slot_texts(direct_dir, game):
                m = _cc_board(table) if game == "chinese-checkers" else 0
                n += _compare_texts(lib, base, tb, game, texts, m)
            assert n > (1000 if game == "cdc" else 100)
        for (game, table), e in sorted(ProbeDir(direct_dir).entries.items()):
            if game == "shogi":
                assert e["direct"]
                boards = np.zeros((e["slots"], 81), np.int8)
                hands = np.zeros((e["slots"], 2, 8), np.int8)
                real = _shogi_positions(_table(table).desc, boards, hands)
                assert _shogi_compare(base, tb, boards[real], hands[real],
                                      np.zeros(int(real.sum()), np.int8)) > 0
        rows = [p for p in _chess_rows(direct_dir, 100, random.Random(26))
                if not isinstance(games.get("chess").locate(p), GameOver)]
        assert _compare_texts(lib, base, tb, "chess", [p.text for p in rows]) == len(rows) > 1000
    finally:
        base.close()


def test_a_direct_cell_outside_its_alphabet_is_damaged_in_c_and_python(lib, direct_dir,
                                                                       every_game_db, tmp_path):
    """A cell whose value symbol is past its alphabet (in a file whose checksums agree: its
    writer was wrong): C answers TB_DAMAGED for that slot only, where reading past the
    alphabet would give a draw at a move code's distance; Python raises its one-line error
    naming the file; ``tbdb verify --against`` names the file."""
    import hashlib
    import shutil
    from tbdb.probe_files import ProbeFileError, compare_dir
    from tbdb.probe_files.direct import Cells
    from tbdb.probe_files.format import ProbeFile
    from tests.test_probe_streamed import replace_table_file
    out = str(tmp_path / "probe")
    shutil.copytree(direct_dir, out)
    for (game, table), e in sorted(ProbeDir(out).entries.items()):
        f = ProbeFile(os.path.join(out, e["path"]))
        cells = Cells.parse(f.section("CALP"), f.moves, e["path"]) if f.direct else None
        off, length, _ = f.sections.get("CELL", (0, 0, 0))
        data = bytearray(bytes(f.buf))
        f.close()
        if cells is not None and len(cells.values) < 1 << cells.value_bits:
            break
    else:
        pytest.fail("no table with room past its value alphabet")
    g = games.get(game)
    slot = next(s for s in range(0, e["slots"], 8) if _legal(g, g.slot_text(table, s)))
    at = off + slot * cells.width // 8  # slot % 8 == 0: its cell starts at a byte's bit 0
    word = int.from_bytes(data[at:at + 5], "little") | ((1 << cells.value_bits) - 1)
    data[at:at + 5] = word.to_bytes(5, "little")
    meta = int.from_bytes(data[44:48], "little")
    entry = 48 + meta + -meta % 8 + 56  # CELL, the second section: its checksum made to agree
    data[entry + 24:entry + 56] = hashlib.sha256(data[off:off + length]).digest()
    replace_table_file(out, table, bytes(data))
    text = g.slot_text(table, slot)
    base = lib.open(out)
    try:
        assert STATUS[base.probe_text(game, text)[0]] == "damaged", text
        neighbour = g.slot_text(table, slot + 1)
        if _legal(g, neighbour):
            assert STATUS[base.probe_text(game, neighbour)[0]] in ("ok", "illegal")
    finally:
        base.close()
    with tbdb.open(out) as tb:
        with pytest.raises(ProbeFileError, match=rf"{table}.tbp.* is damaged at slot"):
            tb.lookup(text, game=game)
    checked, problems = compare_dir(out, every_game_db, game)
    assert checked >= 1 and len(problems) == 1 and problems[0].startswith(e["path"]), problems


def _legal(g, text) -> bool:
    try:
        g.locate(g.parse(text))
        return True
    except (InvalidPositionError, ValueError):
        return False
