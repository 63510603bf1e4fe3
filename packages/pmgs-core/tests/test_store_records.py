"""Record shapes: real responses validate against the packaged JSON Schema; size limit."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import jsonschema
import pytest

import pmgs_core
from pmgs_core import (
    ERROR_CATEGORIES,
    ERROR_CODES,
    RECORD_SCHEMA_NAMES,
    PMGSQueryError,
    PMGSStore,
    diff_releases,
    load_schema,
    record_json_schema,
)


def _responses(store: PMGSStore, examples: dict[str, str]) -> list[Any]:
    document = examples["injected_instruction_document"]
    return [
        store.lookup("fi", examples["fi_with_development_code_and_file_symbol"]),
        store.lookup("ipc", examples["ipc_two_versions_old_expired"]),
        store.lookup("ipc", examples["ipc_no_valid_revision"]),
        store.lookup("ipc", examples["ipc_two_versions_old_expired"], version="1990.01"),
        store.lookup("fterm", examples["fterm_large_theme"], relation_limit=200),
        store.lookup("fterm", examples["fterm_reference_only"]),
        store.lookup("fi", "H99Z999/99"),
        store.hierarchy("children", "fterm", examples["fterm_large_theme"]),
        store.hierarchy("parents", "ipc", examples["ipc_two_versions_old_expired"]),
        store.hierarchy("descendants", "fterm", examples["fterm_large_theme"], limit=200),
        store.related_documents("fterm", examples["fterm_large_theme"]),
        store.search(examples["common_phrase"]),
        store.search(examples["two_char_word"], language="en"),
        store.search(examples["two_char_word"][0]),
        store.search(""),
        store.search_documents(examples["common_phrase"], document_kinds=["judge"]),
        store.search_pmgs(f"{examples['two_char_word']} {examples['common_phrase']}"),
        store.search_pmgs(examples["common_phrase"], content_types=["classification"]),
        store.search(examples["common_phrase"], order="relevance", match="any"),
        store.search_pmgs(
            f"{examples['two_char_word']} {examples['common_phrase']}", order="relevance"
        ),
        store.search_text(f"{examples['two_char_word']} {examples['common_phrase']}"),
        store.search_text(examples["common_phrase"], group_by_document=False, min_score=0.0),
        store.search_text(""),
        store.get_document(document),
        store.get_document(document, section=3, related_classification_limit=1),
        store.release_info(),
        store.list_documents(limit=5),
        store.list_quarantine(),
        store.categories(),
        store.check_codes("G06F3/048/IP + 4C083/FT + G06F3/048"),
        diff_releases(store, store),
    ]


def test_schema_is_valid_and_self_contained() -> None:
    schema = record_json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)

    def refs(node: object) -> list[str]:
        if isinstance(node, dict):
            own = [node["$ref"]] if "$ref" in node else []
            return own + [r for value in node.values() for r in refs(value)]
        if isinstance(node, list):
            return [r for value in node for r in refs(value)]
        return []

    assert all(ref.startswith("#/$defs/") for ref in refs(schema))
    for name in RECORD_SCHEMA_NAMES:
        jsonschema.Draft202012Validator.check_schema(load_schema(name))


def test_real_responses_validate(store: PMGSStore, examples: dict[str, str]) -> None:
    schema = record_json_schema()
    validator = jsonschema.Draft202012Validator(
        schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
    )
    seen: set[str] = set()
    for response in _responses(store, examples):
        errors = sorted(validator.iter_errors(response), key=str)
        assert errors == [], f"{response['record_type']}: {errors[0].message}"
        own = jsonschema.Draft202012Validator(load_schema(response["record_type"]))
        own.validate(response)
        seen.add(response["record_type"])
        json.dumps(response, ensure_ascii=False)  # JSON-ready as returned
    assert seen == set(RECORD_SCHEMA_NAMES)


def test_every_text_record_says_it_is_evidence(store: PMGSStore, examples: dict[str, str]) -> None:
    for response in _responses(store, examples):
        if "notice" in response:
            assert response["content_role"] == "source_evidence"
            assert response["notice"] == pmgs_core.EVIDENCE_NOTICE
            assert response["attribution"] == examples["copyright"]


def test_response_too_large(
    store: PMGSStore, examples: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("pmgs_core.records.MAX_RESPONSE_BYTES", 2_000)
    with pytest.raises(PMGSQueryError) as caught:
        store.get_document(examples["injected_instruction_document"])
    assert caught.value.code == "RESPONSE_TOO_LARGE"
    assert caught.value.to_dict()["code"] == "RESPONSE_TOO_LARGE"
    with pytest.raises(PMGSQueryError):
        store.lookup("fterm", examples["fterm_large_theme"], relation_limit=200)


@pytest.mark.parametrize(
    "value",
    [
        None,
        True,
        False,
        0,
        -(2**31),
        2**31,
        -(2**63),
        2**64,
        -1.2345678901234567e-308,
        "",
        "\x00\x1f",
        '"\\',
        "分類",
        "\U0001f600",
        [],
        {},
        [[]],
        {"": None},
        [False] * 50,
        {"\x01" * 3: ["\x02" * 5, None, False]},
    ],
)
def test_the_size_bound_holds_for_the_worst_cases(value: object) -> None:
    """Compact UTF-8 JSON never exceeds the marshal bound the fast path relies on."""
    import json
    import marshal

    from pmgs_core.records import JSON_BYTES_PER_MARSHAL_BYTE

    json_bytes = len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode())
    assert json_bytes <= JSON_BYTES_PER_MARSHAL_BYTE * len(marshal.dumps(value, 2))


def test_a_record_over_the_limit_by_escapes_is_refused() -> None:
    """Control characters take 6 bytes of JSON each: past the bound, the exact size decides."""
    from pmgs_core.records import MAX_RESPONSE_BYTES, ensure_response_size

    chars = MAX_RESPONSE_BYTES // 6 + 10
    ensure_response_size({"body": "a" * chars})
    with pytest.raises(PMGSQueryError) as caught:
        ensure_response_size({"body": "\x01" * chars})
    assert caught.value.details == {"max_bytes": MAX_RESPONSE_BYTES, "bytes": 6 * chars + 11}


def test_error_codes_are_listed_and_pickle() -> None:
    import pickle

    error = PMGSQueryError("INVALID_OFFSET", "offset must be an integer", {"argument": "offset"})
    copy = pickle.loads(pickle.dumps(error))
    assert (copy.code, copy.message, copy.details) == (
        "INVALID_OFFSET",
        error.message,
        {"argument": "offset"},
    )
    assert len(set(ERROR_CODES)) == len(ERROR_CODES)


def test_every_error_code_has_one_category() -> None:
    assert set(ERROR_CATEGORIES) == set(ERROR_CODES)
    by_category: dict[str, set[str]] = {}
    for code, category in ERROR_CATEGORIES.items():
        by_category.setdefault(category, set()).add(code)
    # The prefix is not the category: a broken pointer is a database problem, not bad input.
    assert "INVALID_POINTER" in by_category["database"]
    not_invalid = {code for code in by_category["input"] if not code.startswith("INVALID_")}
    assert not_invalid == {"ITEM_TOO_LARGE", "TOO_MANY_ITEMS"}  # the collection's size bounds
    assert by_category["not_found"] == {
        "RELEASE_NOT_FOUND",
        "DOCUMENT_NOT_FOUND",
        "DOCUMENT_SELECTOR_NOT_FOUND",
        "ITEM_NOT_FOUND",
        "WATCH_FOLDER_GONE",  # a watched folder: valid once, not there now
    }
    assert {"COLLECTION_BUSY", "COLLECTION_ERROR"} <= by_category["database"]
    assert by_category["unanswerable"] == {"MULTIPLE_ACTIVE_REVISIONS", "RESPONSE_TOO_LARGE"}


def test_public_names_exported() -> None:
    for name in ("PMGSStore", "PMGSQueryError", "read_current_pointer", "load_schema"):
        assert name in pmgs_core.__all__


def test_builder_names_are_not_the_users_api() -> None:
    # Issue 38: what only the builder needs is exported by pmgs_core.building, not by
    # pmgs_core (hand-written list: the schema's DDL, the search index's cutting, the
    # pointer's writing, the package's own notations).
    import pmgs_core.building as building

    builder_only = {
        "TABLES", "TEXT_RANGES_KEY", "bigram_tokens", "check_pointer_metadata", "chunk_bigrams",
        "content_addressed_path", "create_indexes", "create_schema", "fold_for_search",
        "ipc_code_from_pdf_name", "is_indexed_bigram", "parse_ipc_version",
        "rebuild_search_indexes", "recorded_text_ranges", "search_chunk_rows",
        "search_index_chunks", "write_current_pointer",
    }  # fmt: skip
    assert set(building.__all__) == builder_only
    assert not builder_only & set(pmgs_core.__all__)
    for name in builder_only:
        assert callable(getattr(building, name)) or name in {"TABLES", "TEXT_RANGES_KEY"}
        assert not hasattr(pmgs_core, name)


def test_import_stays_light() -> None:
    # pmgs_core.check (the formula reader), diff, collection and tempfile are imported on
    # first use: the stdio MCP server's start pays for none of them (issue 33).
    code = (
        "import sys, pmgs_core; "
        "heavy = [m for m in ('platformdirs', 'jsonschema', 'pmgs_build', 'json.tool', "
        "'sqlite_utils', 'pmgs_core.check', 'pmgs_core.diff', 'pmgs_core.collection', "
        "'tempfile') "
        "if m in sys.modules]; print(heavy)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


def test_every_public_name_resolves_in_a_fresh_process() -> None:
    """``from pmgs_core import X`` works for every name of ``__all__``, the ones served lazily
    (PEP 562) included, in a fresh process (nothing of pmgs_core imported before)."""
    code = (
        "import importlib, sys\n"
        "missing = []\n"
        "for name in sys.argv[1:]:\n"
        "    try:\n"
        "        exec(f'from pmgs_core import {name}')\n"
        "    except ImportError as error:\n"
        "        missing.append(f'{name}: {error}')\n"
        "print(missing)\n"
    )
    names = list(pmgs_core.__all__)
    assert {"diff_releases", "CodeCheckRecord", "resolve_database", "Collection"} <= set(names)
    out = subprocess.run(
        [sys.executable, "-c", code, *names], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"
    for name in names:
        assert getattr(pmgs_core, name) is not None, name
    assert pmgs_core.MAX_CHECK_CODES == 10_000
    with pytest.raises(AttributeError):
        pmgs_core.no_such_name  # noqa: B018
