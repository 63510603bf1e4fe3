"""``COPYRGHT``: the attribution line that every answer of the store carries.

Exactly one file with exactly one non-empty line (UTF-8, BOM allowed; a trailing 0x1A or NUL
run is left out with a warning, as in a CSV); it is stored verbatim apart from the
surrounding whitespace and line break. Missing, several or an unreadable line
is an error: a database without its attribution must not exist.
"""

from __future__ import annotations

from pmgs_build.build_issues import IssueCode
from pmgs_build.source.files import SourceFile
from pmgs_build.source.parsers.base import BuildContext, FileResult
from pmgs_build.source.parsers.text_conventions import DOS_TAIL, report_tail

__all__ = ["parse_copyright"]


def parse_copyright(ctx: BuildContext, source: SourceFile) -> FileResult:
    """Read the attribution line into the shared state."""
    if ctx.state.attribution is not None:
        ctx.log.error(IssueCode.COPYRGHT_MULTIPLE, "more than one COPYRGHT file", source.path)
        return FileResult()
    data = ctx.read_bytes(source)
    kept = data.rstrip(DOS_TAIL)  # a DOS editor's end-of-file mark is not a second line
    report_tail(ctx.log, data[len(kept) :], source.path)
    try:
        text = kept.decode("utf-8-sig")
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
