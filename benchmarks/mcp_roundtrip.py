"""Benchmark: MCP start-up and tool-call round trips of pmgs-mcp over stdio, HTTP and SSE.

Not a test: it measures, saves its results under ``benchmarks/results/`` (``--output-json``
elsewhere) and prints the section they render in docs/benchmarks.md (``--write-docs`` rewrites
the document). Targets (docs/design.md): stdio start to initialized ≤ 0.6 s, tool call p50
≤ 8 ms.

What is measured, on a synthetic package built first (pmgs-build's generator):

* start → initialized over stdio, twice: with the SDK's ``Client`` (spawn, protocol
  negotiation, ``initialize``) and with a bare JSON-lines client (spawn, one ``initialize``),
  which isolates the server's own start-up from the client library's;
* tool-call round trips per tool, with the SDK client (which also validates every result
  against the tool's output schema, as real SDK clients do) over stdio, streamable HTTP (both
  protocol eras) and SSE, and with bare clients (no SDK) over stdio and streamable HTTP.

Usage::

    uv run --frozen python benchmarks/mcp_roundtrip.py [--scale 0.01] [--calls 200] [--write-docs]
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script, too

from benchmarks.docs import add_arguments, publish
from benchmarks.results import finish, stamp


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


def build_reference(workdir: Path, scale: float, seed: int) -> tuple[Path, dict[str, str], str]:
    from pmgs_build import build_database
    from pmgs_testkit import generate_package

    started = time.perf_counter()
    package = generate_package(workdir / "package", scale=scale, seed=seed)
    db = workdir / "reference.sqlite"
    report = build_database(package.path, db)
    seconds = time.perf_counter() - started
    counts = report.table_counts
    summary = (
        f"scale {scale} (seed {seed}): {counts['concept']:,} concepts, {counts['text']:,} texts, "
        f"{counts['document']:,} documents, {counts['document_text']:,} document segments; "
        f"database {report.database_bytes / 1e6:.1f} MB, generated and built in {seconds:.1f} s"
    )
    return db, dict(package.examples), summary


def tool_calls(examples: dict[str, str]) -> list[tuple[str, str, dict[str, Any]]]:
    """(label, tool, arguments) of the measured calls."""
    return [
        ("lookup IPC", "lookup_classification", {"scheme": "ipc", "code": "G06F3/048"}),
        (
            "lookup F-term",
            "lookup_classification",
            {"scheme": "fterm", "code": examples["fterm_term"]},
        ),
        (
            "search, common phrase",
            "search_pmgs",
            {"query": examples["common_phrase"], "limit": 20},
        ),
        ("search, 2 characters", "search_pmgs", {"query": examples["two_char_word"], "limit": 20}),
        (
            "get document (20 segments)",
            "get_pmgs_document",
            {"document_id": examples["injected_instruction_document"], "segment_limit": 20},
        ),
    ]


def server_args(db: Path, *extra: str) -> list[str]:
    return ["-m", "pmgs_mcp", "--db", str(db), *extra]


# --- SDK client --------------------------------------------------------------------------------


async def sdk_rounds(
    target: Any, mode: str, calls: list[tuple[str, str, dict[str, Any]]], count: int
) -> dict[str, list[float]]:
    results: dict[str, list[float]] = {}
    async with Client(target, mode=mode, read_timeout_seconds=60) as client:
        for label, tool, arguments in calls:
            result = await client.call_tool(tool, arguments)  # warm-up, also checks the answer
            assert not result.is_error, result.content
            samples = []
            for _ in range(count):
                started = time.perf_counter()
                await client.call_tool(tool, arguments)
                samples.append(time.perf_counter() - started)
            results[label] = samples
    return results


async def sdk_start(db: Path, repeats: int) -> list[float]:
    samples = []
    for _ in range(repeats):
        params = StdioServerParameters(command=sys.executable, args=server_args(db))
        started = time.perf_counter()
        async with Client(params) as client:
            samples.append(time.perf_counter() - started)
            await client.list_tools()
    return samples


# --- bare JSON-lines client over stdio ----------------------------------------------------------

_INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "0"},
    },
}


class RawStdio:
    """A minimal client: one JSON-RPC message per line, no validation, no SDK."""

    def __init__(self, db: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, *server_args(db)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.next_id = 1

    def request(self, message: dict[str, Any]) -> dict[str, Any]:
        assert self.process.stdin is not None
        assert self.process.stdout is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()
        while True:
            answer: dict[str, Any] = json.loads(self.process.stdout.readline())
            if answer.get("id") == message.get("id"):
                return answer

    def initialize(self) -> None:
        self.request(_INITIALIZE)
        assert self.process.stdin is not None
        self.process.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        self.process.stdin.flush()

    def call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        self.next_id += 1
        message = {
            "jsonrpc": "2.0",
            "id": self.next_id,
            "method": "tools/call",
            "params": {"name": tool, "arguments": arguments},
        }
        return self.request(message)

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=30)


def raw_start(db: Path, repeats: int) -> list[float]:
    samples = []
    for _ in range(repeats):
        started = time.perf_counter()
        client = RawStdio(db)
        client.initialize()
        samples.append(time.perf_counter() - started)
        client.close()
    return samples


def import_only(module: str, repeats: int) -> list[float]:
    """Process start plus one import: what any server built on that module pays first."""
    samples = []
    for _ in range(repeats):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", f"import {module}"], check=True)
        samples.append(time.perf_counter() - started)
    return samples


def raw_rounds(
    db: Path, calls: list[tuple[str, str, dict[str, Any]]], count: int
) -> dict[str, list[float]]:
    client = RawStdio(db)
    client.initialize()
    results: dict[str, list[float]] = {}
    try:
        for label, tool, arguments in calls:
            assert not client.call(tool, arguments)["result"]["isError"]
            samples = []
            for _ in range(count):
                started = time.perf_counter()
                client.call(tool, arguments)
                samples.append(time.perf_counter() - started)
            results[label] = samples
    finally:
        client.close()
    return results


# --- HTTP server ---------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_http(db: Path, port: int) -> subprocess.Popen[bytes]:
    process = subprocess.Popen(
        [sys.executable, *server_args(db, "--transport", "http", "--port", str(port))],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx2.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                return process
        except httpx2.TransportError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError("the HTTP server did not start")


def http_raw_rounds(
    base: str, calls: list[tuple[str, str, dict[str, Any]]], count: int
) -> dict[str, list[float]]:
    """JSON-RPC POSTs to the stateless endpoint over one keep-alive connection, no SDK."""
    headers = {"Accept": "application/json, text/event-stream"}
    results: dict[str, list[float]] = {}
    with httpx2.Client(base_url=base, headers=headers, timeout=60) as http:
        for label, tool, arguments in calls:
            message = {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": tool, "arguments": arguments},
            }
            answer = http.post("/mcp", json=message)
            assert not answer.json()["result"]["isError"]
            samples = []
            for _ in range(count):
                started = time.perf_counter()
                http.post("/mcp", json=message).json()
                samples.append(time.perf_counter() - started)
            results[label] = samples
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=0.01, help="synthetic package scale")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--calls", type=int, default=200, help="measured calls per tool")
    parser.add_argument("--starts", type=int, default=5, help="measured start-ups per client")
    add_arguments(parser)
    args = parser.parse_args()
    record = stamp("mcp-roundtrip", args.scale)

    with tempfile.TemporaryDirectory(prefix="pmgs-mcp-bench-") as tmp:
        db, examples, summary = build_reference(Path(tmp), args.scale, args.seed)
        calls = tool_calls(examples)
        labels = [label for label, _, _ in calls]
        print(summary, file=sys.stderr)

        starts = {
            "`python -c 'import pmgs_core'` (no server)": import_only("pmgs_core", args.starts),
            "`python -c 'import mcp'` (no server)": import_only("mcp", args.starts),
            "bare JSON-lines client": raw_start(db, args.starts),
            "SDK `Client` (auto negotiation)": anyio.run(sdk_start, db, args.starts),
        }
        rows: dict[str, dict[str, list[float]]] = {}
        rows["stdio, bare client"] = raw_rounds(db, calls, args.calls)
        params = StdioServerParameters(command=sys.executable, args=server_args(db))
        rows["stdio, SDK client"] = anyio.run(sdk_rounds, params, "auto", calls, args.calls)

        port = free_port()
        server = start_http(db, port)
        try:
            base = f"http://127.0.0.1:{port}"
            rows["streamable HTTP, bare client"] = http_raw_rounds(base, calls, args.calls)

            async def over(target_factory: Callable[[], Any], mode: str) -> dict[str, list[float]]:
                return await sdk_rounds(target_factory(), mode, calls, args.calls)

            def http_target() -> Any:
                return streamable_http_client(f"{base}/mcp")

            runs: list[tuple[str, Callable[[], Awaitable[dict[str, list[float]]]]]] = [
                ("streamable HTTP 2026-07-28, SDK client", lambda: over(http_target, "auto")),
                ("streamable HTTP 2025-11-25, SDK client", lambda: over(http_target, "legacy")),
                ("SSE, SDK client", lambda: over(lambda: sse_client(f"{base}/sse"), "auto")),
            ]
            for name, run in runs:
                rows[name] = anyio.run(run)
        finally:
            server.terminate()
            server.wait(timeout=30)

    record.update(
        seed=args.seed,
        database=summary,
        calls=args.calls,
        starts={
            name: {"median_s": statistics.median(samples), "min_s": min(samples)}
            for name, samples in starts.items()
        },
        labels=labels,
        rows={
            name: {
                label: {
                    "p50_ms": percentile(samples, 0.5) * 1000,
                    "p95_ms": percentile(samples, 0.95) * 1000,
                }
                for label, samples in row.items()
            }
            for name, row in rows.items()
        },
    )
    publish(finish(record), args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
