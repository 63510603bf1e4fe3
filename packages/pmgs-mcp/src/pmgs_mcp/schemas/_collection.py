"""The schemas of the collection's tools and of the browse tools it widens (ADR 0016)."""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any, Final

from pmgs_mcp.schemas._inputs import object_schema

CollectionSchema = Callable[[str], Mapping[str, Any]]
"""``pmgs_core.collection_json_schema``: the JSON Schema of one collection record type."""

WRITE: Final[Mapping[str, bool]] = {
    "readOnlyHint": False,
    "destructiveHint": False,
    "idempotentHint": False,
    "openWorldHint": False,
}
DESTRUCTIVE: Final[Mapping[str, bool]] = {**WRITE, "destructiveHint": True}
IDEMPOTENT_WRITE: Final[Mapping[str, bool]] = {**WRITE, "idempotentHint": True}

_ID: Final = {"type": "integer", "description": "The id returned when it was added."}
_CATEGORY: Final = {
    "type": ["string", "null"],
    "default": None,
    "description": "Category label (at most 100 characters); see list_categories.",
}
_SOURCE: Final = {
    "type": "string",
    "enum": ["user_collection", "official"],
    "default": "user_collection",
    "description": "user_collection (the user's own documents, default) or official (the "
    "read-only PMGS release).",
}

ADD_ITEM_TEXT_INPUT: Final = object_schema(
    {
        "content": {"type": "string", "description": "The text to store."},
        "path": {
            "type": "string",
            "description": "Logical path of the document (unique; one line, at "
            "most 1024 characters).",
        },
        "mime": {"type": ["string", "null"], "default": None},
        "category": _CATEGORY,
    },
    ("content", "path"),
)
UPDATE_ITEM_INPUT: Final = object_schema(
    {"id": _ID, "content": {"type": "string"}}, ("id", "content")
)
ID_INPUT: Final = object_schema({"id": _ID}, ("id",))
"""``delete_item``, ``get_item_by_id`` and ``delete_document``: one id."""
COLLECTION_DOCUMENT_INPUT: Final = object_schema(
    {
        "id": _ID,
        "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 20},
        "offset": {"type": "integer", "minimum": 0, "default": 0},
    },
    ("id",),
)
REINDEX_INPUT: Final = object_schema({})


def source_input(official: Mapping[str, Any], *, category: bool) -> dict[str, Any]:
    """A browse tool's input with ``source`` (and, to filter the collection, ``category``)."""
    props = dict(official["properties"])
    props["source"] = _SOURCE
    if category:
        props["category"] = {**_CATEGORY, "description": "Collection only: one category."}
    return {**official, "properties": props}


def collection_search_input(official: Mapping[str, Any]) -> dict[str, Any]:
    """``search_text``'s input where ``category`` and ``source`` also reach the collection."""
    props = dict(official["properties"])
    props["category"] = {
        "type": ["string", "null"],
        "default": None,
        "maxLength": 100,
        "description": "A scheme (fi, fterm, ipc) or document kind: official texts of it; "
        "any other value: the user's collection category (see list_categories).",
    }
    props["source"] = {
        "type": "string",
        "enum": ["all", "official", "user_collection"],
        "default": "all",
        "description": "all (default): official texts and the user's collection; or one.",
    }
    return {**official, "properties": props}


COLLECTION_DOCUMENT_COUNT_OUTPUT: Final = {
    "type": "object",
    "properties": {
        "record_type": {"const": "collection_document_count"},
        "count": {"type": "integer", "minimum": 0},
        "category": {"type": ["string", "null"]},
    },
    "required": ["record_type", "count"],
}


def collection_output_schema(schema: CollectionSchema, record_type: str) -> dict[str, Any]:
    """The output schema of a collection tool: the record's schema without ``$schema``."""
    output = dict(schema(record_type))
    output.pop("$schema", None)
    return output


def source_output_schema(official: Mapping[str, Any], mine: Mapping[str, Any]) -> dict[str, Any]:
    """Either the release's answer or the collection's (a tool with ``source``)."""
    # The official schema's references point into its top-level $defs: keep them there.
    theirs = {k: v for k, v in official.items() if k not in {"$defs", "$schema"}}
    output: dict[str, Any] = {"type": "object", "anyOf": [theirs, dict(mine)]}
    if "$defs" in official:
        output["$defs"] = official["$defs"]
    return output


def collection_search_output(
    official: Mapping[str, Any], schema: CollectionSchema
) -> dict[str, Any]:
    """``search_text``'s output whose items may also be collection items."""
    output = copy.deepcopy(dict(official))
    item = schema("collection_search")["properties"]["items"]["items"]
    result = output["$defs"]["text_search_result"]
    official_item = output["$defs"]["text_search_item"]  # matched by its words, and says so
    official_item["properties"]["match"] = {"const": "lexical"}
    official_item["required"] = [*official_item["required"], "match"]
    result["properties"]["items"]["items"] = {
        "anyOf": [result["properties"]["items"]["items"], item]
    }
    result["properties"]["vector_search_used"] = {"type": "boolean"}
    return output
