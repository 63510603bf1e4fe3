"""Record shapes of pages: search pages, document pages, release info, lists, categories.

Kept apart from the single-code shapes in ``_shapes`` only for size; both are re-exported
by :mod:`pmgs_core.records`, which is where callers import them from (ADR 0004).
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from pmgs_core.records._shapes import (
    ReleaseRef,
    SearchIndex,
    SearchMode,
    SourceRef,
)


class SearchTerm(TypedDict):
    """One whitespace-separated term of the query and the path that answered it."""

    term: str
    path: Literal["trigram", "bigram", "literal"]


class ClassificationMatch(TypedDict):
    language: str
    text_type: str
    line: int
    version: str
    excerpt: str
    source: SourceRef
    editions: NotRequired[list[str]]
    """IPC only: the editions holding this text word for word (preferred first)."""


class CodeContext(TypedDict):
    """An ancestor shown beside a hit: an F-term's theme or viewpoint, a subgroup's main group
    or parent; ``title`` is its first text line in the language searched."""

    code: str
    kind: str
    title: str | None


class ClassificationSearchHit(TypedDict):
    """One code; an IPC code matched in several editions is one hit (``editions``), named by
    its preferred edition (8U, 8B, 7, 7E, 6, 5, 4 in that order)."""

    scheme: str
    edition: str | None
    code: str
    kind: str
    record_status: str
    matches: list[ClassificationMatch]
    editions: NotRequired[list[str]]
    context: NotRequired[list[CodeContext]]
    score: NotRequired[float]
    matched_terms: NotRequired[list[str]]


class DocumentMatch(TypedDict):
    section: int
    page: int | None
    heading: str | None
    text_type: str | None
    excerpt: str
    source: SourceRef


class DocumentSearchHit(TypedDict):
    document_id: str
    kind: str
    language: str | None
    title: str
    matches: list[DocumentMatch]
    score: NotRequired[float]
    matched_terms: NotRequired[list[str]]


class SearchPageBase(TypedDict):
    """The fields every search page has (imported by the search package to build pages)."""

    query: str
    terms: list[SearchTerm]
    search_mode: SearchMode
    index: SearchIndex
    language: str
    release: ReleaseRef
    limit: int
    offset: int
    count: int
    has_more: bool
    next_offset: int | None
    total_is_exact: bool
    attribution: str
    content_role: str
    notice: str
    order: NotRequired[Literal["index", "relevance"]]
    match: NotRequired[Literal["all", "any"]]
    min_score: NotRequired[float]
    candidates_capped: NotRequired[bool]
    word_split: NotRequired[Literal["sudachi", "whitespace"]]


SchemeMerge = Literal["single", "interleaved"]
"""How the hits of several schemes share a page: ``interleaved`` = one hit of each scheme in
turn (in the order of ``schemes``), so that no scheme pushes another off the page."""


class ClassificationSearchPage(SearchPageBase):
    record_type: Literal["classification_search_page"]
    schemes: list[str]
    ipc_editions: list[str] | None
    scheme_merge: SchemeMerge
    results: list[ClassificationSearchHit]


class DocumentSearchPage(SearchPageBase):
    record_type: Literal["document_search_page"]
    document_kinds: list[str] | None
    results: list[DocumentSearchHit]


class _ResultsByType(TypedDict, total=False):
    classification: ClassificationSearchPage
    document: DocumentSearchPage


class SearchFallback(TypedDict):
    """The exact phrase found nothing: the pages hold the any-word search of its words."""

    reason: Literal["no_exact_match"]
    words: list[str]
    word_split: Literal["sudachi", "whitespace"]
    match: Literal["any"]
    order: Literal["relevance"]


class CodeMatch(TypedDict):
    """The query is this code (in any notation): the lookup that answers it."""

    scheme: str
    code: str
    edition: str | None
    match_status: str
    viewer_path: str | None


class OtherLanguage(TypedDict):
    """Nothing in the language searched; the other language's texts hold this many hits
    (one page of each type: ``at_least`` when more follow)."""

    language: str
    classification_count: int
    document_count: int
    at_least: bool


class CombinedSearchPage(TypedDict):
    record_type: Literal["combined_search_page"]
    query: str
    search_mode: SearchMode
    index: SearchIndex
    content_types: list[str]
    results_by_type: _ResultsByType
    release: ReleaseRef
    attribution: str
    content_role: str
    notice: str
    fallback: NotRequired[SearchFallback]
    code_matches: NotRequired[list[CodeMatch]]
    other_language: NotRequired[OtherLanguage]


class DocumentSegment(TypedDict):
    section: int
    page: int | None
    heading: str | None
    text_type: str | None
    body: str
    source: SourceRef


class RelatedClassification(TypedDict):
    scheme: str
    edition: str | None
    code: str
    kind: str
    record_status: str
    role: str


class _DocumentSelector(TypedDict):
    page: int | None
    section: int | None
    locator: str | None


class DocumentPage(TypedDict):
    record_type: Literal["document_page"]
    document_id: str
    kind: str
    language: str | None
    title: str
    release: ReleaseRef
    selector: _DocumentSelector
    segments: list[DocumentSegment]
    segment_count: int
    segment_limit: int
    segment_offset: int
    segments_truncated: bool
    next_segment_offset: int | None
    related_classifications: list[RelatedClassification]
    related_classification_count: int
    related_classification_limit: int
    related_classification_offset: int
    related_classifications_truncated: bool
    next_related_classification_offset: int | None
    sources: list[SourceRef]
    viewer_path: str
    attribution: str
    content_role: str
    notice: str


class _KindCount(TypedDict):
    kind: str
    count: int


class _SchemeCount(TypedDict):
    scheme: str
    edition: str | None
    count: int


class ReleaseInfo(TypedDict):
    """What the open database holds; ``database`` is the file name only, never a path."""

    record_type: Literal["release_info"]
    release_id: str
    reference_date: str
    source_manifest_sha256: str
    schema_version: int
    builder_version: str | None
    logical_digest: str | None
    attribution: str
    database: str
    classification_counts: list[_SchemeCount]
    document_counts: list[_KindCount]
    quarantine_counts: list[_QuarantineCount]
    """Records the build kept in quarantine, by data group and reason (empty: none)."""


class _QuarantineCount(TypedDict):
    data_group: str
    reason: str
    count: int


class QuarantineItem(TypedDict):
    """A record the build could not read with certainty: what the package said, and why."""

    data_group: str
    reason: str
    message: str
    raw: str
    source: SourceRef | None


class ListPageBase(TypedDict):
    """The fields of a browse list (documents, quarantine): an exact total and paging."""

    release: ReleaseRef
    count: int
    total_count: int
    limit: int
    offset: int
    has_more: bool
    next_offset: int | None
    attribution: str


class QuarantinePage(ListPageBase):
    """A page of ``list_quarantine``: never classifications, only evidence of what was not
    read."""

    record_type: Literal["quarantine_page"]
    data_group: str | None
    items: list[QuarantineItem]


class DocumentListItem(TypedDict):
    document_id: str
    kind: str
    language: str | None
    title: str
    segment_count: int
    source: SourceRef


class DocumentListPage(ListPageBase):
    """A page of ``list_documents`` (browse surface for document-database clients)."""

    record_type: Literal["document_list_page"]
    kind: str | None
    items: list[DocumentListItem]
    content_role: str
    notice: str


class ThemeCategory(TypedDict):
    theme: str
    title: str | None
    count: int


class Categories(TypedDict):
    """Document kinds and F-term themes with counts (``categories``)."""

    record_type: Literal["categories"]
    release: ReleaseRef
    document_kinds: list[_KindCount]
    themes: list[ThemeCategory]
    attribution: str


class TextSearchItem(TypedDict):
    """One item of ``search_text`` (the document-database shape): an official text."""

    id: str
    document_id: str
    path: str
    mime: str
    category: str
    content: str
    similarity: float
    source: Literal["official"]
    content_type: Literal["classification", "document"]
    locator: str
    matched_terms: list[str]


class TextSearchResult(TypedDict):
    record_type: Literal["text_search_result"]
    query: str
    items: list[TextSearchItem]
    vector_search_used: Literal[False]
    search_mode: SearchMode
    index: SearchIndex
    group_by_document: bool
    min_score: float
    release: ReleaseRef
    attribution: str
    content_role: str
    notice: str
