"""Hand-written fragments of the three readers (HTML table, CSV, XML), each with its exact
stored text (issue 22).

The expected texts below were written by hand from docs/pmgs-source-format.md and the
readers' documented rules (a cell's whitespace runs become one space, ``<br>`` separates
words like a space, entities are decoded, a quoted CSV cell keeps its newlines, commas and
quotes verbatim, an XML field is stripped at its ends only). They are not computed by the
code under test: the package is built for real and the stored rows are read back with SQL.

Every fragment lives in one copy of the embedded sample, built once; the first test checks
every fragment of that build at once, so that a mutation anywhere in a reader meets a test
that looks at its output (mutmut attributes a module-scoped build to the first test only).
"""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from pmgs_build import BuildReport, build_database
from pmgs_build.sample import sample_package_path

_THEME = "2D673"
"""A theme of the sample's FTERM/THEME."""

# -- HTML: FTERM/ADD_CODE/addCode_1.html -------------------------------------------------------

_HTML_PAGE = (
    '<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01 Transitional//EN">\r\n'
    '<html lang="ja"><head><meta charset="UTF-8"><title>t</title></head><body>\r\n'
    '<table border="1">\r\n'
    "<thead><tr><th>テーマコード</th><th>付加コード</th><th>説明</th></tr></thead>\r\n"
    "<tbody>\r\n"
    f"<tr><td>{_THEME}</td><td>ZA01</td><td>of<br/>door</td></tr>\r\n"
    f"<tr><td>{_THEME}</td><td>ZA02</td>"
    "<td>A&amp;B &lt;x&gt; &quot;q&quot; &#x5B57;&#23383;</td></tr>\r\n"
    f"<tr><td>{_THEME}</td><td>ZA03</td>"
    "<td><b>bold <i>deep</i></b> tail<span>glued</span></td></tr>\r\n"
    f"<tr><td>{_THEME}</td><td>ZA04</td><td>  many \r\n\t  spaces&nbsp;&nbsp;here  </td></tr>\r\n"
    f"<tr><td> {_THEME} </td><td>ZA05</td><td>line<br>one<br />two<BR>three</td></tr>\r\n"
    f"<tr><td>{_THEME}</td><td><font color=red>ZA06</font></td>"
    "<td>x<script>alert(1)</script>y<style>p{}</style>z</td></tr>\r\n"
    f"<tr><td>{_THEME}</td><td>ZA07</td><td>合成データ：<br>\r\n改行の後</td></tr>\r\n"
    f"<tr><td>{_THEME}</td><td>ZA08</td></tr>\r\n"
    "</tbody>\r\n"
    '<tfoot><tr><td colspan="3"><font size="2">footer</font></td></tr></tfoot>\r\n'
    "</table></body></html>\r\n"
)
"""Every data row's third cell exercises one rule of the cell text."""

_HTML_SEGMENTS = [
    ("table-row:2", _THEME, "ZA01 of door"),
    ("table-row:3", _THEME, 'ZA02 A&B <x> "q" 字字'),
    ("table-row:4", _THEME, "ZA03 bold deep tailglued"),
    ("table-row:5", _THEME, "ZA04 many spaces here"),
    ("table-row:6", _THEME, "ZA05 line one two three"),
    ("table-row:7", _THEME, "ZA06 xyz"),
    ("table-row:8", _THEME, "ZA07 合成データ： 改行の後"),
    ("table-row:9", _THEME, "ZA08"),
]
"""(locator, heading, body) of each row, in order: written by hand from the rules."""

# -- CSV: FI/FI_TEXT/fiText_A_20260331.csv ----------------------------------------------------

_CSV_CODE = "A40Y"
_CSV_CELL = '合成データ：一行目\r\n二行目, "引用" と ""二重""'
"""The text as the CSV file says it, once unquoted (``""`` is one quote)."""
_CSV_RECORD = f'{_CSV_CODE}               ,1,1,0,0,0,"' + _CSV_CELL.replace('"', '""') + '"'
_CSV_TEXTS = [("ja", "1", 1, _CSV_CELL)]

# -- XML: FI/FI_KAISEI_DOC/B60J.xml, declared Shift_JIS, holding CP932-only characters -------

