"""Every page type of the viewer, as the browser tests visit them (Japanese addresses; the
English twin adds ``lang=en``)."""

from __future__ import annotations

from typing import Final
from urllib.parse import quote

PAGE_TYPES: Final = {
    "home": "/",
    "search": "/search?q=制御",
    "fi-code": "/fi/A40Y1/02@A",
    "fi-group": "/fi/A40Y1/02@A?view=group",
    "fterm-code": "/fterm/2D673AA02",
    "ipc-code": "/ipc/A40Y1/02?edition=8U",
    "ipc-older-edition": "/ipc/A40Y1/02?edition=4",
    "fterm-grid": "/theme/4C083",
    "document": "/document/fterm_explanation:ja:4C083",
    "fi-index": "/fi/",
    "fterm-index": "/fterm/?group=2D",
    "releases": "/releases",
    "quarantine": "/quarantine",
    "error": "/no/such/page",
    "fi-code-gathered": "/fi/A40Y1/02@A?f=A40Y1/02@A/FI+4C083AA01/FT+A40Y1/02/IP",
    "fterm-grid-gathered": "/theme/4C083?f=A40Y1/02@A/FI+4C083AA01/FT",
    "check": "/check?f=A40Y1/02@A/FI+4C083AA01/FT+A40Y1/02/IP",
}

CHECKED_FORMULA: Final = (
    "[H93V1/04/FI + C56L1/041/FI] * G06F3/0482/FI - (5K872AA01/FT + 4C083/AA01)"
    " + F52D1/02/FI + G06F3/042/IP + G06F3/048 + X/FI"
)
"""The formula of docs/cli.md: on the planned next release of the generated package (seed 3)
it has every status of ``pmgs check`` (abolished with chains and a cycle, changed, …)."""
RELEASE_PAGE_TYPES: Final = {
    "check-statuses": "/check?since=2026-04-01&formula=" + quote(CHECKED_FORMULA, safe=""),
    "check-syntax-error": "/check?formula=" + quote("G06F3/048/FI + (", safe=""),
    "diff": "/diff?f=G06F3/0482/FI",
    "diff-under": "/diff?scheme=fi&under=G06F",
}
"""Pages that need two installed releases: served from the data directory of the
``two_releases`` fixture (a base release and its planned next release)."""


def in_language(path: str, language: str) -> str:
    if language == "ja":
        return path
    if path.startswith("/document/fterm_explanation:ja:"):
        path = path.replace(":ja:", ":en:")
    return path + ("&" if "?" in path else "?") + "lang=en"
