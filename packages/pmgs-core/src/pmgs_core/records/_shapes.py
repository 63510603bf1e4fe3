"""Record shapes of single codes: references, the lookup record, hierarchy pages.

Plain ``TypedDict`` values so that every interface sends them unchanged; the JSON Schema in
``schemas/records.schema.json`` describes the same shapes for clients (ADR 0004).
"""

from __future__ import annotations

from typing import Final, Literal, TypedDict

MatchStatus = Literal[
    "exact", "normalized_exact", "not_found", "version_not_found", "not_valid_at_release"
]
"""How a classification query matched.

``exact``: the code was typed in its canonical spelling; ``normalized_exact``: another
notation of the same code (``G06F 3/048``, fixed width, full width); ``not_found``: no such
code in the scheme/edition; ``version_not_found``: the code exists but not the IPC version
asked for; ``not_valid_at_release``: the code exists but none of its IPC revisions is valid at
the release's reference date (no older text is substituted).
"""

SearchMode = Literal[
    "sqlite_fts5_trigram_lexical",
    "sqlite_literal_substring_lexical",
    "mixed_lexical",
]
"""The route of a search, exactly as the interface contract lists it (:data:`SEARCH_MODES`).

Trigram when every term has 3 or more characters; a query with a 1 or 2 character term (or
none) is the literal substring match; ``mixed_lexical`` only for a combined search whose
classification and document parts took different routes. Which index answered is
:data:`SearchIndex`, a separate field, so that this value stays the contract's."""

SEARCH_MODES: Final[tuple[SearchMode, ...]] = (
    "sqlite_fts5_trigram_lexical",
    "sqlite_literal_substring_lexical",
    "mixed_lexical",
)
"""The one table of ``search_mode`` values; a test holds it to the contract's text."""

SearchIndex = Literal["fts5_trigram", "fts5_bigram", "substring_scan", "fts5_bm25", "mixed", "none"]
"""Which index answered (an addition to the contract): the trigram or bigram FTS5 tables, a
literal scan (1-character terms), the BM25-ranked reading of the FTS5 tables, ``mixed`` when
the terms (or the two parts of a combined search) used different ones, ``none`` when the query
held no term."""

SEARCH_INDEXES: Final[tuple[SearchIndex, ...]] = (
    "fts5_trigram",
    "fts5_bigram",
    "substring_scan",
    "fts5_bm25",
    "mixed",
    "none",
)


class SourceRef(TypedDict):
    """Where a piece of text came from: package file, position in it, and its attribution."""

    file: str
    file_sha256: str
    locator: str
    attribution: str


class ReleaseRef(TypedDict):
    release_id: str
    reference_date: str


class LookupQuery(TypedDict):
    """The request as the caller gave it (``code`` verbatim), echoed for traceability."""

    scheme: str
    code: str
    edition: str | None
    version: str | None
    language: str
    release: str


class VersionInfo(TypedDict):
    version: str
    valid_from: str | None
    valid_to: str | None
    valid_at_release: bool


class RevisionInfo(TypedDict):
    version: str
    valid_from: str | None
    valid_to: str | None
    valid_at_release: bool
    level: int | None
    sequence: int | None
    source: SourceRef


class TextItem(TypedDict):
    language: str
    text_type: str
    line: int
    body: str
    source: SourceRef


class PropertyItem(TypedDict):
    name: str
    value: str
    source: SourceRef


class CodeRef(TypedDict):
    scheme: str
    edition: str | None
    code: str
    kind: str
    record_status: str


class RelationItem(TypedDict):
    """One relation of the looked-up code; ``direction`` says which end the code is."""

    kind: str
    direction: Literal["outgoing", "incoming"]
    target: CodeRef
    from_version: str | None
    to_version: str | None
    sequence: int
    source: SourceRef


class DocumentRef(TypedDict):
    document_id: str
    kind: str
    language: str | None
    title: str
    role: str


class ScopeNote(TypedDict):
    """A handbook line or F-term explanation about the code itself, bounded (the whole text
    is the document's ``section``)."""

    document_id: str
    kind: str
    section: int
    body: str
    truncated: bool
    source: SourceRef


class ClassificationRecord(TypedDict):
    """The answer of ``lookup``: the same shape for found and not-found codes."""

    record_type: Literal["classification"]
    query: LookupQuery
    match_status: MatchStatus
    scheme: str
    edition: str | None
    code: str
    kind: str | None
    record_status: str | None
    release: ReleaseRef
    revision: RevisionInfo | None
    available_versions: list[VersionInfo]
    texts: list[TextItem]
    properties: list[PropertyItem]
    relations: list[RelationItem]
    relation_count: int
    relation_limit: int
    relation_offset: int
    relations_truncated: bool
    next_relation_offset: int | None
    documents: list[DocumentRef]
    document_count: int
    documents_truncated: bool
    scope_notes: list[ScopeNote]
    sources: list[SourceRef]
    viewer_path: str | None
    attribution: str
    content_role: str
    notice: str


class HierarchySummary(TypedDict):
    """A bounded summary of one parent or child; pass it to ``lookup`` for the full record."""

    scheme: str
    edition: str | None
    code: str
    version: str | None
    label: str | None
    record_status: str


class HierarchyPage(TypedDict):
    record_type: Literal["hierarchy_page"]
    direction: Literal["parents", "children", "descendants"]
    match_status: MatchStatus
    scheme: str
    edition: str | None
    code: str
    language: str
    release: ReleaseRef
    items: list[HierarchySummary]
    count: int
    limit: int
    offset: int
    truncated: bool
    next_offset: int | None
    attribution: str
    content_role: str
    notice: str


class RelatedDocumentsRecord(TypedDict):
    record_type: Literal["related_documents"]
    match_status: MatchStatus
    scheme: str
    edition: str | None
    code: str
    release: ReleaseRef
    documents: list[DocumentRef]
    document_count: int
