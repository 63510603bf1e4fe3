"""The build context: what every adapter is given (the writer, the concept registry, the
issue log, the package reader and the facts shared across files) and its value checks.

A check that fails becomes a coded build issue with the file and its ``row:N`` locator, so
the same irregularity is reported the same way by every adapter (ADR 0003, ADR 0009).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import BinaryIO, Final

from pmgs_build.build_issues import IssueCode, IssueLog
from pmgs_build.database.inserts import ConceptRegistry, Loader
from pmgs_build.source.container import FILE_READER, PackageReader
from pmgs_build.source.files import ProgressEvent, SourceFile
from pmgs_core import InvalidCodeError, parse_code

__all__ = [
    "NOT_TRANSLATED",
    "BuildContext",
    "Code",
    "DocumentState",
    "FileResult",
    "SharedState",
]

NOT_TRANSLATED: Final = "(Not Translated)"
"""English cells holding this literal are a translation status, not a label."""

_CODE_CACHE_SIZE: Final = 1 << 21
"""Distinct code cells kept parsed, per scheme: above the distinct cells of any scheme at
scale 1.0 (about 0.5 million), so that no data group finds the cache emptied by the one
before it (at 2^18 it was, and 6 of 10 cells were parsed again: ADR 0039). Emptied after
the parse (:meth:`BuildContext.forget_codes`), before the indexes' memory peak."""


@dataclass(frozen=True, slots=True)
class Code:
    """What the adapters use of a parsed code, computed once per distinct cell.

    ``ClassificationCode.canonical`` is a property that rebuilds the string on every access;
    adapters need it several times per row, on millions of rows.
    """

    canonical: str
    kind: str
    theme: str | None = None
    viewpoint: str | None = None
    number: str | None = None
    version: str | None = None
    variant: bool = False
    """The cell spelled the code otherwise than the package layout (see
    ``CODE_SPELLING_NORMALISED``)."""


@dataclass(slots=True)
class FileResult:
    """What one file yielded: logical records read, and records skipped by rule."""

    records: int = 0
    skipped: int = 0


@dataclass(slots=True)
class DocumentState:
    """A document being filled: its id and the next dense 1-based segment number."""

    document_id: int
    next_sequence: int = 1
    mentions: set[int] = field(default_factory=set)


@dataclass(slots=True)
class SharedState:
    """Cross-file facts that later groups check against (ja structure for en files, …)."""

    fterm_ja: dict[str, tuple[int, int, int]] = field(default_factory=dict)
    """F-term or viewpoint code → (revision id, sequence, depth) from the Japanese files."""
    theme_ja: dict[str, tuple[int, int]] = field(default_factory=dict)
    """Theme code → (revision id, sequence) from ``FTERM/THEME``."""
    ipc_revisions: dict[tuple[str, str, str], int] = field(default_factory=dict)
    """(edition, code, version) → revision id, for editions with versions (8B, 8U)."""
    ipc_validity: dict[tuple[str, str], list[tuple[str, str | None, str | None, str]]] = field(
        default_factory=dict
    )
    """(edition, code) → [(version, valid from, valid to, "path locator")] of the versioned
    editions (8B, 8U), for the reference-date check."""
    documents: dict[str, DocumentState] = field(default_factory=dict)
    """Document key → its state, so that a document may continue across rows and files."""
    not_translated: set[int] = field(default_factory=set)
    """Revisions already marked ``translation_status_en = not_translated``."""
    attribution: str | None = None
    """The COPYRGHT line."""
    counters: dict[str, int] = field(default_factory=dict)
    """Running counters (the FI structural sequence, relation orders, …) by name."""
    ipc_edition: str | None = None
    """The IPC edition whose revisions :attr:`ipc_seen` holds."""
    ipc_seen: dict[tuple[str, str], tuple[int, int, str | None, str | None]] = field(
        default_factory=dict
    )
    """(code, version) → (revision id, level, valid from, valid to) of the current edition."""
    fi_revision_subclasses: set[str] = field(default_factory=set)
    """Subclasses whose ``FI/FI_KAISEI_DOC`` XML was read (each has a ``fi_revision``
    document); empty when the package has no revision XML, so links are not checked."""


