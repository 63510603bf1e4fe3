"""Build issues: every irregularity of a package becomes one recorded, coded row.

A warning is read and kept, a record that cannot be read with certainty is quarantined, an
error stops the build and leaves nothing behind; the error budget turns too much quarantine
into an error (ADR 0009, table in docs/pmgs-source-format.md). Codes are part of the
interface and never change meaning; each constant below says when it is raised.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Final, Literal

from pmgs_build.issue_codes_handover import HandoverCodes

__all__ = [
    "ALL_ISSUE_CODES",
    "DEFAULT_ERROR_BUDGET",
    "QUARANTINE_CODES",
    "BuildError",
    "BuildIssue",
    "IssueCode",
    "IssueLog",
    "Quarantined",
    "Severity",
]

Severity = Literal["error", "warning"]


class IssueCode(HandoverCodes):
    """The stable issue codes (``build_issue.code``, :attr:`BuildError.code`); those of the
    package as it was handed over (folders, archives, names, text conventions) are
    :class:`~pmgs_build.issue_codes_handover.HandoverCodes`, inherited here."""

    # -- the output --------------------------------------------------------------------------
    OUTPUT_EXISTS: Final = "OUTPUT_EXISTS"
    """Error: the output path exists; a database is immutable once built, so it is never
    overwritten (build into a new path and switch to it)."""
    OUTPUT_DIRECTORY_MISSING: Final = "OUTPUT_DIRECTORY_MISSING"
    """Error: the directory that should hold the output does not exist."""
    OUTPUT_INSIDE_SOURCE: Final = "OUTPUT_INSIDE_SOURCE"
    """Error: the output lies inside the source package, which is never written to."""
    OUTPUT_WRITE_FAILED: Final = "OUTPUT_WRITE_FAILED"
    """Error: the output could not be written: the file system is full, a file-size or quota
    limit was reached, or it is read-only or failing. The temporary file is removed, so
    nothing half-written is left; free space (or use another output directory) and build
    again."""
    DATABASE_CHECK_FAILED: Final = "DATABASE_CHECK_FAILED"
    """Error: the finished database failed ``PRAGMA foreign_key_check`` or a consistency
    check; this is a builder bug, never a package problem."""

    # -- COPYRGHT ----------------------------------------------------------------------------
    COPYRGHT_MISSING: Final = "COPYRGHT_MISSING"
    """Error: the package has no COPYRGHT file; the attribution must ship with every answer."""
    COPYRGHT_MULTIPLE: Final = "COPYRGHT_MULTIPLE"
    """Error: more than one COPYRGHT file, so the attribution line is ambiguous."""
    COPYRGHT_INVALID: Final = "COPYRGHT_INVALID"
    """Error: the COPYRGHT file is not UTF-8, empty, or holds more than one non-empty line."""

    # -- CSV framing -------------------------------------------------------------------------
    CSV_ENCODING: Final = "CSV_ENCODING"
    """Error: a CSV file is not valid UTF-8 (with or without BOM)."""
    CSV_MALFORMED: Final = "CSV_MALFORMED"
    """Error: a CSV file breaks the CSV syntax (for example an unterminated quote)."""
    CSV_BLANK_ROW: Final = "CSV_BLANK_ROW"
    """Warning: an empty record inside a CSV file; skipped, still counted in row numbers."""
    CSV_EMPTY: Final = "CSV_EMPTY"
    """Warning: a CSV file without any record."""
    CSV_HEADER_ROW: Final = "CSV_HEADER_ROW"
    """Warning: the first record of a CSV file is a header row (no code in its first cell, no
    number in any cell); skipped, its text recorded in the message."""
    CSV_EXTRA_COLUMNS: Final = "CSV_EXTRA_COLUMNS"
    """Warning (once per file): the file's first record has more cells than the group's
    columns, so every row of the file carries extra trailing cells; they are ignored."""
    CSV_CP932_FALLBACK: Final = "CSV_CP932_FALLBACK"
    """Warning (once per file): the file is not UTF-8 but decodes strictly as CP932 (the
    Shift_JIS that Japanese Windows tools write), and was read so."""

    # -- column counts, one per CSV group (ja and en share theirs) ------------------------------
    FI_COLUMN_COUNT: Final = "FI_COLUMN_COUNT"
    """Error: an ``FI/FI`` row without exactly 5 columns."""
    FI_TEXT_COLUMN_COUNT: Final = "FI_TEXT_COLUMN_COUNT"
    """Error: an ``FI/FI_TEXT(_E)`` row without exactly 7 columns."""
    FI_HB_COLUMN_COUNT: Final = "FI_HB_COLUMN_COUNT"
    """Error: an ``FI/FI_HB(_E)`` row without exactly 5 columns."""
    FI_THEME_COLUMN_COUNT: Final = "FI_THEME_COLUMN_COUNT"
    """Error: an ``FI/FI_THEME`` row without exactly 5 columns."""
    FI_KAISEI_LINK_COLUMN_COUNT: Final = "FI_KAISEI_LINK_COLUMN_COUNT"
    """Error: an ``FI/FI_KAISEI_LINK`` row with fewer than 2 columns (more are re-joined)."""
    THEME_COLUMN_COUNT: Final = "THEME_COLUMN_COUNT"
    """Error: an ``FTERM/THEME(_E)`` row without exactly 8 columns."""
    FTERM_COLUMN_COUNT: Final = "FTERM_COLUMN_COUNT"
    """Error: an ``FTERM/FTERM`` row without exactly 5 columns, or an ``FTERM/FTERM_E`` row
    with fewer than 5 (more are an unquoted comma in the label and are re-joined)."""
    FTERM_KAISETSU_COLUMN_COUNT: Final = "FTERM_KAISETSU_COLUMN_COUNT"
    """Error: an ``FTERM/FTERM_KAISETSU(_E)`` row without exactly 4 columns."""
    IPC_COLUMN_COUNT: Final = "IPC_COLUMN_COUNT"
    """Error: an IPC text row without the columns of its edition (6, 8B: 9, 8U: 11)."""
    CONCORDANCE_COLUMN_COUNT: Final = "CONCORDANCE_COLUMN_COUNT"
    """Error: a ``CONCORDANCE`` row without exactly 4 columns."""
    JUDGE_COLUMN_COUNT: Final = "JUDGE_COLUMN_COUNT"
    """Error: a ``JUDGE`` row without exactly 2 columns."""

    # -- values ------------------------------------------------------------------------------
    CODE_INVALID: Final = "CODE_INVALID"
    """Quarantine: a code cell that ``pmgs_core.parse_code`` cannot read with certainty."""
    CODE_SPELLING_NORMALISED: Final = "CODE_SPELLING_NORMALISED"
    """Warning (once per file): code cells in another unambiguous spelling than the package
    layout (a trailing-zero subgroup ``3/050``, full-width digits, a left-aligned subgroup);
    each was read as its one canonical code. The message shows the first cell."""
    DUPLICATE_CODE: Final = "DUPLICATE_CODE"
    """Error: a code table defines the same code twice (FI, theme, F-term)."""
    LEVEL_INVALID: Final = "LEVEL_INVALID"
    """Error: a hierarchy level or F-term depth that is not a non-negative integer."""
    SEQUENCE_INVALID: Final = "SEQUENCE_INVALID"
    """Error: a sequence or text line cell that is not an integer."""
    HIERARCHY_PARENT_MISSING: Final = "HIERARCHY_PARENT_MISSING"
    """Warning: a row below the top level with no earlier row of a smaller level in its file,
    so it has no parent."""

    # -- FI ----------------------------------------------------------------------------------
    FI_TEXT_UNKNOWN_CODE: Final = "FI_TEXT_UNKNOWN_CODE"
    """Error: an ``FI/FI_TEXT(_E)`` row whose code ``FI/FI`` does not define."""

    # -- F-term ------------------------------------------------------------------------------
    THEME_ROW_SKIPPED: Final = "THEME_ROW_SKIPPED"
    """Warning: a THEME row whose first cell is neither a theme code nor a bare theme-group
    header (``2B``); skipped. Group headers are skipped silently and counted."""
    THEME_TRANSLATION_UNKNOWN_CODE: Final = "THEME_TRANSLATION_UNKNOWN_CODE"
    """Error: a ``FTERM/THEME_E`` theme that ``FTERM/THEME`` does not define."""
    THEME_TRANSLATION_SEQUENCE_MISMATCH: Final = "THEME_TRANSLATION_SEQUENCE_MISMATCH"
    """Warning: a ``FTERM/THEME_E`` row whose sequence differs from the Japanese one (the
    Japanese sequence is kept)."""
    FTERM_THEME_UNKNOWN: Final = "FTERM_THEME_UNKNOWN"
    """Warning: an F-term whose theme ``FTERM/THEME`` does not define; the theme is kept as a
    reference-only concept."""
    FTERM_VIEWPOINT_MISSING: Final = "FTERM_VIEWPOINT_MISSING"
    """Warning: an F-term whose viewpoint heading (number ``00``) does not precede it in its
    file; the term's parent is then the viewpoint as a reference."""
    FTERM_TRANSLATION_UNKNOWN_CODE: Final = "FTERM_TRANSLATION_UNKNOWN_CODE"
    """Error: an ``FTERM/FTERM_E`` code that ``FTERM/FTERM`` does not define."""
    FTERM_TRANSLATION_SEQUENCE_MISMATCH: Final = "FTERM_TRANSLATION_SEQUENCE_MISMATCH"
    """Error: an ``FTERM/FTERM_E`` row whose sequence differs from the Japanese one."""
    FTERM_TRANSLATION_DEPTH_MISMATCH: Final = "FTERM_TRANSLATION_DEPTH_MISMATCH"
    """Warning: an ``FTERM/FTERM_E`` row whose depth differs from the Japanese one (the
    Japanese depth is kept)."""

    # -- IPC ---------------------------------------------------------------------------------
    IPC_TEXT_LINE_INVALID: Final = "IPC_TEXT_LINE_INVALID"
    """Error: an IPC text line sequence that is missing, not an integer or not positive."""
    IPC_VERSION_INVALID: Final = "IPC_VERSION_INVALID"
    """Error: an IPC 8 version cell that is not a version such as ``(2006.01)``."""
    IPC_VALIDITY_INVALID: Final = "IPC_VALIDITY_INVALID"
    """Error: an IPC 8U validity date that is not ``YYYYMMDD``, or ends before it starts."""
    IPC_REVISION_INCONSISTENT: Final = "IPC_REVISION_INCONSISTENT"
    """Error: text lines of one IPC revision disagree on its level or validity."""
    IPC_MULTIPLE_VALID_REVISIONS: Final = "IPC_MULTIPLE_VALID_REVISIONS"
    """Error: more than one IPC 8U revision of a code is valid at the reference date; a
    lookup would have to pick one, and picking is guessing."""

    # -- relations and documents -------------------------------------------------------------
    CONCORDANCE_MARKER_INVALID: Final = "CONCORDANCE_MARKER_INVALID"
    """Error: a concordance scheme marker other than ``1`` (FI) and ``4``-``8`` (IPC)."""
    CONCORDANCE_MARKER_MISMATCH: Final = "CONCORDANCE_MARKER_MISMATCH"
    """Retired (no longer raised): markers are data and a file name only a hint; see
    ``CONCORDANCE_DIRECTIONS_MIXED``."""
    CONCORDANCE_DIRECTIONS_MIXED: Final = "CONCORDANCE_DIRECTIONS_MIXED"
    """Warning (once per file): a concordance file holds rows whose scheme markers differ from
    what its name suggests (``4 → 8`` inside ``con_FItoIPC8U_…``); each row is read by its own
    markers."""
    CONCORDANCE_VERSION_UNKNOWN: Final = "CONCORDANCE_VERSION_UNKNOWN"
    """Warning: a concordance code names an IPC version the IPC tables do not have; the
    relation is kept at the concept level."""
    JUDGE_MULTIPLE_FILES: Final = "JUDGE_MULTIPLE_FILES"
    """Error: more than one ``JUDGE`` file, while the document key ``judge`` is unique."""

    # -- FI revision XML (FI/FI_KAISEI_DOC) ------------------------------------------------
    XML_MALFORMED: Final = "XML_MALFORMED"
    """Error: an XML file is not well-formed (strict parser, no recovery)."""
    XML_DOCTYPE_REFUSED: Final = "XML_DOCTYPE_REFUSED"
    """Error: an XML file has a DOCTYPE or entity declaration; the package's files have none,
    and entities are never resolved, so such a file is refused rather than half-read."""
    XML_ENCODING: Final = "XML_ENCODING"
    """Error: an XML file decodes neither as its declared encoding nor as CP932."""
    XML_CP932_FALLBACK: Final = "XML_CP932_FALLBACK"
    """Warning: a file declared Shift_JIS failed the strict parse and was read as CP932 (the
    Windows superset), which parsed strictly."""
    XML_STRUCTURE_INVALID: Final = "XML_STRUCTURE_INVALID"
    """Error: an FI revision XML whose root is not ``<data trg=…>`` naming the file's subclass,
    or an ``<infor>`` without exactly one ``<FI>`` code."""
    FI_REVISION_LINK_UNRESOLVED: Final = "FI_REVISION_LINK_UNRESOLVED"
    """Error: an ``FI/FI_KAISEI_LINK`` row whose code has no FI revision document."""

    # -- HTML tables (FTERM/ADD_CODE(_E), IPC_KAISEI) -------------------------------------
    HTML_RECOVERY_USED: Final = "HTML_RECOVERY_USED"
    """Warning (once per file): the HTML parser had to recover from markup errors (unclosed
    tags); the table was still read cell by cell."""
    HTML_CP932_FALLBACK: Final = "HTML_CP932_FALLBACK"
    """Warning: a page declared Shift_JIS held CP932-only characters (Windows-31J, the
    superset Japanese Windows tools write) and was decoded as CP932."""
    HTML_UNREADABLE: Final = "HTML_UNREADABLE"
    """Quarantine: an HTML file that cannot be decoded."""
    HTML_NO_TABLE: Final = "HTML_NO_TABLE"
    """Warning: an HTML page of a table group that holds no table (an index page beside the
    tables); retained, nothing read from it."""
    HTML_HEADER_UNKNOWN: Final = "HTML_HEADER_UNKNOWN"
    """Warning: a table whose header wording pmgs does not know (Japanese or English); its
    columns are read by position and the header text is recorded in the message."""
    HTML_TABLE_INVALID: Final = "HTML_TABLE_INVALID"
    """Quarantine: an HTML table row with too few cells for the table's columns."""
    IPC_REVISION_ENDPOINT_UNRESOLVED: Final = "IPC_REVISION_ENDPOINT_UNRESOLVED"
    """Error: an ``IPC_KAISEI`` row whose old or new code + version is not an IPC 8U revision
    of the package."""
    ADD_CODE_ROW_INVALID: Final = "ADD_CODE_ROW_INVALID"
    """Error: an additional-code row whose first cell is not a theme code."""

    # -- definition PDFs (REFERENCE/IPC_TEIGI) -----------------------------------------------
    PDF_UNREADABLE: Final = "PDF_UNREADABLE"
    """Error: a PDF that the extractor cannot open (not a PDF, truncated, encrypted)."""
    PDF_ENCRYPTED: Final = "PDF_ENCRYPTED"
    """Error: a PDF that pdfium opens only with a password; its text is not read."""
    PDF_TIMEOUT: Final = "PDF_TIMEOUT"
    """Error: a PDF whose text extraction outlived the per-file time limit (``pdf_timeout``
    of the build, ``pmgs build --pdf-timeout``, 60 s by default); its worker was killed and
    the other files were read on."""
    PDF_NAME_INVALID: Final = "PDF_NAME_INVALID"
    """Error: a PDF whose file name does not spell an IPC code."""
    PDF_EMPTY_PAGE: Final = "PDF_EMPTY_PAGE"
    """Warning: a PDF page without extractable text; the other pages keep their numbers."""

    # -- validation ------------------------------------------------------------------------
    VALIDATION_FAILED: Final = "VALIDATION_FAILED"
    """Error: the finished database failed :func:`pmgs_build.validate_database`; it is not
    published (the message names the failed checks)."""


