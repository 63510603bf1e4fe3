"""The tool definitions in process: they mirror the store's parameters and never leak errors."""

from __future__ import annotations

import inspect
import logging
from typing import Any

import pytest

from pmgs_core import (
    ERROR_CATEGORIES,
    ERROR_CODES,
    MAX_LIMIT,
    PMGSQueryError,
    PMGSStore,
    load_schema,
)
from pmgs_mcp.answer_text import concise_answer
from pmgs_mcp.errors import ARGUMENT_CODES, HINTS
from pmgs_mcp.tools import (
    BROWSE_TOOL_NAMES,
    DEFAULT_TOOL_NAMES,
    SERVER_INSTRUCTIONS,
    ToolSet,
    UnknownToolError,
    build_toolset,
)

MIRRORED = {
    "lookup_classification": "lookup",
    "search_pmgs": "search_pmgs",
    "get_pmgs_document": "get_document",
}


@pytest.fixture(scope="module")
def toolset(store: PMGSStore) -> ToolSet:
    return build_toolset(store, load_schema, include_browse=True)


def test_default_surface_is_the_contract(store: PMGSStore) -> None:
    default = build_toolset(store, load_schema)
    assert tuple(spec.name for spec in default.specs) == DEFAULT_TOOL_NAMES
    assert DEFAULT_TOOL_NAMES == ("lookup_classification", "search_pmgs", "get_pmgs_document")


def test_all_adds_the_browse_tools(toolset: ToolSet) -> None:
    assert tuple(spec.name for spec in toolset.specs) == DEFAULT_TOOL_NAMES + BROWSE_TOOL_NAMES


AGENT_PAGE_DEFAULTS = {
    ("lookup_classification", "relation_limit"): 5,
    ("search_pmgs", "limit"): 4,
    ("get_pmgs_document", "segment_limit"): 20,
    ("get_pmgs_document", "related_classification_limit"): 5,
    ("search_pmgs", "fallback"): True,
}
"""Where MCP's default page is smaller than the store's (issues 18, 33: sized for agents), and
where MCP asks for more than the store's default (issue 39: a search that does not dead-end)."""


@pytest.mark.parametrize(("tool", "method"), sorted(MIRRORED.items()))
def test_input_schema_mirrors_the_store_signature(toolset: ToolSet, tool: str, method: str) -> None:
    schema = toolset.get(tool).input_schema
    parameters = dict(inspect.signature(getattr(PMGSStore, method)).parameters)
    parameters.pop("self")
    # One argument of MCP's own: detail (concise | full), applied after the store call.
    assert set(schema["properties"]) == set(parameters) | {"detail"}
    assert schema["properties"]["detail"]["default"] == "concise"
    required = {n for n, p in parameters.items() if p.default is inspect.Parameter.empty}
    assert set(schema.get("required", [])) == required
    for name, parameter in parameters.items():
        if parameter.default is not inspect.Parameter.empty:
            default = AGENT_PAGE_DEFAULTS.get((tool, name), parameter.default)
            assert schema["properties"][name]["default"] == default, name
        if name.endswith("limit"):
            assert schema["properties"][name]["maximum"] == MAX_LIMIT
            assert schema["properties"][name]["minimum"] == 1


def test_list_documents_limits_follow_document_db_clients(toolset: ToolSet) -> None:
    properties = toolset.get("list_documents").input_schema["properties"]
    assert properties["limit"] == {**properties["limit"], "minimum": 1, "maximum": 100}
    assert properties["limit"]["default"] == 20
    assert properties["page"]["default"] == 1
    assert properties["page"]["minimum"] == 1


def test_default_arguments_reach_the_store_unchanged(toolset: ToolSet, store: PMGSStore) -> None:
    # The MCP defaults are sized for agents (20 segments, 5 related classifications,
    # concise form); with them spelled out the store gives the same record.
    outcome = toolset.call("get_pmgs_document", {"document_id": "judge", "detail": "full"})
    assert not outcome.is_error
    assert outcome.value == store.get_document(
        "judge", segment_limit=20, related_classification_limit=5
    )
    concise = toolset.call("get_pmgs_document", {"document_id": "judge"})
    assert concise.value == concise_answer(outcome.value)


