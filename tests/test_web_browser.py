"""The explorer page in a real browser: Debian's headless Chromium driven by Selenium through the
system chromedriver.  For every game: open the explorer, click the best move, check that the
board and the value follow; a screenshot per game goes to tests/artifacts/ for a person to look
at.  Any request the page makes that leaves localhost fails the test.  Skips when the browser,
its driver or the web extra is missing (.ci/run installs them where apt-get works)."""
from __future__ import annotations

import json
import shutil
import socket
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import parse_qs, quote, urlparse

import pytest

pytest.importorskip("starlette")
uvicorn = pytest.importorskip("uvicorn")
webdriver = pytest.importorskip("selenium.webdriver")

from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.actions.action_builder import ActionBuilder  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

import tbdb  # noqa: E402
from tbdb import games  # noqa: E402
from tbdb.web.app import create_app  # noqa: E402

ARTIFACTS = Path(__file__).parent / "artifacts"
BROWSER = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(not (BROWSER and DRIVER),
                                reason="needs Debian's chromium and chromium-driver")


def _wait(driver, timeout: float) -> WebDriverWait:
    """Selenium's wait, asking every 20 ms: its default half second added about a quarter of
    a second to every wait not met at once, a few to each test."""
    return WebDriverWait(driver, timeout, poll_frequency=0.02)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def _serving(db: str):
    port = _free_port()
    config = uvicorn.Config(create_app(db), host="127.0.0.1", port=port, log_level="warning")
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not srv.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(10)


@pytest.fixture(scope="module")
def server(every_game_db):
    with _serving(every_game_db) as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = BROWSER
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1200,900", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--disable-default-apps"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
    driver = webdriver.Chrome(options=options,
                              service=webdriver.ChromeService(executable_path=DRIVER))
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


BOARDS = Path(tbdb.__file__).parent / "web" / "static" / "boards"
# games whose test plays the best move by clicking it on the board, not in the list
CLICK_ON_THE_BOARD = {"shogi", "uttt", "cdc", "tictactoe", "chess"}


def _check_shogi(board, position) -> None:
    """One drawn piece per piece on the board and per kind in a hand; the side to move's
    caption."""
    on_board = sum(1 for code in position.board if code)
    in_hand = sum(1 for hand in position.hands for count in hand if count)
    assert len(board.find_elements(By.CSS_SELECTOR, "g.piece")) == on_board + in_hand
    assert ("white" if position.side else "black") in board.text


def _check_uttt(board, position) -> None:
    """Each small board's status as the game module sees it; the constraint board marked."""
    shown = [e.get_attribute("data-status")
             for e in board.find_elements(By.CSS_SELECTOR, "[data-small-board]")]
    want = [{"x": "x", "o": "o", "d": "draw"}.get(st) or
            ("target" if b == position.constraint else "open")
            for b, st in enumerate(position.statuses)]
    assert shown == want


def _check_chinese_checkers(board, position) -> None:
    """A coloured hole per piece; the caption names the player to move, or for a distance
    table's placement the goal point (its last field is no player)."""
    holes = [e.get_attribute("fill") for e in board.find_elements(By.CSS_SELECTOR, "circle")]
    assert len(holes) == len(position.cells)
    assert sum(fill != "#eee" for fill in holes) == sum(1 for c in position.cells if c)
    caption = board.find_element(By.CSS_SELECTOR, "[data-caption]").text
    if hasattr(position, "goal"):
        assert f"goal point {position.goal}" in caption and "to move" not in caption, caption
    else:
        assert caption.endswith(f"player {position.mover} to move"), caption


