"""``play.py --web`` against hostile requests: the person's page never gets the seed or a
card the bot or the stock hides; bodies past the limit, JSON nested too deep and records
that cannot replay get a 4xx JSON answer; a thinking bot leaves the server answering other
requests; connections left half-open are closed. Every wait is a handshake (an event, a
server's answer or its closing the connection), with generous limits against a hang."""

from __future__ import annotations

import http.client
import json
import random
import re
import secrets
import socket
import threading
import urllib.request
from contextlib import closing

import pytest

pytest.importorskip("starlette")

import uvicorn  # noqa: E402

from hanafuda_cli.web import ServerThread, WebConfig, bind, serve, sessions  # noqa: E402
from hanafuda_cli.web.app import MAX_BODY, MAX_JSON_DEPTH, STATIC  # noqa: E402
from hanafuda_cli.web.protocol import DeadlineH11Protocol  # noqa: E402
from hanafuda_env.koikoi.game import KoiKoiGame  # noqa: E402
from hanafuda_env.koikoi.rules import resolve_rules  # noqa: E402
from tests.helpers.web import GATED, GatedBot, api_client, person_policy, sample_record  # noqa: E402

HANG = 60  # seconds: only so that a broken server fails the test instead of hanging it
SEED = 1_987_654_321
JSON = {"Content-Type": "application/json"}


def keys_of(data) -> set[str]:
    """Every key of every object in ``data``."""
    found, todo = set(), [data]
    while todo:
        value = todo.pop()
        if isinstance(value, dict):
            found |= set(value)
            todo += list(value.values())
        elif isinstance(value, list):
            todo += value
    return found


def test_a_game_against_a_bot_never_sends_its_seed(monkeypatch) -> None:
    monkeypatch.setattr(secrets, "randbelow", lambda n: SEED)
    client = api_client()
    sent = [client.post("/api/games", json={"bot": "random", "rounds": 2})]
    state, calls = sent[0].json(), []
    while state["board"]["phase"] != "match-over":
        game = f"/api/games/{state['id']}"
        sent += [client.get(game), client.post(f"{game}/move", json={"action": -1}),
                 client.post(f"{game}/move", json={})]
        if state["board"]["phase"] == "round-over":
            sent.append(client.post(f"{game}/next", json={}))
        else:
            sent.append(client.post(f"{game}/move",
                                    json={"action": person_policy(state, calls)}))
        state = sent[-1].json()
    for response in sent:
        assert str(SEED) not in response.text and "seed" not in keys_of(response.json())
    watched = client.post("/api/games", json={"mode": "watch", "bots": ["random", "random"],
                                              "rounds": 1}).json()
    assert watched["seed"] == SEED  # two bots: a spectator may rewatch the match


def test_the_page_builds_no_html_from_strings() -> None:
    """What a record or a request holds reaches the page as text: app.js makes elements and
    sets their ``textContent``; ``innerHTML`` only ever clears an element."""
    script = (STATIC / "app.js").read_text(encoding="utf-8")
    for sink in ("insertAdjacentHTML", "outerHTML", "document.write", "eval(", "DOMParser",
                 "createContextualFragment", "srcdoc"):
        assert sink not in script, sink
    assignments = re.findall(r"innerHTML\s*\+?=\s*([^;]*);", script)
    assert assignments and set(assignments) == {'""'}, assignments
    assert not re.search(r"[`'\"]\s*<[a-zA-Z/]", script)  # no markup in string literals


# ------------------------------------------------------------------ hidden cards
RULES = resolve_rules("nintendo").replace(rounds=1, name="nintendo")
HIDDEN = [*range(8, 16), *range(24, 48)]  # deck positions of the bot's hand and the stock


def deal(monkeypatch, deck: list[int]) -> None:
    """The next game the server starts deals ``deck`` (the person, seat 0, deals)."""
    class Dealt(KoiKoiGame):
        def reset(self, seed=None, options=None, **kwargs):
            return super().reset(seed=seed, options={"deck": deck, "dealer": 0}, **kwargs)
    monkeypatch.setattr(sessions, "KoiKoiGame", Dealt)


