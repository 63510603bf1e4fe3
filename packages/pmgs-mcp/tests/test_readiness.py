"""Probes and the SSE rule against real servers: what an orchestrator and a client meet.

The expected hashes are computed here with hashlib (the shared kit's ``file_sha256``), not
by pmgs; the release id comes from the database's ``release`` table read with plain SQL.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from pmgs_mcp_testkit import (
    HttpServer,
    Reference,
    server_command,
    start_http_server,
    stop_http_server,
)

from pmgs_core.datadir import CurrentPointer, content_addressed_path, write_current_pointer
from pmgs_testkit.kit import file_sha256

WRONG_SHA = "0" * 64


def release_row(path: Path) -> tuple[str, str]:
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
        release_id, source = conn.execute(
            "SELECT release_id, source_manifest_sha256 FROM release"
        ).fetchone()
    return str(release_id), str(source)


def probe(server: HttpServer, path: str, **headers: str) -> httpx2.Response:
    return httpx2.get(f"{server.base_url}{path}", headers=headers, timeout=10.0)


@pytest.fixture
def served(request: pytest.FixtureRequest) -> Iterator[list[HttpServer]]:
    started: list[HttpServer] = []
    yield started
    for server in started:
        stop_http_server(server)


def test_probes_report_release_and_hash(reference: Reference, token_server: HttpServer) -> None:
    release_id, _ = release_row(reference.db)
    digest = file_sha256(reference.db)
    for path, status in (("/health", "ok"), ("/ready", "ready")):
        # No token, no Host the allow-list knows: as HAProxy and Kubernetes probe.
        response = probe(token_server, path, Host="10.1.2.3:8080")
        assert response.status_code == 200, response.text
        assert response.json() == {
            "status": status,
            "release_id": release_id,
            "database_sha256": digest,
        }
        assert response.headers["cache-control"] == "no-store"
    # The MCP endpoint keeps its guards.
    assert probe(token_server, "/release", Host="10.1.2.3:8080").status_code == 421
    assert probe(token_server, "/release").status_code == 401


def _data_dir(root: Path, reference: Reference, database_sha256: str) -> Path:
    """A data directory whose pointer names a copy of the reference as ``database_sha256``."""
    release_id, source = release_row(reference.db)
    relative = content_addressed_path(release_id, source, database_sha256)
    (root / relative).parent.mkdir(parents=True)
    shutil.copyfile(reference.db, root / relative)
    with sqlite3.connect(f"file:{reference.db}?mode=ro", uri=True) as conn:
        version = conn.execute("SELECT value FROM metadata WHERE key = 'schema_version'").fetchone()
    pointer = CurrentPointer(relative, release_id, source, database_sha256, int(version[0]))
    write_current_pointer(root, pointer)
    return root


def _assert_mismatch(server: HttpServer, expected: str) -> None:
    response = probe(server, "/ready")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "error"
    assert body["error"]["code"] == "DATABASE_HASH_MISMATCH"
    assert body["expected_sha256"] == expected
    # Liveness stays green: restarting would not change the file.
    assert probe(server, "/health").status_code == 200


def _wait_verified(server: HttpServer) -> None:
    for _ in range(600):
        if probe(server, "/ready").json()["status"] != "starting":
            return
        time.sleep(0.1)
    raise AssertionError("verification never ended")


def test_pointer_hash_is_verified(
    reference: Reference, tmp_path: Path, served: list[HttpServer]
) -> None:
    digest = file_sha256(reference.db)
    good = _data_dir(tmp_path / "good", reference, digest)
    bad = _data_dir(tmp_path / "bad", reference, WRONG_SHA)
    server = start_http_server(reference, tmp_path, "--data-dir", str(good))
    served.append(server)
    assert probe(server, "/ready").json()["database_sha256"] == digest
    server = start_http_server(reference, tmp_path, "--data-dir", str(bad), wait_for="/health")
    served.append(server)
    _wait_verified(server)
    _assert_mismatch(server, WRONG_SHA)


def test_content_addressed_name_and_explicit_hash_are_verified(
    reference: Reference, tmp_path: Path, served: list[HttpServer]
) -> None:
    named = tmp_path / f"{WRONG_SHA}.sqlite"
    shutil.copyfile(reference.db, named)
    server = start_http_server(reference, tmp_path, db=named, wait_for="/health")
    served.append(server)
    _wait_verified(server)
    _assert_mismatch(server, WRONG_SHA)

    wrong = "f" * 64
    server = start_http_server(
        reference, tmp_path, "--expect-sha256", wrong.upper(), wait_for="/health"
    )
    served.append(server)
    _wait_verified(server)
    _assert_mismatch(server, wrong)


def test_expect_sha256_must_be_a_hash(reference: Reference) -> None:
    result = subprocess.run(
        server_command("--transport", "http", "--db", str(reference.db), "--expect-sha256", "abc"),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 2
    assert "--expect-sha256 must be 64 hexadecimal digits" in result.stderr


async def _sessions(server: HttpServer, count: int, code: str) -> list[str]:
    """``count`` official-client sessions, each listing tools and looking up ``code``."""
    titles: list[str] = []
    for _ in range(count):
        async with httpx2.AsyncClient(timeout=30.0) as http:
            target = streamable_http_client(f"{server.base_url}/mcp", http_client=http)
            async with Client(target, read_timeout_seconds=30.0) as client:
                assert len((await client.list_tools()).tools) == 3
                for _ in range(3):
                    result = await client.call_tool(
                        "lookup_classification", {"scheme": "fi", "code": code}
                    )
                    assert result.is_error is False
                    assert result.structured_content is not None
                    titles.append(json.dumps(result.structured_content["code"]))
    return titles


@pytest.mark.parametrize("extra", [("--workers", "2"), ("--no-sse",)], ids=["workers", "no-sse"])
def test_sse_is_refused_where_it_cannot_work(
    reference: Reference, tmp_path: Path, served: list[HttpServer], extra: tuple[str, ...]
) -> None:
    server = start_http_server(reference, tmp_path, *extra)
    served.append(server)
    for response in (
        probe(server, "/sse", Accept="text/event-stream"),
        httpx2.post(f"{server.base_url}/messages?session_id=00", json={}, timeout=10.0),
    ):
        assert response.status_code == 501, response.text
        error = response.json()["error"]
        assert error["code"] == "SSE_UNAVAILABLE"
        assert "one worker" in error["message"]
        assert "source-IP affinity" in error["message"]
    # The refusal sits behind the guards: a foreign Host still gets 421.
    assert probe(server, "/sse", Host="evil.example").status_code == 421
    # Streamable HTTP works across the workers for the official client.
    code = reference.examples["fi_with_file_symbol"]
    titles = anyio.run(_sessions, server, 4, code)
    assert len(titles) == 12
    assert len(set(titles)) == 1
