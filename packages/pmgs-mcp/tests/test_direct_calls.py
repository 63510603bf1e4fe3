"""Plain stdio tool calls answered in the read loop send the line the SDK would have sent.

The oracle is the server's answer path before issue 42, in the same tree on the same
database: ``PMGS_MCP_SDK_DISPATCH=1`` sends every message through the SDK's dispatcher and
its writer task (ADR 0038). One script of requests (calls of every tool, full and concise,
errors, string and large ids, calls the read loop must leave to the SDK) is sent to both
servers as real subprocesses; every answer line must be byte for byte the same.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest
from mcp import types
from mcp.shared.message import SessionMessage
from pmgs_mcp_testkit import Reference, server_command

from pmgs_mcp.direct_calls import ENV_SDK_DISPATCH, DirectCalls, Writes, plain_call
from pmgs_mcp.server import call_result
from pmgs_mcp.tools import ToolSet


def _initialize(version: str) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": "init",
        "method": "initialize",
        "params": {
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": "direct-calls-test", "version": "1"},
        },
    }


def _calls(reference: Reference) -> Iterator[tuple[str, dict[str, Any]]]:
    """(tool, arguments) of the script: every tool, full and concise, answers and errors."""
    examples = reference.examples
    fi_code = examples["fi_with_file_symbol"]
    yield "lookup_classification", {"scheme": "fi", "code": fi_code}
    yield "lookup_classification", {"scheme": "fi", "code": fi_code, "detail": "full"}
    yield "lookup_classification", {"scheme": "fterm", "code": examples["fterm_large_theme"]}
    yield "lookup_classification", {"scheme": "ipc", "code": "A01B1/00"}
    yield "lookup_classification", {"scheme": "fi", "code": "Z99Z99/99"}  # not found
    yield "lookup_classification", {"scheme": "nope", "code": "A01B"}  # a tool error
    yield "lookup_classification", {"scheme": "fi"}  # a missing argument
    for query in (examples["common_phrase"], examples["two_char_word"], "A01B", "zzzzqqq"):
        yield "search_pmgs", {"query": query}
    yield "search_pmgs", {"query": examples["common_phrase"], "detail": "full", "limit": 3}
    yield "search_pmgs", {"query": examples["common_phrase"], "match": "any"}
    yield "search_pmgs", {"query": "", "limit": 0}  # errors
    yield "get_pmgs_document", {"document_id": "judge"}
    yield "get_pmgs_document", {"document_id": examples["injected_instruction_document"]}
    yield (
        "get_pmgs_document",
        {
            "document_id": examples["injected_instruction_document"],
            "detail": "full",
            "segment_limit": 2,
        },
    )
    yield "release_info", {}
    yield "list_documents", {"limit": 3, "page": 2}
    yield "list_categories", {}
    yield "get_document_count", {}
    yield "search_text", {"content": examples["common_phrase"], "limit": 3}
    yield "check_classification_codes", {"formula": f"{fi_code}+Z99Z99/99"}


def _script(reference: Reference, version: str) -> list[bytes]:
    lines: list[dict[str, Any]] = [
        # answered before the handshake: the SDK's refusal, on both paths
        {"jsonrpc": "2.0", "id": "early", "method": "tools/call", "params": {"name": "x"}},
        _initialize(version),
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": "list", "method": "tools/list"},
    ]
    for number, (tool, arguments) in enumerate(_calls(reference)):
        request_id: str | int = number if number % 2 else f"call-{number}"
        params = {"name": tool, "arguments": arguments}
        lines.append({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params})
    lookup = {"scheme": "fi", "code": reference.examples["fi_with_file_symbol"]}
    lines += [
        # left to the SDK: _meta, no arguments, arguments of the wrong type, unknown tool
        {
            "jsonrpc": "2.0",
            "id": "meta",
            "method": "tools/call",
            "params": {"name": "lookup_classification", "arguments": lookup, "_meta": {}},
        },
        {
            "jsonrpc": "2.0",
            "id": "bare",
            "method": "tools/call",
            "params": {"name": "release_info"},
        },
        {
            "jsonrpc": "2.0",
            "id": "list-arguments",
            "method": "tools/call",
            "params": {"name": "release_info", "arguments": []},
        },
        {"jsonrpc": "2.0", "id": "unknown", "method": "tools/call", "params": {"name": "nope"}},
        {
            "jsonrpc": "2.0",
            "id": 2**53 + 1,
            "method": "tools/call",
            "params": {"name": "lookup_classification", "arguments": lookup},
        },
        {"jsonrpc": "2.0", "id": "last", "method": "ping"},
    ]
    return [json.dumps(line, ensure_ascii=False).encode() for line in lines]


def _session(reference: Reference, script: list[bytes], *, sdk_only: bool) -> dict[Any, bytes]:
    """Every answer line of one stdio session, by request id (answers may come in any
    order: the SDK answers requests concurrently)."""
    env = {k: v for k, v in os.environ.items() if k != ENV_SDK_DISPATCH}
    if sdk_only:
        env[ENV_SDK_DISPATCH] = "1"
    process = subprocess.Popen(
        server_command("--db", str(reference.db), "--tools", "all"),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    assert process.stdin is not None
    assert process.stdout is not None
    answers: dict[Any, bytes] = {}
    try:
        for line in script:  # one at a time: the handshake must be answered first
            process.stdin.write(line + b"\n")
            process.stdin.flush()
            if b'"id"' in line:
                answer = process.stdout.readline()
                assert answer, "the server closed stdout"
                answers[json.dumps(json.loads(answer)["id"])] = answer
    finally:
        process.stdin.close()
        process.wait(timeout=30)
    assert process.returncode == 0
    return answers


@pytest.mark.parametrize("version", ["2025-11-25", "2025-06-18", "2025-03-26"])
def test_direct_answers_are_the_sdk_answers_byte_for_byte(
    reference: Reference, version: str
) -> None:
    script = _script(reference, version)
    direct = _session(reference, script, sdk_only=False)
    oracle = _session(reference, script, sdk_only=True)
    assert direct.keys() == oracle.keys()
    assert len(direct) == sum(b'"id"' in line for line in script)
    for key, line in oracle.items():
        assert direct[key] == line, key
    # the script reached the tools: answers, tool errors and the SDK's own errors
    results = [json.loads(line) for line in oracle.values()]
    assert sum("structuredContent" in r.get("result", {}) for r in results) >= 15
    assert sum(r.get("result", {}).get("isError") is True for r in results) >= 3
    assert sum("error" in r for r in results) >= 3


# --- which calls the read loop answers (in process) -----------------------------------------


class _Recorder:
    """What a :class:`Writes` without a line writer hands on: the SDK stream's side."""

    def __init__(self) -> None:
        self.sent: list[Any] = []

    async def send(self, item: SessionMessage) -> None:
        self.sent.append(item.message)

    async def aclose(self) -> None:
        pass


