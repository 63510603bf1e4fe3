"""The argument checker agrees with ``jsonschema`` on the tools' own input schemas."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pmgs_mcp.schemas import (
    DOCUMENT_COUNT_INPUT,
    DOCUMENT_INPUT,
    LIST_CATEGORIES_INPUT,
    LIST_DOCUMENTS_INPUT,
    LOOKUP_INPUT,
    RELEASE_INPUT,
    SEARCH_INPUT,
)
from pmgs_mcp.validation import ArgumentError, check_arguments

SCHEMAS = {
    "lookup": LOOKUP_INPUT,
    "search": SEARCH_INPUT,
    "document": DOCUMENT_INPUT,
    "list_documents": LIST_DOCUMENTS_INPUT,
    "categories": LIST_CATEGORIES_INPUT,
    "count": DOCUMENT_COUNT_INPUT,
    "release": RELEASE_INPUT,
}

_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-5, max_value=300),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([0.0, 1.0, 20.0, 200.0, 201.0, 2.5]),
    st.text(max_size=8),
    st.sampled_from(["fi", "fterm", "ipc", "8U", "ja", "en", "", "current", "judge"]),
    st.sampled_from(["classification", "document", "fi_handbook", "G06F3/048", "あ" * 513]),
)
_values = st.one_of(
    _scalars,
    st.lists(_scalars, max_size=4),
    st.dictionaries(st.text(max_size=3), _scalars, max_size=2),
)


def _arguments(schema: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    known = sorted(schema["properties"])
    keys = st.sampled_from([*known, "unknown"])
    return st.dictionaries(keys, _values, max_size=len(known) + 1)


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_schemas_are_valid_draft_2020_12(name: str) -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMAS[name])


@pytest.mark.parametrize("name", sorted(SCHEMAS))
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_accepts_exactly_what_jsonschema_accepts(name: str, data: st.DataObject) -> None:
    schema = SCHEMAS[name]
    assert_agrees_with_jsonschema(schema, data.draw(_arguments(schema)))


def assert_agrees_with_jsonschema(schema: dict[str, Any], arguments: dict[str, Any]) -> None:
    """The checker accepts ``arguments`` exactly when ``jsonschema`` does."""
    reference_ok = jsonschema.Draft202012Validator(schema).is_valid(arguments)
    try:
        checked = check_arguments(schema, arguments)
    except ArgumentError:
        assert not reference_ok, f"rejected valid arguments {arguments!r}"
    else:
        assert reference_ok, f"accepted invalid arguments {arguments!r}"
        # Defaults are filled in, and what comes out is still valid.
        assert set(checked) == set(schema["properties"])
        assert jsonschema.Draft202012Validator(schema).is_valid(checked)


def test_defaults_are_filled_and_integral_floats_become_int() -> None:
    checked = check_arguments(LOOKUP_INPUT, {"scheme": "fi", "code": "A", "relation_limit": 20.0})
    assert checked == {
        "detail": "concise",
        "scheme": "fi",
        "code": "A",
        "release": "current",
        "edition": None,
        "language": "ja",
        "version": None,
        "relation_limit": 20,
        "relation_offset": 0,
    }
    assert type(checked["relation_limit"]) is int


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (None, "missing required argument query"),
        ({"query": 1}, "query must be string, not integer 1"),
        ({"query": "x", "limit": True}, "limit must be integer, not boolean True"),
        ({"query": "x", "limit": 0}, "limit must be at least 1; got 0"),
        ({"query": "x", "schemes": ["fi", "fi"]}, "schemes must not repeat an item"),
        ({"query": "x", "schemes": []}, "schemes must have at least 1 item(s)"),
        ({"query": "x", "bogus": 1, "other": 2}, "unknown argument(s) bogus, other; accepted:"),
        ({"query": "x", "language": "de"}, "language must be one of 'ja', 'en'; got 'de'"),
    ],
)
def test_messages_name_the_argument(arguments: dict[str, Any] | None, message: str) -> None:
    with pytest.raises(ArgumentError) as raised:
        check_arguments(SEARCH_INPUT, arguments)
    assert raised.value.message.startswith(message)


def test_arguments_must_be_an_object() -> None:
    with pytest.raises(ArgumentError, match="arguments must be an object"):
        check_arguments(SEARCH_INPUT, ["query"])  # type: ignore[arg-type]


def test_long_values_are_shortened_in_messages() -> None:
    with pytest.raises(ArgumentError) as raised:
        check_arguments(LOOKUP_INPUT, {"scheme": "x" * 10_000, "code": "A"})
    assert len(raised.value.message) < 200
