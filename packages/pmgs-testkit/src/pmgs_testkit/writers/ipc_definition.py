"""``REFERENCE/IPC_TEIGI``: one definition PDF per chosen IPC code, a few pages without text.

Which codes get a PDF is a hash of the seed and code (plus a few forced ones), so the choice
never depends on writing order; each PDF draws from a stream named after its code.
"""

from __future__ import annotations

import math
import random
import zlib
from typing import Final

from pmgs_core import ClassificationCode
from pmgs_core.building import ipc_code_from_pdf_name
from pmgs_testkit._output import Output
from pmgs_testkit._pdf import LINE_CHARS, ipc_pdf_name, pdf_document
from pmgs_testkit.plan import Plan
from pmgs_testkit.vocabulary import TextMaker

__all__ = ["IpcDefinitions"]

_REAL_PDF_EMPTY_PAGES: Final = 41
_PDF_RATE: Final = 5_906 / 69_850
"""Share of IPC subclass and group codes with a definition PDF (5,906 of the about 69,850
such codes of a full-scale base tree)."""
_PDF_MIN_CHARS: Final = 48
_PDF_MAX_CHARS: Final = 25_111
_FORCED_PDFS: Final = ("G06F", "G06F3/048")
_FORCED_PDFS_FULL: Final = ("B60J",)
_HEADINGS: Final = ("【定義】", "【注】", "【参照】", "【例】")


def _lines(chunk: str) -> list[str]:
    """A page's text in lines of :data:`LINE_CHARS`, a last line of one character joined to
    the line before: pdfium does not extract a text line of a single CJK character, so such a
    line would make the planted page text differ from what any reader gets back."""
    lines = [chunk[i : i + LINE_CHARS] for i in range(0, len(chunk), LINE_CHARS)]
    if len(lines) > 1 and len(lines[-1]) == 1:
        last = lines.pop()
        lines[-1] += last
    return lines


class IpcDefinitions:
    """The definition PDFs of a package and their page tallies."""

    def __init__(self, out: Output, plan: Plan, examples: dict[str, str]) -> None:
        self._out = out
        self._plan = plan
        self._examples = examples
        self.page_chars: dict[str, tuple[int, ...]] = {}
        """Characters per page of every PDF written (0: a page without text); the tallies
        below are derived from it, so they cannot disagree with it."""
        self._group_pdfs = 0
        self._quota_empties = 0
        self._empty_rate = 0.0
        if plan.with_quirks and not plan.compact:
            expected_files = 5_906 * plan.scale
            self._empty_rate = max(0.0, (_REAL_PDF_EMPTY_PAGES * plan.scale - 2) / expected_files)
        self._forced = set(_FORCED_PDFS if plan.compact else _FORCED_PDFS + _FORCED_PDFS_FULL)

    @property
    def files(self) -> int:
        """PDFs written."""
        return len(self.page_chars)

    @property
    def pages(self) -> int:
        """Pages of all PDFs, with and without text."""
        return sum(map(len, self.page_chars.values()))

    @property
    def empty_pages(self) -> int:
        """Pages without text."""
        return sum(chars.count(0) for chars in self.page_chars.values())

    @property
    def chars(self) -> int:
        """Non-whitespace characters of all pages."""
        return sum(map(sum, self.page_chars.values()))

    def wants(self, code: ClassificationCode) -> bool:
        """Whether ``code`` gets a PDF: the forced codes, else a seeded hash at the real rate."""
        if code.canonical in self._forced:
            return True
        if self._plan.compact or code.kind not in {"subclass", "main_group", "subgroup"}:
            return False
        draw = zlib.crc32(f"{self._plan.seed}:teigi:{code.canonical}".encode()) % 100_000
        return draw < _PDF_RATE * 100_000

    def _text(self, rng: random.Random, code: ClassificationCode, version: str) -> str:
        """The definition text (no white space: pdfium's extraction then gives it back)."""
        maker = TextMaker(rng)
        if self._plan.compact:
            target = 420 if code.kind == "subclass" else 150
        elif self._plan.scale >= 0.5 and self.files == 100:
            target = _PDF_MAX_CHARS  # the largest real file, present at full scale
        else:
            target = _PDF_MIN_CHARS + round(rng.lognormvariate(math.log(165), 1.1))
            target = min(target, _PDF_MAX_CHARS)
        pieces = [code.canonical, f"（{version}）"]
        length = sum(map(len, pieces))
        heading = 0
        while length < target:
            piece = _HEADINGS[heading // 4 % 4] if heading % 4 == 0 else maker.sentence()[0]
            heading += 1
            pieces.append(piece)
            length += len(piece)
        text = "".join(pieces)[:target]
        if any(char.isspace() for char in text):
            raise AssertionError("definition text must not contain whitespace")
        return text

    def _empty_at(self, rng: random.Random, code: ClassificationCode, pages: int) -> int | None:
        """Where a page without text goes, if this file gets one (only with quirks)."""
        if not self._plan.with_quirks:
            return None
        if code.canonical == "G06F":
            return 1
        if code.canonical == "B60J":
            return 0
        if int((self.files + 1) * self._empty_rate) > self._quota_empties:
            # A quota rather than a coin per file: the count is then exact for the scale
            # (41 at 1.0) instead of scattering around it.
            self._quota_empties += 1
            return rng.randint(0, pages)
        return None

    def write(self, code: ClassificationCode, version: str) -> None:
        """The PDF of ``code`` at its current (or last) IPC 8 ``version``."""
        rng = self._plan.rng(f"teigi:{code.canonical}")
        text = self._text(rng, code, version)
        pages: list[list[str]] = []
        cap_range = (200, 300) if self._plan.compact else (300, 1000)
        position = 0
        while position < len(text):
            cap = rng.randint(*cap_range)
            if len(text) - (position + cap) == 1:
                cap += 1  # never a last page of one character (see _lines)
            chunk = text[position : position + cap]
            position += cap
            pages.append(_lines(chunk))
        empty_at = self._empty_at(rng, code, len(pages))
        if empty_at is not None:
            pages.insert(empty_at, [])
        padded = True
        if code.main_group is not None and code.canonical != "G06F3/048":
            self._group_pdfs += 1
            padded = self._group_pdfs % 2 == 0
        name = ipc_pdf_name(code, padded=padded)
        if ipc_code_from_pdf_name(name).canonical != code.canonical:
            raise AssertionError(f"{name} does not name {code.canonical}")
        data = pdf_document(pages, title=f"IPC definition {code.canonical}")
        self._out.write_bytes("REFERENCE/IPC_TEIGI", name, data, rows=len(pages))
        chars = tuple(sum(map(len, page)) for page in pages)
        self.page_chars[name] = chars
        if code.canonical == "G06F3/048":
            self._examples["ipc_definition_pdf"] = f"REFERENCE/IPC_TEIGI/{name}"
            self._examples["ipc_definition_code"] = code.canonical
            self._examples["ipc_definition_first_page"] = "".join(pages[0])
        if empty_at is not None:
            self._examples.setdefault(
                "ipc_definition_pdf_with_empty_page", f"REFERENCE/IPC_TEIGI/{name}"
            )
