"""Issue 42's MCP rows, both tools in turn: start-up, call p50 with a bare and an SDK client.

Not a test. Each side's server runs over stdio as its users start it (ours ``python -m
pmgs_mcp``, the earlier tool ``pmgs mcp``), with bytecode caching on. Rows:

* stdio start → initialized (bare JSON-lines client) and the floor, ``python -c "import
  mcp.server.lowlevel"`` with the side's interpreter;
* call p50 of a lookup, ``search_pmgs`` of the common phrase and of a 2-character word, over a
  bare JSON-lines client (the server's own cost plus the pipes) and over the SDK's ``Client``
  (which also validates each result against the tool's output schema); the two servers answer
  call by call in turn;
* each answer's size on the wire (the whole JSON-RPC response line), and a 20-segment document
  page's.

A side whose calls take seconds (the earlier tool's searches) is asked until its time budget
for the call is spent, at least once after the warm-up call. For a call of ours that misses
its goal, the server is run twice more under cProfile, once answering the call many times and
once answering it once; their difference per call is the profile the document shows.
"""

from __future__ import annotations

import json
import pstats
import statistics
import tempfile
import time
from contextlib import AsyncExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters

from benchmarks.mcp_roundtrip import percentile
from benchmarks.round_three import Server, floor_once, start_once
from benchmarks.versus_worker import profile_rows

CALL_GOALS_MS = {"lookup": 1.0, "search": 2.0, "search_2char": 2.0}
"""Issue 42's goals for a call's p50 over stdio with the bare client."""


@dataclass(frozen=True)
class Side:
    """One tool to measure: its interpreter, server command, store import and database."""

    name: str
    python: str
    server: list[str]
    store_import: str
    db: Path
    document_id: str
    env: dict[str, str]


def calls_of(side: Side, examples: dict[str, str]) -> dict[str, tuple[str, dict[str, Any]]]:
    return {
        "lookup": ("lookup_classification", {"scheme": "ipc", "code": "G06F3/048"}),
        "search": ("search_pmgs", {"query": examples["common_phrase"]}),
        "search_2char": ("search_pmgs", {"query": examples["two_char_word"]}),
        "document": (
            "get_pmgs_document",
            {"document_id": side.document_id, "segment_limit": 20},
        ),
    }


def starts(sides: list[Side], count: int) -> dict[str, dict[str, float]]:
    """Start → initialized and the import floor, medians, the sides in turn."""
    for side in sides:  # warm-up: fill the bytecode cache
        start_once(side.db, side.env, side.server)
    floors: dict[str, list[float]] = {side.name: [] for side in sides}
    started: dict[str, list[float]] = {side.name: [] for side in sides}
    for _ in range(count):
        for side in sides:
            floors[side.name].append(floor_once(side.python, side.env))
            started[side.name].append(start_once(side.db, side.env, side.server))
    return {
        side.name: {
            "floor_ms": statistics.median(floors[side.name]) * 1000,
            "start_ms": statistics.median(started[side.name]) * 1000,
        }
        for side in sides
    }


def bare_calls(
    sides: list[Side], examples: dict[str, str], calls: int, budget_s: float
) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, int]]]:
    """p50 (``mcp_<call>_ms``) and the answer's bytes (``<call>_bytes``) per side."""
    out: dict[str, dict[str, float]] = {side.name: {} for side in sides}
    counts: dict[str, dict[str, int]] = {side.name: {} for side in sides}
    servers = {side.name: Server(side.db, side.env, side.server) for side in sides}
    try:
        for server in servers.values():
            server.initialize()
        for key in calls_of(sides[0], examples):
            samples: dict[str, list[float]] = {name: [] for name in servers}
            for number in range(calls + 1):
                for side in sides:
                    if number > 1 and sum(samples[side.name][1:]) >= budget_s:
                        continue
                    tool, arguments = calls_of(side, examples)[key]
                    server = servers[side.name]
                    line = server.call_line(tool, arguments)
                    begun = time.perf_counter()
                    reply = server.send(line)
                    samples[side.name].append(time.perf_counter() - begun)
                    answer = json.loads(reply)
                    assert not answer["result"].get("isError"), (side.name, key, answer)
                    out[side.name][f"{key}_bytes"] = len(reply)
            for name, values in samples.items():
                if key != "document":
                    out[name][f"mcp_{key}_ms"] = percentile(values[1:], 0.5) * 1000
                    counts[name][f"mcp_{key}_ms"] = len(values) - 1
    finally:
        for server in servers.values():
            server.close()
    return out, counts


