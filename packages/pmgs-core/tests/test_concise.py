"""The concise form: hand-written expectations, and on real records every citation kept."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

from pmgs_core import PMGSStore, concise_record, concise_schema, load_schema
from pmgs_testkit.concise_rules import restore_echoes

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
    """Oracle: the hand-read schemas; ``edition`` may be null, a target's ``code`` may not;
    what ``echoes=False`` leaves out is optional, nothing else."""
    defs = concise_schema(load_schema("classification"))["$defs"]
    query = defs["concise_lookup_query"]
    assert "edition" not in query["required"]
    assert "version" not in query["required"]
    assert query["required"] == []  # scheme, code echo the answer; language, release defaults
    assert {"code", "scheme", "kind", "record_status"} <= set(defs["concise_code_ref"]["required"])
    for row in ("text", "property", "relation", "scope_note"):  # inherit the revision's source
        assert "source" not in defs[f"concise_{row}"]["required"], row
    assert {"body", "line", "language"} <= set(defs["concise_text"]["required"])
    assert {"source", "locator"} & set(defs["concise_revision"]["required"]) == {"source"}
    assert {"relation_count", "relations_truncated"} <= set(
        defs["concise_classification"]["required"]
    )
    assert "sources" not in defs["concise_classification"]["required"]
    page = concise_schema(load_schema("combined_search_page"))["$defs"]
    sub = page["concise_classification_search_page"]
    assert "query" not in sub["required"]
    for member in ("terms", "language", "total_is_exact"):  # written once on the combined page
        assert member not in sub["required"]
        assert member in page["concise_combined_search_page"]["properties"]
    assert {"results", "limit", "offset", "count", "has_more"} <= set(sub["required"])
    assert "language" not in page["concise_classification_match"]["required"]
    assert {"source", "excerpt"} <= set(page["concise_classification_match"]["required"])
    assert {"source", "excerpt"} <= set(page["concise_document_match"]["required"])
    document = concise_schema(load_schema("document_page"))["$defs"]
    assert "source" in document["concise_document_segment"]["required"]


# --- echoes=False (MCP answers, ADR 0018 third amendment) -------------------------------------


def _classification(query: dict[str, Any]) -> dict[str, Any]:
    own = _src("fi.csv", SHA_A, "row:7")
    parent = _src("fi.csv", SHA_A, "row:6")
    return {
        "record_type": "classification",
        "query": query,
        "scheme": "fi",
        "edition": None,
        "code": "G06F3/048",
        "revision": {"version": "", "source": own},
        "texts": [
            {"body": "合成", "source": dict(own)},
            {"body": "別", "source": _src("text.csv", SHA_B, "row:1")},
        ],
        "relations": [
            {"kind": "parent", "source": parent},
            {"kind": "theme", "source": dict(own)},
        ],
        "sources": [dict(parent), dict(own), _src("concept.csv", SHA_B, "row:3")],
        "attribution": ATTR,
    }


def test_echoes_false_leaves_out_what_the_answer_already_says() -> None:
    """Hand-written: rows citing the record's own source leave it out, ``sources`` keeps
    what nothing else cites, ``query`` keeps only what differs from the answer and the
    defaults (a normalised code, another language, an edition asked for)."""
    asked = {
        "scheme": "fi",
        "code": "G06F 3/048",
        "edition": None,
        "version": None,
        "language": "en",
        "release": "current",
    }
    own = {"file": "f1", "locator": "row:7"}
    expected = {
        "record_type": "classification",
        "query": {"code": "G06F 3/048", "language": "en"},
        "scheme": "fi",
        "code": "G06F3/048",
        "revision": {"version": "", "source": own},
        "texts": [{"body": "合成"}, {"body": "別", "source": {"file": "f2", "locator": "row:1"}}],
        "relations": [
            {"kind": "parent", "source": {"file": "f1", "locator": "row:6"}},
            {"kind": "theme"},
        ],
        "sources": [{"file": "f3", "locator": "row:3"}],  # row:6 and row:7 are cited above
        "attribution": ATTR,
        "files": {
            "f1": {"path": "fi.csv", "sha256": SHA_A},
            "f2": {"path": "text.csv", "sha256": SHA_B},
            "f3": {"path": "concept.csv", "sha256": SHA_B},
        },
    }
    full = _classification(asked)
    assert concise_record(full, echoes=False) == expected
    # the default (the CLI's concise form) keeps them all
    kept = concise_record(full)
    assert kept["query"] == {
        "scheme": "fi",
        "code": "G06F 3/048",
        "language": "en",
        "release": "current",
    }
    assert all("source" in row for row in kept["texts"] + kept["relations"])
    assert len(kept["sources"]) == 3
    # an echo only: query left out; every source cited elsewhere: sources left out
    echo = _classification(
        {
            "scheme": "fi",
            "code": "G06F3/048",
            "edition": None,
            "language": "ja",
            "release": "current",
        }
    )
    echo["sources"] = echo["sources"][:2]
    short = concise_record(echo, echoes=False)
    assert "query" not in short
    assert "sources" not in short
    # an edition asked for is kept even when it is the one answered
    ipc = _classification({"scheme": "ipc", "code": "A", "edition": "8U", "release": "R1"})
    ipc.update(scheme="ipc", code="A", edition="8U")
    assert concise_record(ipc, echoes=False)["query"] == {"edition": "8U", "release": "R1"}


def _page(record_type: str, exact: bool, language: str = "ja") -> dict[str, Any]:
    match = {"language": language, "excerpt": "電池", "source": _src("a.csv", SHA_A, "row:2")}
    hit = {"code": "X1", "language": language, "matches": [match]}
    return {
        "record_type": record_type,
        "query": "電池",
        "terms": [{"term": "電池", "path": "bigram"}],
        "language": "ja",
        "limit": 4,
        "has_more": False,
        "total_is_exact": exact,
        "results": [hit],
    }


def test_echoes_false_writes_shared_sub_page_headers_once() -> None:
    """Hand-written: ``terms``, ``language``, ``total_is_exact`` equal in both sub-pages go to
    the combined page once; a differing one stays in each; a classification match leaves out
    the page's language (a document hit, whose language may be null, keeps its own)."""
    full = {
        "record_type": "combined_search_page",
        "query": "電池",
        "content_types": ["classification", "document"],
        "results_by_type": {
            "classification": _page("classification_search_page", True),
            "document": _page("document_search_page", False),
        },
    }
    out = concise_record(full, echoes=False)
    assert list(out)[:5] == ["record_type", "query", "content_types", "terms", "language"]
    assert out["terms"] == [{"term": "電池", "path": "bigram"}]
    assert out["language"] == "ja"
    assert "total_is_exact" not in out  # differs between the sub-pages: kept in each
    classification = out["results_by_type"]["classification"]
    document = out["results_by_type"]["document"]
    for sub, exact in ((classification, True), (document, False)):
        assert not {"terms", "language", "query"} & set(sub)
        assert sub["total_is_exact"] is exact
        assert (sub["limit"], sub["has_more"]) == (4, False)
    assert classification["results"][0]["matches"][0] == {
        "excerpt": "電池",
        "source": {"file": "f1", "locator": "row:2"},
    }
    assert document["results"][0]["language"] == "ja"
    assert document["results"][0]["matches"][0]["language"] == "ja"
    # one sub-page: its headers go up all the same; an English match of a ja page is kept
    alone = {
        **full,
        "results_by_type": {"classification": _page("classification_search_page", True)},
    }
    alone["results_by_type"]["classification"]["results"][0]["matches"][0]["language"] = "en"
    one = concise_record(alone, echoes=False)
    assert one["total_is_exact"] is True
    assert one["results_by_type"]["classification"]["results"][0]["matches"][0]["language"] == "en"
    # the default keeps each sub-page's own headers
    assert concise_record(full)["results_by_type"]["document"]["terms"] == out["terms"]


