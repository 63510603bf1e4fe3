"""The XML, HTML and PDF groups of a synthetic package (``with_documents=True``).

:class:`DocumentWriter` feeds the document writers of :mod:`pmgs_testkit.writers` from
the CSV writer's single pass over each section tree, so it streams; its random choices come
from streams named after the file or code, so switching documents on leaves every CSV
byte-identical. What each group holds and why: docs/synthetic-packages.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from pmgs_core import ClassificationCode
from pmgs_testkit._output import Output
from pmgs_testkit.catalog import DOCUMENT_GROUPS, REAL_DOCUMENT_FILES
from pmgs_testkit.plan import Plan, subclasses_for
from pmgs_testkit.writers.additional_code import (
    ADD_CODE_HEADER,
    ADD_CODE_HEADER_E,
    write_additional_codes,
)
from pmgs_testkit.writers.fi_revision import (
    CP932_ONLY_TEXT,
    FI_REVISION_STYLESHEET,
    FiRevisions,
)
from pmgs_testkit.writers.ipc_definition import IpcDefinitions
from pmgs_testkit.writers.ipc_revision import IPC_KAISEI_HEADER, IpcRevisions

__all__ = [
    "ADD_CODE_HEADER",
    "ADD_CODE_HEADER_E",
    "CP932_ONLY_TEXT",
    "DOCUMENT_GROUPS",
    "FI_REVISION_STYLESHEET",
    "IPC_KAISEI_HEADER",
    "REAL_DOCUMENT_FILES",
    "DocumentCounts",
    "DocumentWriter",
]

_REAL_INFOR: Final = 110_590
"""``infor`` elements of the real release's revision XML (scaled per subclass)."""


@dataclass(frozen=True)
class DocumentCounts:
    """What was written to the document groups, for :class:`ExpectedCounts`.

    * ``fi_revision_files`` / ``fi_revision_entries``: XML files and their ``infor`` elements;
      ``fi_revision_historical_codes``: distinct ``<FI>`` codes that ``FI/FI`` lacks
      (reference-only); ``fi_revision_amended_to``: ``infor`` with a non-empty ``<trans>``;
      ``cp932_files``: XML files that only decode as CP932 (0 or 1); ``stylesheet_files``: 1.
    * ``additional_code_rows``: table data rows per ADD_CODE group (header/footer excluded).
    * ``ipc_revision_files`` / ``ipc_revision_edges``: IPC_KAISEI files and data rows.
    * ``html_files``: all HTML files; ``html_recovery_files``: relative paths of those that
      need the HTML parser's recovery mode.
    * ``pdf_files``, ``pdf_pages``, ``pdf_empty_pages`` (no extractable text), ``pdf_chars``
      (non-whitespace characters of all pages); ``pdf_page_chars``: file name -> characters per
      page (0 = a page without text), so a test can check any single file.
    """

    fi_revision_files: int
    fi_revision_entries: int
    fi_revision_historical_codes: int
    fi_revision_amended_to: int
    cp932_files: int
    stylesheet_files: int
    additional_code_rows: dict[str, int]
    ipc_revision_files: int
    ipc_revision_edges: int
    html_files: int
    html_recovery_files: tuple[str, ...]
    pdf_files: int
    pdf_pages: int
    pdf_empty_pages: int
    pdf_chars: int
    pdf_page_chars: dict[str, tuple[int, ...]]


class DocumentWriter:
    """Writes the document groups of one package and tallies them.

    Random streams come from the plan, named after the file or code they concern. The CSV
    writer calls :meth:`fi_subclass` once per FI subclass and :meth:`ipc_code` once per IPC
    code, in tree order, and :meth:`finish` at the end.
    """

    def __init__(self, out: Output, plan: Plan, *, cp932_subclass: str) -> None:
        self.out = out
        self.plan = plan
        self.examples: dict[str, str] = {}
        self.recovery_files: list[str] = []
        self.additional_code_rows = dict.fromkeys(("FTERM/ADD_CODE", "FTERM/ADD_CODE_E"), 0)
        subclasses = sum(subclasses_for(budget) for budget in plan.section_budget.values())
        self.fi_revisions = FiRevisions(
            out,
            plan,
            self.examples,
            infor_mean=max(4.0, _REAL_INFOR * plan.scale / max(1, subclasses)),
            cp932_subclass=cp932_subclass if plan.with_quirks else "",
        )
        self.ipc_revisions = IpcRevisions(self.examples)
        self.definitions = IpcDefinitions(out, plan, self.examples)

    def fi_subclass(
        self,
        subclass: ClassificationCode,
        fi_codes: Sequence[ClassificationCode],
        links: Sequence[ClassificationCode],
    ) -> None:
        """Write the revision XML of one FI subclass (see :class:`FiRevisions`)."""
        self.fi_revisions.subclass(subclass, fi_codes, links)

    def ipc_code(self, code: ClassificationCode, revisions: Sequence[tuple[str, str, str]]) -> None:
        """Take one IPC 8U code with its ``(version, valid_from, valid_to)`` revisions: its
        revision edges, and its definition PDF if it gets one."""
        self.ipc_revisions.code(code, revisions)
        if self.definitions.wants(code):
            current = revisions[-1] if revisions[-1][2] == "99991231" else None
            self.definitions.write(code, (current or revisions[-1])[0])

    def finish(self) -> None:
        """Write what needs the whole pass: stylesheet, IPC revision tables, additional codes."""
        self.fi_revisions.stylesheet()
        self.ipc_revisions.write(self.out, self.plan, self.recovery_files)
        self.additional_code_rows = write_additional_codes(
            self.out, self.plan, self.examples, self.recovery_files
        )

    def counts(self) -> DocumentCounts:
        """What has been written so far (complete after :meth:`finish`)."""
        fi, ipc, pdf = self.fi_revisions, self.ipc_revisions, self.definitions
        return DocumentCounts(
            fi_revision_files=fi.files,
            fi_revision_entries=fi.entries,
            fi_revision_historical_codes=len(fi.historical),
            fi_revision_amended_to=fi.amended_to,
            cp932_files=fi.cp932_files,
            stylesheet_files=1,
            additional_code_rows=dict(self.additional_code_rows),
            ipc_revision_files=ipc.files,
            ipc_revision_edges=ipc.rows,
            html_files=self.out.files["IPC_KAISEI"]
            + self.out.files["FTERM/ADD_CODE"]
            + self.out.files["FTERM/ADD_CODE_E"],
            html_recovery_files=tuple(sorted(self.recovery_files)),
            pdf_files=pdf.files,
            pdf_pages=pdf.pages,
            pdf_empty_pages=pdf.empty_pages,
            pdf_chars=pdf.chars,
            pdf_page_chars=dict(sorted(pdf.page_chars.items())),
        )
