"""Every tool's arguments, on the widest server (``--tools all --allow-write``).

A tool's input properties are the names of the parameters it passes them to, by keyword
(ADR 0021): here each one is checked against the real signature of ``PMGSStore`` or
``Collection`` (introspected, never restated), and the argument checker is compared with
``jsonschema`` on every tool's schema, the collection's included.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from pathlib import Path

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_validation import _arguments, assert_agrees_with_jsonschema

from pmgs_core import Collection, PMGSStore
from pmgs_mcp.app import build_tools
from pmgs_mcp.collection_tools import COLLECTION_TOOL_NAMES
from pmgs_mcp.tools import BROWSE_TOOL_NAMES, DEFAULT_TOOL_NAMES, ToolSet

ALL_TOOLS = (*DEFAULT_TOOL_NAMES, *BROWSE_TOOL_NAMES, *COLLECTION_TOOL_NAMES)
OWNERS: dict[str, type] = {"store": PMGSStore, "collection": Collection}
KEYWORD_KINDS = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)


@pytest.fixture(scope="module")
def widest(store: PMGSStore, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ToolSet]:
    path = Path(tmp_path_factory.mktemp("collection")) / "collection.sqlite"
    with Collection(path) as collection:
        yield build_tools(store, include_browse=True, collection=collection)


def _parameters(target: str) -> dict[str, inspect.Parameter]:
    owner, method = target.split(".")
    parameters = dict(inspect.signature(getattr(OWNERS[owner], method)).parameters)
    parameters.pop("self")
    return parameters


def test_the_widest_server_lists_every_tool(widest: ToolSet) -> None:
    assert sorted(spec.name for spec in widest.specs) == sorted(ALL_TOOLS)


@pytest.mark.parametrize("tool", ALL_TOOLS)
def test_every_property_is_a_keyword_parameter_of_what_the_tool_calls(
    widest: ToolSet, tool: str
) -> None:
    spec = widest.get(tool)
    assert spec.calls, "a tool names the methods its arguments go to"
    targets = [_parameters(target) for target in spec.calls]
    properties = spec.input_schema["properties"]
    for name in properties:
        if name in spec.own:
            continue
        kinds = {t[name].kind for t in targets if name in t}
        assert kinds, f"{tool}: {name} is a parameter of none of {spec.calls}"
        assert kinds <= set(KEYWORD_KINDS), f"{tool}: {name} cannot be passed by keyword"
    # A parameter the method requires is an argument the tool requires.
    required = set(spec.input_schema.get("required", ()))
    for target, parameters in zip(spec.calls, targets, strict=True):
        for name, parameter in parameters.items():
            if parameter.default is inspect.Parameter.empty:
                assert name in required, f"{tool}: {target} needs {name}"


def test_own_arguments_are_few_and_named(widest: ToolSet) -> None:
    owned = {spec.name: set(spec.own) for spec in widest.specs if spec.own}
    assert owned == {
        "lookup_classification": {"detail"},
        "search_pmgs": {"detail"},
        "get_pmgs_document": {"detail"},
        "search_text": {"source"},
        "list_documents": {"page", "source"},
        "list_categories": {"source"},
        "get_document_count": {"source"},
    }


@pytest.mark.parametrize("tool", ALL_TOOLS)
@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_checker_agrees_with_jsonschema_on_every_tool(
    widest: ToolSet, tool: str, data: st.DataObject
) -> None:
    schema = widest.get(tool).input_schema
    jsonschema.Draft202012Validator.check_schema(schema)
    assert_agrees_with_jsonschema(schema, data.draw(_arguments(schema)))
