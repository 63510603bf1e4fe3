"""The store's argument checks: every argument is checked before any SQL runs.

A bad argument is a :class:`PMGSQueryError` with a stable code and a message that names the
argument and the accepted values, never a path, SQL or exception text. The checks are plain
functions so that each capability module calls exactly the ones its methods need (ADR 0004).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, Literal, cast

from pmgs_core.errors import PMGSQueryError
from pmgs_core.schema import DOCUMENT_KINDS, IPC_EDITIONS
from pmgs_core.storable import is_text

__all__ = [
    "CONTENT_TYPES",
    "DIRECTIONS",
    "ID_CHUNK",
    "LOOKUP_DOCUMENT_LIMIT",
    "MAX_DEPTH",
    "MAX_DOCUMENT_ID_CHARS",
    "MAX_LIMIT",
    "MAX_LOCATOR_CHARS",
    "SQLITE_MAX_INT",
    "Direction",
    "check_content_types",
    "check_direction",
    "check_edition",
    "check_kinds",
    "check_language",
    "check_limit",
    "check_offset",
    "check_ranking",
    "check_scheme",
    "check_schemes",
    "is_int",
    "is_text",
    "page_fields",
    "placeholders",
    "valid_at",
]

MAX_LIMIT: Final = 200
"""Upper bound of every ``limit`` argument (relations, hierarchy, search, segments)."""

SQLITE_MAX_INT: Final = 2**63 - 1
LOOKUP_DOCUMENT_LIMIT: Final = 50
"""Documents listed inside a lookup record; ``related_documents`` lists them all."""

_SCHEMES: Final[dict[str, str]] = {"fi": "fi", "ipc": "ipc", "fterm": "fterm", "f-term": "fterm"}
_SCHEMES_ALIASES: Final[dict[str, str]] = {**_SCHEMES, "f_term": "fterm"}
_LANGUAGES: Final = ("ja", "en")
CONTENT_TYPES: Final = ("classification", "document")
Direction = Literal["parents", "children", "descendants"]
DIRECTIONS: Final[dict[str, Direction]] = {
    "descendants": "descendants",
    "parents": "parents",
    "parent": "parents",
    "children": "children",
    "child": "children",
}
MAX_DOCUMENT_ID_CHARS: Final = 512
MAX_LOCATOR_CHARS: Final = 512
MAX_DEPTH: Final = 64
"""Deepest hierarchy walked; real trees are about 15 levels deep, so this only stops cycles."""
ID_CHUNK: Final = 500


def is_int(value: object) -> bool:
    """Booleans are ints to Python but never a count or an offset to a caller."""
    return isinstance(value, int) and not isinstance(value, bool)


def check_offset(value: object, name: str) -> int:
    """Offsets are checked in Python because SQLite would overflow or misread them."""
    if not is_int(value) or not 0 <= cast(int, value) <= SQLITE_MAX_INT:
        raise PMGSQueryError(
            "INVALID_OFFSET",
            f"{name} must be an integer from 0 to {SQLITE_MAX_INT}",
            {"argument": name},
        )
    return cast(int, value)


def check_limit(value: object, name: str) -> int:
    """Every list is bounded so that no answer can grow past the response size limit."""
    if not is_int(value) or not 1 <= cast(int, value) <= MAX_LIMIT:
        raise PMGSQueryError(
            "INVALID_LIMIT",
            f"{name} must be an integer from 1 to {MAX_LIMIT}",
            {"argument": name, "max": MAX_LIMIT},
        )
    return cast(int, value)


def check_language(language: object) -> str:
    if language not in _LANGUAGES:
        raise PMGSQueryError(
            "INVALID_LANGUAGE", "language must be 'ja' or 'en'", {"accepted": list(_LANGUAGES)}
        )
    return language


def check_scheme(scheme: object) -> str:
    if isinstance(scheme, str):
        found = _SCHEMES_ALIASES.get(scheme.strip().lower())
        if found is not None:
            return found
    raise PMGSQueryError(
        "INVALID_SCHEME",
        "scheme must be one of fi, ipc, fterm",
        {"accepted": ["fi", "ipc", "fterm"]},
    )


def check_schemes(schemes: object) -> list[str]:
    if schemes is None:
        return ["fi", "fterm", "ipc"]
    if isinstance(schemes, str):
        schemes = [schemes]
    if not isinstance(schemes, (list, tuple)) or not schemes:
        raise PMGSQueryError("INVALID_SCHEME", "schemes must be a non-empty list of fi, ipc, fterm")
    return sorted({check_scheme(item) for item in schemes})


def check_edition(scheme: str, edition: object) -> str | None:
    """IPC editions are normalised (``8u`` → ``8U``); FI and F-term have none."""
    if edition is None:
        return None
    if scheme != "ipc":
        raise PMGSQueryError(
            "INVALID_EDITION",
            "edition applies only to IPC; FI and F-term have a single edition",
        )
    if isinstance(edition, str):
        normalized = edition.strip().upper()
        if normalized in IPC_EDITIONS:
            return normalized
    raise PMGSQueryError(
        "INVALID_EDITION",
        "edition must be one of the IPC editions " + ", ".join(IPC_EDITIONS),
        {"accepted": list(IPC_EDITIONS)},
    )


def check_kinds(kinds: object) -> list[str] | None:
    if kinds is None:
        return None
    checked = known_items(
        kinds, DOCUMENT_KINDS, "document kinds must be a non-empty list of known document kinds"
    )
    return sorted(set(checked))


def known_items(items: object, accepted: Sequence[str], message: str) -> Sequence[str]:
    """A string or a non-empty list of strings, each one of ``accepted``; else INVALID_ARGUMENT."""
    if isinstance(items, str):
        items = [items]
    if (
        not isinstance(items, (list, tuple))
        or not items
        or any(item not in accepted for item in items)
    ):
        raise PMGSQueryError("INVALID_ARGUMENT", message, {"accepted": list(accepted)})
    return cast(Sequence[str], items)


def placeholders(count: int) -> str:
    """``?,?,?``: values are always bound, never spliced into SQL."""
    return ",".join("?" * count)


def valid_at(valid_from: str | None, valid_to: str | None, date: str) -> bool:
    """Validity windows are inclusive at both ends; NULL means unbounded (ISO dates compare
    as strings)."""
    return (valid_from is None or valid_from <= date) and (valid_to is None or date <= valid_to)


def page_fields(count: int, limit: int, offset: int, shown: int) -> tuple[bool, int | None]:
    """(truncated, next offset) of a counted page; one rule for every paged list."""
    truncated = offset + shown < count
    return truncated, (offset + shown if truncated else None)


def check_direction(direction: object) -> Direction:
    """``parent``/``child`` are accepted for ``parents``/``children`` (CLI spellings)."""
    checked = DIRECTIONS.get(direction) if isinstance(direction, str) else None
    if checked is None:
        raise PMGSQueryError(
            "INVALID_ARGUMENT",
            "direction must be 'parents', 'children' or 'descendants'",
            {"accepted": ["parents", "children", "descendants"]},
        )
    return checked


def check_content_types(content_types: object) -> list[str]:
    """The content types of a combined search, in the fixed order they are answered in."""
    if content_types is None:
        return list(CONTENT_TYPES)
    checked = known_items(
        content_types,
        CONTENT_TYPES,
        "content_types must be a non-empty list of classification, document",
    )
    return [item for item in CONTENT_TYPES if item in checked]


ORDERS: Final[tuple[Literal["index"], Literal["relevance"]]] = ("index", "relevance")
MATCHES: Final[tuple[Literal["all"], Literal["any"]]] = ("all", "any")


def check_ranking(
    order: object, match: object, min_score: object
) -> tuple[Literal["index", "relevance"], Literal["all", "any"], float]:
    """``order``, ``match`` and ``min_score`` of a search, or ``INVALID_ARGUMENT``.

    ``min_score`` is a number in [0, 1] (scores are normalised so that the best hit is 1.0).
    """
    if order not in ORDERS:
        raise PMGSQueryError(
            "INVALID_ARGUMENT", "order must be 'index' or 'relevance'", {"accepted": list(ORDERS)}
        )
    if match not in MATCHES:
        raise PMGSQueryError(
            "INVALID_ARGUMENT", "match must be 'all' or 'any'", {"accepted": list(MATCHES)}
        )
    if (
        isinstance(min_score, bool)
        or not isinstance(min_score, (int, float))
        or not 0.0 <= min_score <= 1.0
    ):
        raise PMGSQueryError(
            "INVALID_ARGUMENT",
            "min_score must be a number from 0 to 1",
            {"minimum": 0, "maximum": 1},
        )
    return order, match, float(min_score)
