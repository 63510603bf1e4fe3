"""Classification code notations: FI, F-term and IPC, as users type them and as PMGS stores them.

Every lookup in pmgs starts from a code somebody typed, pasted from a PDF or read from a
space-padded CSV cell, and the same code has many spellings (``G06F3/048``, ``G06F 3/048``,
``G06F0003048000``, ``Ｇ０６Ｆ３／０４８``, ``G06F   3/   048    ``). Everything is reduced to one
canonical spelling, the one J-PlatPat shows, so that the store needs exactly one key per code.

The module fails closed. A code that parses into something plausible but wrong (the classic
case is a fixed-width FI cell ``…/    00501B`` read as subgroup ``00501``) silently sends a
user to the wrong place, while an error costs one retry; so every ambiguity raises
:class:`InvalidCodeError` instead of being resolved by a guess. Decisions worth knowing:

* Input is NFKC-normalised so that full-width text pasted from Japanese documents works, but
  only ASCII, full-width ASCII (U+FF01-U+FF5E) and the ideographic / no-break space may occur
  in the input. Other characters that NFKC would fold into digits or slashes (``²``, ``⁄``)
  are rejected rather than trusted.
* A main group is written without leading zeros (``G06F3/048``); zero-padded main groups are
  accepted only inside the WIPO 14-character symbol, where the padding is part of the format.
* A subgroup has 2 to 6 digits and no trailing zero beyond the first two (``/048``, never
  ``/0480``): IPC subgroup digits after the first two are a decimal fraction, so ``/0480``
  would be a second spelling of ``/048`` and the WIPO form could not tell them apart.
* FI broad facets (広域ファセット) are taken to be ``Z`` plus two letters (``ZAA``). All known
  facets have that shape; a facet outside it makes a build fail loudly instead of being
  mistaken for something else. Facet sub-terms are not modelled.
* An FI code with a development code or file symbol keeps the kind of its IPC group part:
  ``B60J5/00,501@B`` is a ``main_group`` and ``G06F3/048,101`` a ``subgroup``, because the
  kind describes the position in the IPC hierarchy; the extension is visible in
  :attr:`ClassificationCode.development_code` and :attr:`ClassificationCode.file_symbol`.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import ClassVar, Final, Literal

__all__ = [
    "FI_FIXED_WIDTH",
    "FTERM_FIXED_WIDTH",
    "IPC_FIXED_WIDTH",
    "MAX_CODE_INPUT_LENGTH",
    "ClassificationCode",
    "InvalidCodeError",
    "InvalidSchemeError",
    "Kind",
    "Scheme",
    "format_fixed_width",
    "fterm_theme_code",
    "ipc_code_from_pdf_name",
    "normalize_code",
    "parse_code",
    "parse_ipc_version",
]

Scheme = Literal["fi", "ipc", "fterm"]
Kind = Literal[
    "section",
    "class",
    "subclass",
    "main_group",
    "subgroup",
    "facet",
    "theme",
    "viewpoint",
    "term",
]

FI_FIXED_WIDTH: Final = 19
"""Width of an FI code cell in ``FI/*`` CSVs: subclass 4, main group 4, ``/``, subgroup 6,
development code 3, file symbol 1."""

IPC_FIXED_WIDTH: Final = 15
"""Width of an IPC code cell: the FI layout without the development code and file symbol."""

FTERM_FIXED_WIDTH: Final = 10
"""Width F-term and theme codes are padded to when pmgs writes them back in file form."""

MAX_CODE_INPUT_LENGTH: Final = 64
"""Longest input looked at; no notation comes near it, and a bound keeps hostile input cheap."""

_SCHEME_LABELS: Final[dict[str, str]] = {"fi": "FI", "ipc": "IPC", "fterm": "F-term"}

_EXPECTED: Final[dict[str, str]] = {
    "fi": (
        "e.g. G06F3/048, B21B37/00,210, B21B1/00@A, B60J5/00,501@B, G06F, ZAA "
        "or the 19-character fixed width form"
    ),
    "ipc": (
        "e.g. G06F3/048, G06F 3/048, G06F3/00, G06F, G06F0003048000, G06F3/048 (2006.01) "
        "or the 15-character fixed width form"
    ),
    "fterm": "e.g. 4C083 (theme), 4C083AA (viewpoint), 4C083AA01 or 4C083 AA01 (term)",
}
_EXPECTED_VERSION: Final = "an IPC version such as (2006.01) or 2006.01"
_EXPECTED_THEME_PARTS: Final = "a theme group such as 4C and a theme number such as 083"
_EXPECTED_PDF_NAME: Final = (
    "an IPC definition PDF name such as G06F3-048.pdf, G06F___3-048.pdf or G06F.pdf"
)
_SCHEME_NAMES: Final[dict[str, Scheme]] = {
    "fi": "fi",
    "ipc": "ipc",
    "fterm": "fterm",
    "f-term": "fterm",
    "f_term": "fterm",
}
_EXPECTED_SCHEMES: Final = "one of fi, ipc, fterm (F-term), in any letter case"

_MESSAGE_TEXT_LIMIT: Final = 80
_VIEWPOINT_NUMBER: Final = "00"

# Loose captures on purpose ([0-9]+, [A-Z]+): the digit-count rules are checked afterwards so
# that the error can say which part is wrong instead of "does not match".
_HIERARCHY_RE: Final = re.compile(
    r"(?P<section>[A-H])"
    r"(?:(?P<class_>[0-9]{2})"
    r"(?:(?P<subclass>[A-Z])"
    r"(?: *(?P<main>[0-9]+) */ *(?P<sub>[0-9]+)"
    # A development code follows ',' or spaces; a file symbol follows '@', spaces, or (only
    # after a development code) nothing, as fixed-width listings print ``8/44 501B``.
    r"(?:(?: *, *| +)(?P<dev>[0-9]+)(?:(?: *@ *| *)(?P<sym>[A-Z]+))?"
    r"|(?: *@ *| +)(?P<sym_only>[A-Z]+))?"
    r")?)?)?"
)
_WIPO_RE: Final = re.compile(
    r"(?P<section>[A-H])(?P<class_>[0-9]{2})(?P<subclass>[A-Z])(?P<main>[0-9]{4})(?P<sub>[0-9]{6})"
)
_SUBCLASS_RE: Final = re.compile(r"[A-H][0-9]{2}[A-Z]")
_FIXED_MAIN_RE: Final = re.compile(r" *[1-9][0-9]*")
_FIXED_SUB_RE: Final = re.compile(r" *[0-9]{2,6}")
_FIXED_DEV_RE: Final = re.compile(r"[0-9]{3}| {3}")
_FIXED_SYM_RE: Final = re.compile(r"[A-Z ]")
_VERSION_SUFFIX_RE: Final = re.compile(
    r"(?P<code>.*?)(?: *\( *(?P<v1>[0-9]{4}\.[0-9]{2}) *\)| +(?P<v2>[0-9]{4}\.[0-9]{2}))"
)
_VERSION_RE: Final = re.compile(r"\( *(?P<v1>[0-9]{4}\.[0-9]{2}) *\)|(?P<v2>[0-9]{4}\.[0-9]{2})")
_FTERM_RE: Final = re.compile(
    r"(?P<theme>[0-9][A-Z][0-9]{3})(?: *(?P<viewpoint>[A-Z]{2})(?P<number>[0-9]{2})?)?"
)
_PDF_STEM_RE: Final = re.compile(
    r"(?P<section>[A-H])"
    r"(?:(?P<class_>[0-9]{2})"
    r"(?:(?P<subclass>[A-Z])"
    r"(?:(?P<pad>_*)(?P<main>[0-9]+)-(?P<sub>[0-9]+))?"
    r")?)?"
)

