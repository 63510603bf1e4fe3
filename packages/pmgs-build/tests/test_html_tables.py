"""The HTML table groups (``IPC_KAISEI``, ``FTERM/ADD_CODE(_E)``) become documents and edges.

A generated package (scale 0.01, with documents) is built for real and checked against the
generator's expected counts; hostile pages are written into a copy of the embedded sample,
each of which must fail with its code and leave no database, or be read with a warning.
The other document groups (revision XML, definition PDFs) are removed from the packages:
they have their own tests, and absent document groups are not an error.
"""

from __future__ import annotations

import re
import shutil
import socket
import sqlite3
from collections.abc import Iterator, Sequence
from html import escape
from pathlib import Path

import pytest

from pmgs_build import BuildError, BuildReport, IssueCode, build_database
from pmgs_build.sample import sample_package_path
from pmgs_build.source.parsers.additional_code import ADD_CODE_HEADERS
from pmgs_build.source.parsers.ipc_revision import IPC_REVISION_HEADER
from pmgs_core import PMGSStore
from pmgs_testkit import GeneratedPackage, generate_package
from pmgs_testkit.documents import ADD_CODE_HEADER, ADD_CODE_HEADER_E, IPC_KAISEI_HEADER

_OTHER_DOCUMENT_DIRS = ("FI/FI_KAISEI_DOC", "REFERENCE")
_HTML_GROUPS = ("IPC_KAISEI", "FTERM/ADD_CODE", "FTERM/ADD_CODE_E")
_SJIS_META = '<meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS">'
_UTF8_META = '<meta charset="UTF-8">'
_VALID_IPC_ROW = ("G06F 3/048", "2006.01", "G06F 3/048", "2014.01")
"""A row of the sample's revision table: both ends are IPC 8U revisions of the sample."""
_SAMPLE_THEME = "2D673"
"""A theme of the sample's FTERM/THEME (its first additional-code row names it)."""


def _without_other_documents(package: Path) -> None:
    for name in _OTHER_DOCUMENT_DIRS:
        shutil.rmtree(package / name, ignore_errors=True)


