"""``uvicorn --factory pmgs_mcp.http:create_app_from_env`` has the request-head deadline too.

ADR 0015's deadline was wired in by ``pmgs-mcp --transport http`` only; a server started
with uvicorn's own command line and the app factory gave a trickling client unlimited time
(issue 27). Here uvicorn runs as a real subprocess with the deadline shortened through
``PMGS_MCP_HEADER_TIMEOUT``; an incomplete head must be answered 408 and the connection
closed, while a complete request is served. No test asserts how long anything took.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
from pmgs_mcp_testkit import SERVER_START_TIMEOUT, Reference

from pmgs_mcp.connections import ENV_HEADER_TIMEOUT, header_timeout_from_env
from pmgs_testkit.kit import free_port, serve_on_free_port, stop_process


def _start(
    reference: Reference, stderr_path: Path, port: int, **extra_env: str
) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PMGS_MCP_")}
    env.update({"PMGS_MCP_DB": str(reference.db), "PMGS_MCP_PORT": str(port), **extra_env})
    command = [
        sys.executable, "-m", "uvicorn", "--factory", "pmgs_mcp.http:create_app_from_env",
        "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning",
    ]  # fmt: skip
    with stderr_path.open("wb") as stderr:
        return subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=stderr, stderr=stderr, env=env
        )


@pytest.fixture(scope="module")
def factory_port(reference: Reference, tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    stderr_path = tmp_path_factory.mktemp("factory") / "uvicorn.stderr"
    process, port = serve_on_free_port(
        lambda port: (
            _start(reference, stderr_path, port, **{ENV_HEADER_TIMEOUT: "0.5"}),
            stderr_path,
        ),
        "/health",
        timeout=SERVER_START_TIMEOUT,
    )
    try:
        yield port
    finally:
        stop_process(process)


def _read_until_closed(sock: socket.socket) -> bytes:
    sock.settimeout(30)  # a bound for a broken server, not a measurement
    received = b""
    while chunk := sock.recv(4096):
        received += chunk
    return received


def test_an_incomplete_head_gets_408_and_the_connection_closes(factory_port: int) -> None:
    with socket.create_connection(("127.0.0.1", factory_port)) as sock:
        sock.sendall(f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{factory_port}\r\nX-Slow: ".encode())
        received = _read_until_closed(sock)
    head, _, body = received.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 408 ")
    assert json.loads(body)["error"]["code"] == "REQUEST_TIMEOUT"


def test_a_complete_request_is_served(factory_port: int) -> None:
    answer = httpx2.get(f"http://127.0.0.1:{factory_port}/version", timeout=30)
    assert answer.status_code == 200


def test_a_bad_deadline_stops_the_factory_at_startup(reference: Reference, tmp_path: Path) -> None:
    stderr_path = tmp_path / "uvicorn.stderr"
    process = _start(reference, stderr_path, free_port(), **{ENV_HEADER_TIMEOUT: "-1"})
    try:
        assert process.wait(timeout=SERVER_START_TIMEOUT) != 0
    finally:
        if process.poll() is None:
            stop_process(process)
    assert ENV_HEADER_TIMEOUT in stderr_path.read_text(errors="replace")


@pytest.mark.parametrize(
    ("value", "expected"), [(None, None), ("", None), ("0.25", 0.25), ("30", 30.0)]
)
def test_header_timeout_from_env(value: str | None, expected: float | None) -> None:
    environ = {} if value is None else {ENV_HEADER_TIMEOUT: value}
    assert header_timeout_from_env(environ) == expected


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf", "soon"])
def test_header_timeout_from_env_refuses(value: str) -> None:
    with pytest.raises(ValueError, match=ENV_HEADER_TIMEOUT):
        header_timeout_from_env({ENV_HEADER_TIMEOUT: value})
