"""Codes written in a document's headings and bodies, turned into links where they are codes.

A candidate is a run that looks like an F-term theme or term (``2D673``, ``2D673AA01``) or
an FI / IPC symbol (``A40Y``, ``A40Y1/02``, ``B60J5/00,501@B``), not glued to other Latin
letters or digits. It becomes a link only when :meth:`pmgs_core.PMGSStore.code_markers` finds
it in this release (FI before IPC for the same notation: the documents of the package are
Japanese, FI is their classification); anything else stays plain text. The pieces are
escaped by the template like every other package text.
"""

from __future__ import annotations

import re
from typing import Any, Final

from pmgs_core import CodeRef
from pmgs_web.view import PageRequest

__all__ = ["linked_pieces"]

_CANDIDATE: Final = re.compile(
    r"(?<![A-Za-z0-9/@,])"
    r"(?:\d[A-Z]\d{3}(?:[A-Z]{2}(?:\d{2})?)?"
    r"|[A-H]\d{2}[A-Z](?:\d{1,4}/\d{2,6}(?:,\d{3})?(?:@[A-Z])?)?)"
    r"(?![A-Za-z0-9@])"
)
MAX_CANDIDATES: Final = 200


def _ref(scheme: str, code: str, edition: str | None = None) -> CodeRef:
    return {"scheme": scheme, "edition": edition, "code": code, "kind": "", "record_status": ""}


def _scheme_of(code: str) -> list[tuple[str, str | None]]:
    if code[0].isdigit():
        return [("fterm", None)]
    return [("fi", None), ("ipc", "8U")]


def linked_pieces(req: PageRequest, texts: list[str]) -> list[list[dict[str, Any]]]:
    """Each text as pieces ``{text, href}`` (``href`` None for plain text)."""
    found = sorted({hit.group() for text in texts for hit in _CANDIDATE.finditer(text)})
    found = found[:MAX_CANDIDATES]
    hrefs: dict[str, str] = {}
    if found:
        tries = [(code, scheme, edition) for code in found for scheme, edition in _scheme_of(code)]
        refs = [_ref(scheme, code, edition) for code, scheme, edition in tries]
        answers = []
        for start in range(0, len(refs), MAX_CANDIDATES):
            answers.extend(req.store.code_markers(refs[start : start + MAX_CANDIDATES]))
        for (code, scheme, edition), marker in zip(tries, answers, strict=True):
            if marker["found"] and code not in hrefs:
                hrefs[code] = req.links.code(scheme, code, edition)
    pieces_of_all = []
    for text in texts:
        pieces: list[dict[str, Any]] = []
        position = 0
        for hit in _CANDIDATE.finditer(text):
            href = hrefs.get(hit.group())
            if href is None:
                continue
            if hit.start() > position:
                pieces.append({"text": text[position : hit.start()], "href": None})
            pieces.append({"text": hit.group(), "href": href})
            position = hit.end()
        if position < len(text):
            pieces.append({"text": text[position:], "href": None})
        pieces_of_all.append(pieces)
    return pieces_of_all
