"""The JSON API of ``play.py --web`` (Starlette's TestClient, in process): whole games
played, watched and replayed through it; every bad request refused with a 4xx answer that
names the problem and the allowed values, the game unchanged; the page served with nothing
from outside; ``play.py --web`` printing its address and serving."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("starlette")

from hanafuda_cli.web import WebConfig  # noqa: E402
from hanafuda_cli.web.app import STATIC  # noqa: E402
from tests.helpers.web import api_client, person_policy, sample_record  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def new_game(client, **options) -> dict:
    response = client.post("/api/games", json={"bot": "random", "seed": 5, **options})
    assert response.status_code == 200, response.text
    return response.json()


def play_out(client, state: dict) -> dict:
    """Play the person's moves to the end of the match, dealing each next round."""
    calls: list[int] = []
    while state["board"]["phase"] != "match-over":
        if state["board"]["phase"] == "round-over":
            state = client.post(f"/api/games/{state['id']}/next", json={}).json()
            continue
        legal = [m["action"] for m in state["legal"]]
        assert legal and state["prompt"] in ("play", "choose", "decide")
        action = person_policy(state, calls)
        assert action in legal
        state = client.post(f"/api/games/{state['id']}/move", json={"action": action}).json()
        assert state["events"][0]["seat"] == state["human"]  # the person's move comes first
    return state


@pytest.mark.parametrize("rules", ["nintendo", "ten-base", "koikoi-japan"])
def test_a_whole_match_against_the_bot(rules: str) -> None:
    client = api_client()
    state = new_game(client, rules=rules, rounds=3, seat=1)
    assert state["names"] == ["random", "you"] and state["rules"] == rules
    state = play_out(client, state)
    assert len(state["rounds"]) == state["match"]["rounds"] <= 3
    scores = [sum(r["reward"][s] for r in state["rounds"]) for s in (0, 1)]
    assert scores == state["match"]["scores"] == state["board"]["score"]
    for row in state["rounds"]:
        if row["winner"] >= 0:
            assert row["reward"][row["winner"]] == row["points"] > 0
        assert all(y["points"] > 0 for y in row["yaku"]) and row["multiplier"] >= 1


def test_the_person_sees_only_their_own_hand() -> None:
    client = api_client()
    state = new_game(client)
    boards = [state["board"]] + [e["board"] for e in state["events"]]
    for board in boards:
        assert board["seats"][1]["hand"] is None and board["seats"][0]["hand"] is not None
        assert isinstance(board["stock"], int)
    text = json.dumps(state)
    assert '"stock": [' not in text  # the stock order never leaves the server


def test_the_same_seed_plays_the_same_game() -> None:
    client = api_client()
    first, second = (play_out(client, new_game(client, rounds=2, seed=9)) for _ in range(2))
    assert first["rounds"] == second["rounds"]


def test_watching_two_bots_shows_both_hands_and_every_move() -> None:
    client = api_client()
    state = client.post("/api/games", json={"mode": "watch", "bots": ["greedy", "random"],
                                            "rounds": 2, "seed": 4}).json()
    assert state["human"] is None and state["legal"] == [] and state["prompt"] is None
    while True:
        for event in state["events"]:
            assert all(seat["hand"] is not None for seat in event["board"]["seats"])
        assert state["board"]["phase"] in ("round-over", "match-over")
        if state["board"]["phase"] == "match-over":
            break
        state = client.post(f"/api/games/{state['id']}/next", json={}).json()
    assert state["names"] == ["greedy (player_0)", "random (player_1)"]
    refused = client.post(f"/api/games/{state['id']}/move", json={"action": 0})
    assert refused.status_code == 409


def test_a_record_replays_position_by_position() -> None:
    client = api_client()
    record = sample_record("koikoi-japan", rounds=2, seed=7)
    state = client.post("/api/replays", json={"record": record}).json()
    frames = state["frames"]
    turns = sum(1 for r in record["record"].values() for key in r if key.startswith("turn"))
    moves = [f for f in frames if ":" in f["text"].split(";")[0] and "dealt" not in f["text"]]
    assert len(moves) >= turns  # a turn is one move, or two or three with a choice or call
    results = [f["result"] for f in frames if f["result"]]
    assert sum(r["reward"][0] for r in results) == (record["result"]["player1EndPts"]
                                                   - record["info"]["player1InitPts"])
    assert all(seat["hand"] is not None for f in frames for seat in f["board"]["seats"])
    again = client.get(f"/api/games/{state['id']}").json()
    assert again["frames"] == frames


def test_an_illegal_move_is_refused_and_the_game_is_unchanged() -> None:
    client = api_client()
    state = new_game(client)
    game_id = state["id"]
    before = client.get(f"/api/games/{game_id}").json()
    legal = [m["action"] for m in state["legal"]]
    illegal = next(a for a in range(98) if a not in legal)
    for action in (illegal, 98, -1, "3", 2.0, None, True, [1]):
        response = client.post(f"/api/games/{game_id}/move", json={"action": action})
        assert response.status_code == 422, action
        body = response.json()
        assert "not a legal move" in body["error"] and str(legal) in body["error"]
        assert [m["action"] for m in body["legal_actions"]] == legal
    assert client.get(f"/api/games/{game_id}").json() == before


