"""The standalone viewer's one guard: only loopback names in ``Host``.

A page on another site can make a browser send requests to 127.0.0.1 under its own name
(DNS rebinding); refusing every ``Host`` that is not a loopback name keeps such a page from
reading the viewer. ``pmgs mcp`` has its own, configurable guards and does not use this one.
"""

from __future__ import annotations

from typing import Final

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["LoopbackHostGuard"]

_LOOPBACK_NAMES: Final = ("127.0.0.1", "localhost", "[::1]")


class LoopbackHostGuard:
    def __init__(self, app: ASGIApp, port: int) -> None:
        self.app = app
        self.allowed = frozenset(
            {*_LOOPBACK_NAMES, *(f"{name}:{port}" for name in _LOOPBACK_NAMES)}
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            host = ""
            for key, value in scope.get("headers", []):
                if key == b"host":
                    host = value.decode("latin-1").lower()
            if host not in self.allowed:
                response = JSONResponse(
                    {"error": {"code": "HOST_NOT_ALLOWED", "message": "Host is not loopback"}},
                    421,
                )
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)
