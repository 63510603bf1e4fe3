"""Hostile HTTP clients against a token-protected ``pmgs mcp --transport http`` (issue 17).

While a well-behaved client keeps sending lookups in the background, hostile clients try:
oversized bodies (declared and chunked), heads trickled a byte at a time (slowloris), bodies
trickled a byte at a time, many idle SSE streams, a wrong ``Host``, a wrong ``Origin``, a
missing and a wrong token. Each must be refused (the status and the pmgs error code written
below, from docs/mcp.md and ADR 0015) or, for the SSE streams, simply held, and the
well-behaved client must get every answer, in every phase. "Bounded time" is checked against
a generous bound (``HANG``) that only a server that never refuses would reach; the measured
times are figures.
"""

from __future__ import annotations

import contextlib
import json
import select
import socket
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from mcp_servers import (
    MCP_HEADERS,
    TOKEN,
    Database,
    HttpServer,
    build_sample,
    rss_kib,
    start_http,
    tool_message,
)
from pmgs_testkit.kit import file_sha256

HANG = 120.0
"""Seconds after which a hostile connection still open counts as never refused."""

HOSTILE_SIZES = {
    "short": {"slow": 20, "sse": 50, "bad": 50},
    "long": {"slow": 200, "sse": 300, "bad": 500},
}


@dataclass
class Bystander:
    """A well-behaved client sending lookups back to back, answers counted per phase."""

    server: HttpServer
    code: str
    phase: str = "start"
    served: Counter[str] = field(default_factory=Counter)
    failed: list[str] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)
    done: threading.Event = field(default_factory=threading.Event)

    def run(self) -> None:
        try:
            self._loop()
        finally:
            self.done.set()

    def _loop(self) -> None:
        arguments = {"scheme": "fi", "code": self.code}
        with httpx2.Client(
            base_url=self.server.base_url, headers=self.server.headers, timeout=HANG
        ) as client:
            number = 0
            while not self.stop.is_set():
                number += 1
                phase = self.phase
                started = time.monotonic()
                try:
                    response = client.post(
                        "/mcp", json=tool_message(number, "lookup_classification", arguments)
                    )
                    record = response.json()["result"]["structuredContent"]
                    assert record["code"] == self.code
                except Exception as exc:
                    self.failed.append(f"{phase}: {type(exc).__name__}: {exc}"[:300])
                    continue
                self.latencies.append(time.monotonic() - started)
                self.served[phase] += 1
                time.sleep(0.05)


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> Database:
    return build_sample(tmp_path_factory.mktemp("hostile-db"), scale=0.001)


@pytest.fixture(scope="module")
def digest_before(database: Database) -> str:
    return file_sha256(database.path)


@pytest.fixture(scope="module")
def server(
    database: Database, digest_before: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[HttpServer]:
    running = start_http(
        database, tmp_path_factory.mktemp("hostile"), "--tools", "all", token=TOKEN
    )
    yield running
    running.stop()


@pytest.fixture(scope="module")
def bystander(server: HttpServer, database: Database) -> Iterator[Bystander]:
    client = Bystander(server, database.examples["fi_with_file_symbol"])
    thread = threading.Thread(target=client.run, daemon=True)
    thread.start()
    yield client
    client.stop.set()
    thread.join(timeout=HANG)


@pytest.fixture(scope="module")
def results(figures: Any) -> dict[str, Any]:
    section: dict[str, Any] = {}
    figures.sections["http hostile"] = section
    return section


def _phase(bystander: Bystander, name: str) -> None:
    bystander.phase = name
    # The bystander is still being served during this phase: wait for its first answer.
    deadline = time.monotonic() + HANG
    while bystander.served[name] == 0 and time.monotonic() < deadline:
        time.sleep(0.05)


def _end_phase(bystander: Bystander, name: str) -> None:
    waited = time.monotonic() + HANG
    while bystander.served[name] == 0 and time.monotonic() < waited:
        time.sleep(0.05)
    assert bystander.served[name] > 0, f"the well-behaved client was starved during {name}"
    assert not bystander.failed, bystander.failed[:5]


def _head(server: HttpServer, method: str, path: str, extra: str = "") -> bytes:
    return (
        f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
        f"Authorization: Bearer {server.token}\r\n{extra}"
    ).encode()


def _status_and_code(received: bytes) -> tuple[int, str | None]:
    head, _, body = received.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1]) if head.startswith(b"HTTP/1.1 ") else 0
    try:
        code = json.loads(body)["error"]["code"]
    except (ValueError, KeyError, TypeError):
        code = None
    return status, code