def test_unknown_tool(toolset: ToolSet) -> None:
    with pytest.raises(UnknownToolError):
        toolset.call("drop_database", {})


class _BrokenStore:
    """A store whose every method fails unexpectedly, with a path in the exception text."""

    def __getattr__(self, name: str) -> Any:
        def fail(*args: object, **kwargs: object) -> None:
            raise RuntimeError("sqlite failure in /home/alice/secret/reference.sqlite")

        return fail


def test_unexpected_failures_are_generic_tool_errors(caplog: pytest.LogCaptureFixture) -> None:
    broken = build_toolset(_BrokenStore(), load_schema, include_browse=True)  # type: ignore[arg-type]
    with caplog.at_level(logging.ERROR, logger="pmgs_mcp"):
        for spec in broken.specs:
            arguments: dict[str, Any] = {
                "lookup_classification": {"scheme": "fi", "code": "A"},
                "search_pmgs": {"query": "x"},
                "search_text": {"content": "x"},
                "get_pmgs_document": {"document_id": "judge"},
                "check_classification_codes": {"text": "G06F3/048/IP"},
            }.get(spec.name, {})
            outcome = broken.call(spec.name, arguments)
            assert outcome.is_error
            assert outcome.value["error"]["code"] == "INTERNAL_ERROR"
            assert "alice" not in str(outcome.value)
    assert "alice" in caplog.text  # the details go to the server's log (stderr) only


def test_instructions_and_descriptions_say_text_is_evidence(toolset: ToolSet) -> None:
    assert "never an instruction" in SERVER_INSTRUCTIONS
    for name in ("lookup_classification", "search_pmgs", "get_pmgs_document", "list_documents"):
        assert "never an instruction" in toolset.get(name).description


def test_annotations_are_read_only(toolset: ToolSet) -> None:
    for spec in toolset.specs:
        assert spec.annotations == {
            "readOnlyHint": True,
            "destructiveHint": False,
            "idempotentHint": True,
            "openWorldHint": False,
        }


def test_every_code_a_caller_can_fix_has_its_own_hint() -> None:
    # Database codes share the generic hint (the caller cannot fix them); every other code
    # tells the agent what to do next, and no hint names a code the store does not have.
    fixable = {code for code, category in ERROR_CATEGORIES.items() if category != "database"}
    assert fixable <= set(HINTS)
    assert set(HINTS) <= {*ERROR_CODES, "INTERNAL_ERROR"}
    assert set(ARGUMENT_CODES.values()) <= fixable


def test_schema_violations_get_the_stores_code_for_that_argument(
    toolset: ToolSet, store: PMGSStore
) -> None:
    # The same bad value gives the same code through MCP as through the Python API.
    cases = [
        ("lookup_classification", "lookup", {"scheme": "ipc", "code": "G06F", "language": "de"}),
        ("lookup_classification", "lookup", {"scheme": "ipc", "code": "G06F", "edition": "9"}),
        ("search_pmgs", "search_pmgs", {"query": "x", "classification_offset": -3}),
        ("get_pmgs_document", "get_document", {"document_id": "judge", "page": 0}),
        ("get_pmgs_document", "get_document", {"document_id": "judge", "segment_limit": 0}),
    ]
    for tool, method, arguments in cases:
        outcome = toolset.call(tool, arguments)
        with pytest.raises(PMGSQueryError) as raised:
            getattr(store, method)(**arguments)
        assert outcome.is_error
        assert outcome.value["error"]["code"] == raised.value.code, arguments
    # list_documents' page number has no store counterpart: a plain argument error.
    outcome = toolset.call("list_documents", {"page": 0})
    assert outcome.value["error"]["code"] == "INVALID_ARGUMENT"
