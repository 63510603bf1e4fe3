"""Deadlines for slow clients (issue 17, ADR 0015): request heads and request bodies.

The head deadline is tested on a real uvicorn server on a loopback socket, with the
production protocol class and only its deadline shortened; the body deadline on
:class:`~pmgs_mcp.security.BodyLimit` driven through the ASGI interface by a client that
stops sending half way. No test asserts how long anything took.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import anyio
import httpx2
import pytest
import uvicorn
from pmgs_mcp_testkit import HttpServer

from pmgs_mcp.connections import HeaderDeadlineProtocol
from pmgs_mcp.security import BodyLimit, Message

SHORT = 0.5


class ShortHeadDeadline(HeaderDeadlineProtocol):
    header_timeout = SHORT


async def slow_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Answers after twice the head deadline: the deadline must not cover the handler."""
    await anyio.sleep(2 * SHORT)
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"ok"})


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    # The socket is bound here and handed over: no other process can take the port between
    # choosing it and serving on it.
    listening = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listening.bind(("127.0.0.1", 0))
    chosen = int(listening.getsockname()[1])
    config = uvicorn.Config(
        slow_app,
        host="127.0.0.1",
        port=chosen,
        http=ShortHeadDeadline,
        lifespan="off",
        log_level="warning",
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listening]}, daemon=True)
    thread.start()
    while not server.started:
        assert thread.is_alive(), "the server thread ended before serving"
        time.sleep(0.05)
    yield chosen
    server.should_exit = True
    thread.join(timeout=10)


def _read_until_closed(sock: socket.socket) -> bytes:
    sock.settimeout(30)  # a bound for a broken server, not a measurement
    received = b""
    while chunk := sock.recv(4096):
        received += chunk
    return received


def _request(port: int) -> bytes:
    return f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode()


def test_a_trickled_head_gets_408_and_the_connection_closes(port: int) -> None:
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        received = _read_until_closed(sock)
    head, _, body = received.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 408 ")
    assert json.loads(body)["error"]["code"] == "REQUEST_TIMEOUT"


def test_a_silent_connection_is_closed_without_an_answer(port: int) -> None:
    with socket.create_connection(("127.0.0.1", port)) as sock:
        assert _read_until_closed(sock) == b""


def test_a_prompt_head_is_served_however_long_the_answer_takes(port: int) -> None:
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(_request(port))
        sock.settimeout(30)
        # The head and the chunked body may arrive in separate reads: read the whole answer
        # (up to its last chunk) before sending the next head.
        first = b""
        while not first.endswith(b"0\r\n\r\n") and (chunk := sock.recv(4096)):
            first += chunk
        assert first.startswith(b"HTTP/1.1 200 ")
        assert first.endswith(b"\r\n\r\n2\r\nok\r\n0\r\n\r\n")
        # The same keep-alive connection: the next head has the deadline again.
        sock.sendall(b"GET / HTTP/1.1\r\n")
        rest = _read_until_closed(sock)
    assert rest.startswith(b"HTTP/1.1 408 ")


async def _echo(scope: dict[str, Any], receive: Any, send: Any) -> None:
    message = await receive()
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": message["body"]})


async def _drive(chunks: list[Message], then_wait: bool) -> list[Message]:
    """Run BodyLimit(_echo) for a client sending ``chunks`` (then going silent or not)."""
    guard = BodyLimit(_echo, max_bytes=1000, body_timeout=SHORT)
    queue = list(chunks)
    sent: list[Message] = []

    async def receive() -> Message:
        if queue:
            return queue.pop(0)
        if then_wait:
            await anyio.sleep_forever()
        return {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "POST", "path": "/mcp", "headers": []}
    await guard(scope, receive, send)
    return sent


def test_a_body_that_stops_half_way_gets_408() -> None:
    sent = anyio.run(
        _drive, [{"type": "http.request", "body": b'{"jsonrpc":', "more_body": True}], True
    )
    assert sent[0]["status"] == 408
    assert (b"connection", b"close") in sent[0]["headers"]
    assert json.loads(sent[1]["body"])["error"]["code"] == "REQUEST_TIMEOUT"


def test_a_body_in_pieces_within_the_deadline_is_passed_on_whole() -> None:
    chunks: list[Message] = [
        {"type": "http.request", "body": b"ab", "more_body": True},
        {"type": "http.request", "body": b"cd", "more_body": False},
    ]
    sent = anyio.run(_drive, chunks, False)
    assert sent[0]["status"] == 200
    assert sent[1]["body"] == b"abcd"


def test_deadlines_must_be_positive() -> None:
    with pytest.raises(ValueError, match="body_timeout"):
        BodyLimit(_echo, body_timeout=0)


def test_the_served_application_has_the_head_deadline(token_server: HttpServer) -> None:
    # The real ``pmgs-mcp --transport http`` (serve() wires the protocol in): 10 s.
    with socket.create_connection(("127.0.0.1", token_server.port)) as sock:
        sock.sendall(f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{token_server.port}\r\n".encode())
        received = _read_until_closed(sock)
    assert received.startswith(b"HTTP/1.1 408 ")
    assert httpx2.get(f"{token_server.base_url}/health").status_code == 200
