"""Lines a stdio client sends that are not one valid JSON-RPC message (issue 17).

The SDK's stdio transport dropped such lines without an answer, so a client waited forever
for the id it had sent. Each is now answered with a JSON-RPC error and the server goes on
serving; the expected codes and ids below are written by hand from JSON-RPC 2.0 §5.1.
"""

from __future__ import annotations

import json
import subprocess
from typing import Any

import pytest
from pmgs_mcp_testkit import Reference, server_command

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": "init",
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "framing-test", "version": "1"},
    },
}

DEPENDS_ON_PARSER = 0


def _parse_code(line: bytes) -> int:
    try:
        json.loads(line)
    except (ValueError, RecursionError):
        return -32700
    return -32600


UNREADABLE: list[tuple[bytes, int, Any]] = [
    (b"not json at all", -32700, None),
    (b"\xff\xfe{garbage", -32700, None),
    (b'{"jsonrpc":"2.0","id":7,"method":"tools/call"', -32700, None),  # truncated frame
    (b'{"jsonrpc":"2.0","id":8,"method":"tools/call","params":"oops"}', -32600, 8),
    (b'{"jsonrpc":"2.0","id":"p","method":"tools/call","params":[]}', -32600, "p"),
    (b'[{"jsonrpc":"2.0","id":9,"method":"tools/list"}]', -32600, None),  # a batch
    (b'{"jsonrpc":"2.0","id":"s1","method":42}', -32600, "s1"),
    (b"42", -32600, None),
    # Nested 5,000 deep: Python 3.11/3.12 cannot parse it (-32700), 3.13 can, and then it is
    # JSON of the wrong shape (-32600). The expected code is what this interpreter can read.
    (b"[" * 5000 + b"]" * 5000, DEPENDS_ON_PARSER, None),
    (
        b'{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"search_pmgs",'
        b'"arguments":{"query":"\\ud800"}}}',
        -32600,
        10,
    ),
    # Ids MCP has no type for (JSON-RPC 2.0 §4 and MCP's RequestId: string or integer): the
    # SDK read these as notifications and never answered (issue 27); the id cannot be echoed.
    (b'{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}', -32600, None),
    (b'{"jsonrpc":"2.0","id":2.0,"method":"tools/list"}', -32600, None),
    (b'{"jsonrpc":"2.0","id":null,"method":"tools/list"}', -32600, None),
    (b'{"jsonrpc":"2.0","id":{},"method":"tools/list"}', -32600, None),
    (b'{"jsonrpc":"2.0","id":[],"method":"tools/list"}', -32600, None),
    (b'{"jsonrpc":"2.0","id":true,"method":"tools/list"}', -32600, None),
    (
        b'{"jsonrpc":"2.0","id":{"id":3},"method":"tools/call",'
        b'"params":{"name":"lookup_classification","arguments":{"scheme":"fi","code":"G"}}}',
        -32600,
        None,
    ),
]


def _exchange(reference: Reference, lines: list[bytes]) -> list[dict[str, Any]]:
    """Send ``lines`` after the handshake and a final lookup; every answer, in order."""
    lookup = {
        "jsonrpc": "2.0",
        "id": "last",
        "method": "tools/call",
        "params": {
            "name": "lookup_classification",
            "arguments": {"scheme": "fi", "code": reference.examples["fi_with_file_symbol"]},
        },
    }
    frames = [
        json.dumps(INITIALIZE).encode(),
        b'{"jsonrpc":"2.0","method":"notifications/initialized"}',
        *lines,
        json.dumps(lookup).encode(),
    ]
    process = subprocess.Popen(
        server_command("--db", str(reference.db)),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert process.stdin is not None
    assert process.stdout is not None
    process.stdin.write(b"\n".join(frames) + b"\n")
    process.stdin.flush()
    answers = []
    try:
        while True:
            line = process.stdout.readline()
            assert line, "the server closed stdout before answering the final lookup"
            answers.append(json.loads(line))
            if answers[-1].get("id") == "last":
                break
    finally:
        process.stdin.close()
        process.wait(timeout=30)
    assert process.returncode == 0
    return answers[1:]  # without the initialize result


@pytest.mark.parametrize(("line", "code", "request_id"), UNREADABLE)
def test_an_unreadable_line_is_answered_and_serving_goes_on(
    reference: Reference, line: bytes, code: int, request_id: Any
) -> None:
    error, last = _exchange(reference, [line])
    assert error == {"jsonrpc": "2.0", "id": request_id, "error": error["error"]}
    assert error["error"]["code"] == (_parse_code(line) if code == DEPENDS_ON_PARSER else code)
    assert "Traceback" not in error["error"]["message"]
    assert last["id"] == "last"
    assert "result" in last
    assert last["result"].get("isError") is not True
    assert last["result"]["structuredContent"]["match_status"] != "not_found"


def test_a_notification_without_id_is_not_answered(reference: Reference) -> None:
    """JSON-RPC 2.0 §4.1: no reply to a notification, even one naming a request method."""
    (last,) = _exchange(reference, [b'{"jsonrpc":"2.0","method":"tools/list"}'])
    assert last["id"] == "last"


def test_a_request_with_id_text_inside_its_params_is_served(reference: Reference) -> None:
    line = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 11,
            "method": "tools/call",
            "params": {
                "name": "search_pmgs",
                "arguments": {"query": '"id": 1.5', "content_types": ["classification"]},
            },
        }
    ).encode()
    answer, last = _exchange(reference, [line])
    assert answer["id"] == 11
    assert "result" in answer
    assert last["id"] == "last"


def test_a_request_line_over_a_megabyte_is_read_whole(reference: Reference) -> None:
    """The event loop reads stdin itself (ADR 0027): a line far over asyncio's default line
    limit (64 KiB) is one request, answered by its id; the tool refuses the long query with
    its own code rather than the transport dropping the line."""
    query = "電" * 400_000  # 1.2 MB as UTF-8
    line = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": "long",
            "method": "tools/call",
            "params": {"name": "search_pmgs", "arguments": {"query": query}},
        },
        ensure_ascii=False,
    ).encode()
    answer, last = _exchange(reference, [line])
    assert answer["id"] == "long"
    assert answer["result"]["isError"] is True
    assert json.loads(answer["result"]["content"][0]["text"])["error"]["code"].startswith("INVALID")
    assert last["id"] == "last"
