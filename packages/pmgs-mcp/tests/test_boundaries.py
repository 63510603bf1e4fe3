"""Every integer argument of every tool at minimum-1, minimum, maximum and maximum+1 (issue 22).

The table is written by hand from docs/mcp.md, not read from the tools' input schemas: a
bound that drifts in the schema, or a check that stops applying (a truthiness test that
lets ``minimum == 0`` through, so a negative offset reaches the store and the caller gets
the store's message instead of the argument check's), fails here. Each rejected value must
give the stable code, name the argument in ``details.argument`` and say the bound in the
message; each value at a bound must pass the argument check.

The whole table runs in process through the tool set (fast, and where mutation testing
looks), and once more through a real stdio server and the SDK's client.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from pmgs_mcp_testkit import Reference

from pmgs_core import PMGSStore, load_schema
from pmgs_mcp.tools import ToolSet, build_toolset
from pmgs_mcp.validation import ArgumentError, check_arguments

BIG = 9223372036854775807
"""2**63 - 1: SQLite's largest integer, the largest offset and document page."""
PAGE_NUMBER = 2147483647
"""2**31 - 1: the largest list_documents page number."""

BASE: dict[str, dict[str, Any]] = {
    "lookup_classification": {"scheme": "ipc", "code": "G06F"},
    "search_pmgs": {"query": "合成"},
    "get_pmgs_document": {"document_id": "judge"},
    "list_documents": {},
    "search_text": {"content": "合成"},
}
"""Arguments that make each call otherwise valid."""

BOUNDS: list[tuple[str, str, int, int, str]] = [
    ("lookup_classification", "relation_limit", 1, 200, "INVALID_LIMIT"),
    ("lookup_classification", "relation_offset", 0, BIG, "INVALID_OFFSET"),
    ("search_pmgs", "limit", 1, 200, "INVALID_LIMIT"),
    ("search_pmgs", "classification_offset", 0, BIG, "INVALID_OFFSET"),
    ("search_pmgs", "document_offset", 0, BIG, "INVALID_OFFSET"),
    ("get_pmgs_document", "page", 1, BIG, "INVALID_DOCUMENT_SELECTOR"),
    ("get_pmgs_document", "section", 1, BIG, "INVALID_DOCUMENT_SELECTOR"),
    ("get_pmgs_document", "segment_limit", 1, 200, "INVALID_LIMIT"),
    ("get_pmgs_document", "segment_offset", 0, BIG, "INVALID_OFFSET"),
    ("get_pmgs_document", "related_classification_limit", 1, 200, "INVALID_LIMIT"),
    ("get_pmgs_document", "related_classification_offset", 0, BIG, "INVALID_OFFSET"),
    ("list_documents", "limit", 1, 100, "INVALID_LIMIT"),
    ("list_documents", "page", 1, PAGE_NUMBER, "INVALID_ARGUMENT"),
    ("search_text", "limit", 1, 200, "INVALID_LIMIT"),
]
"""(tool, argument, minimum, maximum, code of a value outside): from docs/mcp.md."""

ARGUMENT_CODES = {
    "INVALID_LIMIT",
    "INVALID_OFFSET",
    "INVALID_DOCUMENT_SELECTOR",
    "INVALID_ARGUMENT",
}


def _cases() -> list[tuple[str, str, int, str | None, str | None]]:
    """(tool, argument, value, expected code or None, expected message or None)."""
    cases: list[tuple[str, str, int, str | None, str | None]] = []
    for tool, argument, low, high, code in BOUNDS:
        cases.append(
            (tool, argument, low - 1, code, f"{argument} must be at least {low}; got {low - 1}")
        )
        cases.append((tool, argument, low, None, None))
        cases.append((tool, argument, high, None, None))
        cases.append(
            (tool, argument, high + 1, code, f"{argument} must be at most {high}; got {high + 1}")
        )
    return cases


CASES = _cases()


