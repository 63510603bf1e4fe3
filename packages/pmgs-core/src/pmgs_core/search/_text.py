"""``search_text``: the document-database surface over the ranked lexical search.

Clients written for document databases ask with ``content``, ``limit``, ``min_score``,
``group_by_document`` and ``category`` and read ``items`` with ``id``, ``document_id``,
``path``, ``mime``, ``category``, ``content`` and ``similarity``. This module answers that
shape from the same ranked path as ``search(order="relevance", match="any")``: classification
texts and document segments are ranked on their own (each with its own BM25 statistics),
merged by raw score, and ``similarity`` is the raw score divided by the best item's. Every
item is an official text of the package (``source: "official"``) with its file and locator;
nothing is generated, and no vector index exists (``vector_search_used`` is always false).
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any, Final, Literal

from pmgs_core.records import (
    CONTENT_ROLE,
    EVIDENCE_NOTICE,
    TextSearchItem,
    TextSearchResult,
)
from pmgs_core.search._paging import excerpt
from pmgs_core.search._plan import EMPTY_QUERY_MODE
from pmgs_core.search._rank import RANKED_INDEX, RankedGroup
from pmgs_core.search._run import (
    CLASSIFICATION_SOURCE,
    DOCUMENT_SOURCE,
    SearchReader,
    SearchRequest,
)

__all__ = ["MIME_TYPES", "mime_type", "search_text"]

MIME_TYPES: Final = {
    ".csv": "text/csv",
    ".tsv": "text/tab-separated-values",
    ".txt": "text/plain",
    ".xml": "application/xml",
    ".html": "text/html",
    ".htm": "text/html",
    ".pdf": "application/pdf",
}
"""The formats a PMGS package holds; anything else is ``application/octet-stream``."""

_Kind = Literal["classification", "document"]


def mime_type(path: str) -> str:
    """The media type of a package file, from its suffix (the build parses by suffix too)."""
    return MIME_TYPES.get(PurePosixPath(path).suffix.lower(), "application/octet-stream")


def _item(
    reader: SearchReader, group: RankedGroup, folded: tuple[str, ...], kind: _Kind
) -> TextSearchItem:
    """One item from a ranked group: its best row names it, its best rows are the content."""
    best = group.rows[0]
    if kind == "classification":
        source_column, body_column = 5, 4
        edition = best[9] or None
        document_id = f"{best[8]}:{best[10]}" + (f"@{edition}" if edition else "")
        category, prefix = str(best[8]), "text"
    else:
        source_column, body_column = 6, 5
        document_id, category, prefix = str(best[9]), str(best[10]), "document_text"
    source = reader.source(best[source_column], best[source_column + 1])
    return {
        "id": f"{prefix}:{best[0]}",
        "document_id": document_id,
        "path": source["file"],
        "mime": mime_type(source["file"]),
        "category": category,
        "content": "\n".join(excerpt(str(row[body_column]), folded) for row in group.rows),
        "similarity": 0.0,
        "source": "official",
        "content_type": kind,
        "locator": source["locator"],
        "matched_terms": group.matched_terms,
    }


def search_text(
    reader: SearchReader,
    request: SearchRequest,
    *,
    kinds: tuple[_Kind, ...],
    group_by_document: bool,
) -> TextSearchResult:
    """Ranked items of both content types, best first, cut at ``limit`` and ``min_score``.

    ``request.schemes`` / ``request.document_kinds`` carry the category filter; ``kinds``
    says which content types the category leaves. An empty query gives ``items: []``.
    """
    result: dict[str, Any] = {
        "record_type": "text_search_result",
        "query": request.query,
        "items": [],
        "vector_search_used": False,
        "search_mode": EMPTY_QUERY_MODE,
        "index": "none",
        "group_by_document": group_by_document,
        "min_score": request.min_score,
        "release": reader.release(),
        "attribution": reader.attribution,
        "content_role": CONTENT_ROLE,
        "notice": EVIDENCE_NOTICE,
    }
    plan = request.plan
    if plan is None:
        return result  # type: ignore[return-value]
    result["search_mode"] = plan.search_mode
    result["index"] = RANKED_INDEX
    folded = plan.folded_terms
    scored: list[tuple[float, int, int, TextSearchItem]] = []
    for position, kind in enumerate(kinds):
        source = CLASSIFICATION_SOURCE if kind == "classification" else DOCUMENT_SOURCE
        ranked = source.rank(reader, request, 0, grouped=group_by_document)
        for rank, group in enumerate(ranked.groups):
            scored.append((group.raw_score, rank, position, _item(reader, group, folded, kind)))
    scored.sort(key=lambda entry: (-entry[0], entry[1], entry[2]))
    top = scored[0][0] if scored else 0.0
    items: list[TextSearchItem] = []
    for raw, _, _, item in scored:
        similarity = round(raw / top, 4) if top > 0 else 0.0
        if similarity < request.min_score or len(items) >= request.limit:
            break
        item["similarity"] = similarity
        items.append(item)
    result["items"] = items
    return result  # type: ignore[return-value]
