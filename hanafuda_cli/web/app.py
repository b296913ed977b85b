"""The HTTP side of ``play.py --web``: a Starlette app serving the page and a JSON API.

Starlette rather than FastAPI: the API is a handful of routes whose requests are checked by
hand anyway (every refusal names the problem and the allowed values, in the project's words),
so FastAPI's models and generated docs would add a dependency and nothing the page uses;
uvicorn serves it. The page is plain HTML and JavaScript from ``static/`` with no request
leaving the machine.

API (JSON bodies; a refused request gets a 4xx answer ``{"error": …, allowed values …}``
and changes nothing):

- ``GET /api/options``: the bots, rule presets and defaults the page offers;
- ``GET /api/cards``: the 48 cards (id, month, kind, name, hover title, SVG and its
  address) and the back's, the kinds, and the yaku's display names by id;
- ``GET /cards/{id}.svg`` (``back.svg`` for a face-down card), ``GET /favicon.svg``: the
  pictures the page shows, drawn by :mod:`hanafuda_env.render.card_art`;
- ``POST /api/games`` ``{"mode": "play"|"watch", "bot", "bots", "rules", "rounds", "seat",
  "seed"}``: a new game, its id and state (with the bots' moves up to the person's turn);
- ``GET /api/games/{id}``: a game's state (a reloaded tab picks its game up again);
- ``POST /api/games/{id}/move`` ``{"action": id}``: the person's move;
- ``POST /api/games/{id}/next``: deal the next round;
- ``POST /api/replays`` ``{"record": <KoiKoi-AI JSON>, "rules"?}``: a record to replay.

Games live in memory, keyed by an id the page keeps per tab (``sessionStorage``); the
oldest are dropped past ``max_games``.

Limits, since anyone who can reach the port can send anything: a body is at most
``WebConfig.max_body`` bytes (1 MiB by default; the page sends a 99-round match's record
in about 250 kB), refused with 413 before it is read, from its ``Content-Length`` or as a
chunked body's bytes pass the limit; JSON nested deeper than ``MAX_JSON_DEPTH`` is refused
with 400. Bots think in a worker thread, so a slow bot holds up only its own game: a game
takes one request at a time and refuses a move sent while it is busy (409). Whatever else
fails is a JSON 500 answer. ``serve`` adds the connection limits (:mod:`.protocol`).
"""

from __future__ import annotations

import json
import secrets
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from agents.bots.base import MAX_SEED
from agents.bots.registry import BASELINES, make_agent
from hanafuda_env.common import cards as C
from hanafuda_env.koikoi.records import RecordError, match_from_json
from hanafuda_env.koikoi.rules import PRESETS, RuleSet, resolve_rules
from hanafuda_env.render.card_art import back_svg, card_svg, card_title, favicon_svg
from hanafuda_env.render.yaku_names import YAKU_DISPLAY

from .sessions import GameSession, ReplaySession, RequestError, Setup

STATIC = Path(__file__).with_name("static")
MODES = ("play", "watch")
MAX_ROUNDS = 99
GAME_KEYS = ("mode", "bot", "bots", "rules", "rounds", "seat", "seed")
MAX_BODY = 1024 * 1024  # bytes; a 99-round record is about 250 kB of compact JSON
MAX_JSON_DEPTH = 32  # a record nests 7 deep in a request


@dataclass
class WebConfig:
    """What the server offers: the bots and rule sets a page may pick (a request names one
    of these, never a file or module of its own), the page's defaults and its bots' pace."""

    bots: tuple[str, ...] = tuple(BASELINES)
    bot: str = "expert"
    rules: dict[str, RuleSet] = field(default_factory=lambda: dict(PRESETS))
    default_rules: str = "nintendo"
    rounds: int | None = None
    seat: int = 0
    seed: int | None = None
    bot_delay: float = 0.8  # seconds between the bot's moves shown
    max_games: int = 256
    max_body: int = MAX_BODY  # bytes a request's body may hold
    request_timeout: float = 30.0  # seconds a client has to send a whole request
    keep_alive_timeout: int = 5  # seconds an idle connection stays open after a response
    max_header_bytes: int = 16 * 1024  # the request line and headers together


