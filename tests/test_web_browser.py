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
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest

pytest.importorskip("starlette")
uvicorn = pytest.importorskip("uvicorn")
webdriver = pytest.importorskip("selenium.webdriver")

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


@pytest.fixture(scope="module")
def server(every_game_db):
    port = _free_port()
    config = uvicorn.Config(create_app(every_game_db), host="127.0.0.1", port=port,
                            log_level="warning")
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
    assert board.get_attribute("data-board") in (name, "text")
    first = browser.find_elements(By.CSS_SELECTOR, "#moves li")[0]
    assert first.get_attribute("data-move") == expected.best_move
    board_before = browser.find_element(By.ID, "board").get_attribute("innerHTML")
    ARTIFACTS.mkdir(exist_ok=True)
    browser.save_screenshot(str(ARTIFACTS / f"{name}-start.png"))

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


def test_stats_page_lists_every_game(server, browser):
    browser.get(f"{server}/stats")
    WebDriverWait(browser, 20).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#stats h2"))
    shown = [h.text for h in browser.find_elements(By.CSS_SELECTOR, "#stats h2")]
    assert shown == games.names()
    ARTIFACTS.mkdir(exist_ok=True)
    browser.save_screenshot(str(ARTIFACTS / "stats.png"))
