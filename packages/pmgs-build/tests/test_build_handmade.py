"""The hand-made package (tests/data/handmade/JPPM2026001) builds, row by row as documented.

The tree was written by hand from docs/pmgs-source-format.md, independently of the synthetic
generator, so these tests pin the builder to the format page rather than to the generator.
Each quirk of the format page has at least one test here.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from pmgs_build import BuildReport, ProgressEvent, build_database, logical_digest

HANDMADE = Path(__file__).parent / "data" / "handmade" / "JPPM2026001"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[BuildReport, Path]:
    output = tmp_path_factory.mktemp("handmade") / "handmade.sqlite"
    return build_database(HANDMADE, output), output


@pytest.fixture
def db(built: tuple[BuildReport, Path]) -> Iterator[sqlite3.Connection]:
    conn = sqlite3.connect(f"file:{built[1]}?mode=ro", uri=True)
    yield conn
    conn.close()


def _concept(db: sqlite3.Connection, scheme: str, edition: str, code: str) -> tuple[int, str, str]:
    row = db.execute(
        "SELECT id, kind, status FROM concept WHERE scheme = ? AND edition = ? AND code = ?",
        (scheme, edition, code),
    ).fetchone()
    assert row is not None, (scheme, edition, code)
    return int(row[0]), str(row[1]), str(row[2])


def _texts(db: sqlite3.Connection, concept_id: int) -> list[tuple[str, str, int, str]]:
    return db.execute(
        "SELECT t.language, t.text_type, t.line, t.body FROM text t "
        "JOIN revision r ON r.id = t.revision_id WHERE r.concept_id = ? "
        "ORDER BY t.language DESC, t.line",
        (concept_id,),
    ).fetchall()


def _properties(db: sqlite3.Connection, concept_id: int) -> dict[str, str]:
    rows = db.execute(
        "SELECT p.name, p.value FROM property p JOIN revision r ON r.id = p.revision_id "
        "WHERE r.concept_id = ?",
        (concept_id,),
    ).fetchall()
    return {str(name): str(value) for name, value in rows}


def _parent_chain(db: sqlite3.Connection, concept_id: int) -> list[str]:
    chain = []
    current = concept_id
    while True:
        row = db.execute(
            "SELECT c.id, c.code FROM relation r JOIN concept c ON c.id = r.to_concept_id "
            "WHERE r.kind = 'parent' AND r.from_concept_id = ?",
            (current,),
        ).fetchall()
        if not row:
            return chain
        assert len(row) == 1
        current = int(row[0][0])
        chain.append(str(row[0][1]))


def test_builds_without_errors_and_reports_the_release(built: tuple[BuildReport, Path]) -> None:
    report, output = built
    assert output.is_file()
    assert report.release == "JPPM2026001"
    assert report.reference_date == "2026-03-31"
    assert len(report.source_manifest_sha256) == 64
    assert len(report.logical_digest) == 64
    assert report.warnings == {
        "FTERM_TRANSLATION_DEPTH_MISMATCH": 1,
        "THEME_TRANSLATION_SEQUENCE_MISMATCH": 1,
    }
    assert report.group_counts["FI/FI"].files == 3
    assert report.group_counts["FI/FI"].records == 13
    assert report.group_counts["FTERM/THEME"].skipped == 2
    assert report.table_counts["release"] == 1
    payload = report.to_dict()
    assert payload["group_counts"]["FI/FI"]["records"] == 13
    assert payload["warning_count"] == 2


def test_no_temporary_file_is_left_beside_the_output(built: tuple[BuildReport, Path]) -> None:
    assert [p.name for p in built[1].parent.iterdir()] == [built[1].name]


def test_release_and_metadata(db: sqlite3.Connection, built: tuple[BuildReport, Path]) -> None:
    report = built[0]
    assert db.execute("SELECT * FROM release").fetchall() == [
        (
            "JPPM2026001",
            "2026-03-31",
            report.source_manifest_sha256,
            "Copyright (C) Japan Patent Office. Hand-made pmgs test data, not JPO data.",
        )
    ]
    metadata = dict(db.execute("SELECT key, value FROM metadata").fetchall())
    assert metadata["schema_version"] == str(db.execute("PRAGMA user_version").fetchone()[0])
    assert metadata["release_id"] == "JPPM2026001"
    assert metadata["reference_date"] == "2026-03-31"
    assert metadata["source_manifest_sha256"] == report.source_manifest_sha256
    assert metadata["logical_digest"] == report.logical_digest == logical_digest(db)
    assert set(metadata) == {
        "schema_version",
        "release_id",
        "reference_date",
        "source_manifest_sha256",
        "logical_digest",
        "builder_version",
        "build_counts",
        "text_ranges",
    }


def test_source_files_are_all_listed_with_status(db: sqlite3.Connection) -> None:
    rows = db.execute(
        "SELECT path, data_group, parser, status, record_count FROM source_file ORDER BY id"
    ).fetchall()
    paths = [row[0] for row in rows]
    assert paths == sorted(paths)
    assert len(rows) == sum(1 for p in HANDMADE.rglob("*") if p.is_file())
    by_path = {row[0]: row[1:] for row in rows}
    assert by_path["FI/FI_KAISEI_DOC/B60J.xml"] == ("FI/FI_KAISEI_DOC", "fi_revisions", "parsed", 1)
    assert by_path["FI/FI/fi_B_20260331.csv"] == ("FI/FI", "fi_codes", "parsed", 7)
    assert by_path["COPYRGHT/COPYRGHT.txt"] == ("COPYRGHT", "copyright", "parsed", 1)
    assert by_path["FI/FI_KAISEI_LINK/fiLink_B_20260331.csv"][2:] == ("parsed", 2)


def test_fi_code_with_development_code_and_file_symbol(db: sqlite3.Connection) -> None:
    concept_id, kind, status = _concept(db, "fi", "", "B60J5/00,501@B")
    assert (kind, status) == ("main_group", "canonical")
    assert _parent_chain(db, concept_id) == ["B60J5/00,501", "B60J5/00", "B60J", "B60", "B"]
    assert _texts(db, concept_id) == [
        ("ja", "1", 1, "スライド扉の案内レール"),
        ("ja", "2", 2, "補足, 第２行"),
        ("en", "1", 1, "Guide rails for sliding doors"),
    ]
    assert _properties(db, concept_id) == {"marker": "1", "status": "0"}
    level, sequence, locator = db.execute(
        "SELECT level, sequence, locator FROM revision WHERE concept_id = ?", (concept_id,)
    ).fetchone()
    assert (level, sequence, locator) == (6, 6, "row:6")


def test_fi_parent_is_the_nearest_earlier_row_of_smaller_level(db: sqlite3.Connection) -> None:
    concept_id, _, _ = _concept(db, "fi", "", "B60J5/04")
    assert _parent_chain(db, concept_id)[0] == "B60J5/00"
    g_id, _, _ = _concept(db, "fi", "", "G06F3/048")
    assert _parent_chain(db, g_id) == ["G06F3/00", "G06F", "G06", "G"]
    # FI structural sequence runs over the whole table, files in name order.
    assert db.execute(
        "SELECT r.sequence FROM revision r JOIN concept c ON c.id = r.concept_id "
        "WHERE c.code = 'G06F3/048' AND c.scheme = 'fi'"
    ).fetchone() == (12,)


def test_fi_facet_of_the_ninth_file(db: sqlite3.Connection) -> None:
    assert _concept(db, "fi", "", "ZAA")[1:] == ("facet", "canonical")


def test_csv_with_and_without_bom(db: sqlite3.Connection) -> None:
    # fi_G has a BOM, fi_B has none: both first codes parse (a BOM left in the cell would not).
    assert _concept(db, "fi", "", "G")[2] == "canonical"
    assert _concept(db, "fi", "", "B")[2] == "canonical"
    assert _concept(db, "fterm", "", "3D127AA")[1] == "viewpoint"  # fterm_3D has a BOM


def test_newline_inside_a_quoted_cell(db: sqlite3.Connection) -> None:
    concept_id, _, _ = _concept(db, "fi", "", "B60J5/00,501")
    assert _texts(db, concept_id) == [("ja", "1", 1, "スライド扉\n（引戸）")]
    # The record after the multi-line one keeps its logical row number.
    assert db.execute(
        "SELECT t.locator FROM text t JOIN revision r ON r.id = t.revision_id "
        "JOIN concept c ON c.id = r.concept_id WHERE c.code = 'B60J5/04' AND t.language = 'ja'"
    ).fetchone() == ("row:8",)


def test_not_translated_is_a_status_not_a_text(db: sqlite3.Connection) -> None:
    concept_id, _, _ = _concept(db, "fi", "", "B60J5/04")
    assert [t[0] for t in _texts(db, concept_id)] == ["ja"]
    assert _properties(db, concept_id)["translation_status_en"] == "not_translated"
    theme_id, _, _ = _concept(db, "fterm", "", "5E555")
    assert _properties(db, theme_id)["translation_status_en"] == "not_translated"
    term_id, _, _ = _concept(db, "fterm", "", "3D127BB01")
    assert _properties(db, term_id) == {"translation_status_en": "not_translated"}
    assert (
        db.execute("SELECT COUNT(*) FROM text WHERE body LIKE '%Not Translated%'").fetchone()[0]
        == 0
    )


def test_ipc8u_code_with_two_versions_and_validity(db: sqlite3.Connection) -> None:
    concept_id, kind, status = _concept(db, "ipc", "8U", "B60J5/00")
    assert (kind, status) == ("main_group", "canonical")
    revisions = db.execute(
        "SELECT id, version, valid_from, valid_to, level FROM revision "
        "WHERE concept_id = ? ORDER BY version",
        (concept_id,),
    ).fetchall()
    assert [r[1:] for r in revisions] == [
        ("2006.01", "2006-01-01", "2015-12-31", 4),
        ("2016.01", "2016-01-01", None, 4),
    ]
    new_texts = db.execute(
        "SELECT line, body FROM text WHERE revision_id = ? ORDER BY line", (revisions[1][0],)
    ).fetchall()
    assert new_texts == [(1, "扉"), (2, "（第２行）")]
    old_texts = db.execute(
        "SELECT body FROM text WHERE revision_id = ?", (revisions[0][0],)
    ).fetchall()
    assert old_texts == [("扉（旧版）",)]
    assert _parent_chain(db, concept_id) == ["B60J", "B60", "B"]
    # Exactly one parent relation although the code has two revisions.
    assert db.execute(
        "SELECT COUNT(*) FROM relation WHERE kind = 'parent' AND from_concept_id = ?",
        (concept_id,),
    ).fetchone() == (1,)


def test_ipc_editions_are_separate_concepts(db: sqlite3.Connection) -> None:
    editions = db.execute(
        "SELECT edition FROM concept WHERE scheme = 'ipc' AND code = 'B' ORDER BY edition"
    ).fetchall()
    assert [e[0] for e in editions] == ["4", "5", "6", "7", "7E", "8B", "8U"]
    concept_id, _, _ = _concept(db, "ipc", "7E", "B")
    assert _texts(db, concept_id) == [("en", "1", 1, "PERFORMING OPERATIONS; TRANSPORTING")]
    concept_8b, _, _ = _concept(db, "ipc", "8B", "B60J5/00")
    assert db.execute(
        "SELECT version, valid_from, valid_to FROM revision WHERE concept_id = ?", (concept_8b,)
    ).fetchall() == [("2016.01", None, None)]
    assert _properties(db, concept_8b) == {"flag_5": "0", "flag_6": "0", "flag_7": "0"}


def test_concordance_relation(db: sqlite3.Connection) -> None:
    fi_id, _, _ = _concept(db, "fi", "", "B60J5/00,501@B")
    ipc_id, _, _ = _concept(db, "ipc", "8U", "B60J5/00")
    rows = db.execute(
        "SELECT to_concept_id, sequence, locator FROM relation "
        "WHERE kind = 'concordance' AND from_concept_id = ?",
        (fi_id,),
    ).fetchall()
    assert rows == [(ipc_id, 1, "row:1")]
    ipc7, _, _ = _concept(db, "ipc", "7", "B60J")
    ipc8, _, _ = _concept(db, "ipc", "8U", "B60J")
    assert db.execute(
        "SELECT COUNT(*) FROM relation WHERE kind = 'concordance' "
        "AND from_concept_id = ? AND to_concept_id = ?",
        (ipc7, ipc8),
    ).fetchone() == (1,)


def test_reference_only_codes(db: sqlite3.Connection) -> None:
    reference_only = db.execute(
        "SELECT scheme, edition, code, kind FROM concept WHERE status = 'reference_only' "
        "ORDER BY scheme, edition, code"
    ).fetchall()
    assert reference_only == [
        ("fi", "", "B60J7/00", "main_group"),  # FI_KAISEI_LINK only
        ("fi", "", "B60J9/00", "main_group"),  # handbook and concordance only
        ("fterm", "", "3D127ZZ09", "term"),  # explanation only
        ("fterm", "", "9Z999", "theme"),  # FI_THEME only
        ("ipc", "8U", "B60J9/00", "main_group"),  # concordance only
    ]
    # One revision each, no texts, nothing searchable.
    assert db.execute(
        "SELECT COUNT(*), SUM(r.version = '') FROM revision r JOIN concept c "
        "ON c.id = r.concept_id WHERE c.status = 'reference_only'"
    ).fetchone() == (5, 5)
    assert db.execute(
        "SELECT COUNT(*) FROM text t JOIN revision r ON r.id = t.revision_id "
        "JOIN concept c ON c.id = r.concept_id WHERE c.status = 'reference_only'"
    ).fetchone() == (0,)
    fi_ref, _, _ = _concept(db, "fi", "", "B60J9/00")
    ipc_ref, _, _ = _concept(db, "ipc", "8U", "B60J9/00")
    assert db.execute(
        "SELECT COUNT(*) FROM relation WHERE kind = 'concordance' "
        "AND from_concept_id = ? AND to_concept_id = ?",
        (fi_ref, ipc_ref),
    ).fetchone() == (1,)


def test_fi_theme_relations(db: sqlite3.Connection) -> None:
    rows = db.execute(
        "SELECT f.code, t.code, r.sequence FROM relation r "
        "JOIN concept f ON f.id = r.from_concept_id JOIN concept t ON t.id = r.to_concept_id "
        "WHERE r.kind = 'theme' ORDER BY r.id"
    ).fetchall()
    assert rows == [
        ("B60J5/00,501@B", "3D127", 1),
        ("B60J5/04", "9Z999", 2),
        ("G06F3/048", "5E555", 1),
    ]


def test_theme_rows_texts_and_group_headers(db: sqlite3.Connection) -> None:
    theme_id, kind, _ = _concept(db, "fterm", "", "3D127")
    assert kind == "theme"
    assert _texts(db, theme_id) == [
        ("ja", "title", 1, "車両の扉"),
        ("ja", "remarks", 1, "備考：スライド扉を含む"),
        ("en", "title", 1, "Vehicle doors"),
        ("en", "remarks", 1, "Remarks: including sliding doors"),
    ]
    assert _properties(db, theme_id) == {
        "theme_group": "3D",
        "flag": "0",
        "sort_number": "00002",
        "fi_coverage": "B60J5/00-5/14",
    }
    # The bare group headers 3D and 5E are not themes.
    assert db.execute(
        "SELECT COUNT(*) FROM concept WHERE scheme = 'fterm' AND kind = 'theme' "
        "AND status = 'canonical'"
    ).fetchone() == (2,)


def test_theme_sequence_difference_is_a_warning(db: sqlite3.Connection) -> None:
    rows = db.execute(
        "SELECT b.severity, b.locator, s.path FROM build_issue b "
        "JOIN source_file s ON s.id = b.source_file_id "
        "WHERE b.code = 'THEME_TRANSLATION_SEQUENCE_MISMATCH'"
    ).fetchall()
    assert rows == [("warning", "row:4", "FTERM/THEME_E/themeE_20260331.csv")]
    theme_id, _, _ = _concept(db, "fterm", "", "5E555")
    assert db.execute(
        "SELECT sequence FROM revision WHERE concept_id = ?", (theme_id,)
    ).fetchone() == (4,)


def test_fterm_viewpoint_and_term_hierarchy(db: sqlite3.Connection) -> None:
    viewpoint, kind, _ = _concept(db, "fterm", "", "3D127AA")
    assert kind == "viewpoint"
    assert _parent_chain(db, viewpoint) == ["3D127"]
    term, kind, _ = _concept(db, "fterm", "", "3D127AA02")
    assert kind == "term"
    assert _parent_chain(db, term) == ["3D127AA01", "3D127AA", "3D127"]
    sibling, _, _ = _concept(db, "fterm", "", "3D127AA03")
    assert _parent_chain(db, sibling) == ["3D127AA", "3D127"]
    other, _, _ = _concept(db, "fterm", "", "3D127BB01")
    assert _parent_chain(db, other) == ["3D127BB", "3D127"]
    assert db.execute("SELECT COUNT(*) FROM concept WHERE code = '3D127AA00'").fetchone() == (0,)
    assert _texts(db, viewpoint) == [("ja", "label", 1, "目的"), ("en", "label", 1, "Purpose")]
    level, sequence = db.execute(
        "SELECT level, sequence FROM revision WHERE concept_id = ?", (term,)
    ).fetchone()
    assert (level, sequence) == (2, 3)


def test_fterm_e_extra_comma_label_is_rejoined(db: sqlite3.Connection) -> None:
    term, _, _ = _concept(db, "fterm", "", "3D127AA01")
    assert _texts(db, term) == [
        ("ja", "label", 1, "開閉の容易化"),
        ("en", "label", 1, "Easy opening, closing"),
    ]
    assert _properties(db, term) == {"fi_coverage": "B60J5/00"}


def test_fterm_depth_difference_is_a_warning(db: sqlite3.Connection) -> None:
    rows = db.execute(
        "SELECT severity, locator FROM build_issue WHERE code = 'FTERM_TRANSLATION_DEPTH_MISMATCH'"
    ).fetchall()
    assert rows == [("warning", "row:3")]
    term, _, _ = _concept(db, "fterm", "", "3D127AA02")
    assert db.execute("SELECT level FROM revision WHERE concept_id = ?", (term,)).fetchone() == (2,)
    assert ("en", "label", 1, "Automatic opening") in _texts(db, term)


def test_fi_handbook_documents(db: sqlite3.Connection) -> None:
    document = db.execute(
        "SELECT id, kind, language, title, locator FROM document "
        "WHERE document_key = 'fi_handbook:ja:B60J5/00,501@B'"
    ).fetchone()
    assert document[1:] == ("fi_handbook", "ja", "FIハンドブック B60J5/00,501@B", "row:1")
    segments = db.execute(
        "SELECT sequence_number, heading, text_type, body FROM document_text "
        "WHERE document_id = ? ORDER BY sequence_number",
        (document[0],),
    ).fetchall()
    assert segments == [
        (1, "B60J5/00,501@B", "1", "案内レールの説明"),
        (2, "B60J5/00,501@B", "2", "説明の続き, コンマ入り"),
    ]
    fi_id, _, _ = _concept(db, "fi", "", "B60J5/00,501@B")
    assert db.execute(
        "SELECT concept_id, role FROM document_link WHERE document_id = ?", (document[0],)
    ).fetchall() == [(fi_id, "subject")]
    assert db.execute(
        "SELECT title FROM document WHERE document_key = 'fi_handbook:en:B60J5/00,501@B'"
    ).fetchone() == ("FI handbook B60J5/00,501@B",)


def test_fterm_explanation_document(db: sqlite3.Connection) -> None:
    document_id = db.execute(
        "SELECT id FROM document WHERE document_key = 'fterm_explanation:ja:3D127'"
    ).fetchone()[0]
    segments = db.execute(
        "SELECT sequence_number, heading, body FROM document_text WHERE document_id = ? "
        "ORDER BY sequence_number",
        (document_id,),
    ).fetchall()
    assert segments == [
        (1, "3D127", "テーマ3D127の解説"),
        (2, "3D127AA01", "開閉の容易化とは、\n扉の操作力を小さくすることをいう"),
        (3, "3D127ZZ09", "廃止されたFターム"),
    ]
    links = db.execute(
        "SELECT c.code, l.role, l.sequence FROM document_link l "
        "JOIN concept c ON c.id = l.concept_id WHERE l.document_id = ? ORDER BY l.sequence",
        (document_id,),
    ).fetchall()
    assert links == [
        ("3D127", "subject", 1),
        ("3D127AA01", "mentions", 2),
        ("3D127ZZ09", "mentions", 3),
    ]


def test_judge_document(db: sqlite3.Connection) -> None:
    document_id, language = db.execute(
        "SELECT id, language FROM document WHERE document_key = 'judge'"
    ).fetchone()
    assert language is None
    assert db.execute(
        "SELECT sequence_number, heading, body FROM document_text WHERE document_id = ? "
        "ORDER BY sequence_number",
        (document_id,),
    ).fetchall() == [(1, "01", "特許査定"), (2, "02", "拒絶査定")]


def test_fi_revision_links_point_at_the_revision_document(db: sqlite3.Connection) -> None:
    file_id = db.execute(
        "SELECT id FROM source_file WHERE data_group = 'FI/FI_KAISEI_LINK'"
    ).fetchone()[0]
    referenced = {
        table: db.execute(
            f"SELECT COUNT(*) FROM {table} WHERE source_file_id = ?", (file_id,)
        ).fetchone()[0]
        for table in ("revision", "text", "property", "relation", "document", "document_link")
    }
    # The revision of the reference-only B60J7/00; the note of B60J5/00 (B60J7/00 has no
    # revision to carry one while parsing); the link of B60J7/00 (B60J.xml linked B60J5/00).
    assert referenced == {
        "revision": 1,
        "text": 0,
        "property": 1,
        "relation": 0,
        "document": 0,
        "document_link": 1,
    }
    links = db.execute(
        "SELECT c.code, l.role FROM document_link l JOIN document d ON d.id = l.document_id "
        "JOIN concept c ON c.id = l.concept_id WHERE d.document_key = 'fi_revision:B60J' "
        "ORDER BY l.sequence"
    ).fetchall()
    assert links == [("B60J5/00", "subject"), ("B60J7/00", "subject")]
    concept_id, _, _ = _concept(db, "fi", "", "B60J5/00")
    assert _properties(db, concept_id)["fi_revision_note"] == "B60J.xml 2010年6月改正, 訂正を含む"


def test_search_indexes_are_filled_and_consistent(
    db: sqlite3.Connection, built: tuple[BuildReport, Path]
) -> None:
    assert (
        db.execute(
            # detail=none keeps no positions: a term is the AND of its trigrams (ADR 0008)
            'SELECT COUNT(*) FROM text_fts WHERE text_fts MATCH \'"スライ" AND "イド扉"\''
        ).fetchone()[0]
        >= 1
    )
    writable = sqlite3.connect(built[1])  # 'integrity-check' needs a writable handle
    try:
        writable.execute("INSERT INTO text_fts (text_fts) VALUES ('integrity-check')")
        writable.execute(
            "INSERT INTO document_text_fts (document_text_fts) VALUES ('integrity-check')"
        )
    finally:
        writable.close()
    assert db.execute("PRAGMA foreign_key_check").fetchall() == []
    assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)


def test_locators_point_at_logical_records(db: sqlite3.Connection) -> None:
    bad = db.execute("SELECT COUNT(*) FROM text WHERE locator NOT GLOB 'row:[1-9]*'").fetchone()[0]
    assert bad == 0


def test_progress_events(tmp_path: Path) -> None:
    events: list[ProgressEvent] = []
    build_database(HANDMADE, tmp_path / "p.sqlite", progress=events.append)
    phases = [e.phase for e in events]
    assert phases[0] == "inventory"
    assert phases[-1] == "done"
    assert {"parse", "index", "search_index", "digest"} <= set(phases)
    parse_groups = [e.data_group for e in events if e.phase == "parse" and e.unit == "files"]
    assert parse_groups.index("FI/FI") < parse_groups.index("FI/FI_TEXT")
    last_fi = [e for e in events if e.phase == "parse" and e.data_group == "FI/FI"][-1]
    assert (last_fi.done, last_fi.total) == (3, 3)


def test_unquoted_comma_rules() -> None:
    # Private helpers, tested directly because the rules are the format page's.
    from pmgs_build.source.parsers.fi_revision_link import split_link_row
    from pmgs_build.source.parsers.fterm import split_fterm_en_row

    assert split_link_row(["B60J   5/    00    ", "B60J.xml 2010年6月改正", " 訂正を含む"]) == (
        "B60J   5/    00    ",
        "B60J.xml 2010年6月改正, 訂正を含む",
    )
    assert split_fterm_en_row(["3D127AA01 ", "2", "1", "Easy opening", " closing", "B60J5/00"]) == [
        "3D127AA01 ",
        "2",
        "1",
        "Easy opening, closing",
        "B60J5/00",
    ]
    assert split_fterm_en_row(["a", "1", "0", "x,y", ""]) == ["a", "1", "0", "x,y", ""]
