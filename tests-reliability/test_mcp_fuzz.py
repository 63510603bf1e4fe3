"""Fuzz the MCP server over stdio and streamable HTTP with generated requests (issue 17).

Frames come from :mod:`mcp_fuzz`: tool calls whose arguments are generated from each tool's
own input schema (as ``tools/list`` returned it), mostly spoiled on purpose, and malformed
JSON-RPC. Both transports get the same number of frames (``SERVER_PROFILES``: 700 each in
the short profile, 5,200 each in the long one). For every answer:

* the server is still running (it never dies) and answers within a bound;
* no traceback text anywhere in the answer;
* an answer is a JSON-RPC result or error (HTTP: or the guards' coded error object, with a
  4xx status; never a 5xx); a frame carrying a readable request id is answered under it;
* a failed tool call is a tool error (``isError``) whose text is ``{"error": {"code"}}``
  with a code of ``pmgs_core.ERROR_CODES`` about the request, never ``DATABASE_ERROR``
  (the database is intact, so that would be input reaching SQL unchecked); a successful
  one carries structured content equal to its text;
* afterwards a normal lookup is answered with its record, and the database's bytes are
  unchanged.
"""

from __future__ import annotations

import json
import random
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx2
import pytest

from pmgs_core import ERROR_CODES
from pmgs_mcp.answer_text import answer_text

sys.path.insert(0, str(Path(__file__).parent))

from mcp_fuzz import Frame, FrameGenerator
from mcp_servers import (
    SERVER_PROFILES,
    Database,
    build_sample,
    check_lookup_answer,
    start_http,
    start_stdio,
    tool_message,
)
from pmgs_testkit.kit import file_sha256

TRACEBACK_MARKERS = ("Traceback (most recent call last)", 'File "/', '.py", line ')
NOT_ABOUT_THE_REQUEST = frozenset(
    {
        "DATABASE_ERROR",
        "STORE_CLOSED",
        "DATABASE_NOT_FOUND",
        "DATABASE_INVALID",
        "INVALID_POINTER",
        "POINTER_MISMATCH",
        "UNSUPPORTED_SCHEMA_VERSION",
    }
)
REQUEST_CODES = frozenset(ERROR_CODES) - NOT_ABOUT_THE_REQUEST
GUARD_CODES = frozenset(
    {
        "INVALID_HOST",
        "INVALID_ORIGIN",
        "UNAUTHORIZED",
        "REQUEST_TOO_LARGE",
        "BAD_REQUEST",
        "METHOD_NOT_ALLOWED",
        "REQUEST_TIMEOUT",
    }
)


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> Database:
    return build_sample(tmp_path_factory.mktemp("fuzz-db"), scale=0.001)


def _no_traceback(answer: Any) -> None:
    text = json.dumps(answer, ensure_ascii=False)
    for marker in TRACEBACK_MARKERS:
        assert marker not in text, f"traceback text in an answer: {text[:2000]}"


def check_answer(frame: Frame, answer: Any, outcomes: Counter[str]) -> None:
    """One JSON-RPC answer to ``frame``: its shape, its codes, no traceback."""
    _no_traceback(answer)
    assert isinstance(answer, dict), answer
    assert answer.get("jsonrpc") == "2.0", answer
    if "error" in answer:
        error = answer["error"]
        assert isinstance(error.get("code"), int), answer
        assert isinstance(error.get("message"), str), answer
        assert -32768 <= error["code"] <= -32000, answer
        outcomes[f"jsonrpc-error {error['code']}"] += 1
        return
    result = answer.get("result")
    assert isinstance(result, dict), answer
    if frame.tool is None or not isinstance(result.get("content"), list):
        outcomes["result"] += 1
        return
    text = result["content"][0]["text"]
    if result.get("isError"):
        assert "structuredContent" not in result, result
        code = json.loads(text)["error"]["code"]
        assert code in REQUEST_CODES, f"{frame.tool}: {code} for {frame.raw[:500]!r}"
        outcomes[f"tool-error {code}"] += 1
    else:
        structured = result["structuredContent"]
        if "files" in structured:  # a concise answer: its text is the line rendering
            assert text == answer_text(structured), frame.raw[:500]
        else:
            assert json.loads(text) == structured, frame.raw[:500]
        outcomes["tool-result"] += 1


def _generator(seed: int, tools: list[dict[str, Any]], database: Database) -> FrameGenerator:
    return FrameGenerator(random.Random(seed), tools, database.seeds)