def _check_chess(board, position) -> None:
    """Each piece on its square (a figurine titled with its colour and FEN letter); the side to
    move's caption."""
    cells = {e.get_attribute("data-cell"): e.rect for e in
             board.find_elements(By.CSS_SELECTOR, "[data-cell]")}
    pieces = board.find_elements(By.CSS_SELECTOR, "g.piece")
    assert len(pieces) == sum(1 for c in position.board if c)
    shown = set()
    for p in pieces:
        letter = p.find_element(By.TAG_NAME, "title").get_attribute("textContent")[-2]
        box = p.rect
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        square = next(name for name, r in cells.items()
                      if r["x"] <= x <= r["x"] + r["width"] and r["y"] <= y <= r["y"] + r["height"])
        shown.add((square, letter))
    want = {("abcdefgh"[sq % 8] + str(sq // 8 + 1), ".PNBRQK"[c & 7].lower() if c & 8 else
             ".PNBRQK"[c & 7]) for sq, c in enumerate(position.board) if c}
    assert shown == want, (shown, want)
    caption = board.find_element(By.CSS_SELECTOR, "[data-caption]").text
    assert caption == ("white", "black")[position.turn] + " to move", caption


CHECK_BOARD = {"shogi": _check_shogi, "chess": _check_chess, "uttt": _check_uttt,
               "chinese-checkers": _check_chinese_checkers}


def _click_at_centre(driver, element) -> None:
    """A mouse click at the centre of ``element``'s box, as a person clicks: WebDriver's own
    click refuses an arrow that is a horizontal or vertical line (a box of zero height or
    width), which a person clicks on its stroke all the same."""
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    x, y = driver.execute_script("const r = arguments[0].getBoundingClientRect(); "
                                 "return [r.x + r.width / 2, r.y + r.height / 2];", element)
    # at viewport coordinates: an offset from the board's centre misses where the board is
    # taller than the window (WebDriver takes the centre of the board's visible part)
    actions = ActionBuilder(driver)
    actions.pointer_action.move_to_location(round(x), round(y))
    actions.pointer_action.click()
    actions.perform()


def _requested_urls(driver) -> list[str]:
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
    return urls


def _position_in_url(driver) -> str | None:
    return parse_qs(urlparse(driver.current_url).query).get("position", [None])[0]


@pytest.mark.parametrize("name", games.names())
def test_explorer_plays_the_best_move(name, server, browser, every_game_db):
    g = games.get(name)
    browser.get_log("performance")  # drop what earlier tests requested
    browser.get(f"{server}/?game={name}")
    wait = _wait(browser, 20)
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#moves li"))
    start = _position_in_url(browser)
    with tbdb.open(every_game_db) as tb:  # (what is read of a result, read before the close)
        expected = tb.lookup(start, game=name)
        expected_best, expected_moves = expected.best_move, {m.move for m in expected.moves}
    value = browser.find_element(By.ID, "value").text
    assert value and value != "invalid", value
    board = browser.find_element(By.CSS_SELECTOR, "#board [data-board]")
    assert board.get_attribute("data-board") == (name if (BOARDS / f"{name}.js").exists()
                                                 else "text")
    first = browser.find_elements(By.CSS_SELECTOR, "#moves li")[0]
    assert first.get_attribute("data-move") == expected.best_move
    if board.get_attribute("data-board") != "text":
        # every legal move is drawn on the board (an arrow, a marker or a coloured cell)
        drawn = {e.get_attribute("data-move")
                 for e in board.find_elements(By.CSS_SELECTOR, "[data-move]")}
        assert drawn == expected_moves
    CHECK_BOARD.get(name, lambda *a: None)(board, g.parse(start))
    board_before = browser.find_element(By.ID, "board").get_attribute("innerHTML")
    ARTIFACTS.mkdir(exist_ok=True)
    browser.save_screenshot(str(ARTIFACTS / f"{name}-start.png"))

    if name in CLICK_ON_THE_BOARD:
        # the best move is drawn last, on top of the others
        _click_at_centre(browser, board.find_elements(
            By.CSS_SELECTOR, f'[data-move="{expected.best_move}"]')[-1])
    else:
        first.click()
    after = g.text(g.play(g.parse(start), expected.best_move))
    wait.until(lambda d: _position_in_url(d) == after)
    with tbdb.open(every_game_db) as tb:
        options = {g.plies_option: expected.extras[g.plies_option] - 1} if g.plies_option else {}
        then = tb.lookup(after, game=name, **options)
    wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "#position").get_attribute("value")
               == after and d.find_element(By.ID, "value").get_attribute("class")
               == then.outcome)
    assert browser.find_element(By.ID, "board").get_attribute("innerHTML") != board_before
    CHECK_BOARD.get(name, lambda *a: None)(
        browser.find_element(By.CSS_SELECTOR, "#board [data-board]"), g.parse(after))
    browser.save_screenshot(str(ARTIFACTS / f"{name}-after-best-move.png"))

    browser.back()  # back returns to the start position
    wait.until(lambda d: _position_in_url(d) == start)
    wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "#position").get_attribute("value")
               == start)

    outside = [u for u in _requested_urls(browser)
               if not u.startswith(server + "/") and not u.startswith("data:")]
    assert not outside, outside
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert not errors, errors


