"""The HTTP guards against real uvicorn servers: Host/Origin, bearer token, bind, body size."""

from __future__ import annotations

import json
import os
import select
import socket
import subprocess
import time
from pathlib import Path

import httpx2
import pytest
from pmgs_mcp_testkit import TOKEN, HttpServer, Reference, server_command

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "security-test", "version": "0"},
    },
}
MCP_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
TEN_MB = 10 * 1024 * 1024


def _post_initialize(server: HttpServer, **headers: str) -> httpx2.Response:
    return httpx2.post(
        f"{server.base_url}/mcp",
        json=INITIALIZE,
        headers={**MCP_HEADERS, **server.auth_headers, **headers},
        timeout=10.0,
    )


def test_a_correct_request_is_served(token_server: HttpServer, open_server: HttpServer) -> None:
    for server in (token_server, open_server):
        response = _post_initialize(server)
        assert response.status_code == 200, response.text
        assert response.json()["result"]["serverInfo"]["name"] == "pmgs"


@pytest.mark.parametrize("host", ["evil.example", "evil.example:{port}", "127.0.0.2:{port}"])
def test_wrong_host_is_rejected(
    token_server: HttpServer, open_server: HttpServer, host: str
) -> None:
    # A DNS-rebinding page reaches 127.0.0.1 under its own name: the Host header gives it away.
    for server in (token_server, open_server):
        value = host.format(port=server.port)
        for response in (
            _post_initialize(server, Host=value),
            httpx2.get(f"{server.base_url}/version", headers={"Host": value}),
            httpx2.get(f"{server.base_url}/sse", headers={"Host": value}),
        ):
            assert response.status_code == 421
            assert response.json()["error"]["code"] == "INVALID_HOST"
        # The probes answer whatever the Host: load balancers and Kubernetes send their own
        # (or none), and the two answers reveal nothing and change nothing.
        for probe in ("/health", "/ready"):
            response = httpx2.get(f"{server.base_url}{probe}", headers={"Host": value})
            assert response.status_code == 200, response.text


@pytest.mark.parametrize("origin", ["http://evil.example", "null", "http://127.0.0.1:1"])
def test_wrong_origin_is_rejected(
    token_server: HttpServer, open_server: HttpServer, origin: str
) -> None:
    for server in (token_server, open_server):
        for response in (
            _post_initialize(server, Origin=origin),
            httpx2.get(f"{server.base_url}/sse", headers={"Origin": origin, **server.auth_headers}),
            httpx2.get(f"{server.base_url}/release", headers={"Origin": origin}),
        ):
            assert response.status_code == 403
            assert response.json()["error"]["code"] == "INVALID_ORIGIN"


def test_allowed_origins_pass(open_server: HttpServer) -> None:
    for origin in (
        f"http://127.0.0.1:{open_server.port}",
        f"http://localhost:{open_server.port}",
        "https://app.example",  # added with --allow-origin
    ):
        assert _post_initialize(open_server, Origin=origin).status_code == 200


@pytest.mark.parametrize(
    "authorization",
    [None, "Bearer wrong-token", f"Bearer {TOKEN}x", f"Basic {TOKEN}", TOKEN, "Bearer"],
)
def test_missing_or_wrong_token_is_rejected(
    token_server: HttpServer, authorization: str | None
) -> None:
    headers = {} if authorization is None else {"Authorization": authorization}
    for response in (
        httpx2.post(
            f"{token_server.base_url}/mcp", json=INITIALIZE, headers={**MCP_HEADERS, **headers}
        ),
        httpx2.get(f"{token_server.base_url}/sse", headers=headers),
        httpx2.post(
            f"{token_server.base_url}/messages?session_id=0123456789abcdef0123456789abcdef",
            json=INITIALIZE,
            headers=headers,
        ),
        httpx2.get(f"{token_server.base_url}/release", headers=headers),
        httpx2.get(f"{token_server.base_url}/version", headers=headers),
    ):
        assert response.status_code == 401
        assert response.headers["www-authenticate"].startswith("Bearer")
        assert response.json()["error"]["code"] == "UNAUTHORIZED"


def test_the_right_token_is_accepted(token_server: HttpServer) -> None:
    headers = {"Authorization": f"Bearer {TOKEN}"}
    assert httpx2.get(f"{token_server.base_url}/release", headers=headers).status_code == 200
    assert _post_initialize(token_server).status_code == 200


def test_health_needs_no_token(token_server: HttpServer) -> None:
    response = httpx2.get(f"{token_server.base_url}/health")
    assert response.status_code == 200
    assert response.json()["status"] == "ok"


def test_side_endpoints(token_server: HttpServer, store: object) -> None:
    headers = token_server.auth_headers
    version = httpx2.get(f"{token_server.base_url}/version", headers=headers).json()
    assert version["name"] == "pmgs-mcp"
    assert version["version"]
    release = httpx2.get(f"{token_server.base_url}/release", headers=headers).json()
    assert release == json.loads(json.dumps(store.release_info()))  # type: ignore[attr-defined]
    health = httpx2.get(f"{token_server.base_url}/health").json()
    assert health["status"] == "ok"
    assert health["release_id"] == release["release_id"]