def _request(request_id: Any, method: str, params: Any) -> types.JSONRPCRequest:
    return types.JSONRPCRequest(jsonrpc="2.0", id=request_id, method=method, params=params)


def _initialize_answer(version: str) -> types.JSONRPCResponse:
    return types.JSONRPCResponse(jsonrpc="2.0", id="init", result={"protocolVersion": version})


def test_the_read_loop_answers_plain_calls_only_after_a_handshake_era_initialize(
    toolset: ToolSet,
) -> None:
    import anyio

    calls = DirectCalls(toolset, call_result)
    recorder = _Recorder()
    writes = Writes(recorder, None, calls.outbound)
    lookup = _request(1, "tools/call", {"name": "lookup_classification", "arguments": {}})

    async def run() -> list[bool]:
        answered = [await calls.answer(lookup, writes)]  # before the handshake
        calls.inbound(_request("init", "initialize", {}))
        await writes.send(SessionMessage(_initialize_answer("2026-07-28")))
        answered.append(await calls.answer(lookup, writes))  # per-request era
        calls.inbound(_request("init", "initialize", {}))
        await writes.send(SessionMessage(_initialize_answer("2025-11-25")))
        answered.append(await calls.answer(lookup, writes))
        return answered

    assert anyio.run(run) == [False, False, True]
    answer = recorder.sent[-1]
    assert isinstance(answer, types.JSONRPCResponse)
    assert answer.id == 1
    assert answer.result["isError"] is True  # the missing arguments, as a tool error


@pytest.mark.parametrize(
    "params",
    [
        {"name": "lookup_classification", "arguments": {}, "_meta": {"progressToken": 1}},
        {"name": "lookup_classification", "arguments": []},
        {"name": "lookup_classification", "arguments": {}, "task": {}},
        {"name": "unknown_tool", "arguments": {}},
        {"name": 3},
        None,
    ],
)
def test_calls_of_another_shape_are_left_to_the_sdk(toolset: ToolSet, params: Any) -> None:
    names = frozenset(spec.name for spec in toolset.specs)
    assert plain_call(_request(1, "tools/call", params), names) is None
    plain = {"name": "lookup_classification", "arguments": {}}
    assert plain_call(_request(1, "tools/list", plain), names) is None
    assert plain_call(_request(1, "tools/call", plain), names) == (1, "lookup_classification", {})


@pytest.fixture
def toolset(reference: Reference) -> Iterator[ToolSet]:
    from pmgs_mcp.app import build_tools, open_store

    store = open_store(str(reference.db), None)
    try:
        yield build_tools(store, include_browse=False)
    finally:
        store.close()


def _answer_with(toolset: ToolSet, result: Any) -> Any:
    """The message the read loop writes for one plain call whose result function is
    ``result`` (on a 2025-11-25 session)."""
    import anyio

    calls = DirectCalls(toolset, result)
    recorder = _Recorder()
    writes = Writes(recorder, None, calls.outbound)
    lookup = _request(7, "tools/call", {"name": "lookup_classification", "arguments": {}})

    async def run() -> bool:
        calls.inbound(_request("init", "initialize", {}))
        await writes.send(SessionMessage(_initialize_answer("2025-11-25")))
        return await calls.answer(lookup, writes)

    assert anyio.run(run)
    return recorder.sent[-1]


@pytest.mark.filterwarnings("ignore:Pydantic serializer warnings")
def test_a_result_the_sdk_would_refuse_is_answered_as_the_sdk_answers_it(
    toolset: ToolSet,
) -> None:
    def invalid(*args: Any) -> types.CallToolResult:
        return types.CallToolResult.model_construct(content=[{"type": "no-such-block"}])

    answer = _answer_with(toolset, invalid)
    assert isinstance(answer, types.JSONRPCError)
    assert answer.id == 7
    assert answer.error.code == -32603
    assert answer.error.message == "Handler returned an invalid result"


def test_a_protocol_error_of_the_call_is_answered_as_an_error(toolset: ToolSet) -> None:
    from mcp.shared.exceptions import MCPError

    def refused(*args: Any) -> types.CallToolResult:
        raise MCPError(code=-32602, message="Unknown tool")

    answer = _answer_with(toolset, refused)
    assert isinstance(answer, types.JSONRPCError)
    assert (answer.id, answer.error.code, answer.error.message) == (7, -32602, "Unknown tool")
