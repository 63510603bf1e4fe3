"""Lexical search of the collection, ranked by BM25 computed here over exact term counts.

Long terms come from the FTS5 trigram index, short ones from a scan of the folded text (a
collection is small); one formula scores both. ``similarity`` is relative to the best
match: how well the words match, not relevance (no vectors; ADR 0016).
"""

from __future__ import annotations

import math
import sqlite3
from typing import Final

from pmgs_core.collection._limits import MAX_QUERY_CHARS, MAX_SEARCH_LIMIT, check_limit, check_score
from pmgs_core.errors import PMGSQueryError
from pmgs_core.folding import fold_for_search
from pmgs_core.records import CollectionSearch, CollectionSearchItem

__all__ = ["EXCERPT_CHARS", "search_items"]

K1: Final = 1.2
B: Final = 0.75
MAX_TERMS: Final = 32
EXCERPT_CHARS: Final = 300
"""An item is cut to this many characters around its first match, with ``…`` marks."""


def _terms(content: str) -> list[str]:
    if len(content) > MAX_QUERY_CHARS:
        raise PMGSQueryError(
            "INVALID_QUERY",
            f"content is longer than {MAX_QUERY_CHARS} characters",
            {"argument": "content", "max_chars": MAX_QUERY_CHARS},
        )
    if "\x00" in content or any(0xD800 <= ord(c) <= 0xDFFF for c in content):
        raise PMGSQueryError(
            "INVALID_QUERY", "content holds a NUL or invalid Unicode", {"argument": "content"}
        )
    terms = list(dict.fromkeys(fold_for_search(content).split()))
    if len(terms) > MAX_TERMS:
        raise PMGSQueryError(
            "INVALID_QUERY",
            f"content has more than {MAX_TERMS} words",
            {"argument": "content", "max_terms": MAX_TERMS},
        )
    return terms


def _holders(conn: sqlite3.Connection, term: str) -> set[int]:
    """The ids of the items whose folded text contains ``term``."""
    if len(term) >= 3:
        phrase = '"' + term.replace('"', '""') + '"'
        rows = conn.execute("SELECT rowid FROM items_fts WHERE items_fts MATCH ?", (phrase,))
    else:
        rows = conn.execute("SELECT id FROM items WHERE instr(folded, ?) > 0", (term,))
    return {int(row[0]) for row in rows}


def _excerpt(content: str, folded: str, terms: list[str]) -> str:
    at = min((folded.find(t) for t in terms if t in folded), default=0)
    if len(folded) != len(content):  # folding changed lengths: positions do not carry over
        at = 0
    start = max(0, at - EXCERPT_CHARS // 3)
    end = min(len(content), start + EXCERPT_CHARS)
    start = max(0, end - EXCERPT_CHARS)
    return ("…" if start else "") + content[start:end] + ("…" if end < len(content) else "")


def search_items(
    conn: sqlite3.Connection,
    content: object,
    *,
    limit: int,
    min_score: float,
    group_by_document: bool,
    category: str | None,
) -> CollectionSearch:
    """The seed's search answer: ``items`` (always a list) and ``vector_search_used``."""
    size = check_limit(limit, MAX_SEARCH_LIMIT)
    floor = check_score(min_score)
    if not isinstance(group_by_document, bool):
        raise PMGSQueryError(
            "INVALID_ARGUMENT",
            "group_by_document must be true or false",
            {"argument": "group_by_document"},
        )
    if not isinstance(content, str):
        raise PMGSQueryError("INVALID_QUERY", "content must be a string", {"argument": "content"})
    terms = _terms(content)
    answer: CollectionSearch = {
        "record_type": "collection_search",
        "items": [],
        "terms": terms,
        "vector_search_used": False,
    }
    if not terms:
        return answer
    holders = {term: _holders(conn, term) for term in terms}
    candidates = set().union(*holders.values())
    if not candidates:
        return answer
    total, average = conn.execute(
        "SELECT count(*), coalesce(avg(length(folded)), 1) FROM items"
    ).fetchone()
    idf = {
        term: math.log(1 + (total - len(ids) + 0.5) / (len(ids) + 0.5))
        for term, ids in holders.items()
    }
    where = "" if category is None else " AND d.category = ?"
    scored: list[tuple[float, int, sqlite3.Row, list[str]]] = []
    ids = sorted(candidates)
    for start in range(0, len(ids), 500):
        batch = ids[start : start + 500]
        placeholders = ",".join("?" * len(batch))
        sql = (
            "SELECT i.id, i.document_id, i.content, i.folded, d.path, d.mime, d.category "  # noqa: S608
            f"FROM items i JOIN documents d ON d.id = i.document_id WHERE i.id IN ({placeholders})"
            + where
        )
        rows = conn.execute(
            sql,
            (*batch, *(() if category is None else (category,))),
        )
        for row in rows:
            folded = row[3]
            norm = K1 * (1 - B + B * len(folded) / max(float(average), 1.0))
            score = 0.0
            matched = []
            for term in terms:
                tf = folded.count(term)
                if tf:
                    matched.append(term)
                    score += idf[term] * tf * (K1 + 1) / (tf + norm)
            if not matched:
                continue
            scored.append((score, int(row[0]), row, matched))
    if not scored:
        return answer
    best = max(entry[0] for entry in scored)
    scored.sort(key=lambda entry: (-entry[0], entry[1]))
    seen: set[int] = set()
    items: list[CollectionSearchItem] = []
    for score, _, row, matched in scored:
        similarity = round(score / best, 4) if best > 0 else 0.0
        if similarity < floor:
            break
        document_id = int(row[1])
        if group_by_document:
            if document_id in seen:
                continue
            seen.add(document_id)
        items.append(
            {
                "id": int(row[0]),
                "document_id": document_id,
                "path": row[4],
                "mime": row[5],
                "category": row[6],
                "content": _excerpt(row[2], row[3], matched),
                "matched_terms": matched,
                "source": "user_collection",
                "similarity": similarity,
                "score": round(score, 4),
            }
        )
        if len(items) == size:
            break
    answer["items"] = items
    return answer