def test_stats_page_lists_every_game(server, browser, every_game_db):
    browser.get_log("performance")  # drop what earlier tests requested
    browser.get(f"{server}/stats")
    _wait(browser, 20).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#stats h2"))
    shown = [h.text for h in browser.find_elements(By.CSS_SELECTOR, "#stats h2")]
    assert shown == games.names()
    with tbdb.open(every_game_db) as tb:
        tables = tb.sql("SELECT DISTINCT game, table_name FROM draw_analysis").fetchall()
    # a histogram per table, drawn once its answer arrives
    _wait(browser, 20).until(
        lambda d: len(d.find_elements(By.CSS_SELECTOR, "svg.histogram")) == len(tables))
    figure = browser.find_element(By.CSS_SELECTOR,
                                  'figure[data-table="all"][data-game="tictactoe"]')
    bars = figure.find_elements(By.CSS_SELECTOR, "rect[data-outcome]")
    # tic-tac-toe: wins at distances 1, 3, 5 and losses at 0, 2, 4 (draws are only counted)
    assert sorted((b.get_attribute("data-outcome"), int(b.get_attribute("data-distance")))
                  for b in bars) == [("loss", 0), ("loss", 2), ("loss", 4),
                                     ("win", 1), ("win", 3), ("win", 5)]
    outside = [u for u in _requested_urls(browser)
               if not u.startswith(server + "/") and not u.startswith("data:")]
    assert not outside, outside
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert not errors, errors
    ARTIFACTS.mkdir(exist_ok=True)
    browser.save_screenshot(str(ARTIFACTS / "stats.png"))


def test_a_star_distance_placement_is_drawn_with_its_goal(browser, tmp_path):
    db = str(tmp_path / "distance.duckdb")
    tbdb.build("chinese-checkers", db=db, progress=False, distance=1)
    g = games.get("chinese-checkers")
    with tbdb.open(db) as tb:
        text = tb.sql("SELECT placement FROM cc_distance WHERE k = 1 ORDER BY moves DESC, idx "
                      "LIMIT 1").fetchall()[0][0]
        best = tb.lookup(text).best_move  # (derived from the tables: read before the close)
    with _serving(db) as url:
        browser.get(f"{url}/?game=chinese-checkers&position={quote(text)}")
        _wait(browser, 20).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#moves li"))
        board = browser.find_element(By.CSS_SELECTOR, "#board [data-board]")
        _check_chinese_checkers(board, g.parse(text))
        first = browser.find_elements(By.CSS_SELECTOR, "#moves li")[0]
        assert first.get_attribute("data-move") == best
        ARTIFACTS.mkdir(exist_ok=True)
        browser.save_screenshot(str(ARTIFACTS / "chinese-checkers-distance.png"))
        errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
        assert not errors, errors


# ------------------------------------------------------------------ the editor, play, find
def _settled(driver) -> bool:
    """No request under way and a value or an error shown."""
    return driver.execute_script("return document.getElementById('busy').hidden") and bool(
        driver.find_element(By.ID, "value").text)


def _open(browser, url: str):
    browser.get(url)
    _wait(browser, 20).until(_settled)


def _click_cell(browser, cell: str) -> None:
    before = browser.find_element(By.ID, "position").get_attribute("value")
    element = browser.find_element(By.CSS_SELECTOR, f'#board [data-cell="{cell}"]')
    browser.execute_script(
        "arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))", element)
    _wait(browser, 10).until(
        lambda d: d.find_element(By.ID, "position").get_attribute("value") != before)
    _wait(browser, 20).until(_settled)


