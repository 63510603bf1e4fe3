"""hierarchy(), parents(), children(): bounded summaries, paging, no per-item lookups."""

from __future__ import annotations

import sqlite3

import pytest

from pmgs_core import PMGSQueryError, PMGSStore


def _error(call: object) -> PMGSQueryError:
    assert callable(call)
    with pytest.raises(PMGSQueryError) as caught:
        call()
    return caught.value


def test_theme_fterms_paged_200_at_a_time_without_gaps_or_repeats(
    store: PMGSStore, ro_conn: sqlite3.Connection, examples: dict[str, str]
) -> None:
    theme = examples["fterm_large_theme"]
    expected = {
        row[0]
        for row in ro_conn.execute(
            "SELECT code FROM concept WHERE scheme = 'fterm' AND status = 'canonical' "
            "AND code LIKE ? AND code <> ?",
            (theme + "%", theme),
        )
    }
    assert len(expected) > 200
    seen: list[str] = []
    offset: int | None = 0
    pages = 0
    while offset is not None:
        page = store.hierarchy("descendants", "fterm", theme, limit=200, offset=offset)
        assert page["count"] == len(expected)
        assert len(page["items"]) <= 200
        seen += [item["code"] for item in page["items"]]
        offset = page["next_offset"]
        assert page["truncated"] == (offset is not None)
        pages += 1
    assert pages == 2
    assert len(seen) == len(set(seen))
    assert set(seen) == expected
    # Structural order: every viewpoint comes before its terms.
    for code in seen:
        if len(code) == 9:
            assert seen.index(code[:7]) < seen.index(code)


def test_children_summaries(store: PMGSStore, examples: dict[str, str]) -> None:
    theme = examples["fterm_large_theme"]
    page = store.hierarchy("children", "fterm", theme, limit=3)
    assert page["match_status"] == "exact"
    assert page["count"] > 3
    assert page["truncated"] is True
    assert page["next_offset"] == 3
    for item in page["items"]:
        assert set(item) == {"scheme", "edition", "code", "version", "label", "record_status"}
        assert item["code"].startswith(theme)
        assert item["label"]
    rest = store.children("fterm", theme)
    assert isinstance(rest, list)
    assert [i["code"] for i in rest[:3]] == [i["code"] for i in page["items"]]
    assert len(rest) == page["count"]


def test_pages_use_a_bounded_number_of_queries(store: PMGSStore, examples: dict[str, str]) -> None:
    """Summaries are batched: a page never costs one query per item."""
    statements: list[str] = []
    connection = store._connection()
    # BEGIN and COMMIT frame every call (one read snapshot); they are not queries.
    connection.set_trace_callback(
        lambda sql: None if sql in {"BEGIN", "COMMIT"} else statements.append(sql)
    )
    try:
        children = store.hierarchy("children", "fterm", examples["fterm_large_theme"], limit=200)
        children_statements = len(statements)
        statements.clear()
        theme = examples["fterm_large_theme"]
        descendants = store.hierarchy("descendants", "fterm", theme, limit=200)
    finally:
        connection.set_trace_callback(None)
    assert children["items"]
    assert children_statements <= 6
    assert len(descendants["items"]) == 200
    assert len(statements) <= 20, statements  # one per tree level plus a fixed few


def test_parents_top_first(store: PMGSStore, examples: dict[str, str]) -> None:
    code = examples["fi_with_development_code_and_file_symbol"]
    parents = store.parents("fi", code)
    assert isinstance(parents, list)
    codes = [p["code"] for p in parents]
    assert codes[0] == code[0]  # the section
    assert code.startswith(codes[2])  # the subclass
    assert code not in codes
    page = store.parents("fi", code, limit=2, offset=1)
    assert not isinstance(page, list)
    assert [i["code"] for i in page["items"]] == codes[1:3]
    assert page["count"] == len(codes)


def test_fterm_term_parents(store: PMGSStore, examples: dict[str, str]) -> None:
    term = examples["fterm_term"]
    parents = store.parents("fterm", term)
    assert isinstance(parents, list)
    assert [p["code"] for p in parents][:2] == [term[:5], term[:7]]


def test_ipc_children_have_versions(store: PMGSStore, examples: dict[str, str]) -> None:
    code = examples["ipc_two_versions_old_expired"]
    parent = store.parents("ipc", code, limit=200)
    assert not isinstance(parent, list)
    assert parent["edition"] == "8U"
    direct = parent["items"][-1]["code"]
    children = store.children("ipc", direct, edition="8U", limit=200)
    assert not isinstance(children, list)
    item = next(i for i in children["items"] if i["code"] == code)
    assert item["version"] == store.lookup("ipc", code)["revision"]["version"]  # type: ignore[index]


def test_unknown_code_is_an_empty_page(store: PMGSStore) -> None:
    page = store.hierarchy("children", "fi", "H99Z999/99")
    assert page["match_status"] == "not_found"
    assert page["items"] == []
    assert page["count"] == 0


@pytest.mark.parametrize(
    ("kwargs", "code"),
    [
        ({"direction": "siblings"}, "INVALID_ARGUMENT"),
        ({"limit": 0}, "INVALID_LIMIT"),
        ({"limit": 201}, "INVALID_LIMIT"),
        ({"offset": -5}, "INVALID_OFFSET"),
        ({"offset": 2**63}, "INVALID_OFFSET"),
        ({"edition": "8U"}, "INVALID_EDITION"),
        ({"language": "zh"}, "INVALID_LANGUAGE"),
        ({"release": "JPPM1"}, "RELEASE_NOT_FOUND"),
        ({"code": "not a code"}, "INVALID_CODE"),
        ({"scheme": "uspc"}, "INVALID_SCHEME"),
    ],
)
def test_hierarchy_errors(store: PMGSStore, kwargs: dict[str, object], code: str) -> None:
    arguments: dict[str, object] = {"direction": "children", "scheme": "fi", "code": "A86T1/00"}
    arguments.update(kwargs)
    assert _error(lambda: store.hierarchy(**arguments)).code == code  # type: ignore[arg-type]
