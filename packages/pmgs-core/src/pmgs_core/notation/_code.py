"""The code type and the tables every notation reader shares.

:class:`ClassificationCode` keeps a code as its parts and validates them on construction;
the regular expressions, field tables and error types here are what the readers in
``_reading`` and ``_names`` build codes with.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import partial
from itertools import combinations, compress, repeat
from operator import attrgetter, is_not
from typing import ClassVar, Final, Literal

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
        "e.g. G06F3/048, G06F 3/048, G06F3/00, G06F, G06F0003048000, G06F3/048 (2006.01), "
        "an indexing code of editions 4 to 7 such as A61K103:00, "
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
_INDEXING_ONLY_IPC: Final = "':' marks an indexing code, which exists only as an IPC group"
_INDEXING_NO_VERSION: Final = (
    "an indexing code belongs to IPC editions 4 to 7, which have no version"
)
_VIEWPOINT_NUMBER: Final = "00"

# Loose captures on purpose ([0-9]+, [A-Z]+): the digit-count rules are checked afterwards so
# that the error can say which part is wrong instead of "does not match".
_HIERARCHY_RE: Final = re.compile(
    r"(?P<section>[A-H])"
    r"(?:(?P<class_>[0-9]{2})"
    r"(?:(?P<subclass>[A-Z])"
    # ':' in place of '/' marks an IPC indexing code (editions 4 to 7: ``A61K 103:00``).
    r"(?: *(?P<main>[0-9]+) *(?P<sep>[/:]) *(?P<sub>[0-9]+)"
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
_ALLOWED_FIELDS: Final[dict[tuple[str, str], frozenset[str]]] = {
    (scheme, kind): _REQUIRED_FIELDS[kind]
    | ({"version"} if scheme == "ipc" else set())
    | ({"development_code", "file_symbol"} if scheme == "fi" and kind in _GROUP_KINDS else set())
    for scheme, kinds in _KINDS_BY_SCHEME.items()
    for kind in kinds
}
"""The fields a code of each (scheme, kind) may carry: the required ones, an IPC version,
an FI group's development code and file symbol."""
_SORTED_FIELDS: Final = tuple(sorted(_FIELD_NAMES))
_FIELD_VALUES: Final = attrgetter(*_SORTED_FIELDS)
_NONES: Final = repeat(None)


def _shapes() -> dict[tuple[str, str, tuple[str, ...]], re.Pattern[str]]:
    """Every valid (scheme, kind, fields present): one pattern for the values of those fields
    joined by NUL (which no field's pattern matches), so a valid code is checked in one call."""
    shapes = {}
    for (scheme, kind), allowed in _ALLOWED_FIELDS.items():
        optional = sorted(allowed - _REQUIRED_FIELDS[kind])
        for size in range(len(optional) + 1):
            for extra in combinations(optional, size):
                names = tuple(sorted(_REQUIRED_FIELDS[kind] | set(extra)))
                joined = "\x00".join(f"(?:{_FIELD_RES[name].pattern})" for name in names)
                shapes[scheme, kind, names] = re.compile(joined)
    return shapes


_SHAPES: Final = _shapes()


def _fields_match(shape: re.Pattern[str], values: tuple[object, ...]) -> bool:
    try:
        joined = "\x00".join([value for value in values if value is not None])  # type: ignore[misc]
    except TypeError:  # a value that is not a string: the field checks name it
        return False
    return shape.fullmatch(joined) is not None


