"""The output schemas of the release's tools, derived from pmgs-core's record schemas.

See ADR 0010.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from pmgs_core import DOCUMENT_KINDS, concise_schema

SchemaLoader = Callable[[str], Mapping[str, Any]]
"""``pmgs_core.load_schema``: a self-contained schema for one record type."""


def record_output_schema(load: SchemaLoader, record_type: str) -> dict[str, Any]:
    """The output schema of a tool returning one pmgs-core record type, unchanged.

    pmgs-core's schema for a record type is self-contained (``$ref`` only into its own
    ``$defs``), which the SDK client needs: it resolves references inside the schema only.
    ``type: object`` is repeated at the root because protocol versions up to 2025-11-25
    require it there.
    """
    schema = dict(load(record_type))
    return {"type": "object", **schema}


def detailed_output_schema(load: SchemaLoader, record_type: str) -> dict[str, Any]:
    """The output schema of a tool with a ``detail`` argument: the full record or its concise
    form (:func:`pmgs_core.concise_schema`), both derived from pmgs-core's one definition.

    Exactly one branch matches a given answer: the full shape forbids ``files`` and the
    concise shape forbids the full ``source`` objects.
    """
    full = record_output_schema(load, record_type)
    concise = concise_schema(full)
    return {
        "type": "object",
        "anyOf": [
            {"$ref": full["$ref"]},
            {"$ref": concise["$ref"], "required": concise["required"]},
        ],
        "$defs": {**full["$defs"], **concise["$defs"]},
    }


def paged_document_list_schema(load: SchemaLoader) -> dict[str, Any]:
    """pmgs-core's ``document_list_page`` plus the ``page`` and ``total_pages`` of list_documents.

    Document-DB clients page by page number; the store pages by offset. The tool returns the
    store's page unchanged with the two fields added, and says so in its schema by extending
    the store's definition rather than restating it.
    """
    schema = record_output_schema(load, "document_list_page")
    defs = dict(schema["$defs"])
    base = defs["document_list_page"]
    defs["paged_document_list"] = {
        **base,
        "properties": {
            **base["properties"],
            "page": {"type": "integer", "minimum": 1},
            "total_pages": {"type": "integer", "minimum": 0},
        },
        "required": sorted({*base["required"], "page", "total_pages"}),
    }
    return {**schema, "$ref": "#/$defs/paged_document_list", "$defs": defs}


DOCUMENT_COUNT_OUTPUT: Final = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "record_type": {"const": "document_count"},
        "count": {"type": "integer", "minimum": 0},
        "kind": {"anyOf": [{"enum": list(DOCUMENT_KINDS)}, {"type": "null"}]},
        "release": {
            "type": "object",
            "properties": {
                "release_id": {"type": "string"},
                "reference_date": {"type": "string"},
            },
            "required": ["release_id", "reference_date"],
        },
    },
    "required": ["record_type", "count", "kind", "release"],
}