ALL_ISSUE_CODES: Final[frozenset[str]] = frozenset(
    value
    for kind in IssueCode.__mro__
    for name, value in vars(kind).items()
    if name.isupper() and isinstance(value, str)
)
"""Every code above, for tests and for callers that validate codes."""

QUARANTINE_CODES: Final[frozenset[str]] = frozenset(
    {
        IssueCode.CSV_ENCODING,
        IssueCode.CSV_MALFORMED,
        IssueCode.FI_COLUMN_COUNT,
        IssueCode.FI_TEXT_COLUMN_COUNT,
        IssueCode.FI_HB_COLUMN_COUNT,
        IssueCode.FI_THEME_COLUMN_COUNT,
        IssueCode.FI_KAISEI_LINK_COLUMN_COUNT,
        IssueCode.THEME_COLUMN_COUNT,
        IssueCode.FTERM_COLUMN_COUNT,
        IssueCode.FTERM_KAISETSU_COLUMN_COUNT,
        IssueCode.IPC_COLUMN_COUNT,
        IssueCode.CONCORDANCE_COLUMN_COUNT,
        IssueCode.JUDGE_COLUMN_COUNT,
        IssueCode.CODE_INVALID,
        IssueCode.DUPLICATE_CODE,
        IssueCode.LEVEL_INVALID,
        IssueCode.SEQUENCE_INVALID,
        IssueCode.FI_TEXT_UNKNOWN_CODE,
        IssueCode.THEME_TRANSLATION_UNKNOWN_CODE,
        IssueCode.FTERM_TRANSLATION_UNKNOWN_CODE,
        IssueCode.FTERM_TRANSLATION_SEQUENCE_MISMATCH,
        IssueCode.IPC_TEXT_LINE_INVALID,
        IssueCode.IPC_VERSION_INVALID,
        IssueCode.IPC_VALIDITY_INVALID,
        IssueCode.IPC_REVISION_INCONSISTENT,
        IssueCode.CONCORDANCE_MARKER_INVALID,
        IssueCode.JUDGE_MULTIPLE_FILES,
        IssueCode.XML_MALFORMED,
        IssueCode.XML_ENCODING,
        IssueCode.XML_STRUCTURE_INVALID,
        IssueCode.FI_REVISION_LINK_UNRESOLVED,
        IssueCode.HTML_UNREADABLE,
        IssueCode.HTML_TABLE_INVALID,
        IssueCode.IPC_REVISION_ENDPOINT_UNRESOLVED,
        IssueCode.ADD_CODE_ROW_INVALID,
        IssueCode.PDF_UNREADABLE,
        IssueCode.PDF_ENCRYPTED,
        IssueCode.PDF_TIMEOUT,
        IssueCode.PDF_NAME_INVALID,
    }
)
"""Codes that concern one row, cell, element or file: quarantined (kept with the raw text,
not answered) unless the build is strict. Every other error code is fatal."""

