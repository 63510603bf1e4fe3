"""Lexical search of the collection, ranked by BM25 computed here over exact term counts.

Long terms come from the FTS5 trigram index, short ones from a scan of the folded text (a
collection is small); one formula scores both. ``similarity`` is relative to the best
match: how well the words match, not relevance (no vectors; ADR 0016).
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Callable
from typing import Final

from pmgs_core.collection._limits import MAX_QUERY_CHARS, MAX_SEARCH_LIMIT, check_limit, check_score
from pmgs_core.collection._vectors import Space, Vectors, nearest
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
    space: Space | None = None,
    vectors: Callable[[Space], Vectors] | None = None,
) -> CollectionSearch:
    """The seed's search answer: ``items`` (always a list) and ``vector_search_used``.

    With a trained ``space`` each item's ``similarity`` is the larger of its cosine to the
    query and its lexical similarity, and ``match`` says which one it was (ADR 0026).
    """
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
        "vector_search_used": space is not None,
    }
    if not terms:
        return answer
    lexical = _lexical(conn, terms, category)
    cosines = (
        {}
        if space is None or vectors is None
        # below the floor by less than the rounding of similarity: decided after rounding
        else nearest(conn, space, vectors(space), " ".join(terms), category, floor - 1e-4)
    )
    scored: list[tuple[float, int, str, float]] = []
    for item_id in set(lexical) | set(cosines):
        lex = lexical[item_id][0] if item_id in lexical else 0.0
        vec = round(cosines.get(item_id, 0.0), 4)
        similarity, match = (vec, "vector") if vec > lex else (lex, "lexical")
        if similarity >= floor and similarity > 0:
            scored.append((similarity, item_id, match, lexical.get(item_id, (0.0, 0.0, []))[1]))
    scored.sort(key=lambda entry: (-entry[0], entry[1]))
    seen: set[int] = set()
    chosen: list[tuple[float, int, str, float]] = []
    for entry in scored:
        if len(chosen) == size:
            break
        document_id = _document_of(conn, entry[1])
        if group_by_document:
            if document_id in seen:
                continue
            seen.add(document_id)
        chosen.append(entry)
    answer["items"] = [_item(conn, entry, terms, lexical) for entry in chosen]
    return answer


def _document_of(conn: sqlite3.Connection, item_id: int) -> int:
    return int(conn.execute("SELECT document_id FROM items WHERE id = ?", (item_id,)).fetchone()[0])


def _item(
    conn: sqlite3.Connection,
    entry: tuple[float, int, str, float],
    terms: list[str],
    lexical: dict[int, tuple[float, float, list[str]]],
) -> CollectionSearchItem:
    similarity, item_id, match, score = entry
    row = conn.execute(
        "SELECT i.id, i.document_id, i.content, i.folded, d.path, d.mime, d.category "
        "FROM items i JOIN documents d ON d.id = i.document_id WHERE i.id = ?",
        (item_id,),
    ).fetchone()
    matched = lexical[item_id][2] if item_id in lexical else []
    return {
        "id": item_id,
        "document_id": int(row[1]),
        "path": row[4],
        "mime": row[5],
        "category": row[6],
        "content": _excerpt(row[2], row[3], matched or terms),
        "matched_terms": matched,
        "source": "user_collection",
        "similarity": similarity,
        "score": round(score, 4),
        "match": "vector" if match == "vector" else "lexical",
    }


def _lexical(
    conn: sqlite3.Connection, terms: list[str], category: str | None
) -> dict[int, tuple[float, float, list[str]]]:
    """BM25 of every item holding a term: id → (score / best score, score, matched terms)."""
    holders = {term: _holders(conn, term) for term in terms}
    candidates = set().union(*holders.values())
    if not candidates:
        return {}
    total, average = conn.execute(
        "SELECT count(*), coalesce(avg(length(folded)), 1) FROM items"
    ).fetchone()
    idf = {
        term: math.log(1 + (total - len(ids) + 0.5) / (len(ids) + 0.5))
        for term, ids in holders.items()
    }
    where = "" if category is None else " AND d.category = ?"
    scored: dict[int, tuple[float, list[str]]] = {}
    ids = sorted(candidates)
    for start in range(0, len(ids), 500):
        batch = ids[start : start + 500]
        placeholders = ",".join("?" * len(batch))
        sql = (
            "SELECT i.id, i.folded FROM items i JOIN documents d ON d.id = i.document_id "  # noqa: S608
            f"WHERE i.id IN ({placeholders})" + where
        )
        for row in conn.execute(sql, (*batch, *(() if category is None else (category,)))):
            folded = row[1]
            norm = K1 * (1 - B + B * len(folded) / max(float(average), 1.0))
            score = 0.0
            matched = []
            for term in terms:
                tf = folded.count(term)
                if tf:
                    matched.append(term)
                    score += idf[term] * tf * (K1 + 1) / (tf + norm)
            if matched:
                scored[int(row[0])] = (score, matched)
    best = max((entry[0] for entry in scored.values()), default=0.0)
    return {
        item_id: (round(score / best, 4) if best > 0 else 0.0, score, matched)
        for item_id, (score, matched) in scored.items()
    }
