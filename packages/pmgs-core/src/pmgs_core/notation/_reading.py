"""Reading typed codes: FI and IPC hierarchy codes, F-term codes, IPC versions.

Every accepted spelling is brought to upper-case ASCII by :func:`_prepare`, then read by the
scheme's reader; anything ambiguous raises :class:`InvalidCodeError` (see the package
docstring for the rules).
"""

from __future__ import annotations

import re
import unicodedata
from typing import Final

from pmgs_core.notation import _code
from pmgs_core.notation._code import (
    _EXPECTED,
    _EXPECTED_VERSION,
    _FIELD_RES,
    _MESSAGE_TEXT_LIMIT,
    ClassificationCode,
    InvalidCodeError,
    InvalidSchemeError,
    Scheme,
)

_SEPARATORS: Final = ("/", ":")
"""The group separators of a package cell: ``/`` for groups, ``:`` for IPC indexing codes."""


def _scheme(scheme: object) -> Scheme:
    if not isinstance(scheme, str):
        raise InvalidSchemeError(repr(scheme))
    found = _code._SCHEME_NAMES.get(scheme)  # a key as is needs no normalising
    if found is not None:
        return found
    key = unicodedata.normalize("NFKC", scheme[:_MESSAGE_TEXT_LIMIT]).strip().lower()
    found = _code._SCHEME_NAMES.get(key)
    if found is None or len(scheme) > _MESSAGE_TEXT_LIMIT:
        raise InvalidSchemeError(scheme)
    return found


_ALLOWED_CHARS: Final = re.compile("[\x20-\x7e\uff01-\uff5e\u3000\u00a0]*")
"""Printable ASCII, its full-width forms and two spaces: every character a notation uses."""


def _prepare(scheme: str, text: object, expected: str) -> tuple[str, str]:
    """Bring any accepted spelling to upper-case ASCII, or refuse.

    Returns the original text (for messages) and the normalised one. Only full-width ASCII
    and two spaces are let through NFKC, so no exotic character can turn into a digit.
    """
    if not isinstance(text, str):
        raise InvalidCodeError(scheme, repr(text), expected, "not a string")
    if len(text) > _code.MAX_CODE_INPUT_LENGTH:
        raise InvalidCodeError(
            scheme, text, expected, f"longer than {_code.MAX_CODE_INPUT_LENGTH} characters"
        )
    stripped = text.strip()
    if not stripped:
        raise InvalidCodeError(scheme, text, expected, "empty")
    if not _ALLOWED_CHARS.fullmatch(stripped):
        raise InvalidCodeError(scheme, text, expected, "contains a character no notation uses")
    if not stripped.isascii():  # NFKC leaves ASCII as it is
        stripped = unicodedata.normalize("NFKC", stripped)
    normalized = stripped.upper().strip()
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
    indexing: bool = False,
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
    if indexing and scheme != "ipc":
        raise InvalidCodeError(scheme, original, expected, _code._INDEXING_ONLY_IPC)
    if indexing and version is not None:
        raise InvalidCodeError(scheme, original, expected, _code._INDEXING_NO_VERSION)
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
        indexing=indexing,
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
    if len(text) > _code.FI_FIXED_WIDTH or text[8:9] not in _SEPARATORS:
        return None
    cell = text.ljust(_code.FI_FIXED_WIDTH)
    subclass, main, sub, dev, sym = cell[0:4], cell[4:8], cell[9:15], cell[15:18], cell[18]
    if not (
        _code._SUBCLASS_RE.fullmatch(subclass)
        and _code._FIXED_MAIN_RE.fullmatch(main)
        and _code._FIXED_SUB_RE.fullmatch(sub)
        and _code._FIXED_DEV_RE.fullmatch(dev)
        and _code._FIXED_SYM_RE.fullmatch(sym)
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
        indexing=text[8] == ":",
    )


def _above_group(
    scheme: Scheme, match: re.Match[str], version: str | None = None
) -> ClassificationCode:
    """A section, class or subclass from a match with ``section``/``class_``/``subclass``."""
    kind: _code.Kind = "section"
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


def _read_hierarchy(
    scheme: Scheme, original: str, text: str, version: str | None
) -> ClassificationCode:
    expected = _EXPECTED[scheme]
    wipo = _code._WIPO_RE.fullmatch(text)
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
    match = _code._HIERARCHY_RE.fullmatch(text)
    if match is None:
        if scheme == "fi" and _FIELD_RES["facet"].fullmatch(text):
            return ClassificationCode(scheme="fi", kind="facet", facet=text)
        raise InvalidCodeError(scheme, original, expected)
    if match["main"] is None:
        return _above_group(scheme, match, version)
    if text[8:9] in _SEPARATORS and match.end("sub") > 15:
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
        indexing=match["sep"] == ":",
    )


def _read_fterm(original: str, text: str) -> ClassificationCode:
    match = _code._FTERM_RE.fullmatch(text)
    if match is None:
        raise InvalidCodeError("fterm", original, _EXPECTED["fterm"])
    kind: _code.Kind = "theme"
    number = match["number"]
    if number == _code._VIEWPOINT_NUMBER:
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
    match = _code._VERSION_SUFFIX_RE.fullmatch(text)
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
    match = _code._VERSION_RE.fullmatch(normalized)
    version = None if match is None else match["v1"] or match["v2"]
    if version is None or not _FIELD_RES["version"].fullmatch(version):
        raise InvalidCodeError("ipc", original, _EXPECTED_VERSION, "not an IPC version")
    return version
