"""What the English files of a group share: they add text to what the Japanese file defined.

An English row must name a code the Japanese file defines (else error), and its sequence and
depth are compared with the Japanese row's: a difference is an error where the row cannot be
placed, a warning ("kept") where the English text is still added.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, TypeVar

from pmgs_build.build_issues import IssueCode
from pmgs_build.source.files import SourceFile
from pmgs_build.source.parsers.base import BuildContext

__all__ = ["japanese_row", "mismatch"]

_Row = TypeVar("_Row")


_DEFINED_BY: Final = {
    "FTERM/FTERM": ("F-term", IssueCode.FTERM_TRANSLATION_UNKNOWN_CODE),
    "FTERM/THEME": ("theme", IssueCode.THEME_TRANSLATION_UNKNOWN_CODE),
}
"""The Japanese data group that defines the codes → (what a code is, the issue of an
English row naming a code it does not define)."""


def japanese_row(
    ctx: BuildContext,
    rows: Mapping[str, _Row],
    group: str,
    code: str,
    source: SourceFile,
    locator: str,
) -> _Row | None:
    """What the Japanese ``group`` recorded for ``code``, or None after an error."""
    known = rows.get(code)
    if known is None:
        what, issue = _DEFINED_BY[group]
        ctx.log.error(
            issue,
            f"English row for {what} {code}, which {group} does not define",
            source.path,
            locator,
        )
    return known


def mismatch(
    ctx: BuildContext,
    issue: str,
    subject: str,
    values: tuple[str, int, int],
    source: SourceFile,
    locator: str,
    *,
    kept: bool,
) -> bool:
    """True when ``values`` = (what, English, Japanese) differ, after recording it: a warning
    when the English row is ``kept``, else an error."""
    what, english, japanese = values
    if english == japanese:
        return False
    message = f"{subject}: English {what} {english}, Japanese {japanese}"
    if kept:
        ctx.log.warning(issue, f"{message} (kept)", source.path, locator)
    else:
        ctx.log.error(issue, message, source.path, locator)
    return True
