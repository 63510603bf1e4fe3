"""Whether a string from a caller can be stored at all, checked before any SQL runs.

A leaf module: the store's argument checks and the search plan both use it, so neither
imports the other for it (no import circle between subpackages, ADR 0021).
"""

from __future__ import annotations

__all__ = ["is_text"]


def is_text(value: str) -> bool:
    """Whether ``value`` can be stored in the database as text: encodable UTF-8 without NUL.

    JSON (``"\\u0000"``, ``"\\ud800"``) and Python callers can hand over strings that no
    database row can hold; they are refused by the caller's own code before any SQL runs.
    """
    if "\x00" in value:
        return False
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
