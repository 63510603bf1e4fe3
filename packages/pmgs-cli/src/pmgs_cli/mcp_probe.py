"""A minimal MCP stdio client for ``pmgs doctor``: JSON-RPC over a child's stdin/stdout.

The SDK belongs to pmgs-mcp, and the doctor needs four messages, so it speaks the stdio
transport itself (ADR 0001: the CLI never imports pmgs-mcp). One deadline bounds everything;
on timeout the child is killed and reaped.
"""

from __future__ import annotations

import json
import queue
import subprocess
import threading
import time
from collections.abc import Sequence
from typing import IO, Any, Final

__all__ = ["PROTOCOL_VERSION", "McpProbeError", "McpSession"]

PROTOCOL_VERSION: Final = "2025-06-18"


class McpProbeError(Exception):
    """A failed MCP stage: ``code`` is ``MCP_TIMEOUT``, ``MCP_START_FAILED`` or
    ``MCP_CONTRACT_FAILED``; ``stage`` names the step; the message holds no payload text."""

    def __init__(self, code: str, stage: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.stage = stage
        self.message = message


def _reader(stream: IO[bytes], out: queue.Queue[bytes | None]) -> None:
    for line in iter(stream.readline, b""):
        out.put(line)
    out.put(None)


class McpSession:
    """One stdio session with a deadline; use as a context manager (always reaps the child)."""

    def __init__(self, command: Sequence[str], timeout_seconds: float) -> None:
        self.deadline = time.monotonic() + timeout_seconds
        self._next_id = 0
        self._lines: queue.Queue[bytes | None] = queue.Queue()
        self.stage = "start"
        try:
            self.process = subprocess.Popen(  # noqa: S603 - our own interpreter and module
                list(command),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
            )
        except OSError:
            raise McpProbeError(
                "MCP_START_FAILED", "start", "the MCP server could not start"
            ) from None
        assert self.process.stdout is not None
        self._thread = threading.Thread(
            target=_reader, args=(self.process.stdout, self._lines), daemon=True
        )
        self._thread.start()

    def __enter__(self) -> McpSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close stdin (a polite shutdown), then kill if needed, and always reap."""
        if self.process.poll() is None:
            try:
                if self.process.stdin is not None:
                    self.process.stdin.close()
                self.process.wait(timeout=max(0.1, min(2.0, self.deadline - time.monotonic())))
            except (OSError, subprocess.TimeoutExpired):
                self.process.kill()
                self.process.wait()
        self._thread.join(timeout=1)

    def kill(self) -> None:
        """Kill and reap the child at once (on timeout)."""
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()

    def _send(self, message: dict[str, Any]) -> None:
        data = (json.dumps(message, ensure_ascii=False) + "\n").encode("utf-8")
        try:
            assert self.process.stdin is not None
            self.process.stdin.write(data)
            self.process.stdin.flush()
        except OSError:
            raise McpProbeError(
                "MCP_START_FAILED", self.stage, "the MCP server closed its input"
            ) from None

    def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        """Send a notification (no answer expected)."""
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self._send(message)

    def request(self, stage: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """Send a request and wait (until the deadline) for the response with its id."""
        self.stage = stage
        self._next_id += 1
        request_id = self._next_id
        self._send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        while True:
            left = self.deadline - time.monotonic()
            if left <= 0:
                self.kill()
                raise McpProbeError("MCP_TIMEOUT", stage, "the MCP server did not answer in time")
            try:
                line = self._lines.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                self.kill()
                raise McpProbeError("MCP_START_FAILED", stage, "the MCP server exited")
            try:
                message = json.loads(line)
            except ValueError:
                raise McpProbeError(
                    "MCP_CONTRACT_FAILED", stage, "the server wrote a non-JSON line on stdout"
                ) from None
            if not isinstance(message, dict) or message.get("id") != request_id:
                continue  # notifications and log messages
            if "error" in message:
                raise McpProbeError("MCP_CONTRACT_FAILED", stage, "the server returned an error")
            result = message.get("result")
            if not isinstance(result, dict):
                raise McpProbeError("MCP_CONTRACT_FAILED", stage, "the response has no result")
            return result

    def initialize(self) -> dict[str, Any]:
        """The handshake: initialize, then notifications/initialized."""
        result = self.request(
            "initialize",
            "initialize",
            {
                "protocolVersion": PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "pmgs-doctor", "version": "1"},
            },
        )
        self.notify("notifications/initialized")
        return result
