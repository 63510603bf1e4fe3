"""The HTML table page shared by the IPC_KAISEI and ADD_CODE(_E) writers, with its defect."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from pmgs_testkit._output import LINE_END

__all__ = ["html_page", "needs_recovery"]


def html_page(
    *,
    charset_meta: str,
    title: str,
    header: Sequence[str],
    rows: Sequence[Sequence[str]],
    footer: str,
    needs_recovery: bool,
) -> str:
    """One HTML table page. ``needs_recovery`` leaves the footer's ``<font>`` unclosed, the
    defect of the real files that makes libxml2 log an error and recover."""
    lines = [
        '<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01 Transitional//EN">',
        '<html lang="ja">',
        "<head>",
        charset_meta,
        f"<title>{escape(title)}</title>",
        "</head>",
        "<body>",
        '<table border="1" cellspacing="0" cellpadding="2">',
        "<tr>" + "".join(f"<th>{escape(cell)}</th>" for cell in header) + "</tr>",
    ]
    lines.extend("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in rows)
    close = "" if needs_recovery else "</font>"
    lines.append(
        f'<tr><td colspan="{len(header)}"><font size="2">{escape(footer)}{close}</td></tr>'
    )
    lines += ["</table>", "</body>", "</html>"]
    return LINE_END.join(lines) + LINE_END


def needs_recovery(with_quirks: bool, group: str, index: int, files: int) -> bool:
    """Which HTML files carry the unclosed ``<font>`` (only with quirks).

    IPC_KAISEI: every file but the last (a single file: that one); ADD_CODE(_E): the
    second file (a single file: ADD_CODE_E's only). So each group has a clean file to
    compare against whenever it has two, and the count is fixed by the file counts.
    """
    if not with_quirks:
        return False
    if group == "IPC_KAISEI":
        return files == 1 or index < files - 1
    if files == 1:
        return group == "FTERM/ADD_CODE_E"
    return index == 1
