"""The error object of a failed tool call: its stable code, a safe message and a next step.

It travels as JSON text only, never as structured content, which must match the tool's
output schema (ADR 0010). A schema violation gets the code the store gives the same argument
(``INVALID_LIMIT`` …), so MCP, Python and ``--json`` agree.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any, Final

__all__ = [
    "ARGUMENT_CODES",
    "COLLECTION_TOOLS",
    "ERROR_SCHEMA",
    "HINTS",
    "REASON_HINTS",
    "argument_error_code",
    "error_object",
    "offending_argument",
]

ARGUMENT_CODES: Final[Mapping[str, str]] = MappingProxyType(
    {
        "scheme": "INVALID_SCHEME",
        "schemes": "INVALID_SCHEME",
        "code": "INVALID_CODE",
        "edition": "INVALID_EDITION",
        "version": "INVALID_VERSION",
        "language": "INVALID_LANGUAGE",
        "query": "INVALID_QUERY",
        "content": "INVALID_QUERY",
        "limit": "INVALID_LIMIT",
        "relation_limit": "INVALID_LIMIT",
        "segment_limit": "INVALID_LIMIT",
        "related_classification_limit": "INVALID_LIMIT",
        "relation_offset": "INVALID_OFFSET",
        "classification_offset": "INVALID_OFFSET",
        "document_offset": "INVALID_OFFSET",
        "segment_offset": "INVALID_OFFSET",
        "related_classification_offset": "INVALID_OFFSET",
    }
)
"""Arguments whose invalid values the store reports with a code of their own."""

_DOCUMENT_SELECTORS: Final = frozenset({"page", "section", "locator"})
"""``get_pmgs_document``'s selectors: the store's ``INVALID_DOCUMENT_SELECTOR``. Only there:
``list_documents`` also has a ``page`` (a page number), which has no store counterpart."""

HINTS: Final[Mapping[str, str]] = MappingProxyType(
    {
        "INVALID_ARGUMENT": "Fix the argument named in details.argument; see the tool's input "
        "schema for accepted values.",
        "INVALID_SCHEME": "Use scheme 'fi', 'fterm' or 'ipc'.",
        "INVALID_CODE": "Check the notation (e.g. G06F3/048, 5B068AA01), or find the code with "
        "search_pmgs.",
        "INVALID_EDITION": "Give an edition only for IPC (8U, 8B, 7, 7E, 6, 5, 4), or omit it.",
        "INVALID_VERSION": "Use an IPC version such as 2006.01, or omit it for the revision "
        "valid at the release date.",
        "INVALID_LANGUAGE": "Use language 'ja' or 'en'.",
        "INVALID_QUERY": "Send literal text of at most 512 characters, without NUL characters.",
        "INVALID_LIMIT": "Use a limit within the bounds of the tool's input schema (at most 200; "
        "list_documents at most 100).",
        "INVALID_OFFSET": "Use an offset of 0 or more; to continue, pass the next_*_offset of "
        "the previous page.",
        "INVALID_DOCUMENT_SELECTOR": "Give at most one of page, section and locator; page and "
        "section start at 1.",
        "DOCUMENT_NOT_FOUND": "Use a document_id returned by search_pmgs, lookup_classification "
        "or list_documents.",
        "DOCUMENT_SELECTOR_NOT_FOUND": "Read the document without a selector to see its pages, "
        "sections and locators.",
        "RELEASE_NOT_FOUND": "Use 'current' or a release id from details.available "
        "(release_info names the one being served).",
        "MULTIPLE_ACTIVE_REVISIONS": "Give the IPC version explicitly (see details).",
        "RESPONSE_TOO_LARGE": "Ask for a smaller page (a lower limit).",
        "INVALID_PATH": "Give path as one line of text of at most 1024 characters.",
        "INVALID_CATEGORY": "Give category as one line of text of at most 100 characters.",
        "INVALID_CONTENT": "Send non-empty text without control characters.",
        "INVALID_PAGE": "Pages start at 1.",
        "ITEM_TOO_LARGE": "Send less text per call (add_item_text at most 1,000,000 "
        "characters, update_item at most 20,000).",
        "TOO_MANY_ITEMS": "The collection is full; delete documents it no longer needs.",
        "INVALID_SETTINGS": "Send monitor_paths as [{path, category}] with absolute folder "
        "paths, min_score from 0 to 1 and limit from 1 to 100.",
        "ITEM_NOT_FOUND": "Use an item id returned by add_item_text, get_document or search_text.",
        "INTERNAL_ERROR": "The server could not answer; its log has the details. Retrying the "
        "same call will not help.",
    }
)
"""One next step per code, phrased for an agent calling the MCP tools."""

REASON_HINTS: Final[Mapping[str, str]] = MappingProxyType(
    {
        "FORMULA_SYNTAX": "Join codes with + (or), * (and), - (not) and balanced [ ] or ( ); "
        "details.line and details.column say where the formula broke.",
        "FORMULA_UNKNOWN_TAG": "Tag codes with /FI, /FT or /IP only, or give scheme for the "
        "untagged codes.",
        "NO_CODES": "Send the formula's text with at least one classification code.",
        "INPUT_TOO_LARGE": "Send the formula in parts and check each part in its own call.",
    }
)
"""Hints by ``details.reason``, before the code's: ``check_classification_codes`` reports
every formula problem as INVALID_QUERY, whose own hint is about search text."""

DEFAULT_HINT: Final = "The database cannot answer this call; ask the operator to run pmgs doctor."
"""For codes without a hint of their own (database problems, which the caller cannot fix)."""

ERROR_SCHEMA: Final[Mapping[str, Any]] = MappingProxyType(
    {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "pmgs MCP tool error (the JSON text of a result with isError: true)",
        "type": "object",
        "additionalProperties": False,
        "required": ["error"],
        "properties": {
            "error": {
                "type": "object",
                "additionalProperties": False,
                "required": ["code", "message", "hint"],
                "properties": {
                    "code": {"type": "string", "pattern": "^[A-Z][A-Z_]*$"},
                    "message": {"type": "string", "minLength": 1},
                    "hint": {"type": "string", "minLength": 1},
                    "details": {"type": "object"},
                },
            }
        },
    }
)
"""What a client can rely on in an error result's text; the tests hold every error to it."""


