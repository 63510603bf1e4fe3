"""IPC indexing codes (``A61K 103:00``) through a real stdio MCP session (issue 27).

The database is built from a generated package whose IPC 4-7 files hold indexing codes; the
codes asked for and the texts expected are read from that database with plain SQL here.
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters

from pmgs_build import build_database
from pmgs_testkit import generate_package


@pytest.fixture(scope="module")
def indexed_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("indexing")
    package = generate_package(root / "package", scale=0.001, seed=5, ipc_indexing_share=0.05)
    db = root / "indexing.sqlite"
    build_database(package.path, db)
    return db


def _indexing_code(db: Path) -> tuple[str, str]:
    """(code, its ja text) of the first IPC 7 indexing code, by SQL."""
    with sqlite3.connect(db.resolve().as_uri() + "?mode=ro", uri=True) as conn:
        row = conn.execute(
            "SELECT c.code, t.body FROM concept c JOIN revision r ON r.concept_id = c.id "
            "JOIN text t ON t.revision_id = r.id WHERE c.edition = '7' AND c.code LIKE '%:%' "
            "ORDER BY c.id LIMIT 1"
        ).fetchone()
    assert row is not None
    return str(row[0]), str(row[1])


async def _session(db: Path, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    params = StdioServerParameters(command=sys.executable, args=["-m", "pmgs_mcp", "--db", str(db)])
    answers = []
    async with Client(params, read_timeout_seconds=30.0) as client:
        for tool, arguments in calls:
            result = await client.call_tool(tool, arguments)
            assert not result.is_error, result.content
            answers.append(result.structured_content)
    return answers


def test_lookup_and_search_reach_indexing_codes(indexed_db: Path) -> None:
    code, body = _indexing_code(indexed_db)
    subclass, numbers = code[:4], code[4:]
    spaced = f"{subclass} {numbers}"  # A61K 103:00, as WIPO's notes write it
    slash = code.replace(":", "/")
    calls: list[tuple[str, dict[str, Any]]] = [
        ("lookup_classification", {"scheme": "ipc", "code": code, "detail": "full"}),
        ("lookup_classification", {"scheme": "ipc", "code": spaced, "detail": "full"}),
        ("lookup_classification", {"scheme": "ipc", "code": slash, "detail": "full"}),
        (
            "search_pmgs",
            {"query": body, "content_types": ["classification"], "schemes": ["ipc"], "limit": 50},
        ),
    ]
    exact, spelled, group, search = anyio.run(_session, indexed_db, calls)
    assert (exact["code"], exact["edition"], exact["match_status"]) == (code, "7", "exact")
    assert (spelled["code"], spelled["match_status"]) == (code, "normalized_exact")
    assert group["code"] == slash
    assert group["edition"] == "8U"  # the group of the same numbers: another code
    hits = search["results_by_type"]["classification"]["results"]
    assert code in {hit["code"] for hit in hits}
