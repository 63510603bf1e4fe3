"""Running a planned search: candidate SQL, grouped paging and the page records.

The store checks the arguments and hands over a :class:`SearchReader` (its row stream and
source references); everything after that, from the statement that asks the index to the
page that is returned, happens here, so a reader following one query stays in this package.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Final, TypeVar, cast

from pmgs_core.records import (
    CONTENT_ROLE,
    EVIDENCE_NOTICE,
    ClassificationMatch,
    ClassificationSearchHit,
    ClassificationSearchPage,
    CombinedSearchPage,
    DocumentMatch,
    DocumentSearchHit,
    DocumentSearchPage,
    ReleaseRef,
    SearchIndex,
    SearchMode,
    SearchTerm,
    SourceRef,
    code_ref,
)
from pmgs_core.search._paging import (
    GroupedPage,
    collect_groups,
    combine_indexes,
    combine_modes,
    excerpt,
)
from pmgs_core.search._plan import EMPTY_QUERY_MODE, QueryPlan
from pmgs_core.search._rank import (
    CANDIDATE_CAP,
    DOCUMENT_CANDIDATE_CAP,
    RANKED_INDEX,
    Match,
    Order,
    RankedPage,
    rank_groups,
)

__all__ = [
    "CLASSIFICATION_SOURCE",
    "DOCUMENT_SOURCE",
    "ContentSource",
    "SearchReader",
    "SearchRequest",
    "candidate_sql",
    "search_classifications",
    "search_combined",
    "search_documents",
]


@dataclass(frozen=True, slots=True)
class SearchReader:
    """What a search needs from the store: rows in batches and the records' stamps.

    Passed in rather than imported so that search never reaches back into the store (the
    store uses this package, not the other way round) and the store keeps its one
    connection, its lock and its source cache.
    """

    stream: Callable[[str, Sequence[object]], Iterator[tuple[Any, ...]]]
    source: Callable[[int, str], SourceRef]
    release: Callable[[], ReleaseRef]
    attribution: str


@dataclass(frozen=True, slots=True)
class SearchRequest:
    """A checked query: the text as typed, its plan (None when blank) and the filters."""

    query: str
    plan: QueryPlan | None
    language: str
    limit: int
    schemes: list[str]
    document_kinds: list[str] | None
    order: Order = "index"
    match: Match = "all"
    min_score: float = 0.0

    @property
    def ranked(self) -> bool:
        """True when the ranked path answers (relevance order, or any-term matching)."""
        return self.order == "relevance" or self.match == "any"


def _placeholders(count: int) -> str:
    return ",".join("?" * count)


def candidate_sql(
    plan: QueryPlan,
    *,
    fts: str,
    bigram: str,
    content: str,
    columns: str,
    joins: str,
    filters: str,
    row_ids: Sequence[int] | None = None,
) -> tuple[str, list[object]]:
    """The candidate query: the best index drives, rows come in rowid (package) order.

    ``CROSS JOIN`` pins the index as the outer loop, so SQLite streams rows in index order
    and never sorts or scans the content table for an indexed term. With ``row_ids`` (the
    ranked path's chosen candidates) the rows are read by id instead, with the same filters.
    """
    trigram, bigrams = plan.trigram_match, plan.bigram_match
    params: list[object] = []
    if row_ids is not None:
        sql = (
            f"SELECT {columns} FROM {content} {joins} "  # noqa: S608
            "WHERE x.id IN (SELECT value FROM json_each(?))"
        )
        params.append(json.dumps(list(row_ids)))
        return f"{sql} AND {filters} ORDER BY x.id", params
    if trigram is not None or bigrams is not None:
        driver = fts if trigram is not None else bigram
        sql = (
            f"SELECT {columns} FROM {driver} AS f CROSS JOIN {content} ON x.id = f.rowid "  # noqa: S608
            f"{joins} WHERE f.{driver} MATCH ?"
        )
        params.append(trigram if trigram is not None else bigrams)
        if trigram is not None and bigrams is not None:
            # The unary + keeps SQLite from turning this into the FTS driver's constraint
            # (one MATCH per bigram row, then a sort of every match): the bigram rows are
            # read once into a set, and the trigram scan still streams in rowid order.
            sql += f" AND +f.rowid IN (SELECT rowid FROM {bigram} WHERE {bigram} MATCH ?)"  # noqa: S608
            params.append(bigrams)
        order = "f.rowid"
    else:
        needles = plan.literal_needles
        condition = " OR ".join("instr(x.body, ?) > 0" for _ in needles)
        sql = f"SELECT {columns} FROM {content} {joins} WHERE ({condition})"  # noqa: S608
        params.extend(needles)
        order = "x.id"
    return f"{sql} AND {filters} ORDER BY {order}", params


def classification_statement(
    plan: QueryPlan, request: SearchRequest, row_ids: Sequence[int] | None = None
) -> tuple[str, list[object]]:
    """The candidate statement of classification texts: columns ``CLASSIFICATION_COLUMNS``.

    Shared by the index-order path and the ranked path (which asks it once per term).
    """
    sql, params = candidate_sql(
        plan,
        fts="text_fts",
        bigram="text_bigram",
        content="text AS x",
        columns=(
            "x.id, x.language, x.text_type, x.line, x.body, x.source_file_id, x.locator, "
            "c.id, c.scheme, c.edition, c.code, c.kind, c.status, r.version"
        ),
        joins=(
            "CROSS JOIN revision AS r ON r.id = x.revision_id "
            "CROSS JOIN concept AS c ON c.id = r.concept_id"
        ),
        filters=(
            f"x.language = ? AND c.status = 'canonical' AND c.scheme IN "
            f"({_placeholders(len(request.schemes))})"
        ),
        row_ids=row_ids,
    )
    params.extend([request.language, *request.schemes])
    return sql, params


def document_statement(
    plan: QueryPlan, request: SearchRequest, row_ids: Sequence[int] | None = None
) -> tuple[str, list[object]]:
    """The candidate statement of document segments (see :func:`classification_statement`)."""
    kinds = request.document_kinds
    filters = "(d.language = ? OR d.language IS NULL)"
    if kinds is not None:
        filters += f" AND d.kind IN ({_placeholders(len(kinds))})"
    sql, params = candidate_sql(
        plan,
        fts="document_text_fts",
        bigram="document_text_bigram",
        content="document_text AS x",
        columns=(
            "x.id, x.sequence_number, x.page, x.heading, x.text_type, x.body, "
            "x.source_file_id, x.locator, d.id, d.document_key, d.kind, d.language, d.title"
        ),
        joins="CROSS JOIN document AS d ON d.id = x.document_id",
        filters=filters,
        row_ids=row_ids,
    )
    params.append(request.language)
    if kinds is not None:
        params.extend(kinds)
    return sql, params


def _index(plan: QueryPlan | None, request: SearchRequest) -> SearchIndex:
    """Which index answers (``index``, beside the contract's ``search_mode``)."""
    if plan is None:
        return "none"
    return RANKED_INDEX if request.ranked else plan.index


def _page_base(reader: SearchReader, request: SearchRequest, offset: int) -> dict[str, object]:
    """The fields both kinds of search page share, for an empty page."""
    plan = request.plan
    terms: list[SearchTerm] = (
        [] if plan is None else [{"term": t.term, "path": t.path} for t in plan.terms]
    )
    return {
        "query": request.query,
        "terms": terms,
        "search_mode": EMPTY_QUERY_MODE if plan is None else plan.search_mode,
        "index": _index(plan, request),
        "language": request.language,
        "release": reader.release(),
        "limit": request.limit,
        "offset": offset,
        "count": 0,
        "has_more": False,
        "next_offset": None,
        "total_is_exact": False,
        "attribution": reader.attribution,
        "content_role": CONTENT_ROLE,
        "notice": EVIDENCE_NOTICE,
        **(
            {"order": request.order, "match": request.match, "min_score": request.min_score}
            if request.ranked
            else {}
        ),
    }


def _groups(
    reader: SearchReader,
    plan: QueryPlan,
    statement: tuple[str, list[object]],
    *,
    key_column: int,
    body_column: int,
    limit: int,
    offset: int,
) -> GroupedPage[int, tuple[Any, ...]]:
    """Stream the candidates and keep the page's groups; every row passes the exact check."""
    sql, params = statement
    return collect_groups(
        reader.stream(sql, params),
        key=lambda row: int(row[key_column]),
        accept=lambda row: plan.matches(str(row[body_column])),
        offset=offset,
        limit=limit,
    )


def _set_hits(page: dict[str, Any], hits: list[Any], has_more: bool, offset: int) -> None:
    """The paging fields of a search page: no total, only whether another group was seen."""
    page["results"] = hits
    page["count"] = len(hits)
    page["has_more"] = has_more
    page["next_offset"] = offset + len(hits) if has_more else None


_Row = tuple[Any, ...]
_Hit = TypeVar("_Hit")


def _fill_page(
    page: dict[str, Any],
    reader: SearchReader,
    plan: QueryPlan,
    statement: tuple[str, list[object]],
    window: tuple[int, int],
    columns: tuple[int, int],
    hit: Callable[[list[_Row], tuple[str, ...]], _Hit],
) -> None:
    """Group the candidates, make one hit of each group's rows and set the paging fields.

    ``window`` is (limit, offset); ``columns`` are the group key's and the matched body's.
    """
    limit, offset = window
    key_column, body_column = columns
    grouped = _groups(
        reader,
        plan,
        statement,
        key_column=key_column,
        body_column=body_column,
        limit=limit,
        offset=offset,
    )
    folded = plan.folded_terms
    hits = [hit(grouped.rows[key], folded) for key in grouped.keys]
    _set_hits(page, hits, grouped.has_more, offset)


@dataclass(frozen=True, slots=True)
class ContentSource:
    """One content type as the search paths read it: its index tables (trigram, bigram,
    content), its candidate statement and the columns of the group key and the body."""

    tables: tuple[str, str, str]
    statement: Callable[[QueryPlan, SearchRequest, Sequence[int] | None], tuple[str, list[object]]]
    key_column: int
    body_column: int
    cap: int

    def rank(
        self, reader: SearchReader, request: SearchRequest, offset: int, *, grouped: bool = True
    ) -> RankedPage:
        """The ranked groups of one page (``grouped=False``: one group per row)."""
        plan = request.plan
        if plan is None:
            return RankedPage([], False, False)
        return rank_groups(
            reader.stream,
            plan,
            lambda sub, ids: self.statement(sub, request, ids),
            tables=self.tables,
            columns=(self.key_column if grouped else 0, self.body_column),
            match=request.match,
            order=request.order,
            min_score=request.min_score,
            window=(request.limit, offset),
            cap=self.cap,
        )


def _fill(
    page: dict[str, Any],
    reader: SearchReader,
    request: SearchRequest,
    offset: int,
    source: ContentSource,
    hit: Callable[[list[_Row], tuple[str, ...]], Any],
) -> None:
    """Fill a non-blank page by the index-order path, or by the ranked path, which adds
    ``score`` and ``matched_terms`` to each hit (fields the index-order path does not have)."""
    plan = request.plan
    if plan is None:
        return
    if not request.ranked:
        _fill_page(
            page,
            reader,
            plan,
            source.statement(plan, request, None),
            (request.limit, offset),
            (source.key_column, source.body_column),
            hit,
        )
        return
    ranked = source.rank(reader, request, offset)
    folded = plan.folded_terms
    hits = []
    for group in ranked.groups:
        record = hit(group.rows, folded)
        record["score"] = group.score
        record["matched_terms"] = group.matched_terms
        hits.append(record)
    _set_hits(page, hits, ranked.has_more, offset)
    page["candidates_capped"] = ranked.capped


CLASSIFICATION_SOURCE: Final = ContentSource(
    ("text_fts", "text_bigram", "text"), classification_statement, 7, 4, CANDIDATE_CAP
)
DOCUMENT_SOURCE: Final = ContentSource(
    ("document_text_fts", "document_text_bigram", "document_text"),
    document_statement,
    8,
    5,
    DOCUMENT_CANDIDATE_CAP,
)


def _classification_hit(
    reader: SearchReader,
) -> Callable[[list[_Row], tuple[str, ...]], ClassificationSearchHit]:
    def hit(rows: list[_Row], folded: tuple[str, ...]) -> ClassificationSearchHit:
        matches: list[ClassificationMatch] = [
            {
                "language": str(row[1]),
                "text_type": str(row[2]),
                "line": int(row[3]),
                "version": str(row[13]),
                "excerpt": excerpt(str(row[4]), folded),
                "source": reader.source(row[5], row[6]),
            }
            for row in rows
        ]
        return cast(ClassificationSearchHit, {**code_ref(rows[0][8:13]), "matches": matches})

    return hit


def _document_hit(
    reader: SearchReader,
) -> Callable[[list[_Row], tuple[str, ...]], DocumentSearchHit]:
    def hit(rows: list[_Row], folded: tuple[str, ...]) -> DocumentSearchHit:
        first = rows[0]
        matches: list[DocumentMatch] = [
            {
                "section": int(row[1]),
                "page": row[2],
                "heading": row[3],
                "text_type": row[4],
                "excerpt": excerpt(str(row[5]), folded),
                "source": reader.source(row[6], row[7]),
            }
            for row in rows
        ]
        return {
            "document_id": str(first[9]),
            "kind": str(first[10]),
            "language": first[11],
            "title": str(first[12]),
            "matches": matches,
        }

    return hit


def search_classifications(
    reader: SearchReader, request: SearchRequest, offset: int
) -> ClassificationSearchPage:
    """One page of classification hits, one per concept, ranked by first matching line."""
    page: dict[str, Any] = {
        "record_type": "classification_search_page",
        **_page_base(reader, request, offset),
        "schemes": request.schemes,
        "results": [],
    }
    plan = request.plan
    if plan is None:
        return cast(ClassificationSearchPage, page)
    _fill(page, reader, request, offset, CLASSIFICATION_SOURCE, _classification_hit(reader))
    return cast(ClassificationSearchPage, page)


def search_documents(
    reader: SearchReader, request: SearchRequest, offset: int
) -> DocumentSearchPage:
    """One page of document hits, one per document; language-less documents match both."""
    kinds = request.document_kinds
    page: dict[str, Any] = {
        "record_type": "document_search_page",
        **_page_base(reader, request, offset),
        "document_kinds": kinds,
        "results": [],
    }
    plan = request.plan
    if plan is None:
        return cast(DocumentSearchPage, page)
    _fill(page, reader, request, offset, DOCUMENT_SOURCE, _document_hit(reader))
    return cast(DocumentSearchPage, page)


def search_combined(
    reader: SearchReader,
    request: SearchRequest,
    content_types: list[str],
    *,
    classification_offset: int,
    document_offset: int,
) -> CombinedSearchPage:
    """Both kinds of page for one query, each paged on its own offset."""
    combined: CombinedSearchPage = {
        "record_type": "combined_search_page",
        "query": request.query,
        "search_mode": EMPTY_QUERY_MODE,
        "index": "none",
        "content_types": content_types,
        "results_by_type": {},
        "release": reader.release(),
        "attribution": reader.attribution,
        "content_role": CONTENT_ROLE,
        "notice": EVIDENCE_NOTICE,
    }
    modes: list[SearchMode] = []
    indexes: list[SearchIndex] = []
    if "classification" in content_types:
        classification_page = search_classifications(reader, request, classification_offset)
        combined["results_by_type"]["classification"] = classification_page
        modes.append(classification_page["search_mode"])
        indexes.append(classification_page["index"])
    if "document" in content_types:
        document_page = search_documents(reader, request, document_offset)
        combined["results_by_type"]["document"] = document_page
        modes.append(document_page["search_mode"])
        indexes.append(document_page["index"])
    combined["search_mode"] = combine_modes(modes)
    combined["index"] = combine_indexes(indexes)
    return combined