# The value rules of every field, shared by the parsers and ClassificationCode's own check.
_FIELD_RES: Final[dict[str, re.Pattern[str]]] = {
    "section": re.compile(r"[A-HZ]"),
    "class_": re.compile(r"[0-9]{2}"),
    "subclass": re.compile(r"[A-Z]"),
    "main_group": re.compile(r"[1-9][0-9]{0,3}"),
    "subgroup": re.compile(r"[0-9]{2}(?:[0-9]{0,3}[1-9])?"),
    "development_code": re.compile(r"[0-9]{3}"),
    "file_symbol": re.compile(r"[A-Z]"),
    "facet": re.compile(r"Z[A-Z]{2}"),
    "theme": re.compile(r"[0-9][A-Z][0-9]{3}"),
    "viewpoint": re.compile(r"[A-Z]{2}"),
    "number": re.compile(r"(?!00)[0-9]{2}"),  # 00 heads a viewpoint: it is the viewpoint
    "version": re.compile(r"(?:19|20)[0-9]{2}\.(?:0[1-9]|1[0-2])"),
}
_FIELD_NAMES: Final = tuple(_FIELD_RES)

_GROUP_FIELDS: Final = frozenset({"section", "class_", "subclass", "main_group", "subgroup"})
_REQUIRED_FIELDS: Final[dict[str, frozenset[str]]] = {
    "section": frozenset({"section"}),
    "class": frozenset({"section", "class_"}),
    "subclass": frozenset({"section", "class_", "subclass"}),
    "main_group": _GROUP_FIELDS,
    "subgroup": _GROUP_FIELDS,
    "facet": frozenset({"facet"}),
    "theme": frozenset({"theme"}),
    "viewpoint": frozenset({"theme", "viewpoint"}),
    "term": frozenset({"theme", "viewpoint", "number"}),
}
_HIERARCHY_KINDS: Final = frozenset({"section", "class", "subclass", "main_group", "subgroup"})
_GROUP_KINDS: Final = frozenset({"main_group", "subgroup"})
_KINDS_BY_SCHEME: Final[dict[str, frozenset[str]]] = {
    "fi": _HIERARCHY_KINDS | {"facet"},
    "ipc": _HIERARCHY_KINDS,
    "fterm": frozenset({"theme", "viewpoint", "term"}),
}


