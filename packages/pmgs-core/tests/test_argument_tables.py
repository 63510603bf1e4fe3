"""Each integer argument of each store method at minimum-1, minimum, maximum, maximum+1.

Issue 22.

The bounds, codes and messages are written by hand from docs/store.md (limits 1-200,
offsets 0 to 2**63-1, document pages and sections 1 to 2**63-1), not read from the store's
constants, so that a drifted bound or an off-by-one comparison fails here. A rejected value
must give the stable code and name the argument (``details.argument`` where the store puts
it, else the start of the message); a value at a bound must pass the check (the call may
still find nothing, but never with that argument's code). Values that are not integers
(booleans included, which Python counts as ints) get the same code.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any

import pytest

from pmgs_core import PMGSQueryError, PMGSStore

BIG = 9223372036854775807
"""2**63 - 1, SQLite's largest integer."""

Call = Callable[[PMGSStore, dict[str, Any]], Any]

METHODS: dict[str, Call] = {
    "lookup": lambda s, kw: s.lookup("ipc", "G06F", **kw),
    "search": lambda s, kw: s.search("合成", **kw),
    "search_documents": lambda s, kw: s.search_documents("合成", **kw),
    "search_pmgs": lambda s, kw: s.search_pmgs("合成", **kw),
    "get_document": lambda s, kw: s.get_document("judge", **kw),
    "list_documents": lambda s, kw: s.list_documents(**kw),
    "list_quarantine": lambda s, kw: s.list_quarantine(**kw),
    "hierarchy": lambda s, kw: s.hierarchy("children", "ipc", "G06F", **kw),
}

LIMIT = (1, 200, "INVALID_LIMIT")
OFFSET = (0, BIG, "INVALID_OFFSET")
SELECTOR = (1, BIG, "INVALID_DOCUMENT_SELECTOR")

BOUNDS: list[tuple[str, str, tuple[int, int, str]]] = [
    ("lookup", "relation_limit", LIMIT),
    ("lookup", "relation_offset", OFFSET),
    ("search", "limit", LIMIT),
    ("search", "offset", OFFSET),
    ("search_documents", "limit", LIMIT),
    ("search_documents", "offset", OFFSET),
    ("search_pmgs", "limit", LIMIT),
    ("search_pmgs", "classification_offset", OFFSET),
    ("search_pmgs", "document_offset", OFFSET),
    ("get_document", "page", SELECTOR),
    ("get_document", "section", SELECTOR),
    ("get_document", "segment_limit", LIMIT),
    ("get_document", "segment_offset", OFFSET),
    ("get_document", "related_classification_limit", LIMIT),
    ("get_document", "related_classification_offset", OFFSET),
    ("list_documents", "limit", LIMIT),
    ("list_documents", "offset", OFFSET),
    ("list_quarantine", "limit", LIMIT),
    ("list_quarantine", "offset", OFFSET),
    ("hierarchy", "limit", LIMIT),
    ("hierarchy", "offset", OFFSET),
]
"""(method, argument, (minimum, maximum, code)): from docs/store.md."""

ARGUMENT_CODES = {"INVALID_LIMIT", "INVALID_OFFSET", "INVALID_DOCUMENT_SELECTOR"}


def _rows() -> list[tuple[str, str, object, str | None]]:
    rows: list[tuple[str, str, object, str | None]] = []
    for method, argument, (low, high, code) in BOUNDS:
        rows += [
            (method, argument, low - 1, code),
            (method, argument, low, None),
            (method, argument, high, None),
            (method, argument, high + 1, code),
            (method, argument, True, code),
            (method, argument, float(low), code),
            (method, argument, str(low), code),
        ]
    return rows


ROWS = _rows()


def _names_the_argument(error: PMGSQueryError, argument: str) -> bool:
    return error.details.get("argument") == argument or error.message.startswith(f"{argument} ")


def _failure(call: Call, store: PMGSStore, kwargs: dict[str, Any]) -> PMGSQueryError | None:
    try:
        call(store, kwargs)
    except PMGSQueryError as error:
        return error
    return None


@pytest.mark.parametrize(("method", "argument", "value", "code"), ROWS)
def test_integer_argument_bounds(
    store: PMGSStore, method: str, argument: str, value: object, code: str | None
) -> None:
    call = METHODS[method]
    if code is None:
        error = _failure(call, store, {argument: value})
        # Another failure is fine (page 2**63-1 does not exist), never this argument's.
        assert error is None or not (
            error.code in ARGUMENT_CODES and _names_the_argument(error, argument)
        ), (error.code, error.message)
        return
    with pytest.raises(PMGSQueryError) as raised:
        call(store, {argument: value})
    assert raised.value.code == code
    assert _names_the_argument(raised.value, argument), raised.value.message


@pytest.mark.parametrize(
    ("method", "argument", "message", "details"),
    [
        (
            "lookup",
            "relation_limit",
            "relation_limit must be an integer from 1 to 200",
            {"argument": "relation_limit", "max": 200},
        ),
        (
            "search_pmgs",
            "classification_offset",
            f"classification_offset must be an integer from 0 to {BIG}",
            {"argument": "classification_offset"},
        ),
        ("get_document", "page", "page must be a positive integer", {}),
        (
            "get_document",
            "section",
            "section must be a positive integer (pass a heading or locator string as locator=)",
            {},
        ),
    ],
)
def test_messages_and_details_of_each_kind(
    store: PMGSStore, method: str, argument: str, message: str, details: dict[str, Any]
) -> None:
    with pytest.raises(PMGSQueryError) as raised:
        METHODS[method](store, {argument: -1})
    assert raised.value.message == message
    assert dict(raised.value.details) == details


def test_document_list_paging_against_sql(store: PMGSStore, ro_conn: sqlite3.Connection) -> None:
    """has_more / next_offset of a counted list at every window around its end."""
    keys = [str(k) for (k,) in ro_conn.execute("SELECT document_key FROM document ORDER BY id")]
    total = len(keys)
    assert total >= 3
    windows = [(1, 0), (1, total - 1), (2, total - 1), (1, total), (2, total - 2), (3, total - 2)]
    windows += [(3, total + 4), (200, max(0, total - 200)), (200, max(0, total - 199))]
    for limit, offset in windows:
        page = store.list_documents(limit=limit, offset=offset)
        shown = keys[offset : offset + limit]
        more = offset + len(shown) < total
        assert [item["document_id"] for item in page["items"]] == shown, (limit, offset)
        assert (page["count"], page["total_count"]) == (len(shown), total)
        assert page["has_more"] is more, (limit, offset)
        assert page["next_offset"] == (offset + len(shown) if more else None), (limit, offset)
