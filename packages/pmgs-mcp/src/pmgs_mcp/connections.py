"""Deadlines for slow HTTP clients: the request head must arrive within a bounded time.

uvicorn lets a client that has started a request take for ever over its header block, so a
few hundred "slowloris" clients exhaust the server. :class:`HeaderDeadlineProtocol` is its
h11 protocol with a deadline on every request head (ADR 0015); the body's deadline is
enforced where the body is read (:class:`pmgs_mcp.security.BodyLimit`).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, Final

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = ["HEADER_TIMEOUT_SECONDS", "HeaderDeadlineProtocol", "timeout_response"]

HEADER_TIMEOUT_SECONDS: Final = 10.0
"""Time from connection (or end of the previous response) to the end of the request head.

A real client sends its head in one write, in milliseconds even over a slow link; 10 s
leaves room for a congested network and still frees a trickling connection quickly."""


def timeout_response(message: str) -> bytes:
    """A complete ``408`` response closing the connection, with the pmgs error object."""
    body = json.dumps({"error": {"code": "REQUEST_TIMEOUT", "message": message}}).encode()
    head = (
        "HTTP/1.1 408 Request Timeout\r\n"
        "content-type: application/json\r\n"
        f"content-length: {len(body)}\r\n"
        "cache-control: no-store\r\n"
        "connection: close\r\n\r\n"
    )
    return head.encode("ascii") + body


class HeaderDeadlineProtocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline on each request head (see the module doc).

    A module-level class (not built per call) so that ``uvicorn --workers N`` can hand it
    to its worker processes by name.
    """

    header_timeout: float = HEADER_TIMEOUT_SECONDS

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._head_deadline: asyncio.TimerHandle | None = None
        self._head_started = False

    def _arm_head_deadline(self) -> None:
        self._cancel_head_deadline()
        self._head_started = False
        self._head_deadline = self.loop.call_later(self.header_timeout, self._head_timed_out)

    def _cancel_head_deadline(self) -> None:
        if self._head_deadline is not None:
            self._head_deadline.cancel()
            self._head_deadline = None

    def _head_timed_out(self) -> None:
        self._head_deadline = None
        if self.transport.is_closing():
            return
        if self._head_started:
            self.transport.write(
                timeout_response(
                    f"the request head did not arrive within {self.header_timeout:g} s"
                )
            )
        self.transport.close()

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm_head_deadline()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_head_deadline()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.conn.their_state is h11.IDLE:
            # Still inside the head (or only idle bytes): the deadline keeps running.
            self._head_started = self._head_started or bool(data)
        else:
            self._cancel_head_deadline()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and self.conn.their_state is h11.IDLE:
            self._arm_head_deadline()
