"""JSON Schemas of the collection's records: one definition for the Python API's answers,
the CLI's ``--json`` and the MCP tools' output schemas (the tests validate real answers
against them) (ADR 0016)."""

from __future__ import annotations

from typing import Any, Final

__all__ = ["COLLECTION_RECORD_NAMES", "collection_json_schema"]

_NULLABLE_STRING: Final = {"type": ["string", "null"]}
_SOURCE: Final = {"const": "user_collection"}

_DOCUMENT: Final = {
    "type": "object",
    "properties": {
        "id": {"type": "integer", "minimum": 1},
        "path": {"type": "string"},
        "mime": {"type": "string"},
        "category": _NULLABLE_STRING,
        "chunk_count": {"type": "integer", "minimum": 0},
        "content_sha256": {"type": "string"},
        "created_at": {"type": "string"},
        "updated_at": {"type": "string"},
        "source": _SOURCE,
    },
    "required": ["id", "path", "mime", "category", "chunk_count", "source"],
}

_ITEM_FIELDS: Final = {
    "id": {"type": "integer", "minimum": 1},
    "document_id": {"type": "integer", "minimum": 1},
    "path": {"type": "string"},
    "mime": {"type": "string"},
    "category": _NULLABLE_STRING,
    "content": {"type": "string"},
    "source": _SOURCE,
}

_RECORDS: Final[dict[str, dict[str, Any]]] = {
    "collection_item": {
        "properties": {
            **_ITEM_FIELDS,
            "position": {"type": "integer", "minimum": 0},
            "created_at": {"type": "string"},
            "updated_at": {"type": "string"},
        },
        "required": [*_ITEM_FIELDS, "position"],
    },
    "collection_items_added": {
        "properties": {
            "item_ids": {"type": "array", "items": {"type": "integer"}},
            "document": _DOCUMENT,
        },
        "required": ["item_ids", "document"],
    },
    "collection_document_put": {
        "properties": {
            "status": {"enum": ["added", "replaced", "unchanged"]},
            "document": _DOCUMENT,
        },
        "required": ["status", "document"],
    },
    "collection_item_deleted": {
        "properties": {
            "id": {"type": "integer"},
            "document_id": {"type": "integer"},
            "document_deleted": {"type": "boolean"},
        },
        "required": ["id", "document_id", "document_deleted"],
    },
    "collection_document_deleted": {
        "properties": {
            "id": {"type": "integer"},
            "path": {"type": "string"},
            "items_deleted": {"type": "integer", "minimum": 0},
        },
        "required": ["id", "path", "items_deleted"],
    },
    "collection_document_list": {
        "properties": {
            "items": {"type": "array", "items": _DOCUMENT},
            "total_count": {"type": "integer", "minimum": 0},
            "total_pages": {"type": "integer", "minimum": 0},
            "page": {"type": "integer", "minimum": 1},
            "limit": {"type": "integer", "minimum": 1},
            "category": _NULLABLE_STRING,
        },
        "required": ["items", "total_count", "total_pages", "page"],
    },
    "collection_document": {
        "properties": {
            "document": _DOCUMENT,
            "items": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "integer"},
                        "position": {"type": "integer"},
                        "content": {"type": "string"},
                    },
                    "required": ["id", "position", "content"],
                },
            },
            "limit": {"type": "integer"},
            "offset": {"type": "integer"},
            "has_more": {"type": "boolean"},
            "next_offset": {"type": ["integer", "null"]},
        },
        "required": ["document", "items", "has_more", "next_offset"],
    },
    "collection_categories": {
        "properties": {
            "categories": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "category": {"type": "string"},
                        "document_count": {"type": "integer", "minimum": 0},
                    },
                    "required": ["category", "document_count"],
                },
            },
            "uncategorised_document_count": {"type": "integer", "minimum": 0},
        },
        "required": ["categories", "uncategorised_document_count"],
    },
    "collection_search": {
        "properties": {
            "items": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        **_ITEM_FIELDS,
                        "similarity": {"type": "number", "minimum": 0, "maximum": 1},
                        "score": {"type": "number", "minimum": 0},
                        "matched_terms": {"type": "array", "items": {"type": "string"}},
                        "match": {"enum": ["vector", "lexical"]},
                    },
                    "required": [*_ITEM_FIELDS, "similarity", "matched_terms", "match"],
                },
            },
            "terms": {"type": "array", "items": {"type": "string"}},
            "vector_search_used": {"type": "boolean"},
        },
        "required": ["items", "vector_search_used"],
    },
    "collection_reindexed": {
        "properties": {
            "items_indexed": {"type": "integer", "minimum": 0},
            "dimensions": {"type": "integer", "minimum": 0},
        },
        "required": ["items_indexed", "dimensions"],
    },
}

COLLECTION_RECORD_NAMES: Final = tuple(sorted(_RECORDS))


def collection_json_schema(record_type: str) -> dict[str, Any]:
    """A self-contained JSON Schema (draft 2020-12) for one collection record type."""
    body = _RECORDS[record_type]
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {"record_type": {"const": record_type}, **body["properties"]},
        "required": ["record_type", *body["required"]],
    }
