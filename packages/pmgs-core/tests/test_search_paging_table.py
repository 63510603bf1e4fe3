"""Search pages against SQL written here: every window of a table of (limit, offset) (issue 22).

The oracle is one plain SQL statement per query, not the search code: the matching rows are
those whose body contains the term (``instr``), grouped by document, or by scheme and code
(an IPC code in several editions is one group, ADR 0022), groups ranked by their first
matching row within their scheme and the schemes interleaved (fi, fterm, ipc in turn), at most
three matches shown per group (IPC: preferred edition first, a text equal in several editions
once). The terms are
plain Japanese text that folding leaves unchanged, so ``instr`` is the whole match rule.
One term of each index path: three or more characters (trigram index), two (bigram index)
and one (a literal scan).

The window table holds the page that ends one short of the last group, the page that ends
exactly on it, the page one past it, the last group alone and the empty page after it: a
page holding ``limit + 1`` results, or a ``has_more`` that is off by one, fails here.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from typing import Any

import pytest

from pmgs_core import PMGSStore

SHOWN = 3
"""Matches shown per hit (docs/store.md)."""

CLASSIFICATION_SQL = """
    SELECT c.scheme, NULLIF(c.edition, ''), c.code, x.text_type, x.line, x.body
    FROM text x JOIN revision r ON r.id = x.revision_id JOIN concept c ON c.id = r.concept_id
    WHERE x.language = 'ja' AND c.status = 'canonical' AND instr(x.body, ?) > 0
    ORDER BY x.id
"""
DOCUMENT_SQL = """
    SELECT d.document_key, x.sequence_number
    FROM document_text x JOIN document d ON d.id = x.document_id
    WHERE (d.language = 'ja' OR d.language IS NULL) AND instr(x.body, ?) > 0
    ORDER BY x.id
