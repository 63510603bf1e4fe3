"""The revision-XML reader on fragments written here, one file at a time (issue 34).

Each test writes one ``FI/FI_KAISEI_DOC/<subclass>.xml`` of a few lines, hands it to the
reader with a real build context over an in-memory SQLite database made by
``pmgs_core.building.create_schema``, and compares what was written (documents, segments, links,
``amended_to`` relations, reference-only concepts) and the issues recorded with records and
messages written out by hand. No package is generated or built, so the whole file runs in
about a second and the mutation session judges each mutant of ``fi_revision.py`` in seconds;
the end-to-end tests on a built package stay in ``test_fi_revision.py``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from pmgs_build.build_issues import IssueLog
from pmgs_build.database.inserts import ConceptRegistry, Loader
from pmgs_build.source.files import SourceFile
from pmgs_build.source.parsers.context import BuildContext
from pmgs_build.source.parsers.fi_revision import fi_revision_body, parse_fi_revision
from pmgs_core.building import create_schema

GROUP = "FI/FI_KAISEI_DOC"
SJIS_DECL = '<?xml version="1.0" encoding="Shift_JIS"?>\n'


@dataclass
class Read:
    """What one or more files left behind: rows by table and the issues, in order."""

    records: list[int]
    documents: list[tuple[object, ...]]
    segments: list[tuple[object, ...]]
    links: list[tuple[object, ...]]
    relations: list[tuple[object, ...]]
    concepts: list[tuple[object, ...]]
    issues: list[tuple[str, str, str, str | None, str | None]]


@pytest.fixture
def conn() -> Iterator[sqlite3.Connection]:
    connection = sqlite3.connect(":memory:")
    create_schema(connection)
    yield connection
    connection.close()


def _read(conn: sqlite3.Connection, tmp_path: Path, files: list[tuple[str, bytes]]) -> Read:
    loader = Loader(conn)
    registry = ConceptRegistry(loader)
    # strict: the XML codes are recorded as errors here rather than quarantined (the build
    # turns either into a failed file; the messages and locators are the same)
    log = IssueLog(strict=True)
    ctx = BuildContext(loader, registry, log, "2026-04-01")
    records = []
    for number, (name, data) in enumerate(files, start=1):
        path = tmp_path / f"{number}" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        source = SourceFile(number, f"{GROUP}/{name}", path, len(data), "0" * 64, GROUP, "xml")
        records.append(parse_fi_revision(ctx, source).records)
    registry.finish()
    loader.flush()
    return Read(
        records=records,
        documents=conn.execute(
            "SELECT id, document_key, kind, language, title, source_file_id, locator "
            "FROM document ORDER BY id"
        ).fetchall(),
        segments=conn.execute(
            "SELECT d.document_key, t.sequence_number, t.page, t.heading, t.text_type, t.body, "
            "t.source_file_id, t.locator FROM document_text t "
            "JOIN document d ON d.id = t.document_id ORDER BY d.id, t.sequence_number"
        ).fetchall(),
        links=conn.execute(
            "SELECT d.document_key, c.code, l.role, l.sequence, l.locator FROM document_link l "
            "JOIN document d ON d.id = l.document_id JOIN concept c ON c.id = l.concept_id "
            "ORDER BY d.id, l.sequence"
        ).fetchall(),
        relations=conn.execute(
            "SELECT r.kind, f.code, t.code, r.from_revision_id, r.to_revision_id, r.sequence, "
            "r.source_file_id, r.locator FROM relation r "
            "JOIN concept f ON f.id = r.from_concept_id "
            "JOIN concept t ON t.id = r.to_concept_id ORDER BY r.sequence"
        ).fetchall(),
        concepts=conn.execute(
            "SELECT scheme, edition, code, kind, status, source_file_id, locator FROM concept "
            "ORDER BY code"
        ).fetchall(),
        issues=[
            (i.severity, i.code, i.message, i.source_path, i.locator)
            for i in (*log.warnings(), *log.errors)
        ],
    )


def _one(conn: sqlite3.Connection, tmp_path: Path, text: str, name: str = "B60J.xml") -> Read:
    return _read(conn, tmp_path, [(name, text.encode("utf-8"))])


def _error(
    code: str, message: str, name: str = "B60J.xml", locator: str | None = None
) -> tuple[str, str, str, str | None, str | None]:
    return ("error", code, message, f"{GROUP}/{name}", locator)


# -- a well-formed file: every row written ----------------------------------------------------

_GOOD = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<?xml-stylesheet type="text/xsl" href="FI_KAISEI.xsl"?>\n'
    '<data trg=" B60J ">\n'
    "  <!-- a comment between entries -->\n"
    "  <infor>\n"
    '    <FI attr=" del "> B60J1/00,800 </FI>\n'
    "    <title>  窓の<b>開閉</b>装置  </title>\n"
    "    <oldtitle>旧の窓</oldtitle>\n"
    "    <newtitle></newtitle>\n"
    "    <!-- no data here -->\n"
    "    <trans> B60J5/00 </trans>\n"
    "    <date>20140701</date>\n"
    "  </infor>\n"
    "  <?keep going?>\n"
    "  <infor>\n"
    '    <date>2021-04</date><FI attr="  ">B60J1/00</FI><newtitle>新</newtitle>\n'
    "  </infor>\n"
    "  <infor>\n"
    '    <FI attr="chg">B60J1/02</FI><trans>B60J1/00,800</trans>\n'
    "  </infor>\n"
    "</data>\n"
)


def test_a_file_becomes_one_document_its_segments_links_and_relations(
    conn: sqlite3.Connection, tmp_path: Path
) -> None:
    read = _one(conn, tmp_path, _GOOD)
    assert read.records == [3]
    assert read.issues == []
    assert read.documents == [
        (1, "fi_revision:B60J", "fi_revision", "ja", "FI改正情報 B60J", 1, "element:data")
    ]
    key = "fi_revision:B60J"
    assert read.segments == [
        (
            key,
            1,
            None,
            "B60J1/00,800",
            "del",
            "名称: 窓の開閉装置 / 旧名称: 旧の窓 / 移行先: B60J5/00 / 日付: 2014-07-01",
            1,
            "element:infor[1]",
        ),
        (key, 2, None, "B60J1/00", None, "新名称: 新 / 日付: 2021-04", 1, "element:infor[2]"),
        (key, 3, None, "B60J1/02", "chg", "移行先: B60J1/00,800", 1, "element:infor[3]"),
    ]
    assert read.links == [
        (key, "B60J1/00,800", "subject", 1, "element:infor[1]"),
        (key, "B60J1/00", "subject", 2, "element:infor[2]"),
        (key, "B60J1/02", "subject", 3, "element:infor[3]"),
    ]
    assert read.relations == [
        ("amended_to", "B60J1/00,800", "B60J5/00", None, None, 1, 1, "element:infor[1]"),
        ("amended_to", "B60J1/02", "B60J1/00,800", None, None, 2, 1, "element:infor[3]"),
    ]
    # every code is only referenced here: reference-only concepts, at their first mention
    assert read.concepts == [
        ("fi", "", "B60J1/00", "main_group", "reference_only", 1, "element:infor[2]"),
        ("fi", "", "B60J1/00,800", "main_group", "reference_only", 1, "element:infor[1]"),
        ("fi", "", "B60J1/02", "subgroup", "reference_only", 1, "element:infor[3]"),
        ("fi", "", "B60J5/00", "main_group", "reference_only", 1, "element:infor[1]"),
    ]


def test_no_declaration_is_utf8_and_a_bom_wins_over_the_declaration(
    conn: sqlite3.Connection, tmp_path: Path
) -> None:
    body = '<data trg="B60J"><infor><FI>B60J1/00</FI><title>窓</title></infor></data>'
    bom = b"\xef\xbb\xbf" + (SJIS_DECL + body.replace("B60J", "B60K")).encode("utf-8")
    read = _read(conn, tmp_path, [("B60J.xml", body.encode("utf-8")), ("B60K.xml", bom)])
    assert read.issues == []
    assert read.records == [1, 1]
    assert [(s[0], s[3], s[5]) for s in read.segments] == [
        ("fi_revision:B60J", "B60J1/00", "名称: 窓"),
        ("fi_revision:B60K", "B60K1/00", "名称: 窓"),
    ]


def test_declared_encodings_in_either_quote_and_any_case(
    conn: sqlite3.Connection, tmp_path: Path
) -> None:
    body = '<data trg="{s}"><infor><FI>{s}1/00</FI><title>窓と扉</title></infor></data>'
    files = [
        ("B60J.xml", (SJIS_DECL + body.format(s="B60J")).encode("shift_jis")),
        (
            "B60K.xml",
            ("<?xml version='1.0' encoding='euc-jp'?>" + body.format(s="B60K")).encode("euc_jp"),
        ),
        (
            "B60L.xml",
            ('<?xml version="1.0"  encoding = "SHIFT_JIS"?>' + body.format(s="B60L")).encode(
                "shift_jis"
            ),
        ),
    ]
    read = _read(conn, tmp_path, files)
    assert read.issues == []
    assert [(s[0], s[5]) for s in read.segments] == [
        ("fi_revision:B60J", "名称: 窓と扉"),
        ("fi_revision:B60K", "名称: 窓と扉"),
        ("fi_revision:B60L", "名称: 窓と扉"),
    ]


def test_cp932_only_characters_are_read_with_one_warning(
    conn: sqlite3.Connection, tmp_path: Path
) -> None:
    text = (
        SJIS_DECL + '<data trg="B60J"><infor><FI>B60J1/00</FI><title>髙①㈱</title></infor></data>'
    )
    read = _read(conn, tmp_path, [("B60J.xml", text.encode("cp932"))])
    assert read.issues == [
        (
            "warning",
            "XML_CP932_FALLBACK",
            "declared Shift_JIS but holds CP932-only characters; read as CP932",
            f"{GROUP}/B60J.xml",
            None,
        )
    ]
    assert [s[5] for s in read.segments] == ["名称: 髙①㈱"]
    assert read.records == [1]


# -- files refused whole: nothing written, one error naming the file --------------------------


def _refused(read: Read) -> None:
    assert read.records == [0]
    assert read.documents == read.segments == read.links == read.relations == []
    assert read.concepts == []


@pytest.mark.parametrize(
    ("data", "code", "message"),
    [
        (
            b'<!DOCTYPE data [<!ENTITY big "x">]><data trg="B60J">&big;</data>',
            "XML_DOCTYPE_REFUSED",
            "the file contains '<!DOCTYPE'; DTDs and entities are never read",
        ),
        (
            b'<data trg="B60J"><!-- <!ENTITY x "y"> --></data>',
            "XML_DOCTYPE_REFUSED",
            "the file contains '<!ENTITY'; DTDs and entities are never read",
        ),
        (
            # a DOCTYPE the byte scan cannot see (UTF-7 spells '<!' otherwise) still stops
            b'<?xml version="1.0" encoding="utf-7"?>+ADwAIQ-DOCTYPE data+AD4-<data trg="B60J"/>',
            "XML_DOCTYPE_REFUSED",
            "the file declares a DOCTYPE",
        ),
        (
            b'<?xml version="1.0" encoding="x-no-such"?><data trg="B60J"/>',
            "XML_ENCODING",
            "unknown declared encoding 'x-no-such'",
        ),
        (
            b'<?xml version="1.0" encoding="UTF-8"?><data trg="B60J">\xff</data>',
            "XML_ENCODING",
            "not valid utf-8 at byte 55: invalid start byte",
        ),
        (
            b'<?xml version="1.0" encoding="euc-jp"?><data trg="B60J">\x8e</data>',
            "XML_ENCODING",
            "not valid euc_jp at byte 56: illegal multibyte sequence",
        ),
        (
            SJIS_DECL.encode() + b'<data trg="B60J">\x81\x20</data>',
            "XML_ENCODING",
            "not valid Shift_JIS at byte 60, nor valid CP932 at byte 60: "
            "illegal multibyte sequence",
        ),
        (
            SJIS_DECL.encode() + b'<data trg="B60J">\x80</data>',
            "XML_ENCODING",
            "not valid Shift_JIS at byte 60, and holds bytes CP932 leaves undefined",
        ),
        (
            SJIS_DECL.encode() + '<data trg="B60J">①<b></data>'.encode("cp932"),
            "XML_ENCODING",
            "not valid Shift_JIS at byte 60, and as CP932 it is not well-formed: "
            "line 2, column 29: Opening and ending tag mismatch: b line 2 and data, "
            "line 2, column 29",
        ),
        (
            b'<data trg="B60J"><infor></data>',
            "XML_MALFORMED",
            "not well-formed: line 1, column 32: "
            "Opening and ending tag mismatch: infor line 1 and data, line 1, column 32",
        ),
        (
            b"",
            "XML_MALFORMED",
            "not well-formed: line 1, column 1: Document is empty, line 1, column 1",
        ),
    ],
)
def test_a_file_that_cannot_be_read_is_refused_whole(
    conn: sqlite3.Connection, tmp_path: Path, data: bytes, code: str, message: str
) -> None:
    read = _read(conn, tmp_path, [("B60J.xml", data)])
    assert read.issues == [_error(code, message)]
    _refused(read)


def _utf7_hidden(text: str) -> bytes:
    """A UTF-7 file whose ``<!`` are spelled ``+ADwAIQ-``: the byte scan sees no DOCTYPE."""
    body = text.replace("<!", "+ADwAIQ-")
    data = ('<?xml version="1.0" encoding="utf-7"?>' + body).encode("ascii")
    assert b"<!" not in data
    return data


@pytest.mark.parametrize(
    "text",
    [
        # a missing external entity (an entity resolver would fail on it)
        '<!DOCTYPE data [<!ENTITY e SYSTEM "{dir}/missing.ent">]><data trg="B60J">&e;</data>',
        # an external entity that is not well-formed: reading it would fail the parse
        '<!DOCTYPE data [<!ENTITY e SYSTEM "{dir}/bad.ent">]><data trg="B60J">&e;</data>',
        # an external DTD that is not well-formed: loading it would fail the parse
        '<!DOCTYPE data SYSTEM "{dir}/bad.dtd"><data trg="B60J"/>',
    ],
)
def test_a_doctype_past_the_byte_scan_is_refused_without_loading_anything(
    conn: sqlite3.Connection, tmp_path: Path, text: str
) -> None:
    (tmp_path / "bad.ent").write_text("<unclosed>", "ascii")
    (tmp_path / "bad.dtd").write_text("<!ELEMENT data (", "ascii")
    data = _utf7_hidden(text.format(dir=tmp_path))
    read = _read(conn, tmp_path, [("B60J.xml", data)])
    assert read.issues == [_error("XML_DOCTYPE_REFUSED", "the file declares a DOCTYPE")]
    _refused(read)


def test_a_document_nested_deeper_than_libxml2s_default_is_malformed(
    conn: sqlite3.Connection, tmp_path: Path
) -> None:
    text = '<data trg="B60J"><infor><FI>B60J1/00</FI><title>' + "<b>" * 300 + "</b>" * 300
    read = _one(conn, tmp_path, text + "</title></infor></data>")
    assert read.issues == [
        _error(
            "XML_MALFORMED",
            "not well-formed: line 1, column 810: Excessive depth in document: 256, "
            "use XML_PARSE_HUGE option, line 1, column 810",
        )
    ]
    _refused(read)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        # no declaration: UTF-8, named as Python names it
        (b'<data trg="B60J">\xff</data>', "not valid utf-8 at byte 17: invalid start byte"),
        # a BOM: UTF-8 with its signature, whatever is declared
        (
            b'\xef\xbb\xbf<?xml version="1.0" encoding="Shift_JIS"?><data trg="B60J">\xff</data>',
            "not valid utf-8-sig at byte 59: invalid start byte",
        ),
    ],
)
def test_the_codec_is_named_in_the_error(
    conn: sqlite3.Connection, tmp_path: Path, data: bytes, message: str
) -> None:
    read = _read(conn, tmp_path, [("B60J.xml", data)])
    assert read.issues == [_error("XML_ENCODING", message)]
    _refused(read)


@pytest.mark.parametrize(("padding", "read_as_declared"), [(473, True), (474, False)])
def test_the_declaration_is_read_from_the_first_512_bytes(
    conn: sqlite3.Connection, tmp_path: Path, padding: int, read_as_declared: bool
) -> None:
    # the declared encoding's closing quote is byte 511 (padding 473) or byte 512 (474)
    declaration = '<?xml version="1.0"' + " " * padding + 'encoding="Shift_JIS"?>'
    body = '<data trg="B60J"><infor><FI>B60J1/00</FI><title>窓</title></infor></data>'
    data = (declaration + body).encode("shift_jis")
    read = _read(conn, tmp_path, [("B60J.xml", data)])
    if read_as_declared:
        assert read.issues == []
        assert [s[5] for s in read.segments] == ["名称: 窓"]
    else:
        assert read.issues == [
            _error("XML_ENCODING", "not valid utf-8 at byte 563: invalid start byte")
        ]
        _refused(read)


@pytest.mark.parametrize(
    ("name", "root", "code", "message"),
    [
        (
            "B60J.xml",
            '<other trg="B60J"/>',
            "XML_STRUCTURE_INVALID",
            "root element is <other>, not <data>",
        ),
        ("B60J.xml", "<data/>", "XML_STRUCTURE_INVALID", "<data> has no trg attribute"),
        ("B60J.xml", '<data trg="  "/>', "XML_STRUCTURE_INVALID", "<data> has no trg attribute"),
        (
            "B60J.xml",
            '<data trg="B60K"/>',
            "XML_STRUCTURE_INVALID",
            "trg 'B60K' is not the file's subclass 'B60J'",
        ),
        (
            "B60.xml",
            '<data trg="B60"/>',
            "XML_STRUCTURE_INVALID",
            "trg 'B60' is not an FI subclass",
        ),
        (
            "b60j.xml",
            '<data trg="b60j"/>',
            "XML_STRUCTURE_INVALID",
            "trg 'b60j' is not an FI subclass",
        ),
        ("QQQ.xml", '<data trg="QQQ"/>', "CODE_INVALID", None),
    ],
)
def test_a_root_that_names_no_subclass_of_its_file_is_refused(
    conn: sqlite3.Connection, tmp_path: Path, name: str, root: str, code: str, message: str | None
) -> None:
    read = _one(conn, tmp_path, root, name)
    assert len(read.issues) == 1 + (name == "b60j.xml")
    issue = read.issues[-1]
    assert issue[:2] == ("error", code)
    assert issue[3:] == (f"{GROUP}/{name}", "element:data")
    if message is not None:
        assert issue[2] == message
    _refused(read)


def test_a_second_file_for_the_same_subclass_is_refused(
    conn: sqlite3.Connection, tmp_path: Path
) -> None:
    text = '<data trg="B60J"><infor><FI>B60J1/00</FI><title>窓</title></infor></data>'
    read = _read(conn, tmp_path, [("B60J.xml", text.encode()), ("B60J.xml", text.encode())])
    assert read.records == [1, 0]
    assert read.issues == [
        (
            "error",
            "XML_STRUCTURE_INVALID",
            "a second revision file for subclass B60J",
            f"{GROUP}/B60J.xml",
            "element:data",
        )
    ]
    assert len(read.documents) == 1
    assert len(read.segments) == 1


# -- entries skipped one by one: the others are still read ------------------------------------


def test_bad_entries_are_reported_by_locator_and_skipped(
    conn: sqlite3.Connection, tmp_path: Path
) -> None:
    text = (
        '<data trg="B60J">'
        "<infor><FI>B60J1/00</FI><title>one</title></infor>"
        "<note>not an entry</note>"
        "<infor><FI>B60J1/02</FI><note/></infor>"
        "<infor><FI>B60J1/04</FI><title>a</title><title>b</title></infor>"
        "<infor><title>no code</title></infor>"
        "<infor><FI>B60J1/06</FI><FI>B60J1/08</FI></infor>"
        "<infor><FI>  </FI></infor>"
        "<infor><FI>not a code</FI></infor>"
        "<infor><FI>B60J1/10</FI><trans>not a code</trans></infor>"
        "<infor><FI>B60J1/12</FI><title>last</title></infor>"
        "</data>"
    )
    read = _one(conn, tmp_path, text)
    assert read.records == [9]

    def at(n: int) -> str:
        return f"element:infor[{n}]"

    structure = "XML_STRUCTURE_INVALID"
    assert [(i[1], i[2], i[4]) for i in read.issues] == [
        (structure, "unexpected <note> in <data>", "element:data"),
        (structure, "unexpected <note> in <infor>", at(2)),
        (structure, "unexpected <title> in <infor>", at(3)),
        (structure, "<infor> has 0 <FI> elements, not exactly one", at(4)),
        (structure, "<infor> has 2 <FI> elements, not exactly one", at(5)),
        (structure, "<FI> is empty", at(6)),
        ("CODE_INVALID", read.issues[6][2], at(7)),
        ("CODE_INVALID", read.issues[7][2], at(8)),
    ]
    assert all(i[0] == "error" and i[3] == f"{GROUP}/B60J.xml" for i in read.issues)
    assert "not a code" in read.issues[6][2]
    # the entry whose trans is no code is kept, without a relation
    # no attr: no text type
    assert [(s[3], s[4], s[5], s[7]) for s in read.segments] == [
        ("B60J1/00", None, "名称: one", at(1)),
        ("B60J1/10", None, "移行先: not a code", at(8)),
        ("B60J1/12", None, "名称: last", at(9)),
    ]
    assert read.relations == []
    assert [link[1] for link in read.links] == ["B60J1/00", "B60J1/10", "B60J1/12"]


def test_relations_are_numbered_across_files(conn: sqlite3.Connection, tmp_path: Path) -> None:
    def one(subclass: str, target: str) -> bytes:
        return (
            f'<data trg="{subclass}"><infor><FI>{subclass}1/00</FI><trans>{target}</trans>'
            "</infor></data>"
        ).encode()

    read = _read(
        conn,
        tmp_path,
        [("B60J.xml", one("B60J", "B60J2/00")), ("B60K.xml", one("B60K", "B60K3/00"))],
    )
    assert [(r[1], r[2], r[5], r[6], r[7]) for r in read.relations] == [
        ("B60J1/00", "B60J2/00", 1, 1, "element:infor[1]"),
        ("B60K1/00", "B60K3/00", 2, 2, "element:infor[1]"),
    ]


# -- the segment body ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "body"),
    [
        ({}, ""),
        ({"title": ""}, ""),
        (
            {
                "date": "20100601",
                "trans": "B60J5/00",
                "newtitle": "N",
                "oldtitle": "O",
                "title": "T",
            },
            "名称: T / 旧名称: O / 新名称: N / 移行先: B60J5/00 / 日付: 2010-06-01",
        ),
        ({"date": "2010060"}, "日付: 2010060"),
        ({"date": "201006011"}, "日付: 201006011"),
        ({"date": "2010-0601"}, "日付: 2010-0601"),
        ({"date": "２０１００６０１"}, "日付: ２０１００６０１"),
        ({"title": "20100601"}, "名称: 20100601"),
        ({"other": "x", "trans": "B60J1/00"}, "移行先: B60J1/00"),
    ],
)
def test_segment_body(fields: dict[str, str], body: str) -> None:
    assert fi_revision_body(fields) == body
