"""The concise form: hand-written expectations, and on real records every citation kept."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

from pmgs_core import PMGSStore, concise_record, concise_schema, load_schema

ATTR = "Attribution line of the package."
SHA_A = "a" * 64
SHA_B = "b" * 64


def _src(file: str, sha: str, locator: str) -> dict[str, str]:
    return {"file": file, "file_sha256": sha, "locator": locator, "attribution": ATTR}


def test_hand_written_record() -> None:
    long_text = "前" * 50 + "電池" + "後" * 200
    full = {
        "record_type": "combined_search_page",
        "attribution": ATTR,
        "notice": "N",
        "content_role": "source_evidence",
        "results_by_type": {
            "classification": {
                "record_type": "classification_search_page",
                "terms": [{"term": "電池", "path": "bigram"}],
                "attribution": ATTR,
                "notice": "N",
                "content_role": "source_evidence",
                "results": [
                    {
                        "code": "X1",
                        "matches": [
                            {"excerpt": "短い電池", "source": _src("a.csv", SHA_A, "row:2")},
                            {"excerpt": long_text, "source": _src("b.html", SHA_B, "p:1")},
                            {"excerpt": "再び", "source": _src("a.csv", SHA_A, "row:9")},
                        ],
                    }
                ],
            }
        },
    }
    expected = {
        "record_type": "combined_search_page",
        "attribution": ATTR,
        "notice": "N",
        "content_role": "source_evidence",
        "results_by_type": {
            "classification": {
                "record_type": "classification_search_page",
                "terms": [{"term": "電池", "path": "bigram"}],
                "results": [
                    {
                        "code": "X1",
                        "matches": [
                            {"excerpt": "短い電池", "source": {"file": "f1", "locator": "row:2"}},
                            {
                                # 30 before the term, 90 from it, cut marks on both sides
                                "excerpt": "…" + "前" * 30 + "電池" + "後" * 88 + "…",
                                "source": {"file": "f2", "locator": "p:1"},
                            },
                            {"excerpt": "再び", "source": {"file": "f1", "locator": "row:9"}},
                        ],
                    }
                ],
            }
        },
        "files": {
            "f1": {"path": "a.csv", "sha256": SHA_A},
            "f2": {"path": "b.html", "sha256": SHA_B},
        },
    }
    assert concise_record(full) == expected
    assert full["results_by_type"]["classification"]["attribution"] == ATTR  # input untouched


def _citations(record: Any, files: dict[str, Any] | None = None) -> list[tuple[str, str, str]]:
    """Every (file path, sha256, locator) a record cites, in order, from either form."""
    out: list[tuple[str, str, str]] = []

    def walk(value: Any) -> None:
        if isinstance(value, list):
            for item in value:
                walk(item)
        elif isinstance(value, dict):
            source = value.get("source")
            if isinstance(source, dict):
                if files is None:
                    out.append((source["file"], source["file_sha256"], source["locator"]))
                else:
                    entry = files[source["file"]]
                    out.append((entry["path"], entry["sha256"], source["locator"]))
            for key, item in value.items():
                if key not in {"source", "files"}:
                    walk(item)

    walk(record)
    return out


@pytest.mark.parametrize(
    ("record_type", "call"),
    [
        ("classification", lambda s, ex: s.lookup("ipc", "G06F3/048")),
        ("classification", lambda s, ex: s.lookup("fterm", ex["fterm_large_theme"])),
        ("combined_search_page", lambda s, ex: s.search_pmgs(ex["common_phrase"])),
        ("combined_search_page", lambda s, ex: s.search_pmgs(ex["two_char_word"])),
        ("document_page", lambda s, ex: s.get_document("judge")),
    ],
)
def test_real_records_keep_every_citation(
    store: PMGSStore, examples: dict[str, str], record_type: str, call: Any
) -> None:
    full = call(store, examples)
    concise = concise_record(full)
    assert _citations(concise, concise["files"]) == _citations(full)
    assert len(concise["files"]) == len({(f, s) for f, s, _ in _citations(full)})
    schema = concise_schema(load_schema(record_type))
    jsonschema.validate(concise, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(full, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(concise, load_schema(record_type))
    text = json.dumps(concise, ensure_ascii=False)
    assert text.count(full["attribution"]) == 1
    assert len(text) < len(json.dumps(full, ensure_ascii=False))


def test_nulls_and_inherited_headers_are_left_out() -> None:
    """Issue 33: a null member is absent, and a nested page sends only the headers that
    differ from its parent's; everything else stays."""
    release = {"release_id": "R1", "reference_date": "2026-03-31"}
    full = {
        "record_type": "combined_search_page",
        "query": "電池",
        "search_mode": "trigram",
        "release": release,
        "edition": None,
        "results_by_type": {
            "classification": {
                "record_type": "classification_search_page",
                "query": "電池",
                "search_mode": "substring",
                "release": dict(release),
                "ipc_editions": None,
                "results": [{"code": "X1", "edition": None, "version": "", "count": 0}],
            }
        },
    }
    expected = {
        "record_type": "combined_search_page",
        "query": "電池",
        "search_mode": "trigram",
        "release": release,
        "results_by_type": {
            "classification": {
                "record_type": "classification_search_page",
                "search_mode": "substring",  # differs from the parent's: kept
                "results": [{"code": "X1", "version": "", "count": 0}],  # "" and 0 are values
            }
        },
        "files": {},
    }
    assert concise_record(full) == expected


def test_concise_schema_makes_only_nullable_and_inherited_members_optional() -> None:
    """Oracle: the hand-read lookup schema; ``edition`` may be null, ``code`` may not."""
    schema = concise_schema(load_schema("classification"))
    query = schema["$defs"]["concise_lookup_query"]
    assert "edition" not in query["required"]
    assert "version" not in query["required"]
    assert {"code", "scheme", "language", "release"} <= set(query["required"])
    page = concise_schema(load_schema("combined_search_page"))["$defs"]
    sub = page["concise_classification_search_page"]
    assert "query" not in sub["required"]
    assert "results" in sub["required"]
