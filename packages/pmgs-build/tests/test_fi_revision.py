"""FI revision XML (``FI/FI_KAISEI_DOC``) and its links (``FI/FI_KAISEI_LINK``), built for real.

A generated package (scale 0.01, documents on, the other document groups removed) is built
once into SQLite and compared with what the generator says it wrote; hostile and broken
copies of it must stop the build with the file named and no database left. The expected
values come from the generator's counts and from reading the files back with lxml here, never
from the adapter's own helpers.
"""

from __future__ import annotations

import csv
import io
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from lxml import etree

from pmgs_build import BuildError, IssueCode, build_database
from pmgs_core import PMGSStore, parse_code
from pmgs_testkit import DOCUMENT_GROUPS, GeneratedPackage, corrupt, generate_package

HANDMADE = Path(__file__).parent / "data" / "handmade" / "JPPM2026001"
HANDMADE_XML = "FI/FI_KAISEI_DOC/B60J.xml"


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> GeneratedPackage:
    generated = generate_package(
        tmp_path_factory.mktemp("fi_revision"), scale=0.01, seed=5, with_documents=True
    )
    for group in DOCUMENT_GROUPS:
        if group != "FI/FI_KAISEI_DOC":
            shutil.rmtree(generated.path / group)
    return generated


@pytest.fixture(scope="module")
def database(package: GeneratedPackage, tmp_path_factory: pytest.TempPathFactory) -> Path:
    output = tmp_path_factory.mktemp("fi_revision_db") / "pmgs.sqlite"
    build_database(package.path, output)
    return output


@pytest.fixture
def db(database: Path) -> Iterator[sqlite3.Connection]:
    conn = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    yield conn
    conn.close()


@pytest.fixture
def store(database: Path) -> Iterator[PMGSStore]:
    with PMGSStore.open(database) as opened:
        yield opened


def _infors(path: Path) -> list[etree._Element]:
    parser = etree.XMLParser(resolve_entities=False, no_network=True, recover=False)
    return list(etree.fromstring(path.read_bytes(), parser).iter("infor"))


def _link_rows(package: GeneratedPackage) -> list[tuple[str, str]]:
    rows: list[tuple[str, str]] = []
    for path in sorted((package.path / "FI/FI_KAISEI_LINK").iterdir()):
        text = path.read_text(encoding="utf-8-sig")
        rows.extend((cells[0], ",".join(cells[1:])) for cells in csv.reader(io.StringIO(text)))
    return rows


def _by_group(db: sqlite3.Connection, sql: str, group: str) -> int:
    return int(db.execute(sql, (group,)).fetchone()[0])


# -- the generated package, built ----------------------------------------------------------


def test_one_document_and_one_segment_per_infor(
    db: sqlite3.Connection, package: GeneratedPackage
) -> None:
    expected = package.expected
    assert db.execute("SELECT COUNT(*) FROM document WHERE kind = 'fi_revision'").fetchone() == (
        expected.documents["fi_revision"],
    )
    assert db.execute(
        "SELECT COUNT(*) FROM document_text t JOIN document d ON d.id = t.document_id "
        "WHERE d.kind = 'fi_revision'"
    ).fetchone() == (expected.document_segments["fi_revision"],)
    counts = dict(
        db.execute(
            "SELECT path, record_count FROM source_file WHERE data_group = 'FI/FI_KAISEI_DOC'"
        ).fetchall()
    )
    assert sum(counts.values()) == package.rows["FI/FI_KAISEI_DOC"]
    statuses = dict(
        db.execute(
            "SELECT path, status FROM source_file WHERE data_group = 'FI/FI_KAISEI_DOC'"
        ).fetchall()
    )
    assert {p for p, s in statuses.items() if s == "retained"} == {"FI/FI_KAISEI_DOC/FI_KAISEI.xsl"}
    assert db.execute(
        "SELECT COUNT(*) FROM document WHERE kind = 'fi_revision' "
        "AND (language != 'ja' OR title != 'FI改正情報 ' || substr(document_key, 13))"
    ).fetchone() == (0,)