def _trickle(connections: list[socket.socket], interval: float = 1.0) -> list[tuple[float, bytes]]:
    """Send one byte per interval on every open connection until the server closes each.

    Returns, per connection, the seconds until it was closed and what the server sent.
    """
    started = time.monotonic()
    received = [b""] * len(connections)
    closed_at: list[float | None] = [None] * len(connections)
    next_byte = started
    while None in closed_at and time.monotonic() - started < HANG:
        open_ones = [c for c, t in zip(connections, closed_at, strict=True) if t is None]
        if time.monotonic() >= next_byte:
            for conn in open_ones:
                with contextlib.suppress(OSError):
                    conn.send(b"x")
            next_byte += interval
        ready, _, _ = select.select(open_ones, [], [], 0.1)
        for conn in ready:
            index = connections.index(conn)
            try:
                chunk = conn.recv(65536)
            except OSError:
                chunk = b""
            if chunk:
                received[index] += chunk
            else:
                closed_at[index] = time.monotonic() - started
    for conn in connections:
        conn.close()
    return [(HANG if t is None else t, r) for t, r in zip(closed_at, received, strict=True)]


def _connect(server: HttpServer) -> socket.socket:
    return socket.create_connection(("127.0.0.1", server.port), timeout=HANG)


def test_slow_heads_and_slow_bodies_are_cut_off(
    server: HttpServer, bystander: Bystander, results: dict[str, Any], figures: Any
) -> None:
    count = HOSTILE_SIZES[figures.profile]["slow"]
    _phase(bystander, "slow clients")
    heads, bodies = [], []
    for _ in range(count):
        conn = _connect(server)
        conn.sendall(_head(server, "POST", "/mcp") + b"X-Trickle: ")
        heads.append(conn)
        conn = _connect(server)
        body_head = "Content-Type: application/json\r\nContent-Length: 4096\r\n\r\n"
        conn.sendall(_head(server, "POST", "/mcp", body_head) + b'{"jsonrpc":')
        bodies.append(conn)
    rss_during = rss_kib(server.process.pid)
    outcome = _trickle(heads + bodies)
    _end_phase(bystander, "slow clients")
    head_outcomes = Counter(_status_and_code(r) for _, r in outcome[:count])
    body_outcomes = Counter(_status_and_code(r) for _, r in outcome[count:])
    assert head_outcomes == {(408, "REQUEST_TIMEOUT"): count}, head_outcomes
    assert body_outcomes == {(408, "REQUEST_TIMEOUT"): count}, body_outcomes
    results["slow heads"] = {
        "connections": count,
        "refused 408 REQUEST_TIMEOUT": head_outcomes[(408, "REQUEST_TIMEOUT")],
        "max seconds to close": round(max(t for t, _ in outcome[:count]), 1),
    }
    results["slow bodies"] = {
        "connections": count,
        "refused 408 REQUEST_TIMEOUT": body_outcomes[(408, "REQUEST_TIMEOUT")],
        "max seconds to close": round(max(t for t, _ in outcome[count:]), 1),
    }
    results["server RSS with slow clients MiB"] = round(rss_during / 1024, 1)


def _upload_until_answered(server: HttpServer, head: bytes, body: bytes) -> bytes:
    """Send ``head`` then ``body`` as the socket accepts it; stop writing once answered.

    A server refusing mid-upload closes with unread bytes, which resets the connection:
    reading as soon as the answer is there keeps it from being lost to the reset.
    """
    answer = b""
    with _connect(server) as conn:
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 65536)
        conn.sendall(head)
        conn.setblocking(False)
        deadline = time.monotonic() + HANG
        while time.monotonic() < deadline:
            readable, writable, _ = select.select([conn], [conn] if body else [], [], 1)
            if readable:
                try:
                    data = conn.recv(65536)
                except (ConnectionResetError, BlockingIOError):
                    break
                if not data:
                    break
                answer += data
                if b"\r\n\r\n" in answer and _complete(answer):
                    break
            elif writable:
                try:
                    body = body[conn.send(body) :]
                except (BrokenPipeError, ConnectionResetError, BlockingIOError):
                    time.sleep(0.01)
    return answer


def _complete(answer: bytes) -> bool:
    head, _, body = answer.partition(b"\r\n\r\n")
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            return len(body) >= int(line.split(b":")[1])
    return True


def test_oversized_bodies_are_refused(
    server: HttpServer, bystander: Bystander, results: dict[str, Any], figures: Any
) -> None:
    count = HOSTILE_SIZES[figures.profile]["bad"]
    _phase(bystander, "oversized bodies")
    outcomes: Counter[tuple[int, str | None]] = Counter()
    started = time.monotonic()
    for number in range(count):
        if number % 2:
            # Declared: refused on the head alone, before a body byte is sent.
            declared = "Content-Type: application/json\r\nContent-Length: 10485760\r\n\r\n"
            received = _upload_until_answered(server, _head(server, "POST", "/mcp", declared), b"")
        else:
            # Chunked: no size announced; the server must count while reading.
            chunked = "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
            piece = b"[" * 65536
            framed = b"%x\r\n%s\r\n" % (len(piece), piece)
            received = _upload_until_answered(
                server, _head(server, "POST", "/mcp", chunked), framed * 40
            )
        outcomes[_status_and_code(received)] += 1
    _end_phase(bystander, "oversized bodies")
    assert outcomes == {(413, "REQUEST_TOO_LARGE"): count}, outcomes
    results["oversized bodies"] = {
        "requests": count,
        "refused 413 REQUEST_TOO_LARGE": count,
        "seconds": round(time.monotonic() - started, 1),
    }


