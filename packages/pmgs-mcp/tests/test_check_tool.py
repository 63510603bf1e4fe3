"""check_classification_codes through the SDK's real stdio client, on a planned next release.

The server is a real ``python -m pmgs_mcp`` subprocess; the expectations come from the
generator's plan of the next release (written before its files), not from the tool.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import jsonschema
import pytest
from mcp import Client, StdioServerParameters

from pmgs_build import build_database
from pmgs_mcp.check_tool import CHECK_TOOL_NAME
from pmgs_mcp.schemas import MAX_MCP_CODES
from pmgs_testkit import ReleasePlan, generate_package, plan_next_release, write_next_release


@pytest.fixture(scope="module")
def next_release(tmp_path_factory: pytest.TempPathFactory) -> tuple[ReleasePlan, Path]:
    root = tmp_path_factory.mktemp("next")
    base = generate_package(root / "base", scale=0.0005, seed=3, with_documents=True)
    plan = plan_next_release(base, with_chains=True)
    build_database(write_next_release(base, root / "next", plan), root / "next.sqlite")
    return plan, root / "next.sqlite"


async def _session(db: Path, calls: list[dict[str, Any]]) -> tuple[Any, list[Any]]:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "pmgs_mcp", "--db", str(db), "--tools", "all"]
    )
    async with Client(params, read_timeout_seconds=30.0) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        results = [await client.call_tool(CHECK_TOOL_NAME, arguments) for arguments in calls]
    return tools[CHECK_TOOL_NAME], results


def test_check_tool_in_a_real_session(next_release: tuple[ReleasePlan, Path]) -> None:
    plan, db = next_release
    several = plan.abolished[1]
    chain_a = plan.abolished[2]
    formula = (
        f"[{several.code}/FI + {plan.abolished_theme}AA01/FT] * G06F3/048/IP - {chain_a.code}/FI"
    )
    calls: list[dict[str, Any]] = [
        {"text": formula},
        {"text": "G06F3/048/FI + (G06F3/0482/FI"},
        {"text": "G06F3/048/IP\n" * (MAX_MCP_CODES + 1)},
        {"text": "G06F3/048/IP\n" * MAX_MCP_CODES},
        {"text": "G06F3/048/ZZ"},
        {"text": ""},
    ]
    tool, results = anyio.run(_session, db, calls)
    assert tool.annotations is not None
    assert tool.annotations.read_only_hint is True
    ok = results[0]
    assert ok.is_error is False
    jsonschema.validate(ok.structured_content, tool.output_schema)
    items = ok.structured_content["items"]
    assert [(i["code"], i["status"]) for i in items] == [
        (several.code, "abolished"),
        (f"{plan.abolished_theme}AA01", "theme_not_present"),
        ("G06F3/048", "present"),
        (chain_a.code, "abolished"),
    ]
    targets = items[0]["revisions"][0]["targets"]  # canonical, the record's text beside
    assert [(t["code"], t["status"]) for t in targets] == [(c, "present") for c in several.targets]
    assert [t["text"] for t in targets] == [text.strip() for text in several.target_texts]
    (chained,) = items[3]["revisions"][0]["targets"]  # A → B (abolished) → … → present
    assert (chained["code"], chained["status"]) == (plan.abolished[3].code, "abolished")
    assert chained["leads_to"] == list(plan.abolished[0].targets)
    assert items[0]["revisions"][0]["sources"][0]["file"] == several.file
    assert json.loads(ok.content[0].text) == ok.structured_content

    def error(index: int) -> dict[str, Any]:
        result = results[index]
        assert result.is_error is True
        assert result.structured_content is None
        found: dict[str, Any] = json.loads(result.content[0].text)["error"]
        return found

    assert error(1)["code"] == "INVALID_QUERY"
    assert error(1)["details"]["reason"] == "FORMULA_SYNTAX"
    assert "balanced [ ] or ( )" in error(1)["hint"]  # not the search tool's 512 characters
    assert error(2)["code"] == "TOO_MANY_ITEMS"
    assert error(2)["details"]["max_codes"] == MAX_MCP_CODES
    assert f"at most {MAX_MCP_CODES} codes a call" in error(2)["hint"]  # not "collection"
    assert "/FI, /FT or /IP" in error(4)["hint"]
    assert results[3].is_error is False
    assert results[3].structured_content["code_count"] == MAX_MCP_CODES
    assert error(4)["details"]["reason"] == "FORMULA_UNKNOWN_TAG"
    assert error(5)["code"] == "INVALID_ARGUMENT"
