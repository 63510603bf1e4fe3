"""The adapter registry: which parser reads which data group, and in which order.

One module per data group (ja and en files of a group share theirs). ``ADAPTERS`` maps a
data group to its :class:`~pmgs_build.source.parsers.base.Adapter`; a file of no adapter's group is
inventoried and retained unparsed.
Phases run in ascending order so that every reference can be checked against the code
tables: code tables, then texts and translations, then relations, then documents.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Final

from pmgs_build.source.files import SourceFile
from pmgs_build.source.parsers.additional_code import additional_code_parser
from pmgs_build.source.parsers.base import Adapter, BuildContext, FileResult
from pmgs_build.source.parsers.concordance import parse_concordance
from pmgs_build.source.parsers.copyright import parse_copyright
from pmgs_build.source.parsers.fi_codes import parse_fi_codes
from pmgs_build.source.parsers.fi_handbook import fi_handbook_parser
from pmgs_build.source.parsers.fi_revision import parse_fi_revision
from pmgs_build.source.parsers.fi_revision_link import parse_fi_revision_link
from pmgs_build.source.parsers.fi_text import fi_text_parser
from pmgs_build.source.parsers.fi_theme import parse_fi_theme
from pmgs_build.source.parsers.fterm import parse_fterm_en, parse_fterm_ja
from pmgs_build.source.parsers.fterm_explanation import fterm_explanation_parser
from pmgs_build.source.parsers.fterm_theme import parse_theme_en, parse_theme_ja
from pmgs_build.source.parsers.ipc import EDITIONS, check_ipc_validity, ipc_parser
from pmgs_build.source.parsers.ipc_definition import parse_ipc_definition, parse_ipc_definitions
from pmgs_build.source.parsers.ipc_revision import parse_ipc_revision
from pmgs_build.source.parsers.judge import parse_judge
from pmgs_core import IPC_EDITIONS

__all__ = ["ADAPTERS", "Adapter", "BuildContext", "FileResult", "check_ipc_validity"]

_CSV: Final = ".csv"
_HTML: Final = ".html"


def _ja_and_en(
    name: str,
    group: str,
    phase: int,
    suffix: str,
    parser_for: Callable[[str], Callable[[BuildContext, SourceFile], FileResult]],
) -> tuple[Adapter, Adapter]:
    """The adapters of a group read alike in both languages: the Japanese files in
    ``group`` at ``phase``, the English ones in ``group + "_E"`` right after them."""
    return (
        Adapter(f"{name}_ja", group, phase, suffix, parser_for("ja")),
        Adapter(f"{name}_en", f"{group}_E", phase + 1, suffix, parser_for("en")),
    )


_LIST: Final = (
    Adapter("copyright", "COPYRGHT", 1, "", parse_copyright),
    Adapter("fi_codes", "FI/FI", 10, _CSV, parse_fi_codes),
    Adapter("fterm_themes", "FTERM/THEME", 11, _CSV, parse_theme_ja),
    Adapter("fterm_terms", "FTERM/FTERM", 12, _CSV, parse_fterm_ja),
    *(
        Adapter(f"ipc{layout.edition}_texts", group, 13 + offset, _CSV, ipc_parser(layout))
        for offset, (group, layout) in enumerate(
            sorted(EDITIONS.items(), key=lambda item: IPC_EDITIONS.index(item[1].edition))
        )
    ),
    *_ja_and_en("fi_texts", "FI/FI_TEXT", 20, _CSV, fi_text_parser),
    Adapter("fterm_themes_en", "FTERM/THEME_E", 22, _CSV, parse_theme_en),
    Adapter("fterm_terms_en", "FTERM/FTERM_E", 23, _CSV, parse_fterm_en),
    Adapter("fi_themes", "FI/FI_THEME", 30, _CSV, parse_fi_theme),
    Adapter("concordance", "CONCORDANCE", 31, _CSV, parse_concordance),
    Adapter("fi_revisions", "FI/FI_KAISEI_DOC", 32, ".xml", parse_fi_revision, (".xsl",)),
    Adapter("fi_revision_links", "FI/FI_KAISEI_LINK", 33, _CSV, parse_fi_revision_link),
    Adapter("ipc_revisions", "IPC_KAISEI", 34, _HTML, parse_ipc_revision),
    *_ja_and_en("fi_handbook", "FI/FI_HB", 40, _CSV, fi_handbook_parser),
    *_ja_and_en("fterm_explanations", "FTERM/FTERM_KAISETSU", 42, _CSV, fterm_explanation_parser),
    Adapter("judge", "JUDGE", 44, _CSV, parse_judge),
    *_ja_and_en("fterm_additional_codes", "FTERM/ADD_CODE", 45, _HTML, additional_code_parser),
    Adapter(
        "ipc_definitions",
        "REFERENCE/IPC_TEIGI",
        47,
        ".pdf",
        parse_ipc_definition,
        parse_group=parse_ipc_definitions,
    ),
)

ADAPTERS: Final[Mapping[str, Adapter]] = MappingProxyType(
    {adapter.data_group: adapter for adapter in sorted(_LIST, key=lambda a: a.phase)}
)
"""Data group → adapter, in phase order."""
