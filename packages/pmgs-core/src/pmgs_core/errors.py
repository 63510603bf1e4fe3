"""The one exception type of the store, with the stable codes callers branch on (ADR 0004).

The code never changes meaning; the message is always safe (no path, SQL or exception text,
which would leak into an AI transcript); safe details go in :attr:`PMGSQueryError.details`.
A code that does not exist is not an error but a ``not_found`` record.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final, Literal, get_args

__all__ = ["ERROR_CATEGORIES", "ERROR_CODES", "ErrorCategory", "ErrorCode", "PMGSQueryError"]

ErrorCode = Literal[
    # Input errors: the caller passed something that is not a valid argument.
    "INVALID_SCHEME",
    "INVALID_CODE",
    "INVALID_EDITION",
    "INVALID_VERSION",
    "INVALID_LANGUAGE",
    "INVALID_LIMIT",
    "INVALID_OFFSET",
    "INVALID_QUERY",
    "INVALID_ARGUMENT",
    "INVALID_DOCUMENT_SELECTOR",
    # ... and for the user's writable collection (pmgs_core.collection).
    "INVALID_PATH",
    "INVALID_CATEGORY",
    "INVALID_CONTENT",
    "INVALID_PAGE",
    "ITEM_TOO_LARGE",
    "TOO_MANY_ITEMS",
    "INVALID_SETTINGS",
    # The request is valid but names something the database does not hold.
    "RELEASE_NOT_FOUND",
    "DOCUMENT_NOT_FOUND",
    "DOCUMENT_SELECTOR_NOT_FOUND",
    "ITEM_NOT_FOUND",
    "WATCH_FOLDER_GONE",
    # The data cannot answer without guessing, or the answer is too large.
    "MULTIPLE_ACTIVE_REVISIONS",
    "RESPONSE_TOO_LARGE",
    # Finding and opening the database.
    "DATABASE_NOT_FOUND",
    "INVALID_POINTER",
    "POINTER_MISMATCH",
    "UNSUPPORTED_SCHEMA_VERSION",
    "DATABASE_INVALID",
    "DATABASE_ERROR",
    "STORE_CLOSED",
    "COLLECTION_BUSY",
    "COLLECTION_ERROR",
]

ERROR_CODES: Final[tuple[ErrorCode, ...]] = get_args(ErrorCode)
"""Every code :class:`PMGSQueryError` can carry, for clients that enumerate them."""

ErrorCategory = Literal["input", "not_found", "unanswerable", "database"]

_CATEGORY_BOUNDS: Final[tuple[tuple[ErrorCode, ErrorCategory], ...]] = (
    ("INVALID_SCHEME", "input"),
    ("RELEASE_NOT_FOUND", "not_found"),
    ("MULTIPLE_ACTIVE_REVISIONS", "unanswerable"),
    ("DATABASE_NOT_FOUND", "database"),
)
"""Where each category's run of :data:`ErrorCode` starts: the Literal above is the one table
of codes, grouped and commented by category, so the categories are read off its order
instead of being listed a second time."""


def _categories() -> dict[ErrorCode, ErrorCategory]:
    starts = {ERROR_CODES.index(first): category for first, category in _CATEGORY_BOUNDS}
    table: dict[ErrorCode, ErrorCategory] = {}
    category: ErrorCategory = "input"
    for index, code in enumerate(ERROR_CODES):
        category = starts.get(index, category)
        table[code] = category
    return table


ERROR_CATEGORIES: Final[Mapping[ErrorCode, ErrorCategory]] = MappingProxyType(_categories())
"""Which kind of failure each code is, so that interfaces (CLI exit codes, MCP error flags)
derive their grouping from one place: ``input`` (the caller's argument is invalid; note
``INVALID_POINTER`` is a database problem despite its prefix), ``not_found`` (valid, but the
database does not hold it), ``unanswerable`` (the data cannot answer without guessing, or
the answer is too large), ``database`` (no usable database)."""


class PMGSQueryError(Exception):
    """A query that cannot be answered, with a stable :attr:`code` and a safe message.

    ``details`` holds only JSON-ready values that are safe to show (accepted values, the
    available versions of an IPC code, the size limit); never paths or exception text.
    """

    def __init__(
        self, code: ErrorCode, message: str, details: Mapping[str, object] | None = None
    ) -> None:
        super().__init__(message)
        self.code: ErrorCode = code
        self.message = message
        self.details: dict[str, object] = dict(details or {})

    def to_dict(self) -> dict[str, object]:
        """The JSON shape every interface reports an error in."""
        result: dict[str, object] = {"code": self.code, "message": self.message}
        if self.details:
            result["details"] = dict(self.details)
        return result

    def __reduce__(
        self,
    ) -> tuple[type[PMGSQueryError], tuple[ErrorCode, str, dict[str, object]]]:
        # Keeps code and details when an error crosses a process boundary (pickling).
        return (type(self), (self.code, self.message, self.details))

    def __repr__(self) -> str:
        return f"PMGSQueryError({self.code!r}, {self.message!r})"
