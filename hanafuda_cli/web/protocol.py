"""uvicorn's h11 protocol with a deadline for reading each request.

uvicorn times out only a connection that is idle after a response (``timeout_keep_alive``):
a client that connects and sends nothing, half a header, or part of the body it announced
would hold its connection open for ever. Here a request must arrive whole (headers and
body) within ``request_timeout`` seconds of the connection opening, or of the first byte of
a later request on it; otherwise the connection is closed. The size of the headers is
capped by uvicorn's own ``h11_max_incomplete_event_size``.
"""

from __future__ import annotations

import asyncio
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol


class DeadlineH11Protocol(H11Protocol):
    """:class:`H11Protocol` that closes a connection whose request is not read in time."""

    request_timeout: float = 30.0

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.read_deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.conn.their_state in (h11.IDLE, h11.SEND_BODY):
            self._arm()  # a request begun but not yet whole: the first byte starts the clock
        else:
            self._disarm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        if self.read_deadline is None:
            self.read_deadline = self.loop.call_later(self.request_timeout, self._expired)

    def _disarm(self) -> None:
        if self.read_deadline is not None:
            self.read_deadline.cancel()
            self.read_deadline = None

    def _expired(self) -> None:
        self.read_deadline = None
        if self.conn.their_state in (h11.IDLE, h11.SEND_BODY) and not self.transport.is_closing():
            self.transport.close()


def deadline_protocol(request_timeout: float) -> type[DeadlineH11Protocol]:
    """The protocol class for a uvicorn ``Config(http=...)``, with this deadline."""
    return type("DeadlineH11Protocol", (DeadlineH11Protocol,),
                {"request_timeout": float(request_timeout)})