def playable(deck: list[int]) -> bool:
    """The rules play this deal and its round waits for the dealer's first move."""
    game = KoiKoiGame(RULES, seed=0, autoreset=False)
    try:
        game.check_deck(deck)
    except ValueError:
        return False
    game.reset(options={"deck": deck, "dealer": 0})
    return game.phase == 0 and game.mover == 0


def shuffled(deck: list[int], positions: list[int], seed: int) -> list[int]:
    """``deck`` with the cards at ``positions`` shuffled among themselves, still playable."""
    rng = random.Random(seed)
    for _ in range(1000):
        cards = [deck[p] for p in positions]
        rng.shuffle(cards)
        other = list(deck)
        for p, card in zip(positions, cards):
            other[p] = card
        if other != deck and playable(other):
            return other
    raise AssertionError("no playable shuffle")


def public_cards(state: dict) -> set[int]:
    """The cards face up in any board of an answer: field, piles, a drawn card waiting."""
    cards: set[int] = set()
    for board in [state["board"]] + [event["board"] for event in state["events"]]:
        cards |= set(board["field"]) | ({board["pending"]} - {None})
        for seat in board["seats"]:
            cards |= {c for pile in seat["pile"].values() for c in pile}
    return cards


def seen(client, state: dict) -> list:
    """What the person gets at this point: the answer, a reload, a refused move."""
    game = f"/api/games/{state['id']}"
    return [{k: v for k, v in state.items() if k != "id"},
            {k: v for k, v in client.get(game).json().items() if k != "id"},
            client.post(f"{game}/move", json={"action": -1}).json()]


def lockstep(monkeypatch, first: list[int], second: list[int]) -> tuple[int, bool]:
    """Play the same moves of the person in games dealt ``first`` and ``second`` until a
    card placed differently shows face up; every answer until then must be the same. The
    number of positions compared, and whether the match ended first."""
    changed = {first[p] for p in range(48) if first[p] != second[p]}
    client = api_client()
    states = []
    for deck in (first, second):
        deal(monkeypatch, deck)
        states.append(client.post("/api/games", json={"bot": "random", "seed": 5,
                                                      "seat": 0, "rounds": 1}).json())
    calls: tuple[list[int], list[int]] = ([], [])
    compared = 0
    while not changed & (public_cards(states[0]) | public_cards(states[1])):
        assert seen(client, states[0]) == seen(client, states[1])
        compared += 1
        if not states[0]["prompt"]:
            return compared, True
        states = [client.post(f"/api/games/{s['id']}/move",
                              json={"action": person_policy(s, c)}).json()
                  for s, c in zip(states, calls)]
    return compared, False


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_hidden_cards_change_nothing_the_person_sees(monkeypatch, seed: int) -> None:
    deck = shuffled(list(range(48)), list(range(48)), seed)
    other = shuffled(deck, HIDDEN, seed)  # another bot's hand and stock order
    compared, ended = lockstep(monkeypatch, deck, other)
    assert compared >= 1 and not ended  # until the first card drawn or played shows
    compared, ended = lockstep(monkeypatch, deck, deck)
    left = api_client()
    deal(monkeypatch, deck)
    state = left.post("/api/games", json={"bot": "random", "seed": 5, "seat": 0,
                                          "rounds": 1}).json()
    calls: list[int] = []
    while state["prompt"]:
        state = left.post(f"/api/games/{state['id']}/move",
                          json={"action": person_policy(state, calls)}).json()
    never_drawn = list(range(48 - state["board"]["stock"], 48))
    assert len(never_drawn) >= 2
    compared_tail, ended = lockstep(monkeypatch, deck, shuffled(deck, never_drawn, seed))
    assert ended and compared_tail == compared  # the stock never drawn shows nowhere


# ------------------------------------------------------------------ bodies and JSON
def test_a_body_past_the_limit_is_refused_with_413() -> None:
    client = api_client()
    big = json.dumps({"record": "x" * MAX_BODY}).encode()
    for path in ("/api/replays", "/api/games"):
        response = client.post(path, content=big, headers=JSON)
        assert response.status_code == 413, response.text
        assert response.json() == {"error": f"the body is larger than the {MAX_BODY} bytes "
                                   "this server reads", "limit_bytes": MAX_BODY}
    chunked = client.post("/api/replays", content=iter([big[:1000], big[1000:]]),
                          headers=JSON)
    assert "content-length" not in chunked.request.headers
    assert chunked.status_code == 413 and chunked.json()["limit_bytes"] == MAX_BODY
    small = api_client(WebConfig(bot="random", max_body=64))
    assert small.post("/api/games", json={"bot": "random", "seed": 5}).status_code == 200
    assert small.post("/api/games", json={"bot": "random", "rounds": 1, "seat": 0,
                                          "seed": 5, "mode": "play" + " " * 30}
                      ).status_code == 413


