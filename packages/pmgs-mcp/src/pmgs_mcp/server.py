"""The MCP server object: the SDK's low-level ``Server`` serving a :class:`~pmgs_mcp.tools.ToolSet`.

The low-level server keeps pmgs-core's record schemas verbatim as output schemas and every
failure under our own error codes (ADRs 0010, 0011 as corrected by 0021). It holds no
per-connection state, so one ``Server`` serves stdio, every SSE stream and every HTTP request.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import stat
import sys
from collections.abc import AsyncIterator, Iterator
from typing import Any, BinaryIO

import anyio
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.lowlevel.server import NotificationOptions
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from pmgs_mcp.prompts import PROMPTS, get_prompt
from pmgs_mcp.resources import RESOURCE_TEMPLATES, read_resource
from pmgs_mcp.stdio_ids import InvalidRequestIdError, strict_request_ids
from pmgs_mcp.tools import SERVER_INSTRUCTIONS, ToolSet, UnknownToolError

__all__ = [
    "build_server",
    "call_result",
    "result_text",
    "run_stdio",
    "unreadable_message_error",
]

logger = logging.getLogger("pmgs_mcp")

SERVER_NAME = "pmgs"


def result_text(value: Any) -> str:
    """The text content of a result: the record or the error object as compact UTF-8 JSON.

    Clients that ignore ``structuredContent`` (and document-DB clients that parse
    ``content[0].text``) get exactly the same data; for an error the text is the only place
    the error object travels.
    """
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _sdk_tools(toolset: ToolSet) -> list[types.Tool]:
    tools = []
    for spec in toolset.specs:
        annotations = types.ToolAnnotations.model_validate(
            {"title": spec.title, **spec.annotations}
        )
        tools.append(
            types.Tool(
                name=spec.name,
                title=spec.title,
                description=spec.description,
                input_schema=spec.input_schema,
                output_schema=spec.output_schema,
                annotations=annotations,
            )
        )
    return tools


def call_result(toolset: ToolSet, name: str, arguments: Any) -> types.CallToolResult:
    """The result of one ``tools/call``: the SDK's handler returns it, and so does the stdio
    read loop's direct answer (:mod:`pmgs_mcp.direct_calls`), so both send the same."""
    try:
        outcome = toolset.call(name, arguments)
    except UnknownToolError:
        # Naming a tool the server never listed is a protocol error, not a tool error.
        known = ", ".join(spec.name for spec in toolset.specs)
        raise MCPError(
            code=types.INVALID_PARAMS,
            message=f"Unknown tool: {name!r}; this server lists: {known}",
        ) from None
    text = result_text(outcome.value) if outcome.text is None else outcome.text
    content: list[types.ContentBlock] = [types.TextContent(text=text)]
    if outcome.is_error:
        # No structured content: the error object does not match the tool's output
        # schema, and clients that validate (the TypeScript SDK, the Inspector) would
        # reject the whole result and never show the stable code (ADR 0010).
        return types.CallToolResult(content=content, is_error=True)
    return types.CallToolResult(content=content, structured_content=outcome.value)


