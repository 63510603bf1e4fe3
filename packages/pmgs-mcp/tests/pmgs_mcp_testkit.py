"""Helpers of the pmgs-mcp tests: real server subprocesses and small utilities.

Kept in a module (not in ``conftest.py``) so test modules can import them by name; the
conftest puts this directory on ``sys.path``.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2

from pmgs_build.testing import GeneratedPackage

TOKEN = "test-token-0123456789abcdef"
"""Bearer token of the token-protected HTTP server."""

SERVER_START_TIMEOUT = 60.0


@dataclass(frozen=True)
class Reference:
    """The session's database and the package it was built from."""

    db: Path
    package: GeneratedPackage

    @property
    def examples(self) -> dict[str, str]:
        return dict(self.package.examples)


def free_port() -> int:
    """A TCP port that was free a moment ago on 127.0.0.1."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def server_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "pmgs_mcp", *args]


@dataclass
class HttpServer:
    """A running ``pmgs-mcp --transport http`` subprocess."""

    process: subprocess.Popen[bytes]
    port: int
    token: str | None
    stderr_path: Path

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def auth_headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}

    def stderr(self) -> str:
        return self.stderr_path.read_text("utf-8", errors="replace")


def start_http_server(
    reference: Reference,
    workdir: Path,
    *extra: str,
    token: str | None = None,
    db: Path | None = None,
    wait_for: str = "/ready",
) -> HttpServer:
    port = free_port()
    env = {**os.environ}
    env.pop("PMGS_MCP_TOKEN", None)
    source = ["--db", str(db or reference.db)] if "--data-dir" not in extra else []
    args = ["--transport", "http", "--port", str(port), *source, *extra]
    if token:
        env["PMGS_MCP_TOKEN"] = token
    stderr_path = workdir / f"server-{port}.stderr"
    with stderr_path.open("wb") as stderr:
        process = subprocess.Popen(
            server_command(*args), stdin=subprocess.DEVNULL, stdout=stderr, stderr=stderr, env=env
        )
    server = HttpServer(process, port, token, stderr_path)
    deadline = time.monotonic() + SERVER_START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited early ({process.returncode}): {server.stderr()}")
        try:
            if httpx2.get(f"{server.base_url}{wait_for}", timeout=1.0).status_code == 200:
                return server
        except httpx2.TransportError:
            pass
        time.sleep(0.1)
    stop_http_server(server)
    raise RuntimeError(f"server did not answer 200 on {wait_for}: {server.stderr()}")


def stop_http_server(server: HttpServer) -> None:
    server.process.terminate()
    try:
        server.process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.process.kill()
        server.process.wait(timeout=10)


def jsonable(value: Any) -> Any:
    """A store result as it looks after a JSON round trip (tuples become lists)."""
    return json.loads(json.dumps(value, ensure_ascii=False))