DEFAULT_ERROR_BUDGET: Final = 0.01
"""Share of a data group's records that may be quarantined before the build stops with
``FORMAT_NOT_RECOGNISED``; at least :data:`QUARANTINE_ALLOWANCE` records always may."""

QUARANTINE_ALLOWANCE: Final = 2
"""Quarantined records a data group may always hold, however small it is (the judgement
table has 92 rows: one odd row must not stop a release)."""

QUARANTINE_HARD_LIMIT: Final = 100_000
"""Quarantined records after which a build stops at once, before its group ends: a format
nobody knows should not fill memory with raw rows first."""

_SAMPLE_ROWS: Final = 5


@dataclass(frozen=True, slots=True)
class Quarantined:
    """A record pmgs could not read with certainty, kept as evidence.

    ``raw`` is what the package said: the cells as a JSON array for a CSV row, the element or
    row text for XML and HTML, empty for a whole file that could not be decoded. ``weight``
    is how many records it stands for in the error budget (a whole CSV file: its lines).
    """

    code: str
    message: str
    data_group: str
    source_path: str | None
    locator: str
    raw: str
    weight: int = 1

    def as_issue(self) -> BuildIssue:
        """The same irregularity as an error (``--strict``, or a budget sample)."""
        return BuildIssue("error", self.code, self.message, self.source_path, self.locator)

    def to_dict(self) -> dict[str, str | int | None]:
        """JSON-ready form."""
        return {
            "code": self.code,
            "message": self.message,
            "data_group": self.data_group,
            "source_path": self.source_path,
            "locator": self.locator,
            "raw": self.raw,
        }


