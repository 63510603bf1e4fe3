"""Liveness (``/health``), readiness (``/ready``) and the SSE rule for a replica (ADR 0013).

Readiness waits until the database's SHA-256 matches the release it claims: a replica serving
another file would give answers that look right and are not. The probes sit in front of the
Host/Origin and token guards (probes send neither) and reveal and change nothing.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from pmgs_mcp.security import ASGIApp, Receive, Scope, Send, send_json_error

if TYPE_CHECKING:
    from pmgs_core import PMGSStore

__all__ = [
    "DATABASE_HASH_MISMATCH",
    "PROBE_PATHS",
    "SSE_PATHS",
    "SSE_UNAVAILABLE",
    "ProbeEndpoints",
    "Readiness",
    "SseRefusal",
    "expected_sha256",
    "sse_refusal_reason",
]

logger = logging.getLogger("pmgs_mcp")

DATABASE_HASH_MISMATCH: Final = "DATABASE_HASH_MISMATCH"
"""``/ready`` code: the database file is not the one the pointer (or name) promises."""
SSE_UNAVAILABLE: Final = "SSE_UNAVAILABLE"
"""Code of the SSE endpoints where an SSE session cannot work (several processes)."""

PROBE_PATHS: Final = frozenset({"/health", "/ready"})
SSE_PATHS: Final = frozenset({"/sse", "/messages"})

_HEX64: Final = re.compile(r"[0-9a-f]{64}")
_CHUNK: Final = 1024 * 1024


def expected_sha256(store: PMGSStore, explicit: str | None = None) -> str | None:
    """The SHA-256 the served file must have: given, else the pointer's, else its name's.

    ``pmgs setup`` stores databases at ``…/<database-sha256>.sqlite``, so a file given with
    ``--db`` from a data directory still names its own hash. None: nothing to compare with
    (a database built by hand); the hash is then computed and reported, not checked.
    """
    if explicit:
        return explicit.strip().lower()
    pointer = getattr(store, "pointer", None)
    if pointer is not None:
        return str(pointer.database_sha256)
    path = getattr(store, "database_path", None)
    if isinstance(path, Path) and _HEX64.fullmatch(path.stem):
        return path.stem
    return None


class Readiness:
    """The verification of one process's database, run once on a background thread."""

    def __init__(self, store: PMGSStore, expected: str | None) -> None:
        info = store.release_info()
        self.release_id = str(info["release_id"])
        path = getattr(store, "database_path", None)
        self._path = path if isinstance(path, Path) else None
        self.expected = expected
        self.sha256: str | None = None
        self.error: tuple[str, str] | None = None
        self._done = threading.Event()
        self.background: Callable[[], dict[str, Any] | None] | None = None
        """The failure of the server's background work (the folder monitor), if any."""

    def start(self) -> None:
        """Hash the file without holding up the event loop (a gigabyte takes seconds)."""
        threading.Thread(target=self.verify, name="pmgs-ready", daemon=True).start()

    def verify(self) -> None:
        """Compute the SHA-256 and compare it; the outcome is final for this process."""
        try:
            if self._path is None:
                self.error = ("DATABASE_NOT_FOUND", "the store has no database file to verify")
                return
            digest = hashlib.sha256()
            with self._path.open("rb") as handle:
                while chunk := handle.read(_CHUNK):
                    digest.update(chunk)
            self.sha256 = digest.hexdigest()
            if self.expected is not None and self.sha256 != self.expected:
                self.error = (
                    DATABASE_HASH_MISMATCH,
                    "the database file's SHA-256 is not the one its pointer or name promises; "
                    "copy the release again (`pmgs setup`, or the image/volume it came from)",
                )
                logger.error("not ready: %s", self.error[1])
            else:
                logger.info("ready: release %s, database sha256 %s", self.release_id, self.sha256)
        except OSError as exc:
            self.error = ("DATABASE_NOT_FOUND", f"the database cannot be read ({exc.strerror})")
            logger.error("not ready: %s", self.error[1])
        finally:
            self._done.set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until verification ended (for tests and synchronous callers)."""
        return self._done.wait(timeout)

    def _common(self) -> dict[str, Any]:
        return {"release_id": self.release_id, "database_sha256": self.sha256}

    def health(self) -> tuple[int, dict[str, Any]]:
        """Liveness: 200 whenever the process answers."""
        return 200, {"status": "ok", **self._common()}

    def ready(self) -> tuple[int, dict[str, Any]]:
        """Readiness: 200 only after a successful verification."""
        if self.error is not None:
            code, message = self.error
            return 503, {
                "status": "error",
                **self._common(),
                "expected_sha256": self.expected,
                "error": {"code": code, "message": message},
            }
        if not self._done.is_set():
            return 503, {"status": "starting", **self._common()}
        failure = None if self.background is None else self.background()
        if failure is not None:
            return 503, {**failure, **self._common(), "status": "failed"}
        return 200, {"status": "ready", **self._common()}


class SseRefusal:
    """Answer the SSE endpoints with 501 and the fix; pass everything else on.

    Placed inside the Host/Origin and token guards: the refusal is for callers who may use
    the server at all.
    """

    def __init__(self, app: ASGIApp, reason: str) -> None:
        self.app = app
        self.message = (
            f"the legacy SSE transport is not served here: {reason}. An SSE session lives in "
            "one process, so its GET /sse and POST /messages must reach the same one. Use "
            "streamable HTTP at /mcp (it works across workers and replicas), or run SSE with "
            "one worker per replica behind a balancer with source-IP affinity"
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope.get("path") in SSE_PATHS:
            await send_json_error(send, 501, SSE_UNAVAILABLE, self.message)
            return
        await self.app(scope, receive, send)


def sse_refusal_reason(workers: int, no_sse: bool) -> str | None:
    """None when SSE can work in this process; else the reason it cannot."""
    if workers > 1:
        return f"this server runs {workers} worker processes"
    if no_sse:
        return "it was switched off with --no-sse (replicas behind a balancer without affinity)"
    return None


def _json(payload: dict[str, Any]) -> bytes:
    return json.dumps(payload, sort_keys=True).encode("utf-8")


class ProbeEndpoints:
    """Answer ``/health`` and ``/ready`` before any guard (whatever the Host, no token)."""

    def __init__(self, app: ASGIApp, readiness: Readiness) -> None:
        self.app = app
        self.readiness = readiness

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path") if scope["type"] == "http" else None
        if path in PROBE_PATHS and scope["method"] in ("GET", "HEAD"):
            status, payload = (
                self.readiness.health() if path == "/health" else self.readiness.ready()
            )
            body = _json(payload)
            headers = [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode("ascii")),
                (b"cache-control", b"no-store"),
            ]
            await send({"type": "http.response.start", "status": status, "headers": headers})
            if scope["method"] == "HEAD":
                body = b""
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)
