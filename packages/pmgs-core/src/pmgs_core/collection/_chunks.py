"""How a text becomes items: pieces of at most :data:`CHUNK_CHARS` characters (ADR 0016).

An item is what a search returns and an agent reads in one go, so paragraphs are packed up
to the limit and cut at line ends only when longer; joining the items gives the text back.
"""

from __future__ import annotations

import mimetypes
import re
from collections.abc import Iterator

from pmgs_core.collection._limits import CHUNK_CHARS

__all__ = ["guess_mime", "split_items"]

_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")


def _pieces(text: str, limit: int) -> Iterator[str]:
    """Paragraphs, or parts of them no longer than ``limit``."""
    for raw in _PARAGRAPH_BREAK.split(text):
        paragraph = raw.strip("\n")
        if not paragraph.strip():
            continue
        if len(paragraph) <= limit:
            yield paragraph
            continue
        line_block = ""
        for whole_line in paragraph.split("\n"):
            line = whole_line
            while len(line) > limit:
                if line_block:
                    yield line_block
                    line_block = ""
                yield line[:limit]
                line = line[limit:]
            candidate = f"{line_block}\n{line}" if line_block else line
            if len(candidate) > limit:
                yield line_block
                candidate = line
            line_block = candidate
        if line_block.strip():
            yield line_block


def split_items(text: str, limit: int = CHUNK_CHARS) -> list[str]:
    """The items of ``text``: paragraphs packed together up to ``limit`` characters each."""
    normalised = text.replace("\r\n", "\n").replace("\r", "\n")
    items: list[str] = []
    current = ""
    for piece in _pieces(normalised, limit):
        candidate = f"{current}\n\n{piece}" if current else piece
        if len(candidate) > limit:
            items.append(current)
            candidate = piece
        current = candidate
    if current:
        items.append(current)
    return items


_EXTRA_TYPES = {".md": "text/markdown", ".markdown": "text/markdown", ".txt": "text/plain"}


def guess_mime(path: str) -> str:
    """The MIME type a logical path's extension suggests, ``text/plain`` when it says nothing."""
    suffix = path.rsplit("/", 1)[-1]
    dot = suffix.rfind(".")
    extension = suffix[dot:].lower() if dot > 0 else ""
    if extension in _EXTRA_TYPES:
        return _EXTRA_TYPES[extension]
    guessed, _ = mimetypes.guess_type(f"x{extension}", strict=False) if extension else (None, None)
    return guessed or "text/plain"
