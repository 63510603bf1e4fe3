"""HTML, XML and COPYRGHT edits behind :mod:`pmgs_testkit.variants`.

The pages another company's tools write differ in header wording, markup style, encoding and
in pages that hold no table at all, while the rows they list stay the same. Like
:mod:`~pmgs_testkit._variant_csv`, every function returns the paths it changed and
raises :class:`ValueError` when it found nothing to change.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Final

from pmgs_testkit._variant_csv import BOM, require

IPC_KAISEI: Final = "IPC_KAISEI"
ADD_CODE: Final = ("FTERM/ADD_CODE", "FTERM/ADD_CODE_E")
HTML_GROUPS: Final = (IPC_KAISEI, *ADD_CODE)

_HEADER_ROW: Final = re.compile(r"<tr>(?:<th>[^<]*</th>)+</tr>")
_FOOTER_ROW: Final = re.compile(r'<tr><td colspan="\d+">.*?</tr>(?:\r\n)?', re.DOTALL)
_KAISEI_ROW: Final = re.compile(
    r"<tr><td>([^<]*)</td><td>([^<]*)</td><td>([^<]*)</td><td>([^<]*)</td></tr>"
)
_SHIFT_JIS_META: Final = '<meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS">'


def html_files(root: Path, group: str) -> list[Path]:
    """The table pages of one HTML group."""
    return sorted((root / group).glob("*.html"))


def _encoding(data: bytes) -> str:
    """The generated pages declare their charset; IPC_KAISEI is Shift_JIS (CP932 bytes)."""
    return "cp932" if b"charset=Shift_JIS" in data[:400] else "utf-8"


def edit_html(root: Path, groups: tuple[str, ...], edit: Callable[[str], str]) -> list[Path]:
    """Apply a text edit to every page of the groups, keeping each page's encoding."""
    changed = []
    for group in groups:
        for path in html_files(root, group):
            data = path.read_bytes()
            encoding = _encoding(data)
            text = data.decode(encoding)
            if (new := edit(text)) != text:
                path.write_bytes(new.encode(encoding))
                changed.append(path)
    return require(changed, f"HTML pages of {', '.join(groups)}")


def header(words: tuple[str, ...], cell: str = "th") -> Callable[[str], str]:
    """Replace the header row of a table by one in other words (or other cell tags)."""
    row = "<tr>" + "".join(f"<{cell}>{word}</{cell}>" for word in words) + "</tr>"
    return lambda text: _HEADER_ROW.sub(row, text, count=1)


def headers_by_group(root: Path, words: dict[str, tuple[str, ...]]) -> list[Path]:
    """Per-group header wording (the ja and en ADD_CODE tables say different things)."""
    changed: list[Path] = []
    for group, group_words in words.items():
        changed += edit_html(root, (group,), header(group_words))
    return changed


def header_cells_td(text: str) -> str:
    """The header row written with ``<td>`` like every other row (no ``<th>`` at all)."""
    match = _HEADER_ROW.search(text)
    if match is None:
        return text
    row = match.group(0).replace("<th>", "<td>").replace("</th>", "</td>")
    return text[: match.start()] + row + text[match.end() :]


def two_column_kaisei(text: str) -> str:
    """IPC revision rows as two cells, each a code with its version: ``G06F 3/048 (2006.01)``.

    Fewer columns than ours, still unambiguous: the version is in parentheses, as in the
    IPC 8 CSVs.
    """
    text = header(("旧IPC", "新IPC"))(text)
    text = _KAISEI_ROW.sub(r"<tr><td>\1 (\2)</td><td>\3 (\4)</td></tr>", text)
    return text.replace('colspan="4"', 'colspan="2"')


def parenthesised_versions(text: str) -> str:
    """Versions as ``(2006.01)``, the spelling of the IPC 8 CSV files."""
    return _KAISEI_ROW.sub(r"<tr><td>\1</td><td>(\2)</td><td>\3</td><td>(\4)</td></tr>", text)


def compact_kaisei_codes(text: str) -> str:
    """IPC codes without the space after the subclass (``G06F3/048``)."""
    return _KAISEI_ROW.sub(
        lambda m: (
            "<tr>" + "".join(f"<td>{cell.replace(' ', '')}</td>" for cell in m.groups()) + "</tr>"
        ),
        text,
    )


