"""The server's answers checked against SQL written here, not against PMGSStore (issue 22).

test_transports.py compares each transport's answer with what the same store code returns,
so a store bug is invisible there. Here a real stdio server is asked about a few dozen codes
and queries, and every answer is compared with what plain SQL over the built database says:
the texts, properties, revision source and relation count of each code, the document ids
linked to it, and the first page of classification hits of each query (rows whose body
contains the term, grouped by scheme and code in order of their first matching row, the
schemes interleaved).
"""

from __future__ import annotations

import json
import sqlite3
import sys
from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from pmgs_mcp_testkit import Reference

CODES_PER_SCHEME = 10


@pytest.fixture(scope="module")
def db(reference: Reference) -> Iterator[sqlite3.Connection]:
    conn = sqlite3.connect(reference.db.resolve().as_uri() + "?mode=ro", uri=True)
    yield conn
    conn.close()


def _chosen_codes(db: sqlite3.Connection) -> list[tuple[int, str, str | None, str, int]]:
    """(concept id, scheme, edition, code, revision id): canonical codes with exactly one
    revision, valid at the reference date, spread over each scheme's rows."""
    (reference,) = db.execute("SELECT reference_date FROM release").fetchone()
    chosen = []
    for scheme in ("fi", "fterm", "ipc"):
        rows = db.execute(
            "SELECT c.id, c.scheme, NULLIF(c.edition, ''), c.code, MIN(r.id) FROM concept c "
            "JOIN revision r ON r.concept_id = c.id "
            "WHERE c.scheme = ? AND c.status = 'canonical' AND (c.edition IN ('', '8U')) "
            "AND (r.valid_from IS NULL OR r.valid_from <= ?) "
            "AND (r.valid_to IS NULL OR ? <= r.valid_to) "
            "GROUP BY c.id HAVING COUNT(*) = 1 "
            "AND (SELECT COUNT(*) FROM revision WHERE concept_id = c.id) = 1 ORDER BY c.id",
            (scheme, reference, reference),
        ).fetchall()
        assert len(rows) >= CODES_PER_SCHEME, scheme
        step = len(rows) // CODES_PER_SCHEME
        chosen += rows[::step][:CODES_PER_SCHEME]
    return chosen


def _expected_lookup(db: sqlite3.Connection, concept: int, revision: int) -> dict[str, Any]:
    texts = db.execute(
        "SELECT text_type, line, body FROM text WHERE revision_id = ? AND language = 'ja' "
        "ORDER BY line, id",
        (revision,),
    ).fetchall()
    properties = db.execute(
        "SELECT name, value FROM property WHERE revision_id = ? ORDER BY name, id", (revision,)
    ).fetchall()
    (file, locator) = db.execute(
        "SELECT s.path, r.locator FROM revision r JOIN source_file s ON s.id = r.source_file_id "
        "WHERE r.id = ?",
        (revision,),
    ).fetchone()
    (outgoing,) = db.execute(
        "SELECT COUNT(*) FROM relation WHERE from_concept_id = ?", (concept,)
    ).fetchone()
    (incoming,) = db.execute(
        "SELECT COUNT(*) FROM relation WHERE to_concept_id = ? AND kind <> 'parent'", (concept,)
    ).fetchone()
    documents = sorted(
        key
        for (key,) in db.execute(
            "SELECT DISTINCT d.document_key FROM document_link l "
            "JOIN document d ON d.id = l.document_id WHERE l.concept_id = ?",
            (concept,),
        )
    )
    return {
        "texts": [list(row) for row in texts],
        "properties": [list(row) for row in properties],
        "revision_source": [file, locator],
        "relation_count": outgoing + incoming,
        "documents": documents,
    }


def _observed_lookup(record: dict[str, Any]) -> dict[str, Any]:
    source = record["revision"]["source"]
    return {
        "texts": [[t["text_type"], t["line"], t["body"]] for t in record["texts"]],
        "properties": [[p["name"], p["value"]] for p in record["properties"]],
        "revision_source": [source["file"], source["locator"]],
        "relation_count": record["relation_count"],
        "documents": sorted(d["document_id"] for d in record["documents"]),
    }


SEARCH_SQL = """
    SELECT c.scheme, NULLIF(c.edition, ''), c.code FROM text x
    JOIN revision r ON r.id = x.revision_id JOIN concept c ON c.id = r.concept_id
    WHERE x.language = 'ja' AND c.status = 'canonical' AND instr(x.body, ?) > 0
    ORDER BY x.id
"""


