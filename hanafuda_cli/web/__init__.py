"""``play.py --web``: play Koi-Koi against a bot, watch two bots, or replay a game record in
the browser. :mod:`hanafuda_cli.web.app` is the Starlette app, :mod:`hanafuda_cli.web.sessions`
the games it holds, ``static/`` the page; :func:`serve` runs it with uvicorn on this machine."""

from __future__ import annotations

import argparse
import socket
import sys
import threading
from typing import Any

from .app import WebConfig, create_app

__all__ = ["ServerThread", "WebConfig", "bind", "create_app", "page_url", "run_web", "serve",
           "server_config"]

LOCAL = "127.0.0.1"


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host``:``port`` (port 0: one the system picks)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    sock.listen(64)
    return sock


def page_url(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/"


def server_config(config: WebConfig, app: Any, log_level: str = "warning") -> Any:
    """The uvicorn settings: its h11 protocol (whose limits uvicorn applies) with a deadline
    for reading each request, a cap on the headers' size and a keep-alive timeout, so that
    connections a client leaves half-open are closed (see :mod:`.protocol`)."""
    import uvicorn

    from .protocol import deadline_protocol

    return uvicorn.Config(app, log_level=log_level, ws="none",
                          http=deadline_protocol(config.request_timeout),
                          timeout_keep_alive=config.keep_alive_timeout,
                          h11_max_incomplete_event_size=config.max_header_bytes)


def serve(config: WebConfig, sock: socket.socket, log_level: str = "warning") -> None:
    """Serve the page on ``sock`` until interrupted (Ctrl-C)."""
    import uvicorn

    host = sock.getsockname()[0]
    hosts = None if host in (LOCAL, "::1") else ["*"]  # bound elsewhere on purpose
    app = create_app(config, allowed_hosts=hosts)
    server = uvicorn.Server(server_config(config, app, log_level))
    server.run(sockets=[sock])


def run_web(args: argparse.Namespace, default_port: int) -> int:
    """``play.py --web``: check the bot and rules, bind, print the address, serve."""
    from agents.bots.registry import BASELINES, make_agent
    from hanafuda_env.koikoi.rules import RuleError

    from .app import resolve_config_rules

    try:
        rules, rules_name = resolve_config_rules(args.rules)
        chosen = rules[rules_name]
        make_agent(args.bot, chosen, seed=0)  # a bad name or file is refused before serving
    except (RuleError, ValueError, OSError) as error:
        print(f"play.py: error: {error}", file=sys.stderr)
        return 2
    bots = tuple(BASELINES) + (() if args.bot in BASELINES else (args.bot,))
    config = WebConfig(bots=bots, bot=args.bot, rules=rules, default_rules=rules_name,
                       rounds=args.rounds, seat=args.seat, seed=args.seed,
                       bot_delay=args.bot_delay)
    try:
        sock = bind(args.host, args.port)
    except OSError as error:
        if args.port != default_port:
            print(f"play.py: error: cannot serve on {args.host}:{args.port}: "
                  f"{error.strerror or error}", file=sys.stderr)
            return 2
        sock = bind(args.host, 0)
        print(f"port {args.port} is taken; serving on a free one")
    print(f"Koi-Koi in the browser: {page_url(sock)}  (Ctrl-C stops the server)", flush=True)
    try:
        serve(config, sock)
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
    return 0


class ServerThread:
    """The page served from a thread of this process, on a free port of 127.0.0.1: for the
    tests and for the screenshot script. ``with ServerThread(config) as url:`` waits (by
    polling) until the page answers and stops the server on leaving."""

    def __init__(self, config: WebConfig):
        import uvicorn

        self.sock = bind(LOCAL, 0)
        self.url = page_url(self.sock)
        self.server = uvicorn.Server(server_config(config, create_app(config)))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]},
                                       daemon=True)

    def __enter__(self) -> str:
        self.thread.start()
        while not self.server.started:  # polled; uvicorn sets it once it accepts requests
            if not self.thread.is_alive():
                raise RuntimeError("the web server stopped while starting")
            self.thread.join(0.02)
        return self.url

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join()
        self.sock.close()
