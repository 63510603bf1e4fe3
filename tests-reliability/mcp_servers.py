"""Real ``pmgs mcp`` servers for the server half of the reliability suite.

A stdio server is the console script with its stdin/stdout as pipes, spoken to in raw lines
(so that frames no SDK client would send can be sent); an HTTP server is the console script
with ``--transport http`` on a free loopback port. Both serve a database built once from a
generated package. Sizes per profile are here (not in conftest's ``PROFILES``) so that the
build half of the suite and this half grow without editing the same table.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from pmgs_testkit.kit import (
    build_reference,
    console_script,
    serve_on_free_port,
    stop_process,
)

SERVER_PROFILES: dict[str, dict[str, Any]] = {
    # frames per transport; load clients, seconds and database scale
    "short": {"fuzz_frames": 700, "load_clients": 10, "load_seconds": 10, "load_scale": 0.001},
    "long": {"fuzz_frames": 5200, "load_clients": 50, "load_seconds": 60, "load_scale": 0.1},
}

TOKEN = "reliability-token-0123456789abcdef"
START_TIMEOUT = 120.0
ANSWER_TIMEOUT = 60.0
"""A bound for a server that stopped answering (a finding), not a measurement."""

PROTOCOL_VERSION = "2025-06-18"


@dataclass(frozen=True)
class Database:
    """A built reference database and what the package says it holds."""

    path: Path
    examples: dict[str, str]
    scale: float

    @property
    def seeds(self) -> list[str]:
        """Strings the store knows (codes, document ids, words): valid-value seeds."""
        values = [v for v in self.examples.values() if len(v) <= 64]
        return [*values, "current", "JPPM2026002", "G06F3/048", "2006.01", "page:1"]


def build_sample(root: Path, scale: float, seed: int = 7) -> Database:
    """The shared kit's reference, with the document groups, at ``scale``."""
    made = build_reference(root, scale=scale, seed=seed, with_documents=True)
    return Database(made.db, made.examples, scale)


def rss_kib(pid: int) -> int:
    """Resident set size of ``pid`` now (Linux ``/proc``)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


# --- stdio -----------------------------------------------------------------------------------


@dataclass
class StdioServer:
    """``pmgs mcp`` over pipes, spoken to in raw lines."""

    process: subprocess.Popen[bytes]
    stderr_path: Path
    _buffer: bytes = b""

    def send(self, raw: bytes) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        stdin.write(raw + b"\n")
        stdin.flush()

    def read(self, timeout: float = ANSWER_TIMEOUT) -> dict[str, Any] | list[Any] | None:
        """The next answer line as JSON, or None if none came within ``timeout``."""
        stdout: IO[bytes] | None = self.process.stdout
        assert stdout is not None
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([stdout], [], [], left)
            if not ready:
                continue
            chunk = os.read(stdout.fileno(), 1 << 16)
            if not chunk:
                raise EOFError(f"the server closed stdout: {self.stderr()[-2000:]}")
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        answer: dict[str, Any] | list[Any] = json.loads(line)
        return answer

    def read_until(self, answer_id: str | int) -> tuple[dict[str, Any], list[Any]]:
        """The answer carrying ``answer_id`` and every other answer before it."""
        others: list[Any] = []
        while True:
            answer = self.read()
            if answer is None:
                raise TimeoutError(f"no answer for id {answer_id!r}: {self.stderr()[-2000:]}")
            if isinstance(answer, dict) and answer.get("id") == answer_id:
                return answer, others
            others.append(answer)

    def call(self, message: dict[str, Any]) -> dict[str, Any]:
        self.send(json.dumps(message).encode())
        answer, _ = self.read_until(message["id"])
        return answer

    def stderr(self) -> str:
        return self.stderr_path.read_text("utf-8", errors="replace")

    def close(self) -> int:
        if self.process.stdin:
            self.process.stdin.close()
        try:
            return self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
            return -9


def start_stdio(db: Database, workdir: Path, *extra: str) -> StdioServer:
    stderr_path = workdir / "stdio-server.stderr"
    with stderr_path.open("wb") as stderr:
        process = subprocess.Popen(
            [console_script(), "mcp", "--db", str(db.path), *extra],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
        )
    server = StdioServer(process, stderr_path)
    answer = server.call(
        {
            "jsonrpc": "2.0",
            "id": "initialize",
            "method": "initialize",
            "params": {
                "protocolVersion": PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "pmgs-reliability", "version": "1"},
            },
        }
    )
    assert "result" in answer, answer
    server.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
    return server


# --- HTTP ------------------------------------------------------------------------------------

MCP_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


@dataclass
class HttpServer:
    process: subprocess.Popen[bytes]
    port: int
    token: str | None
    stderr_path: Path
    extra: tuple[str, ...] = field(default=())

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def headers(self) -> dict[str, str]:
        auth = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        return {**MCP_HEADERS, **auth}

    def stderr(self) -> str:
        return self.stderr_path.read_text("utf-8", errors="replace")

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> None:
        stop_process(self.process)


def start_http(db: Database, workdir: Path, *extra: str, token: str | None = None) -> HttpServer:
    """``pmgs mcp --transport http`` on a free port, once it (and no other process) is healthy."""
    env = {k: v for k, v in os.environ.items() if k != "PMGS_MCP_TOKEN"}
    if token:
        env["PMGS_MCP_TOKEN"] = token

    def start(port: int) -> tuple[subprocess.Popen[bytes], Path]:
        stderr_path = workdir / f"http-server-{port}.stderr"
        args = [
            console_script(),
            "mcp",
            "--transport",
            "http",
            "--port",
            str(port),
            "--db",
            str(db.path),
        ]
        with stderr_path.open("wb") as stderr:
            process = subprocess.Popen(
                [*args, *extra], stdin=subprocess.DEVNULL, stdout=stderr, stderr=stderr, env=env
            )
        return process, stderr_path

    process, port = serve_on_free_port(start, "/health", timeout=START_TIMEOUT)
    return HttpServer(process, port, token, workdir / f"http-server-{port}.stderr", tuple(extra))


def tool_message(request_id: str | int, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }


def check_lookup_answer(answer: dict[str, Any], code: str) -> None:
    """A normal lookup answered with the record of ``code`` (the server still works)."""
    result = answer.get("result")
    assert isinstance(result, dict), answer
    assert result.get("isError") is not True, result
    record = result["structuredContent"]
    assert record["match_status"] != "not_found", record
    assert record["code"] == code, record