def _error(status: int, message: str, **details: Any) -> JSONResponse:
    return JSONResponse({"error": message, **details}, status_code=status)


class GameStore:
    """The games in memory by id, the least recently used dropped past ``limit``."""

    def __init__(self, limit: int):
        self.limit = limit
        self.games: OrderedDict[str, GameSession | ReplaySession] = OrderedDict()

    def add(self, game: GameSession | ReplaySession) -> str:
        game_id = secrets.token_hex(8)
        self.games[game_id] = game
        while len(self.games) > self.limit:
            self.games.popitem(last=False)
        return game_id

    def get(self, game_id: str) -> GameSession | ReplaySession:
        game = self.games.get(game_id)
        if game is None:
            raise RequestError(404, f"no game with id {game_id!r} (the server was restarted "
                               "or the game was dropped): start a new game")
        self.games.move_to_end(game_id)
        return game


def _too_large(limit: int) -> RequestError:
    return RequestError(413, f"the body is larger than the {limit} bytes this server reads",
                        limit_bytes=limit)


async def read_body(request: Request, limit: int) -> bytes:
    """The body, refused past ``limit`` bytes: by its ``Content-Length`` before a byte is
    read, or, sent without one (chunked), as soon as the bytes read pass the limit."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise _too_large(limit)
    chunks, size = [], 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise _too_large(limit)
            chunks.append(chunk)
    except ClientDisconnect:
        raise RequestError(400, "the connection closed before the whole body came") from None
    return b"".join(chunks)


def json_depth(data: Any) -> int:
    """How deep lists and objects nest in ``data`` (walked without recursion)."""
    deepest, todo = 0, [(data, 1)]
    while todo:
        value, depth = todo.pop()
        if isinstance(value, (dict, list)):
            deepest = max(deepest, depth)
            todo += [(v, depth + 1) for v in (value.values() if isinstance(value, dict)
                                              else value)]
    return deepest


async def read_json(request: Request, limit: int = MAX_BODY) -> dict[str, Any]:
    """The request's JSON object. Asking for ``application/json`` keeps other web pages
    from posting to the server (a browser sends such a request cross-site only after a
    check this server never answers)."""
    kind = request.headers.get("content-type", "").split(";")[0].strip()
    if kind != "application/json":
        raise RequestError(415, f"send the body as JSON with Content-Type application/json, "
                           f"got {kind or 'none'!r}")
    body = await read_body(request, limit)
    too_deep = RequestError(400, f"the body nests lists and objects more than "
                            f"{MAX_JSON_DEPTH} deep", max_depth=MAX_JSON_DEPTH)
    try:
        data = json.loads(body or b"{}")
    except RecursionError:
        raise too_deep from None
    except ValueError as error:  # bad JSON or UTF-8, an integer of more digits than Python reads
        raise RequestError(400, f"the body is not valid JSON: {error}") from None
    if json_depth(data) > MAX_JSON_DEPTH:
        raise too_deep
    if not isinstance(data, dict):
        raise RequestError(400, f"the body must be a JSON object, got {type(data).__name__}")
    return data


def _choice(data: dict, key: str, allowed: list, default: Any) -> Any:
    value = data.get(key, default)
    if value is None:
        value = default
    if isinstance(value, bool) or value not in allowed:
        raise RequestError(422, f"{key} must be one of {', '.join(map(repr, allowed))}, "
                           f"got {value!r}", allowed=allowed)
    return value


def _integer(data: dict, key: str, low: int, high: int, default: int | None) -> int | None:
    value = data.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise RequestError(422, f"{key} must be an integer from {low} to {high} (or null for "
                           f"the default), got {value!r}", allowed=[low, high])
    return value


def check_setup(data: dict, config: WebConfig) -> Setup:
    """A new game's options, each checked and named in its refusal."""
    unknown = sorted(set(data) - set(GAME_KEYS))
    if unknown:
        raise RequestError(422, f"unknown field(s) {', '.join(unknown)}; allowed fields: "
                           f"{', '.join(GAME_KEYS)}", allowed=list(GAME_KEYS))
    mode = _choice(data, "mode", list(MODES), "play")
    rules_name = _choice(data, "rules", list(config.rules), config.default_rules)
    rounds = _integer(data, "rounds", 1, MAX_ROUNDS, config.rounds)
    seat = _integer(data, "seat", 0, 1, config.seat)
    seed = _integer(data, "seed", 0, MAX_SEED, config.seed)
    if seed is None:
        seed = secrets.randbelow(2**31)
    bots = list(config.bots)
    if mode == "play":
        specs = [_choice(data, "bot", bots, config.bot)]
    else:
        pair = data.get("bots") or [config.bot, config.bot]
        if not isinstance(pair, list) or len(pair) != 2:
            raise RequestError(422, f"bots must be a list of two bot names from {bots}, got "
                               f"{pair!r}", allowed=bots)
        specs = [_choice({"bots": name}, "bots", bots, None) for name in pair]
    rules = config.rules[rules_name]
    if rounds is not None and rounds != rules.rounds:
        rules = rules.replace(rounds=rounds, name=rules.name)
    agents = [make_agent(spec, rules, seed=seed + k) for k, spec in enumerate(specs)]
    if mode == "play":
        names = ["you", "you"]
        names[1 - seat] = agents[0].name
        return Setup(mode, rules, seed, {1 - seat: agents[0]}, (names[0], names[1]), seat)
    names = (f"{agents[0].name} (player_0)", f"{agents[1].name} (player_1)")
    return Setup(mode, rules, seed, {0: agents[0], 1: agents[1]}, names, None)


