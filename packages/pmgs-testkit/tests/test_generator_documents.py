"""The XML, HTML and PDF groups of synthetic packages are faithful to the format page.

Read back with the tools the builder will use (lxml with entity resolution and network off,
pypdfium2), never with the generator's own code, and compared against what the generator
claims in ``GeneratedPackage`` (``files``, ``rows``, ``expected.document_groups``,
``examples``).
"""

from __future__ import annotations

import csv
import io
import re
import zipfile
from collections import defaultdict
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from lxml import etree, html

from pmgs_build.sample import sample_package_path
from pmgs_core import ClassificationCode, parse_code
from pmgs_core.building import ipc_code_from_pdf_name, parse_ipc_version
from pmgs_testkit import (
    CP932_ONLY_TEXT,
    DOCUMENT_CORRUPTION_KINDS,
    DOCUMENT_GROUPS,
    IPC_KAISEI_HEADER,
    DocumentCounts,
    GeneratedPackage,
    corrupt,
    generate_package,
    make_zip,
)
from pmgs_testkit.kit import pdf_page_texts, tree_sha256

REFERENCE_DATE = "20260331"


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> GeneratedPackage:
    return generate_package(
        tmp_path_factory.mktemp("docs"), scale=0.003, seed=11, with_documents=True
    )


def counts(pkg: GeneratedPackage) -> DocumentCounts:
    assert pkg.expected.document_groups is not None
    return pkg.expected.document_groups


def strict_parser() -> etree.XMLParser:
    return etree.XMLParser(resolve_entities=False, no_network=True, recover=False)


def html_errors(data: bytes) -> int:
    parser = etree.HTMLParser(recover=True, no_network=True)
    html.document_fromstring(data, parser=parser)
    return len(parser.error_log)


def html_table(data: bytes) -> list[list[tuple[str, str | None]]]:
    """Rows of the first table as (text, colspan) cells."""
    parser = etree.HTMLParser(recover=True, no_network=True)
    root = html.document_fromstring(data, parser=parser)
    return [
        [("".join(cell.itertext()), cell.get("colspan")) for cell in row.xpath("th|td")]
        for row in root.xpath("//table[1]//tr")
    ]


def csv_rows(pkg: GeneratedPackage, group: str) -> list[list[str]]:
    out: list[list[str]] = []
    for path in sorted((pkg.path / group).iterdir()):
        out.extend(csv.reader(io.StringIO(path.read_text(encoding="utf-8-sig"), newline="")))
    return out


def xml_root(path: Path) -> etree._Element:
    """Strict parse; the CP932 file is decoded as CP932 and re-declared as UTF-8 first."""
    data = path.read_bytes()
    try:
        return etree.fromstring(data, strict_parser())
    except etree.XMLSyntaxError:
        text = data.decode("cp932").replace('encoding="Shift_JIS"', 'encoding="UTF-8"', 1)
        return etree.fromstring(text.encode("utf-8"), strict_parser())


def squeeze(text: str) -> str:
    return re.sub(r"\s+", "", text)


# ------------------------------------------------------------------ determinism and layout


def test_same_seed_same_bytes_and_documents_leave_csvs_alone(tmp_path: Path) -> None:
    first = generate_package(tmp_path / "a", scale=0.001, seed=4, with_documents=True)
    second = generate_package(tmp_path / "b", scale=0.001, seed=4, with_documents=True)
    plain = generate_package(tmp_path / "c", scale=0.001, seed=4)
    one, two, three = tree_sha256(first.path), tree_sha256(second.path), tree_sha256(plain.path)
    assert one == two
    assert first.expected == second.expected
    assert first.examples == second.examples
    assert {k: v for k, v in one.items() if k in three} == three
    assert any(k.startswith("REFERENCE/") for k in one.keys() - three.keys())
    assert plain.expected.document_groups is None
    assert not set(DOCUMENT_GROUPS) & set(plain.files)


