"""``CONCORDANCE``: FI ↔ IPC and old IPC → IPC 8 concordances.

Columns: 0 left scheme marker, 1 left code, 2 right marker, 3 right code. Marker ``1`` is
FI, ``4``-``7`` that IPC edition, ``8`` IPC 8 (the 8U edition). The markers are data and
decide each row's direction; a file name such as ``con_FItoIPC8U_…`` is only a hint, and a
file mixing other directions (other writers merge them) gets one
``CONCORDANCE_DIRECTIONS_MIXED`` warning. Each row is a ``concordance`` relation
left → right; codes no table defines become reference-only. An indexing code (``:``) is
read on an IPC 4-7 side only; on an FI or IPC 8 side it is ``CODE_INVALID``.
"""

from __future__ import annotations

import re
from typing import Final

from pmgs_build.build_issues import IssueCode
from pmgs_build.source.files import SourceFile
from pmgs_build.source.parsers.base import BuildContext, CsvRecords, FileResult
from pmgs_build.source.parsers.ipc import refuse_misplaced_indexing

__all__ = ["MARKERS", "parse_concordance"]

_COLUMNS: Final = 4
MARKERS: Final[dict[str, tuple[str, str]]] = {
    "1": ("fi", ""),
    "4": ("ipc", "4"),
    "5": ("ipc", "5"),
    "6": ("ipc", "6"),
    "7": ("ipc", "7"),
    "8": ("ipc", "8U"),
}
_NAME_RE: Final = re.compile(r"con_(FI|IPC[0-9A-Z]+)to(FI|IPC[0-9A-Z]+)_", re.IGNORECASE)
_NAME_MARKERS: Final = {
    "FI": "1",
    "IPC4": "4",
    "IPC5": "5",
    "IPC6": "6",
    "IPC7": "7",
    "IPC8": "8",
    "IPC8U": "8",
}


def _expected_markers(name: str) -> tuple[str, str] | None:
    match = _NAME_RE.match(name)
    if match is None:
        return None
    left = _NAME_MARKERS.get(match.group(1).upper())
    right = _NAME_MARKERS.get(match.group(2).upper())
    if left is None or right is None:
        return None
    return left, right


def parse_concordance(ctx: BuildContext, source: SourceFile) -> FileResult:
    """One ``concordance`` relation per row."""
    records = CsvRecords(ctx, source)
    expected = _expected_markers(source.name)
    registry = ctx.registry
    for locator, cells in records:
        if not ctx.columns(cells, _COLUMNS, IssueCode.CONCORDANCE_COLUMN_COUNT, source, locator):
            continue
        markers = (cells[0].strip(), cells[2].strip())
        if any(marker not in MARKERS for marker in markers):
            ctx.log.error(
                IssueCode.CONCORDANCE_MARKER_INVALID,
                f"scheme markers {markers} (expected 1 = FI, 4-8 = IPC edition)",
                source.path,
                locator,
            )
            continue
        if expected is not None and markers != expected:
            ctx.log.warning(
                IssueCode.CONCORDANCE_DIRECTIONS_MIXED,
                f"markers {markers[0]} → {markers[1]} where the file name suggests "
                f"{expected[0]} → {expected[1]}; each row is read by its own markers",
                source.path,
                locator,
            )
            expected = None  # once per file
        ends: list[tuple[int, int | None]] = []
        for marker, cell in ((markers[0], cells[1]), (markers[1], cells[3])):
            scheme, edition = MARKERS[marker]
            code = ctx.code(scheme, cell, source, locator)
            if code is None or refuse_misplaced_indexing(
                ctx, edition, code.canonical, source, locator
            ):
                break
            concept = registry.reference(
                scheme,
                edition,
                code.canonical,
                code.kind,
                source_file_id=source.id,
                locator=locator,
            )
            revision = None
            if code.version is not None:
                revision = ctx.state.ipc_revisions.get((edition, code.canonical, code.version))
                if revision is None:
                    ctx.log.warning(
                        IssueCode.CONCORDANCE_VERSION_UNKNOWN,
                        f"IPC {edition} {code.canonical} has no version {code.version}",
                        source.path,
                        locator,
                    )
            ends.append((concept, revision))
        if len(ends) != 2:
            continue
        (left, left_revision), (right, right_revision) = ends
        ctx.add_relation(
            "concordance",
            left,
            right,
            ctx.next_in("concordance"),
            source=source,
            locator=locator,
            from_revision=left_revision,
            to_revision=right_revision,
        )
    return FileResult(records.records)