def test_a_huge_content_length_is_answered_before_any_body_comes() -> None:
    with ServerThread(WebConfig(bot="random")) as url:
        port = int(url.rstrip("/").rsplit(":", 1)[1])
        with closing(http.client.HTTPConnection("127.0.0.1", port, timeout=HANG)) as connection:
            connection.putrequest("POST", "/api/replays")
            connection.putheader("Content-Type", "application/json")
            connection.putheader("Content-Length", "10000000000")
            connection.endheaders()
            response = connection.getresponse()
            assert response.status == 413
            assert json.loads(response.read())["limit_bytes"] == MAX_BODY


@pytest.mark.parametrize("path", ["/api/games", "/api/replays", "move"])
@pytest.mark.parametrize("depth", [MAX_JSON_DEPTH + 1, 1000, 100_000])
def test_json_nested_too_deep_is_refused_with_400(path: str, depth: int) -> None:
    client = api_client()
    if path == "move":
        game = client.post("/api/games", json={"bot": "random", "seed": 5}).json()
        path = f"/api/games/{game['id']}/move"
    body = '{"record": ' + "[" * depth + "]" * depth + "}"
    response = client.post(path, content=body.encode(), headers=JSON)
    assert response.status_code == 400, response.text
    assert response.json() == {"error": f"the body nests lists and objects more than "
                               f"{MAX_JSON_DEPTH} deep", "max_depth": MAX_JSON_DEPTH}


def test_json_a_game_takes_is_not_too_deep_and_huge_numbers_are_named() -> None:
    client = api_client()
    record = sample_record("koikoi-japan", rounds=2)
    assert client.post("/api/replays", json={"record": record}).status_code == 200
    digits = client.post("/api/games", content=b'{"seed": ' + b"9" * 5000 + b"}",
                         headers=JSON)
    assert digits.status_code == 400 and "not valid JSON" in digits.json()["error"]


@pytest.mark.parametrize("rounds", [0, -3, 1001])
def test_a_record_whose_round_count_the_rules_refuse_is_named(rounds: int) -> None:
    record = sample_record()
    record["info"]["numRound"] = rounds
    response = api_client().post("/api/replays", json={"record": record})
    assert response.status_code == 422, response.text
    assert f"info 'numRound' is {rounds}: rule 'rounds' must be" in response.json()["error"]


class FailingBot:
    """A bot with a fault: the server answers JSON and keeps the fault's text to itself."""

    name = "failing"

    def act(self, obs, mask):
        raise RuntimeError("the bot's hand is [1, 2, 3]")


def test_a_fault_in_the_server_is_a_json_500_without_its_message() -> None:
    from starlette.testclient import TestClient

    from hanafuda_cli.web import create_app

    spec = f"{__name__}:FailingBot"
    client = TestClient(create_app(WebConfig(bots=(spec,), bot=spec)),
                        base_url="http://127.0.0.1", raise_server_exceptions=False)
    response = client.post("/api/games", json={"mode": "watch", "bots": [spec, spec]})
    assert response.status_code == 500
    assert response.json() == {"error": "POST /api/games failed in the server "
                               "(RuntimeError); the server's log has the details"}


# ------------------------------------------------------------------ threads and sockets
def post(url: str, body: dict) -> tuple[int, dict]:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers=JSON)
    try:
        with urllib.request.urlopen(request, timeout=HANG) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def get(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=HANG) as reply:
        return json.loads(reply.read())


def in_thread(work) -> tuple[threading.Thread, list]:
    result: list = []
    thread = threading.Thread(target=lambda: result.append(work()), daemon=True)
    thread.start()
    return thread, result


def bot_replies(url: str, seed: int) -> bool:
    """The game of this seed waits for the person's move, and the bot answers it."""
    game = post(url + "api/games", {"bot": GATED, "seed": seed, "rounds": 1})[1]
    if game["prompt"] != "play":
        return False
    state = post(f"{url}api/games/{game['id']}/move",
                 {"action": game["legal"][0]["action"]})[1]
    return any(event["seat"] == 1 - game["human"] for event in state["events"])


