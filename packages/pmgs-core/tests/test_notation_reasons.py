"""Why a typed code is refused: the reason, scheme, text and accepted forms of each error.

``test_notation.py`` pins what each spelling reads as; this table pins the refusals, one row
per rule of the readers in ``notation/_reading.py`` (the colon of IPC indexing codes, the
fixed-width cell, the WIPO symbol, versions, the character and length limits), with the
reason written out by hand. Interfaces show the reason to the user, so a wrong one is a
wrong answer. Part of the mutation session's ``notation_reading`` target (issue 34).
"""

from __future__ import annotations

import pytest

from pmgs_core.notation import (
    InvalidCodeError,
    InvalidSchemeError,
    parse_code,
    parse_ipc_version,
)
from pmgs_core.notation._code import _EXPECTED, _EXPECTED_VERSION

LEADING = "main group must not have leading zeros"
NOT_ZERO = "main group must be 1 to 4 digits, not 0"
CHARACTER = "contains a character no notation uses"


@pytest.mark.parametrize(
    ("scheme", "text", "shown", "reason"),
    [
        ("fi", 5, "5", "not a string"),
        ("ipc", b"G06F", "b'G06F'", "not a string"),
        ("fi", "G" * 65, "G" * 65, "longer than 64 characters"),
        ("fi", "G" * 64, "G" * 64, None),
        ("fi", " \u3000 ", " \u3000 ", "empty"),
        ("fterm", "", "", "empty"),
        # only printable ASCII, its full-width forms and two spaces get through
        ("fi", "G06F\u00e9", "G06F\u00e9", CHARACTER),
        ("fi", "G06F\x7f", "G06F\x7f", CHARACTER),
        ("fi", "G06F\x1f3", "G06F\x1f3", CHARACTER),
        ("fi", "G06F\uff5f", "G06F\uff5f", CHARACTER),
        ("fi", "G06F\uff00", "G06F\uff00", CHARACTER),
        ("fi", "G06F~", "G06F~", None),
        ("fi", "G06F\uff01", "G06F\uff01", None),
        ("fi", "G06F\uff5e", "G06F\uff5e", None),
        # main groups
        ("fi", "G06F03/048", "G06F03/048", LEADING),
        ("ipc", "G06F0/00", "G06F0/00", NOT_ZERO),
        ("ipc", "G06F000/00", "G06F000/00", NOT_ZERO),
        ("ipc", "G06F0000000000", "G06F0000000000", "WIPO symbol has main group 0"),
        # subgroups
        ("fi", "G06F3/0", "G06F3/0", "subgroup needs at least 2 digits"),
        ("fi", "G06F3/0481234", "G06F3/0481234", "subgroup has more than 6 digits"),
        (
            "fi",
            "B60J   5/1234567",
            "B60J   5/1234567",
            "subgroup runs into the development code columns",
        ),
        # the colon of IPC indexing codes
        (
            "fi",
            "A61K103:00",
            "A61K103:00",
            "':' marks an indexing code, which exists only as an IPC group",
        ),
        (
            "ipc",
            "A61K103:00 (2006.01)",
            "A61K103:00 (2006.01)",
            "an indexing code belongs to IPC editions 4 to 7, which have no version",
        ),
        # versions
        ("fi", "G06F3/048 (2006.01)", "G06F3/048 (2006.01)", "only IPC codes carry a version"),
        (
            "ipc",
            "G06F3/048 (2006.13)",
            "G06F3/048 (2006.13)",
            "2006.13 is not a valid IPC version",
        ),
        # FI-only parts
        ("fi", "B60J5/00,50", "B60J5/00,50", "development code must be 3 digits"),
        ("fi", "B60J5/00,501BB", "B60J5/00,501BB", "file symbol must be one letter"),
        ("fi", "B60J5/00@BB", "B60J5/00@BB", "file symbol must be one letter"),
        (
            "ipc",
            "B60J5/00,501B",
            "B60J5/00,501B",
            "development codes and file symbols exist only in FI",
        ),
    ],
)
def test_refusal_reasons(scheme: str, text: object, shown: str, reason: str | None) -> None:
    with pytest.raises(InvalidCodeError) as caught:
        parse_code(scheme, text)  # type: ignore[arg-type]
    error = caught.value
    assert (error.scheme, error.text, error.reason) == (scheme, shown, reason)
    assert error.expected == _EXPECTED[scheme]
    assert error.code == "INVALID_CODE"


@pytest.mark.parametrize("text", ["2006.13", "1899.01", 5, ""])
def test_ipc_version_refusals(text: object) -> None:
    with pytest.raises(InvalidCodeError) as caught:
        parse_ipc_version(text)  # type: ignore[arg-type]
    error = caught.value
    assert error.scheme == "ipc"
    assert error.expected == _EXPECTED_VERSION
    assert error.reason == {5: "not a string", "": "empty"}.get(text, "not an IPC version")
    assert error.text == (repr(text) if text == 5 else text)


def test_scheme_names_up_to_80_characters() -> None:
    assert parse_code("fi" + " " * 78, "G06F").canonical == "G06F"
    with pytest.raises(InvalidSchemeError) as caught:
        parse_code("fi" + " " * 79, "G06F")
    assert caught.value.scheme == "fi" + " " * 79
    with pytest.raises(InvalidSchemeError) as caught:
        parse_code(5, "G06F")  # type: ignore[arg-type]
    assert caught.value.scheme == "5"


def test_spaces_inside_are_read_and_accepted_characters_pass() -> None:
    assert parse_code("fi", "G06F\u00a03/048").canonical == "G06F3/048"
    assert parse_code("fi", "G06F\u30003/048").canonical == "G06F3/048"