@dataclass(frozen=True, slots=True)
class BuildIssue:
    """One irregularity: what (code, message), how bad (severity) and where (file, locator)."""

    severity: Severity
    code: str
    message: str
    source_path: str | None = None
    locator: str | None = None

    def to_dict(self) -> dict[str, str | None]:
        """JSON-ready form, as the CLI's ``--json`` output shows it."""
        return {
            "severity": self.severity,
            "code": self.code,
            "message": self.message,
            "source_path": self.source_path,
            "locator": self.locator,
        }

    def __str__(self) -> str:
        where = ""
        if self.source_path is not None:
            where = f" [{self.source_path}" + (f" {self.locator}" if self.locator else "") + "]"
        return f"{self.code}: {self.message}{where}"


class BuildError(Exception):
    """The build stopped; no database was written.

    Carries every error issue found before stopping (:attr:`issues`) so that a user can fix
    them in one pass, and the :attr:`code` of the first for callers that branch on one code.
    """

    def __init__(self, issues: Iterable[BuildIssue]) -> None:
        self.issues: tuple[BuildIssue, ...] = tuple(issues)
        if not self.issues:
            raise ValueError("BuildError needs at least one issue")
        self.code: str = self.issues[0].code
        more = len(self.issues) - 1
        suffix = f" (and {more} more error{'s' if more != 1 else ''})" if more else ""
        super().__init__(f"{self.issues[0]}{suffix}")

    def __reduce__(self) -> tuple[type[BuildError], tuple[tuple[BuildIssue, ...]]]:
        return (type(self), (self.issues,))


