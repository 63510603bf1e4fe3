"""The ``check_classification_codes`` tool: verify a formula's codes before proposing it.

Self-contained (input schema, description, body) so that the tool registry only names it.
The tool is read-only and bounded: at most :data:`MAX_MCP_CODES` code occurrences a call
(more is ``TOO_MANY_ITEMS``; split the formula), the text at most
:data:`MAX_MCP_TEXT_CHARS` characters. Its output is the pmgs-core ``code_check`` record.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from pmgs_mcp.schemas import object_schema

__all__ = [
    "CHECK_CODES_DESCRIPTION",
    "CHECK_CODES_INPUT",
    "CHECK_TOOL_NAME",
    "MAX_MCP_CODES",
    "MAX_MCP_TEXT_CHARS",
    "run_check_codes",
]

CHECK_TOOL_NAME: Final = "check_classification_codes"
MAX_MCP_CODES: Final = 200
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

CHECK_CODES_DESCRIPTION: Final = (
    "Check every classification code of a search formula against the local PMGS release "
    "BEFORE proposing the formula. Each occurrence comes back with its position and status: "
    "present, changed (with since), abolished (with the official revision record: date, old "
    "title and every transfer target, quoted, with source file and locator), not_found, "
    "not_valid_at_release (IPC), theme_not_present (F-term), ambiguous_scheme (add /FI, /FT "
    "or /IP), invalid_code. Nothing is rewritten: replace a code only with a transfer target "
    "the record lists, and say so. Bad syntax or an unknown tag is INVALID_QUERY with the "
    f"position; more than {MAX_MCP_CODES} codes is TOO_MANY_ITEMS."
)


def run_check_codes(store: Any, args: dict[str, Any]) -> Mapping[str, Any]:
    """The tool body: the store's ``check_codes`` with the MCP bound on codes."""
    result: Mapping[str, Any] = store.check_codes(
        args["text"],
        release=args.get("release", "current"),
        since=args.get("since"),
        scheme=args.get("scheme"),
        max_codes=MAX_MCP_CODES,
    )
    return result