def test_segments_follow_the_infor_elements(
    db: sqlite3.Connection, package: GeneratedPackage
) -> None:
    relative = package.examples["fi_revision_file"]
    infors = _infors(package.path / relative)
    rows = db.execute(
        "SELECT t.sequence_number, t.heading, t.text_type, t.body, t.locator, s.path "
        "FROM document_text t JOIN document d ON d.id = t.document_id "
        "JOIN source_file s ON s.id = t.source_file_id WHERE d.document_key = ? "
        "ORDER BY t.sequence_number",
        (package.examples["fi_revision_document"],),
    ).fetchall()
    assert len(rows) == len(infors) >= 4
    for number, (row, infor) in enumerate(zip(rows, infors, strict=True), start=1):
        sequence, heading, text_type, body, locator, path = row
        assert (sequence, locator, path) == (number, f"element:infor[{number}]", relative)
        code = infor.find("FI")
        assert code is not None
        assert heading == parse_code("fi", code.text or "").canonical
        assert text_type == code.get("attr")
        for name in ("title", "oldtitle", "newtitle", "trans"):
            value = infor.findtext(name) or ""
            assert value in body
        day = infor.findtext("date") or ""
        assert f"{day[:4]}-{day[4:6]}-{day[6:]}" in body


def test_amended_to_relations_from_trans(db: sqlite3.Connection, package: GeneratedPackage) -> None:
    assert package.expected.document_groups is not None
    amended = _by_group(
        db,
        "SELECT COUNT(*) FROM relation r JOIN source_file s ON s.id = r.source_file_id "
        "WHERE r.kind = 'amended_to' AND s.data_group = ?",
        "FI/FI_KAISEI_DOC",
    )
    assert amended == package.expected.document_groups.fi_revision_amended_to >= 2
    assert db.execute(
        "SELECT COUNT(DISTINCT sequence), COUNT(*) FROM relation WHERE kind = 'amended_to'"
    ).fetchone() == (amended, amended)
    source, target = (
        package.examples["fi_revision_amended_from"],
        package.examples["fi_revision_amended_to"],
    )
    assert db.execute(
        "SELECT COUNT(*) FROM relation r JOIN concept a ON a.id = r.from_concept_id "
        "JOIN concept b ON b.id = r.to_concept_id WHERE r.kind = 'amended_to' "
        "AND a.code = ? AND b.code = ? AND r.locator GLOB 'element:infor[[][1-9]*]'",
        (source, target),
    ).fetchone() == (1,)


def test_cp932_file_falls_back_once_and_keeps_its_text(
    db: sqlite3.Connection, package: GeneratedPackage
) -> None:
    relative = package.examples["cp932_xml"]
    warnings = db.execute(
        "SELECT i.code, s.path FROM build_issue i LEFT JOIN source_file s "
        "ON s.id = i.source_file_id WHERE i.code = ?",
        (IssueCode.XML_CP932_FALLBACK,),
    ).fetchall()
    assert warnings == [(IssueCode.XML_CP932_FALLBACK, relative)]
    assert package.expected.warnings["XML_CP932_FALLBACK"] == 1
    text = package.examples["cp932_text"]
    bodies = [
        row[0]
        for row in db.execute(
            "SELECT t.body FROM document_text t JOIN source_file s ON s.id = t.source_file_id "
            "WHERE s.path = ? ORDER BY t.sequence_number",
            (relative,),
        )
    ]
    assert text in bodies[0]
    assert sum(text in body for body in bodies) == 1


def test_historical_codes_are_reference_only_and_not_searchable(
    db: sqlite3.Connection, store: PMGSStore, package: GeneratedPackage
) -> None:
    assert db.execute(
        "SELECT COUNT(*) FROM concept WHERE scheme = 'fi' AND status = 'reference_only'"
    ).fetchone() == (package.expected.reference_only[("fi", "")],)
    historical = package.examples["fi_revision_historical_code"]
    record = store.lookup("fi", historical)
    assert record["record_status"] == "reference_only"
    assert record["texts"] == []
    assert [d["document_id"] for d in record["documents"]] == [f"fi_revision:{historical[:4]}"]
    for query in (historical, package.examples["cp932_text"]):
        hits = store.search(query, schemes=["fi"], limit=100)["results"]
        assert all(hit["record_status"] == "canonical" for hit in hits)
        assert historical not in {hit["code"] for hit in hits}