def upper_case_markup(text: str) -> str:
    """``<TABLE BORDER="1">``, ``<TD COLSPAN="4">``: the markup of older HTML editors."""
    text = re.sub(r"(</?)([a-z]+)", lambda m: m.group(1) + m.group(2).upper(), text)
    return re.sub(r'(?<=\s)([a-z-]+)(?==")', lambda m: m.group(1).upper(), text)


def thead_tbody(text: str) -> str:
    """The header row inside ``<thead>``, the data rows inside ``<tbody>``."""
    match = _HEADER_ROW.search(text)
    if match is None:
        return text
    before, row, after = text[: match.start()], match.group(0), text[match.end() :]
    after = after.replace("</table>", "</tbody>\r\n</table>", 1)
    return f"{before}<thead>{row}</thead>\r\n<tbody>{after}"


def pretty_printed(text: str) -> str:
    """One cell per line, indented, with whitespace inside every cell around its text."""
    text = re.sub(r"<tr>", "\r\n  <tr>", text)
    text = re.sub(r"<(t[hd])([^>]*)>", r"\r\n    <\1\2>\r\n      ", text)
    text = re.sub(r"</(t[hd])>", r"\r\n    </\1>", text)
    return text.replace("</tr>", "\r\n  </tr>")


def no_footer(text: str) -> str:
    """Tables without the one-cell note row under the data."""
    return _FOOTER_ROW.sub("", text)


def utf8_page(root: Path, group: str) -> list[Path]:
    """A Shift_JIS page rewritten as UTF-8, declared with ``<meta charset="UTF-8">``."""
    changed = []
    for path in html_files(root, group):
        text = path.read_bytes().decode("cp932")
        if _SHIFT_JIS_META not in text:
            raise ValueError(f"{path.name}: no Shift_JIS declaration to replace")
        path.write_bytes(text.replace(_SHIFT_JIS_META, '<meta charset="UTF-8">').encode())
        changed.append(path)
    return require(changed, f"Shift_JIS pages of {group}")


def index_pages(root: Path) -> list[Path]:
    """An ``index.html`` listing the tables of its directory: a page with no table."""
    added = []
    for group in HTML_GROUPS:
        links = "".join(
            f'<li><a href="{page.name}">{page.stem}</a></li>\r\n'
            for page in html_files(root, group)
        )
        path = root / group / "index.html"
        path.write_bytes(
            (
                '<!DOCTYPE html>\r\n<html lang="ja">\r\n<head>\r\n<meta charset="UTF-8">\r\n'
                f"<title>{group} 一覧</title>\r\n</head>\r\n<body>\r\n<h1>{group}</h1>\r\n"
                f"<ul>\r\n{links}</ul>\r\n</body>\r\n</html>\r\n"
            ).encode()
        )
        added.append(path)
    return added


def utf8_xml(root: Path) -> list[Path]:
    """FI revision documents written as UTF-8 and declared so (not Shift_JIS)."""
    changed = []
    for path in sorted((root / "FI/FI_KAISEI_DOC").glob("*.xml")):
        text = path.read_bytes().decode("cp932")
        declaration = '<?xml version="1.0" encoding="Shift_JIS"?>'
        if not text.startswith(declaration):
            raise ValueError(f"{path.name}: no Shift_JIS declaration to replace")
        text = '<?xml version="1.0" encoding="UTF-8"?>' + text[len(declaration) :]
        path.write_bytes(text.encode())
        changed.append(path)
    return require(changed, "FI revision XML")


def _copyright_file(root: Path) -> Path:
    files = sorted(path for path in (root / "COPYRGHT").iterdir() if path.is_file())
    if len(files) != 1:
        raise ValueError(f"expected one COPYRGHT file, found {len(files)}")
    return files[0]


def copyright_bom(root: Path) -> list[Path]:
    """The attribution file as Windows Notepad saves it: BOM, CRLF."""
    path = _copyright_file(root)
    text = path.read_bytes().decode("utf-8").removeprefix(BOM)
    path.write_bytes((BOM + text.rstrip("\r\n") + "\r\n").encode())
    return [path]


def copyright_renamed(root: Path) -> list[Path]:
    """The attribution file without an extension, named like its directory."""
    path = _copyright_file(root)
    new = path.with_name("COPYRGHT")
    path.rename(new)
    return [new]