class BuildContext:
    """Everything an adapter needs: the writer, the registry, the issue log and shared state."""

    def __init__(
        self,
        loader: Loader,
        registry: ConceptRegistry,
        log: IssueLog,
        reference_date: str,
        progress: Callable[[ProgressEvent], None] | None = None,
        package: PackageReader | None = None,
        *,
        pdf_timeout: float | None = None,
    ) -> None:
        self.loader = loader
        self.pdf_timeout = pdf_timeout
        """Seconds one definition PDF may take in a text worker (None: no limit)."""
        self.package: PackageReader = package if package is not None else FILE_READER
        self.registry = registry
        self.log = log
        self.reference_date = reference_date
        self.state = SharedState()
        self._progress = progress
        self.group: str | None = None
        self._codes: dict[str, dict[str, Code]] = {}
        self._variant_files: set[int] = set()
        self._file_width: dict[int, int] = {}

    @property
    def conn(self) -> sqlite3.Connection:
        """The connection being written."""
        return self.loader.conn

    def read_bytes(self, source: SourceFile) -> bytes:
        """The whole content of a package file, wherever the package lives (directory or ZIP).

        Adapters never open ``source.absolute`` themselves: a package read from its ZIP has no
        file on disk. The build gives the context its open package (one open ZIP for the
        whole build); without one, only files on disk can be read.
        """
        return self.package.read_bytes(source)

    def open_binary(self, source: SourceFile) -> BinaryIO:
        """A binary stream of a package file (see :meth:`read_bytes`)."""
        return self.package.open_binary(source)

    def progress(self, event: ProgressEvent) -> None:
        """Report progress, if anybody listens."""
        if self._progress is not None:
            self._progress(event)

    # -- value checks ------------------------------------------------------------------------

    def code(self, scheme: str, text: str, source: SourceFile, locator: str) -> Code | None:
        """Parse a code cell with pmgs-core, or record ``CODE_INVALID`` and return None.

        Parsed cells are cached: the same cell recurs on every text line, handbook row and
        concordance row of a code, and parsing is the most expensive step per row.
        """
        codes = self._codes.get(scheme)
        if codes is None:
            codes = self._codes[scheme] = {}
        code = codes.get(text)
        if code is None:
            try:
                parsed = parse_code(scheme, text)
            except InvalidCodeError as error:
                self.log.error(IssueCode.CODE_INVALID, str(error), source.path, locator)
                return None
            canonical = parsed.canonical  # a property, computed anew on each use
            code = Code(
                canonical,
                parsed.kind,
                parsed.theme,
                parsed.viewpoint,
                parsed.number,
                parsed.version,
                _is_variant(text, canonical, parsed.fixed_width()),
            )
            if len(codes) >= _CODE_CACHE_SIZE:
                codes.clear()
            codes[text] = code
        if code.variant and source.id not in self._variant_files:
            self._variant_files.add(source.id)
            self.log.warning(
                IssueCode.CODE_SPELLING_NORMALISED,
                f"code cells spelled otherwise than the package layout, first {text!r} read "
                f"as {code.canonical}",
                source.path,
                locator,
            )
        return code

    def forget_codes(self) -> None:
        """Drop the parsed cells (the parse is over; nothing asks for codes again)."""
        self._codes.clear()

    def integer(
        self,
        text: str,
        issue: str,
        what: str,
        source: SourceFile,
        locator: str,
        *,
        minimum: int | None = None,
    ) -> int | None:
        """Read an integer cell (space padding allowed), or record ``issue`` and return None."""
        value_text = text.strip()
        if value_text.isascii() and value_text.isdigit():
            value = int(value_text)
            if minimum is None or value >= minimum:
                return value
            self.log.error(issue, f"{what} {text!r} is below {minimum}", source.path, locator)
            return None
        self.log.error(issue, f"{what} {text!r} is not an integer", source.path, locator)
        return None

    def columns(
        self, fields: list[str], expected: int, issue: str, source: SourceFile, locator: str
    ) -> bool:
        """True when the row has ``expected`` columns, else record ``issue``.

        A file whose first record is wider than ``expected`` is taken to carry extra trailing
        columns on every row (another writer's trailing comma or extra field): rows of that
        width pass, the extra cells unread, with one ``CSV_EXTRA_COLUMNS`` warning.
        """
        count = len(fields)
        width = self._file_width.get(source.id)
        if width is None:  # the file's first record decides
            width = max(count, expected)
            self._file_width[source.id] = width
            if count > expected:
                self.log.warning(
                    IssueCode.CSV_EXTRA_COLUMNS,
                    f"{count} columns where {source.data_group} has {expected}; the extra "
                    f"trailing cells of this file's rows are ignored",
                    source.path,
                    locator,
                )
        if count in (expected, width):
            return True
        self.log.error(
            issue,
            f"{len(fields)} columns where {source.data_group} has {expected}",
            source.path,
            locator,
        )
        return False

    def min_columns(
        self,
        fields: list[str],
        minimum: int,
        issue: str,
        source: SourceFile,
        locator: str,
        *,
        noun: str = "columns",
    ) -> bool:
        """True when the row has at least ``minimum`` columns (groups whose last cell may hold
        unquoted commas and is re-joined), else record ``issue``."""
        if len(fields) >= minimum:
            return True
        self.log.error(
            issue,
            f"{len(fields)} {noun} where {source.data_group} has at least {minimum}",
            source.path,
            locator,
        )
        return False

    # -- common rows -------------------------------------------------------------------------

    def add_text(
        self,
        revision_id: int,
        language: str,
        text_type: str,
        line: int,
        body: str,
        *,
        source: SourceFile,
        locator: str,
    ) -> None:
        """Insert a text, or mark the revision not translated for ``(Not Translated)``."""
        if language == "en" and body.strip() == NOT_TRANSLATED:
            if revision_id not in self.state.not_translated:
                self.state.not_translated.add(revision_id)
                self.add_property(
                    revision_id, "translation_status_en", "not_translated", source, locator
                )
            return
        self.loader.add("text", (revision_id, language, text_type, line, body, source.id, locator))

    def add_property(
        self, revision_id: int, name: str, value: str, source: SourceFile, locator: str
    ) -> None:
        """Insert a property (callers skip empty values)."""
        self.loader.add("property", (revision_id, name, value, source.id, locator))

    def add_relation(
        self,
        kind: str,
        from_concept: int,
        to_concept: int,
        sequence: int,
        *,
        source: SourceFile,
        locator: str,
        from_revision: int | None = None,
        to_revision: int | None = None,
    ) -> None:
        """Insert a relation between concepts (and revisions, for IPC versions)."""
        self.loader.add(
            "relation",
            (
                kind,
                from_concept,
                to_concept,
                from_revision,
                to_revision,
                sequence,
                source.id,
                locator,
            ),
        )

    def next_in(self, counter: str) -> int:
        """The next value (from 1) of a running counter, for orders the source does not give."""
        value = self.state.counters.get(counter, 0) + 1
        self.state.counters[counter] = value
        return value

    def document(
        self,
        key: str,
        kind: str,
        language: str | None,
        title: str,
        *,
        source: SourceFile,
        locator: str,
    ) -> DocumentState:
        """The document under ``key``, inserted on first use."""
        state = self.state.documents.get(key)
        if state is None:
            document_id = self.loader.new_id("document")
            self.loader.add(
                "document", (document_id, key, kind, language, title, source.id, locator)
            )
            state = DocumentState(document_id)
            self.state.documents[key] = state
        return state

    def add_segment(
        self,
        document: DocumentState,
        heading: str | None,
        text_type: str | None,
        body: str,
        *,
        source: SourceFile,
        locator: str,
        page: int | None = None,
    ) -> None:
        """Append a segment (``document_text``) with the next dense sequence number."""
        self.loader.add(
            "document_text",
            (
                document.document_id,
                document.next_sequence,
                page,
                heading,
                text_type,
                body,
                source.id,
                locator,
            ),
        )
        document.next_sequence += 1

    def add_link(
        self,
        document: DocumentState,
        concept_id: int,
        role: str,
        source: SourceFile,
        locator: str,
    ) -> None:
        """Link a document to a concept once per (document, concept), in first-seen order."""
        if concept_id in document.mentions:
            return
        document.mentions.add(concept_id)
        self.loader.add(
            "document_link",
            (
                document.document_id,
                concept_id,
                role,
                len(document.mentions),
                source.id,
                locator,
            ),
        )


def _is_variant(text: str, canonical: str, fixed: str) -> bool:
    """True when a code cell is neither the layout's fixed-width form nor the canonical one,
    even with its spaces taken out (``G06F 3/00`` in an HTML table is ordinary): it needed
    one of the lenient readings (trailing zeros, full width, spaces for ``,`` and ``@``)."""
    cell = text.rstrip()
    return cell not in (canonical, fixed.rstrip()) and cell.replace(" ", "") != canonical
