"""get_document() selectors and paging, related_documents(), the browse methods."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from pmgs_core import PMGSQueryError, PMGSStore


def _error(call: object) -> PMGSQueryError:
    assert callable(call)
    with pytest.raises(PMGSQueryError) as caught:
        call()
    return caught.value


def test_whole_document_paged(store: PMGSStore, examples: dict[str, str]) -> None:
    key = examples["injected_instruction_document"]
    first = store.get_document(key)
    count = first["segment_count"]
    assert count > 200
    assert first["segments_truncated"] is True
    assert first["next_segment_offset"] == 200
    sections = [s["section"] for s in first["segments"]]
    second = store.get_document(key, segment_offset=200)
    sections += [s["section"] for s in second["segments"]]
    assert sections == list(range(1, count + 1))
    assert second["next_segment_offset"] is None
    assert first["sources"][0]["file"].startswith("FTERM/")
    assert first["related_classification_count"] >= 1


@pytest.mark.parametrize("document_id", ["\udc80", "fterm_explanation:ja:\ud800", "a\x00b"])
def test_a_document_id_no_row_can_hold_is_not_found(store: PMGSStore, document_id: str) -> None:
    # Issue 17: a lone surrogate escaped as UnicodeEncodeError (a crash, not a code).
    assert _error(lambda: store.get_document(document_id)).code == "DOCUMENT_NOT_FOUND"


@pytest.mark.parametrize("locator", ["\udc80", "page:\ud800", "page:1\x00"])
def test_a_locator_no_row_can_hold_is_not_found(
    store: PMGSStore, examples: dict[str, str], locator: str
) -> None:
    key = examples["injected_instruction_document"]
    error = _error(lambda: store.get_document(key, locator=locator))
    assert error.code == "DOCUMENT_SELECTOR_NOT_FOUND"


def test_section_and_locator_selectors(store: PMGSStore, examples: dict[str, str]) -> None:
    key = examples["injected_instruction_document"]
    one = store.get_document(key, section=3)
    assert [s["section"] for s in one["segments"]] == [3]
    assert one["selector"] == {"page": None, "section": 3, "locator": None}
    by_locator = store.get_document(key, locator=one["segments"][0]["source"]["locator"])
    assert by_locator["segments"] == one["segments"]
    heading = one["segments"][0]["heading"]
    assert heading is not None
    assert 3 in [s["section"] for s in store.get_document(key, locator=heading)["segments"]]


def test_page_selector(writable_copy: Path, examples: dict[str, str]) -> None:
    key = examples["injected_instruction_document"]
    connection = sqlite3.connect(writable_copy)
    connection.execute(
        "UPDATE document_text SET page = (sequence_number + 1) / 2 WHERE document_id = "
        "(SELECT id FROM document WHERE document_key = ?)",
        (key,),
    )
    connection.commit()
    connection.close()
    with PMGSStore.open(writable_copy) as altered:
        page = altered.get_document(key, page=2)
        assert [s["section"] for s in page["segments"]] == [3, 4]
        assert all(s["page"] == 2 for s in page["segments"])
        error = _error(lambda: altered.get_document(key, page=10_000))
        assert error.code == "DOCUMENT_SELECTOR_NOT_FOUND"


def test_related_classifications_paged(store: PMGSStore, examples: dict[str, str]) -> None:
    key = examples["injected_instruction_document"]
    first = store.get_document(key, section=1, related_classification_limit=2)
    total = first["related_classification_count"]
    assert total > 2
    codes = [c["code"] for c in first["related_classifications"]]
    offset = first["next_related_classification_offset"]
    while offset is not None:
        page = store.get_document(
            key, section=1, related_classification_limit=2, related_classification_offset=offset
        )
        codes += [c["code"] for c in page["related_classifications"]]
        offset = page["next_related_classification_offset"]
    assert len(codes) == total


@pytest.mark.parametrize(
    ("kwargs", "code"),
    [
        ({"document_id": "fi_handbook:ja:H99Z9/99"}, "DOCUMENT_NOT_FOUND"),
        ({"document_id": ""}, "INVALID_ARGUMENT"),
        ({"section": 99999}, "DOCUMENT_SELECTOR_NOT_FOUND"),
        ({"locator": "row:999999"}, "DOCUMENT_SELECTOR_NOT_FOUND"),
        ({"page": 1, "section": 1}, "INVALID_DOCUMENT_SELECTOR"),
        ({"section": 1, "locator": "row:1"}, "INVALID_DOCUMENT_SELECTOR"),
        ({"section": "row:1"}, "INVALID_DOCUMENT_SELECTOR"),
        ({"section": 0}, "INVALID_DOCUMENT_SELECTOR"),
        ({"page": -1}, "INVALID_DOCUMENT_SELECTOR"),
        ({"section": True}, "INVALID_DOCUMENT_SELECTOR"),
        ({"locator": ""}, "INVALID_DOCUMENT_SELECTOR"),
        ({"segment_limit": 201}, "INVALID_LIMIT"),
        ({"related_classification_limit": 0}, "INVALID_LIMIT"),
        ({"segment_offset": 2**63}, "INVALID_OFFSET"),
        ({"related_classification_offset": -1}, "INVALID_OFFSET"),
    ],
)
def test_document_errors(
    store: PMGSStore, examples: dict[str, str], kwargs: dict[str, object], code: str
) -> None:
    arguments: dict[str, object] = {"document_id": examples["injected_instruction_document"]}
    arguments.update(kwargs)
    assert _error(lambda: store.get_document(**arguments)).code == code  # type: ignore[arg-type]


def test_related_documents(store: PMGSStore, examples: dict[str, str]) -> None:
    theme = examples["fterm_large_theme"]
    record = store.related_documents("fterm", theme)
    assert record["match_status"] == "exact"
    keys = [d["document_id"] for d in record["documents"]]
    assert f"fterm_explanation:ja:{theme}" in keys
    assert record["document_count"] == len(record["documents"])
    assert store.related_documents("fi", "H99Z999/99")["match_status"] == "not_found"
    assert _error(lambda: store.related_documents("fi", "A86T1/00", edition="8U")).code == (
        "INVALID_EDITION"
    )


def test_browse_methods(store: PMGSStore, ro_conn: sqlite3.Connection) -> None:
    total = ro_conn.execute("SELECT count(*) FROM document").fetchone()[0]
    assert store.document_count() == total
    assert store.document_count("judge") == 1
    page = store.list_documents(limit=50)
    assert page["total_count"] == total
    assert page["has_more"] is True
    assert page["count"] == 50
    judges = store.list_documents("judge")
    assert [item["kind"] for item in judges["items"]] == ["judge"]
    categories = store.categories()
    assert sum(k["count"] for k in categories["document_kinds"]) == total
    assert categories["themes"]
    assert all(t["count"] > 0 for t in categories["themes"])
    assert _error(lambda: store.list_documents("pdf")).code == "INVALID_ARGUMENT"
    assert _error(lambda: store.list_documents(offset=2**63)).code == "INVALID_OFFSET"