def _run_cli(*args: str, token: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PMGS_MCP_TOKEN"}
    if token is not None:
        env["PMGS_MCP_TOKEN"] = token
    return subprocess.run(
        server_command(*args),
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=False,
        stdin=subprocess.DEVNULL,
    )


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.0.2.10", "example.com"])
def test_non_loopback_bind_without_token_is_refused(tmp_path: Path, host: str) -> None:
    missing = str(tmp_path / "missing.sqlite")
    result = _run_cli("--transport", "http", "--host", host, "--db", missing)
    assert result.returncode == 2
    assert "without a bearer token" in result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize(
    ("host", "extra", "token"),
    [
        ("0.0.0.0", ("--allow-unauthenticated-remote",), None),
        ("0.0.0.0", (), "a-token"),
        ("::1", (), None),
        ("localhost", (), None),
    ],
)
def test_bind_check_passes_with_token_force_or_loopback(
    tmp_path: Path, host: str, extra: tuple[str, ...], token: str | None
) -> None:
    # The database does not exist, so a command that got past the bind check fails with
    # exit status 3 (database) instead of 2 (refused): nothing is ever bound.
    missing = str(tmp_path / "missing.sqlite")
    result = _run_cli("--transport", "http", "--host", host, "--db", missing, *extra, token=token)
    assert result.returncode == 3, result.stderr
    assert "DATABASE_NOT_FOUND" in result.stderr


def _peak_rss_kib(pid: int) -> int | None:
    status = Path(f"/proc/{pid}/status")
    if not status.exists():
        return None
    for line in status.read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return None


def _send_until_answered(server: HttpServer, head: bytes, body_chunks: int) -> tuple[bytes, int]:
    """Send ``head`` and up to ``body_chunks`` chunks of 64 KiB; stop when the server answers.

    Returns the bytes the server answered with and how many body bytes were sent. A server
    that closes the connection mid-upload may reset it; what it sent first is still read.
    """
    chunk = b"x" * 65536
    sent = 0
    answer = b""
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 65536)
        sock.sendall(head)
        sock.setblocking(False)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            readable, writable, _ = select.select(
                [sock], [sock] if sent < body_chunks else [], [], 1
            )
            if readable:
                try:
                    data = sock.recv(65536)
                except (ConnectionResetError, BlockingIOError):
                    break
                if not data:
                    break
                answer += data
                if b"\r\n\r\n" in answer:
                    break
            elif writable:
                try:
                    sent += sock.send(chunk)
                except (BrokenPipeError, ConnectionResetError, BlockingIOError):
                    time.sleep(0.01)
    return answer, sent


@pytest.mark.parametrize("framing", ["content-length", "chunked"])
def test_ten_megabyte_body_is_refused_without_reading_it(
    token_server: HttpServer, framing: str
) -> None:
    before = _peak_rss_kib(token_server.process.pid)
    common = (
        f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{token_server.port}\r\n"
        f"Authorization: Bearer {TOKEN}\r\nContent-Type: application/json\r\n"
        "Accept: application/json, text/event-stream\r\n"
    )
    if framing == "content-length":
        head = f"{common}Content-Length: {TEN_MB}\r\n\r\n".encode()
        answer, sent = _send_until_answered(token_server, head, TEN_MB // 65536)
    else:
        # Chunked framing announces no size: the server must count while reading.
        head = f"{common}Transfer-Encoding: chunked\r\n\r\n".encode()
        answer, sent = _send_until_answered_chunked(token_server, head)
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert sent < TEN_MB, "the server answered only after the whole body"
    after = _peak_rss_kib(token_server.process.pid)
    if before is not None and after is not None:
        assert after - before < 8 * 1024, "the server's peak memory grew by the body size"
    assert httpx2.get(f"{token_server.base_url}/health").status_code == 200


def _send_until_answered_chunked(server: HttpServer, head: bytes) -> tuple[bytes, int]:
    piece = b"x" * 65536
    framed = f"{len(piece):x}\r\n".encode() + piece + b"\r\n"
    answer = b""
    sent = 0
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 65536)
        sock.sendall(head)
        sock.setblocking(False)
        pending = b""
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            want_write = sent < TEN_MB
            readable, writable, _ = select.select([sock], [sock] if want_write else [], [], 1)
            if readable:
                try:
                    data = sock.recv(65536)
                except (ConnectionResetError, BlockingIOError):
                    break
                if not data:
                    break
                answer += data
                if b"\r\n\r\n" in answer:
                    break
            elif writable:
                if not pending:
                    pending = framed
                try:
                    count = sock.send(pending)
                except (BrokenPipeError, ConnectionResetError, BlockingIOError):
                    time.sleep(0.01)
                    continue
                pending = pending[count:]
                if not pending:
                    sent += len(piece)
    return answer, sent


def test_body_limit_is_configurable(reference: Reference, tmp_path: Path) -> None:
    from pmgs_mcp_testkit import start_http_server, stop_http_server

    server = start_http_server(reference, tmp_path, "--max-body-bytes", "2048")
    try:
        small = _post_initialize(server)
        assert small.status_code == 200
        padded = {**INITIALIZE, "params": {**INITIALIZE["params"], "pad": "x" * 4096}}
        large = httpx2.post(f"{server.base_url}/mcp", json=padded, headers=MCP_HEADERS)
        assert large.status_code == 413
        assert large.json()["error"]["code"] == "REQUEST_TOO_LARGE"
    finally:
        stop_http_server(server)
