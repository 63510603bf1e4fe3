"""The data groups of a PMGS package: which folders hold which kind of file
(docs/pmgs-source-format.md). The inventory names files by them; finding the release looks
for their folders."""

from __future__ import annotations

from typing import Final

__all__ = ["CLASSIFICATION_GROUPS", "CSV_GROUPS", "DOCUMENT_GROUPS", "KNOWN_GROUPS"]

CSV_GROUPS: Final = (
    "CONCORDANCE",
    "FI/FI",
    "FI/FI_HB",
    "FI/FI_HB_E",
    "FI/FI_KAISEI_LINK",
    "FI/FI_TEXT",
    "FI/FI_TEXT_E",
    "FI/FI_THEME",
    "FTERM/FTERM",
    "FTERM/FTERM_E",
    "FTERM/FTERM_KAISETSU",
    "FTERM/FTERM_KAISETSU_E",
    "FTERM/THEME",
    "FTERM/THEME_E",
    "IPC/IPC4_TEXT",
    "IPC/IPC5_TEXT",
    "IPC/IPC6_TEXT",
    "IPC/IPC7E_TEXT",
    "IPC/IPC7_TEXT",
    "IPC/IPC8B_TEXT",
    "IPC/IPC8U_TEXT",
    "JUDGE",
)
"""Data groups whose files are CSV (``docs/pmgs-source-format.md``)."""

DOCUMENT_GROUPS: Final = (
    "FI/FI_KAISEI_DOC",
    "FTERM/ADD_CODE",
    "FTERM/ADD_CODE_E",
    "IPC_KAISEI",
    "REFERENCE/IPC_TEIGI",
)
"""XML, HTML and PDF groups. Unlike the CSV groups, their absence is not warned about: they
add documents and revision edges to the code tables, and a package without them (an older
release, a partial download the user chose) still answers every code question."""

KNOWN_GROUPS: Final = (*CSV_GROUPS, *DOCUMENT_GROUPS, "COPYRGHT")

CLASSIFICATION_GROUPS: Final = frozenset(
    {
        "FI/FI",
        "FI/FI_TEXT",
        "FI/FI_TEXT_E",
        "FTERM/THEME",
        "FTERM/THEME_E",
        "FTERM/FTERM",
        "FTERM/FTERM_E",
        *(g for g in CSV_GROUPS if g.startswith("IPC/")),
    }
)
"""The code/text CSVs whose ``_YYYYMMDD`` names carry the reference date (and only these:
handbooks, explanations and concordances may be dated differently)."""
