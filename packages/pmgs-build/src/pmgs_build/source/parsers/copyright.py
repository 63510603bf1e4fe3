"""``COPYRGHT``: the attribution line that every answer of the store carries.

Exactly one file with exactly one non-empty line (UTF-8, BOM allowed); it is stored verbatim
apart from the surrounding whitespace and line break. Missing, several or an unreadable line
is an error: a database without its attribution must not exist.
"""

from __future__ import annotations

from pmgs_build.build_issues import IssueCode
from pmgs_build.source.files import SourceFile
from pmgs_build.source.parsers.base import BuildContext, FileResult

__all__ = ["parse_copyright"]


def parse_copyright(ctx: BuildContext, source: SourceFile) -> FileResult:
    """Read the attribution line into the shared state."""
    if ctx.state.attribution is not None:
        ctx.log.error(IssueCode.COPYRGHT_MULTIPLE, "more than one COPYRGHT file", source.path)
        return FileResult()
    try:
        text = ctx.read_bytes(source).decode("utf-8-sig")
    except UnicodeDecodeError as error:
        ctx.log.error(IssueCode.COPYRGHT_INVALID, f"not valid UTF-8: {error.reason}", source.path)
        return FileResult()
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if len(lines) != 1:
        ctx.log.error(
            IssueCode.COPYRGHT_INVALID,
            f"{len(lines)} non-empty lines where the attribution is exactly one",
            source.path,
        )
        return FileResult(len(lines))
    ctx.state.attribution = lines[0]
    return FileResult(1)