def test_fuzz_stdio(database: Database, tmp_path: Path, figures: Any) -> None:
    count = SERVER_PROFILES[figures.profile]["fuzz_frames"]
    before = file_sha256(database.path)
    server = start_stdio(database, tmp_path, "--tools", "all")
    started = time.monotonic()
    outcomes: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    current: Frame | None = None
    try:
        tools = server.call({"jsonrpc": "2.0", "id": "list", "method": "tools/list"})
        listed = tools["result"]["tools"]
        for number, frame in enumerate(_generator(figures.seed, listed, database).frames(count)):
            kinds[frame.kind] += 1
            current = frame
            server.send(frame.raw)
            if frame.expects_answer:
                assert frame.answer_id is not None
                answer, others = server.read_until(frame.answer_id)
            else:
                # Nothing to wait for under the frame's id: a ping behind it shows when the
                # server has dealt with it; anything answered meanwhile is checked too.
                sentinel = f"sentinel-{number}"
                server.send(
                    json.dumps({"jsonrpc": "2.0", "id": sentinel, "method": "ping"}).encode()
                )
                answer, others = server.read_until(sentinel)
                outcomes["no-answer-expected"] += 1
            for other in others:
                check_answer(Frame(frame.raw, frame.kind), other, outcomes)
            check_answer(frame if frame.expects_answer else Frame(b"", "ping"), answer, outcomes)
            assert server.process.poll() is None, server.stderr()[-3000:]
        current = None
        code = database.examples["fi_with_file_symbol"]
        last = server.call(
            tool_message("last", "lookup_classification", {"scheme": "fi", "code": code})
        )
        check_lookup_answer(last, code)
    except (TimeoutError, EOFError, AssertionError) as exc:
        raise AssertionError(f"{exc}\nlast frame sent: {current!r}") from exc
    finally:
        returncode = server.close()
    assert returncode == 0, server.stderr()[-3000:]
    assert file_sha256(database.path) == before
    figures.sections["mcp fuzz stdio"] = {
        "frames": count,
        "seconds": round(time.monotonic() - started, 1),
        "kinds": dict(sorted(kinds.items())),
        "outcomes": dict(sorted(outcomes.items())),
        "server exit code": returncode,
        "database sha256 unchanged": True,
    }


def check_http_answer(frame: Frame, response: httpx2.Response, outcomes: Counter[str]) -> None:
    """One HTTP answer: never 5xx; a JSON-RPC answer, a coded guard error or nothing."""
    assert response.status_code < 500, f"{response.status_code} for {frame.raw[:500]!r}"
    outcomes[f"http {response.status_code}"] += 1
    if not response.content:
        assert response.status_code in (202, 204), response.status_code
        return
    body = response.json()
    _no_traceback(body)
    if isinstance(body, dict) and "jsonrpc" not in body:
        assert body["error"]["code"] in GUARD_CODES, body
        assert response.status_code >= 400, response.status_code
        outcomes[f"guard-error {body['error']['code']}"] += 1
        return
    for answer in body if isinstance(body, list) else [body]:
        if frame.expects_answer and answer.get("id") is not None:
            assert answer["id"] == frame.answer_id, (answer, frame.raw[:500])
        check_answer(frame, answer, outcomes)


def test_fuzz_streamable_http(database: Database, tmp_path: Path, figures: Any) -> None:
    count = SERVER_PROFILES[figures.profile]["fuzz_frames"]
    before = file_sha256(database.path)
    server = start_http(database, tmp_path, "--tools", "all")
    started = time.monotonic()
    outcomes: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    current: Frame | None = None
    try:
        with httpx2.Client(base_url=server.base_url, headers=server.headers, timeout=60) as client:
            listed = client.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
            tools = listed.json()["result"]["tools"]
            generator = _generator(figures.seed + 1, tools, database)
            for frame in generator.frames(count):
                kinds[frame.kind] += 1
                current = frame
                check_http_answer(frame, client.post("/mcp", content=frame.raw), outcomes)
                assert server.alive(), server.stderr()[-3000:]
            current = None
            code = database.examples["fi_with_file_symbol"]
            arguments = {"scheme": "fi", "code": code}
            last = client.post("/mcp", json=tool_message(2, "lookup_classification", arguments))
            check_lookup_answer(last.json(), code)
    except (httpx2.TransportError, AssertionError) as exc:
        raise AssertionError(f"{exc}\nlast frame sent: {current!r}") from exc
    finally:
        alive = server.alive()
        server.stop()
    assert alive, server.stderr()[-3000:]
    assert "Traceback" not in server.stderr(), server.stderr()[-3000:]
    assert file_sha256(database.path) == before
    figures.sections["mcp fuzz streamable HTTP"] = {
        "frames": count,
        "seconds": round(time.monotonic() - started, 1),
        "kinds": dict(sorted(kinds.items())),
        "outcomes": dict(sorted(outcomes.items())),
        "database sha256 unchanged": True,
    }