def _tool(browser, tool: str) -> None:
    browser.find_element(By.CSS_SELECTOR, f'#palette [data-tool="{tool}"]').click()


def _uttt_text() -> str:
    cells = ["."] * 81
    cells[4], cells[36] = "x", "o"  # x in the centre of board 0, o in the corner of board 4
    return "".join(cells) + " x 0"


# per game: (palette tool, cell) clicks after Clear, the side to move, a board setting first,
# and the position text the game module writes for the position set up (written by hand)
EDITS = {
    "cdc": ([("K", "b1"), ("C", "c1"), ("p", "a1")], "r", None, "8/8/8/pKC5 r"),
    "tictactoe": ([("x", "0"), ("o", "4")], None, None, "x...o...."),
    "oware": ([("plus", "h5")], None, None, "0 0 0 0 0 1 0 0 0 0 0 0"),
    # a pawn promoted and removed again; a gold into black's hand twice, and one taken out
    "shogi": ([("K", "1a"), ("k", "8h"), ("P", "5e"), ("promote", "5e"), ("erase", "5e"),
               ("G", "hand-b-G"), ("G", "hand-b-G"), ("erase", "hand-b-G")], "b", None,
              "8K/9/9/9/9/9/9/1k7/9 b G 1"),
    "uttt": ([("x", "0:4"), ("o", "4:0"), ("target", "0:0")], "x", None, _uttt_text()),
    "chinese-checkers": ([("1", "0"), ("2", "15")], "1", ("kind", "rhombus-4"),
                         "4x4-1 1/../.../..../.../../2 1"),
    # a pawn set and taken off again, black to move
    "chess": ([("K", "a1"), ("Q", "b1"), ("P", "c4"), ("erase", "c4"), ("k", "e5")], "b", None,
              "8/8/8/4k3/8/8/8/KQ6 b - - 0 1"),
}


@pytest.mark.parametrize("name", games.names())
def test_editor_sets_up_the_position_the_game_module_writes(name, server, browser,
                                                            every_game_db):
    """At phone width (375 px), as a phone shows it: set up a position by clicking the
    palette and the board, compare the text with the module's; the page needs no sideways
    scrolling (a screenshot each); CDC and Shogi's letters switch."""
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": 375, "height": 812, "deviceScaleFactor": 1, "mobile": True})
    try:
        _edit_at_phone_width(name, server, browser, every_game_db)
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


LETTERS = {"cdc": ("K", "帥"), "shogi": ("K", "玉")}