def build_server(toolset: ToolSet, *, version: str) -> Server[Any]:
    """An SDK server that lists ``toolset`` and answers its calls."""
    listed = types.ListToolsResult(tools=_sdk_tools(toolset))
    input_schemas = {spec.name: spec.input_schema for spec in toolset.specs}

    async def list_tools(
        ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        # The list is fixed for the server's lifetime; one page holds every tool.
        return listed

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        return call_result(toolset, params.name, params.arguments)

    store = toolset.store
    templates = types.ListResourceTemplatesResult(resource_templates=RESOURCE_TEMPLATES)
    prompts = types.ListPromptsResult(prompts=PROMPTS)

    async def list_resources(
        ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        # Every resource is reached through a template: there is no fixed list to page.
        return types.ListResourcesResult(resources=[])

    async def list_resource_templates(
        ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        return templates

    async def read(ctx: Any, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        return read_resource(store, str(params.uri))

    async def list_prompts(
        ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        return prompts

    async def prompt(ctx: Any, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        return get_prompt(store, params.name, params.arguments)

    server: Server[Any] = Server(
        SERVER_NAME,
        version=version,
        title="pmgs: JPO PMGS classification reference",
        description="Read-only FI / F-term / IPC reference built from the JPO PMGS package",
        instructions=SERVER_INSTRUCTIONS,
        get_tool_input_schema=input_schemas.get,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_list_resource_templates=list_resource_templates,
        on_read_resource=read,
        on_list_prompts=list_prompts,
        on_get_prompt=prompt,
    )
    # The SDK opens a tracing span per message by default; nothing here exports traces, and
    # the span costs a share of every call (issue 33).
    server.middleware = []
    return server


def initialization_options(server: Server[Any]) -> Any:
    """Initialization options without change notifications: the tool list never changes."""
    return server.create_initialization_options(NotificationOptions())


def _request_id(value: Any) -> str | int | None:
    """The id of a request object, if it has one a response may carry (JSON-RPC 2.0 §5)."""
    if isinstance(value, dict):
        request_id = value.get("id")
        if isinstance(request_id, str | int) and not isinstance(request_id, bool):
            return request_id
    return None


def unreadable_message_error(exc: Exception) -> types.JSONRPCError:
    """The JSON-RPC error answering a stdio line the SDK could not read as a message.

    The SDK's stdio transport hands such a line over as an exception and its dispatcher
    drops it silently, so a client that sent a request with a wrong shape waited forever
    for its id (issue 17). Text that is not JSON is -32700 (parse error, id null); JSON
    that is not a valid message (wrong params type, a batch, a lone surrogate escape) is
    -32600 (invalid request) with the request's id when one can be read; a request whose id
    is no string or integer (:mod:`pmgs_mcp.stdio_ids`) is -32600 with id null. The message
    names no exception text.
    """
    if isinstance(exc, InvalidRequestIdError):
        error = types.ErrorData(
            code=types.INVALID_REQUEST,
            message="Invalid request: the id must be a string or an integer",
        )
        return types.JSONRPCError(jsonrpc="2.0", id=None, error=error)
    parsed: Any = None
    readable = False
    if isinstance(exc, ValidationError):
        details = exc.errors()
        if details and details[0].get("type") == "json_invalid":
            # Python's json reads what the SDK's strict parser refuses (lone surrogate
            # escapes): such a line is JSON, only not a valid message.
            with contextlib.suppress(ValueError, TypeError, RecursionError):
                parsed, readable = json.loads(details[0].get("input")), True
        else:
            # Parsed, but no message shape fits. Some error's input is the whole message
            # (a missing member is reported on it); others are inner values, such as params.
            readable = True
            whole = [d.get("input") for d in details if len(d.get("loc", ())) <= 2]
            parsed = next((v for v in whole if isinstance(v, dict) and "id" in v), None)
    if not readable:
        error = types.ErrorData(code=types.PARSE_ERROR, message="Parse error: the line is not JSON")
        return types.JSONRPCError(jsonrpc="2.0", id=None, error=error)
    error = types.ErrorData(
        code=types.INVALID_REQUEST,
        message="Invalid request: not a single JSON-RPC 2.0 message this server accepts",
    )
    return types.JSONRPCError(jsonrpc="2.0", id=_request_id(parsed), error=error)


class _DirectStdout:
    """The protocol's side of stdout, written in the event loop's own thread.

    The SDK's default hands every write and every flush to a worker thread, two thread
    switches per answer; one local client reads its pipe, so a direct write costs less and
    only waits while that client is not reading, when no answer could reach it anyway.
    """

    def __init__(self, raw: BinaryIO) -> None:
        self._raw = raw

    async def write(self, text: str) -> None:
        self._raw.write(text.encode("utf-8"))

    async def flush(self) -> None:
        self._raw.flush()

    def write_line(self, text: str) -> None:
        """One message and its newline, flushed, without leaving the caller's task."""
        self._raw.write(text.encode("utf-8") + b"\n")
        self._raw.flush()


class _PipeStdin:
    """Lines of a stdin pipe read by the event loop itself, not by a worker thread per line
    as the SDK's default reader does (one thread switch less per request)."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self._reader = reader

    def __aiter__(self) -> AsyncIterator[str]:
        return self

    async def __anext__(self) -> str:
        line = await self._reader.readline()
        if not line:
            raise StopAsyncIteration
        return line.decode("utf-8", errors="replace")  # as the SDK's reader decodes


_MAX_LINE = 1 << 40
"""No bound of our own on a request line (the SDK's reader has none either)."""


def _private_copies(command: int, fcntl: Any) -> tuple[int, int] | None:
    """Private copies (above fd 2, closed on exec) of a stdin pipe or socket and of stdout;
    None when stdin is neither (a file, a terminal) or a copy cannot be made."""
    try:
        mode = os.fstat(0).st_mode
        if not stat.S_ISFIFO(mode) and not stat.S_ISSOCK(mode):
            return None
        sys.stdout.flush()
        private_in = int(fcntl(0, command, 3))
    except (OSError, ValueError, AttributeError):
        return None
    try:
        return private_in, int(fcntl(1, command, 3))
    except OSError:
        os.close(private_in)
        return None


@contextlib.contextmanager
def _claimed_fds() -> Iterator[tuple[int, _DirectStdout] | None]:
    """Serve the protocol from private copies of fds 0 and 1, with fd 0 on the null device
    and fd 1 on stderr meanwhile (as the SDK does), so neither a stray ``print`` nor a child
    process can touch the stream. Yields the private stdin fd (a pipe or socket, else None
    is yielded) and the writer; None where descriptors cannot be moved so, and then the
    SDK's own reader and writer serve."""
    if sys.platform == "win32":  # pragma: no cover
        yield None
        return
    import fcntl

    privates = _private_copies(fcntl.F_DUPFD_CLOEXEC, fcntl.fcntl)
    if privates is None:
        yield None
        return
    private_in, private_out = privates
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
        os.dup2(2, 1)
        with os.fdopen(private_out, "wb", closefd=False) as raw:
            yield private_in, _DirectStdout(raw)
    finally:
        os.close(null)
        os.set_blocking(private_in, True)
        os.dup2(private_in, 0)
        os.dup2(private_out, 1)
        os.close(private_in)
        os.close(private_out)


async def _pipe_stdin(fd: int) -> _PipeStdin:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=_MAX_LINE, loop=loop)
    pipe = os.fdopen(fd, "rb", buffering=0, closefd=False)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader, loop=loop), pipe)
    return _PipeStdin(reader)


def run_stdio(server: Server[Any], toolset: ToolSet | None = None) -> None:
    """Serve one client over this process's stdin/stdout until it closes stdin.

    File descriptors 0 and 1 point elsewhere while serving (:func:`_claimed_fds`, or the SDK
    where that cannot be done), so a stray ``print`` anywhere cannot corrupt the protocol
    stream; our logs go to stderr. Every line the SDK
    cannot read as a message is answered (:func:`unreadable_message_error`) and serving
    goes on with the next line, as is a request with an id of another type than string or
    integer (:mod:`pmgs_mcp.stdio_ids`), which the SDK would read as a notification. With
    the ``toolset`` the server was built from, plain tool calls are answered in the read loop
    (:mod:`pmgs_mcp.direct_calls`) with the line the SDK would have written.
    """
    from mcp.server.stdio import stdio_server

    from pmgs_mcp.direct_calls import DirectCalls, Writes, sdk_dispatch_only

    async def serve(claimed: tuple[int, _DirectStdout] | None) -> None:
        stdin = None if claimed is None else await _pipe_stdin(claimed[0])
        stdout = None if claimed is None else claimed[1]
        async with stdio_server(stdin, stdout) as (read_stream, write_stream):  # type: ignore[arg-type]
            send_valid, receive_valid = anyio.create_memory_object_stream[
                SessionMessage | Exception
            ](0)
            # Direct answers repeat the SDK's pipeline for a server without middleware or
            # cache hints (build_server's); any other server keeps the SDK's.
            direct = None
            sdk_only = sdk_dispatch_only()
            if toolset is not None and not (sdk_only or server.middleware or server.cache_hints):
                direct = DirectCalls(toolset, call_result)
            writes = Writes(
                write_stream,
                None if stdout is None or sdk_only else stdout.write_line,
                (lambda message: None) if direct is None else direct.outbound,
            )

            async def forward() -> None:
                async with send_valid:
                    async for item in read_stream:
                        if isinstance(item, Exception):
                            logger.warning("unreadable stdio line answered with an error")
                            await writes.send(SessionMessage(unreadable_message_error(item)))
                        elif direct is not None and await direct.answer(item.message, writes):
                            continue
                        else:
                            if direct is not None:
                                direct.inbound(item.message)
                            await send_valid.send(item)

            async with anyio.create_task_group() as tasks:
                tasks.start_soon(forward)
                await server.run(receive_valid, writes, initialization_options(server))

    with strict_request_ids(), _claimed_fds() as claimed:
        anyio.run(serve, claimed)