class InvalidCodeError(ValueError):
    """A code that cannot be read with certainty.

    Callers (CLI, MCP tools) turn it into a user-facing answer, so it carries a stable
    :attr:`code` and the accepted forms in :attr:`expected` rather than only prose.
    """

    code: ClassVar[str] = "INVALID_CODE"

    def __init__(self, scheme: str, text: str, expected: str, reason: str | None = None) -> None:
        self.scheme = scheme
        self.text = text
        self.expected = expected
        self.reason = reason
        label = _SCHEME_LABELS.get(scheme, scheme)
        article = "an" if label[:1] in {"A", "E", "F", "I", "O", "U"} else "a"
        shown = repr(text[:_MESSAGE_TEXT_LIMIT])
        if len(text) > _MESSAGE_TEXT_LIMIT:
            shown += "…"
        detail = f" ({reason})" if reason else ""
        super().__init__(f"not {article} {label} code: {shown}{detail}; expected {expected}")

    def __reduce__(self) -> tuple[type[InvalidCodeError], tuple[str, str, str, str | None]]:
        # Keeps the error intact across process boundaries (parallel builds pickle errors).
        return (type(self), (self.scheme, self.text, self.expected, self.reason))


class InvalidSchemeError(ValueError):
    """A scheme name that is none of FI, IPC and F-term.

    Separate from :class:`InvalidCodeError` because it is a caller mistake (wrong argument)
    rather than a bad code, and interfaces report the two differently.
    """

    code: ClassVar[str] = "INVALID_SCHEME"

    def __init__(self, scheme: str) -> None:
        self.scheme = scheme
        self.expected = _EXPECTED_SCHEMES
        shown = repr(scheme[:_MESSAGE_TEXT_LIMIT])
        super().__init__(f"unknown classification scheme: {shown}; expected {self.expected}")

    def __reduce__(self) -> tuple[type[InvalidSchemeError], tuple[str]]:
        return (type(self), (self.scheme,))