def _edit_at_phone_width(name, server, browser, every_game_db):
    g = games.get(name)
    clicks, side, setting, expected = EDITS[name]
    assert g.text(g.parse(expected)) == expected  # the hand-written text is the module's
    _open(browser, f"{server}/?game={name}")
    browser.find_element(By.ID, "edit-toggle").click()
    _wait(browser, 10).until(lambda d: d.find_element(By.ID, "editor").is_displayed())
    if setting:
        from selenium.webdriver.support.ui import Select
        Select(browser.find_element(By.CSS_SELECTOR, f'[data-extra="{setting[0]}"]')
               ).select_by_value(setting[1])
        _wait(browser, 20).until(_settled)
    browser.find_element(By.ID, "clear").click()
    _wait(browser, 20).until(_settled)
    seen = []
    for tool, cell in clicks:
        _tool(browser, tool)
        _click_cell(browser, cell)
        seen.append(browser.find_element(By.ID, "position").get_attribute("value"))
    if name == "shogi":  # the promoted pawn and the two golds in hand were written
        assert "+P" in seen[3] and seen[6].split()[2] == "2G", seen
    if name == "oware":  # the other player to move: the rows swapped, and back
        for want in ("0 0 0 0 0 0 0 0 0 0 0 1", expected):
            browser.find_element(By.CSS_SELECTOR, '[data-action="swap"]').click()
            _wait(browser, 10).until(lambda d: _position_in_url(d) == want)
            _wait(browser, 20).until(_settled)
    if side is not None:
        radio = browser.find_element(By.CSS_SELECTOR, f'#editor-sides input[value="{side}"]')
        if not radio.is_selected():
            radio.click()
            _wait(browser, 20).until(_settled)
    text = browser.find_element(By.ID, "position").get_attribute("value")
    assert text == expected
    assert _position_in_url(browser) == expected
    with tbdb.open(every_game_db) as tb:
        try:
            outcome, error = tb.lookup(expected, game=name).outcome, ""
        except KeyError as exc:  # legal, not in the example build: the page says so
            outcome, error = "", str(exc)
    _wait(browser, 10).until(
        lambda d: d.find_element(By.ID, "value").get_attribute("class") == outcome and
        d.find_element(By.ID, "error").text == error)

    wide = browser.execute_script("return document.documentElement.scrollWidth")
    right = browser.execute_script(
        "return document.querySelector('#board svg').getBoundingClientRect().right")
    ARTIFACTS.mkdir(exist_ok=True)
    browser.save_screenshot(str(ARTIFACTS / f"{name}-375px.png"))
    assert wide <= 375 and right <= 375, (wide, right)
    if name in LETTERS:  # palette and board: characters (where a font draws them) or letters
        letter, chars = LETTERS[name]
        cjk = browser.execute_script(
            "return import('/static/boards/glyphs.js').then(m => m.hasCJK())")
        switch = browser.find_element(By.ID, "letters")
        for letters in (not switch.is_selected(), switch.is_selected()):
            switch.click()
            _wait(browser, 20).until(_settled)
            label = browser.find_element(By.CSS_SELECTOR, f'#palette [data-tool="{letter}"]').text
            assert label == (letter if letters or not cjk else chars), (name, letters, cjk)

    # Start: the game module's start position (Chinese Checkers: of the board being edited)
    try:
        start = g.text(g.start(**({"board": "4", "pieces": 1} if name == "chinese-checkers"
                                  else {})))
    except NotImplementedError:
        assert not browser.find_element(By.ID, "reset-start").is_displayed()
    else:
        browser.find_element(By.ID, "reset-start").click()
        _wait(browser, 10).until(lambda d: _position_in_url(d) == start)
        _wait(browser, 20).until(_settled)

    # the board follows the text: type another position, the board and its lookup follow
    box = browser.find_element(By.ID, "position")
    box.clear()
    box.send_keys(g.sample)
    _wait(browser, 10).until(lambda d: _position_in_url(d) == g.sample)
    _wait(browser, 20).until(_settled)
    browser.find_element(By.ID, "edit-done").click()
    _wait(browser, 20).until(_settled)
    board = browser.find_element(By.CSS_SELECTOR, "#board [data-board]")
    CHECK_BOARD.get(name, lambda *a: None)(board, g.parse(g.sample))


def test_editor_reads_and_writes_positions_as_the_game_modules_do(server, browser,
                                                                  every_game_db):
    """Every sample, every position a move away from it and every position the find links
    give, read into the editor's model and written back: the game module's text each time."""
    from tbdb.web import find
    _open(browser, f"{server}/?game=cdc")
    texts = {}
    with tbdb.open(every_game_db) as tb:
        for g in games.all_games():
            out = [g.sample]
            for (table,) in tb.sql("SELECT table_name FROM tb_tables WHERE game = ?",
                                   params=[g.name]).fetchall():
                if g.name == "uttt" and "/from/" in table:
                    continue
                for kind in find.KINDS:
                    out += [p["position"] for p in find.find(tb, g, table, kind)["positions"]]
            for text in list(out):
                try:
                    out += [m.position for m in tb.lookup(text, game=g.name).moves]
                except (KeyError, ValueError):
                    pass
            texts[g.name] = sorted(set(out))
    written = browser.execute_async_script(
        "const [texts, done] = arguments;"
        "import('/static/editors.js').then(({EDITORS}) => done(Object.fromEntries("
        "  Object.entries(texts).map(([g, ts]) => [g, ts.map(t => {"
        "    try { return EDITORS[g].format(EDITORS[g].parse(t)); } catch (e) { return String(e); }"
        "  })]))));", texts)
    for name, ts in texts.items():
        assert len(ts) > 3, name
        assert written[name] == ts, name