def _invalid(
    scheme: str, kind: str, names: tuple[str, ...], values: tuple[object, ...], reason: str
) -> InvalidCodeError:
    """The error of an inconsistent code, naming every field present (in name order)."""
    present = [value for value in values if value is not None]
    described = ", ".join(f"{name}={value!r}" for name, value in zip(names, present, strict=True))
    return InvalidCodeError(scheme, f"{kind}: {described}", _EXPECTED[scheme], reason)


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
    """Which level of the scheme the code names (``section`` to ``subgroup``, an FI ``facet``,
    an F-term ``theme``, ``viewpoint`` or ``term``); it decides which parts below are present."""
    section: str | None = None
    class_: str | None = None
    subclass: str | None = None
    main_group: str | None = None
    subgroup: str | None = None
    """IPC and FI: ``G06F3/048`` is section ``G``, class ``06``, subclass ``F``, main group
    ``3``, subgroup ``048`` (``00`` for a main group itself)."""
    development_code: str | None = None
    file_symbol: str | None = None
    """FI groups only: the development code after ``,`` and the file symbol after ``@``."""
    facet: str | None = None
    """FI broad facets (``facet`` kind) only."""
    theme: str | None = None
    viewpoint: str | None = None
    number: str | None = None
    """F-terms: theme ``5H322``, viewpoint ``AA``, number ``01``, each as deep as the kind."""
    version: str | None = None
    """IPC only: the version a revision of the code qualifies (never part of the code)."""
    indexing: bool = False
    """An IPC indexing code (editions 4 to 7), written with ``:`` in place of ``/``: the same
    numbers as the classification group ``A61K103/00`` but another code, ``A61K103:00``."""

    def __post_init__(self) -> None:
        scheme: str = self.scheme
        if scheme not in _KINDS_BY_SCHEME:
            raise InvalidSchemeError(scheme)
        values = _FIELD_VALUES(self)  # every field, in the order of their sorted names
        kind: str = self.kind
        names = tuple(compress(_SORTED_FIELDS, map(is_not, values, _NONES)))
        shape = _SHAPES.get((scheme, kind, names))
        if shape is None or not _fields_match(shape, values):
            self._check_fields(scheme, kind, names, values)
        if self.section == "Z" and (scheme != "fi" or kind != "section"):
            raise _invalid(
                scheme,
                kind,
                names,
                values,
                "section Z (the FI broad facets) exists only as an FI section row",
            )
        if kind in _GROUP_KINDS and (self.subgroup == "00") != (kind == "main_group"):
            raise _invalid(
                scheme, kind, names, values, "a main group has subgroup 00 and a subgroup does not"
            )
        indexing: object = self.indexing
        if not isinstance(indexing, bool):
            raise _invalid(scheme, kind, names, values, "indexing must be True or False")
        if indexing and (scheme != "ipc" or kind not in _GROUP_KINDS):
            raise _invalid(scheme, kind, names, values, _INDEXING_ONLY_IPC)
        if indexing and self.version is not None:
            raise _invalid(scheme, kind, names, values, _INDEXING_NO_VERSION)

    @staticmethod
    def _check_fields(
        scheme: str, kind: str, names: tuple[str, ...], values: tuple[object, ...]
    ) -> None:
        """Raise the error for the fields of a code whose shape or values are not valid."""
        fail = partial(_invalid, scheme, kind, names, values)
        if kind not in _KINDS_BY_SCHEME[scheme]:
            raise fail(f"kind {kind!r} does not exist in this scheme")
        if missing := _REQUIRED_FIELDS[kind].difference(names):
            raise fail(f"missing {', '.join(sorted(missing))}")
        if extra := set(names) - _ALLOWED_FIELDS[scheme, kind]:
            raise fail(f"{', '.join(sorted(extra))} not allowed here")
        for name, value in zip(
            names, [value for value in values if value is not None], strict=True
        ):
            if not isinstance(value, str) or not _FIELD_RES[name].fullmatch(value):
                raise fail(f"invalid {name}")

    @property
    def separator(self) -> str:
        """``:`` for an IPC indexing code, ``/`` for every other group."""
        return ":" if self.indexing else "/"

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
        text = f"{head}{_present(self.main_group)}{self.separator}{_present(self.subgroup)}"
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
        text = f"{head}{_present(self.main_group):>4}{self.separator}{_present(self.subgroup):>6}"
        if self.scheme == "fi":
            text += (self.development_code or "   ") + (self.file_symbol or " ")
        return text

    def wipo_symbol(self) -> str:
        """The 14-character WIPO symbol used by WIPO data and some IPC files.

        Only groups have one (sections to subclasses have no agreed padded form). For FI the
        symbol of its IPC group is returned: development codes and file symbols have no place
        in the WIPO layout, so callers must not expect to get them back.
        """
        if self.indexing:
            raise InvalidCodeError(
                self.scheme,
                self.canonical,
                "a main group or subgroup such as G06F3/048",
                "an indexing code has no WIPO 14-character symbol (it would read as a group)",
            )
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