def test_every_link_row_resolves_to_its_subclass_document(
    db: sqlite3.Connection, package: GeneratedPackage
) -> None:
    rows = _link_rows(package)
    assert len(rows) == package.rows["FI/FI_KAISEI_LINK"] >= 2
    for cell, description in rows:
        code = parse_code("fi", cell).canonical
        linked = db.execute(
            "SELECT COUNT(*) FROM document_link l JOIN document d ON d.id = l.document_id "
            "JOIN concept c ON c.id = l.concept_id WHERE d.document_key = ? AND c.code = ? "
            "AND c.scheme = 'fi' AND l.role = 'subject'",
            (f"fi_revision:{code[:4]}", code),
        ).fetchone()[0]
        assert linked == 1, code  # the XML names every link code, and links are not doubled
        notes = db.execute(
            "SELECT p.value, s.data_group FROM property p JOIN revision r ON r.id = p.revision_id "
            "JOIN concept c ON c.id = r.concept_id JOIN source_file s ON s.id = p.source_file_id "
            "WHERE c.scheme = 'fi' AND c.code = ? AND p.name = 'fi_revision_note'",
            (code,),
        ).fetchall()
        assert (description.strip(), "FI/FI_KAISEI_LINK") in notes
    comma = package.examples["fi_kaisei_link_comma_row"]
    assert (
        db.execute(
            "SELECT COUNT(*) FROM property p JOIN revision r ON r.id = p.revision_id "
            "JOIN concept c ON c.id = r.concept_id WHERE c.code = ? "
            "AND p.name = 'fi_revision_note' AND p.value LIKE '%,%'",
            (comma,),
        ).fetchone()[0]
        >= 1
    )


def test_store_shows_the_revision_document(store: PMGSStore, package: GeneratedPackage) -> None:
    key = package.examples["fi_revision_document"]
    subclass = key.split(":", 1)[1]
    infors = _infors(package.path / package.examples["fi_revision_file"])
    page = store.get_document(key)
    assert (page["kind"], page["language"], page["title"]) == (
        "fi_revision",
        "ja",
        f"FI改正情報 {subclass}",
    )
    assert page["segment_count"] == len(infors)
    assert page["segments"][0]["source"]["locator"] == "element:infor[1]"
    codes = {parse_code("fi", i.findtext("FI") or "").canonical for i in infors}
    related = page["related_classifications"]
    assert {r["code"] for r in related} == codes
    assert {r["role"] for r in related} == {"subject"}
    assert len(related) == len(codes)
    section = store.get_document(key, section=2)
    assert [s["section"] for s in section["segments"]] == [2]
    amended = package.examples["fi_revision_amended_from"]
    record = store.lookup("fi", amended)
    targets = {
        rel["target"]["code"]
        for rel in record["relations"]
        if rel["kind"] == "amended_to" and rel["direction"] == "outgoing"
    }
    assert package.examples["fi_revision_amended_to"] in targets


# -- hostile and broken copies -----------------------------------------------------------------


@pytest.fixture
def copy(package: GeneratedPackage, tmp_path: Path) -> Path:
    root = tmp_path / "src" / package.path.name
    shutil.copytree(package.path, root)
    return root


def _fails(root: Path, out_dir: Path) -> BuildError:
    out_dir.mkdir()
    with pytest.raises(BuildError) as raised:
        build_database(root, out_dir / "pmgs.sqlite", strict=True)
    assert list(out_dir.iterdir()) == [], "a database or temporary file was left behind"
    return raised.value


def test_external_entity_is_refused_and_never_read(copy: Path, tmp_path: Path) -> None:
    damaged = corrupt(copy, "xml_external_entity")
    assert damaged.name == "G06F.xml"
    error = _fails(copy, tmp_path / "out")
    assert error.code == IssueCode.XML_DOCTYPE_REFUSED
    assert [(i.code, i.source_path) for i in error.issues] == [
        (IssueCode.XML_DOCTYPE_REFUSED, "FI/FI_KAISEI_DOC/G06F.xml")
    ]
    passwd = Path("/etc/passwd")
    if passwd.is_file():
        first_line = passwd.read_text(encoding="utf-8", errors="replace").splitlines()[0]
        assert first_line not in str(error)
        assert all(first_line not in i.message for i in error.issues)


def test_not_well_formed_is_malformed(copy: Path, tmp_path: Path) -> None:
    corrupt(copy, "xml_not_well_formed")
    error = _fails(copy, tmp_path / "out")
    assert [(i.code, i.source_path) for i in error.issues] == [
        (IssueCode.XML_MALFORMED, "FI/FI_KAISEI_DOC/G06F.xml")
    ]


