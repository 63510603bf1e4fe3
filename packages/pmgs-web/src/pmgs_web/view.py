"""What a page handler gives back, and the request values every handler reads the same way.

A handler returns a :class:`View`: the template and its values for the HTML page, and the
``record`` (exactly what the Python API returned) for the JSON answer of the same address.
Query parameters are checked here with the store's own error codes, so a bad ``offset`` in
the browser is the same ``INVALID_OFFSET`` an API caller gets.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

from pmgs_core import ERROR_CATEGORIES, ErrorCode, PMGSQueryError, PMGSStore
from pmgs_web.i18n import LANGUAGES
from pmgs_web.links import Linker

__all__ = ["MAX_OFFSET", "PageRequest", "View", "int_param", "status_of"]

MAX_OFFSET: Final = 1_000_000
"""Offsets beyond this are refused: no list of a pmgs release is that long."""

_STATUS: Final = {"input": 400, "not_found": 404, "unanswerable": 422, "database": 503}


def status_of(code: ErrorCode) -> int:
    """The HTTP status of a store error, from its category (one table for every code)."""
    return _STATUS.get(ERROR_CATEGORIES.get(code, "input"), 400)


@dataclass
class View:
    template: str
    context: dict[str, object]
    record: object
    status: int = 200
    title: str = ""
    redirect: str | None = None
    """An address the browser is sent to instead (303); the JSON answer is still ``record``."""


@dataclass
class PageRequest:
    """The parts of a request a page handler may use (no Starlette types below this line)."""

    store: PMGSStore
    release: str
    """What is passed as ``release=`` to the store: ``current`` or the id the user asked."""
    language: str
    query: Mapping[str, str]
    links: Linker
    extra: dict[str, object] = field(default_factory=dict)

    def text(self, name: str, max_chars: int = 4096) -> str | None:
        value = self.query.get(name)
        if value is None:
            return None
        if len(value) > max_chars:
            raise PMGSQueryError("INVALID_ARGUMENT", f"{name} is too long")
        return value


def int_param(
    query: Mapping[str, str], name: str, *, minimum: int = 0, code: ErrorCode = "INVALID_OFFSET"
) -> int | None:
    """An integer query parameter, or ``None`` when absent; anything else is ``code``."""
    raw = query.get(name)
    if raw is None or raw == "":
        return None
    if not raw.isascii() or not raw.isdigit() or len(raw) > 7:
        raise PMGSQueryError(code, f"{name} must be a whole number")
    value = int(raw)
    if not minimum <= value <= MAX_OFFSET:
        raise PMGSQueryError(code, f"{name} must be between {minimum} and {MAX_OFFSET}")
    return value


def check_language(raw: str | None) -> str:
    if raw in {None, ""}:
        return "ja"
    if raw not in LANGUAGES:
        raise PMGSQueryError(
            "INVALID_LANGUAGE", "lang must be ja or en", {"accepted": list(LANGUAGES)}
        )
    assert raw is not None
    return raw
