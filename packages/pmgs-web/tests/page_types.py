"""Every page type of the viewer, as the browser tests visit them (Japanese addresses; the
English twin adds ``lang=en``)."""

from __future__ import annotations

from typing import Final

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
}


def in_language(path: str, language: str) -> str:
    if language == "ja":
        return path
    if path.startswith("/document/fterm_explanation:ja:"):
        path = path.replace(":ja:", ":en:")
    return path + ("&" if "?" in path else "?") + "lang=en"
