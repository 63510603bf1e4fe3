"""A client written from the document-database specification's tables (seed 000: tool names,
search_text parameters and answer, list_documents paging, add_item_text, the HTTP API), not
from pmgs's schemas: it adds, searches, lists, retrains and deletes over stdio and streamable
HTTP and reads the HTTP endpoints. Oracles: SQL on the collection file and the texts it wrote.
"""

from __future__ import annotations

import json
import sqlite3
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from pmgs_mcp_testkit import Reference, start_http_server, stop_http_server

from pmgs_testkit.kit import file_sha256

pytest.importorskip("numpy")

SPEC_TOOLS = {
    "search_text",
    "add_item_text",
    "update_item",
    "delete_item",
    "get_item_by_id",
    "list_documents",
    "list_categories",
    "get_document_count",
    "get_document",
    "delete_document",
    "lsa_retrain",
}
SEARCH_ITEM_KEYS = {"id", "document_id", "path", "mime", "category", "content", "similarity"}

# Four topics, each said two ways with no two-character string in common, plus four notes
# where both ways meet (24 notes: enough for an LSA space of its own).
WAYS = (
    ("洗浄液", "噴霧", "クリーニング剤", "スプレー", "汚れ", "浴槽"),
    ("歩数", "腕時計", "万歩計", "リストバンド", "心拍", "睡眠"),
    ("屋上", "太陽光", "ルーフトップ", "ソーラー", "発電量", "架台"),
    ("冷蔵庫", "野菜室", "フリーザー", "チルド", "鮮度", "霜取り"),
)


def _notes() -> list[tuple[str, str]]:
    out = []
    for n, (a1, a2, b1, b2, c1, c2) in enumerate(WAYS):
        out += [
            (f"w{n}/a.md", f"{a1}と{a2}"),
            (f"w{n}/b.md", f"{b1}や{b2}"),
            (f"w{n}/c1.md", f"{a1}で{c1}を落とし{b2}で{c2}"),
            (f"w{n}/c2.md", f"{b1}の{c2}と{a2}の{c1}"),
            (f"w{n}/c3.md", f"{c1}{c2}: {a1} {b1} {a2} {b2}"),
            (f"w{n}/c4.md", f"{c2}では{b1}より{a1}"),
        ]
    return out


def _sql(path: Path, sql: str, *args: object) -> list[tuple[Any, ...]]:
    with sqlite3.connect(path) as conn:
        return [tuple(r) for r in conn.execute(sql, args)]


async def _tool(client: Client, name: str, args: dict[str, Any]) -> Any:
    """The specification's answer: content[0].text parsed as JSON."""
    result = await client.call_tool(name, args)
    assert not result.is_error, (name, result.content)
    return json.loads(result.content[0].text)  # type: ignore[union-attr]


async def _speak(client: Client, coll: Path) -> None:
    names = {t.name for t in (await client.list_tools()).tools}
    assert names >= SPEC_TOOLS
    for path, text in _notes():
        category = "家電" if path.startswith("w3") else "生活"
        await _tool(client, "add_item_text", {"content": text, "path": path, "category": category})
    assert _sql(coll, "SELECT count(*) FROM documents") == [(24,)]

    retrained = await _tool(client, "lsa_retrain", {})
    assert retrained["items_indexed"] == 24

    # the paraphrase of 洗浄液と噴霧 has none of its words: found by the vector half
    found = await _tool(
        client, "search_text", {"content": "洗浄液と噴霧", "limit": 5, "min_score": 0}
    )
    assert isinstance(found["items"], list)
    assert found["vector_search_used"] is True
    for item in found["items"]:
        assert set(item) >= SEARCH_ITEM_KEYS
        assert 0 <= item["similarity"] <= 1
    assert "w0/b.md" in [i["path"] for i in found["items"]]
    empty = await _tool(client, "search_text", {"content": ""})
    assert empty["items"] == []
    assert isinstance(empty["vector_search_used"], bool)
    in_category = await _tool(
        client, "search_text", {"content": "冷蔵庫と野菜室", "min_score": 0, "category": "家電"}
    )
    assert in_category["items"]
    assert {i["category"] for i in in_category["items"]} == {"家電"}
    grouped = await _tool(
        client,
        "search_text",
        {"content": "汚れ", "min_score": 0, "limit": 20, "group_by_document": True},
    )
    document_ids = [i["document_id"] for i in grouped["items"]]
    assert len(document_ids) == len(set(document_ids))

    page = await _tool(client, "list_documents", {"limit": 10, "page": 3})
    assert (page["total_count"], page["total_pages"], page["page"]) == (24, 3, 3)
    assert len(page["items"]) == 4
    assert set(page["items"][0]) >= {"id", "path", "mime", "chunk_count", "category"}
    past = await _tool(client, "list_documents", {"limit": 10, "page": 9})
    assert past["items"] == []
    categories = json.dumps(await _tool(client, "list_categories", {}), ensure_ascii=False)
    assert "家電" in categories
    assert "生活" in categories
    count = await _tool(client, "get_document_count", {})
    assert 24 in (count if isinstance(count, int) else count.get("count"),)

    first = page["items"][0]
    document = await _tool(client, "get_document", {"id": first["id"]})
    item_id = document["items"][0]["id"]
    item = await _tool(client, "get_item_by_id", {"id": item_id})
    assert (item["path"], item["category"]) == (first["path"], first["category"])
    await _tool(client, "update_item", {"id": item_id, "content": "書き換えた本文"})
    assert _sql(coll, "SELECT content FROM items WHERE id = ?", item_id) == [("書き換えた本文",)]
    await _tool(client, "delete_item", {"id": item_id})
    assert _sql(coll, "SELECT count(*) FROM items WHERE id = ?", item_id) == [(0,)]
    other = page["items"][1]
    await _tool(client, "delete_document", {"id": other["id"]})
    assert _sql(coll, "SELECT count(*) FROM documents WHERE id = ?", other["id"]) == [(0,)]
    assert _sql(coll, "SELECT count(*) FROM documents") == [(22,)]
    vectors = "SELECT count(*) FROM item_vectors WHERE item_id NOT IN (SELECT id FROM items)"
    assert _sql(coll, vectors) == [(0,)]


