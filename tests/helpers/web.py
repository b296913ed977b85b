"""What the tests of ``play.py --web`` share: the API in process, a sample game record, a
seed whose round asks the person every kind of question, a bot that moves only when the test
lets it, and headless Chromium."""

from __future__ import annotations

import random
import shutil
import threading
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from hanafuda_cli.web import WebConfig, create_app
from hanafuda_env.koikoi.game import KoiKoiGame
from hanafuda_env.koikoi.recorder import MatchRecorder
from hanafuda_env.koikoi.records import match_to_json
from hanafuda_env.koikoi.rules import resolve_rules

CHROMIUM = ("chromium", "chromium-browser", "google-chrome")
CHROMEDRIVER = "chromedriver"


def api_client(config: WebConfig | None = None) -> Any:
    from starlette.testclient import TestClient

    return TestClient(create_app(config or WebConfig(bot="random")),
                      base_url="http://127.0.0.1")


class GatedBot:
    """A bot (``make_agent("tests.helpers.web:GatedBot")``) whose every move waits for the
    test: ``entered`` is set once a move is asked of it, and it plays its first legal action
    only after ``release`` is set. A handshake, so that a test knows the bot is thinking
    without timing it."""

    name = "gated"
    entered = threading.Event()
    release = threading.Event()

    @classmethod
    def close(cls) -> None:
        """The next move waits again."""
        cls.entered.clear()
        cls.release.clear()

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        GatedBot.entered.set()
        GatedBot.release.wait()
        return np.asarray(mask, dtype=bool).argmax(axis=1)


GATED = "tests.helpers.web:GatedBot"


def sample_record(rules: str = "nintendo", rounds: int = 1, seed: int = 3) -> dict:
    """A finished match of random moves, as a game record's JSON."""
    ruleset = resolve_rules(rules)
    game = KoiKoiGame(ruleset.replace(rounds=rounds, name=ruleset.name), seed=0)
    recorder = MatchRecorder(game, ("north", "south"))
    recorder.reset(seed=seed)
    rng = random.Random(seed)
    while not recorder.matches:
        recorder.step(rng.choice(game.legal_actions()))
    return match_to_json(recorder.matches[0])


def person_policy(state: dict, calls: list[int]) -> int:
    """The person's move as the browser test makes it: the first legal card or field card;
    koi-koi at the first decision, stop after (``calls`` counts the decisions)."""
    if state["prompt"] == "decide":
        calls.append(1)
        return state["decision_ids"]["koikoi" if len(calls) == 1 else "stop"]
    return state["legal"][0]["action"]


def seed_asking_everything(rounds: int = 1, bot: str = "random") -> int:
    """The first seed whose game, played by :func:`person_policy`, asks the person to
    choose between two field cards and to decide koi-koi or stop (found by playing through
    the API, so the browser test meets both prompts whatever the deals)."""
    client = api_client()
    for seed in range(500):
        state = client.post("/api/games", json={"bot": bot, "rounds": rounds,
                                                "seed": seed}).json()
        seen, calls = set(), []
        while state["prompt"]:
            seen.add(state["prompt"])
            state = client.post(f"/api/games/{state['id']}/move",
                                json={"action": person_policy(state, calls)}).json()
        if {"choose", "decide"} <= seen and state["board"]["phase"] == "match-over":
            return seed
    raise AssertionError("no seed below 500 asks for both a field choice and a decision")


def chromium_driver(width: int = 1400, height: int = 1000) -> Any:
    """Headless Chromium driven by Selenium through the system's chromedriver (Debian's
    ``chromium`` and ``chromium-driver``; nothing is downloaded). Skips the test, saying
    why, where they are not installed (``scripts/setup.sh`` installs them as root)."""
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.chrome.service import Service

    browser = next((path for name in CHROMIUM if (path := shutil.which(name))), None)
    driver_path = shutil.which(CHROMEDRIVER)
    if browser is None or driver_path is None:
        pytest.skip("Chromium and chromedriver are not installed (apt-get install chromium "
                    "chromium-driver; scripts/setup.sh does it when run as root)")
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                 "--disable-gpu", f"--window-size={width},{height}"):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(driver_path), options=options)


def wait_for(driver: Any, condition: Callable[[Any], Any], message: str,
             limit: float = 60) -> Any:
    """Poll ``condition(driver)`` until it is truthy (a generous limit, not a timing)."""
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, limit, poll_frequency=0.05).until(condition, message)
