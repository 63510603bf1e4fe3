"""Running a planned search: candidate SQL, grouped paging and the page records.

The store checks the arguments and hands over a :class:`SearchReader` (its row stream and
source references); everything after that, from the statement that asks the index to the
page that is returned, happens here, so a reader following one query stays in this package.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final

from pmgs_core.records import (
    CONTENT_ROLE,
    EVIDENCE_NOTICE,
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
)
from pmgs_core.records._pages import SearchPageBase
from pmgs_core.schema import IPC_EDITIONS
from pmgs_core.search._codes import (
    CLASSIFICATION_COLUMNS,
    CodeGroup,
    classification_hit,
    code_key,
    index_groups,
    preferred_first,
    ranked_groups,
    shared_reads,
    text_ranges,
    with_editions,
)
from pmgs_core.search._context import code_context
from pmgs_core.search._paging import collect_groups, combine_indexes, combine_modes, excerpt
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
from pmgs_core.search._words import WordSplitMethod

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
    memo: dict[str, Any] = field(default_factory=dict)
    """The store's answers that depend on the release only (scheme ranges, code contexts):
    the database is read-only, so they are read once per store (ADR 0036)."""


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
    ipc_editions: list[str] | None = None
    """IPC editions searched (None: all); FI and F-term are not filtered by it."""
    id_range: tuple[int, int] | None = None
    """Row ids the one scheme of ``schemes`` lies in (``_codes.text_range``), or None."""
    word_split: WordSplitMethod | None = None
    """How the terms of an any-word search were found (``_words``); None: whitespace, as
    every all-terms search is split."""

    @property
    def phrase_order(self) -> bool:
        """True when the terms are the words of one phrase (one chunk cut by the analyser):
        their order is the phrase's and weighs a little (``_rank.in_phrase_order``); the
        order of spaced keywords is not."""
        return self.word_split == "sudachi" and len(self.query.split()) == 1

    @property
    def ranked(self) -> bool:
        """True when the ranked path answers (relevance order, or any-term matching)."""
        return self.order == "relevance" or self.match == "any"

    def folded_check(self) -> Callable[[str], bool]:
        """The exact check of a text folded for search: every term (``match="all"``) or
        any term holds."""
        terms = () if self.plan is None else self.plan.folded_terms
        if not terms:
            return lambda folded: False
        if len(terms) == 1:
            (term,) = terms
            return lambda folded: term in folded
        if self.match == "all":
            return lambda folded: all(term in folded for term in terms)
        return lambda folded: any(term in folded for term in terms)


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
    id_range: tuple[int, int] | None = None,
) -> tuple[str, list[object]]:
    """The candidate query: the best index drives, rows come in rowid (package) order.

    ``CROSS JOIN`` pins the index as the outer loop, so SQLite streams rows in index order
    and never sorts or scans the content table for an indexed term. With ``row_ids`` (the
    ranked path's chosen candidates) the rows are read by id instead, with the same filters.
    ``id_range`` (first, last row id) is a bound every wanted row lies in: the FTS index
    seeks to it instead of reading the rows of other schemes that come first.
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
        if id_range is not None:
            sql += " AND f.rowid BETWEEN ? AND ?"
            params.extend(id_range)
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
        if id_range is not None:
            sql += " AND x.id BETWEEN ? AND ?"
            params.extend(id_range)
        order = "x.id"
    return f"{sql} AND {filters} ORDER BY {order}", params


def classification_statement(
    plan: QueryPlan, request: SearchRequest, row_ids: Sequence[int] | None = None
) -> tuple[str, list[object]]:
    """The candidate statement of classification texts: columns ``CLASSIFICATION_COLUMNS``.

    Shared by the index-order path and the ranked path (which asks it once per term).
    """
    editions = request.ipc_editions
    sql, params = candidate_sql(
        plan,
        fts="text_fts",
        bigram="text_bigram",
        content="text AS x",
        columns=CLASSIFICATION_COLUMNS,
        joins=(
            "CROSS JOIN revision AS r ON r.id = x.revision_id "
            "CROSS JOIN concept AS c ON c.id = r.concept_id"
        ),
        filters=(
            f"x.language = ? AND c.status = 'canonical' AND c.scheme IN "
            f"({_placeholders(len(request.schemes))})"
            + (
                ""
                if editions is None
                else f" AND (c.scheme <> 'ipc' OR c.edition IN ({_placeholders(len(editions))}))"
            )
        ),
        row_ids=row_ids,
        id_range=request.id_range,
    )
    params.extend([request.language, *request.schemes, *(editions or [])])
    return sql, params


DOCUMENT_COLUMNS: Final = (
    "x.id, x.sequence_number, x.page, x.heading, x.text_type, x.body, "
    "x.source_file_id, x.locator, d.id, d.document_key, d.kind, d.language, d.title"
)
"""Columns of a document segment as a hit shows it (``_document_hit`` reads them)."""


def document_statement(
    plan: QueryPlan,
    request: SearchRequest,
    row_ids: Sequence[int] | None = None,
    *,
    columns: str = DOCUMENT_COLUMNS,
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
        columns=columns,
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


def _page_base(reader: SearchReader, request: SearchRequest, offset: int) -> SearchPageBase:
    """The fields both kinds of search page share, for an empty page."""
    plan = request.plan
    terms: list[SearchTerm] = (
        [] if plan is None else [{"term": t.term, "path": t.path} for t in plan.terms]
    )
    base: SearchPageBase = {
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
    }
    if request.ranked:
        base["order"] = request.order
        base["match"] = request.match
        base["min_score"] = request.min_score
    if request.word_split is not None:
        base["word_split"] = request.word_split
    return base


def _set_paging(page: SearchPageBase, count: int, has_more: bool, offset: int) -> None:
    """The paging fields of a search page: no total, only whether another group was seen."""
    page["count"] = count
    page["has_more"] = has_more
    page["next_offset"] = offset + count if has_more else None


_Row = tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class ContentSource:
    """One content type as the search paths read it: its index tables (trigram, bigram,
    content), its candidate statement and the columns of the group key and the body."""

    tables: tuple[str, str, str]
    statement: Callable[[QueryPlan, SearchRequest, Sequence[int] | None], tuple[str, list[object]]]
    key_column: int
    body_column: int
    cap: int
    siblings: Callable[[list[int]], tuple[str, list[object]]] | None = None
    """The ids of the rows of the same unit as the given rows (``_rank`` completes the best
    groups with them), or None where a unit's rows are too many to read (documents)."""

    def rank(
        self,
        reader: SearchReader,
        request: SearchRequest,
        offset: int,
        *,
        grouped: bool = True,
        group_key: Callable[[_Row], Hashable] | None = None,
        share: int = 1,
    ) -> RankedPage:
        """The ranked groups of one page (``grouped=False``: one group per row); ``share``
        divides the candidate cap among that many statements of one query."""
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
            cap=max(self.cap // share, 1),
            group_key=group_key,
            phrase_order=request.phrase_order,
            id_range=request.id_range,
            siblings=self.siblings,
        )


def classification_siblings(row_ids: list[int]) -> tuple[str, list[object]]:
    """The ids of every text of the same revision and language as the given text rows (a
    code's title and further lines), by the revision index."""
    return (
        "SELECT s.id FROM text AS t CROSS JOIN text AS s "
        "ON s.revision_id = t.revision_id AND s.language = t.language "
        "WHERE t.id IN (SELECT value FROM json_each(?)) ORDER BY s.id",
        [json.dumps(row_ids)],
    )


CLASSIFICATION_SOURCE: Final = ContentSource(
    ("text_fts", "text_bigram", "text"),
    classification_statement,
    7,
    4,
    CANDIDATE_CAP,
    classification_siblings,
)
DOCUMENT_SOURCE: Final = ContentSource(
    ("document_text_fts", "document_text_bigram", "document_text"),
    document_statement,
    8,
    5,
    DOCUMENT_CANDIDATE_CAP,
)


def _document_hit(
    rows: list[_Row], folded: tuple[str, ...], reader: SearchReader
) -> DocumentSearchHit:
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


def _code_groups(
    reader: SearchReader, request: SearchRequest, plan: QueryPlan, offset: int
) -> tuple[list[CodeGroup], bool, bool | None]:
    """The page's code groups, whether more follow, and (ranked) whether candidates were cut.

    Every scheme is read on its own and the schemes are interleaved (``_codes``); the ranked
    path ranks each scheme on its own share of the candidate cap, so that one scheme's rows
    cannot fill the cap before another's are read, and the query still reads at most the cap.
    """
    window = (request.limit, offset)
    schemes = request.schemes
    ranges = text_ranges(reader.stream, schemes, request.language, reader.memo)
    if request.ranked:
        shared = replace(reader, stream=shared_reads(reader.stream))
        pages = [
            CLASSIFICATION_SOURCE.rank(
                shared,
                replace(
                    request,
                    schemes=[scheme],
                    limit=CANDIDATE_CAP,
                    min_score=0.0,
                    id_range=ranges[scheme],
                ),
                0,
                group_key=code_key,
                share=len(schemes),
            )
            for scheme in schemes
        ]
        groups, has_more = ranked_groups(pages, request.min_score, window)
        return groups, has_more, any(page.capped for page in pages)
    statements = [
        classification_statement(plan, replace(request, schemes=[scheme], id_range=ranges[scheme]))
        for scheme in schemes
    ]
    check = plan.candidate_check()
    groups, has_more = index_groups(reader.stream, lambda row: check(row[4]), statements, window)
    return groups, has_more, None


def search_classifications(
    reader: SearchReader, request: SearchRequest, offset: int
) -> ClassificationSearchPage:
    """One page of classification hits: one per code (IPC editions folded), schemes
    interleaved, each scheme in package order or by relevance (``_codes``)."""
    page: ClassificationSearchPage = {
        **_page_base(reader, request, offset),
        "record_type": "classification_search_page",
        "schemes": request.schemes,
        "ipc_editions": request.ipc_editions,
        "scheme_merge": "interleaved" if len(request.schemes) > 1 else "single",
        "results": [],
    }
    plan = request.plan
    if plan is None:
        return page
    groups, has_more, capped = _code_groups(reader, request, plan, offset)
    with_editions(
        groups,
        reader.stream,
        request.folded_check(),
        request.ipc_editions or IPC_EDITIONS,
        request.language,
        reader.memo,
    )
    firsts = [preferred_first(group.rows)[0] for group in groups]
    context = code_context(
        reader.stream,
        [(int(row[7]), str(row[8]), str(row[11])) for row in firsts],
        request.language,
        reader.memo,
    )
    folded = plan.folded_terms
    for group, first in zip(groups, firsts, strict=True):
        hit = classification_hit(group.rows, folded, reader.source)
        if int(first[7]) in context:
            hit["context"] = context[int(first[7])]
        if group.score is not None:
            hit["score"] = group.score
            hit["matched_terms"] = group.matched_terms
        page["results"].append(hit)
    _set_paging(page, len(groups), has_more, offset)
    if capped is not None:
        page["candidates_capped"] = capped
    return page


def _document_groups(
    reader: SearchReader, request: SearchRequest, plan: QueryPlan, offset: int
) -> tuple[list[list[_Row]], bool]:
    """The page's documents in package order, each with its first matching segments.

    The scan reads each candidate's id and document only (and its text when a term is left
    to check): a common word passes hundreds of segments of the page's documents, and making
    every one a full row cost three times the scan. The rows shown are then read by id.
    """
    check = plan.candidate_check()
    proven = not plan.unproven_terms
    sql, params = document_statement(
        plan, request, columns="x.id, x.document_id" + (", NULL" if proven else ", x.body")
    )
    grouped = collect_groups(
        reader.stream(sql, params),
        key=lambda row: int(row[1]),
        accept=lambda row: check(row[2]),
        offset=offset,
        limit=request.limit,
    )
    wanted = [int(row[0]) for key in grouped.keys for row in grouped.rows[key]]
    if not wanted:
        return [], grouped.has_more
    sql, params = document_statement(plan, request, wanted)
    full = {int(row[0]): row for row in reader.stream(sql, params)}
    groups = [[full[int(row[0])] for row in grouped.rows[key]] for key in grouped.keys]
    return groups, grouped.has_more


def search_documents(
    reader: SearchReader, request: SearchRequest, offset: int
) -> DocumentSearchPage:
    """One page of document hits, one per document; language-less documents match both."""
    page: DocumentSearchPage = {
        **_page_base(reader, request, offset),
        "record_type": "document_search_page",
        "document_kinds": request.document_kinds,
        "results": [],
    }
    plan = request.plan
    if plan is None:
        return page
    folded = plan.folded_terms
    if not request.ranked:
        groups, has_more = _document_groups(reader, request, plan, offset)
        page["results"] = [_document_hit(rows, folded, reader) for rows in groups]
        _set_paging(page, len(groups), has_more, offset)
        return page
    ranked = DOCUMENT_SOURCE.rank(reader, request, offset)
    for group in ranked.groups:
        hit = _document_hit(group.rows, folded, reader)
        hit["score"] = group.score
        hit["matched_terms"] = group.matched_terms
        page["results"].append(hit)
    _set_paging(page, len(ranked.groups), ranked.has_more, offset)
    page["candidates_capped"] = ranked.capped
    return page


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