_COLLECTION_ARGUMENT_CODES: Final[Mapping[str, str]] = MappingProxyType(
    {
        "path": "INVALID_PATH",
        "category": "INVALID_CATEGORY",
        "content": "INVALID_CONTENT",
        "page": "INVALID_PAGE",
        "offset": "INVALID_OFFSET",
    }
)
"""Codes of the collection's arguments (``pmgs_core.Collection`` gives the same ones)."""

COLLECTION_TOOLS: Final = (
    "add_item_text",
    "update_item",
    "delete_item",
    "get_item_by_id",
    "get_document",
    "delete_document",
    "lsa_retrain",
    "reindex_collection",
)
"""The collection's own tools (``--allow-write``), whose arguments have the codes above."""


def argument_error_code(tool: str, argument: str | None) -> str:
    """The stable code for a schema violation of ``argument`` (``schemes[0]``, ``limit`` …).

    Only the top-level argument name decides: an invalid item of ``schemes`` is an invalid
    scheme, as the store would say.
    """
    if argument is None:
        return "INVALID_ARGUMENT"
    name = argument.split("[", 1)[0].split(".", 1)[0]
    if tool == "get_pmgs_document" and name in _DOCUMENT_SELECTORS:
        return "INVALID_DOCUMENT_SELECTOR"
    if tool in COLLECTION_TOOLS and name in _COLLECTION_ARGUMENT_CODES:
        return _COLLECTION_ARGUMENT_CODES[name]
    return ARGUMENT_CODES.get(name, "INVALID_ARGUMENT")


_NOT_FOUND_ARGUMENTS: Final[Mapping[str, str]] = MappingProxyType(
    {"DOCUMENT_NOT_FOUND": "document_id", "RELEASE_NOT_FOUND": "release"}
)
"""Store codes for a valid value that names nothing in the database, and the argument."""


def offending_argument(tool: str, arguments: Iterable[str], code: str) -> str | None:
    """The one argument of ``tool`` that a store error with ``code`` can be about, if unique.

    The store's own details name the argument only for limits and offsets; for the other
    codes the tool's argument list decides (``INVALID_CODE`` in ``lookup_classification``
    is about ``code``). ``None`` when no argument, or more than one, fits.
    """
    names = set(arguments)
    candidates = {name for name in names if argument_error_code(tool, name) == code}
    fallback = _NOT_FOUND_ARGUMENTS.get(code)
    if fallback in names:
        candidates.add(fallback)
    return candidates.pop() if len(candidates) == 1 else None


def error_object(
    code: str, message: str, details: Mapping[str, object] | None = None
) -> dict[str, Any]:
    """``{"error": {...}}``: the value an error result carries as its JSON text."""
    reason = (details or {}).get("reason")
    hint = REASON_HINTS.get(reason) if isinstance(reason, str) else None
    most = (details or {}).get("max_codes")
    if code == "TOO_MANY_ITEMS" and isinstance(most, int):
        hint = f"Split the formula: check at most {most} codes a call, the parts in separate calls."
    error: dict[str, Any] = {
        "code": code,
        "message": message,
        "hint": hint or HINTS.get(code, DEFAULT_HINT),
    }
    if details:
        error["details"] = dict(details)
    return {"error": error}
