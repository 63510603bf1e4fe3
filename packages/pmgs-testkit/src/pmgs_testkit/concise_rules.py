"""The members an MCP concise answer leaves out because it says them elsewhere, put back by
the rules written in docs/mcp.md ("What an MCP concise answer says once"; ADR 0018, third
amendment).

An oracle for the suites of pmgs-core (``concise_record(..., echoes=False)``) and pmgs-mcp
(the text copy read back): it is written from the documented rules, not derived from the
code under test, and kept in one place so the two suites check against the same reading.
"""

from __future__ import annotations

from typing import Any, Final

__all__ = ["SHARED_HEADERS", "SOURCED_ROWS", "restore_echoes"]

SOURCED_ROWS: Final = ("texts", "properties", "relations", "scope_notes")
"""The rows of a classification that inherit ``revision.source`` when they carry none."""
SHARED_HEADERS: Final = ("terms", "language", "total_is_exact")
"""Search sub-page headers written once on the combined page when both sub-pages share them."""


def restore_echoes(answer: dict[str, Any]) -> dict[str, Any]:
    """Put the left-out members back, in place, and return ``answer``.

    ``sources`` is not put back: the entries it lost are cited elsewhere in the answer.
    """
    if answer["record_type"] == "classification":
        query = answer.setdefault("query", {})
        query.setdefault("scheme", answer["scheme"])
        query.setdefault("code", answer["code"])
        query.setdefault("language", "ja")
        query.setdefault("release", "current")
        own = (answer.get("revision") or {}).get("source")
        if own is not None:
            for key in SOURCED_ROWS:
                for row in answer.get(key, []):
                    row.setdefault("source", own)
    pages = answer.get("results_by_type", {})
    for page in pages.values():
        for header in SHARED_HEADERS:
            if header in answer:
                page.setdefault(header, answer[header])
        if page["record_type"] == "classification_search_page":
            for hit in page["results"]:
                for match in hit["matches"]:
                    match.setdefault("language", page["language"])
    if pages:  # the combined page of the full form carries none of them itself
        for header in SHARED_HEADERS:
            answer.pop(header, None)
    return answer
