"""Deadlines for slow HTTP clients: the request head must arrive within a bounded time.

uvicorn lets a client that has started a request take for ever over its header block, so a
few hundred "slowloris" clients exhaust the server. :class:`HeaderDeadlineProtocol` is its
h11 protocol with a deadline on every request head (ADR 0015); the body's deadline is
enforced where the body is read (:class:`pmgs_mcp.security.BodyLimit`). A server
started by ``uvicorn --factory`` gets the class through :func:`install_in_uvicorn`;
``PMGS_MCP_HEADER_TIMEOUT`` (seconds) changes the deadline on either path.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import os
import sys
from types import FrameType
from typing import Any, Final

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = [
    "ENV_HEADER_TIMEOUT",
    "HEADER_TIMEOUT_SECONDS",
    "HeaderDeadlineProtocol",
    "header_timeout_from_env",
    "install_in_uvicorn",
    "timeout_response",
]

ENV_HEADER_TIMEOUT: Final = "PMGS_MCP_HEADER_TIMEOUT"
"""Seconds a request head may take (a positive number); unset: :data:`HEADER_TIMEOUT_SECONDS`."""
_UVICORN_OWN_PROTOCOLS: Final = frozenset({"auto", "h11", "httptools"})
_STACK_DEPTH: Final = 30
_log = logging.getLogger(__name__)

HEADER_TIMEOUT_SECONDS: Final = 10.0
"""Time from connection (or end of the previous response) to the end of the request head.

A real client sends its head in one write, in milliseconds even over a slow link; 10 s
leaves room for a congested network and still frees a trickling connection quickly."""


def header_timeout_from_env(environ: Any = None) -> float | None:
    """The deadline ``PMGS_MCP_HEADER_TIMEOUT`` sets, None when unset; ValueError when it is
    not a positive finite number (checked when the app is built, so a typo stops startup)."""
    text = (os.environ if environ is None else environ).get(ENV_HEADER_TIMEOUT)
    if text is None or not text.strip():
        return None
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"{ENV_HEADER_TIMEOUT} must be a positive number of seconds, not {text!r}")
    return value


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
        configured = header_timeout_from_env()
        if configured is not None:
            self.header_timeout = configured
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


def install_in_uvicorn() -> bool:
    """Give the uvicorn server that is calling an app factory the head deadline.

    uvicorn resolves ``--http`` before it imports and calls the factory, and reads the
    resolved class again only when it opens its socket; the factory runs inside
    ``Config.load``, so the configuration is found on the call stack. Only uvicorn's own
    protocols are replaced (an operator's explicit class is left alone). Returns whether the
    deadline is in place; False (logged) when the factory was not called by uvicorn.
    """
    from uvicorn.config import Config

    frame: FrameType | None = sys._getframe(1)
    for _ in range(_STACK_DEPTH):
        if frame is None:
            break
        candidate = frame.f_locals.get("self")
        if isinstance(candidate, Config) and not candidate.loaded:
            current = getattr(candidate, "http_protocol_class", None)
            if isinstance(current, type) and issubclass(current, HeaderDeadlineProtocol):
                return True
            if candidate.http in _UVICORN_OWN_PROTOCOLS:
                candidate.http_protocol_class = HeaderDeadlineProtocol
                return True
            _log.warning("uvicorn runs HTTP protocol %r: no request-head deadline", candidate.http)
            return False
        frame = frame.f_back
    _log.warning("the app factory was not called by uvicorn: no request-head deadline (ADR 0015)")
    return False