@dataclass(frozen=True, slots=True)
class ClassificationCode:
    """One parsed code, kept as its parts so that every spelling can be produced from it.

    Construction validates the parts: a hand-built instance with inconsistent fields would
    otherwise print a canonical form that looks valid but names a different code.
    """

    scheme: Scheme
    kind: Kind
    section: str | None = None
    class_: str | None = None
    subclass: str | None = None
    main_group: str | None = None
    subgroup: str | None = None
    development_code: str | None = None
    file_symbol: str | None = None
    facet: str | None = None
    theme: str | None = None
    viewpoint: str | None = None
    number: str | None = None
    version: str | None = None

    def __post_init__(self) -> None:
        scheme: str = self.scheme
        if scheme not in _KINDS_BY_SCHEME:
            raise InvalidSchemeError(scheme)
        present = {name for name in _FIELD_NAMES if getattr(self, name) is not None}
        described = ", ".join(f"{name}={getattr(self, name)!r}" for name in sorted(present))
        kind: str = self.kind

        def fail(reason: str) -> InvalidCodeError:
            return InvalidCodeError(scheme, f"{kind}: {described}", _EXPECTED[scheme], reason)

        if kind not in _KINDS_BY_SCHEME[scheme]:
            raise fail(f"kind {kind!r} does not exist in this scheme")
        allowed = set(_REQUIRED_FIELDS[kind])
        if scheme == "ipc":
            allowed.add("version")
        if scheme == "fi" and kind in _GROUP_KINDS:
            allowed |= {"development_code", "file_symbol"}
        if missing := _REQUIRED_FIELDS[kind] - present:
            raise fail(f"missing {', '.join(sorted(missing))}")
        if extra := present - allowed:
            raise fail(f"{', '.join(sorted(extra))} not allowed here")
        for name in sorted(present):
            value: object = getattr(self, name)
            if not isinstance(value, str) or not _FIELD_RES[name].fullmatch(value):
                raise fail(f"invalid {name}")
        if self.section == "Z" and (scheme != "fi" or kind != "section"):
            raise fail("section Z (the FI broad facets) exists only as an FI section row")
        if kind in _GROUP_KINDS and (self.subgroup == "00") != (kind == "main_group"):
            raise fail("a main group has subgroup 00 and a subgroup does not")

    @property
    def ipc_class(self) -> str | None:
        """The class as IPC texts name it (``G06``), which :attr:`class_` alone does not."""
        if self.section is None or self.class_ is None:
            return None
        return self.section + self.class_

    @property
    def canonical(self) -> str:
        """The J-PlatPat spelling, the single key codes are stored and compared under.

        The IPC version is left out: it qualifies a revision of the code, not the code.
        """
        kind = self.kind
        if kind == "facet":
            return _present(self.facet)
        if kind in {"theme", "viewpoint", "term"}:
            return _present(self.theme) + (self.viewpoint or "") + (self.number or "")
        head = _present(self.section) + (self.class_ or "") + (self.subclass or "")
        if kind not in _GROUP_KINDS:
            return head
        text = f"{head}{_present(self.main_group)}/{_present(self.subgroup)}"
        if self.development_code is not None:
            text += "," + self.development_code
        if self.file_symbol is not None:
            text += "@" + self.file_symbol
        return text

    def fixed_width(self) -> str:
        """The spelling of the PMGS CSV cells, so that pmgs can write or match package rows.

        FI groups use the 19-character layout, IPC groups its 15-character prefix; codes
        without a group (sections to subclasses, facets, F-terms) are left-aligned and padded
        to the width of their scheme.
        """
        if self.scheme == "fterm":
            # F-term files head each viewpoint with its number-00 row.
            heading = _VIEWPOINT_NUMBER if self.kind == "viewpoint" else ""
            return (self.canonical + heading).ljust(FTERM_FIXED_WIDTH)
        width = FI_FIXED_WIDTH if self.scheme == "fi" else IPC_FIXED_WIDTH
        if self.kind not in _GROUP_KINDS:
            return self.canonical.ljust(width)
        head = _present(self.section) + _present(self.class_) + _present(self.subclass)
        text = f"{head}{_present(self.main_group):>4}/{_present(self.subgroup):>6}"
        if self.scheme == "fi":
            text += (self.development_code or "   ") + (self.file_symbol or " ")
        return text

    def wipo_symbol(self) -> str:
        """The 14-character WIPO symbol used by WIPO data and some IPC files.

        Only groups have one (sections to subclasses have no agreed padded form). For FI the
        symbol of its IPC group is returned: development codes and file symbols have no place
        in the WIPO layout, so callers must not expect to get them back.
        """
        if self.scheme == "fterm" or self.kind not in _GROUP_KINDS:
            raise InvalidCodeError(
                self.scheme,
                self.canonical,
                "a main group or subgroup such as G06F3/048",
                f"a {self.kind} has no WIPO 14-character symbol",
            )
        head = _present(self.section) + _present(self.class_) + _present(self.subclass)
        return f"{head}{_present(self.main_group):0>4}{_present(self.subgroup):0<6}"

    def __str__(self) -> str:
        return self.canonical


def _present(value: str | None) -> str:
    # __post_init__ guarantees the fields of each kind; this only satisfies the type checker.
    if value is None:  # pragma: no cover - unreachable after validation
        raise ValueError("incomplete ClassificationCode")
    return value


