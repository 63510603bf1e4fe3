"""Reading the codes out of a search formula, a CSV column or a list of one code a line.

Searchers keep formulas in the style of J-PlatPat's logical expressions: codes tagged
``/FI``, ``/FT`` or ``/IP``, joined by ``+`` (or), ``*`` (and), ``-`` (not) and brackets
(``[ ]`` or ``( )``). F-terms are written with their theme (``5H322AA09``) or under it
(``5H322/AA09``). This module only finds the code occurrences and where they are; what each
is in a release is decided by :mod:`pmgs_core.check._status`.

Text typed with a Japanese IME is read exactly like its ASCII twin: every character goes
through NFKC before tokenising (``＋`` is ``+``, ``／ＦＩ`` is ``/FI``, ``［（`` are brackets, the
ideographic space is a space), one character for one character so that every position still
points into the original text and each occurrence's ``text`` is what was typed. A character
whose NFKC form is several characters (``⑴`` → ``(1)``) is left as it is: it would
otherwise smuggle brackets in that nobody typed.

It fails closed: unbalanced brackets, a missing or doubled operator, or a tag other than the
three classification tags is an error with the position, never a formula read half-way.
The scheme of an untagged code comes from its shape only when exactly one scheme reads it;
``G06F3/048`` is both an FI and an IPC code, so it is reported as ambiguous, not guessed.
"""

from __future__ import annotations

import csv
import io
import re
import unicodedata
from dataclasses import dataclass, replace
from typing import Final, Literal

from pmgs_core.errors import PMGSQueryError
from pmgs_core.notation import InvalidCodeError, parse_code

__all__ = [
    "MAX_INPUT_CHARS",
    "TAGS",
    "InputKind",
    "Occurrence",
    "code_text",
    "read_occurrences",
    "schemes_of",
]

TAGS: Final = {"FI": "fi", "FT": "fterm", "IP": "ipc"}
"""The J-PlatPat field tags of the three classifications and the scheme each names."""

MAX_INPUT_CHARS: Final = 2_000_000
InputKind = Literal["formula", "lines", "csv"]

_OPERATORS: Final = frozenset("+*-")
_OPEN: Final = {"[": "]", "(": ")"}
_CLOSE: Final = frozenset("])")
_TAG_TAIL: Final = re.compile(r"/([A-Za-z]+)\Z")
_THEME: Final = re.compile(r"[0-9][A-Z][0-9]{3}\Z")
_UNDER_THEME: Final = re.compile(r"([0-9][A-Z][0-9]{3})/([A-Z]{2}(?:[0-9]{2})?)\Z")
_FORMULA_HINT: Final = re.compile(r"[+*\[\]()]|\s-\s|/(?:FI|FT|IP)[ \t]+\S", re.IGNORECASE)
"""An operator, a bracket, or a tagged code followed by more on its line: a formula."""


@dataclass(frozen=True, slots=True)
class Occurrence:
    """One code as written: its text as typed, where it is, its tag and the code part
    without it (``body``: NFKC-folded, so ``Ｇ０６Ｆ３／０４８`` is ``G06F3/048``)."""

    text: str
    line: int
    column: int
    offset: int
    tag: str | None
    body: str


def _fold(text: str) -> str:
    """NFKC of each character that NFKC maps to exactly one character; the same length as
    ``text``, so an offset in the result is the same offset in ``text``."""
    if text.isascii():
        return text
    folded = []
    for char in text:
        one = char if char.isascii() else unicodedata.normalize("NFKC", char)
        folded.append(one if len(one) == 1 else char)
    return "".join(folded)


def _as_typed(text: str, found: list[Occurrence]) -> list[Occurrence]:
    """The occurrences read from the folded text, each with its text as typed."""
    return [
        replace(item, text=text[item.offset : item.offset + len(item.text)])
        if item.offset >= 0
        else item
        for item in found
    ]


def _syntax(message: str, text: str, offset: int, reason: str = "FORMULA_SYNTAX") -> PMGSQueryError:
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return PMGSQueryError(
        "INVALID_QUERY",
        f"{message} at line {line}, column {column}",
        {"reason": reason, "line": line, "column": column, "offset": offset},
    )


def _split_tag(term: str, text: str, offset: int) -> tuple[str | None, str]:
    """(tag, code part) of one term; a letters-only tail after ``/`` is a tag."""
    match = _TAG_TAIL.search(term)
    if match is None:
        return None, term
    tag, body = match.group(1).upper(), term[: match.start()]
    if tag in TAGS:
        return tag, body
    if _THEME.match(body) and re.fullmatch(r"[A-Z]{2}", match.group(1)):
        return None, term  # 5H322/AA: a viewpoint written under its theme
    raise _syntax(
        f"unknown tag /{match.group(1)}; use /FI, /FT or /IP",
        text,
        offset + match.start(),
        "FORMULA_UNKNOWN_TAG",
    )


def _occurrence(term: str, text: str, offset: int) -> Occurrence:
    tag, body = _split_tag(term, text, offset)
    if not body:
        raise _syntax("a tag without a code", text, offset, "FORMULA_SYNTAX")
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return Occurrence(term, line, column, offset, tag, body)