def test_bytes_invalid_in_both_encodings(copy: Path, tmp_path: Path) -> None:
    path = copy / "FI/FI_KAISEI_DOC/G06F.xml"
    data = path.read_bytes()
    start = data.index(b"<title>") + len(b"<title>")
    path.write_bytes(data[:start] + b"\x81\x20" + data[start:])  # lead byte, no trail byte
    error = _fails(copy, tmp_path / "out")
    assert [(i.code, i.source_path) for i in error.issues] == [
        (IssueCode.XML_ENCODING, "FI/FI_KAISEI_DOC/G06F.xml")
    ]


def test_link_to_a_subclass_without_xml(
    copy: Path, tmp_path: Path, package: GeneratedPackage
) -> None:
    cell, _ = _link_rows(package)[0]
    subclass = parse_code("fi", cell).canonical[:4]
    (copy / "FI/FI_KAISEI_DOC" / f"{subclass}.xml").unlink()
    error = _fails(copy, tmp_path / "out")
    assert error.code == IssueCode.FI_REVISION_LINK_UNRESOLVED
    assert {i.code for i in error.issues} == {IssueCode.FI_REVISION_LINK_UNRESOLVED}
    assert all(i.source_path and "FI/FI_KAISEI_LINK/" in i.source_path for i in error.issues)
    assert all(i.locator and i.locator.startswith("row:") for i in error.issues)


# -- structure checks, on a copy of the hand-made package (one tiny XML) ---------------------------

_GOOD_INFOR = (
    '<infor><FI attr="chg">B60J5/00</FI><title>DOOR</title><oldtitle>DOOR</oldtitle>'
    "<newtitle>DOORS</newtitle><trans></trans><date>20100601</date></infor>"
)


@pytest.mark.parametrize(
    ("body", "code"),
    [
        (f'<other trg="B60J">{_GOOD_INFOR}</other>', IssueCode.XML_STRUCTURE_INVALID),
        (f"<data>{_GOOD_INFOR}</data>", IssueCode.XML_STRUCTURE_INVALID),
        (f'<data trg="B60K">{_GOOD_INFOR}</data>', IssueCode.XML_STRUCTURE_INVALID),
        (
            '<data trg="B60J"><infor><title>x</title></infor></data>',
            IssueCode.XML_STRUCTURE_INVALID,
        ),
        (
            '<data trg="B60J"><infor><FI>B60J5/00</FI><FI>B60J7/00</FI></infor></data>',
            IssueCode.XML_STRUCTURE_INVALID,
        ),
        (f'<data trg="B60J">{_GOOD_INFOR}<note/></data>', IssueCode.XML_STRUCTURE_INVALID),
        ('<data trg="B60J"><infor><FI>not a code</FI></infor></data>', IssueCode.CODE_INVALID),
        (f'<data trg="B60J">{_GOOD_INFOR}', IssueCode.XML_MALFORMED),
        (
            '<!DOCTYPE data [<!ENTITY big "xxxxxxxx">]><data trg="B60J">&big;</data>',
            IssueCode.XML_DOCTYPE_REFUSED,
        ),
    ],
)
def test_structure_errors(tmp_path: Path, body: str, code: str) -> None:
    root = tmp_path / "src" / HANDMADE.name
    shutil.copytree(HANDMADE, root)
    (root / HANDMADE_XML).write_bytes(
        ('<?xml version="1.0" encoding="Shift_JIS"?>\n' + body).encode("shift_jis")
    )
    error = _fails(root, tmp_path / "out")
    assert error.code == code, [str(i) for i in error.issues]
    assert error.issues[0].source_path == HANDMADE_XML


def test_package_without_revision_xml_builds_as_before(tmp_path: Path) -> None:
    root = tmp_path / "src" / HANDMADE.name
    shutil.copytree(HANDMADE, root)
    shutil.rmtree(root / "FI/FI_KAISEI_DOC")
    build_database(root, tmp_path / "out.sqlite")
    conn = sqlite3.connect(tmp_path / "out.sqlite")
    try:
        link_file = "FI/FI_KAISEI_LINK/fiLink_B_20260331.csv"
        assert conn.execute(
            "SELECT status, record_count FROM source_file WHERE path = ?", (link_file,)
        ).fetchone() == ("parsed", 2)
        assert conn.execute(
            "SELECT (SELECT COUNT(*) FROM document WHERE kind = 'fi_revision'), "
            "(SELECT COUNT(*) FROM property WHERE name = 'fi_revision_note'), "
            "(SELECT COUNT(*) FROM document_link l JOIN source_file s "
            "ON s.id = l.source_file_id WHERE s.path = ?)",
            (link_file,),
        ).fetchone() == (0, 0, 0)
    finally:
        conn.close()
