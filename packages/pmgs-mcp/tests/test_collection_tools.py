"""The collection's tools through a real MCP client, over stdio and streamable HTTP.

Each answer is checked against SQL on the collection file (not against the Collection class),
and the release database's SHA-256 is compared before and after.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from pmgs_mcp_testkit import Reference, server_command, start_http_server, stop_http_server

from pmgs_testkit.kit import file_sha256

WRITE_TOOLS = {
    "add_item_text",
    "update_item",
    "delete_item",
    "get_item_by_id",
    "get_document",
    "delete_document",
    "reindex_collection",
}


def _sql(path: Path, sql: str, *args: object) -> list[tuple[Any, ...]]:
    with sqlite3.connect(path) as conn:
        return [tuple(r) for r in conn.execute(sql, args)]


async def _call(client: Client, tool: str, args: dict[str, Any]) -> tuple[bool, dict[str, Any]]:
    result = await client.call_tool(tool, args)
    text = result.content[0].text  # type: ignore[union-attr]
    value = json.loads(text)
    if not result.is_error:
        assert result.structured_content == value
    return bool(result.is_error), value


async def _conversation(client: Client, coll: Path) -> None:
    tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(tools) >= WRITE_TOOLS
    assert tools["delete_document"].annotations.destructive_hint is True  # type: ignore[union-attr]
    assert tools["add_item_text"].annotations.read_only_hint is False  # type: ignore[union-attr]
    assert tools["get_item_by_id"].annotations.read_only_hint is True  # type: ignore[union-attr]

    ids = []
    for n, (path, category) in enumerate(
        [("a.md", "電池"), ("b.txt", "電池"), ("c.txt", None), ("d.txt", "車両")]
    ):
        err, added = await _call(
            client,
            "add_item_text",
            {"content": f"メモ{n} 負極バインダー", "path": path, "category": category},
        )
        assert not err, added
        ids.append(added["item_ids"][0])
    assert _sql(coll, "SELECT count(*) FROM documents") == [(4,)]
    assert _sql(coll, "SELECT mime FROM documents WHERE path = 'a.md'") == [("text/markdown",)]

    # search_text covers both sides, each item saying where it came from.
    query = "負極バインダー"
    err, both = await _call(client, "search_text", {"content": query, "limit": 50, "min_score": 0})
    assert not err, both
    mine = [i for i in both["items"] if i["source"] == "user_collection"]
    assert sorted(i["path"] for i in mine) == ["a.md", "b.txt", "c.txt", "d.txt"]
    assert all(isinstance(i["id"], int) for i in mine)
    assert {i["source"] for i in both["items"]} <= {"official", "user_collection"}
    sims = [i["similarity"] for i in both["items"]]
    assert sims == sorted(sims, reverse=True)
    _, only_mine = await _call(
        client, "search_text", {"content": query, "limit": 50, "source": "user_collection"}
    )
    assert {i["source"] for i in only_mine["items"]} == {"user_collection"}
    _, by_category = await _call(
        client, "search_text", {"content": query, "limit": 50, "min_score": 0, "category": "電池"}
    )
    assert sorted(i["path"] for i in by_category["items"]) == ["a.md", "b.txt"]
    _, official_only = await _call(
        client, "search_text", {"content": "メモ0", "limit": 50, "min_score": 0, "category": "fi"}
    )
    assert all(i["source"] == "official" for i in official_only["items"])
    _, contract = await _call(client, "search_pmgs", {"query": query, "detail": "full"})
    assert "user_collection" not in json.dumps(contract, ensure_ascii=False)

    err, page = await _call(client, "list_documents", {"limit": 3, "page": 2})
    assert not err
    assert (page["total_count"], page["total_pages"], page["page"]) == (4, 2, 2)
    assert [d["path"] for d in page["items"]] == ["d.txt"]
    err, beyond = await _call(client, "list_documents", {"limit": 3, "page": 9})
    assert (err, beyond["items"]) == (False, [])
    err, filtered = await _call(client, "list_documents", {"category": "電池"})
    assert [d["path"] for d in filtered["items"]] == ["a.md", "b.txt"]
    err, official = await _call(client, "list_documents", {"source": "official", "limit": 2})
    assert not err
    assert all("source" not in d or d["source"] != "user_collection" for d in official["items"])
    assert official["total_count"] > 0

    _, cats = await _call(client, "list_categories", {})
    assert {c["category"]: c["document_count"] for c in cats["categories"]} == dict(
        _sql(coll, "SELECT category, count(*) FROM documents WHERE category IS NOT NULL GROUP BY 1")
    )
    _, count = await _call(client, "get_document_count", {"category": "電池"})
    assert count["count"] == 2

    _, item = await _call(client, "get_item_by_id", {"id": ids[0]})
    assert (item["path"], item["source"]) == ("a.md", "user_collection")
    _, updated = await _call(client, "update_item", {"id": ids[0], "content": "書き換えた"})
    assert updated["content"] == "書き換えた"
    assert _sql(coll, "SELECT content FROM items WHERE id = ?", ids[0]) == [("書き換えた",)]

    _, doc = await _call(client, "get_document", {"id": item["document_id"], "limit": 1})
    assert [i["content"] for i in doc["items"]] == ["書き換えた"]
    _, reindexed = await _call(client, "reindex_collection", {})
    assert reindexed["items_indexed"] == _sql(coll, "SELECT count(*) FROM items")[0][0]

    _, deleted = await _call(client, "delete_item", {"id": ids[1]})
    assert deleted["document_deleted"] is True
    _, gone = await _call(client, "delete_document", {"id": item["document_id"]})
    assert gone["path"] == "a.md"
    assert sorted(r[0] for r in _sql(coll, "SELECT path FROM documents")) == ["c.txt", "d.txt"]

    for tool, args, code in [
        ("add_item_text", {"content": "x", "path": ""}, "INVALID_PATH"),
        ("add_item_text", {"content": "x", "path": "a\nb"}, "INVALID_PATH"),
        ("add_item_text", {"content": "", "path": "e.txt"}, "INVALID_CONTENT"),
        (
            "add_item_text",
            {"content": "x", "path": "e.txt", "category": "c" * 101},
            "INVALID_CATEGORY",
        ),
        ("add_item_text", {"content": 5, "path": "e.txt"}, "INVALID_CONTENT"),
        ("update_item", {"id": 999, "content": "x"}, "ITEM_NOT_FOUND"),
        ("update_item", {"id": ids[2], "content": "y" * 20_001}, "ITEM_TOO_LARGE"),
        ("get_item_by_id", {"id": 0}, "ITEM_NOT_FOUND"),
        ("delete_document", {"id": 999}, "DOCUMENT_NOT_FOUND"),
        ("get_document", {"id": ids[2], "offset": -1}, "INVALID_OFFSET"),
        ("list_documents", {"page": 0}, "INVALID_ARGUMENT"),
    ]:
        err, answer = await _call(client, tool, args)
        assert err, (tool, args)
        assert answer["error"]["code"] == code, (tool, args, answer)
    assert sorted(r[0] for r in _sql(coll, "SELECT path FROM documents")) == ["c.txt", "d.txt"]
    # the session survived every error
    assert not (await _call(client, "get_item_by_id", {"id": ids[2]}))[0]


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_collection_session(transport: str, reference: Reference, tmp_path: Path) -> None:
    coll = tmp_path / "coll.sqlite"
    before = file_sha256(reference.db)
    args = ["--db", str(reference.db), "--allow-write", "--collection", str(coll), "--tools", "all"]

    async def run() -> None:
        if transport == "stdio":
            params = StdioServerParameters(command=sys.executable, args=["-m", "pmgs_mcp", *args])
            async with Client(params, read_timeout_seconds=30.0) as client:
                await _conversation(client, coll)
            return
        server = start_http_server(
            reference, tmp_path, "--allow-write", "--collection", str(coll), "--tools", "all"
        )
        try:
            async with httpx2.AsyncClient(timeout=30.0) as http:
                target = streamable_http_client(f"{server.base_url}/mcp", http_client=http)
                async with Client(target, read_timeout_seconds=30.0) as client:
                    await _conversation(client, coll)
            status = httpx2.get(f"{server.base_url}/indexing_status", timeout=5).json()
            assert status == {"status": "idle"}
            edition = httpx2.get(f"{server.base_url}/edition", timeout=5).json()
            assert edition["collection"] is True
            assert edition["vector_search"] is False
        finally:
            stop_http_server(server)

    anyio.run(run)
    assert file_sha256(reference.db) == before


def test_without_allow_write_there_are_no_write_tools(reference: Reference) -> None:
    async def run() -> set[str]:
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "pmgs_mcp", "--db", str(reference.db), "--tools", "all"],
        )
        async with Client(params, read_timeout_seconds=30.0) as client:
            return {t.name for t in (await client.list_tools()).tools}

    names = anyio.run(run)
    assert not names & WRITE_TOOLS
    assert "list_documents" in names


@pytest.mark.parametrize(
    "extra",
    [
        ["--transport", "http", "--workers", "2", "--allow-write"],
        ["--collection", "x.sqlite"],
    ],
)
def test_refused_settings(reference: Reference, extra: list[str], tmp_path: Path) -> None:
    result = subprocess.run(
        server_command("--db", str(reference.db), *extra),
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        check=False,
    )
    assert result.returncode == 2
    assert "--allow-write" in result.stderr
    assert not (tmp_path / "x.sqlite").exists()