def _scheme(scheme: object) -> Scheme:
    if not isinstance(scheme, str):
        raise InvalidSchemeError(repr(scheme))
    key = unicodedata.normalize("NFKC", scheme[:_MESSAGE_TEXT_LIMIT]).strip().lower()
    found = _SCHEME_NAMES.get(key)
    if found is None or len(scheme) > _MESSAGE_TEXT_LIMIT:
        raise InvalidSchemeError(scheme)
    return found


def _allowed_char(char: str) -> bool:
    point = ord(char)
    return 0x20 <= point <= 0x7E or 0xFF01 <= point <= 0xFF5E or char in "\u3000\u00a0"


def _prepare(scheme: str, text: object, expected: str) -> tuple[str, str]:
    """Bring any accepted spelling to upper-case ASCII, or refuse.

    Returns the original text (for messages) and the normalised one. Only full-width ASCII
    and two spaces are let through NFKC, so no exotic character can turn into a digit.
    """
    if not isinstance(text, str):
        raise InvalidCodeError(scheme, repr(text), expected, "not a string")
    if len(text) > MAX_CODE_INPUT_LENGTH:
        raise InvalidCodeError(
            scheme, text, expected, f"longer than {MAX_CODE_INPUT_LENGTH} characters"
        )
    stripped = text.strip()
    if not stripped:
        raise InvalidCodeError(scheme, text, expected, "empty")
    if not all(_allowed_char(char) for char in stripped):
        raise InvalidCodeError(scheme, text, expected, "contains a character no notation uses")
    normalized = unicodedata.normalize("NFKC", stripped).upper().strip()
    return text, normalized


def _group_code(
    scheme: Scheme,
    original: str,
    subclass: str,
    main: str,
    sub: str,
    *,
    development_code: str | None = None,
    file_symbol: str | None = None,
    version: str | None = None,
) -> ClassificationCode:
    """Validate group parts found by any of the readers and build the code.

    Shared so that the pattern, positional and WIPO readers cannot drift apart on what a
    valid main group or subgroup is.
    """
    expected = _EXPECTED[scheme]
    if not _FIELD_RES["main_group"].fullmatch(main):
        reason = (
            "main group must not have leading zeros"
            if main.startswith("0") and main.strip("0")
            else "main group must be 1 to 4 digits, not 0"
        )
        raise InvalidCodeError(scheme, original, expected, reason)
    if 2 < len(sub) <= 6 and sub.isdigit() and sub.endswith("0"):
        # Digits after the first two are a decimal fraction: /050 is /05, one code.
        sub = sub[:2] + sub[2:].rstrip("0")
    if not _FIELD_RES["subgroup"].fullmatch(sub):
        if len(sub) < 2:
            reason = "subgroup needs at least 2 digits"
        elif len(sub) > 6:
            reason = "subgroup has more than 6 digits"
        else:  # pragma: no cover - trailing zeros were folded above
            reason = "subgroup is not 2 to 6 digits"
        raise InvalidCodeError(scheme, original, expected, reason)
    if scheme == "ipc" and (development_code is not None or file_symbol is not None):
        raise InvalidCodeError(
            scheme, original, expected, "development codes and file symbols exist only in FI"
        )
    if development_code is not None and not _FIELD_RES["development_code"].fullmatch(
        development_code
    ):
        raise InvalidCodeError(scheme, original, expected, "development code must be 3 digits")
    if file_symbol is not None and not _FIELD_RES["file_symbol"].fullmatch(file_symbol):
        raise InvalidCodeError(scheme, original, expected, "file symbol must be one letter")
    return ClassificationCode(
        scheme=scheme,
        kind="main_group" if sub == "00" else "subgroup",
        section=subclass[0],
        class_=subclass[1:3],
        subclass=subclass[3],
        main_group=main,
        subgroup=sub,
        development_code=development_code,
        file_symbol=file_symbol,
        version=version,
    )


