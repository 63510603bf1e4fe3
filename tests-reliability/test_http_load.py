"""Concurrent HTTP clients against one ``pmgs mcp --transport http`` server (issue 17).

``load_clients`` clients (10 in the short profile, 50 in the long one) each send requests
back to back for ``load_seconds`` (10 s / 60 s), every request a streamable-HTTP
``tools/call`` drawn from a fixed mix: lookups of codes the package holds, searches for
words it holds, and pages of its documents. Every answer must be HTTP 200 with a tool result
(not a tool error): zero errors is the assertion. Throughput, p50/p99 latency and the
server's RSS at start and end are reported as figures, never asserted (the machine is
shared; docs/reliability.md records them with the machine and date).

The long profile serves a database generated at scale 0.1 (``load_scale``); the short one
the small sample.
"""

from __future__ import annotations

import asyncio
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx2
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from mcp_servers import (
    SERVER_PROFILES,
    Database,
    build_sample,
    rss_kib,
    start_http,
    tool_message,
)
from pmgs_testkit.kit import file_sha256

MIX = (("lookup", 0.45), ("search", 0.35), ("document", 0.20))


@pytest.fixture(scope="module")
def load_database(tmp_path_factory: pytest.TempPathFactory, figures: Any) -> Database:
    scale = SERVER_PROFILES[figures.profile]["load_scale"]
    return build_sample(tmp_path_factory.mktemp("load-db"), scale=scale)


def _workload(client: httpx2.Client, database: Database) -> dict[str, list[dict[str, Any]]]:
    """Argument sets per request kind, all of which the database answers with a record."""
    ex = database.examples
    lookups = [
        {"scheme": "fi", "code": ex["fi_with_file_symbol"]},
        {"scheme": "fi", "code": ex["fi_handbook_multiline"]},
        {"scheme": "fi", "code": ex["fi_with_development_code"]},
        {"scheme": "fterm", "code": ex["fterm_term"]},
        {"scheme": "fterm", "code": ex["fterm_large_theme"]},
        {"scheme": "ipc", "code": ex["ipc_two_versions_old_expired"]},
        {"scheme": "ipc", "code": "G06F3/041"},
    ]
    searches = [
        {"query": ex["two_char_word"]},
        {"query": ex["common_phrase"]},
        {"query": "制御", "schemes": ["fi"]},
        {"query": ex["two_char_word"], "content_types": ["document"], "limit": 5},
        {"query": "装置", "limit": 50},
    ]
    listed = client.post("/mcp", json=tool_message(0, "list_documents", {"limit": 100})).json()[
        "result"
    ]["structuredContent"]["items"]
    ids = [item["document_id"] for item in listed][:20] or [ex["injected_instruction_document"]]
    documents = [{"document_id": i, "segment_limit": 20} for i in ids]
    documents.append({"document_id": ex["injected_instruction_document"], "segment_offset": 200})
    return {"lookup": lookups, "search": searches, "document": documents}


async def _client(
    base_url: str,
    headers: dict[str, str],
    work: dict[str, list[dict[str, Any]]],
    until: float,
    rng: random.Random,
    latencies: list[float],
    errors: Counter[str],
    counts: Counter[str],
) -> None:
    tools = {
        "lookup": "lookup_classification",
        "search": "search_pmgs",
        "document": "get_pmgs_document",
    }
    kinds = [k for k, _ in MIX]
    weights = [w for _, w in MIX]
    async with httpx2.AsyncClient(base_url=base_url, headers=headers, timeout=60) as client:
        number = 0
        while time.monotonic() < until:
            number += 1
            kind = rng.choices(kinds, weights)[0]
            arguments = rng.choice(work[kind])
            started = time.monotonic()
            try:
                response = await client.post(
                    "/mcp", json=tool_message(number, tools[kind], arguments)
                )
            except httpx2.TransportError as exc:
                errors[f"transport {type(exc).__name__}"] += 1
                continue
            latencies.append(time.monotonic() - started)
            counts[kind] += 1
            if response.status_code != 200:
                errors[f"http {response.status_code}"] += 1
                continue
            result = response.json().get("result", {})
            if result.get("isError") or "structuredContent" not in result:
                errors[f"{kind}: {str(result)[:200]}"] += 1


def test_concurrent_clients_are_all_served(
    load_database: Database, tmp_path: Path, figures: Any
) -> None:
    sizes = SERVER_PROFILES[figures.profile]
    clients, seconds = int(sizes["load_clients"]), float(sizes["load_seconds"])
    before = file_sha256(load_database.path)
    server = start_http(load_database, tmp_path, "--tools", "all")
    try:
        with httpx2.Client(base_url=server.base_url, headers=server.headers, timeout=60) as c:
            work = _workload(c, load_database)
        rss_start = rss_kib(server.process.pid)
        latencies: list[float] = []
        errors: Counter[str] = Counter()
        counts: Counter[str] = Counter()
        started = time.monotonic()

        async def run_all() -> None:
            until = time.monotonic() + seconds
            await asyncio.gather(
                *(
                    _client(
                        server.base_url,
                        server.headers,
                        work,
                        until,
                        random.Random(figures.seed + i),
                        latencies,
                        errors,
                        counts,
                    )
                    for i in range(clients)
                )
            )

        asyncio.run(run_all())
        elapsed = time.monotonic() - started
        rss_end = rss_kib(server.process.pid)
        alive = server.alive()
    finally:
        server.stop()
    assert alive, server.stderr()[-3000:]
    assert not errors, dict(errors)
    assert file_sha256(load_database.path) == before
    ordered = sorted(latencies)
    figures.sections["http load"] = {
        "clients": clients,
        "seconds": round(elapsed, 1),
        "database scale": load_database.scale,
        "database MB": round(load_database.path.stat().st_size / 1e6, 1),
        "requests": len(latencies),
        "by kind": dict(sorted(counts.items())),
        "errors": 0,
        "requests per second": round(len(latencies) / elapsed, 1),
        "p50 ms": round(statistics.median(ordered) * 1000, 1),
        "p99 ms": round(ordered[int(0.99 * (len(ordered) - 1))] * 1000, 1),
        "max ms": round(ordered[-1] * 1000, 1),
        "server RSS start MiB": round(rss_start / 1024, 1),
        "server RSS end MiB": round(rss_end / 1024, 1),
    }