def _formula(text: str, limit: int) -> list[Occurrence]:
    """The terms of a formula, checked against the grammar ``expr := term (op term)*``."""
    found: list[Occurrence] = []
    stack: list[tuple[str, int]] = []
    expect_operand = True
    index = 0
    while index < len(text):
        char = text[index]
        if char.isspace():
            index += 1
            continue
        if char in _OPEN:
            if not expect_operand:
                raise _syntax(f"an operator is missing before {char!r}", text, index)
            stack.append((char, index))
            index += 1
            continue
        if char in _CLOSE:
            if expect_operand:
                raise _syntax(f"a code is missing before {char!r}", text, index)
            if not stack or _OPEN[stack[-1][0]] != char:
                raise _syntax(f"{char!r} closes no open bracket", text, index)
            stack.pop()
            index += 1
            continue
        if char in _OPERATORS:
            if expect_operand:
                raise _syntax(f"a code is missing before {char!r}", text, index)
            expect_operand = True
            index += 1
            continue
        end = index
        while end < len(text) and not (
            text[end].isspace()
            or text[end] in _OPERATORS
            or text[end] in _OPEN
            or text[end] in _CLOSE
        ):
            end += 1
        if not expect_operand:
            raise _syntax("an operator (+, * or -) is missing between two codes", text, index)
        found.append(_occurrence(text[index:end], text, index))
        if len(found) > limit:
            raise _too_many(limit)
        expect_operand = False
        index = end
    if stack:
        raise _syntax(f"{stack[-1][0]!r} is never closed", text, stack[-1][1])
    if expect_operand and found:
        raise _syntax("the formula ends with an operator", text, len(text))
    return found


def _too_many(limit: int) -> PMGSQueryError:
    return PMGSQueryError(
        "TOO_MANY_ITEMS",
        f"more than {limit} codes; check them in parts of at most {limit}",
        {"max_codes": limit},
    )


def _lines(text: str, limit: int) -> list[Occurrence]:
    found = []
    offset = 0
    for raw in text.splitlines(keepends=True):
        stripped = raw.strip()
        if stripped:
            start = offset + raw.index(stripped)
            found.append(_occurrence(stripped, text, start))
            if len(found) > limit:
                raise _too_many(limit)
        offset += len(raw)
    return found


def _csv(text: str, column: str, limit: int) -> list[Occurrence]:
    """Each non-empty cell of one column (1-based number, or a header name in row 1)."""
    rows = list(csv.reader(io.StringIO(text, newline="")))
    if column.isdigit() and int(column) >= 1:
        index, data = int(column) - 1, rows
    else:
        header = rows[0] if rows else []
        names = [cell.strip() for cell in header]
        if column not in names:
            raise PMGSQueryError(
                "INVALID_ARGUMENT",
                "the CSV column is neither a 1-based number nor a name in the header row",
                {"reason": "CSV_COLUMN_NOT_FOUND", "header": names[:50]},
            )
        index, data = names.index(column), rows[1:]
    found = []
    for number, cells in enumerate(data, start=1 if data is rows else 2):
        cell = cells[index].strip() if index < len(cells) else ""
        if cell:
            folded = _fold(cell)  # per cell: a full-width comma in a cell is no separator
            found.append(Occurrence(cell, number, index + 1, -1, *_split_tag(folded, folded, 0)))
            if len(found) > limit:
                raise _too_many(limit)
    return found


def read_occurrences(
    text: str, *, kind: InputKind | None = None, column: str | None = None, limit: int
) -> tuple[InputKind, list[Occurrence]]:
    """The code occurrences of ``text`` and how it was read (``kind`` None: decided here).

    A CSV needs ``column``; otherwise text with an operator, a bracket or a tagged code
    followed by more on its line is a formula, anything else a list of one code a line.
    """
    if len(text) > MAX_INPUT_CHARS:
        raise PMGSQueryError(
            "INVALID_QUERY",
            f"the input is longer than {MAX_INPUT_CHARS:,} characters",
            {"reason": "INPUT_TOO_LARGE", "max_chars": MAX_INPUT_CHARS},
        )
    text = text.removeprefix("\ufeff")
    folded = _fold(text)
    chosen: InputKind
    if column is not None or kind == "csv":
        if column is None:
            raise PMGSQueryError("INVALID_ARGUMENT", "a CSV input needs a column")
        chosen, found = "csv", _csv(text, column, limit)
    elif kind == "formula" or (kind is None and _FORMULA_HINT.search(folded)):
        chosen, found = "formula", _as_typed(text, _formula(folded, limit))
    else:
        chosen, found = "lines", _as_typed(text, _lines(folded, limit))
    if not found:
        raise PMGSQueryError("INVALID_QUERY", "the input holds no code", {"reason": "NO_CODES"})
    return chosen, found


def schemes_of(body: str) -> list[str]:
    """Every scheme whose notation reads ``body`` (F-term forms first)."""
    if _UNDER_THEME.match(body):
        return ["fterm"]
    readable = []
    for scheme in ("fterm", "fi", "ipc"):
        try:
            parse_code(scheme, body)
        except InvalidCodeError:
            continue
        readable.append(scheme)
    return readable


def code_text(body: str) -> str:
    """The code as the notation reads it (``5H322/AA09`` → ``5H322AA09``)."""
    match = _UNDER_THEME.match(body)
    return match.group(1) + match.group(2) if match else body
