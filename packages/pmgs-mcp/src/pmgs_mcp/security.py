"""The guards in front of the HTTP server: Host/Origin allow-lists, bearer token, body size.

Plain ASGI middleware around the whole application, so every route passes the same checks in
the same order (DNS rebinding, then the token compared in constant time, then the body
limit and its deadline; ADRs 0005, 0014, 0015). Nothing here imports Starlette.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
from collections import deque
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any, Final

import anyio

__all__ = [
    "BODY_TIMEOUT_SECONDS",
    "BearerTokenGuard",
    "BodyLimit",
    "HostOriginGuard",
    "default_allowed_hosts",
    "default_allowed_origins",
    "is_loopback_host",
]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

DEFAULT_MAX_BODY_BYTES: Final = 1024 * 1024
"""1 MiB: a JSON-RPC request to pmgs is a few hundred bytes; nothing legitimate comes near."""

BODY_TIMEOUT_SECONDS: Final = 30.0
"""Time to receive a whole request body once its head has arrived (ADR 0015): a pmgs
request is a few hundred bytes, so only a client trickling on purpose comes near it."""

TOKEN_EXEMPT_PATHS: Final = frozenset({"/health"})
"""Paths this guard lets through without a token when used on its own; in the server the
probes never reach it (:class:`pmgs_mcp.readiness.ProbeEndpoints` answers them first)."""

_LOOPBACK_NAMES: Final = frozenset({"localhost", "localhost.", "ip6-localhost"})


def is_loopback_host(host: str) -> bool:
    """Whether binding ``host`` keeps the server reachable from this machine only."""
    name = host.strip().strip("[]").lower()
    if name in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def _host_with_port(host: str, port: int) -> str:
    bare = host.strip().strip("[]")
    return f"[{bare}]:{port}" if ":" in bare else f"{bare}:{port}"


def default_allowed_hosts(bind_host: str, port: int) -> list[str]:
    """The ``Host`` values a loopback client sends for this port, plus the bind address."""
    hosts = [f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}"]
    unspecified = bind_host.strip().strip("[]") in ("0.0.0.0", "::", "")  # noqa: S104
    if not unspecified:
        hosts.append(_host_with_port(bind_host, port))
    return list(dict.fromkeys(h.lower() for h in hosts))


def default_allowed_origins(allowed_hosts: Iterable[str]) -> list[str]:
    """The ``Origin`` values of pages served from the allowed hosts themselves."""
    return [f"{scheme}://{host}" for host in allowed_hosts for scheme in ("http", "https")]


def _header(scope: Scope, name: bytes) -> str | None:
    """The first value of a request header, decoded as latin-1 (the HTTP default)."""
    for key, value in scope.get("headers", ()):
        if key == name:
            return bytes(value).decode("latin-1")
    return None


async def send_json_error(
    send: Send,
    status: int,
    code: str,
    message: str,
    extra_headers: Iterable[tuple[bytes, bytes]] = (),
) -> None:
    """Answer with ``{"error": {"code", "message"}}``: the shape every pmgs interface uses."""
    body = json.dumps({"error": {"code": code, "message": message}}).encode("utf-8")
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode("ascii")),
        (b"cache-control", b"no-store"),
        *extra_headers,
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body, "more_body": False})


def _matches(value: str, patterns: Iterable[str]) -> bool:
    """Case-insensitive exact match; a pattern ending in ``:*`` accepts any port."""
    value = value.lower()
    for pattern in patterns:
        if pattern.endswith(":*"):
            base = pattern[:-2]
            if value.startswith(base + ":") and value[len(base) + 1 :].isdigit():
                return True
        elif value == pattern:
            return True
    return False


class HostOriginGuard:
    """Refuse requests whose ``Host`` or ``Origin`` header is not on the allow-list.

    A wrong ``Host`` gets 421 (the request was not meant for this server), a wrong
    ``Origin`` 403. ``Origin: null`` (sandboxed frames, file pages) is refused too.
    """

    def __init__(self, app: ASGIApp, allowed_hosts: Iterable[str], allowed_origins: Iterable[str]):
        self.app = app
        self.allowed_hosts = [h.lower() for h in allowed_hosts]
        self.allowed_origins = [o.lower().rstrip("/") for o in allowed_origins]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        host = _header(scope, b"host")
        if host is None or not _matches(host, self.allowed_hosts):
            await send_json_error(
                send, 421, "INVALID_HOST", "the Host header is not allowed for this server"
            )
            return
        origin = _header(scope, b"origin")
        if origin is not None and not _matches(origin.rstrip("/"), self.allowed_origins):
            await send_json_error(
                send, 403, "INVALID_ORIGIN", "the Origin header is not allowed for this server"
            )
            return
        await self.app(scope, receive, send)


class BearerTokenGuard:
    """Require ``Authorization: Bearer <token>`` (compared in constant time)."""

    def __init__(self, app: ASGIApp, token: str, exempt_paths: Iterable[str] = TOKEN_EXEMPT_PATHS):
        if not token:
            raise ValueError("the bearer token must not be empty")
        self.app = app
        self._expected = token.encode("utf-8")
        self.exempt_paths = frozenset(exempt_paths)

    def _authorized(self, scope: Scope) -> bool:
        header = _header(scope, b"authorization")
        if header is None:
            return False
        scheme, _, credentials = header.strip().partition(" ")
        if scheme.lower() != "bearer":
            return False
        # compare_digest's time depends on the lengths only, never on where bytes differ.
        return hmac.compare_digest(credentials.strip().encode("latin-1"), self._expected)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("path") in self.exempt_paths:
            await self.app(scope, receive, send)
            return
        if not self._authorized(scope):
            await send_json_error(
                send,
                401,
                "UNAUTHORIZED",
                "a valid bearer token is required (Authorization: Bearer <token>)",
                [(b"www-authenticate", b'Bearer realm="pmgs"')],
            )
            return
        await self.app(scope, receive, send)


class BodyLimit:
    """Refuse request bodies larger than ``max_bytes`` with 413, holding at most that much.

    The body is read (up to the limit) before the application runs and replayed to it, so
    an oversized chunked upload is refused before any handler sees a byte of it.
    """

    def __init__(
        self,
        app: ASGIApp,
        max_bytes: int = DEFAULT_MAX_BODY_BYTES,
        body_timeout: float = BODY_TIMEOUT_SECONDS,
    ):
        if max_bytes <= 0:
            raise ValueError("max_bytes must be positive")
        if body_timeout <= 0:
            raise ValueError("body_timeout must be positive")
        self.app = app
        self.max_bytes = max_bytes
        self.body_timeout = body_timeout

    async def _too_large(self, send: Send) -> None:
        await send_json_error(
            send,
            413,
            "REQUEST_TOO_LARGE",
            f"the request body is larger than {self.max_bytes} bytes",
            [(b"connection", b"close")],
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _header(scope, b"content-length")
        if declared is not None:
            if not declared.strip().isdigit():
                await send_json_error(send, 400, "BAD_REQUEST", "invalid Content-Length header")
                return
            if int(declared) > self.max_bytes:
                await self._too_large(send)
                return

        buffered = bytearray()
        pending: deque[Message] = deque()
        with anyio.move_on_after(self.body_timeout) as deadline:
            while True:
                message = await receive()
                if message["type"] != "http.request":
                    pending.append(message)  # a disconnect: let the application see it
                    break
                buffered.extend(message.get("body", b""))
                if len(buffered) > self.max_bytes:
                    await self._too_large(send)
                    return
                if not message.get("more_body", False):
                    pending.appendleft({"type": "http.request", "body": bytes(buffered)})
                    break
        if deadline.cancelled_caught:
            await send_json_error(
                send,
                408,
                "REQUEST_TIMEOUT",
                f"the request body did not arrive within {self.body_timeout:g} s",
                [(b"connection", b"close")],
            )
            return

        async def replay() -> Message:
            if pending:
                return pending.popleft()
            return await receive()

        await self.app(scope, replay, send)
