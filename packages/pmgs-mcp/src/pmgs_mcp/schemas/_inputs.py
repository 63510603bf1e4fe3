"""The input schemas of the release's tools: the store's parameters with the limits it applies.

See ADR 0021.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any, Final

from pmgs_core import DOCUMENT_KINDS, IPC_EDITIONS, MAX_LIMIT, SCHEMES

LANGUAGES: Final = ("ja", "en")
CONTENT_TYPES: Final = ("classification", "document")
# Schemes, IPC editions, document kinds and the page limit come from pmgs-core itself, so
# the input schemas cannot drift from what the store accepts.

MAX_PAGE_LIMIT: Final = MAX_LIMIT
"""The store's largest page (relations, search results, segments, related classifications)."""
MAX_QUERY_CHARS: Final = 512
"""The store's longest search query."""
MAX_CODE_CHARS: Final = 64
MAX_ID_CHARS: Final = 512
"""The store's longest document id and locator."""
MAX_OFFSET: Final = 2**63 - 1
"""The store's largest offset (SQLite's integer range)."""
MAX_PAGE_NUMBER: Final = 2**31 - 1
MAX_LIST_LIMIT: Final = 100
"""``list_documents`` pages hold 1–100 items, as document-DB clients expect."""


READ_ONLY: Final[Mapping[str, bool]] = MappingProxyType(
    {
        "readOnlyHint": True,
        "destructiveHint": False,
        "idempotentHint": True,
        "openWorldHint": False,
    }
)
"""The annotations of a tool that only reads: no effects, the same answer every time."""

# --- input schemas ---------------------------------------------------------------------------


def object_schema(properties: dict[str, Any], required: Sequence[str] = ()) -> dict[str, Any]:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
    }
    if required:
        schema["required"] = list(required)
    return schema


def _int(description: str, default: int, minimum: int, maximum: int) -> dict[str, Any]:
    return {
        "type": "integer",
        "minimum": minimum,
        "maximum": maximum,
        "default": default,
        "description": description,
    }


def _optional(schema: dict[str, Any]) -> dict[str, Any]:
    """Accept ``null`` as "not given" (many agents send it for optional arguments)."""
    base = schema["type"]
    types = [base] if isinstance(base, str) else list(base)
    out = dict(schema)
    out["type"] = [*types, "null"]
    if "enum" in out:
        out["enum"] = [*out["enum"], None]
    out.setdefault("default", None)
    return out


_RELEASE: Final = {
    "type": "string",
    "minLength": 1,
    "maxLength": 64,
    "default": "current",
    "description": "Release id (e.g. JPPM2025...) or 'current' for the active database.",
}
_LANGUAGE: Final = {
    "type": "string",
    "enum": list(LANGUAGES),
    "default": "ja",
    "description": "Language of texts: 'ja' (default) or 'en' where the package has English.",
}

DETAILS: Final = ("concise", "full")
_DETAIL: Final = {
    "type": "string",
    "enum": list(DETAILS),
    "default": "concise",
    "description": (
        "concise (default): each source file once (by path) in a top-level 'files' table "
        "that sources refer to by key, attribution once, excerpts cut to a window around the "
        "match with '…', and a text copy of one row per item under a header of column names. "
        "full: the pmgs-core record unchanged (file SHA-256s included), its text copy JSON."
    ),
}

LOOKUP_INPUT: Final = object_schema(
    {
        "detail": _DETAIL,
        "scheme": {
            "type": "string",
            "enum": list(SCHEMES),
            "description": "Classification scheme: 'fi', 'fterm' or 'ipc'.",
        },
        "code": {
            "type": "string",
            "minLength": 1,
            "maxLength": MAX_CODE_CHARS,
            "description": (
                "The code in any common notation: 'G06F3/048', 'G06F 3/048', fixed width "
                "'G06F0003048000', an F-term '5B068AA01' or theme '5B068'."
            ),
        },
        "release": _RELEASE,
        "edition": _optional(
            {
                "type": "string",
                "enum": list(IPC_EDITIONS),
                "description": (
                    "IPC edition only (8U, 8B, 7, 7E, 6, 5, 4). Omit to take the first "
                    "edition holding the code in that order. Giving one for fi/fterm fails "
                    "with INVALID_EDITION."
                ),
            }
        ),
        "language": _LANGUAGE,
        "version": _optional(
            {
                "type": "string",
                "minLength": 1,
                "maxLength": 32,
                "description": (
                    "IPC version such as '2006.01' (IPC only). Omit for the revision valid at "
                    "the release date."
                ),
            }
        ),
        "relation_limit": _int(
            "Relations per page (1-200; default 5, sized for an agent's context; "
            "relation_count says how many there are).",
            5,
            1,
            MAX_PAGE_LIMIT,
        ),
        "relation_offset": _int(
            "Relations to skip; pass next_relation_offset to continue.", 0, 0, MAX_OFFSET
        ),
    },
    required=("scheme", "code"),
)

