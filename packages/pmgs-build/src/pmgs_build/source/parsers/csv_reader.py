"""The strict CSV reader every CSV adapter uses: UTF-8 (BOM or not), else CP932 with a
warning, quoted newlines, one header row and blank rows skipped with a warning, and the
logical record number as the ``row:N`` locator (docs/pmgs-source-format.md, ADR 0009).
Text conventions of other platforms (an end-of-file mark, NUL padding, mixed line ends, a
stray BOM) are taken out before parsing and counted (:mod:`.text_conventions`, ADR 0032).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from typing import Final

from pmgs_build.build_issues import IssueCode
from pmgs_build.source.files import ProgressEvent, SourceFile
from pmgs_build.source.parsers.context import BuildContext, Code, FileResult
from pmgs_build.source.parsers.text_conventions import (
    Conventions,
    TailStripped,
    record_lines,
    report_tail,
)
from pmgs_build.source.text import decode_cp932

__all__ = ["CsvRecords", "decode_cp932"]

_FIELD_SIZE_LIMIT: Final = 1 << 24
_ROW_PROGRESS_EVERY: Final = 50_000


class CsvRecords:
    """The logical records of one CSV file, read strictly, as (row number, cells).

    UTF-8 with or without BOM (``utf-8-sig``), quoted cells may hold newlines and commas.
    A decoding or syntax failure ends the file with ``CSV_ENCODING`` / ``CSV_MALFORMED``;
    blank records are skipped with a warning but keep their row number, so that ``row:N``
    stays the N-th logical record. :attr:`records` counts the records read.
    """

    def __init__(self, ctx: BuildContext, source: SourceFile) -> None:
        self._ctx = ctx
        self._source = source
        self._conventions = Conventions()
        self.records = 0

    def __iter__(self) -> Iterator[tuple[str, list[str]]]:
        source, log = self._source, self._ctx.log
        if csv.field_size_limit() < _FIELD_SIZE_LIMIT:
            csv.field_size_limit(_FIELD_SIZE_LIMIT)
        encoding = "utf-8-sig"
        skip = 0
        while True:
            try:
                yield from self._records(encoding, skip)
            except UnicodeDecodeError as error:
                log.current_raw = None
                if encoding == "utf-8-sig" and self._decodes_as_cp932():
                    # Records read so far were valid UTF-8 as well (in practice: ASCII), so
                    # the same rows follow again; they are skipped, not read twice.
                    log.warning(
                        IssueCode.CSV_CP932_FALLBACK,
                        "not UTF-8; read as CP932 (Shift_JIS as Japanese Windows writes it)",
                        source.path,
                    )
                    encoding, skip, self.records = "cp932", self.records, 0
                    continue
                log.error(
                    IssueCode.CSV_ENCODING,
                    f"neither UTF-8 nor CP932 after record {self.records}: {error.reason}",
                    source.path,
                    f"row:{self.records + 1}",
                    weight=self._lines_left(),
                )
            except csv.Error as error:
                log.current_raw = None
                log.error(
                    IssueCode.CSV_MALFORMED,
                    f"CSV syntax error after record {self.records}: {error}",
                    source.path,
                    f"row:{self.records + 1}",
                    weight=self._lines_left(),
                )
            break
        log.current_raw = None
        self._report_conventions()
        if self.records == 0:
            log.warning(IssueCode.CSV_EMPTY, "file has no record", source.path)

    def coded(
        self, columns: int, issue: str, scheme: str
    ) -> Iterator[tuple[str, list[str], Code | None]]:
        """The records of ``columns`` cells (a record of another width is recorded as
        ``issue`` and left out), each with its first cell read as a ``scheme`` code.

        The code is None when the cell is not one (``CODE_INVALID`` is already recorded);
        the record still comes, so that the caller's other cells are checked and reported
        as well, the way every CSV adapter reads its rows.
        """
        ctx, source = self._ctx, self._source
        for locator, cells in self:
            if ctx.columns(cells, columns, issue, source, locator):
                yield locator, cells, ctx.code(scheme, cells[0], source, locator)

    def result(self) -> FileResult:
        """The file's result once every record was read."""
        return FileResult(self.records)

    def _records(self, encoding: str, skip: int) -> Iterator[tuple[str, list[str]]]:
        ctx, source, log = self._ctx, self._source, self._ctx.log
        self._conventions = conventions = Conventions()
        raw = io.BufferedReader(TailStripped(ctx.open_binary(source), conventions))
        with io.TextIOWrapper(raw, encoding=encoding, newline="") as handle:
            for fields in csv.reader(record_lines(handle, conventions), strict=True):
                self.records += 1
                if self.records <= skip:
                    continue
                locator = f"row:{self.records}"
                if not fields:
                    log.warning(
                        IssueCode.CSV_BLANK_ROW, "blank record skipped", source.path, locator
                    )
                    continue
                if self.records == 1 and _is_header(fields):
                    log.warning(
                        IssueCode.CSV_HEADER_ROW,
                        f"header row skipped: {','.join(fields)[:200]}",
                        source.path,
                        locator,
                    )
                    continue
                if self.records % _ROW_PROGRESS_EVERY == 0:
                    ctx.progress(
                        ProgressEvent("parse", source.data_group, self.records, None, "rows")
                    )
                log.current_raw = fields
                yield locator, fields

    def _report_conventions(self) -> None:
        """One warning per convention of another platform the file had (issue 43)."""
        seen, log, path = self._conventions, self._ctx.log, self._source.path
        report_tail(log, seen.tail, path)
        mixed = seen.mixed_ends()
        if mixed is not None:
            log.warning(
                IssueCode.CSV_LINE_ENDS_MIXED,
                f"records end in more than one way ({mixed}); each read as a line end",
                path,
            )
        if seen.boms:
            log.warning(
                IssueCode.CSV_STRAY_BOM,
                f"{seen.boms} byte-order marks at the start of records removed",
                path,
            )

    def _decodes_as_cp932(self) -> bool:
        return decode_cp932(self._ctx.read_bytes(self._source)) is not None

    def _lines_left(self) -> int:
        """Records a file that stopped being readable stands for in the error budget."""
        lines = self._ctx.read_bytes(self._source).count(b"\n") + 1
        return max(1, lines - self.records)


def _is_header(fields: list[str]) -> bool:
    """A first record that names columns instead of holding data.

    Every data row of every CSV group has a digit in its first cell (a code, a marker, a
    key) or a purely numeric cell (a sequence, a level); a row of column names has neither.
    """
    if any(char.isdigit() for char in fields[0]):
        return False
    return not any(cell.strip().isdigit() for cell in fields)
