"""Plain stdio tool calls answered in the read loop, without the SDK's per-request machinery.

The SDK answers every request through its dispatcher: a task per request, a middleware
chain, params validated twice, the result dumped and re-validated, then two memory-stream
hops to the writer task. For a lookup that costs more than the lookup itself (issue 42:
1.6 ms a call over stdio against 0.15 ms in process). A ``tools/call`` of the plainest
shape on a handshake-era session (:func:`plain_call`) is answered here instead, built by
the same functions the SDK's pipeline runs (:func:`pmgs_mcp.server.call_result`, the SDK's
own result dump and per-version sieve, the response model's own JSON), so the line on the
wire is the one the SDK would have written (ADR 0038; a test compares both, line by line).

Every other message still goes to the SDK: requests before the handshake's answer, sessions
of the per-request-envelope era (2026-07-28), calls carrying ``_meta`` (progress tokens),
a task or any other member, unknown tools, and every other method.
``PMGS_MCP_SDK_DISPATCH=1`` sends everything to the SDK's dispatcher and writer task, as
before issue 42 (the oracle of that test).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from types import TracebackType
from typing import Any, Final

from mcp import types
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage
from mcp_types import methods
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError

from pmgs_mcp.tools import ToolSet

__all__ = ["ENV_SDK_DISPATCH", "DirectCalls", "Writes", "plain_call", "sdk_dispatch_only"]

ENV_SDK_DISPATCH: Final = "PMGS_MCP_SDK_DISPATCH"
"""Set to ``1`` to answer every stdio message through the SDK's dispatcher."""

logger = logging.getLogger("pmgs_mcp")

_PLAIN_PARAMS: Final = frozenset({"name", "arguments"})


def sdk_dispatch_only() -> bool:
    """Whether ``PMGS_MCP_SDK_DISPATCH`` asks for the SDK's dispatcher and writer only."""
    return os.environ.get(ENV_SDK_DISPATCH, "").strip().lower() in {"1", "true", "yes"}


def plain_call(message: Any, tools: frozenset[str]) -> tuple[str | int, str, Any] | None:
    """``(id, tool, arguments)`` of a request the read loop may answer itself, else None:
    ``tools/call`` whose params hold a listed tool's name and, optionally, an object of
    arguments, and nothing else."""
    if not isinstance(message, types.JSONRPCRequest) or message.method != "tools/call":
        return None
    params = message.params
    if type(params) is not dict or not params.keys() <= _PLAIN_PARAMS:
        return None
    name = params.get("name")
    arguments = params.get("arguments")
    if type(name) is not str or name not in tools:
        return None
    if arguments is not None and type(arguments) is not dict:
        return None
    return message.id, name, arguments


class Writes:
    """The write stream the SDK's server (and the read loop) send messages to.

    With ``write_line`` (the protocol's stdout, written in the event loop's thread) a
    message is written at once, as the SDK's writer task would write it (the message
    model's JSON, one line), without the hop through that task: every line is whole and
    lines leave in the order they are sent. Without it, messages go on to the SDK's
    stream. ``seen`` hears of every message after it was written or handed on: the
    handshake's answer tells :class:`DirectCalls` the session's protocol version.
    """

    def __init__(
        self,
        stream: Any,
        write_line: Callable[[str], None] | None,
        seen: Callable[[Any], None],
    ) -> None:
        self._stream = stream
        self._write_line = write_line
        self._seen = seen

    async def send(self, item: SessionMessage, /) -> None:
        if self._write_line is None:
            await self._stream.send(item)
        else:
            self._write_line(item.message.model_dump_json(by_alias=True, exclude_unset=True))
        self._seen(item.message)

    async def aclose(self) -> None:
        await self._stream.aclose()

    async def __aenter__(self) -> Writes:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> None:
        await self.aclose()


class DirectCalls:
    """Answers plain tool calls (:func:`plain_call`) of one stdio session in the read loop.

    ``result`` builds a call's SDK result object (the same function the SDK's handler
    calls); answers are sent to the session's :class:`Writes`, which reports the handshake's
    answer back to :meth:`outbound`.
    """

    def __init__(
        self,
        toolset: ToolSet,
        result: Callable[[ToolSet, str, Any], types.CallToolResult],
    ) -> None:
        self._toolset = toolset
        self._tools = frozenset(spec.name for spec in toolset.specs)
        self._result = result
        self._initialize_ids: set[str | int] = set()
        self.version: str | None = None
        """The handshake-era protocol version once ``initialize`` was answered, else None."""

    def inbound(self, message: Any) -> None:
        """Note an ``initialize`` request on its way to the SDK."""
        if isinstance(message, types.JSONRPCRequest) and message.method == "initialize":
            self._initialize_ids.add(message.id)

    def outbound(self, message: Any) -> None:
        """Note the SDK's answer to ``initialize``: a handshake-era version opens the way."""
        if not self._initialize_ids or not isinstance(message, types.JSONRPCResponse):
            return
        if message.id not in self._initialize_ids:
            return
        self._initialize_ids.discard(message.id)
        version = message.result.get("protocolVersion")
        if isinstance(version, str) and version not in MODERN_PROTOCOL_VERSIONS:
            self.version = version

    async def answer(self, message: Any, writes: Writes) -> bool:
        """Answer ``message`` if it is a plain call on an initialized session; whether it was."""
        if self.version is None:
            return False
        call = plain_call(message, self._tools)
        if call is None:
            return False
        request_id, name, arguments = call
        answer: types.JSONRPCResponse | types.JSONRPCError
        try:
            result = self._result(self._toolset, name, arguments)
            # What the SDK's runner does with a handler's result on a handshake-era session
            # with no cache hints: dump it, then validate and sieve it for the version.
            dumped = result.model_dump(by_alias=True, mode="json", exclude_none=True)
            shaped = methods.serialize_server_result("tools/call", self.version, dumped)
            answer = types.JSONRPCResponse(jsonrpc="2.0", id=request_id, result=shaped)
        except MCPError as exc:
            answer = types.JSONRPCError(jsonrpc="2.0", id=request_id, error=exc.error)
        except ValidationError:
            # As the SDK answers a result its sieve refuses (the detail goes to the log only).
            logger.exception("tool %s returned an invalid result", name)
            error = types.ErrorData(
                code=types.INTERNAL_ERROR, message="Handler returned an invalid result"
            )
            answer = types.JSONRPCError(jsonrpc="2.0", id=request_id, error=error)
        await writes.send(SessionMessage(answer))
        return True