def bots_move(url: str, seed: int) -> bool:
    """The watched game of this seed has a move (no hand yaku ends it at the deal)."""
    state = post(url + "api/games", {"mode": "watch", "bots": [GATED, GATED], "rounds": 1,
                                     "seed": seed})[1]
    return any(event["seat"] is not None for event in state["events"])


def test_a_thinking_bot_leaves_the_server_answering() -> None:
    GatedBot.release.set()
    with ServerThread(WebConfig(bots=("random", GATED), bot="random")) as url:
        try:
            seed = next(seed for seed in range(100) if bots_move(url, seed))
            GatedBot.close()
            watch, watched = in_thread(lambda: post(url + "api/games", {
                "mode": "watch", "bots": [GATED, GATED], "rounds": 1, "seed": seed}))
            assert GatedBot.entered.wait(HANG), "the bot was never asked to move"
            assert get(url + "api/options")["bots"] == ["random", GATED]  # answered now
            assert not watched  # the bot still thinks
            GatedBot.release.set()
            watch.join(HANG)
            assert watched[0][0] == 200 and watched[0][1]["board"]["phase"] == "match-over"
            GatedBot.entered.clear()
            seed = next(seed for seed in range(100) if bot_replies(url, seed))
            game = post(url + "api/games", {"bot": GATED, "seed": seed, "rounds": 1})[1]
            GatedBot.close()
            action = {"action": game["legal"][0]["action"]}
            move_url = f"{url}api/games/{game['id']}/move"
            mover, moved = in_thread(lambda: post(move_url, action))
            assert GatedBot.entered.wait(HANG), "the bot was never asked to reply"
            status, busy = post(move_url, action)
            assert status == 409 and "is busy with another request" in busy["error"]
            GatedBot.release.set()
            mover.join(HANG)
            assert moved[0][0] == 200 and moved[0][1]["events"][0]["seat"] == 0
            assert get(f"{url}api/games/{game['id']}") == moved[0][1]
        finally:
            GatedBot.release.set()


def test_serve_gives_uvicorn_the_connection_limits(monkeypatch) -> None:
    given = {}

    class Server:
        def __init__(self, config):
            given["config"] = config

        def run(self, sockets):
            given["sockets"] = sockets

    monkeypatch.setattr(uvicorn, "Server", Server)
    sock = bind("127.0.0.1", 0)
    try:
        serve(WebConfig(request_timeout=7.5, keep_alive_timeout=3, max_header_bytes=4096),
              sock)
    finally:
        sock.close()
    config = given["config"]
    assert given["sockets"] == [sock]
    assert config.timeout_keep_alive == 3 and config.h11_max_incomplete_event_size == 4096
    assert issubclass(config.http, DeadlineH11Protocol) and config.http.request_timeout == 7.5
    defaults = WebConfig()
    assert (defaults.request_timeout, defaults.keep_alive_timeout) == (30.0, 5)
    assert defaults.max_header_bytes == 16 * 1024


def closed_by_server(sock: socket.socket) -> bytes:
    """What the server sends until it closes the connection."""
    sock.settimeout(HANG)
    received = b""
    while chunk := sock.recv(4096):
        received += chunk
    return received


@pytest.mark.parametrize("sent", [
    b"",  # connects and says nothing
    b"GET /api/options HTTP/1.1\r\nHost: 127.0.0.1\r\n",  # half a header
    b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    b"Content-Length: 100\r\n\r\n{\"bot\":",  # part of the body it announced
])
def test_a_connection_left_half_open_is_closed(sent: bytes) -> None:
    with ServerThread(WebConfig(bot="random", request_timeout=0.2)) as url:
        port = int(url.rstrip("/").rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=HANG) as sock:
            sock.sendall(sent)
            assert closed_by_server(sock) == b""


def test_headers_past_the_limit_are_refused() -> None:
    with ServerThread(WebConfig(bot="random", max_header_bytes=1024)) as url:
        port = int(url.rstrip("/").rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=HANG) as sock:
            sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: " + b"a" * 4096)
            assert closed_by_server(sock).startswith(b"HTTP/1.1 400")