def _read_fixed_width(
    scheme: Scheme, original: str, text: str, version: str | None
) -> ClassificationCode | None:
    """Read a cell of the package layout by column position.

    Position is the only safe reading: ``B60J   5/    00501B`` holds subgroup ``00``,
    development code ``501`` and file symbol ``B``, which no space-insensitive pattern can
    tell from subgroup ``00501``. ``text`` is already stripped, which is harmless: the layout
    starts with the subclass, and right padding trimmed by CSV tools is restored here.
    Returns None when the text is not a well-formed cell, so that hand-typed spacing such as
    ``G06F   3/  048`` can still be read by pattern.
    """
    if len(text) > FI_FIXED_WIDTH or text[8:9] != "/":
        return None
    cell = text.ljust(FI_FIXED_WIDTH)
    subclass, main, sub, dev, sym = cell[0:4], cell[4:8], cell[9:15], cell[15:18], cell[18]
    if not (
        _SUBCLASS_RE.fullmatch(subclass)
        and _FIXED_MAIN_RE.fullmatch(main)
        and _FIXED_SUB_RE.fullmatch(sub)
        and _FIXED_DEV_RE.fullmatch(dev)
        and _FIXED_SYM_RE.fullmatch(sym)
    ):
        return None
    return _group_code(
        scheme,
        original,
        subclass,
        main.lstrip(),
        sub.lstrip(),
        development_code=None if dev == "   " else dev,
        file_symbol=None if sym == " " else sym,
        version=version,
    )


def _read_hierarchy(
    scheme: Scheme, original: str, text: str, version: str | None
) -> ClassificationCode:
    expected = _EXPECTED[scheme]
    wipo = _WIPO_RE.fullmatch(text)
    if wipo is not None:
        main = wipo["main"].lstrip("0")
        sub = wipo["sub"].rstrip("0").ljust(2, "0")
        if not main:
            raise InvalidCodeError(scheme, original, expected, "WIPO symbol has main group 0")
        return _group_code(scheme, original, text[:4], main, sub, version=version)
    positional = _read_fixed_width(scheme, original, text, version)
    if positional is not None:
        return positional
    if scheme == "fi" and text == "Z":
        # The row heading the broad-facet file, as A..H head theirs.
        return ClassificationCode(scheme="fi", kind="section", section="Z")
    match = _HIERARCHY_RE.fullmatch(text)
    if match is None:
        if scheme == "fi" and _FIELD_RES["facet"].fullmatch(text):
            return ClassificationCode(scheme="fi", kind="facet", facet=text)
        raise InvalidCodeError(scheme, original, expected)
    if match["main"] is None:
        kind: Kind = "section"
        if match["subclass"] is not None:
            kind = "subclass"
        elif match["class_"] is not None:
            kind = "class"
        return ClassificationCode(
            scheme=scheme,
            kind=kind,
            section=match["section"],
            class_=match["class_"],
            subclass=match["subclass"],
            version=version,
        )
    if text[8:9] == "/" and match.end("sub") > 15:
        # Shaped like a package cell but not a well-formed one: digits reaching into the
        # development-code columns are exactly the misreading this module exists to prevent.
        raise InvalidCodeError(
            scheme, original, expected, "subgroup runs into the development code columns"
        )
    return _group_code(
        scheme,
        original,
        text[:4],
        match["main"],
        match["sub"],
        development_code=match["dev"],
        file_symbol=match["sym"] or match["sym_only"],
        version=version,
    )


def _read_fterm(original: str, text: str) -> ClassificationCode:
    match = _FTERM_RE.fullmatch(text)
    if match is None:
        raise InvalidCodeError("fterm", original, _EXPECTED["fterm"])
    kind: Kind = "theme"
    number = match["number"]
    if number == _VIEWPOINT_NUMBER:
        # F-term lists print a viewpoint's heading as number 00: the viewpoint itself.
        number = None
    if number is not None:
        kind = "term"
    elif match["viewpoint"] is not None:
        kind = "viewpoint"
    return ClassificationCode(
        scheme="fterm",
        kind=kind,
        theme=match["theme"],
        viewpoint=match["viewpoint"],
        number=number,
    )


def _split_version(scheme: Scheme, original: str, text: str) -> tuple[str, str | None]:
    match = _VERSION_SUFFIX_RE.fullmatch(text)
    if match is None:
        return text, None
    if scheme != "ipc":
        raise InvalidCodeError(
            scheme, original, _EXPECTED[scheme], "only IPC codes carry a version"
        )
    version = match["v1"] or match["v2"]
    if not _FIELD_RES["version"].fullmatch(version):
        raise InvalidCodeError(
            scheme, original, _EXPECTED[scheme], f"{version} is not a valid IPC version"
        )
    return match["code"], version