class IssueLog:
    """Collects the issues of one build in the order they were found.

    Errors are kept apart so that the build can stop at a phase boundary with all errors of
    the phase, and gives up early once :attr:`max_errors` is reached (one broken column in a
    large file would otherwise produce a million identical errors). Errors of
    :data:`QUARANTINE_CODES` become :class:`Quarantined` records unless :attr:`strict`; the
    CSV reader keeps :attr:`current_raw` on the record being read so that adapters need not
    pass it, and the build sets :attr:`group` to the data group being parsed.
    """

    def __init__(
        self,
        max_errors: int = 200,
        *,
        strict: bool = False,
        quarantine_budget: float = DEFAULT_ERROR_BUDGET,
    ) -> None:
        if not 0.0 <= quarantine_budget <= 1.0:
            raise ValueError("quarantine_budget is a share between 0 and 1")
        self.max_errors = max_errors
        self.strict = strict
        self.quarantine_budget = quarantine_budget
        self.group = ""
        self.current_raw: str | list[str] | None = None
        self._issues: list[BuildIssue] = []
        self._errors: list[BuildIssue] = []
        self._quarantined: list[Quarantined] = []
        self._units: dict[str, int] = {}

    def error(
        self,
        code: str,
        message: str,
        source_path: str | None = None,
        locator: str | None = None,
        *,
        weight: int = 1,
    ) -> None:
        """Record an error, or quarantine the record it concerns (see the class).

        Raises :class:`BuildError` at once when there are too many errors or quarantined
        records. ``weight`` is how many records a quarantined whole file stands for.
        """
        if code in QUARANTINE_CODES and not self.strict:
            self._quarantine(code, message, source_path, locator, weight)
            return
        issue = BuildIssue("error", code, message, source_path, locator)
        self._issues.append(issue)
        self._errors.append(issue)
        if len(self._errors) >= self.max_errors:
            raise BuildError(self._errors)

    def warning(
        self, code: str, message: str, source_path: str | None = None, locator: str | None = None
    ) -> None:
        """Record a warning (kept in ``build_issue``)."""
        self._issues.append(BuildIssue("warning", code, message, source_path, locator))

    @property
    def errors(self) -> tuple[BuildIssue, ...]:
        """The errors so far."""
        return tuple(self._errors)

    def raise_if_errors(self) -> None:
        """Stop the build when any error was recorded."""
        if self._errors:
            raise BuildError(self._errors)

    def warnings(self) -> Iterator[BuildIssue]:
        """The warnings, in the order found."""
        return (issue for issue in self._issues if issue.severity == "warning")

    def _quarantine(
        self,
        code: str,
        message: str,
        source_path: str | None,
        locator: str | None,
        weight: int,
    ) -> None:
        raw = self.current_raw
        if isinstance(raw, list):
            raw = json.dumps(raw, ensure_ascii=False)
        entry = Quarantined(
            code, message, self.group, source_path, locator or "file", raw or "", max(weight, 1)
        )
        self._quarantined.append(entry)
        self._units[self.group] = self._units.get(self.group, 0) + entry.weight
        if len(self._quarantined) >= QUARANTINE_HARD_LIMIT:
            raise self._format_error(
                f"{len(self._quarantined):,} records quarantined before the build ended "
                f"(limit {QUARANTINE_HARD_LIMIT:,}, whatever the quarantine budget); the "
                "package is not in a format pmgs knows",
                self._quarantined,
            )

    @property
    def quarantined(self) -> tuple[Quarantined, ...]:
        """The quarantined records, in the order found."""
        return tuple(self._quarantined)

    def quarantined_units(self, group: str) -> int:
        """How many records of ``group`` are quarantined (whole files by their weight)."""
        return self._units.get(group, 0)

    def check_budget(self, group: str, records: int) -> None:
        """Stop with ``FORMAT_NOT_RECOGNISED`` when ``group`` quarantined too much.

        ``records`` is what the group's files yielded; quarantined whole files add their
        weight, since no record of them was counted.
        """
        units = self._units.get(group, 0)
        if not units:
            return
        total = max(records, units)
        allowed = max(QUARANTINE_ALLOWANCE, int(self.quarantine_budget * total))
        if units <= allowed:
            return
        entries = [q for q in self._quarantined if q.data_group == group]
        reasons = Counter(q.code for q in entries)
        share = units / total
        way_out = min(1.0, math.ceil(share * 100) / 100)
        raise self._format_error(
            f"data group {group}: {units:,} of {total:,} records ({share:.1%}) could not be "
            f"read ({', '.join(f'{code} {n:,}' for code, n in reasons.most_common())}), over "
            f"the quarantine budget of {self.quarantine_budget:.0%} (at least "
            f"{QUARANTINE_ALLOWANCE}); the package is not in a format pmgs knows. To build "
            f"anyway with every unreadable record quarantined and listed, raise the budget: "
            f"--quarantine-budget {way_out:g} (1: never refuse; quarantine_budget= in Python)",
            entries,
        )

    def _format_error(self, summary: str, entries: list[Quarantined]) -> BuildError:
        sample = entries[:_SAMPLE_ROWS]  # the issues after the head, each with its locator
        head = BuildIssue(
            "error",
            IssueCode.FORMAT_NOT_RECOGNISED,
            summary,
            sample[0].source_path if sample else None,
            sample[0].locator if sample else None,
        )
        return BuildError([head, *(q.as_issue() for q in sample)])

    def error_count_of(self, source_path: str) -> int:
        """How many errors name ``source_path`` (a file with errors is ``failed``)."""
        return sum(1 for issue in self._errors if issue.source_path == source_path)
