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
CLICK_ON_THE_BOARD = {"shogi", "uttt", "cdc", "tictactoe"}


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


CHECK_BOARD = {"shogi": _check_shogi, "uttt": _check_uttt,
               "chinese-checkers": _check_chinese_checkers}


def _click_at_centre(driver, board, element) -> None:
    """A mouse click at the centre of ``element``'s box, as a person clicks: WebDriver's own
    click refuses an arrow that is a horizontal or vertical line (a box of zero height or
    width), which a person clicks on its stroke all the same."""
    box, outer = (driver.execute_script("const r = arguments[0].getBoundingClientRect(); "
                                        "return [r.x + r.width / 2, r.y + r.height / 2];", e)
                  for e in (element, board))
    ActionChains(driver).move_to_element_with_offset(
        board, round(box[0] - outer[0]), round(box[1] - outer[1])).click().perform()


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
    wait = WebDriverWait(browser, 20)
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#moves li"))
    start = _position_in_url(browser)
    with tbdb.open(every_game_db) as tb:
        expected = tb.lookup(start, game=name)
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
        assert drawn == {m.move for m in expected.moves}
    CHECK_BOARD.get(name, lambda *a: None)(board, g.parse(start))
    board_before = browser.find_element(By.ID, "board").get_attribute("innerHTML")
    ARTIFACTS.mkdir(exist_ok=True)
    browser.save_screenshot(str(ARTIFACTS / f"{name}-start.png"))

    if name in CLICK_ON_THE_BOARD:
        # the best move is drawn last, on top of the others
        _click_at_centre(browser, board, board.find_elements(
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
    WebDriverWait(browser, 20).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#stats h2"))
    shown = [h.text for h in browser.find_elements(By.CSS_SELECTOR, "#stats h2")]
    assert shown == games.names()
    with tbdb.open(every_game_db) as tb:
        tables = tb.sql("SELECT DISTINCT game, table_name FROM draw_analysis").fetchall()
    # a histogram per table, drawn once its answer arrives
    WebDriverWait(browser, 20).until(
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
        expected = tb.lookup(text)
    with _serving(db) as url:
        browser.get(f"{url}/?game=chinese-checkers&position={quote(text)}")
        WebDriverWait(browser, 20).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#moves li"))
        board = browser.find_element(By.CSS_SELECTOR, "#board [data-board]")
        _check_chinese_checkers(board, g.parse(text))
        first = browser.find_elements(By.CSS_SELECTOR, "#moves li")[0]
        assert first.get_attribute("data-move") == expected.best_move
        ARTIFACTS.mkdir(exist_ok=True)
        browser.save_screenshot(str(ARTIFACTS / "chinese-checkers-distance.png"))
        errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
        assert not errors, errors
