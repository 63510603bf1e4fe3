"""Plain searches against the pages the previous implementation gave (issue 42, ADR 0036).

The oracle is not computed by the code under test: ``data/plain_search_pages.json.gz`` holds
577 calls of ``search``, ``search_documents`` and ``search_pmgs`` and the page each returned
on this session's reference database (scale 0.005, seed 7), recorded from main at 20b2150,
before the plain path read schemes lazily, proved 2-character terms by the bigram index,
batched the context and cached per store what the release fixes. The calls cover terms of
1, 2 and 3+ characters, several terms, folding (full-width letters and punctuation), no
hits, both languages, paging offsets around the page and scheme boundaries, scheme and
IPC edition filters, document kinds, and ``fallback`` (code matches, the other language).

Every call is made twice on a fresh store, so that both the first answer (caches empty) and
a repeated one (caches filled) are compared. Where the fallback switched to the any-word
search, only the fallback's description is compared: ranked pages are ADR 0012's, tested
in test_store_ranked.py, and may be re-ranked without this path changing.
"""

from __future__ import annotations

import gzip
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from pmgs_core import PMGSStore
from pmgs_core.errors import PMGSQueryError
from pmgs_testkit.kit import ReferenceDatabase

RECORDED = Path(__file__).parent / "data" / "plain_search_pages.json.gz"


def _recorded() -> dict[str, Any]:
    with gzip.open(RECORDED, "rt", encoding="utf-8") as handle:
        loaded: dict[str, Any] = json.load(handle)
    return loaded


def _answer(store: PMGSStore, call: dict[str, Any]) -> Any:
    """The answer as JSON gives it back (tuples become lists, as in the recording)."""
    try:
        answer = getattr(store, call["method"])(*call["args"], **call["kwargs"])
    except PMGSQueryError as error:
        return {"error": type(error).__name__, "code": error.code}
    return json.loads(json.dumps(answer))


def _comparable(page: Any) -> Any:
    """The page as compared: a fallback to the ranked any-word search by its description."""
    if isinstance(page, dict) and "fallback" in page:
        return {"fallback": page["fallback"], "query": page["query"]}
    return page


def _label(call: dict[str, Any]) -> str:
    return f"{call['method']}(*{call['args']!r}, **{call['kwargs']!r})"


@pytest.fixture(scope="module")
def recorded() -> dict[str, Any]:
    return _recorded()


def test_the_recording_is_of_this_database(
    reference: ReferenceDatabase, recorded: dict[str, Any]
) -> None:
    conn = sqlite3.connect(reference.db.resolve().as_uri() + "?mode=ro", uri=True)
    try:
        (digest,) = conn.execute(
            "SELECT value FROM metadata WHERE key = 'logical_digest'"
        ).fetchone()
    finally:
        conn.close()
    assert digest == recorded["logical_digest"], (
        "the reference database changed (the test kit generates another package): the "
        "recorded pages no longer describe it; record them again from a commit whose "
        "answers are trusted, on the new database"
    )


@pytest.mark.parametrize("attempt", ["first", "repeated"])
def test_plain_searches_answer_as_recorded(
    reference: ReferenceDatabase, recorded: dict[str, Any], attempt: str
) -> None:
    calls = recorded["calls"]
    assert len(calls) >= 500
    with PMGSStore.open(reference.db) as store:
        rounds = 1 if attempt == "first" else 2
        for _ in range(rounds):
            wrong = [
                _label(call)
                for call in calls
                if _comparable(_answer(store, call)) != _comparable(call["expected"])
            ]
    assert wrong == [], f"{len(wrong)} calls answer differently, first: {wrong[:5]}"


def test_each_code_and_document_is_one_run_of_rows(ro_conn: sqlite3.Connection) -> None:
    # What lets a scheme be read only as far as its hits on the page (ADR 0036): a hit's
    # rows end where the next hit's begin. Counted with SQL: runs of equal keys in row order.
    runs = """
        SELECT count(*), count(DISTINCT part || ' ' || key) FROM (
            SELECT key, part, lag(key) OVER (PARTITION BY part ORDER BY id) AS previous
            FROM ({rows})
        ) WHERE previous IS NULL OR previous <> key
    """
    codes = (
        "SELECT x.id AS id, c.scheme || ':' || c.code AS key, c.scheme || x.language AS part "
        "FROM text AS x JOIN revision AS r ON r.id = x.revision_id "
        "JOIN concept AS c ON c.id = r.concept_id "
        "WHERE c.status = 'canonical' AND c.scheme <> 'ipc'"
    )
    documents = "SELECT id, document_id AS key, 0 AS part FROM document_text"
    for rows in (codes, documents):
        run_count, keys = ro_conn.execute(runs.format(rows=rows)).fetchone()
        assert keys > 100
        assert run_count == keys
