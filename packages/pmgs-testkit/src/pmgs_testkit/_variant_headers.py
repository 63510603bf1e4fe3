"""Header rows a writer could put above the records of each CSV group (Japanese or English).

The real files have none; the ``csv_header_row_ja`` / ``_en`` variants of
:mod:`pmgs_testkit.variants` add one per file, worded here from the column meanings of
``docs/pmgs-source-format.md``, so the builder must recognise a header by its shape.
"""

from __future__ import annotations

from typing import Final

__all__ = ["HEADERS", "header_words"]

# Header words per CSV data group (Japanese, English), one per column of the format.
HEADERS: Final[dict[str, tuple[tuple[str, ...], tuple[str, ...]]]] = {
    "CONCORDANCE": (
        ("変換元種別", "変換元分類", "変換先種別", "変換先分類"),
        ("From scheme", "From code", "To scheme", "To code"),
    ),
    "FI/FI": (
        ("FI", "表示順", "マーク", "状態", "階層"),
        ("FI", "Sequence", "Marker", "Status", "Level"),
    ),
    "FI/FI_TEXT": (
        ("FI", "行番号", "テキスト種別", "フラグ1", "フラグ2", "フラグ3", "タイトル"),
        ("FI", "Line", "Text type", "Flag 1", "Flag 2", "Flag 3", "Title"),
    ),
    "FI/FI_HB": (
        ("FI", "行番号", "テキスト種別", "フラグ", "ハンドブック"),
        ("FI", "Sequence", "Text type", "Flag", "Handbook text"),
    ),
    "FI/FI_THEME": (
        ("FI", "表示順", "テーマグループ", "テーマ番号", "フラグ"),
        ("FI", "Sequence", "Theme group", "Theme number", "Flag"),
    ),
    "FI/FI_KAISEI_LINK": (("FI", "改正情報"), ("FI", "Revision")),
    "FTERM/THEME": (
        (
            "テーマコード",
            "表示順",
            "テーマグループ",
            "フラグ",
            "ソート番号",
            "FI範囲",
            "テーマ名",
            "備考",
        ),
        (
            "Theme code",
            "Sequence",
            "Theme group",
            "Flag",
            "Sort",
            "FI coverage",
            "Title",
            "Remarks",
        ),
    ),
    "FTERM/FTERM": (
        ("Fターム", "表示順", "ドット数", "タイトル", "FI範囲"),
        ("F-term", "Sequence", "Depth", "Label", "FI coverage"),
    ),
    "FTERM/FTERM_KAISETSU": (
        ("コード", "表示順", "テキスト種別", "解説"),
        ("Code", "Sequence", "Text type", "Explanation"),
    ),
    "IPC/IPC_OLD": (
        ("IPC", "行番号", "テキスト種別", "階層", "フラグ", "タイトル"),
        ("IPC", "Line", "Text type", "Level", "Flag", "Title"),
    ),
    "IPC/IPC8B_TEXT": (
        (
            "IPC",
            "版",
            "行番号",
            "テキスト種別",
            "階層",
            "フラグ1",
            "フラグ2",
            "フラグ3",
            "タイトル",
        ),
        ("IPC", "Version", "Line", "Text type", "Level", "Flag 1", "Flag 2", "Flag 3", "Title"),
    ),
    "IPC/IPC8U_TEXT": (
        ("IPC", "版", "行番号", "種別", "階層", "F1", "F2", "開始日", "終了日", "F3", "タイトル"),
        ("IPC", "Version", "Line", "Type", "Level", "F1", "F2", "From", "To", "F3", "Title"),
    ),
    "JUDGE": (("区分", "名称"), ("Key", "Label")),
}


def header_words(group: str, *, english: bool) -> tuple[str, ...]:
    """The column names of a data group: ``_E`` groups share the Japanese group's columns, the
    older IPC editions (4 to 7E) one set."""
    if group.startswith("IPC/IPC") and group[7] in "4567":
        key = "IPC/IPC_OLD"
    else:
        key = group.removesuffix("_E")
    return HEADERS[key][english]