def _resolved(value: Any, files: dict[str, Any]) -> Any:
    """A concise value with each source as (path, locator): file keys may be numbered apart."""
    if isinstance(value, list):
        return [_resolved(item, files) for item in value]
    if not isinstance(value, dict):
        return value
    if set(value) == {"file", "locator"}:
        return (files[value["file"]]["path"], value["locator"])
    return {k: _resolved(v, files) for k, v in value.items() if k != "files"}


def _rebuilt(short: dict[str, Any]) -> dict[str, Any]:
    """The echoes put back by the documented rules (docs/mcp.md), not by the code under test."""
    return restore_echoes(json.loads(json.dumps(short)))


@pytest.mark.parametrize(
    "call",
    [
        lambda s, ex: s.lookup("ipc", "G06F3/048"),
        lambda s, ex: s.lookup("fi", ex["fi_with_development_code_and_file_symbol"]),
        lambda s, ex: s.lookup("fterm", ex["fterm_large_theme"]),
        lambda s, ex: s.lookup("fterm", ex["fterm_large_theme"], relation_offset=5),
        lambda s, ex: s.lookup("ipc", ex["ipc_two_versions_old_expired"], language="en"),
        lambda s, ex: s.lookup("fi", "A99Z99/99"),
        lambda s, ex: s.search_pmgs(ex["common_phrase"]),
        lambda s, ex: s.search_pmgs(ex["two_char_word"], content_types=["classification"]),
        lambda s, ex: s.get_document(ex["injected_instruction_document"], segment_limit=5),
        lambda s, ex: s.get_document(ex["injected_instruction_document"], segment_offset=3),
    ],
)
def test_echoes_false_rebuilds_to_the_concise_record(
    store: PMGSStore, examples: dict[str, str], call: Any
) -> None:
    """On real records: the rules put back give the whole concise record, except ``sources``,
    each of whose entries is cited elsewhere in the answer; the schema accepts both."""
    full = call(store, examples)
    short = concise_record(full, echoes=False)
    whole = concise_record(full)
    rebuilt = _resolved(_rebuilt(short), short["files"])
    expected = _resolved(whole, whole["files"])
    short_sources = rebuilt.pop("sources", [])
    all_sources = expected.pop("sources", [])
    assert rebuilt == expected
    assert set(short_sources) <= set(all_sources)
    cited = {(path, locator) for path, _, locator in _citations(full)}
    assert set(all_sources) <= cited | set(short_sources)
    assert {v["path"] for v in short["files"].values()} == {p for p, _ in cited}
    record_type = full["record_type"]
    jsonschema.validate(short, concise_schema(load_schema(record_type)))
    assert len(json.dumps(short, ensure_ascii=False)) <= len(json.dumps(whole, ensure_ascii=False))
