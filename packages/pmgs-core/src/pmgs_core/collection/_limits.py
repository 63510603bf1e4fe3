"""The bounds of the user's collection, and the checks that turn bad input into coded errors.

Every value a caller hands to the collection passes one of these checks before any write, so
a rejected call changes nothing. The bounds keep one call's cost and one answer's size
predictable for an agent that pays per token; they are generous for notes and search formulas,
and far below what would strain SQLite (ADR 0016).
"""

from __future__ import annotations

import math
import re
from typing import Final

from pmgs_core.errors import ErrorCode, PMGSQueryError

__all__ = [
    "CHUNK_CHARS",
    "DEFAULT_PAGE_LIMIT",
    "MAX_CATEGORY_CHARS",
    "MAX_CONTENT_CHARS",
    "MAX_ITEM_CHARS",
    "MAX_MIME_CHARS",
    "MAX_PAGE_LIMIT",
    "MAX_PATH_CHARS",
    "MAX_QUERY_CHARS",
    "MAX_SEARCH_LIMIT",
    "check_category",
    "check_content",
    "check_id",
    "check_item_content",
    "check_limit",
    "check_mime",
    "check_page",
    "check_path",
    "check_score",
]

MAX_PATH_CHARS: Final = 1024
"""The longest logical path of a document (``notes/2026/idea.md``): a name, not a text;
category and MIME type are labels, shorter still."""
MAX_CATEGORY_CHARS: Final = 100
MAX_MIME_CHARS: Final = 100
CHUNK_CHARS: Final = 2000
"""The size items are cut to: one item is one excerpt an agent can read whole."""
MAX_ITEM_CHARS: Final = 20_000
"""The largest single item ``update_item`` accepts (an edited chunk may grow)."""
MAX_CONTENT_CHARS: Final = 1_000_000
"""The largest text one ``add_item_text`` or one imported file may bring (~500 items)."""
MAX_QUERY_CHARS: Final = 1000
DEFAULT_PAGE_LIMIT: Final = 20
MAX_PAGE_LIMIT: Final = 100
MAX_SEARCH_LIMIT: Final = 100
MAX_PAGE: Final = 1_000_000

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_LINE_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _label(value: object, name: str, code: ErrorCode, limit: int) -> str:
    """A one-line label (path, category, mime): non-empty, bounded, printable."""
    if not isinstance(value, str):
        raise PMGSQueryError(code, f"{name} must be a string", {"argument": name})
    text = value.strip()
    if not text:
        raise PMGSQueryError(code, f"{name} must not be empty", {"argument": name})
    if len(text) > limit:
        raise PMGSQueryError(
            code,
            f"{name} is longer than {limit} characters",
            {"argument": name, "max_chars": limit},
        )
    if _LINE_CONTROL.search(text) or _has_surrogate(text):
        raise PMGSQueryError(
            code,
            f"{name} must be one line of text without control characters",
            {"argument": name},
        )
    return text


def check_path(value: object) -> str:
    """A document's logical path: a name, never opened as a file, so any printable line."""
    return _label(value, "path", "INVALID_PATH", MAX_PATH_CHARS)


def check_category(value: object) -> str | None:
    if value is None:
        return None
    return _label(value, "category", "INVALID_CATEGORY", MAX_CATEGORY_CHARS)


def check_mime(value: object) -> str | None:
    if value is None:
        return None
    return _label(value, "mime", "INVALID_ARGUMENT", MAX_MIME_CHARS)


def _text(value: object, name: str, limit: int) -> str:
    if not isinstance(value, str):
        raise PMGSQueryError("INVALID_CONTENT", f"{name} must be a string", {"argument": name})
    if not value.strip():
        raise PMGSQueryError("INVALID_CONTENT", f"{name} must not be empty", {"argument": name})
    if len(value) > limit:
        raise PMGSQueryError(
            "ITEM_TOO_LARGE",
            f"{name} is longer than {limit} characters",
            {"argument": name, "max_chars": limit},
        )
    if _CONTROL.search(value) or _has_surrogate(value):
        raise PMGSQueryError(
            "INVALID_CONTENT",
            f"{name} holds control characters or invalid Unicode",
            {"argument": name},
        )
    return value


def check_content(value: object) -> str:
    """A text to add: split into items later, so bounded by the whole-text limit."""
    return _text(value, "content", MAX_CONTENT_CHARS)


def check_item_content(value: object) -> str:
    """The new text of one item."""
    return _text(value, "content", MAX_ITEM_CHARS)


def _integer(value: object, name: str, code: ErrorCode, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise PMGSQueryError(
            code,
            f"{name} must be an integer from {low} to {high}",
            {"argument": name, "minimum": low, "maximum": high},
        )
    return value


def check_id(value: object, name: str, code: ErrorCode) -> int:
    """An item or document id: a positive integer; anything else is simply not there."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise PMGSQueryError(code, f"{name} must be a positive integer", {"argument": name})
    return value


def check_limit(value: object, high: int = MAX_PAGE_LIMIT) -> int:
    return _integer(value, "limit", "INVALID_LIMIT", 1, high)


def check_page(value: object) -> int:
    return _integer(value, "page", "INVALID_PAGE", 1, MAX_PAGE)


def check_score(value: object) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or not 0 <= value <= 1
    ):
        raise PMGSQueryError(
            "INVALID_ARGUMENT", "min_score must be a number from 0 to 1", {"argument": "min_score"}
        )
    return float(value)
