"""The ``check_classification_codes`` tool: verify a formula's codes before proposing it.

Its input schema is ``CHECK_CODES_INPUT`` in :mod:`pmgs_mcp.schemas` (ADR 0021).
The tool is read-only and bounded: at most :data:`MAX_MCP_CODES` code occurrences a call
(more is ``TOO_MANY_ITEMS``; split the formula), the text at most
``MAX_MCP_TEXT_CHARS`` characters. Its output is the pmgs-core ``code_check`` record.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from pmgs_mcp.schemas import MAX_MCP_CODES

__all__ = [
    "CHECK_CODES_DESCRIPTION",
    "CHECK_TOOL_NAME",
    "MAX_MCP_CODES",
    "run_check_codes",
]

CHECK_TOOL_NAME: Final = "check_classification_codes"

CHECK_CODES_DESCRIPTION: Final = (
    "Check every classification code of a search formula against the local PMGS release "
    "BEFORE proposing the formula. Each occurrence comes back with its position and status: "
    "present, changed (with since), abolished (with the official revision record: date, old "
    "title and every transfer target, with source file and locator), not_found, "
    "not_valid_at_release (IPC), theme_not_present (F-term), ambiguous_scheme (add /FI, /FT "
    "or /IP), invalid_code. Each transfer target comes as code (canonical, usable in a "
    "formula), text (the record's own spelling) and its own status; an abolished target's "
    "records are followed to leads_to (codes present in the release; cycle and "
    "depth_limited say where a chain stopped). Nothing is rewritten: replace a code only "
    "with a target the record lists or its leads_to, and say so. Bad syntax or an unknown "
    "tag is INVALID_QUERY with the "
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
