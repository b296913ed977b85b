"""``play.py --web`` in a real browser (headless Chromium through Selenium): a whole round
against the random bot played by clicking (cards, a field choice, koi-koi and stop), its
result read off the page (yaku by their names) and checked against the server, the game kept
across a reload of the tab; the cards drawn as pictures, each its own, named in full on hover,
and the favicon loaded; two bots watched; a game record stepped forward and back with plain
ASCII buttons, and one with HTML in its names shown as text. Every wait polls for what the
page shows, with generous limits; the bots move without a pause (``?delay=0``)."""

from __future__ import annotations

import io
import json
import urllib.request

import pytest

pytest.importorskip("starlette")
pytest.importorskip("selenium")

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402

from hanafuda_cli.web import ServerThread, WebConfig  # noqa: E402
from hanafuda_env.render.card_art import card_title  # noqa: E402
from hanafuda_env.render.yaku_names import yaku_display  # noqa: E402
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
    shown = [r.text for r in driver.find_elements(By.CSS_SELECTOR, "#result-yaku td")]
    assert shown[0::2] == [yaku_display(y["name"]) for y in row["yaku"]] and shown
    assert "Match over after 1 round " in driver.find_element(By.ID, "match-over").text
    driver.save_screenshot(str(tmp_path / "web_play.png"))
    assert (tmp_path / "web_play.png").stat().st_size > 10_000
    driver.refresh()  # the tab keeps its game: the same result comes back
    wait_for(driver, lambda d: board_state(d) == "match-over", "the game was not restored")
    assert int(driver.find_element(By.ID, "result-points").text) == row["points"]


def test_cards_are_their_own_pictures_named_in_full_on_hover(url, driver) -> None:
    import numpy as np
    from PIL import Image

    open_page(driver, url)
    driver.find_element(By.ID, "seed").send_keys("12")
    driver.find_element(By.ID, "start").click()
    wait_for(driver, lambda d: board_state(d) == "move", "the game did not start")
    icon = driver.find_element(By.CSS_SELECTOR, "link[rel='icon']").get_attribute("href")
    with urllib.request.urlopen(icon, timeout=60) as reply:
        assert reply.status == 200 and reply.headers["Content-Type"].startswith("image/svg+xml")
        assert b"<svg" in reply.read()
    cards = driver.find_elements(By.CSS_SELECTOR, "#board .card")
    wait_for(driver, lambda d: d.execute_script(
        "return [...document.querySelectorAll('#board .card img')]"
        ".every((img) => img.complete && img.naturalWidth > 0)"), "a card picture did not load")
    faces = {}
    for card in cards:
        shown = card.get_attribute("data-card")
        picture = card.find_element(By.TAG_NAME, "img")
        if shown == "back":
            assert picture.get_attribute("src").endswith("/cards/back.svg")
            assert card.get_attribute("title") == "a hidden card"
            continue
        card_id = int(shown)
        assert picture.get_attribute("src").endswith(f"/cards/{card_id}.svg")
        assert card.get_attribute("title") == card_title(card_id)  # the full name
        assert picture.get_attribute("alt") == card_title(card_id)
        if card.find_elements(By.XPATH, "ancestor::div[contains(@class, 'pile')]"):
            continue  # overlapped in its pile: only a strip of it is in view
        faces[card_id] = np.asarray(Image.open(io.BytesIO(card.screenshot_as_png))
                                    .convert("RGB").resize((30, 48)))
    assert len(faces) >= 12  # the field and the person's hand
    for a in faces:  # each card id on the board is drawn as its own picture
        for b in faces:
            if a < b:
                assert np.abs(faces[a].astype(int) - faces[b]).sum() > 0, (a, b)


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
    buttons = driver.find_elements(By.CSS_SELECTOR, "#replay-controls button")
    assert [b.text for b in buttons] == ["|< first", "< back", "forward >", "last >|"]
    driver.find_element(By.ID, "last").click()
    wait_for(driver, lambda d: info.text.startswith(f"position {total} of"), "last")
    assert driver.find_element(By.ID, "result").is_displayed()


def test_names_in_a_record_show_as_text_and_run_nothing(url, driver, tmp_path) -> None:
    """A record's names reach the page as text: HTML in them makes no element and its
    script never runs (the probe loads the same missing picture and waits for its error,
    so the injected one would have fired by then)."""
    record = sample_record("koikoi-japan", rounds=1, seed=5)
    names = ['<img src=x onerror="window.injected = 1">', '<b id="bold">B</b>']
    record["info"]["player1Name"], record["info"]["player2Name"] = names
    path = tmp_path / "names.json"
    path.write_text(json.dumps(record))
    open_page(driver, url)
    Select(driver.find_element(By.ID, "mode")).select_by_value("replay")
    driver.find_element(By.ID, "record-file").send_keys(str(path))
    driver.find_element(By.ID, "start").click()
    wait_for(driver, lambda d: board_state(d) == "replay", "the record did not load")
    driver.find_element(By.ID, "last").click()
    result = driver.find_element(By.ID, "result")
    wait_for(driver, lambda d: result.is_displayed(), "the last position shows no result")
    assert f"koi-koi calls: {names[0]} 0, {names[1]} 0" in result.text
    assert names[0] in driver.find_element(By.ID, "near").text
    assert not driver.find_elements(By.CSS_SELECTOR, "#result img, #result b, #bold")
    ran = driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        const probe = new Image();
        probe.onerror = probe.onload = () => done(window.injected !== undefined);
        probe.src = "x";
    """)
    assert ran is False