_XML_DOCUMENT = (
    '<?xml version="1.0" encoding="Shift_JIS"?>\r\n'
    '<?xml-stylesheet type="text/xsl" href="FI_KAISEI.xsl"?>\r\n'
    '<data trg="B60J">\r\n'
    "<infor>\r\n"
    '<FI attr="del"> B60J1/00,800 </FI>\r\n'
    "<title>  髙①型㈱方式Ⅲ &amp; ∵ の窓  </title>\r\n"
    "<oldtitle>旧：髙①型㈱方式Ⅲ</oldtitle>\r\n"
    "<newtitle></newtitle>\r\n"
    "<trans>B60J5/00,501@B</trans>\r\n"
    "<date>20140701</date>\r\n"
    "</infor>\r\n"
    "<infor>\r\n"
    '<FI attr="chg">B60J1/00</FI>\r\n'
    "<title>二行の\r\n名称<!-- a comment is no text --></title>\r\n"
    "<date>2021-04</date>\r\n"
    "</infor>\r\n"
    "</data>\r\n"
)
_XML_SEGMENTS = [
    (
        "element:infor[1]",
        "B60J1/00,800",
        "del",
        "名称: 髙①型㈱方式Ⅲ & ∵ の窓 / 旧名称: 旧：髙①型㈱方式Ⅲ / 移行先: B60J5/00,501@B"
        " / 日付: 2014-07-01",
    ),
    ("element:infor[2]", "B60J1/00", "chg", "名称: 二行の\n名称 / 日付: 2021-04"),
]
"""(locator, heading, text_type, body): ``\\r\\n`` inside an element is ``\\n`` once parsed
(XML end-of-line handling), a date that is not YYYYMMDD is kept verbatim."""


def _write_fragments(package: Path) -> None:
    (package / "FTERM" / "ADD_CODE" / "addCode_1.html").write_bytes(_HTML_PAGE.encode("utf-8"))
    csv_path = package / "FI" / "FI_TEXT" / "fiText_A_20260331.csv"
    lines = csv_path.read_text("utf-8-sig").splitlines()
    replaced = [_CSV_RECORD if line.split(",")[0].strip() == _CSV_CODE else line for line in lines]
    assert replaced != lines, "the sample no longer has the FI text row replaced here"
    csv_path.write_bytes(("\r\n".join(replaced) + "\r\n").encode("utf-8-sig"))
    xml = _XML_DOCUMENT.encode("cp932")
    with pytest.raises(UnicodeDecodeError):
        xml.decode("shift_jis")  # the fragment really needs the CP932 fallback
    (package / "FI" / "FI_KAISEI_DOC" / "B60J.xml").write_bytes(xml)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[BuildReport, Path]:
    base = tmp_path_factory.mktemp("fragments")
    package = base / sample_package_path().name
    shutil.copytree(sample_package_path(), package)
    _write_fragments(package)
    output = base / "fragments.sqlite"
    return build_database(package, output), output


@pytest.fixture(scope="module")
def db(built: tuple[BuildReport, Path]) -> Iterator[sqlite3.Connection]:
    conn = sqlite3.connect(f"file:{built[1]}?mode=ro", uri=True)
    yield conn
    conn.close()


def _segments(db: sqlite3.Connection, path: str) -> list[tuple[str, str, str]]:
    return [
        (str(locator), str(heading), str(body))
        for locator, heading, body in db.execute(
            "SELECT t.locator, t.heading, t.body FROM document_text t "
            "JOIN source_file s ON s.id = t.source_file_id WHERE s.path = ? "
            "ORDER BY t.sequence_number",
            (path,),
        )
    ]


def _xml_segments(db: sqlite3.Connection) -> list[tuple[str, str, str, str]]:
    return [
        (str(locator), str(heading), str(text_type), str(body))
        for locator, heading, text_type, body in db.execute(
            "SELECT t.locator, t.heading, t.text_type, t.body FROM document_text t "
            "JOIN source_file s ON s.id = t.source_file_id "
            "WHERE s.path = 'FI/FI_KAISEI_DOC/B60J.xml' ORDER BY t.sequence_number"
        )
    ]