async def _sdk_calls(
    sides: list[Side], examples: dict[str, str], calls: int, budget_s: float
) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, int]]]:
    out: dict[str, dict[str, float]] = {side.name: {} for side in sides}
    counts: dict[str, dict[str, int]] = {side.name: {} for side in sides}
    async with AsyncExitStack() as stack:
        clients = {}
        for side in sides:
            params = StdioServerParameters(
                command=side.server[0], args=[*side.server[1:], "--db", str(side.db)], env=side.env
            )
            clients[side.name] = await stack.enter_async_context(
                Client(params, read_timeout_seconds=600)
            )
        for key in ("lookup", "search", "search_2char"):
            samples: dict[str, list[float]] = {side.name: [] for side in sides}
            for number in range(calls + 1):
                for side in sides:
                    if number > 1 and sum(samples[side.name][1:]) >= budget_s:
                        continue
                    tool, arguments = calls_of(side, examples)[key]
                    begun = time.perf_counter()
                    result = await clients[side.name].call_tool(tool, arguments)
                    samples[side.name].append(time.perf_counter() - begun)
                    assert not result.is_error, (side.name, key, result.content)
            for name, values in samples.items():
                out[name][f"mcp_sdk_{key}_ms"] = percentile(values[1:], 0.5) * 1000
                counts[name][f"mcp_sdk_{key}_ms"] = len(values) - 1
    return out, counts


def sdk_calls(
    sides: list[Side], examples: dict[str, str], calls: int, budget_s: float
) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, int]]]:
    """p50 per call over the SDK's stdio ``Client`` (``mcp_sdk_<call>_ms``), sides in turn."""
    result: tuple[dict[str, dict[str, float]], dict[str, dict[str, int]]] = anyio.run(
        _sdk_calls, sides, examples, calls, budget_s
    )
    return result


IDLE = ("asyncio/", "selectors.py", "'poll'", "uvicorn/", "anyio/", "threading.py", "exec>")
"""Functions of a server's event loop: their time in a profiled run is mostly waiting for the
client, which differs between two runs, so they are left out of a difference."""


def server_stats(side: Side, tool: str, arguments: dict[str, Any], answers: int) -> pstats.Stats:
    """Our server run under cProfile: started, initialized, ``answers`` calls, closed."""
    with tempfile.TemporaryDirectory(prefix="pmgs-versus-profile-") as scratch:
        output = Path(scratch) / "server.prof"
        command = [side.python, "-m", "cProfile", "-o", str(output), *side.server[1:]]
        server = Server(side.db, side.env, command)
        server.initialize()
        for _ in range(answers):
            answer = json.loads(server.send(server.call_line(tool, arguments)))
            assert not answer["result"].get("isError"), answer
        server.close()
        return pstats.Stats(str(output))


def difference(more: pstats.Stats, fewer: pstats.Stats, per: int) -> list[Any]:
    """Per function, the run that answered ``per`` more times minus the other, per answer:
    what the answers cost, with start-up's functions cancelled (up to noise)."""
    table: dict[Any, Any] = more.stats  # type: ignore[attr-defined]
    before: dict[Any, Any] = fewer.stats  # type: ignore[attr-defined]
    for key, (cc, nc, tt, ct, callers) in list(table.items()):
        b = before.get(key, (0, 0, 0.0, 0.0, {}))
        idle = any(part in str(key) for part in IDLE)
        table[key] = (cc - b[0], 0 if idle else nc - b[1], tt - b[2], ct - b[3], callers)
    return profile_rows(more, per, 8)


def profile_call(side: Side, tool: str, arguments: dict[str, Any], calls: int) -> list[Any]:
    """A server run that answers ``1 + calls`` times minus one that answers once: the
    functions of a warm call, by cumulative time per call."""
    more = server_stats(side, tool, arguments, 1 + calls)
    return difference(more, server_stats(side, tool, arguments, 1), calls)


def profiles(
    side: Side, examples: dict[str, str], figures: dict[str, float], calls: int
) -> dict[str, Any]:
    """The profile of each of our bare-client rows that misses its goal."""
    out: dict[str, Any] = {}
    for key, goal in CALL_GOALS_MS.items():
        measured = figures.get(f"mcp_{key}_ms")
        if measured is not None and measured > goal:
            tool, arguments = calls_of(side, examples)[key]
            out[f"mcp_{key}_ms"] = profile_call(side, tool, arguments, calls)
    return out