@pytest.fixture(scope="module")
def toolset(store: PMGSStore) -> ToolSet:
    return build_toolset(store, load_schema, include_browse=True)


def _check(
    answer: dict[str, Any] | None,
    is_error: bool,
    argument: str,
    code: str | None,
    message: str | None,
) -> None:
    if code is None:
        # At a bound: the argument check passes. The call may still fail for another reason
        # (page 2**63-1 of a document does not exist), but never on this argument.
        if is_error:
            assert answer is not None
            error = answer["error"]
            assert not (
                error["code"] in ARGUMENT_CODES
                and (error.get("details") or {}).get("argument") == argument
            ), error
        return
    assert is_error, answer
    assert answer is not None
    assert answer["error"]["code"] == code
    assert answer["error"]["details"] == {"argument": argument}
    assert answer["error"]["message"] == message


@pytest.mark.parametrize(("tool", "argument", "value", "code", "message"), CASES)
def test_integer_argument_bounds(
    toolset: ToolSet, tool: str, argument: str, value: int, code: str | None, message: str | None
) -> None:
    outcome = toolset.call(tool, {**BASE[tool], argument: value})
    _check(outcome.value if outcome.is_error else None, outcome.is_error, argument, code, message)


def test_every_integer_argument_is_in_the_table(toolset: ToolSet) -> None:
    """A new integer argument must get its boundary rows here."""
    listed = {(tool, argument) for tool, argument, *_ in BOUNDS}
    found = set()
    for spec in toolset.specs:
        for name, prop in spec.input_schema["properties"].items():
            types = prop["type"] if isinstance(prop["type"], list) else [prop["type"]]
            if "integer" in types:
                found.add((spec.name, name))
    assert found == listed


def test_negative_classification_offset_is_the_argument_checks_error(toolset: ToolSet) -> None:
    """The audit's planted bug: ``if minimum and value < minimum`` lets -1 reach the store."""
    outcome = toolset.call("search_pmgs", {"query": "合成", "classification_offset": -1})
    assert outcome.is_error
    assert outcome.value["error"] == {
        "code": "INVALID_OFFSET",
        "message": "classification_offset must be at least 0; got -1",
        "hint": "Use an offset of 0 or more; to continue, pass the next_*_offset of the "
        "previous page.",
        "details": {"argument": "classification_offset"},
    }


async def _over_stdio(reference: Reference) -> list[tuple[bool, dict[str, Any] | None]]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "pmgs_mcp", "--db", str(reference.db), "--tools", "all"],
    )
    answers: list[tuple[bool, dict[str, Any] | None]] = []
    async with Client(params, read_timeout_seconds=30.0) as client:
        for tool, argument, value, _, _ in CASES:
            result = await client.call_tool(tool, {**BASE[tool], argument: value})
            text = result.content[0].text  # type: ignore[union-attr]
            answers.append((bool(result.is_error), json.loads(text) if result.is_error else None))
    return answers


def test_integer_argument_bounds_over_stdio(reference: Reference) -> None:
    answers = anyio.run(_over_stdio, reference)
    for (tool, argument, value, code, message), (is_error, answer) in zip(
        CASES, answers, strict=True
    ):
        try:
            _check(answer, is_error, argument, code, message)
        except AssertionError as error:
            raise AssertionError(f"{tool} {argument}={value}: {error}") from None


# -- the argument checker's own messages, on small hand-written schemas -----------------------

_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["q"],
    "properties": {
        "q": {"type": "string", "minLength": 1, "maxLength": 4, "pattern": "^[a-z]+$"},
        "n": {"type": ["integer", "null"], "minimum": 1, "maximum": 9, "default": None},
        "x": {"type": "number", "minimum": 0.5, "default": 1.0},
        "e": {"enum": ["a", "b"], "default": "a"},
        "tags": {
            "type": "array",
            "items": {"type": "string", "enum": ["p", "q"]},
            "minItems": 1,
            "maxItems": 2,
            "uniqueItems": True,
        },
        "o": {
            "type": "object",
            "required": ["k"],
            "additionalProperties": False,
            "properties": {"k": {"type": "boolean"}},
        },
    },
}