_RANKING: Final = {
    "order": {
        "type": "string",
        "enum": ["index", "relevance"],
        "default": "index",
        "description": (
            "'index' (default): package order. 'relevance': BM25 over the lexical indexes "
            "(rare terms, more terms, shorter texts rank higher); hits gain score (best = 1.0) "
            "and matched_terms. Lexical only: a score is not the likelihood that a code fits."
        ),
    },
    "match": {
        "type": "string",
        "enum": ["all", "any"],
        "default": "all",
        "description": (
            "'all' (default): every term in one text. 'any': texts with any term, ranked "
            "(more terms rank higher); use it for long queries and pasted sentences."
        ),
    },
    "min_score": {
        "type": "number",
        "minimum": 0,
        "maximum": 1,
        "default": 0,
        "description": "Ranked results only: drop hits whose score is below this (0-1).",
    },
}

SEARCH_INPUT: Final = object_schema(
    {
        "detail": _DETAIL,
        "query": {
            "type": "string",
            "maxLength": MAX_QUERY_CHARS,
            "description": (
                "Literal text; whitespace separates terms that must all occur. Japanese "
                "words of 2 characters (電池, 樹脂) work. A Japanese phrase may be written "
                "as is (燃料噴射を制御する装置): when no text holds it, the answer is the "
                "any-word search of its words (see fallback). An empty query returns empty "
                "pages."
            ),
        },
        "fallback": {
            "type": "boolean",
            "default": True,
            "description": (
                "true (default): never a dead end. A query that is a code (G06F 3/048, "
                "5H050AA01) adds code_matches: call lookup_classification with that scheme "
                "and code. An exact phrase that no text holds is answered by the texts "
                "holding any of the words it is written with (cut by a Japanese "
                "morphological analyser, kept as written: no synonyms), ranked by relevance; "
                "fallback.words names them. Still nothing: other_language counts the hits in "
                "the other language (search again with that language). false: only the "
                "search asked for."
            ),
        },
        "schemes": _optional(
            {
                "type": "array",
                "items": {"type": "string", "enum": list(SCHEMES)},
                "uniqueItems": True,
                "minItems": 1,
                "maxItems": len(SCHEMES),
                "description": "Restrict classification results to these schemes (default all).",
            }
        ),
        "content_types": _optional(
            {
                "type": "array",
                "items": {"type": "string", "enum": list(CONTENT_TYPES)},
                "uniqueItems": True,
                "minItems": 1,
                "maxItems": len(CONTENT_TYPES),
                "description": "'classification', 'document' or both (default both).",
            }
        ),
        "release": _RELEASE,
        "language": _LANGUAGE,
        "limit": _int(
            "Results per content type and page (1-200; default 4, sized for an agent's "
            "context); applied to each type separately.",
            4,
            1,
            MAX_PAGE_LIMIT,
        ),
        "classification_offset": _int(
            "Classification results to skip; pass results_by_type.classification.next_offset.",
            0,
            0,
            MAX_OFFSET,
        ),
        "document_offset": _int(
            "Document results to skip; pass results_by_type.document.next_offset.",
            0,
            0,
            MAX_OFFSET,
        ),
        "document_kinds": _optional(
            {
                "type": "array",
                "items": {"type": "string", "enum": list(DOCUMENT_KINDS)},
                "uniqueItems": True,
                "minItems": 1,
                "maxItems": len(DOCUMENT_KINDS),
                "description": "Restrict document results to these kinds (see list_categories).",
            }
        ),
        "ipc_editions": _optional(
            {
                "type": "array",
                "items": {"type": "string", "enum": list(IPC_EDITIONS)},
                "uniqueItems": True,
                "minItems": 1,
                "maxItems": len(IPC_EDITIONS),
                "description": "Search only these IPC editions (FI and F-term are not "
                "filtered). Without it, an IPC code is one hit listing its matching editions.",
            }
        ),
        **_RANKING,
    },
    required=("query",),
)

