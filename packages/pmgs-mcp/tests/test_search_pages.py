"""``search_pmgs`` over a real stdio session pages like ``pmgs search`` (issue 29, ADR 0022):
FI hits on the first page next to IPC ones, one hit per IPC code listing its editions."""

from __future__ import annotations

import json
import sqlite3
import sys
from typing import Any

import anyio
from mcp import Client, StdioServerParameters
from pmgs_mcp_testkit import Reference

EDITIONS = ("8U", "8B", "7", "7E", "6", "5", "4")


async def _search(reference: Reference, arguments: dict[str, Any]) -> dict[str, Any]:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "pmgs_mcp", "--db", str(reference.db)]
    )
    async with Client(params, read_timeout_seconds=30.0) as client:
        result = await client.call_tool("search_pmgs", arguments)
        assert not result.is_error, result.content
        return json.loads(result.content[0].text)  # type: ignore[union-attr,no-any-return]


def test_search_pmgs_puts_fi_on_the_first_page_and_each_ipc_code_once(
    reference: Reference,
) -> None:
    word = reference.examples["two_char_word"]
    arguments = {
        "query": word,
        "schemes": ["fi", "ipc"],
        "content_types": ["classification"],
        "limit": 10,
        "detail": "full",
    }
    page = anyio.run(_search, reference, arguments)["results_by_type"]["classification"]
    assert page["scheme_merge"] == "interleaved"
    assert [hit["scheme"] for hit in page["results"]] == ["fi", "ipc"] * 5
    ipc = [hit for hit in page["results"] if hit["scheme"] == "ipc"]
    assert len({hit["code"] for hit in ipc}) == len(ipc)
    conn = sqlite3.connect(reference.db.resolve().as_uri() + "?mode=ro", uri=True)
    try:
        for hit in ipc:
            found = {
                edition
                for (edition,) in conn.execute(
                    "SELECT c.edition FROM concept c JOIN revision r ON r.concept_id = c.id "
                    "JOIN text x ON x.revision_id = r.id WHERE c.scheme = 'ipc' AND c.code = ? "
                    "AND x.language = 'ja' AND c.status = 'canonical' AND instr(x.body, ?) > 0",
                    (hit["code"], word),
                )
            }
            assert hit["editions"] == [e for e in EDITIONS if e in found]
    finally:
        conn.close()


def test_search_pmgs_filters_ipc_editions(reference: Reference) -> None:
    word = reference.examples["two_char_word"]
    arguments = {
        "query": word,
        "schemes": ["ipc"],
        "content_types": ["classification"],
        "ipc_editions": ["6"],
        "limit": 20,
        "detail": "full",
    }
    page = anyio.run(_search, reference, arguments)["results_by_type"]["classification"]
    assert page["ipc_editions"] == ["6"]
    assert page["results"]
    assert all(hit["edition"] == "6" and hit["editions"] == ["6"] for hit in page["results"])