def test_document_groups_files_and_rows(package: GeneratedPackage) -> None:
    c = counts(package)
    for group in DOCUMENT_GROUPS:
        files = [p for p in (package.path / group).iterdir() if p.is_file()]
        assert len(files) == package.files[group], group
    assert package.files["FI/FI_KAISEI_DOC"] == c.fi_revision_files + 1
    assert package.rows["FI/FI_KAISEI_DOC"] == c.fi_revision_entries
    assert package.files["FTERM/ADD_CODE"] == package.files["FTERM/ADD_CODE_E"] == 2
    assert package.files["IPC_KAISEI"] == c.ipc_revision_files >= 2
    assert package.files["REFERENCE/IPC_TEIGI"] == c.pdf_files
    assert package.rows["REFERENCE/IPC_TEIGI"] == c.pdf_pages
    assert (package.path / "FI/FI_KAISEI_DOC/FI_KAISEI.xsl").is_file()
    exp = package.expected
    assert exp.documents["fi_revision"] == c.fi_revision_files
    assert exp.document_segments["ipc_definition"] == c.pdf_pages - c.pdf_empty_pages
    assert exp.relations["amended_to"] == c.fi_revision_amended_to + c.ipc_revision_edges
    assert exp.warnings["HTML_RECOVERY_USED"] == len(c.html_recovery_files)
    assert exp.warnings["PDF_EMPTY_PAGE"] == c.pdf_empty_pages >= 2


# ------------------------------------------------------------------ FI revision XML


def test_revision_xml_is_shift_jis_and_strict(package: GeneratedPackage) -> None:
    c = counts(package)
    fi_codes = {parse_code("fi", r[0]).canonical for r in csv_rows(package, "FI/FI")}
    subclasses = sorted(code[:4] for code in fi_codes if len(code) == 4 and code[0] != "Z")
    xmls = sorted((package.path / "FI/FI_KAISEI_DOC").glob("*.xml"))
    assert [p.stem for p in xmls] == subclasses
    entries = amended = 0
    historical: set[str] = set()
    cp932: list[Path] = []
    for path in xmls:
        data = path.read_bytes()
        assert data.startswith(b'<?xml version="1.0" encoding="Shift_JIS"?>')
        assert b'<?xml-stylesheet type="text/xsl" href="FI_KAISEI.xsl"?>' in data
        try:
            data.decode("shift_jis")
            etree.fromstring(data, strict_parser())
        except (UnicodeDecodeError, etree.XMLSyntaxError):
            cp932.append(path)
            with pytest.raises(etree.XMLSyntaxError):
                etree.fromstring(data, strict_parser())
            assert CP932_ONLY_TEXT in data.decode("cp932")
        root = xml_root(path)
        assert root.tag == "data"
        assert root.get("trg") == path.stem
        for infor in root.iter("infor"):
            entries += 1
            assert [child.tag for child in infor] == [
                "FI", "title", "oldtitle", "newtitle", "trans", "date",
            ]  # fmt: skip
            fi = infor.find("FI")
            assert fi is not None
            code = parse_code("fi", fi.text or "").canonical
            assert code.startswith(path.stem)
            assert fi.get("attr") in {"chg", "del", "new"}
            if code not in fi_codes:
                assert fi.get("attr") == "del"
                historical.add(code)
            trans = infor.findtext("trans") or ""
            if trans:
                amended += 1
                assert parse_code("fi", trans).canonical in fi_codes
            day = infor.findtext("date") or ""
            assert re.fullmatch(r"20[0-9]{6}", day)
            assert day <= REFERENCE_DATE
    assert entries == c.fi_revision_entries
    assert len(historical) == c.fi_revision_historical_codes >= 2
    assert amended == c.fi_revision_amended_to >= 2
    assert [p.name for p in cp932] == [Path(package.examples["cp932_xml"]).name]
    expected_name = "B60T" if "B60T" in subclasses else next(s for s in subclasses if s[0] == "B")
    assert cp932[0].stem == expected_name
    assert c.cp932_files == 1
    assert package.examples["fi_revision_amended_from"] in historical
    assert package.expected.reference_only[("fi", "")] >= len(historical)


def test_revision_links_point_at_documents_that_name_their_code(package: GeneratedPackage) -> None:
    mentioned: dict[str, set[str]] = defaultdict(set)
    for path in (package.path / "FI/FI_KAISEI_DOC").glob("*.xml"):
        for fi in xml_root(path).iter("FI"):
            mentioned[path.name].add(parse_code("fi", fi.text or "").canonical)
    links = csv_rows(package, "FI/FI_KAISEI_LINK")
    assert links
    for row in links:
        code = parse_code("fi", row[0]).canonical
        document = ",".join(row[1:]).split(" ", 1)[0]
        assert document == f"{code[:4]}.xml"
        assert code in mentioned[document]


# ------------------------------------------------------------------ HTML


