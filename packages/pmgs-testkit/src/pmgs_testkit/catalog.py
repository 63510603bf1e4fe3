"""The data groups of a generated package and the real release's sizes they scale from.

Kept apart from the writers so that a test, the plan and the expectations can name groups,
column counts and real sizes without importing the code that writes them.
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "CSV_COLUMNS",
    "DATA_GROUPS",
    "DOCUMENT_GROUPS",
    "NOT_TRANSLATED",
    "REAL_DOCUMENT_FILES",
    "REAL_FILES",
    "REAL_ROWS",
]

NOT_TRANSLATED: Final = "(Not Translated)"

DOCUMENT_GROUPS: Final = (
    "FI/FI_KAISEI_DOC",
    "FTERM/ADD_CODE",
    "FTERM/ADD_CODE_E",
    "IPC_KAISEI",
    "REFERENCE/IPC_TEIGI",
)
"""The XML, HTML and PDF groups (docs/pmgs-source-format.md), written only when documents are
asked for. Listed here from the format document, not taken from the builder, so that a group
the builder forgets is a difference the tests see."""

DATA_GROUPS: Final = (
    "CONCORDANCE",
    "FI/FI",
    "FI/FI_TEXT",
    "FI/FI_TEXT_E",
    "FI/FI_HB",
    "FI/FI_HB_E",
    "FI/FI_THEME",
    "FI/FI_KAISEI_LINK",
    "FTERM/THEME",
    "FTERM/THEME_E",
    "FTERM/FTERM",
    "FTERM/FTERM_E",
    "FTERM/FTERM_KAISETSU",
    "FTERM/FTERM_KAISETSU_E",
    "IPC/IPC4_TEXT",
    "IPC/IPC5_TEXT",
    "IPC/IPC6_TEXT",
    "IPC/IPC7_TEXT",
    "IPC/IPC7E_TEXT",
    "IPC/IPC8B_TEXT",
    "IPC/IPC8U_TEXT",
    "JUDGE",
    "COPYRGHT",
)
"""The data groups always written (CSV and COPYRGHT), as relative directories. The XML, HTML
and PDF groups (:data:`~pmgs_testkit.DOCUMENT_GROUPS`: ``FI/FI_KAISEI_DOC``,
``FTERM/ADD_CODE(_E)``, ``IPC_KAISEI``, ``REFERENCE/IPC_TEIGI``) are added by
``generate_package(..., with_documents=True)``."""

CSV_COLUMNS: Final[dict[str, int]] = {
    "CONCORDANCE": 4,
    "FI/FI": 5,
    "FI/FI_TEXT": 7,
    "FI/FI_TEXT_E": 7,
    "FI/FI_HB": 5,
    "FI/FI_HB_E": 5,
    "FI/FI_THEME": 5,
    "FI/FI_KAISEI_LINK": 2,
    "FTERM/THEME": 8,
    "FTERM/THEME_E": 8,
    "FTERM/FTERM": 5,
    "FTERM/FTERM_E": 5,
    "FTERM/FTERM_KAISETSU": 4,
    "FTERM/FTERM_KAISETSU_E": 4,
    "IPC/IPC4_TEXT": 6,
    "IPC/IPC5_TEXT": 6,
    "IPC/IPC6_TEXT": 6,
    "IPC/IPC7_TEXT": 6,
    "IPC/IPC7E_TEXT": 6,
    "IPC/IPC8B_TEXT": 9,
    "IPC/IPC8U_TEXT": 11,
    "JUDGE": 2,
}
"""Columns per record of each CSV group (the repaired rows of ``FTERM/FTERM_E`` and
``FI/FI_KAISEI_LINK`` have more before repair)."""

REAL_ROWS: Final[dict[str, int]] = {
    "CONCORDANCE": 500_577,
    "FI/FI": 190_384,
    "FI/FI_TEXT": 192_688,
    "FI/FI_TEXT_E": 192_827,
    "FI/FI_HB": 323_264,
    "FI/FI_HB_E": 323_364,
    "FI/FI_THEME": 187_597,
    "FI/FI_KAISEI_LINK": 636,
    "FTERM/THEME": 2_973,
    "FTERM/THEME_E": 2_973,
    "FTERM/FTERM": 411_383,
    "FTERM/FTERM_E": 411_383,
    "FTERM/FTERM_KAISETSU": 506_558,
    "FTERM/FTERM_KAISETSU_E": 507_014,
    # The format page gives "71-80 k each" for the older editions; these are picks in range.
    "IPC/IPC4_TEXT": 71_204,
    "IPC/IPC5_TEXT": 73_511,
    "IPC/IPC6_TEXT": 75_862,
    "IPC/IPC7_TEXT": 77_930,
    "IPC/IPC7E_TEXT": 79_648,
    "IPC/IPC8B_TEXT": 71_516,
    "IPC/IPC8U_TEXT": 86_497,
    "JUDGE": 92,
}
"""Logical rows per group of the real release (the targets of ``scale=1.0``)."""

REAL_FILES: Final[dict[str, int]] = {
    "CONCORDANCE": 17,
    "FI/FI": 9,
    "FI/FI_TEXT": 9,
    "FI/FI_TEXT_E": 9,
    "FI/FI_HB": 8,
    "FI/FI_HB_E": 8,
    "FI/FI_THEME": 8,
    "FI/FI_KAISEI_LINK": 8,
    "FTERM/THEME": 1,
    "FTERM/THEME_E": 1,
    "FTERM/FTERM": 41,
    "FTERM/FTERM_E": 41,
    "FTERM/FTERM_KAISETSU": 40,
    "FTERM/FTERM_KAISETSU_E": 40,
    "IPC/IPC4_TEXT": 8,
    "IPC/IPC5_TEXT": 8,
    "IPC/IPC6_TEXT": 8,
    "IPC/IPC7_TEXT": 8,
    "IPC/IPC7E_TEXT": 8,
    "IPC/IPC8B_TEXT": 8,
    "IPC/IPC8U_TEXT": 8,
    "JUDGE": 1,
    "COPYRGHT": 1,
}
"""Files per group of the real release; reproduced at every scale except the F-term groups,
which have one file per theme group and so fewer files when there are fewer than 41 themes."""

# DOCUMENT_GROUPS (the XML, HTML and PDF data groups, written only when documents are asked
# for) is the builder's own tuple: the generator writes exactly the groups the build reads.

REAL_DOCUMENT_FILES: Final[dict[str, int]] = {
    "FI/FI_KAISEI_DOC": 639,
    "FTERM/ADD_CODE": 2,
    "FTERM/ADD_CODE_E": 2,
    "IPC_KAISEI": 23,
    "REFERENCE/IPC_TEIGI": 5_906,
}
"""Files per document group of the real release (``FI_KAISEI_DOC``: 638 XML + 1 XSL)."""
