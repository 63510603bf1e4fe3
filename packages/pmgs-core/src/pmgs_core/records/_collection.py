"""The records of the user's collection (ADR 0016), typed like the release's records.

The JSON Schemas are :func:`pmgs_core.collection_json_schema`'s; keys are declared in the
order the JSON carries them. ``source: "user_collection"`` marks user text, never evidence.
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

UserCollection = Literal["user_collection"]


class CollectionDocument(TypedDict):
    id: int
    path: str
    mime: str
    category: str | None
    chunk_count: int
    content_sha256: str
    created_at: str
    updated_at: str
    source: UserCollection


class CollectionItem(TypedDict):
    record_type: Literal["collection_item"]
    id: int
    document_id: int
    path: str
    mime: str
    category: str | None
    position: int
    content: str
    created_at: str
    updated_at: str
    source: UserCollection


class CollectionItemsAdded(TypedDict):
    record_type: Literal["collection_items_added"]
    item_ids: list[int]
    document: CollectionDocument


class CollectionDocumentPut(TypedDict):
    record_type: Literal["collection_document_put"]
    status: Literal["added", "replaced", "unchanged"]
    document: CollectionDocument


class CollectionItemDeleted(TypedDict):
    record_type: Literal["collection_item_deleted"]
    id: int
    document_id: int
    document_deleted: bool


class CollectionDocumentDeleted(TypedDict):
    record_type: Literal["collection_document_deleted"]
    id: int
    path: str
    items_deleted: int


class CollectionDocumentList(TypedDict):
    record_type: Literal["collection_document_list"]
    items: list[CollectionDocument]
    total_count: int
    total_pages: int
    page: int
    limit: int
    category: str | None


class DocumentItem(TypedDict):
    """One item inside a document page (the document says path, mime and category once)."""

    id: int
    position: int
    content: str
    created_at: str
    updated_at: str


class CollectionDocumentPage(TypedDict):
    record_type: Literal["collection_document"]
    document: CollectionDocument
    items: list[DocumentItem]
    limit: int
    offset: int
    has_more: bool
    next_offset: int | None


class CollectionCategory(TypedDict):
    category: str
    document_count: int


class CollectionCategories(TypedDict):
    record_type: Literal["collection_categories"]
    categories: list[CollectionCategory]
    uncategorised_document_count: int


class CollectionSearchItem(TypedDict):
    id: int
    document_id: int
    path: str
    mime: str
    category: str | None
    content: str
    matched_terms: list[str]
    source: UserCollection
    similarity: float
    score: float
    match: Literal["vector", "lexical"]


class CollectionSearch(TypedDict):
    record_type: Literal["collection_search"]
    items: list[CollectionSearchItem]
    terms: list[str]
    vector_search_used: bool


class CollectionReindexed(TypedDict):
    record_type: Literal["collection_reindexed"]
    items_indexed: int
    dimensions: int
    """The LSA space's dimensions after the training; 0 when search stays lexical."""


class ModelInfo(TypedDict):
    """What answers the vector half of the collection's search (ADR 0026)."""

    edition: Literal["community"]
    model: Literal["lsa"]
    dimensions: int
    trained_items: int
    trained_at: str | None
    vector_search_available: bool


class IndexingStatus(TypedDict):
    """``idle``, or the task in progress with how far it got."""

    status: Literal["idle", "indexing", "training"]
    task: NotRequired[str]
    done: NotRequired[int]
    total: NotRequired[int | None]
    started_at: NotRequired[str]