@pytest.fixture(scope="module")
def generated(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[GeneratedPackage, BuildReport, Path]:
    base = tmp_path_factory.mktemp("html")
    package = generate_package(base / "src", scale=0.01, seed=7, with_documents=True)
    _without_other_documents(package.path)
    output = base / "html.sqlite"
    return package, build_database(package.path, output), output


@pytest.fixture
def db(generated: tuple[GeneratedPackage, BuildReport, Path]) -> Iterator[sqlite3.Connection]:
    conn = sqlite3.connect(f"file:{generated[2]}?mode=ro", uri=True)
    yield conn
    conn.close()


def test_expected_headers_agree_with_the_generator() -> None:
    assert IPC_REVISION_HEADER == IPC_KAISEI_HEADER
    assert ADD_CODE_HEADERS == {"ja": ADD_CODE_HEADER, "en": ADD_CODE_HEADER_E}


def test_documents_and_segments_per_kind(
    generated: tuple[GeneratedPackage, BuildReport, Path], db: sqlite3.Connection
) -> None:
    expected = generated[0].expected
    kinds = ("fterm_additional_code", "ipc_revision")
    documents = dict(
        db.execute(
            "SELECT kind, COUNT(*) FROM document WHERE kind IN (?, ?) GROUP BY kind", kinds
        ).fetchall()
    )
    segments = dict(
        db.execute(
            "SELECT d.kind, COUNT(*) FROM document_text t JOIN document d ON d.id = t.document_id "
            "WHERE d.kind IN (?, ?) GROUP BY d.kind",
            kinds,
        ).fetchall()
    )
    assert documents == {kind: expected.documents[kind] for kind in kinds}
    assert segments == {kind: expected.document_segments[kind] for kind in kinds}
    counts = generated[1].group_counts
    package = generated[0]
    for group in _HTML_GROUPS:
        assert counts[group].files == package.files[group]
        assert counts[group].records == package.rows[group]


def test_every_revision_row_is_an_edge_between_revisions(
    generated: tuple[GeneratedPackage, BuildReport, Path], db: sqlite3.Connection
) -> None:
    groups = generated[0].expected.document_groups
    assert groups is not None
    edges = db.execute(
        "SELECT fc.code, fr.version, tc.code, tr.version, s.path, r.locator "
        "FROM relation r JOIN concept fc ON fc.id = r.from_concept_id "
        "JOIN concept tc ON tc.id = r.to_concept_id "
        "JOIN revision fr ON fr.id = r.from_revision_id AND fr.concept_id = fc.id "
        "JOIN revision tr ON tr.id = r.to_revision_id AND tr.concept_id = tc.id "
        "JOIN source_file s ON s.id = r.source_file_id "
        "WHERE r.kind = 'amended_to' AND fc.scheme = 'ipc' AND fc.edition = '8U' "
        "AND tc.edition = '8U'"
    ).fetchall()
    assert len(edges) == groups.ipc_revision_edges
    # The segment of the same row says the same edge.
    bodies = {
        (path, locator): (heading, body)
        for path, locator, heading, body in db.execute(
            "SELECT s.path, t.locator, t.heading, t.body FROM document_text t "
            "JOIN document d ON d.id = t.document_id JOIN source_file s ON s.id = t.source_file_id "
            "WHERE d.kind = 'ipc_revision'"
        )
    }
    assert len(bodies) == len(edges)
    for old, old_version, new, new_version, path, locator in edges:
        assert bodies[(path, locator)] == (old, f"{old} ({old_version}) → {new} ({new_version})")
    # Document keys are the file stems; subjects are the concepts of both ends.
    keys = {
        k for (k,) in db.execute("SELECT document_key FROM document WHERE kind = 'ipc_revision'")
    }
    assert keys == {
        f"ipc_revision:{p.stem}" for p in (generated[0].path / "IPC_KAISEI").glob("*.html")
    }
    subjects = db.execute(
        "SELECT COUNT(DISTINCT l.concept_id) FROM document_link l "
        "JOIN document d ON d.id = l.document_id WHERE d.kind = 'ipc_revision'"
    ).fetchone()[0]
    assert subjects == len({e[0] for e in edges} | {e[2] for e in edges})


def test_recovery_warnings_name_exactly_the_broken_files(
    generated: tuple[GeneratedPackage, BuildReport, Path], db: sqlite3.Connection
) -> None:
    groups = generated[0].expected.document_groups
    assert groups is not None
    assert generated[1].warnings[IssueCode.HTML_RECOVERY_USED] == len(groups.html_recovery_files)
    rows = db.execute(
        "SELECT s.path, b.message FROM build_issue b JOIN source_file s ON s.id = b.source_file_id "
        "WHERE b.code = ?",
        (IssueCode.HTML_RECOVERY_USED,),
    ).fetchall()
    assert sorted(path for path, _ in rows) == list(groups.html_recovery_files)
    for _, message in rows:
        assert "ERR_TAG_NAME_MISMATCH" in message
        assert "/" not in message  # no path, no raw libxml2 text


def test_revision_edge_example_is_answerable(
    generated: tuple[GeneratedPackage, BuildReport, Path],
) -> None:
    package, _, output = generated
    match = re.fullmatch(
        r"(\S+) \((\S+)\) -> (\S+) \((\S+)\)", package.examples["ipc_revision_edge"]
    )
    assert match is not None
    old, old_version, new, new_version = match.groups()
    with PMGSStore.open(output) as store:
        record = store.lookup("ipc", old, edition="8U", relation_limit=200)
        edges = [
            (r["direction"], r["target"]["code"], r["from_version"], r["to_version"])
            for r in record["relations"]
            if r["kind"] == "amended_to"
        ]
        assert ("outgoing", new, old_version, new_version) in edges
        documents = {(d["kind"], d["role"]) for d in record["documents"]}
    assert ("ipc_revision", "subject") in documents


def test_additional_code_documents(
    generated: tuple[GeneratedPackage, BuildReport, Path], db: sqlite3.Connection
) -> None:
    package, _, output = generated
    rows = db.execute(
        "SELECT d.document_key, d.language, t.sequence_number, t.heading, t.text_type, t.body "
        "FROM document_text t JOIN document d ON d.id = t.document_id "
        "WHERE d.kind = 'fterm_additional_code' ORDER BY d.document_key, t.sequence_number"
    ).fetchall()
    by_language: dict[str, list[tuple[str, str]]] = {"ja": [], "en": []}
    for key, language, _, heading, text_type, body in rows:
        assert key.startswith(f"fterm_additional_code:{language}:")
        assert text_type == "additional_code"
        assert re.fullmatch(r"[0-9][A-Z][0-9]{3}", heading)
        assert re.match(r"Z[A-Z][0-9]{2} \S", body)
        by_language[language].append((heading, body.split(" ", 1)[0]))
    # The English tables have the same rows as the Japanese ones, with other labels.
    assert by_language["ja"] == by_language["en"] != []
    theme = package.examples["fterm_additional_code_theme"]
    with PMGSStore.open(output) as store:
        record = store.lookup("fterm", theme)
        keys = {(d["document_id"], d["role"]) for d in record["documents"]}
    assert (package.examples["fterm_additional_code_document"], "subject") in keys
    # Themes named by the tables are the themes of FTERM/THEME: none became reference-only.
    assert (
        db.execute(
            "SELECT COUNT(*) FROM document_link l JOIN document d ON d.id = l.document_id "
            "JOIN concept c ON c.id = l.concept_id "
            "WHERE d.kind = 'fterm_additional_code' AND c.status <> 'canonical'"
        ).fetchone()[0]
        == 0
    )


# -- hostile pages, written into a copy of the embedded sample ---------------------------------


def _page(
    header: tuple[str, ...], rows: Sequence[tuple[str, ...]], *, meta: str, raw_rows: str = ""
) -> str:
    lines = [
        '<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01 Transitional//EN">',
        f"<html><head>{meta}<title>t</title></head><body>",
        "<table>",
        "<tr>" + "".join(f"<th>{escape(c)}</th>" for c in header) + "</tr>",
        *("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in rows),
        raw_rows,
        f'<tr><td colspan="{len(header)}"><font size="2">footer</font></td></tr>',
        "</table></body></html>",
    ]
    return "\r\n".join(lines)


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    source = sample_package_path()
    package = tmp_path / source.name
    shutil.copytree(source, package)
    _without_other_documents(package)
    return package


def _replace(package: Path, group: str, data: bytes) -> str:
    """Replace the group's one HTML file by ``data``; its package-relative path."""
    (path,) = sorted((package / group).glob("*.html"))
    path.write_bytes(data)
    return f"{group}/{path.name}"


def _fails(package: Path, code: str) -> list[tuple[str | None, str | None, str]]:
    output = package.parent / "out.sqlite"
    with pytest.raises(BuildError) as caught:
        build_database(package, output, strict=True)
    assert not output.exists()
    assert list(package.parent.glob(".out.sqlite*")) == []
    found = [(i.source_path, i.locator, i.message) for i in caught.value.issues if i.code == code]
    assert found, [str(i) for i in caught.value.issues]
    return found


def _builds(package: Path) -> tuple[BuildReport, sqlite3.Connection]:
    output = package.parent / "out.sqlite"
    report = build_database(package, output)
    return report, sqlite3.connect(f"file:{output}?mode=ro", uri=True)


def test_a_row_of_three_cells_fails(sample: Path) -> None:
    rows = [_VALID_IPC_ROW, ("G06F 3/048", "2006.01", "G06F 3/048")]
    path = _replace(
        sample, "IPC_KAISEI", _page(IPC_KAISEI_HEADER, rows, meta=_SJIS_META).encode("shift_jis")
    )
    found = _fails(sample, IssueCode.HTML_TABLE_INVALID)
    assert [(p, loc) for p, loc, _ in found] == [(path, "table-row:3")]
    assert "3 cells" in found[0][2]


def test_a_single_spanning_cell_is_a_footer(sample: Path) -> None:
    raw = '<tr><td colspan="2">a note, not a record</td></tr>'
    page = _page(IPC_KAISEI_HEADER, [_VALID_IPC_ROW], meta=_SJIS_META, raw_rows=raw)
    _replace(sample, "IPC_KAISEI", page.encode("shift_jis"))
    report, conn = _builds(sample)
    assert report.group_counts["IPC_KAISEI"].records == 1
    assert report.quarantine_count == 0
    bodies = [row[0] for row in conn.execute("SELECT body FROM document_text")]
    assert not any("a note" in body for body in bodies)


def test_an_endpoint_that_is_no_revision_fails(sample: Path) -> None:
    rows = [_VALID_IPC_ROW, ("G06F 3/048", "2006.01", "G06F 3/048", "2019.01")]
    path = _replace(
        sample, "IPC_KAISEI", _page(IPC_KAISEI_HEADER, rows, meta=_SJIS_META).encode("shift_jis")
    )
    found = _fails(sample, IssueCode.IPC_REVISION_ENDPOINT_UNRESOLVED)
    assert [(p, loc) for p, loc, _ in found] == [(path, "table-row:3")]
    assert "G06F3/048 (2019.01)" in found[0][2]


def test_an_unknown_header_wording_is_read_by_position(sample: Path) -> None:
    header = ("分類テーマ", "記号", "備考")
    rows = [(_SAMPLE_THEME, "ZA01", "ラベル")]
    path = _replace(sample, "FTERM/ADD_CODE", _page(header, rows, meta=_UTF8_META).encode("utf-8"))
    report, conn = _builds(sample)
    assert report.warnings["HTML_HEADER_UNKNOWN"] == 1
    warning = conn.execute(
        "SELECT s.path, b.locator, b.message FROM build_issue b JOIN source_file s "
        "ON s.id = b.source_file_id WHERE b.code = 'HTML_HEADER_UNKNOWN'"
    ).fetchone()
    assert warning[:2] == (path, "table-row:1")
    assert "分類テーマ" in warning[2]
    segment = conn.execute(
        "SELECT t.heading, t.body, t.locator FROM document_text t JOIN source_file s "
        "ON s.id = t.source_file_id WHERE s.path = ?",
        (path,),
    ).fetchall()
    assert segment == [(_SAMPLE_THEME, "ZA01 ラベル", "table-row:2")]


@pytest.mark.parametrize(
    "header",
    [
        ("Theme", "Code", "Description"),  # English wording in the Japanese group
        ("テーマコード", "付加コード", "内容"),  # another Japanese word
    ],
)
def test_known_header_wordings_need_no_warning(sample: Path, header: tuple[str, ...]) -> None:
    rows = [(_SAMPLE_THEME, "ZA01", "ラベル")]
    _replace(sample, "FTERM/ADD_CODE", _page(header, rows, meta=_UTF8_META).encode("utf-8"))
    report, conn = _builds(sample)
    assert "HTML_HEADER_UNKNOWN" not in report.warnings
    assert report.quarantine_count == 0
    bodies = [row[0] for row in conn.execute("SELECT body FROM document_text")]
    assert "ZA01 ラベル" in bodies


def test_a_header_of_data_cells_is_still_a_header(sample: Path) -> None:
    page = _page(ADD_CODE_HEADER, [(_SAMPLE_THEME, "ZA01", "ラベル")], meta=_UTF8_META)
    page = page.replace("<th>", "<td>").replace("</th>", "</td>")
    _replace(sample, "FTERM/ADD_CODE", page.encode("utf-8"))
    report, conn = _builds(sample)
    assert report.quarantine_count == 0
    assert "HTML_HEADER_UNKNOWN" not in report.warnings
    headings = [row[0] for row in conn.execute("SELECT heading FROM document_text")]
    assert "テーマコード" not in headings


@pytest.mark.parametrize(
    ("group", "data"),
    [
        # Invalid UTF-8 in a page that declares UTF-8.
        (
            "FTERM/ADD_CODE",
            _page(ADD_CODE_HEADER, [(_SAMPLE_THEME, "ZA01", "ラベル")], meta=_UTF8_META)
            .encode()
            .replace("ラベル".encode(), b"\xff\xfe"),
        ),
        # Bytes that are neither Shift_JIS nor CP932 in a page that declares Shift_JIS.
        (
            "IPC_KAISEI",
            _page(IPC_KAISEI_HEADER, [_VALID_IPC_ROW], meta=_SJIS_META)
            .encode("shift_jis")
            .replace(b"</table>", b"\x81\x20\xfd</table>"),
        ),
        # A Shift_JIS page that declares nothing is not UTF-8.
        (
            "IPC_KAISEI",
            _page(IPC_KAISEI_HEADER, [_VALID_IPC_ROW], meta="").encode("shift_jis"),
        ),
    ],
    ids=["utf8", "shift_jis", "undeclared"],
)
def test_bytes_not_valid_in_the_declared_charset_fail(
    sample: Path, group: str, data: bytes
) -> None:
    path = _replace(sample, group, data)
    found = _fails(sample, IssueCode.HTML_UNREADABLE)
    assert [p for p, _, _ in found] == [path]


def test_a_shift_jis_page_with_cp932_characters_is_read_as_cp932(sample: Path) -> None:
    page = _page(IPC_KAISEI_HEADER, [_VALID_IPC_ROW], meta=_SJIS_META).replace("footer", "注①")
    path = _replace(sample, "IPC_KAISEI", page.encode("cp932"))
    report = build_database(sample, sample.parent / "cp932.sqlite")
    assert report.warnings.get(IssueCode.HTML_CP932_FALLBACK) == 1
    conn = sqlite3.connect(report.output)
    try:
        rows = conn.execute(
            "SELECT i.locator FROM build_issue i JOIN source_file f ON f.id = i.source_file_id "
            "WHERE i.code = ? AND f.path = ?",
            (IssueCode.HTML_CP932_FALLBACK, path),
        ).fetchall()
    finally:
        conn.close()
    assert len(rows) == 1


def test_a_page_without_a_table_is_a_warning(sample: Path) -> None:
    path = _replace(sample, "FTERM/ADD_CODE_E", b"<html><body><p>nothing</p></body></html>")
    report, conn = _builds(sample)
    assert report.warnings["HTML_NO_TABLE"] == 1
    assert report.quarantine_count == 0
    documents = conn.execute(
        "SELECT count(*) FROM document d JOIN source_file s ON s.id = d.source_file_id "
        "WHERE s.path = ?",
        (path,),
    ).fetchone()[0]
    assert documents == 0


def test_rows_left_outside_the_table_are_quarantined(sample: Path) -> None:
    raw = "</table><tr><td>2D673</td><td>ZA02</td><td>lost</td></tr>"
    page = _page(
        ADD_CODE_HEADER_E, [(_SAMPLE_THEME, "ZA01", "kept")], meta=_UTF8_META, raw_rows=raw
    )
    path = _replace(sample, "FTERM/ADD_CODE_E", page.encode())
    found = _fails(sample, IssueCode.HTML_TABLE_INVALID)
    assert [p for p, _, _ in found] == [path]
    _report, conn = _builds(sample)
    quarantined = conn.execute("SELECT reason, raw, locator FROM quarantine").fetchall()
    assert quarantined == [
        ("HTML_TABLE_INVALID", '["2D673", "ZA02", "lost", "footer"]', "outside-table")
    ]  # the page's footer row follows the premature </table> too
    bodies = [row[0] for row in conn.execute("SELECT body FROM document_text")]
    assert "ZA01 kept" in bodies


def test_a_first_cell_that_is_no_theme_fails(sample: Path) -> None:
    rows = [(_SAMPLE_THEME, "ZA01", "ok"), ("4C083AA01", "ZA02", "a term, not a theme")]
    path = _replace(
        sample, "FTERM/ADD_CODE", _page(ADD_CODE_HEADER, rows, meta=_UTF8_META).encode()
    )
    found = _fails(sample, IssueCode.ADD_CODE_ROW_INVALID)
    assert [(p, loc) for p, loc, _ in found] == [(path, "table-row:3")]


def test_broken_markup_is_read_with_one_warning(sample: Path) -> None:
    # Unclosed <b> and <font>, an unclosed cell, a stray </table> after the table.
    page = "\r\n".join(
        [
            f"<html><head>{_SJIS_META}</head><body><table>",
            "<tr>" + "".join(f"<th>{c}" for c in IPC_KAISEI_HEADER) + "</tr>",
            "<tr><td><b>G06F 3/048</td><td>2006.01<td>G06F  3/048</td><td>2014.01</td></tr>",
            '<tr><td colspan="4"><font size="2">注記</td></tr>',
            "</table></table></body></html>",
        ]
    )
    path = _replace(sample, "IPC_KAISEI", page.encode("shift_jis"))
    report, db = _builds(sample)
    try:
        warnings = db.execute(
            "SELECT s.path FROM build_issue b JOIN source_file s ON s.id = b.source_file_id "
            "WHERE b.code = ?",
            (IssueCode.HTML_RECOVERY_USED,),
        ).fetchall()
        assert (path,) in warnings
        assert sum(1 for (p,) in warnings if p == path) == 1
        segments = db.execute(
            "SELECT t.heading, t.body, t.locator FROM document_text t "
            "JOIN document d ON d.id = t.document_id WHERE d.kind = 'ipc_revision'"
        ).fetchall()
        assert segments == [
            ("G06F3/048", "G06F3/048 (2006.01) → G06F3/048 (2014.01)", "table-row:2")
        ]
        assert report.group_counts["IPC_KAISEI"].records == 1
    finally:
        db.close()


def test_scripts_and_links_are_text_at_most_and_never_followed(sample: Path) -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        url = f"http://127.0.0.1:{listener.getsockname()[1]}/x"
        page = "\r\n".join(
            [
                f'<!DOCTYPE html SYSTEM "{url}.dtd">',
                f'<html><head>{_UTF8_META}<link rel="stylesheet" href="{url}.css">',
                f'<script src="{url}.js"></script><base href="{url}/"></head><body>',
                f'<iframe src="{url}.html"></iframe><img src="{url}.png">',
                "<table>",
                "<tr>" + "".join(f"<th>{c}</th>" for c in ADD_CODE_HEADER) + "</tr>",
                f"<tr><td>{_SAMPLE_THEME}</td>",
                "<td>ZA01<script>document.write('INJECTED')</script></td>",
                f'<td><a href="{url}">リンクの説明</a><style>td {{ color: red }}</style></td></tr>',
                "</table></body></html>",
            ]
        )
        _replace(sample, "FTERM/ADD_CODE", page.encode())
        _, db = _builds(sample)
        listener.setblocking(False)
        with pytest.raises(BlockingIOError):
            listener.accept()  # nobody connected while the package was read
    try:
        bodies = db.execute(
            "SELECT t.body FROM document_text t JOIN document d ON d.id = t.document_id "
            "WHERE d.document_key LIKE 'fterm_additional_code:ja:%'"
        ).fetchall()
        assert bodies == [("ZA01 リンクの説明",)]
    finally:
        db.close()


def test_an_unknown_theme_becomes_reference_only(sample: Path) -> None:
    rows = [(_SAMPLE_THEME, "ZA01", "known"), ("9Z999", "ZA02", "unknown theme")]
    _replace(sample, "FTERM/ADD_CODE", _page(ADD_CODE_HEADER, rows, meta=_UTF8_META).encode())
    _, db = _builds(sample)
    try:
        status = db.execute(
            "SELECT c.status FROM document_link l JOIN concept c ON c.id = l.concept_id "
            "JOIN document d ON d.id = l.document_id "
            "WHERE d.kind = 'fterm_additional_code' AND c.code = '9Z999'"
        ).fetchall()
        assert status == [("reference_only",)]
    finally:
        db.close()


def test_a_data_table_inside_a_layout_table_is_read(sample: Path) -> None:
    """A page laid out with a table (a menu cell beside a content cell) holding the data
    table: the layout table is not data, the nested one is read row for row."""
    page = "\r\n".join(
        [
            f"<html><head>{_UTF8_META}</head><body>",
            '<table width="100%"><tr><td>メニュー</td><td>',
            "<table>",
            "<tr><th>テーマコード</th><th>付加コード</th><th>説明</th></tr>",
            f"<tr><td>{_SAMPLE_THEME}</td><td>ZA01</td><td>ラベル</td></tr>",
            f"<tr><td>{_SAMPLE_THEME}</td><td>ZA02</td><td>別のラベル</td></tr>",
            "</table>",
            '</td></tr><tr><td colspan="2">フッター</td></tr></table></body></html>',
        ]
    )
    path = _replace(sample, "FTERM/ADD_CODE", page.encode("utf-8"))
    report, conn = _builds(sample)
    assert report.quarantine_count == 0
    assert "HTML_HEADER_UNKNOWN" not in report.warnings
    segments = conn.execute(
        "SELECT t.heading, t.body, t.locator FROM document_text t JOIN source_file s "
        "ON s.id = t.source_file_id WHERE s.path = ? ORDER BY t.sequence_number",
        (path,),
    ).fetchall()
    assert segments == [
        (_SAMPLE_THEME, "ZA01 ラベル", "table-row:2"),
        (_SAMPLE_THEME, "ZA02 別のラベル", "table-row:3"),
    ]