@pytest.mark.parametrize(
    ("case", "headers", "expected"),
    [
        ("wrong Host", {"Host": "evil.example"}, (421, "INVALID_HOST")),
        ("wrong Origin", {"Origin": "http://evil.example"}, (403, "INVALID_ORIGIN")),
        ("missing token", {"Authorization": ""}, (401, "UNAUTHORIZED")),
        ("wrong token", {"Authorization": "Bearer " + "x" * len(TOKEN)}, (401, "UNAUTHORIZED")),
    ],
)
def test_wrong_host_origin_and_token_are_refused(
    server: HttpServer,
    bystander: Bystander,
    results: dict[str, Any],
    figures: Any,
    case: str,
    headers: dict[str, str],
    expected: tuple[int, str],
) -> None:
    count = HOSTILE_SIZES[figures.profile]["bad"]
    _phase(bystander, case)
    sent = {**server.headers, **headers}
    if not sent["Authorization"]:
        del sent["Authorization"]
    outcomes: Counter[tuple[int, str]] = Counter()
    message = tool_message(1, "lookup_classification", {"scheme": "fi", "code": "A01B1/00"})
    with httpx2.Client(base_url=server.base_url, timeout=HANG) as client:
        for number in range(count):
            if number % 3 == 2:
                response = client.get("/release", headers=sent)
            else:
                response = client.post("/mcp", json=message, headers=sent)
            outcomes[(response.status_code, response.json()["error"]["code"])] += 1
    _end_phase(bystander, case)
    assert outcomes == {expected: count}, outcomes
    results[case] = {"requests": count, f"refused {expected[0]} {expected[1]}": count}


def test_many_idle_sse_streams_do_not_starve_others(
    server: HttpServer, bystander: Bystander, results: dict[str, Any], figures: Any
) -> None:
    count = HOSTILE_SIZES[figures.profile]["sse"]
    _phase(bystander, "idle SSE streams")
    streams = []
    for _ in range(count):
        conn = _connect(server)
        conn.sendall(_head(server, "GET", "/sse", "Accept: text/event-stream\r\n\r\n"))
        streams.append(conn)
    opened = 0
    for conn in streams:
        received = b""
        while b"event: endpoint" not in received:
            chunk = conn.recv(65536)
            if not chunk:
                break
            received += chunk
        opened += b"event: endpoint" in received
    rss_open = rss_kib(server.process.pid)
    before = bystander.served["idle SSE streams"]
    deadline = time.monotonic() + HANG
    while bystander.served["idle SSE streams"] < before + 20 and time.monotonic() < deadline:
        time.sleep(0.05)
    served_while_open = bystander.served["idle SSE streams"] - before
    for conn in streams:
        conn.close()
    _end_phase(bystander, "idle SSE streams")
    assert opened == count
    assert served_while_open >= 20
    results["idle SSE streams"] = {
        "streams held open": opened,
        "lookups served meanwhile (counted up to)": served_while_open,
        "server RSS with streams open MiB": round(rss_open / 1024, 1),
    }


def test_after_the_hostile_clients(
    server: HttpServer,
    bystander: Bystander,
    database: Database,
    digest_before: str,
    results: dict[str, Any],
) -> None:
    bystander.stop.set()
    # The request in flight ends before the counts are read.
    assert bystander.done.wait(HANG), "the well-behaved client never finished its last request"
    assert server.alive(), server.stderr()[-3000:]
    assert not bystander.failed, bystander.failed[:5]
    assert "Traceback" not in server.stderr(), server.stderr()[-3000:]
    ordered = sorted(bystander.latencies)
    results["well-behaved client"] = {
        "lookups served": sum(bystander.served.values()),
        "failed": 0,
        "p50 ms": round(ordered[len(ordered) // 2] * 1000, 1),
        "max ms": round(ordered[-1] * 1000, 1),
    }
    results["server RSS at end MiB"] = round(rss_kib(server.process.pid) / 1024, 1)
    with httpx2.Client(base_url=server.base_url, headers=MCP_HEADERS, timeout=HANG) as client:
        assert client.get("/health").json()["status"] == "ok"
    assert file_sha256(database.path) == digest_before
    results["database sha256 unchanged"] = True
