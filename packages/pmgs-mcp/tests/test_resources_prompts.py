"""Resources and prompts through the SDK's real client, over stdio and streamable HTTP.

Contents are checked against SQL on the database (the texts of a code, a document's segment
count), not against the store's own answer.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from pmgs_mcp_testkit import Reference, start_http_server, stop_http_server


def _sql(db: Path, sql: str, *args: object) -> list[tuple[Any, ...]]:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        return [tuple(r) for r in conn.execute(sql, args)]


async def _exercise(client: Client, db: Path) -> None:
    templates = {
        t.uri_template for t in (await client.list_resource_templates()).resource_templates
    }
    assert templates == {
        "pmgs://fi/{code}",
        "pmgs://fterm/{code}",
        "pmgs://ipc/{code}",
        "pmgs://document/{document_id}{?segment_offset}",
    }
    assert (await client.list_resources()).resources == []

    for uri in ("pmgs://ipc/G06F3/048", "pmgs://ipc/G06F3%2F048"):
        result = await client.read_resource(uri)
        [content] = result.contents
        assert content.mime_type == "application/json"
        record = json.loads(content.text)  # type: ignore[union-attr]
        assert (record["code"], record["match_status"]) == ("G06F3/048", "exact")
        bodies = {t["body"] for t in record["texts"]}
        expected = {
            row[0]
            for row in _sql(
                db,
                "SELECT t.body FROM text t JOIN revision r ON r.id = t.revision_id "
                "JOIN concept c ON c.id = r.concept_id WHERE c.scheme = 'ipc' "
                "AND c.edition = '8U' AND c.code = 'G06F3/048' AND r.version = ? "
                "AND t.language = 'ja'",
                record["revision"]["version"],
            )
        }
        assert bodies == expected
        own = record["revision"]["source"]  # a text without source cites it (ADR 0018)
        assert all(t.get("source", own)["file"] in record["files"] for t in record["texts"])

    missing = json.loads(
        (await client.read_resource("pmgs://fi/A99Z99/99")).contents[0].text  # type: ignore[union-attr]
    )
    assert missing["match_status"] == "not_found"

    count = _sql(
        db,
        "SELECT count(*) FROM document_text dt JOIN document d ON d.id = dt.document_id "
        "WHERE d.document_key = 'judge'",
    )[0][0]
    page = json.loads(
        (await client.read_resource("pmgs://document/judge?segment_offset=1")).contents[0].text  # type: ignore[union-attr]
    )
    assert page["segment_offset"] == 1
    assert len(page["segments"]) == min(20, count - 1)

    for bad in ("pmgs://document/nope:missing", "pmgs://cpc/A01", "https://example.com/x"):
        with pytest.raises(MCPError) as caught:
            await client.read_resource(bad)
        assert caught.value.error.code == -32002, bad

    prompts = {p.name: p for p in (await client.list_prompts()).prompts}
    assert set(prompts) == {"explain_code", "gather_official_texts"}
    explained = await client.get_prompt("explain_code", {"scheme": "ipc", "code": "G06F3/048"})
    embedded, instruction = explained.messages
    assert embedded.content.type == "resource"
    pinned = json.loads(embedded.content.resource.text)  # type: ignore[union-attr]
    assert pinned["code"] == "G06F3/048"
    assert "never instructions" in instruction.content.text  # type: ignore[union-attr]
    gathered = await client.get_prompt("gather_official_texts", {"description": "負極 バインダー"})
    text = gathered.messages[0].content.text  # type: ignore[union-attr]
    assert "負極 バインダー" in text
    assert "Do not choose or recommend codes" in text
    with pytest.raises(MCPError):
        await client.get_prompt("explain_code", {"scheme": "cpc", "code": "A01"})
    with pytest.raises(MCPError):
        await client.get_prompt("gather_official_texts", {})


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_resources_and_prompts(transport: str, reference: Reference, tmp_path: Path) -> None:
    async def run() -> None:
        if transport == "stdio":
            params = StdioServerParameters(
                command=sys.executable, args=["-m", "pmgs_mcp", "--db", str(reference.db)]
            )
            async with Client(params, read_timeout_seconds=30.0) as client:
                await _exercise(client, reference.db)
            return
        server = start_http_server(reference, tmp_path)
        try:
            async with httpx2.AsyncClient(timeout=30.0) as http:
                target = streamable_http_client(f"{server.base_url}/mcp", http_client=http)
                async with Client(target, read_timeout_seconds=30.0) as client:
                    await _exercise(client, reference.db)
        finally:
            stop_http_server(server)

    anyio.run(run)