_MESSAGES: list[tuple[object, str, str | None, str]] = [
    # (arguments, message, argument, problem)
    ([], "arguments must be an object, not array", None, "not_an_object"),
    ({}, "missing required argument q", "q", "missing"),
    ({"q": "a", "zz": 1, "yy": 2}, "unknown argument(s) yy, zz; accepted: e, n, o, q, tags, x",
     "yy", "unknown"),
    ({"q": 5}, "q must be string, not integer 5", "q", "value"),
    ({"q": ""}, "q must have at least 1 character(s); got ''", "q", "value"),
    ({"q": "abcde"}, "q must have at most 4 characters; got 5", "q", "value"),
    ({"q": "ab1"}, "q has an invalid form: 'ab1'", "q", "value"),
    ({"q": "a", "n": True}, "n must be integer or null, not boolean True", "n", "value"),
    ({"q": "a", "n": 2.5}, "n must be integer or null, not number 2.5", "n", "value"),
    ({"q": "a", "n": 0}, "n must be at least 1; got 0", "n", "value"),
    ({"q": "a", "n": 10.0}, "n must be at most 9; got 10", "n", "value"),
    ({"q": "a", "x": 0.25}, "x must be at least 0.5; got 0.25", "x", "value"),
    ({"q": "a", "x": "1"}, "x must be number, not string '1'", "x", "value"),
    ({"q": "a", "e": "c"}, "e must be one of 'a', 'b'; got 'c'", "e", "value"),
    ({"q": "a", "tags": []}, "tags must have at least 1 item(s)", "tags", "value"),
    ({"q": "a", "tags": ["p", "q", "p"]}, "tags must have at most 2 items", "tags", "value"),
    ({"q": "a", "tags": ["p", "p"]}, "tags must not repeat an item", "tags", "value"),
    ({"q": "a", "tags": ["p", "r"]}, "tags[1] must be one of 'p', 'q'; got 'r'", "tags[1]",
     "value"),
    ({"q": "a", "o": {}}, "missing required argument o.k", "o.k", "missing"),
    ({"q": "a", "o": {"k": True, "j": 1}}, "unknown argument(s) o.j; accepted: k", "o.j",
     "unknown"),
    ({"q": "a", "o": {"k": 1}}, "o.k must be boolean, not integer 1", "o.k", "value"),
    ({"q": "a", "o": []}, "o must be object, not array []", "o", "value"),
]  # fmt: skip


@pytest.mark.parametrize(("arguments", "message", "argument", "problem"), _MESSAGES)
def test_argument_check_messages(
    arguments: object, message: str, argument: str | None, problem: str
) -> None:
    with pytest.raises(ArgumentError) as raised:
        check_arguments(_SCHEMA, arguments)  # type: ignore[arg-type]
    error = raised.value
    assert (error.message, error.argument, error.problem) == (message, argument, problem)
    assert str(error) == message


def test_accepted_arguments_are_normalised() -> None:
    checked = check_arguments(
        _SCHEMA, {"q": "ab", "n": 3.0, "x": 2, "tags": ["q", "p"], "o": {"k": False}}
    )
    assert checked == {
        "q": "ab",
        "n": 3,
        "x": 2,
        "e": "a",
        "tags": ["q", "p"],
        "o": {"k": False},
    }
    assert type(checked["n"]) is int
    assert check_arguments(_SCHEMA, {"q": "a", "n": None})["n"] is None


def test_long_values_are_cut_in_messages() -> None:
    with pytest.raises(ArgumentError) as raised:
        check_arguments(_SCHEMA, {"q": "a", "e": "z" * 200})
    # At most 60 characters of the value's repr are shown, the last one an ellipsis.
    assert raised.value.message == "e must be one of 'a', 'b'; got '" + "z" * 58 + "…"