def _until(check: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.05)
    raise AssertionError(f"not reflected within 20 s: {what}")


def _monitored(coll: Path, watched: Path) -> None:
    """The server watches the folder the settings name, with its category."""
    query = "SELECT d.category, i.content FROM documents d JOIN items i ON i.document_id = d.id "
    query += "WHERE d.path = ?"

    def note(name: str) -> list[tuple[Any, ...]]:
        return _sql(coll, query, str((watched / name).absolute()))

    _until(lambda: note("before.txt") == [("監視", "保存前からある")], "the first pass")
    (watched / "new.md").write_text("監視中に書いた", encoding="utf-8")
    _until(lambda: note("new.md") == [("監視", "監視中に書いた")], "a new file")
    (watched / "new.md").unlink()
    _until(lambda: note("new.md") == [], "a deleted file")


def test_spec_client_over_stdio(reference: Reference, tmp_path: Path) -> None:
    coll = tmp_path / "coll.sqlite"
    before = file_sha256(reference.db)
    args = ["-m", "pmgs_mcp", "--db", str(reference.db), "--allow-write", "--collection"]

    async def run() -> None:
        params = StdioServerParameters(command=sys.executable, args=[*args, str(coll)])
        async with Client(params, read_timeout_seconds=60.0) as client:
            await _speak(client, coll)

    anyio.run(run)
    assert file_sha256(reference.db) == before


def test_spec_client_over_http(reference: Reference, tmp_path: Path) -> None:
    coll = tmp_path / "coll.sqlite"
    watched = tmp_path / "watched"
    watched.mkdir()
    (watched / "before.txt").write_text("保存前からある", encoding="utf-8")
    before = file_sha256(reference.db)
    server = start_http_server(reference, tmp_path, "--allow-write", "--collection", str(coll))
    base = server.base_url
    try:

        async def run() -> None:
            async with httpx2.AsyncClient(timeout=60.0) as http:
                target = streamable_http_client(f"{base}/mcp", http_client=http)
                async with Client(target, read_timeout_seconds=60.0) as client:
                    await _speak(client, coll)

        anyio.run(run)
        get = httpx2.get
        assert get(f"{base}/edition", timeout=5).json()["edition"] in ("community", "pro")
        assert "version" in get(f"{base}/version", timeout=5).json()
        assert get(f"{base}/indexing_status", timeout=5).json()["status"] == "idle"
        items = _sql(coll, "SELECT count(*) FROM items")[0][0]
        assert get(f"{base}/heal", timeout=5).json() == {"synced": items}
        model = get(f"{base}/model_name", timeout=5).json()
        assert (model["edition"], model["model"]) == ("community", "lsa")
        assert model["dimensions"] == _sql(coll, "SELECT dimensions FROM lsa_model")[0][0] > 0
        settings = get(f"{base}/settings", timeout=5).json()
        assert (settings["monitor_paths"], settings["min_score"]) == ([], 0.3)
        wanted = {"monitor_paths": [{"path": str(watched), "category": "監視"}], "limit": 7}
        saved = httpx2.post(f"{base}/settings", json=wanted, timeout=5)
        assert saved.status_code == 200, saved.text
        again = get(f"{base}/settings", timeout=5).json()
        assert again["monitor_paths"] == wanted["monitor_paths"]
        assert (again["limit"], again["min_score"]) == (7, 0.3)
        stored = json.loads((coll.parent / "settings.json").read_text("utf-8"))
        assert stored == again
        bad = httpx2.post(f"{base}/settings", json={"min_score": 2}, timeout=5)
        assert (bad.status_code, bad.json()["error"]["code"]) == (400, "INVALID_SETTINGS")
        missing = {"monitor_paths": [{"path": str(tmp_path / "nowhere")}]}
        bad = httpx2.post(f"{base}/settings", json=missing, timeout=5)
        assert bad.status_code == 400
        assert json.loads((coll.parent / "settings.json").read_text("utf-8")) == again
        _monitored(coll, watched)
    finally:
        stop_http_server(server)
    assert file_sha256(reference.db) == before