def parse_code(scheme: str, text: str) -> ClassificationCode:
    """Read any accepted notation of a code of ``scheme`` into its parts.

    Raises :class:`InvalidSchemeError` for an unknown scheme and :class:`InvalidCodeError` for
    anything else that is not certainly a code; no other exception escapes, whatever the input.
    """
    checked = _scheme(scheme)
    original, normalized = _prepare(checked, text, _EXPECTED[checked])
    if checked == "fterm":
        return _read_fterm(original, normalized)
    code_text, version = _split_version(checked, original, normalized)
    return _read_hierarchy(checked, original, code_text, version)


def normalize_code(scheme: str, text: str) -> str:
    """The canonical spelling of a typed code, for use as a lookup key."""
    return parse_code(scheme, text).canonical


def format_fixed_width(scheme: str, text: str) -> str:
    """The package-file spelling of a typed code, for matching raw CSV cells."""
    return parse_code(scheme, text).fixed_width()


def parse_ipc_version(text: str) -> str:
    """Read an IPC version cell (``(2006.01)``) into the bare form stored with revisions.

    Checked strictly (year 19xx/20xx, month 01-12) because versions select which revision of
    a code is valid, and a misread version would pick the wrong one.
    """
    original, normalized = _prepare("ipc", text, _EXPECTED_VERSION)
    match = _VERSION_RE.fullmatch(normalized)
    version = None if match is None else match["v1"] or match["v2"]
    if version is None or not _FIELD_RES["version"].fullmatch(version):
        raise InvalidCodeError("ipc", original, _EXPECTED_VERSION, "not an IPC version")
    return version


def fterm_theme_code(group: str, number: str) -> str:
    """Join the theme group and number columns of ``FI/FI_THEME`` into a theme code.

    The columns are validated separately so that a shifted column is reported instead of
    producing a well-formed but unrelated theme.
    """
    original_group, norm_group = _prepare("fterm", group, _EXPECTED_THEME_PARTS)
    original_number, norm_number = _prepare("fterm", number, _EXPECTED_THEME_PARTS)
    if not re.fullmatch(r"[0-9][A-Z]", norm_group):
        raise InvalidCodeError("fterm", original_group, _EXPECTED_THEME_PARTS, "not a theme group")
    if not re.fullmatch(r"[0-9]{3}", norm_number):
        raise InvalidCodeError(
            "fterm", original_number, _EXPECTED_THEME_PARTS, "not a theme number"
        )
    return norm_group + norm_number


def _file_name(path: object) -> object:
    # Callers pass whatever they walked the package with; only the last component counts.
    if isinstance(path, str):
        return re.split(r"[/\\]", path)[-1]
    return path


def ipc_code_from_pdf_name(filename: str) -> ClassificationCode:
    """Recover the IPC code a ``REFERENCE/IPC_TEIGI`` PDF describes from its file name.

    The names are the only link between a definition PDF and its code, and they use their own
    spelling (``-`` for ``/``, ``_`` padding the main group to 4 places). Directory parts and
    the ``.pdf`` suffix (any case) are ignored; padding is accepted only when it pads to
    exactly 4 places, so a damaged name is reported rather than read.
    """
    original, normalized = _prepare("ipc", _file_name(filename), _EXPECTED_PDF_NAME)
    stem = normalized.removesuffix(".PDF")
    match = _PDF_STEM_RE.fullmatch(stem)
    if match is None:
        raise InvalidCodeError("ipc", original, _EXPECTED_PDF_NAME)
    if match["main"] is None:
        kind: Kind = "section"
        if match["subclass"] is not None:
            kind = "subclass"
        elif match["class_"] is not None:
            kind = "class"
        return ClassificationCode(
            scheme="ipc",
            kind=kind,
            section=match["section"],
            class_=match["class_"],
            subclass=match["subclass"],
        )
    pad, main = match["pad"], match["main"]
    if pad and len(pad) + len(main) != 4:
        raise InvalidCodeError(
            "ipc", original, _EXPECTED_PDF_NAME, "main group padding is not 4 places"
        )
    try:
        return _group_code("ipc", original, stem[:4], main, match["sub"])
    except InvalidCodeError as error:
        raise InvalidCodeError("ipc", original, _EXPECTED_PDF_NAME, error.reason) from None