SEARCH_TEXT_INPUT: Final = object_schema(
    {
        "content": {
            "type": "string",
            "maxLength": MAX_QUERY_CHARS,
            "description": (
                "Words or a pasted sentence (whitespace separates terms; at most 16 terms). "
                "Texts holding any of them are ranked lexically. Empty: items is []."
            ),
        },
        "limit": _int("Most items returned (1-200).", 5, 1, MAX_PAGE_LIMIT),
        "min_score": {
            "type": "number",
            "minimum": 0,
            "maximum": 1,
            "default": 0.3,
            "description": "Drop items whose similarity (best item = 1.0) is below this.",
        },
        "group_by_document": {
            "type": "boolean",
            "default": True,
            "description": (
                "true: one item per classification code or document (its best texts joined); "
                "false: one item per matching text line or segment."
            ),
        },
        "category": _optional(
            {
                "type": "string",
                "enum": [*SCHEMES, *DOCUMENT_KINDS],
                "description": "A scheme (fi, fterm, ipc) or a document kind (list_categories).",
            }
        ),
        "release": _RELEASE,
        "language": _LANGUAGE,
    },
    required=("content",),
)

DOCUMENT_INPUT: Final = object_schema(
    {
        "detail": _DETAIL,
        "document_id": {
            "type": "string",
            "minLength": 1,
            "maxLength": MAX_ID_CHARS,
            "description": (
                "A document_id returned by search_pmgs or lookup_classification, e.g. "
                "'ipc_definition:G06F3/048'."
            ),
        },
        "page": _optional(
            {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_OFFSET,
                "description": "1-based PDF page. At most one of page, section, locator.",
            }
        ),
        "section": _optional(
            {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_OFFSET,
                "description": "1-based segment number (section in search results).",
            }
        ),
        "locator": _optional(
            {
                "type": "string",
                "minLength": 1,
                "maxLength": MAX_ID_CHARS,
                "description": "Exact locator, heading or source locator of a segment.",
            }
        ),
        "segment_limit": _int(
            "Segments per page (1-200; default 20, sized for an agent's context).",
            20,
            1,
            MAX_PAGE_LIMIT,
        ),
        "segment_offset": _int(
            "Segments to skip; pass next_segment_offset to continue.", 0, 0, MAX_OFFSET
        ),
        "related_classification_limit": _int(
            "Related classifications per page (1-200; default 5).", 5, 1, MAX_PAGE_LIMIT
        ),
        "related_classification_offset": _int(
            "Related classifications to skip; pass next_related_classification_offset.",
            0,
            0,
            MAX_OFFSET,
        ),
    },
    required=("document_id",),
)

LIST_DOCUMENTS_INPUT: Final = object_schema(
    {
        "limit": _int("Documents per page (1-100).", 20, 1, MAX_LIST_LIMIT),
        "page": _int(
            "1-based page number; a page past the end returns no items.", 1, 1, MAX_PAGE_NUMBER
        ),
        "kind": _optional(
            {
                "type": "string",
                "enum": list(DOCUMENT_KINDS),
                "description": "Only documents of this kind (see list_categories).",
            }
        ),
        "release": _RELEASE,
    }
)
LIST_CATEGORIES_INPUT: Final = object_schema({"release": _RELEASE})
DOCUMENT_COUNT_INPUT: Final = object_schema(
    {
        "kind": _optional(
            {
                "type": "string",
                "enum": list(DOCUMENT_KINDS),
                "description": "Count only documents of this kind.",
            }
        ),
        "release": _RELEASE,
    }
)
RELEASE_INPUT: Final = object_schema({"release": _RELEASE})


MAX_MCP_CODES: Final = 200
"""``check_classification_codes`` checks at most this many code occurrences a call."""
MAX_MCP_TEXT_CHARS: Final = 20_000

CHECK_CODES_INPUT: Final = object_schema(
    {
        "text": {
            "type": "string",
            "minLength": 1,
            "maxLength": MAX_MCP_TEXT_CHARS,
            "description": (
                "A J-PlatPat-style formula (G06F3/048/FI + 5H322AA09/FT * [H01M10/052/IP]; "
                "F-terms also as 5H322/AA09; operators + * -, brackets [ ] or ( )) or one "
                f"code a line; at most {MAX_MCP_CODES} codes."
            ),
        },
        "scheme": {
            "type": ["string", "null"],
            "enum": ["fi", "fterm", "ipc", None],
            "default": None,
            "description": "Scheme of untagged codes; else read from the shape (FI and IPC "
            "look-alikes such as G06F3/048 are reported as ambiguous_scheme, not guessed).",
        },
        "since": {
            "type": ["string", "null"],
            "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$",
            "default": None,
            "description": "ISO date: present FI codes revised on or after it are 'changed'.",
        },
        "release": {
            "type": "string",
            "minLength": 1,
            "maxLength": 64,
            "default": "current",
            "description": "Release id or 'current' for the active database.",
        },
    },
    ["text"],
)