def create_app(config: WebConfig | None = None, allowed_hosts: list[str] | None = None
               ) -> Starlette:
    """The app; ``allowed_hosts`` are the Host headers it answers (default: this machine's
    loopback names, so that a page of another site cannot reach it through a name of its
    own that points here)."""
    config = config or WebConfig()
    store = GameStore(config.max_games)
    cards = {"cards": [{"id": c.id, "month": c.month, "kind": c.kind, "name": c.name,
                        "name_ja": c.name_ja, "title": card_title(c.id), "svg": card_svg(c.id),
                        "picture": f"/cards/{c.id}.svg"} for c in C.DECK],
             "back": back_svg(), "back_picture": "/cards/back.svg", "kinds": list(C.KINDS),
             "yaku_names": YAKU_DISPLAY}
    pictures = {**{f"{c.id}.svg": card_svg(c.id) for c in C.DECK}, "back.svg": back_svg()}
    icon = favicon_svg()

    def handled(handler: Callable) -> Callable:
        async def endpoint(request: Request) -> Response:
            try:
                return JSONResponse(await handler(request))
            except RequestError as error:
                return JSONResponse(error.body(), status_code=error.status)
        return endpoint

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def options(request: Request) -> dict:
        return {"bots": list(config.bots), "bot": config.bot, "rules": list(config.rules),
                "default_rules": config.default_rules, "rounds": config.rounds,
                "seat": config.seat, "seed": config.seed, "bot_delay": config.bot_delay,
                "modes": list(MODES), "max_rounds": MAX_ROUNDS}

    async def card_table(request: Request) -> dict:
        return cards

    async def card_picture(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in pictures:
            return _error(404, f"no card picture {name!r}: the pictures are 0.svg to "
                          f"{C.NUM_CARDS - 1}.svg and back.svg")
        return Response(pictures[name], media_type="image/svg+xml",
                        headers={"Cache-Control": "max-age=3600"})

    async def favicon(request: Request) -> Response:
        return Response(icon, media_type="image/svg+xml",
                        headers={"Cache-Control": "max-age=3600"})

    def answer(game_id: str, game: GameSession | ReplaySession) -> dict:
        return {"id": game_id, **game.state()}

    async def at_work(game_id: str, game: GameSession | ReplaySession,
                      work: Callable[[], Any], wait: bool = False) -> dict:
        """``work`` on ``game`` and the answer after it, in a worker thread (a bot's thinking
        leaves the event loop to other requests) and alone on the game: a request that comes
        meanwhile is refused, or, ``wait``ing (a read), answered after."""
        def run() -> dict:
            if not game.lock.acquire(blocking=wait):
                raise RequestError(409, f"game {game_id!r} is busy with another request (a "
                                   "bot's move): send this one when that is answered")
            try:
                work()
                return answer(game_id, game)
            finally:
                game.lock.release()
        return await run_in_threadpool(run)

    async def new_game(request: Request) -> dict:
        data = await read_json(request, config.max_body)
        game = await run_in_threadpool(lambda: GameSession(check_setup(data, config)))
        return answer(store.add(game), game)

    async def get_game(request: Request) -> dict:
        game_id = request.path_params["game_id"]
        return await at_work(game_id, store.get(game_id), lambda: None, wait=True)

    def playing(game_id: str) -> GameSession:
        game = store.get(game_id)
        if not isinstance(game, GameSession):
            raise RequestError(409, f"game {game_id!r} is a replay: it takes no moves")
        return game

    async def move(request: Request) -> dict:
        game_id = request.path_params["game_id"]
        game = playing(game_id)
        data = await read_json(request, config.max_body)

        def work() -> None:
            if "action" not in data:
                raise RequestError(422, "missing field 'action' (an action id from the "
                                   "state's 'legal' list)", legal_actions=game.legal())
            game.move(data["action"])
        return await at_work(game_id, game, work)

    async def next_round(request: Request) -> dict:
        game_id = request.path_params["game_id"]
        game = playing(game_id)
        await read_json(request, config.max_body)
        return await at_work(game_id, game, game.next_round)

    async def new_replay(request: Request) -> dict:
        data = await read_json(request, config.max_body)
        if "record" not in data:
            raise RequestError(422, "missing field 'record' (a game record: KoiKoi-AI JSON)")
        rules = data.get("rules")
        if rules is not None and rules not in config.rules:
            raise RequestError(422, f"rules must be one of {', '.join(config.rules)} (or null "
                               f"for the record's own), got {rules!r}",
                               allowed=list(config.rules))

        def replayed() -> ReplaySession:
            try:
                match = match_from_json(data["record"], "the record")
            except RecordError as error:
                raise RequestError(422, str(error)) from None
            return ReplaySession(match, None if rules is None else config.rules[rules],
                                 "the record")
        game = await run_in_threadpool(replayed)
        return answer(store.add(game), game)

    async def http_error(request: Request, error: HTTPException) -> Response:
        return _error(error.status_code, f"{request.method} {request.url.path}: "
                      f"{error.detail}", routes=[r.path for r in routes if hasattr(r, "path")])

    async def server_error(request: Request, error: Exception) -> Response:
        """A failure of the server's own, as JSON like every other answer; its message stays
        in the server's log (it may describe hidden cards)."""
        return _error(500, f"{request.method} {request.url.path} failed in the server "
                      f"({type(error).__name__}); the server's log has the details")

    routes = [
        Route("/", index),
        Route("/api/options", handled(options)),
        Route("/api/cards", handled(card_table)),
        Route("/cards/{name}", card_picture),
        Route("/favicon.svg", favicon),
        Route("/api/games", handled(new_game), methods=["POST"]),
        Route("/api/games/{game_id}", handled(get_game)),
        Route("/api/games/{game_id}/move", handled(move), methods=["POST"]),
        Route("/api/games/{game_id}/next", handled(next_round), methods=["POST"]),
        Route("/api/replays", handled(new_replay), methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    hosts = allowed_hosts or ["127.0.0.1", "localhost", "::1"]
    return Starlette(routes=routes,
                     exception_handlers={HTTPException: http_error, Exception: server_error},
                     middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=hosts)])


def resolve_config_rules(spec: str) -> tuple[dict[str, RuleSet], str]:
    """The presets, plus the rule set ``spec`` names when it is a YAML file; and the name
    the page starts with."""
    rules = dict(PRESETS)
    if spec in rules:
        return rules, spec
    own = resolve_rules(spec)  # a RuleError names what is wrong with the file
    rules[own.name] = own
    return rules, own.name