"""


def _grouped(rows: list[tuple[Any, ...]], width: int) -> list[tuple[Any, list[Any]]]:
    """(group key, its first SHOWN match fields) in first-seen order."""
    groups: dict[Any, list[Any]] = {}
    for row in rows:
        key, rest = tuple(row[:width]), tuple(row[width:])
        shown = groups.setdefault(key, [])
        if len(shown) < SHOWN:
            shown.append(rest)
    return list(groups.items())


EDITIONS = ("8U", "8B", "7", "7E", "6", "5", "4")
"""IPC editions, preferred first (written here, not imported)."""


def _code_groups(rows: list[tuple[Any, ...]]) -> list[tuple[Any, list[Any]]]:
    """Classification hits: ((scheme, edition, code), [(text_type, line)…]) in page order."""
    by_scheme: dict[str, dict[str, list[tuple[Any, ...]]]] = {"fi": {}, "fterm": {}, "ipc": {}}
    for order, (scheme, edition, code, text_type, line, body) in enumerate(rows):
        by_scheme[scheme].setdefault(code, []).append((edition, order, text_type, line, body))
    lists = []
    for scheme, codes in by_scheme.items():
        hits = []
        for code, seen in codes.items():
            code_rows = seen
            if scheme == "ipc":
                code_rows = sorted(seen, key=lambda r: (EDITIONS.index(r[0]), r[1]))
            shown: dict[tuple[str, str], tuple[str, int]] = {}
            for _, _, text_type, line, body in code_rows:
                if (text_type, body) not in shown and len(shown) < SHOWN:
                    shown[(text_type, body)] = (text_type, line)
            hits.append(((scheme, code_rows[0][0], code), list(shown.values())))
        lists.append(hits)
    merged = []
    for index in range(max(len(hits) for hits in lists)):
        merged += [hits[index] for hits in lists if index < len(hits)]
    return merged


@pytest.fixture(scope="module")
def terms(examples: dict[str, str]) -> list[str]:
    word = examples["two_char_word"]
    assert len(word) == 2
    phrase = examples["common_phrase"]
    assert len(phrase) >= 3
    return [phrase, word, word[0]]


def _windows(total: int) -> list[tuple[int, int]]:
    """(limit, offset) pairs around the end of a result list of ``total`` groups."""
    windows = {
        (1, 0),
        (2, 0),
        (total - 1, 0),
        (total, 0),
        (total + 1, 0),
        (1, total - 1),
        (2, total - 2),
        (2, total - 1),
        (1, total),
        (3, total + 5),
    }
    return sorted((limit, offset) for limit, offset in windows if 1 <= limit <= 200 and offset >= 0)


def _check_page(page: Mapping[str, Any], expected: list[Any], limit: int, offset: int) -> None:
    window = expected[offset : offset + limit]
    more = offset + limit < len(expected)
    assert page["count"] == len(window) == len(page["results"])
    assert page["has_more"] is more
    assert page["next_offset"] == (offset + len(window) if more else None)
    assert (page["limit"], page["offset"]) == (limit, offset)
    assert page["total_is_exact"] is False


def test_classification_pages(
    store: PMGSStore, ro_conn: sqlite3.Connection, terms: list[str]
) -> None:
    for term in terms:
        expected = _code_groups(ro_conn.execute(CLASSIFICATION_SQL, (term,)).fetchall())
        assert len(expected) >= 3, term  # enough groups for every window to mean something
        for limit, offset in _windows(len(expected)):
            page = store.search(term, limit=limit, offset=offset)
            _check_page(page, expected, limit, offset)
            got = [
                (
                    (hit["scheme"], hit["edition"], hit["code"]),
                    [(m["text_type"], m["line"]) for m in hit["matches"]],
                )
                for hit in page["results"]
            ]
            assert got == expected[offset : offset + limit], (term, limit, offset)


def test_document_pages(store: PMGSStore, ro_conn: sqlite3.Connection, terms: list[str]) -> None:
    for term in terms:
        expected = _grouped(ro_conn.execute(DOCUMENT_SQL, (term,)).fetchall(), 1)
        if len(expected) < 3:
            continue
        for limit, offset in _windows(len(expected)):
            page = store.search_documents(term, limit=limit, offset=offset)
            _check_page(page, expected, limit, offset)
            got = [
                ((hit["document_id"],), [(m["section"],) for m in hit["matches"]])
                for hit in page["results"]
            ]
            assert got == expected[offset : offset + limit], (term, limit, offset)


def test_combined_pages_page_each_type_on_its_own_offset(
    store: PMGSStore, ro_conn: sqlite3.Connection, terms: list[str]
) -> None:
    term = terms[0]
    classes = _code_groups(ro_conn.execute(CLASSIFICATION_SQL, (term,)).fetchall())
    documents = _grouped(ro_conn.execute(DOCUMENT_SQL, (term,)).fetchall(), 1)
    combined = store.search_pmgs(
        term, limit=2, classification_offset=len(classes) - 2, document_offset=0
    )
    by_type = combined["results_by_type"]
    _check_page(by_type["classification"], classes, 2, len(classes) - 2)
    _check_page(by_type["document"], documents, 2, 0)


def test_every_group_is_on_exactly_one_page(
    store: PMGSStore, ro_conn: sqlite3.Connection, terms: list[str]
) -> None:
    """Walking next_offset from 0 gives each oracle group once, in order."""
    term = terms[1]
    rows = ro_conn.execute(CLASSIFICATION_SQL, (term,)).fetchall()
    expected = [key for key, _ in _code_groups(rows)]
    seen: list[tuple[str, str | None, str]] = []
    offset: int | None = 0
    pages = 0
    while offset is not None:
        page = store.search(term, limit=2, offset=offset)
        seen += [(h["scheme"], h["edition"], h["code"]) for h in page["results"]]
        offset = page["next_offset"]
        pages += 1
        assert pages <= len(expected) + 1
    assert seen == expected