def _fi_texts(db: sqlite3.Connection, code: str) -> list[tuple[str, str, int, str]]:
    return [
        (str(language), str(text_type), int(line), str(body))
        for language, text_type, line, body in db.execute(
            "SELECT t.language, t.text_type, t.line, t.body FROM text t "
            "JOIN revision r ON r.id = t.revision_id JOIN concept c ON c.id = r.concept_id "
            "WHERE c.scheme = 'fi' AND c.code = ? AND t.language = 'ja' ORDER BY t.line",
            (code,),
        )
    ]


def _issues(db: sqlite3.Connection, code: str) -> list[tuple[str, str | None]]:
    return [
        (str(path), locator)
        for path, locator in db.execute(
            "SELECT s.path, b.locator FROM build_issue b JOIN source_file s "
            "ON s.id = b.source_file_id WHERE b.code = ? ORDER BY s.path, b.locator",
            (code,),
        )
    ]


def test_every_fragment_reads_to_its_exact_text(db: sqlite3.Connection) -> None:
    """All three readers at once (see the module docstring for why one test)."""
    found = {
        "html": _segments(db, "FTERM/ADD_CODE/addCode_1.html"),
        "csv": _fi_texts(db, _CSV_CODE),
        "xml": _xml_segments(db),
        "html_invalid": _issues(db, "HTML_TABLE_INVALID"),
        "xml_fallback": _issues(db, "XML_CP932_FALLBACK"),
    }
    assert found == {
        "html": _HTML_SEGMENTS,
        "csv": _CSV_TEXTS,
        "xml": _XML_SEGMENTS,
        "html_invalid": [],
        "xml_fallback": [("FI/FI_KAISEI_DOC/B60J.xml", None)],
    }


@pytest.mark.parametrize(("locator", "heading", "body"), _HTML_SEGMENTS)
def test_html_cell_text(db: sqlite3.Connection, locator: str, heading: str, body: str) -> None:
    rows = {loc: (h, b) for loc, h, b in _segments(db, "FTERM/ADD_CODE/addCode_1.html")}
    assert rows[locator] == (heading, body)


def test_html_line_break_separates_words(db: sqlite3.Connection) -> None:
    """The audit's planted bug: ``of<br/>door`` stored as ``ofdoor``."""
    bodies = [body for _, _, body in _segments(db, "FTERM/ADD_CODE/addCode_1.html")]
    assert "ZA01 of door" in bodies
    assert not any("ofdoor" in body or "lineone" in body for body in bodies)


def test_html_tbody_thead_tfoot_rows_are_read_and_the_footer_is_not(
    built: tuple[BuildReport, Path], db: sqlite3.Connection
) -> None:
    assert built[0].group_counts["FTERM/ADD_CODE"].records == len(_HTML_SEGMENTS)
    bodies = [body for _, _, body in _segments(db, "FTERM/ADD_CODE/addCode_1.html")]
    assert not any("footer" in body for body in bodies)


def test_csv_cell_keeps_newline_comma_and_quotes(db: sqlite3.Connection) -> None:
    ((language, text_type, line, body),) = _fi_texts(db, _CSV_CODE)
    assert (language, text_type, line) == ("ja", "1", 1)
    assert body == '合成データ：一行目\r\n二行目, "引用" と ""二重""'
    assert body.count('"') == 6
    # The records after the multi-line one keep their row numbers (one per logical record).
    locators = [
        str(loc)
        for (loc,) in db.execute(
            "SELECT t.locator FROM text t JOIN source_file s ON s.id = t.source_file_id "
            "WHERE s.path = 'FI/FI_TEXT/fiText_A_20260331.csv' ORDER BY t.rowid"
        )
    ]
    assert locators == [f"row:{n}" for n in range(1, len(locators) + 1)]


def test_xml_cp932_only_characters_survive(db: sqlite3.Connection) -> None:
    segments = _xml_segments(db)
    assert segments == _XML_SEGMENTS
    assert "髙①型㈱方式Ⅲ" in segments[0][3]
    assert _issues(db, "XML_CP932_FALLBACK") == [("FI/FI_KAISEI_DOC/B60J.xml", None)]
