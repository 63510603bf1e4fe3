"""What is known about a generated package: the tallies kept while writing, and the result.

Every count a correct build must reproduce is tallied as the rows are written (never
estimated afterwards), so :class:`ExpectedCounts` is exact. :class:`Tally` is the one place
those counters live; each group's writer adds to it, and :meth:`Tally.expected` turns it into
the frozen record the tests compare a build against.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from pmgs_testkit.documents import DocumentCounts
from pmgs_testkit.vocabulary import COMMON_PHRASE, TWO_CHAR_WORD

__all__ = ["ExpectedCounts", "GeneratedPackage", "Tally"]


@dataclass(frozen=True)
class ExpectedCounts:
    """What a correct build of the package must report, computed the way docs/database.md does.

    Keys ``(scheme, edition)`` use edition ``''`` for FI and F-term and ``4``, ``5``, ``6``,
    ``7``, ``7E``, ``8B``, ``8U`` for IPC.

    * ``canonical_concepts``: distinct codes defined by a code table: FI = rows of ``FI/FI``;
      F-term = themes (rows of ``THEME`` whose col 0 is a theme code) + viewpoints (number
      ``00`` rows) + terms; IPC = distinct codes of each edition's text files (for 8U several
      versions of one code are one concept).
    * ``reference_only``: distinct codes that only a relation or explanation names:
      ``(fterm, '')`` from ``FTERM_KAISETSU(_E)`` column 0, ``(ipc, '8U')`` from concordance
      right-hand codes, ``(fi, '')`` from concordance left-hand codes.
    * ``parents``: concepts that get a ``parent`` relation (FI and IPC: every row after the
      first row of lower level in its file, once per concept; F-term: viewpoints and terms).
    * ``texts``: text rows per data group (``FI/FI_TEXT``: one per record; ``THEME``: title
      plus non-empty remarks; ``FTERM``: label per record; IPC: one per record). English
      ``(Not Translated)`` cells are not texts and are counted in ``not_translated``.
    * ``texts_by_language``: the same summed over ja and en groups.
    * ``documents``: per document kind (``fi_handbook``: distinct (language, code) in the
      handbook files; ``fterm_explanation``: distinct (language, theme); ``judge``: 1).
    * ``document_segments``: segments per kind (one per record).
    * ``relations``: ``theme`` (``FI/FI_THEME`` records), ``concordance`` (records), ``parent``
      (sum of ``parents``).
    * ``warnings``: build warnings the package must cause, by issue code
      (``FTERM_TRANSLATION_DEPTH_MISMATCH``: en depth differs from ja;
      ``THEME_TRANSLATION_SEQUENCE_MISMATCH``: ``THEME_E`` col 1 differs from ``THEME``).
    * ``skipped_theme_rows``: rows of ``THEME`` / ``THEME_E`` whose col 0 is no theme.
    * ``repaired_rows``: records with unquoted commas (extra columns) per group.
    * ``not_translated``: ``(Not Translated)`` English cells per group.
    * ``ipc8u_revisions``: (code, version) pairs of ``IPC8U_TEXT``;
      ``ipc8u_several_versions``: codes with more than one version;
      ``ipc8u_without_valid_revision``: codes none of whose versions is valid on the reference
      date (a lookup without a version must say "not valid at release").
    * ``document_groups``: ``None`` unless the package was written ``with_documents``; then the
      counts of the XML/HTML/PDF groups (:class:`~pmgs_testkit.DocumentCounts`), and the
      fields above include them: ``documents`` / ``document_segments`` get ``fi_revision``
      (XML files / ``infor`` elements), ``fterm_additional_code`` (ADD_CODE(_E) files / table
      data rows), ``ipc_revision`` (IPC_KAISEI files / data rows), ``ipc_definition`` (PDFs /
      pages *with* text: a page without text is a warning, not a segment, and the other pages
      keep their page numbers); ``relations['amended_to']`` = non-empty ``<trans>`` + IPC_KAISEI
      rows; ``reference_only[('fi', '')]`` adds the deleted FI codes named only by revision
      XML; ``warnings`` gets ``HTML_RECOVERY_USED`` (files), ``PDF_EMPTY_PAGE`` (pages) and
      ``XML_CP932_FALLBACK`` (the one CP932-only XML file, with quirks).
    """

    canonical_concepts: dict[tuple[str, str], int]
    reference_only: dict[tuple[str, str], int]
    parents: dict[tuple[str, str], int]
    texts: dict[str, int]
    texts_by_language: dict[str, int]
    documents: dict[str, int]
    document_segments: dict[str, int]
    relations: dict[str, int]
    warnings: dict[str, int]
    skipped_theme_rows: dict[str, int]
    repaired_rows: dict[str, int]
    not_translated: dict[str, int]
    ipc8u_revisions: int
    ipc8u_several_versions: int
    ipc8u_without_valid_revision: int
    document_groups: DocumentCounts | None = None


@dataclass(frozen=True)
class GeneratedPackage:
    """A package written by :func:`generate_package` and what is known about it."""

    path: Path
    """The release directory (``parent_dir/<release>``)."""
    release: str
    reference_date: date
    scale: float
    seed: int
    with_quirks: bool
    files: dict[str, int]
    """Files per data group (``DATA_GROUPS`` names, plus ``DOCUMENT_GROUPS`` when written
    ``with_documents``: there ``rows`` counts ``infor`` elements, HTML table data rows and PDF
    pages, and the ``.xsl`` counts as a file with no rows)."""
    rows: dict[str, int]
    """Logical records per data group. **No CSV of the package has a header row** (none is
    documented for the real files), so every record is data and ``rows`` equals what a CSV
    reader returns; a record with a quoted multi-line cell counts once, a record with unquoted
    extra commas counts once. ``COPYRGHT`` counts its one line."""
    expected: ExpectedCounts
    """See :class:`ExpectedCounts`."""
    examples: dict[str, str]
    """Named codes and strings worth asserting on (canonical notation), e.g.
    ``ipc_two_versions_old_expired``, ``ipc_no_valid_revision``,
    ``fi_with_development_code_and_file_symbol``, ``fterm_large_theme``,
    ``fterm_reference_only``, ``concordance_reference_only``, ``injected_instruction_text``
    (the hostile text itself; its document key is ``injected_instruction_document`` and its
    code ``injected_instruction_code``), ``two_char_word``, ``common_phrase``."""
    bom_files: tuple[str, ...] = field(default=())


_DOCUMENT_WARNINGS = ("HTML_RECOVERY_USED", "PDF_EMPTY_PAGE", "XML_CP932_FALLBACK")
"""Warnings only a package with the document groups causes (and so only then expected)."""


class Tally:
    """The counters behind :class:`ExpectedCounts`, filled by every group's writer."""

    def __init__(self) -> None:
        self.texts: Counter[str] = Counter()
        self.not_translated: Counter[str] = Counter()
        self.concepts: Counter[tuple[str, str]] = Counter()
        self.parents: Counter[tuple[str, str]] = Counter()
        self.reference_only: Counter[tuple[str, str]] = Counter()
        self.documents: Counter[str] = Counter()
        self.segments: Counter[str] = Counter()
        self.warnings: Counter[str] = Counter()
        self.repaired: Counter[str] = Counter()
        self.skipped_theme_rows: Counter[str] = Counter()
        self.relations: Counter[str] = Counter()
        self.ipc8u_revisions = 0
        self.ipc8u_multi = 0
        self.ipc8u_no_valid = 0
        self.newline_cells = 0
        self.examples: dict[str, str] = {
            "two_char_word": TWO_CHAR_WORD,
            "common_phrase": COMMON_PHRASE,
        }

    def example(self, name: str, value: str) -> None:
        """Name ``value`` as example ``name`` unless an earlier row already did."""
        self.examples.setdefault(name, value)

    def add_documents(
        self, counts: DocumentCounts, additional_code_files: int, examples: dict[str, str]
    ) -> None:
        """Fold the XML, HTML and PDF groups' counts in (they are written after the CSVs)."""
        self.documents["fi_revision"] = counts.fi_revision_files
        self.segments["fi_revision"] = counts.fi_revision_entries
        self.documents["fterm_additional_code"] = additional_code_files
        self.segments["fterm_additional_code"] = sum(counts.additional_code_rows.values())
        self.documents["ipc_revision"] = counts.ipc_revision_files
        self.segments["ipc_revision"] = counts.ipc_revision_edges
        self.documents["ipc_definition"] = counts.pdf_files
        self.segments["ipc_definition"] = counts.pdf_pages - counts.pdf_empty_pages
        self.relations["amended_to"] = counts.fi_revision_amended_to + counts.ipc_revision_edges
        self.reference_only[("fi", "")] += counts.fi_revision_historical_codes
        self.warnings["HTML_RECOVERY_USED"] = len(counts.html_recovery_files)
        self.warnings["PDF_EMPTY_PAGE"] = counts.pdf_empty_pages
        self.warnings["XML_CP932_FALLBACK"] = counts.cp932_files
        for name, value in examples.items():
            self.example(name, value)

    def expected(self, document_groups: DocumentCounts | None) -> ExpectedCounts:
        """The counts a build must report, given the document groups' counts if written."""
        texts = dict(self.texts)
        by_language: Counter[str] = Counter()
        for group, count in texts.items():
            english = group.endswith("_E") or group == "IPC/IPC7E_TEXT"
            by_language["en" if english else "ja"] += count
        relations = dict(self.relations)
        relations["parent"] = sum(self.parents.values())
        warned = (
            "FTERM_TRANSLATION_DEPTH_MISMATCH",
            "THEME_TRANSLATION_SEQUENCE_MISMATCH",
            *(() if document_groups is None else _DOCUMENT_WARNINGS),
        )
        return ExpectedCounts(
            canonical_concepts=dict(self.concepts),
            reference_only=dict(self.reference_only),
            parents=dict(self.parents),
            texts=texts,
            texts_by_language=dict(by_language),
            documents=dict(self.documents),
            document_segments=dict(self.segments),
            relations=relations,
            warnings={code: self.warnings[code] for code in warned},
            skipped_theme_rows=dict(self.skipped_theme_rows),
            repaired_rows={
                "FTERM/FTERM_E": self.repaired["FTERM/FTERM_E"],
                "FI/FI_KAISEI_LINK": self.repaired["FI/FI_KAISEI_LINK"],
            },
            not_translated=dict(self.not_translated),
            ipc8u_revisions=self.ipc8u_revisions,
            ipc8u_several_versions=self.ipc8u_multi,
            ipc8u_without_valid_revision=self.ipc8u_no_valid,
            document_groups=document_groups,
        )