def test_html_recovery_is_needed_exactly_where_recorded(package: GeneratedPackage) -> None:
    c = counts(package)
    needing: list[str] = []
    total = 0
    for group in ("FTERM/ADD_CODE", "FTERM/ADD_CODE_E", "IPC_KAISEI"):
        for path in sorted((package.path / group).glob("*.html")):
            total += 1
            if html_errors(path.read_bytes()):
                needing.append(f"{group}/{path.name}")
    assert total == c.html_files
    assert tuple(needing) == c.html_recovery_files
    assert 0 < len(needing) < total


def test_ipc_revision_endpoints_are_8u_revisions(package: GeneratedPackage) -> None:
    revisions: dict[tuple[str, str], tuple[str, str]] = {}
    for row in csv_rows(package, "IPC/IPC8U_TEXT"):
        key = (parse_code("ipc", row[0]).canonical, parse_ipc_version(row[1]))
        revisions[key] = (row[7], row[8])
    edges = 0
    for path in sorted((package.path / "IPC_KAISEI").glob("*.html")):
        data = path.read_bytes()
        assert b"charset=Shift_JIS" in data
        table = html_table(data)
        assert tuple(text for text, _ in table[0]) == IPC_KAISEI_HEADER
        assert len(table[-1]) == 1
        assert table[-1][0][1] == "4"
        for cells in table[1:-1]:
            old, old_version, new, new_version = (text for text, _ in cells)
            _, old_to = revisions[(parse_code("ipc", old).canonical, old_version)]
            new_from, new_to = revisions[(parse_code("ipc", new).canonical, new_version)]
            assert old_to < REFERENCE_DATE
            assert new_from <= REFERENCE_DATE <= new_to
            edges += 1
    assert edges == counts(package).ipc_revision_edges >= 2
    assert " (2006.01) -> G06F3/048 (" in package.examples["ipc_revision_edge"]


def test_additional_code_tables(package: GeneratedPackage) -> None:
    themes = {r[0] for r in csv_rows(package, "FTERM/THEME") if len(r[0]) == 5}
    per_group: dict[str, list[tuple[str, str]]] = {}
    for group in ("FTERM/ADD_CODE", "FTERM/ADD_CODE_E"):
        rows: list[tuple[str, str]] = []
        for path in sorted((package.path / group).glob("*.html")):
            data = path.read_bytes()
            assert b'<meta charset="UTF-8">' in data
            data.decode("utf-8")
            table = html_table(data)
            assert len(table[-1]) == 1
            for row in table[1:-1]:
                assert row[0][0] in themes
                assert re.fullmatch(r"Z[A-Z][0-9]{2}", row[1][0])
                rows.append((row[0][0], row[1][0]))
        assert len(rows) == counts(package).additional_code_rows[group] > 0
        per_group[group] = rows
    assert per_group["FTERM/ADD_CODE"] == per_group["FTERM/ADD_CODE_E"]


# ------------------------------------------------------------------ PDF


def test_definition_pdfs_extract_as_recorded(package: GeneratedPackage) -> None:
    c = counts(package)
    codes_8u = {parse_code("ipc", r[0]).canonical for r in csv_rows(package, "IPC/IPC8U_TEXT")}
    pdfs = sorted((package.path / "REFERENCE/IPC_TEIGI").iterdir())
    assert {p.name for p in pdfs} == set(c.pdf_page_chars)
    padded = unpadded = 0
    pages = empty = chars = 0
    for path in pdfs:
        code: ClassificationCode = ipc_code_from_pdf_name(path.name)
        assert code.canonical in codes_8u
        padded += "_" in path.name
        unpadded += code.main_group is not None and "_" not in path.name
        texts = pdf_page_texts(path)
        recorded = c.pdf_page_chars[path.name]
        assert [len(squeeze(t)) for t in texts] == list(recorded), path.name
        assert squeeze(texts[next(i for i, n in enumerate(recorded) if n)]).startswith(
            code.canonical
        )
        pages += len(texts)
        empty += sum(not t.strip() for t in texts)
        chars += sum(recorded)
    assert (pages, empty, chars) == (c.pdf_pages, c.pdf_empty_pages, c.pdf_chars)
    assert padded
    assert unpadded
    assert any(len(v) > 1 for v in c.pdf_page_chars.values())
    example = package.path / package.examples["ipc_definition_pdf"]
    assert example.name == "G06F___3-048.pdf"
    assert squeeze(pdf_page_texts(example)[0]) == package.examples["ipc_definition_first_page"]
    assert re.search(r"[ぁ-んァ-ン一-龥]", package.examples["ipc_definition_first_page"])


# ------------------------------------------------------------------ quirks off, corruption