@pytest.mark.parametrize(("path", "body", "status", "words"), [
    ("/api/games/nope/move", {"action": 0}, 404, "no game with id 'nope'"),
    ("/api/games/nope/next", {}, 404, "no game with id 'nope'"),
    ("/api/games", {"mode": "duel"}, 422, "mode must be one of 'play', 'watch'"),
    ("/api/games", {"bot": "stockfish"}, 422, "bot must be one of 'random', 'greedy'"),
    ("/api/games", {"bot": "agents/../x.pt"}, 422, "bot must be one of"),
    ("/api/games", {"rules": "chess"}, 422, "rules must be one of 'nintendo', 'ten-base'"),
    ("/api/games", {"rounds": 0}, 422, "rounds must be an integer from 1 to 99"),
    ("/api/games", {"rounds": "3"}, 422, "rounds must be an integer"),
    ("/api/games", {"seat": 2}, 422, "seat must be an integer from 0 to 1"),
    ("/api/games", {"seed": -1}, 422, "seed must be an integer from 0"),
    ("/api/games", {"colour": "red"}, 422, "unknown field(s) colour; allowed fields: mode"),
    ("/api/games", {"mode": "watch", "bots": ["random"]}, 422, "bots must be a list of two"),
    ("/api/games", [1, 2], 400, "the body must be a JSON object, got list"),
    ("/api/replays", {}, 422, "missing field 'record'"),
    ("/api/replays", {"record": {"info": {}}}, 422, "the record"),
    ("/api/replays", {"record": sample_record(), "rules": "go"}, 422, "rules must be one of"),
])
def test_bad_requests_are_named(path: str, body, status: int, words: str) -> None:
    client = api_client()
    response = client.post(path, json=body)
    assert response.status_code == status, response.text
    assert words in response.json()["error"]


def test_garbage_json_a_missing_field_and_the_wrong_moment_are_named() -> None:
    client = api_client()
    state = new_game(client)
    game_id = state["id"]
    before = client.get(f"/api/games/{game_id}").json()
    garbage = client.post(f"/api/games/{game_id}/move", content=b"{action: 3",
                          headers={"Content-Type": "application/json"})
    assert garbage.status_code == 400 and "not valid JSON" in garbage.json()["error"]
    plain = client.post(f"/api/games/{game_id}/move", content=b'{"action": 3}',
                        headers={"Content-Type": "text/plain"})
    assert plain.status_code == 415 and "application/json" in plain.json()["error"]
    missing = client.post(f"/api/games/{game_id}/move", json={})
    assert missing.status_code == 422 and "missing field 'action'" in missing.json()["error"]
    assert missing.json()["legal_actions"] == state["legal"]
    early = client.post(f"/api/games/{game_id}/next", json={})
    assert early.status_code == 409 and "still in play" in early.json()["error"]
    assert client.get(f"/api/games/{game_id}").json() == before
    over = play_out(client, new_game(client, rounds=1))
    late = client.post(f"/api/games/{over['id']}/move", json={"action": 0})
    assert late.status_code == 409 and "round is over" in late.json()["error"]
    after = client.post(f"/api/games/{over['id']}/next", json={})
    assert after.status_code == 409 and "match is over" in after.json()["error"]


def test_unknown_routes_and_other_hosts_are_refused() -> None:
    client = api_client()
    missing = client.get("/api/nothing")
    assert missing.status_code == 404 and "/api/games" in missing.json()["routes"]
    assert client.get("/api/games").status_code == 405
    other = client.get("/", headers={"Host": "attacker.example"})
    assert other.status_code == 400


def test_the_page_needs_nothing_from_outside() -> None:
    client = api_client()
    page = client.get("/").text
    assert '<script src="/static/app.js">' in page
    for path in STATIC.iterdir():
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"(src|href)=\"(https?:)?//", text), path
        assert "@import" not in text and "url(http" not in text, path
    assert not re.search(r"fetch\(\s*['\"`]https?:", (STATIC / "app.js").read_text())
    cards = client.get("/api/cards").json()
    assert len(cards["cards"]) == 48 and "<title>" in cards["cards"][0]["svg"]
    options = client.get("/api/options").json()
    assert options["rules"] == ["nintendo", "ten-base", "koikoi-japan"]


def test_the_served_bots_are_the_baselines_and_the_one_given() -> None:
    client = api_client(WebConfig(bots=("random", "greedy", "expert", "search"), bot="greedy"))
    assert client.get("/api/options").json()["bot"] == "greedy"
    state = new_game(client, bot=None)
    assert state["names"][1] == "greedy"


def test_play_py_web_prints_its_address_and_serves(tmp_path) -> None:
    """One command starts it: ``play.py --web --port 0`` prints the URL on 127.0.0.1 and
    answers there until stopped."""
    process = subprocess.Popen(
        [sys.executable, "play.py", "--web", "--port", "0", "--bot", "random"], cwd=ROOT,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = process.stdout.readline()  # blocks until the server is bound
        match = re.search(r"http://127\.0\.0\.1:\d+/", line)
        assert match, (line, process.stderr.read() if process.poll() is not None else "")
        with urllib.request.urlopen(match.group(0) + "api/options", timeout=60) as reply:
            assert json.loads(reply.read())["bot"] == "random"
    finally:
        process.terminate()
        process.wait(timeout=60)


@pytest.mark.parametrize(("args", "words"), [
    (["--web", "--record", "x.json"], "--record is for the terminal game"),
    (["--web", "--port", "70000"], "a port from 0 to 65535"),
    (["--web", "--bot-delay", "-1"], "a number >= 0"),
])
def test_play_py_web_refuses_bad_options(args: list[str], words: str) -> None:
    result = subprocess.run([sys.executable, "play.py", *args], cwd=ROOT, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 2 and words in result.stderr