def test_editor_says_why_the_rules_refuse_a_position_and_which_build_covers_one(
        server, browser, every_game_db):
    _open(browser, f"{server}/?game=cdc")
    browser.find_element(By.ID, "edit-toggle").click()
    browser.find_element(By.ID, "clear").click()
    _wait(browser, 20).until(_settled)
    _tool(browser, "K")
    _click_cell(browser, "b1")  # red alone, red to move: black has just moved with no piece
    refused = browser.find_element(By.ID, "position").get_attribute("value")
    with tbdb.open(every_game_db) as tb:
        with pytest.raises(ValueError) as refusal:
            tb.lookup(refused, game="cdc")
    _wait(browser, 10).until(
        lambda d: d.find_element(By.ID, "error").text == str(refusal.value))
    for tool, cell in (("p", "a1"), ("G", "d4")):  # legal, but KGvP is not built
        _tool(browser, tool)
        _click_cell(browser, cell)
    legal = browser.find_element(By.ID, "position").get_attribute("value")
    with tbdb.open(every_game_db) as tb:
        with pytest.raises(KeyError) as missing:
            tb.lookup(legal, game="cdc")
    assert "tbdb build cdc --material KGvP" in str(missing.value)
    _wait(browser, 10).until(lambda d: d.find_element(By.ID, "build").is_displayed())
    command = browser.find_element(By.ID, "build-command").text
    assert str(missing.value).endswith(command) and command.startswith("tbdb build cdc")
    browser.find_element(By.ID, "edit-done").click()


def test_editor_drags_pieces_and_drops_them_off_the_board(server, browser):
    _open(browser, f"{server}/?game=cdc&position={quote('8/8/8/pKC5 r')}")
    browser.find_element(By.ID, "edit-toggle").click()
    _wait(browser, 10).until(lambda d: d.find_element(By.ID, "editor").is_displayed())
    _wait(browser, 20).until(_settled)

    def drag(source, target, expected):
        ActionChains(browser).drag_and_drop(source, target).perform()
        _wait(browser, 10).until(lambda d: _position_in_url(d) == expected)
        _wait(browser, 20).until(_settled)

    cell = lambda name: browser.find_element(By.CSS_SELECTOR, f'#board [data-cell="{name}"]')
    drag(cell("b1"), cell("b3"), "8/1K6/8/p1C5 r")
    drag(cell("c1"), browser.find_element(By.TAG_NAME, "h1"), "8/1K6/8/p7 r")  # off: removed
    assert browser.find_element(By.ID, "position").get_attribute("value") == "8/1K6/8/p7 r"
    # Flip turns the board round: a1 goes from the bottom left to the top right
    x = lambda: browser.execute_script(
        "const r = document.querySelector('#board [data-cell=\"a1\"]').getBoundingClientRect();"
        "const h = document.querySelector('#board [data-cell=\"h4\"]').getBoundingClientRect();"
        "return [r.x < h.x, r.y > h.y];")
    assert x() == [True, True]
    browser.find_element(By.ID, "flip").click()
    _wait(browser, 20).until(_settled)
    assert x() == [False, False]
    browser.find_element(By.ID, "flip").click()
    browser.find_element(By.ID, "edit-done").click()


def _moves_in_url(driver) -> list[str]:
    text = parse_qs(urlparse(driver.current_url).query).get("moves", [""])[0]
    return [m for m in text.split(",") if m]


