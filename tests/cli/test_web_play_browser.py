"""``play.py --web`` in a real browser (headless Chromium through Selenium): a whole round
against the random bot played by clicking (cards, a field choice, koi-koi and stop), its
result read off the page and checked against the server, the game kept across a reload of
the tab; two bots watched; a game record stepped forward and back. Every wait polls for
what the page shows, with generous limits; the bots move without a pause (``?delay=0``)."""

from __future__ import annotations

import json
import urllib.request

import pytest

pytest.importorskip("starlette")
pytest.importorskip("selenium")

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402

from hanafuda_cli.web import ServerThread, WebConfig  # noqa: E402
from tests.helpers.web import (  # noqa: E402
    chromium_driver,
    sample_record,
    seed_asking_everything,
    wait_for,
)

WAITING = ("move", "choose", "decide", "round-over", "match-over")


@pytest.fixture(scope="module")
def url():
    with ServerThread(WebConfig(bot="random", bot_delay=0.8)) as address:
        yield address


@pytest.fixture(scope="module")
def driver():
    browser = chromium_driver()
    yield browser
    browser.quit()


def board_state(driver) -> str:
    return driver.find_element(By.ID, "board").get_attribute("data-state")


def open_page(driver, url: str) -> None:
    driver.get(url + "?delay=0")
    driver.execute_script("sessionStorage.clear()")
    driver.get(url + "?delay=0")
    wait_for(driver, lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready"),
             "the page did not load its options and cards")


def moves_logged(driver) -> int:
    return len(driver.find_elements(By.CSS_SELECTOR, "#log li"))


def click_and_wait(driver, element) -> None:
    """Click, then wait until the page has shown the move and waits again."""
    logged = moves_logged(driver)
    element.click()
    wait_for(driver, lambda d: moves_logged(d) > logged and board_state(d) in WAITING,
             "the page did not show the move")


def game_on_server(driver, url: str) -> dict:
    game_id = driver.execute_script("return sessionStorage.getItem('koikoi-game-id')")
    with urllib.request.urlopen(f"{url}api/games/{game_id}", timeout=60) as reply:
        return json.loads(reply.read())


def test_a_round_against_the_random_bot_by_clicking(url, driver, tmp_path) -> None:
    seed = seed_asking_everything()
    open_page(driver, url)
    Select(driver.find_element(By.ID, "bot")).select_by_value("random")
    driver.find_element(By.ID, "rounds").send_keys("1")
    driver.find_element(By.ID, "seed").send_keys(str(seed))
    driver.find_element(By.ID, "start").click()
    wait_for(driver, lambda d: board_state(d) in WAITING, "the game did not start")
    seen, decisions = set(), 0
    while (state := board_state(driver)) not in ("round-over", "match-over"):
        seen.add(state)
        server = game_on_server(driver, url)
        legal = {m["action"] for m in server["legal"]}
        clickable = driver.find_elements(By.CSS_SELECTOR, ".card.legal")
        if state == "move":  # exactly the legal cards of the hand can be clicked
            assert {int(c.get_attribute("data-action")) for c in clickable} == legal
            hand = driver.find_elements(By.CSS_SELECTOR, "#near .hand .card")
            assert len(hand) > len(clickable) or len(hand) == len(legal)
            click_and_wait(driver, clickable[0])
        elif state == "choose":  # the two field cards the played or drawn card matches
            assert {int(c.get_attribute("data-action")) for c in clickable} == legal
            assert len(clickable) == 2
            assert "click the one to take" in driver.find_element(By.ID, "prompt").text
            click_and_wait(driver, clickable[0])
        else:  # koi-koi or stop
            assert not clickable and driver.find_element(By.ID, "decide").is_displayed()
            decisions += 1
            click_and_wait(driver, driver.find_element(By.ID, "koikoi" if decisions == 1
                                                       else "stop"))
        hidden = driver.find_elements(By.CSS_SELECTOR, "#far .hand .card")
        assert all(c.get_attribute("data-card") == "back" for c in hidden)
    assert {"move", "choose", "decide"} <= seen
    result = driver.find_element(By.ID, "result")
    assert result.is_displayed()
    row = game_on_server(driver, url)["rounds"][-1]
    assert int(driver.find_element(By.ID, "result-points").text) == row["points"]
    assert f"multiplier {row['multiplier']}" in result.text
    for yaku in row["yaku"]:
        assert yaku["name"] in result.text
    assert "Match over after 1 round " in driver.find_element(By.ID, "match-over").text
    driver.save_screenshot(str(tmp_path / "web_play.png"))
    assert (tmp_path / "web_play.png").stat().st_size > 10_000
    driver.refresh()  # the tab keeps its game: the same result comes back
    wait_for(driver, lambda d: board_state(d) == "match-over", "the game was not restored")
    assert int(driver.find_element(By.ID, "result-points").text) == row["points"]


def test_two_bots_are_watched_with_both_hands_shown(url, driver) -> None:
    open_page(driver, url)
    Select(driver.find_element(By.ID, "mode")).select_by_value("watch")
    Select(driver.find_element(By.ID, "bot0")).select_by_value("greedy")
    driver.find_element(By.ID, "rounds").send_keys("2")
    driver.find_element(By.ID, "seed").send_keys("4")
    driver.find_element(By.ID, "start").click()
    wait_for(driver, lambda d: board_state(d) in ("round-over", "match-over"),
             "the bots did not finish their round")
    assert not driver.find_elements(By.CSS_SELECTOR, ".card.legal")
    assert not driver.find_elements(By.CSS_SELECTOR, ".hand .card[data-card='back']")
    if board_state(driver) == "round-over":
        click_and_wait(driver, driver.find_element(By.ID, "next-round"))
        wait_for(driver, lambda d: board_state(d) == "match-over", "round 2 was not played")
    log = [li.text for li in driver.find_elements(By.CSS_SELECTOR, "#log li")]
    assert any(text.startswith("greedy (player_0): play") for text in log), log
    assert any(text.startswith("random (player_1): play") for text in log), log


def test_a_record_replays_forward_and_back(url, driver, tmp_path) -> None:
    path = tmp_path / "match.json"
    path.write_text(json.dumps(sample_record("koikoi-japan", rounds=2, seed=5)))
    open_page(driver, url)
    Select(driver.find_element(By.ID, "mode")).select_by_value("replay")
    driver.find_element(By.ID, "record-file").send_keys(str(path))
    driver.find_element(By.ID, "start").click()
    wait_for(driver, lambda d: board_state(d) == "replay", "the record did not load")
    info = driver.find_element(By.ID, "frame-info")
    total = int(info.text.split(" of ")[1].split(":")[0])
    assert info.text.startswith("position 1 of") and total > 5
    first_board = driver.find_element(By.ID, "board").get_attribute("innerHTML")
    driver.find_element(By.ID, "forward").click()
    wait_for(driver, lambda d: info.text.startswith("position 2 of"), "forward did not step")
    assert driver.find_element(By.ID, "board").get_attribute("innerHTML") != first_board
    driver.find_element(By.ID, "back").click()
    wait_for(driver, lambda d: info.text.startswith("position 1 of"), "back did not step")
    assert driver.find_element(By.ID, "board").get_attribute("innerHTML") == first_board
    assert not driver.find_element(By.ID, "back").is_enabled()
    driver.find_element(By.ID, "last").click()
    wait_for(driver, lambda d: info.text.startswith(f"position {total} of"), "last")
    assert driver.find_element(By.ID, "result").is_displayed()
