"""Helpers of the pmgs-mcp tests: real server subprocesses and small utilities.

Kept in a module (not in ``conftest.py``) so test modules can import them by name; the
conftest puts this directory on ``sys.path``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pmgs_testkit.kit import ReferenceDatabase, serve_on_free_port, stop_process

TOKEN = "test-token-0123456789abcdef"
"""Bearer token of the token-protected HTTP server."""

SERVER_START_TIMEOUT = 60.0


Reference = ReferenceDatabase
"""The session's database and the package it was built from (the shared kit's)."""


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
    """A server on a free port, answering 200 on ``wait_for`` (it and no other process)."""
    env = {**os.environ}
    env.pop("PMGS_MCP_TOKEN", None)
    source = ["--db", str(db or reference.db)] if "--data-dir" not in extra else []
    if token:
        env["PMGS_MCP_TOKEN"] = token

    def start(port: int) -> tuple[subprocess.Popen[bytes], Path]:
        args = ["--transport", "http", "--port", str(port), *source, *extra]
        stderr_path = workdir / f"server-{port}.stderr"
        with stderr_path.open("wb") as stderr:
            process = subprocess.Popen(
                server_command(*args),
                stdin=subprocess.DEVNULL,
                stdout=stderr,
                stderr=stderr,
                env=env,
            )
        return process, stderr_path

    process, port = serve_on_free_port(start, wait_for, timeout=SERVER_START_TIMEOUT)
    return HttpServer(process, port, token, workdir / f"server-{port}.stderr")


def stop_http_server(server: HttpServer) -> None:
    stop_process(server.process, timeout=10)


def jsonable(value: Any) -> Any:
    """A store result as it looks after a JSON round trip (tuples become lists)."""
    return json.loads(json.dumps(value, ensure_ascii=False))