@pytest.mark.parametrize("name", games.names())
def test_playing_against_the_tablebase(name, server, browser, every_game_db):
    """Pick the side to move, play three moves (the first the worst there is), each answered
    with the stored best move; the thrown-away value is marked; take back; the link replays."""
    g = games.get(name)
    browser.get_log("browser")  # drop what earlier tests logged (their 400s and 404s)
    _open(browser, f"{server}/?game={name}")
    start = _position_in_url(browser)
    browser.find_element(By.CSS_SELECTOR, '#play-sides [data-you="mover"]').click()
    _wait(browser, 10).until(lambda d: d.find_element(By.ID, "play").is_displayed())
    _wait(browser, 20).until(_settled)
    tb = tbdb.open(every_game_db)
    position, options, played = start, {}, []
    try:
        for turn in range(3):
            r = tb.lookup(position, game=name, **options)
            if not r.moves:
                break
            mine = r.moves[-1] if turn == 0 else r.moves[0]
            item = browser.find_element(By.CSS_SELECTOR, f'#moves li[data-move="{mine.move}"]')
            item.click()
            played.append(mine.move)
            if g.plies_option:
                options = {g.plies_option: r.extras[g.plies_option] - 1}
            after = tb.lookup(mine.position, game=name, **options)
            if not after.best_move:
                _wait(browser, 10).until(lambda d: _moves_in_url(d) == played)
                break
            played.append(after.best_move)  # the tablebase's reply: the stored best move
            _wait(browser, 10).until(lambda d: _moves_in_url(d) == played)
            _wait(browser, 20).until(_settled)
            if g.plies_option:
                options = {g.plies_option: after.extras[g.plies_option] - 1}
            position = next(m.position for m in after.moves if m.move == after.best_move)
            if turn == 0:
                worse = mine.outcome != r.outcome if r.extras.get("score") is None else \
                    mine.extras["score"] < r.extras["score"]
                first = browser.find_elements(By.CSS_SELECTOR, "#line li")[0]
                assert bool(first.get_attribute("data-mistake")) == worse
        assert played, "no move to play"
        text = browser.find_element(By.ID, "line-text").get_attribute("value")
        assert text.startswith(start) and all(m in text for m in played)
        ARTIFACTS.mkdir(exist_ok=True)
        browser.save_screenshot(str(ARTIFACTS / f"{name}-play.png"))
        link = browser.current_url
        if len(played) >= 2:
            browser.find_element(By.ID, "takeback").click()
            _wait(browser, 10).until(
                lambda d: _moves_in_url(d) == played[:len(played) - 2 + len(played) % 2])
            _wait(browser, 20).until(_settled)
        _open(browser, link)  # the link replays the same game
        assert browser.find_element(By.ID, "line-text").get_attribute("value") == text
    finally:
        tb.close()
    # script errors (a 400 or 404 an earlier test asked for is logged as a network error)
    errors = [e for e in browser.get_log("browser")
              if e["level"] == "SEVERE" and e.get("source") != "network"]
    assert not errors, errors


@pytest.mark.parametrize("name", games.names())
def test_find_links_open_positions_with_the_property(name, server, browser, every_game_db):
    g = games.get(name)
    _open(browser, f"{server}/?game={name}")
    _wait(browser, 10).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, "#find-tables [data-kind]"))
    tb = tbdb.open(every_game_db)
    try:
        from tests.test_web_api import _stored
        score = g.value_kind == "score"
        for kind in ("longest-win", "one-winning-move"):
            buttons = browser.find_elements(By.CSS_SELECTOR, f'#find-tables [data-kind="{kind}"]')
            for button in buttons[-1:]:  # the largest table (names sort by size mostly)
                table = button.get_attribute("data-find-table")
                button.click()
                _wait(browser, 20).until(
                    lambda d: d.find_element(By.ID, "find-results").get_attribute("data-table")
                    == table and d.find_element(By.ID, "find-results").get_attribute(
                        "data-kind") == kind and _settled(d))
                links = browser.find_elements(By.CSS_SELECTOR, "#find-results a[data-position]")
                if not links:
                    continue
                text = links[0].get_attribute("data-position")
                links[0].click()
                _wait(browser, 10).until(lambda d: _position_in_url(d) == text)
                _wait(browser, 20).until(_settled)
                r = tb.lookup(text, game=name)
                assert browser.find_element(By.ID, "value").get_attribute("class") == r.outcome
                if kind == "longest-win":
                    rows = _stored(tb, g, table)
                    best = max(v[0] for v in rows) if score else \
                        max(d for res, d in rows if res == 1)
                    assert (r.extras["score"] if score else r.distance) == best
                else:
                    assert [m.move for m in r.moves if m.outcome == "win"] == [r.best_move]
    finally:
        tb.close()
