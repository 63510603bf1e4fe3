"""search(), search_documents(), search_pmgs(): index paths, grouping, paging, filters."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from pmgs_core import PMGSQueryError, PMGSStore
from pmgs_core.building import fold_for_search
from pmgs_core.search import plan_query


def _error(call: object) -> PMGSQueryError:
    assert callable(call)
    with pytest.raises(PMGSQueryError) as caught:
        call()
    return caught.value


@contextmanager
def _traced(store: PMGSStore) -> Iterator[list[str]]:
    statements: list[str] = []
    connection = store._connection()
    # BEGIN and COMMIT frame every call (one read snapshot); they read nothing.
    connection.set_trace_callback(
        lambda sql: None if sql in {"BEGIN", "COMMIT"} else statements.append(sql)
    )
    try:
        yield statements
    finally:
        connection.set_trace_callback(None)


def _all_codes(store: PMGSStore, query: str, **kwargs: object) -> list[tuple[str, str | None, str]]:
    """Page through every hit with a small limit; returns the codes in page order, an IPC
    hit once per edition it lists (each (scheme, code) must be one hit)."""
    codes: list[tuple[str, str | None, str]] = []
    hits: list[tuple[str, str]] = []
    offset: int | None = 0
    while offset is not None:
        page = store.search(query, limit=7, offset=offset, **kwargs)  # type: ignore[arg-type]
        for hit in page["results"]:
            hits.append((hit["scheme"], hit["code"]))
            editions = hit.get("editions", [hit["edition"]])
            assert editions[0] == hit["edition"]
            codes += [(hit["scheme"], edition, hit["code"]) for edition in editions]
        assert page["count"] == len(page["results"])
        offset = page["next_offset"]
        assert (offset is not None) == page["has_more"]
    assert len(hits) == len(set(hits)), "a code was two hits"
    return codes


def _expected_codes(
    ro_conn: sqlite3.Connection, terms: list[str], language: str = "ja"
) -> set[tuple[str, str | None, str]]:
    """The brute-force answer: canonical concepts with a line containing every folded term."""
    found = set()
    for scheme, edition, code, body in ro_conn.execute(
        "SELECT c.scheme, c.edition, c.code, t.body FROM text AS t "
        "JOIN revision AS r ON r.id = t.revision_id JOIN concept AS c ON c.id = r.concept_id "
        "WHERE c.status = 'canonical' AND t.language = ?",
        (language,),
    ):
        folded = fold_for_search(body)
        if all(fold_for_search(term) in folded for term in terms):
            found.add((scheme, edition or None, code))
    return found


def test_common_phrase_uses_trigram_and_pages_every_code_once(
    store: PMGSStore, ro_conn: sqlite3.Connection, examples: dict[str, str]
) -> None:
    phrase = examples["common_phrase"]
    first = store.search(phrase, limit=5)
    assert first["search_mode"] == "sqlite_fts5_trigram_lexical"
    assert first["terms"] == [{"term": phrase, "path": "trigram"}]
    assert first["has_more"] is True
    assert first["total_is_exact"] is False
    codes = _all_codes(store, phrase)
    assert len(codes) == len(set(codes)), "a code appeared on two pages"
    assert set(codes) == _expected_codes(ro_conn, [phrase])
    for hit in first["results"]:
        assert 1 <= len(hit["matches"]) <= 3
        for match in hit["matches"]:
            assert phrase in match["excerpt"]
            assert match["source"]["locator"]


def test_two_character_term_is_answered_from_the_bigram_index(
    store: PMGSStore, ro_conn: sqlite3.Connection, examples: dict[str, str]
) -> None:
    word = examples["two_char_word"]
    with _traced(store) as statements:
        page = store.search(word, limit=5)
    assert (page["search_mode"], page["index"]) == (
        "sqlite_literal_substring_lexical",
        "fts5_bigram",
    )
    assert page["results"]
    candidate = [s for s in statements if "MATCH" in s]
    assert len(candidate) == 3, "one statement per scheme (schemes are interleaved)"
    assert all("text_bigram" in s and "LIKE" not in s for s in candidate)
    # The plan of exactly that statement: the bigram index drives, nothing is scanned.
    plan = plan_query(word)
    assert plan is not None
    sql, params = PMGSStore._candidate_sql(
        plan,
        fts="text_fts",
        bigram="text_bigram",
        content="text AS x",
        columns="x.id",
        joins=(
            "CROSS JOIN revision AS r ON r.id = x.revision_id "
            "CROSS JOIN concept AS c ON c.id = r.concept_id"
        ),
        filters="x.language = ? AND c.status = 'canonical' AND c.scheme IN (?,?,?)",
    )
    details = [
        row[3]
        for row in ro_conn.execute(
            "EXPLAIN QUERY PLAN " + sql, [*params, "ja", "fi", "fterm", "ipc"]
        )
    ]
    assert any(d.startswith("SCAN f VIRTUAL TABLE") for d in details), details
    assert not any(d.startswith("SCAN") and "VIRTUAL TABLE" not in d for d in details), details
    assert not any("TEMP B-TREE" in d for d in details), details
    codes = _all_codes(store, word)
    assert len(codes) == len(set(codes))
    assert set(codes) == _expected_codes(ro_conn, [word])


def test_one_character_term_is_a_literal_scan(
    store: PMGSStore, ro_conn: sqlite3.Connection, examples: dict[str, str]
) -> None:
    char = examples["two_char_word"][1]
    page = store.search(char, limit=3)
    assert page["search_mode"] == "sqlite_literal_substring_lexical"
    assert page["index"] == "substring_scan"
    assert page["results"]
    codes = _all_codes(store, char, schemes=["fi"])
    assert set(codes) == {c for c in _expected_codes(ro_conn, [char]) if c[0] == "fi"}


def test_terms_are_anded_and_mixed_paths_are_reported(
    store: PMGSStore, ro_conn: sqlite3.Connection, examples: dict[str, str]
) -> None:
    word, phrase = examples["two_char_word"], examples["common_phrase"]
    query = f"{word}\u3000{phrase}"  # ideographic space separates terms too
    page = store.search(query, limit=5)
    # A 2-character term switches the whole query to the literal substring route (the
    # contract's rule); the terms' two indexes show in ``index``.
    assert (page["search_mode"], page["index"]) == ("sqlite_literal_substring_lexical", "mixed")
    assert [t["path"] for t in page["terms"]] == ["bigram", "trigram"]
    codes = _all_codes(store, query)
    assert set(codes) == _expected_codes(ro_conn, [word, phrase])
    for hit in page["results"]:
        for match in hit["matches"]:
            assert word in match["excerpt"]
            assert phrase in match["excerpt"]


def test_letter_case_and_width_are_folded(store: PMGSStore) -> None:
    lower = store.search("synthetic", schemes=["fi"], language="en", limit=3)
    upper = store.search("ＳＹＮＴＨＥＴＩＣ", schemes=["fi"], language="en", limit=3)
    assert lower["results"], "English FI titles should mention the synthetic marker"
    assert [h["code"] for h in lower["results"]] == [h["code"] for h in upper["results"]]


def test_scheme_and_language_filters(store: PMGSStore, examples: dict[str, str]) -> None:
    phrase = examples["common_phrase"]
    page = store.search(phrase, schemes=["ipc"], limit=20)
    assert page["results"]
    assert {hit["scheme"] for hit in page["results"]} == {"ipc"}
    assert page["schemes"] == ["ipc"]
    english = store.search(phrase, language="en", limit=5)
    assert english["results"] == []


@pytest.mark.parametrize("query", ["", "   ", "\u3000\t\n"])
def test_blank_query_is_an_empty_page(store: PMGSStore, query: str) -> None:
    with _traced(store) as statements:
        page = store.search(query)
        combined = store.search_pmgs(query)
        documents = store.search_documents(query)
    assert statements == []
    assert page["results"] == []
    assert page["has_more"] is False
    assert (page["search_mode"], page["index"]) == ("sqlite_literal_substring_lexical", "none")
    assert (combined["search_mode"], combined["index"]) == (
        "sqlite_literal_substring_lexical",
        "none",
    )
    assert documents["results"] == []


def test_reference_only_never_appears(writable_copy: Path, examples: dict[str, str]) -> None:
    phrase = examples["common_phrase"]
    with PMGSStore.open(writable_copy) as before:
        hit = before.search(phrase, limit=1)["results"][0]
    connection = sqlite3.connect(writable_copy)
    connection.execute(
        "UPDATE concept SET status = 'reference_only' WHERE scheme = ? AND edition = ? "
        "AND code = ?",
        (hit["scheme"], hit["edition"] or "", hit["code"]),
    )
    connection.commit()
    connection.close()
    with PMGSStore.open(writable_copy) as after:
        codes = _all_codes(after, phrase)
        assert (hit["scheme"], hit["edition"], hit["code"]) not in codes
        counts = after.release_info()["classification_counts"]
        with PMGSStore.open(writable_copy) as again:
            assert counts == again.release_info()["classification_counts"]


def test_search_documents_groups_per_document(
    store: PMGSStore, ro_conn: sqlite3.Connection, examples: dict[str, str]
) -> None:
    phrase = examples["common_phrase"]
    ids: list[str] = []
    offset: int | None = 0
    while offset is not None:
        page = store.search_documents(phrase, limit=9, offset=offset)
        assert page["search_mode"] == "sqlite_fts5_trigram_lexical"
        ids += [hit["document_id"] for hit in page["results"]]
        offset = page["next_offset"]
    assert len(ids) == len(set(ids))
    expected = {
        key
        for key, body in ro_conn.execute(
            "SELECT d.document_key, s.body FROM document_text AS s "
            "JOIN document AS d ON d.id = s.document_id "
            "WHERE d.language = 'ja' OR d.language IS NULL"
        )
        if phrase in body
    }
    assert set(ids) == expected


def test_document_kind_filter(store: PMGSStore, examples: dict[str, str]) -> None:
    page = store.search_documents(
        examples["common_phrase"], document_kinds=["fterm_explanation"], limit=50
    )
    assert page["results"]
    assert {hit["kind"] for hit in page["results"]} == {"fterm_explanation"}
    assert _error(lambda: store.search_documents("abc", document_kinds=["x"])).code == (
        "INVALID_ARGUMENT"
    )


def test_search_pmgs_pages_each_type_independently(
    store: PMGSStore, examples: dict[str, str]
) -> None:
    phrase = examples["common_phrase"]
    both = store.search_pmgs(phrase, limit=3)
    classification = both["results_by_type"]["classification"]
    document = both["results_by_type"]["document"]
    assert both["search_mode"] == "sqlite_fts5_trigram_lexical"
    assert classification["count"] == 3
    assert document["count"] == 3
    later = store.search_pmgs(phrase, limit=3, classification_offset=3, document_offset=0)
    assert later["results_by_type"]["document"]["results"] == document["results"]
    assert (
        later["results_by_type"]["classification"]["results"]
        == store.search(phrase, limit=3, offset=3)["results"]
    )
    only_docs = store.search_pmgs(phrase, content_types=["document"], limit=3)
    assert set(only_docs["results_by_type"]) == {"document"}
    mixed = store.search_pmgs(examples["two_char_word"], limit=2)
    assert (mixed["search_mode"], mixed["index"]) == (
        "sqlite_literal_substring_lexical",
        "fts5_bigram",
    )


def test_injected_instruction_is_returned_verbatim_as_evidence(
    store: PMGSStore, examples: dict[str, str]
) -> None:
    text = examples["injected_instruction_text"]
    page = store.search_documents("Ignore previous instructions", limit=20)
    hit = next(
        h for h in page["results"] if h["document_id"] == examples["injected_instruction_document"]
    )
    assert any(text in match["excerpt"] or match["excerpt"] in text for match in hit["matches"])
    assert page["content_role"] == "source_evidence"
    assert "not instructions" in page["notice"]
    document = store.get_document(
        examples["injected_instruction_document"], locator=examples["injected_instruction_code"]
    )
    assert text in [segment["body"] for segment in document["segments"]]
    assert document["content_role"] == "source_evidence"


@pytest.mark.parametrize(
    ("call", "code"),
    [
        (lambda s: s.search("abc", offset=2**63), "INVALID_OFFSET"),
        (lambda s: s.search("abc", offset=-1), "INVALID_OFFSET"),
        (lambda s: s.search("abc", offset="1"), "INVALID_OFFSET"),
        (lambda s: s.search_pmgs("abc", classification_offset=2**64), "INVALID_OFFSET"),
        (lambda s: s.search_pmgs("abc", document_offset=2**63), "INVALID_OFFSET"),
        (lambda s: s.search_documents("abc", offset=10**30), "INVALID_OFFSET"),
        (lambda s: s.search("abc", limit=201), "INVALID_LIMIT"),
        (lambda s: s.search("abc", schemes=["cpc"]), "INVALID_SCHEME"),
        (lambda s: s.search("abc", language="fr"), "INVALID_LANGUAGE"),
        (lambda s: s.search("abc", release="JPPM0000001"), "RELEASE_NOT_FOUND"),
        (lambda s: s.search(None), "INVALID_QUERY"),
        (lambda s: s.search("x" * 513), "INVALID_QUERY"),
        (lambda s: s.search(" ".join(f"t{i}x" for i in range(17))), "INVALID_QUERY"),
        # Issue 17 (MCP fuzzing): a NUL reached SQLite as DATABASE_ERROR, a lone surrogate
        # escaped as UnicodeEncodeError; both are bad queries.
        (lambda s: s.search("abc\x00def"), "INVALID_QUERY"),
        (lambda s: s.search_pmgs("\x00"), "INVALID_QUERY"),
        (lambda s: s.search("\ud800abc"), "INVALID_QUERY"),
        (lambda s: s.search_pmgs("電池\udc80"), "INVALID_QUERY"),
        (lambda s: s.search_pmgs("abc", content_types=["pdf"]), "INVALID_ARGUMENT"),
    ],
)
def test_search_errors_before_any_sql(store: PMGSStore, call: object, code: str) -> None:
    assert callable(call)
    with _traced(store) as statements:
        error = _error(lambda: call(store))
    assert error.code == code
    assert statements == []