EDITIONS = ("8U", "8B", "7", "7E", "6", "5", "4")


def _expected_search(db: sqlite3.Connection, term: str, limit: int) -> dict[str, Any]:
    """One hit per (scheme, code), named by its preferred IPC edition; each scheme in order of
    first matching row, the schemes interleaved fi, fterm, ipc (ADR 0022)."""
    groups: dict[str, dict[str, list[str | None]]] = {"fi": {}, "fterm": {}, "ipc": {}}
    for scheme, edition, code in db.execute(SEARCH_SQL, (term,)):
        groups[scheme].setdefault(code, []).append(edition)
    lists = [
        [
            [
                scheme,
                min(editions, key=lambda e: EDITIONS.index(str(e))) if scheme == "ipc" else None,
                code,
            ]
            for code, editions in codes.items()
        ]
        for scheme, codes in groups.items()
    ]
    merged = [hits[i] for i in range(max(map(len, lists))) for hits in lists if i < len(hits)]
    return {"codes": merged[:limit], "has_more": len(merged) > limit}


def _queries(examples: dict[str, str]) -> list[str]:
    word = examples["two_char_word"]
    return [examples["common_phrase"], word, word[0], "記録", "制御", "システム", "装置"]


async def _ask(
    reference: Reference,
    codes: list[tuple[int, str, str | None, str, int]],
    queries: list[str],
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "pmgs_mcp", "--db", str(reference.db)]
    )
    lookups, searches = [], []
    async with Client(params, read_timeout_seconds=30.0) as client:
        for _, scheme, edition, code, _ in codes:
            arguments = {"scheme": scheme, "code": code, "relation_limit": 200, "detail": "full"}
            if edition:
                arguments["edition"] = edition
            result = await client.call_tool("lookup_classification", arguments)
            assert not result.is_error, result.content
            lookups.append(json.loads(result.content[0].text))  # type: ignore[union-attr]
        for query in queries:
            result = await client.call_tool(
                "search_pmgs",
                {
                    "query": query,
                    "limit": 5,
                    "content_types": ["classification"],
                    "detail": "full",
                },
            )
            assert not result.is_error, result.content
            searches.append(json.loads(result.content[0].text))  # type: ignore[union-attr]
    return lookups, searches


@pytest.fixture(scope="module")
def answers(
    reference: Reference, db: sqlite3.Connection
) -> tuple[list[Any], list[dict[str, Any]], list[str], list[dict[str, Any]]]:
    codes = _chosen_codes(db)
    queries = _queries(reference.examples)
    lookups, searches = anyio.run(_ask, reference, codes, queries)
    return codes, lookups, queries, searches


def test_lookups_match_sql(
    answers: tuple[list[Any], list[dict[str, Any]], list[str], list[dict[str, Any]]],
    db: sqlite3.Connection,
) -> None:
    codes, lookups, _, _ = answers
    assert len(codes) == 3 * CODES_PER_SCHEME
    for (concept, scheme, edition, code, revision), record in zip(codes, lookups, strict=True):
        assert (record["scheme"], record["edition"], record["code"]) == (scheme, edition, code)
        assert record["match_status"] == "exact"
        assert record["record_status"] == "canonical"
        assert _observed_lookup(record) == _expected_lookup(db, concept, revision), code


def test_some_lookups_have_texts_properties_and_relations(
    answers: tuple[list[Any], list[dict[str, Any]], list[str], list[dict[str, Any]]],
) -> None:
    """The oracle comparison above is not vacuous."""
    _, lookups, _, _ = answers
    assert sum(1 for r in lookups if r["texts"]) >= 20
    assert sum(1 for r in lookups if r["properties"]) >= 10
    assert sum(1 for r in lookups if r["relation_count"]) >= 10


def test_searches_match_sql(
    answers: tuple[list[Any], list[dict[str, Any]], list[str], list[dict[str, Any]]],
    db: sqlite3.Connection,
) -> None:
    _, _, queries, searches = answers
    nonempty = 0
    for query, combined in zip(queries, searches, strict=True):
        page = combined["results_by_type"]["classification"]
        observed = {
            "codes": [[h["scheme"], h["edition"], h["code"]] for h in page["results"]],
            "has_more": page["has_more"],
        }
        assert observed == _expected_search(db, query, 5), query
        nonempty += bool(observed["codes"])
    assert nonempty >= 5
