"""``FTERM/FTERM`` and ``FTERM/FTERM_E``: the F-terms of each theme.

Columns: 0 F-term code (theme 5 + viewpoint 2 + number 2), 1 sequence, 2 depth, 3 label,
4 FI coverage. Number ``00`` is the viewpoint heading and becomes the viewpoint concept
(``4C083AA``); other numbers are terms. Parents: viewpoint → theme; term → the nearest
earlier term of the same viewpoint with a smaller depth, else the viewpoint.

The Japanese files are the structure of record. An English row must name a code the
Japanese files define (else error) with the same sequence (else error); a different depth
is a warning (7 on the real release). English labels may contain an unquoted comma, so an
English row with more than 5 cells keeps cells 0-2 and the last one fixed and re-joins the
middle ones as the label.
"""

from __future__ import annotations

from typing import Final

from pmgs_build.build_issues import IssueCode
from pmgs_build.source.files import SourceFile
from pmgs_build.source.parsers.base import BuildContext, Code, CsvRecords, FileResult, LevelStack
from pmgs_build.source.parsers.english import japanese_row, mismatch

__all__ = ["fterm_concept_code", "parse_fterm_en", "parse_fterm_ja", "split_fterm_en_row"]

_COLUMNS: Final = 5
_ROW_KINDS: Final = frozenset({"viewpoint", "term"})


def fterm_concept_code(code: Code) -> tuple[str, str]:
    """(canonical code, kind) of an F-term cell; number ``00`` already reads as the viewpoint
    (:func:`pmgs_core.parse_code`), and so does a viewpoint written without it."""
    return code.canonical, code.kind


def split_fterm_en_row(cells: list[str]) -> list[str]:
    """The 5 cells of an English F-term row, re-joining an unquoted comma in the label."""
    if len(cells) <= _COLUMNS:
        return cells
    return [cells[0], cells[1], cells[2], ",".join(cells[3:-1]), cells[-1]]


def _term_code(ctx: BuildContext, cell: str, source: SourceFile, locator: str) -> Code | None:
    code = ctx.code("fterm", cell, source, locator)
    if code is not None and code.kind not in _ROW_KINDS:
        ctx.log.error(
            IssueCode.CODE_INVALID,
            f"{cell.strip()!r} is a {code.kind}, not a viewpoint heading or an F-term",
            source.path,
            locator,
        )
        return None
    return code


def _term_row(
    ctx: BuildContext, cells: list[str], source: SourceFile, locator: str
) -> tuple[Code, int, int] | None:
    """(code, sequence, depth) of a ja or en F-term row, or None after recording why."""
    parsed = _term_code(ctx, cells[0], source, locator)
    sequence = ctx.integer(cells[1], IssueCode.SEQUENCE_INVALID, "sequence", source, locator)
    depth = ctx.integer(cells[2], IssueCode.LEVEL_INVALID, "depth", source, locator)
    if parsed is None or sequence is None or depth is None:
        return None
    return parsed, sequence, depth


def _reserved(
    ctx: BuildContext,
    concept_key: tuple[str, str],
    issue: str,
    warning: str | None,
    source: SourceFile,
    locator: str,
) -> int:
    """The concept of a (code, kind) a term's row needs but no row before it defined,
    reserved as a reference after the ``warning`` (None: already given for this code)."""
    if warning is not None:
        ctx.log.warning(issue, warning, source.path, locator)
    code, kind = concept_key
    return ctx.registry.reference(
        "fterm", "", code, kind, source_file_id=source.id, locator=locator
    )


def parse_fterm_ja(ctx: BuildContext, source: SourceFile) -> FileResult:
    """Define the viewpoints and terms of a Japanese F-term file with their hierarchy."""
    records = CsvRecords(ctx, source)
    registry = ctx.registry
    viewpoints: dict[str, tuple[int, LevelStack]] = {}
    unknown_themes: set[str] = set()
    for locator, cells in records:
        if not ctx.columns(cells, _COLUMNS, IssueCode.FTERM_COLUMN_COUNT, source, locator):
            continue
        row = _term_row(ctx, cells, source, locator)
        if row is None:
            continue
        parsed, sequence, depth = row
        code, kind = fterm_concept_code(parsed)
        concept = registry.define(
            "fterm", "", code, kind, source_file_id=source.id, locator=locator
        )
        if concept is None:
            ctx.log.error(
                IssueCode.DUPLICATE_CODE, f"F-term {code} is defined twice", source.path, locator
            )
            continue
        revision = registry.add_revision(
            concept, "", source.id, locator, level=depth, sequence=sequence
        )
        ctx.state.fterm_ja[code] = (revision, sequence, depth)
        ctx.add_text(revision, "ja", "label", 1, cells[3], source=source, locator=locator)
        coverage = cells[4].strip()
        if coverage:
            ctx.add_property(revision, "fi_coverage", coverage, source, locator)
        theme = str(parsed.theme)
        viewpoint_code = theme + str(parsed.viewpoint)
        if kind == "viewpoint":
            theme_concept = registry.defined("fterm", "", theme)
            if theme_concept is None:
                warning = None
                if theme not in unknown_themes:
                    unknown_themes.add(theme)
                    warning = f"theme {theme} of {code} is not in FTERM/THEME (kept as a reference)"
                theme_concept = _reserved(
                    ctx, (theme, "theme"), IssueCode.FTERM_THEME_UNKNOWN, warning, source, locator
                )
            viewpoints[code] = (concept, LevelStack())
            ctx.add_relation(
                "parent", concept, theme_concept, sequence, source=source, locator=locator
            )
            continue
        entry = viewpoints.get(viewpoint_code)
        if entry is None:
            viewpoint_concept = _reserved(
                ctx,
                (viewpoint_code, "viewpoint"),
                IssueCode.FTERM_VIEWPOINT_MISSING,
                f"no viewpoint heading {viewpoint_code}00 precedes {code} in this file",
                source,
                locator,
            )
            entry = (viewpoint_concept, LevelStack())
            viewpoints[viewpoint_code] = entry
        viewpoint_concept, stack = entry
        parent = stack.push(depth, concept)
        ctx.add_relation(
            "parent",
            concept,
            viewpoint_concept if parent is None else parent,
            sequence,
            source=source,
            locator=locator,
        )
    return records.result()


def parse_fterm_en(ctx: BuildContext, source: SourceFile) -> FileResult:
    """Add English labels to the F-terms of the Japanese files, checking they agree."""
    records = CsvRecords(ctx, source)
    for locator, raw in records:
        if not ctx.min_columns(raw, _COLUMNS, IssueCode.FTERM_COLUMN_COUNT, source, locator):
            continue
        cells = split_fterm_en_row(raw)
        row = _term_row(ctx, cells, source, locator)
        if row is None:
            continue
        parsed, sequence, depth = row
        code, _kind = fterm_concept_code(parsed)
        subject = f"F-term {code}"
        known = japanese_row(ctx, ctx.state.fterm_ja, "FTERM/FTERM", code, source, locator)
        if known is None:
            continue
        revision, ja_sequence, ja_depth = known
        sequences = ("sequence", sequence, ja_sequence)
        issue = IssueCode.FTERM_TRANSLATION_SEQUENCE_MISMATCH
        if mismatch(ctx, issue, subject, sequences, source, locator, kept=False):
            continue
        issue = IssueCode.FTERM_TRANSLATION_DEPTH_MISMATCH
        mismatch(ctx, issue, subject, ("depth", depth, ja_depth), source, locator, kept=True)
        ctx.add_text(revision, "en", "label", 1, cells[3], source=source, locator=locator)
    return records.result()
