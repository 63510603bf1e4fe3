"""Codes gathered into a search formula, carried from page to page in one GET parameter.

The viewer has no script and writes nothing, so the formula being built lives in the address:
``f=G06F3/048/FI 2D673AA01/FT`` (the codes, each with its J-PlatPat tag, separated by
spaces). Every link and form of a page keeps it (:class:`pmgs_web.links.Linker` holds it as
a sticky parameter, like ``release`` and ``lang``). The formula is written in J-PlatPat's
syntax: the codes of one scheme joined by ``+`` (or), the schemes joined by ``*`` (and), a
scheme's group bracketed with ``[ ]`` when there is more than one scheme.
"""

from __future__ import annotations

import re
from typing import Final

from pmgs_core import PMGSQueryError

__all__ = [
    "MAX_GATHERED",
    "MAX_GATHERED_CHARS",
    "SCHEME_TAGS",
    "Gathered",
    "formula_text",
    "gathered_value",
    "parse_gathered",
]

MAX_GATHERED: Final = 100
"""At most this many codes are gathered: a formula that long is already hard to read, and
the address stays far below what browsers and proxies accept."""
MAX_GATHERED_CHARS: Final = 4096
SCHEME_TAGS: Final = {"fi": "FI", "fterm": "FT", "ipc": "IP"}
_SCHEME_OF_TAG: Final = {tag: scheme for scheme, tag in SCHEME_TAGS.items()}
_TOKEN_RE: Final = re.compile(r"([0-9A-Z][0-9A-Z/@.,]{0,39})/(FI|FT|IP)")

Gathered = list[tuple[str, str]]
"""``(scheme, code)`` pairs in the order they were gathered, without repeats."""


def parse_gathered(raw: str | None) -> Gathered:
    """The codes of an ``f`` value; anything that is not ``CODE/TAG`` tokens is refused.

    Past :data:`MAX_GATHERED` codes (or :data:`MAX_GATHERED_CHARS` characters) the answer is
    ``TOO_MANY_ITEMS``, so a page never silently drops a code the searcher gathered.
    """
    if not raw or not raw.strip():
        return []
    if len(raw) > MAX_GATHERED_CHARS:
        raise PMGSQueryError(
            "TOO_MANY_ITEMS",
            f"the formula being gathered (f) is longer than {MAX_GATHERED_CHARS} characters",
            {"max_codes": MAX_GATHERED, "parameter": "f"},
        )
    found: Gathered = []
    for token in raw.split():
        match = _TOKEN_RE.fullmatch(token.upper())
        if match is None:
            raise PMGSQueryError(
                "INVALID_ARGUMENT",
                "f holds codes tagged /FI, /FT or /IP separated by spaces "
                f"(e.g. G06F3/048/FI); {token[:50]!r} is not one",
                {"parameter": "f"},
            )
        pair = (_SCHEME_OF_TAG[match.group(2)], match.group(1))
        if pair not in found:
            found.append(pair)
    if len(found) > MAX_GATHERED:
        raise PMGSQueryError(
            "TOO_MANY_ITEMS",
            f"at most {MAX_GATHERED} codes can be gathered into a formula",
            {"max_codes": MAX_GATHERED, "parameter": "f"},
        )
    return found


def gathered_value(codes: Gathered) -> str:
    """The ``f`` value of ``codes`` (what :func:`parse_gathered` reads back)."""
    return " ".join(f"{code}/{SCHEME_TAGS[scheme]}" for scheme, code in codes)


def formula_text(codes: Gathered) -> str:
    """The J-PlatPat formula of ``codes``: ``[A/FI+B/FI]*C/FT``.

    Schemes in the order FI, F-term, IPC; within a scheme the order of gathering.
    """
    groups: list[list[str]] = []
    for scheme, tag in SCHEME_TAGS.items():
        group = [f"{code}/{tag}" for s, code in codes if s == scheme]
        if group:
            groups.append(group)
    if len(groups) == 1:
        return "+".join(groups[0])
    return "*".join(f"[{'+'.join(g)}]" if len(g) > 1 else g[0] for g in groups)
