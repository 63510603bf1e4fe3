"""Every tool's input and output schema: plain JSON Schema data, the contract a client sees.

An input property is the name of the store (or collection) parameter it is passed to, by
keyword: the schema is the only place a tool's arguments are written (ADR 0021). Output
schemas are pmgs-core's record schemas, unchanged. Nothing here imports the SDK, so the
argument checker and the tests use the schemas without a server.
"""

from pmgs_mcp.schemas._collection import (
    ADD_ITEM_TEXT_INPUT,
    COLLECTION_DOCUMENT_COUNT_OUTPUT,
    COLLECTION_DOCUMENT_INPUT,
    DESTRUCTIVE,
    ID_INPUT,
    IDEMPOTENT_WRITE,
    REINDEX_INPUT,
    UPDATE_ITEM_INPUT,
    WRITE,
    CollectionSchema,
    collection_output_schema,
    collection_search_input,
    collection_search_output,
    source_input,
    source_output_schema,
)
from pmgs_mcp.schemas._inputs import (
    CONTENT_TYPES,
    DETAILS,
    DOCUMENT_COUNT_INPUT,
    DOCUMENT_INPUT,
    LANGUAGES,
    LIST_CATEGORIES_INPUT,
    LIST_DOCUMENTS_INPUT,
    LOOKUP_INPUT,
    MAX_LIST_LIMIT,
    MAX_OFFSET,
    MAX_PAGE_LIMIT,
    READ_ONLY,
    RELEASE_INPUT,
    SEARCH_INPUT,
    SEARCH_TEXT_INPUT,
    object_schema,
)
from pmgs_mcp.schemas._outputs import (
    DOCUMENT_COUNT_OUTPUT,
    SchemaLoader,
    detailed_output_schema,
    paged_document_list_schema,
    record_output_schema,
)

__all__ = [
    "ADD_ITEM_TEXT_INPUT",
    "COLLECTION_DOCUMENT_COUNT_OUTPUT",
    "COLLECTION_DOCUMENT_INPUT",
    "CONTENT_TYPES",
    "DESTRUCTIVE",
    "DETAILS",
    "DOCUMENT_COUNT_INPUT",
    "DOCUMENT_COUNT_OUTPUT",
    "DOCUMENT_INPUT",
    "IDEMPOTENT_WRITE",
    "ID_INPUT",
    "LANGUAGES",
    "LIST_CATEGORIES_INPUT",
    "LIST_DOCUMENTS_INPUT",
    "LOOKUP_INPUT",
    "MAX_LIST_LIMIT",
    "MAX_OFFSET",
    "MAX_PAGE_LIMIT",
    "READ_ONLY",
    "REINDEX_INPUT",
    "RELEASE_INPUT",
    "SEARCH_INPUT",
    "SEARCH_TEXT_INPUT",
    "UPDATE_ITEM_INPUT",
    "WRITE",
    "CollectionSchema",
    "SchemaLoader",
    "collection_output_schema",
    "collection_search_input",
    "collection_search_output",
    "detailed_output_schema",
    "object_schema",
    "paged_document_list_schema",
    "record_output_schema",
    "source_input",
    "source_output_schema",
]