def test_without_quirks_no_recovery_no_empty_page_no_cp932(tmp_path: Path) -> None:
    pkg = generate_package(tmp_path, scale=0.001, with_quirks=False, with_documents=True)
    c = counts(pkg)
    assert set(pkg.expected.warnings.values()) == {0}
    assert c.cp932_files == 0
    assert c.html_recovery_files == ()
    for path in (pkg.path / "FI/FI_KAISEI_DOC").glob("*.xml"):
        etree.fromstring(path.read_bytes(), strict_parser())
    for group in ("FTERM/ADD_CODE", "FTERM/ADD_CODE_E", "IPC_KAISEI"):
        for path in (pkg.path / group).glob("*.html"):
            assert html_errors(path.read_bytes()) == 0


@pytest.mark.parametrize("kind", sorted(DOCUMENT_CORRUPTION_KINDS))
def test_document_corruptions(tmp_path: Path, kind: str) -> None:
    pkg = generate_package(tmp_path, scale=0.0005, with_documents=True)
    before = tree_sha256(pkg.path)
    path = corrupt(pkg.path, kind)
    after = tree_sha256(pkg.path)
    assert {k for k in before if before[k] != after[k]} == {str(path.relative_to(pkg.path))}
    data = path.read_bytes()
    if kind == "xml_external_entity":
        assert b'<!ENTITY x SYSTEM "file:///etc/passwd">' in data
        root = etree.fromstring(data, strict_parser())
        assert "root:" not in etree.tostring(root, encoding="unicode")
        assert b"&x;" in data
    elif kind == "xml_not_well_formed":
        with pytest.raises(etree.XMLSyntaxError):
            etree.fromstring(data, strict_parser())
    elif kind == "pdf_encrypted":
        # Intact otherwise, but pdfium asks for a password (FPDF_ERR_PASSWORD = 4).
        assert data.startswith(b"%PDF")
        assert data.rstrip().endswith(b"%%EOF")
        assert b"/Encrypt << /Filter /Standard" in data
        with pytest.raises(pdfium.PdfiumError) as refused:
            pdfium.PdfDocument(path)
        assert refused.value.err_code == 4
    else:
        assert path.suffix == ".pdf"
        assert not data.rstrip().endswith(b"%%EOF")
        with pytest.raises(pdfium.PdfiumError):
            pdfium.PdfDocument(path)
        if kind == "pdf_not_a_pdf":
            assert not data.startswith(b"%PDF")
        else:
            assert data.startswith(b"%PDF")


def test_document_corruption_needs_documents(tmp_path: Path) -> None:
    pkg = generate_package(tmp_path, scale=0.0005)
    with pytest.raises(FileNotFoundError):
        corrupt(pkg.path, "pdf_truncated")
    with pytest.raises(ValueError, match="does not take a group"):
        corrupt(pkg.path, "xml_not_well_formed", group="FI/FI")


# ------------------------------------------------------------------ zip and sample


def test_make_zip_is_deterministic_with_release_on_top(tmp_path: Path) -> None:
    pkg = generate_package(tmp_path / "src", scale=0.0005, with_documents=True)
    first = make_zip(pkg.path, tmp_path / "a.zip")
    second = make_zip(pkg.path, tmp_path / "b.zip")
    assert first.read_bytes() == second.read_bytes()
    with zipfile.ZipFile(first) as archive:
        names = archive.namelist()
        assert all(name.startswith(f"{pkg.release}/") for name in names)
        files = {n.removeprefix(f"{pkg.release}/") for n in names if not n.endswith("/")}
        assert files == set(tree_sha256(pkg.path))
    with pytest.raises(FileExistsError):
        make_zip(pkg.path, first)


def test_sample_has_small_documents() -> None:
    root = sample_package_path()
    for group in DOCUMENT_GROUPS:
        assert any((root / group).iterdir()), group
    assert len(list((root / "REFERENCE/IPC_TEIGI").iterdir())) == 2
    for group in ("FTERM/ADD_CODE", "FTERM/ADD_CODE_E", "IPC_KAISEI"):
        assert len(list((root / group).iterdir())) == 1
    assert sum(p.stat().st_size for p in root.rglob("*") if p.is_file()) < 300_000
    strict_failures = 0
    for path in (root / "FI/FI_KAISEI_DOC").glob("*.xml"):
        try:
            path.read_bytes().decode("shift_jis")
        except UnicodeDecodeError:
            strict_failures += 1
    assert strict_failures == 1
