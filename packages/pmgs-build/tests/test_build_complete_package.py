"""A package with every data group builds whole, from its directory and from its ZIP.

This is the "done when" of builder part 2: every CSV, XML, HTML and PDF group of a generated
package becomes one database with no error and exactly the warnings the generator planted,
and the ZIP as downloaded gives the same source manifest and the same logical digest as the
extracted tree (so setup may take either and land on the same content-addressed path).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from pmgs_build import BuildReport, build_database, take_inventory, validate_database
from pmgs_build.source.inventory import DOCUMENT_GROUPS
from pmgs_testkit import GeneratedPackage, generate_package, make_zip


class Built:
    """The generated package, its ZIP, and the two builds."""

    def __init__(self, base: Path) -> None:
        self.package: GeneratedPackage = generate_package(
            base / "src", scale=0.01, seed=5, with_documents=True
        )
        self.zip_path = make_zip(self.package.path, base / f"{self.package.release}.zip")
        self.from_directory: BuildReport = build_database(
            self.package.path, base / "from-directory.sqlite"
        )
        self.from_zip: BuildReport = build_database(self.zip_path, base / "from-zip.sqlite")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    return Built(tmp_path_factory.mktemp("complete"))


@pytest.fixture
def db(built: Built) -> Iterator[sqlite3.Connection]:
    conn = sqlite3.connect(f"file:{built.from_directory.output}?mode=ro", uri=True)
    yield conn
    conn.close()


def test_every_data_group_is_present_and_parsed(built: Built, db: sqlite3.Connection) -> None:
    groups = set(built.from_directory.group_counts)
    assert set(DOCUMENT_GROUPS) <= groups
    unparsed = db.execute(
        "SELECT path, status FROM source_file WHERE status <> 'parsed' ORDER BY path"
    ).fetchall()
    # Only the FI revision stylesheet is kept unparsed; nothing failed.
    assert [(Path(path).suffix, status) for path, status in unparsed] == [(".xsl", "retained")]


def test_records_and_files_match_what_the_generator_wrote(built: Built) -> None:
    report, package = built.from_directory, built.package
    assert {g: c.files for g, c in report.group_counts.items()} == package.files
    assert {g: c.records for g, c in report.group_counts.items()} == package.rows


def test_exactly_the_planted_warnings(built: Built) -> None:
    expected = {code: n for code, n in built.package.expected.warnings.items() if n}
    assert built.from_directory.warnings == expected
    assert expected["HTML_RECOVERY_USED"] >= 1
    assert expected["PDF_EMPTY_PAGE"] >= 1
    assert expected["XML_CP932_FALLBACK"] == 1


def test_documents_segments_and_revision_edges(built: Built, db: sqlite3.Connection) -> None:
    expected = built.package.expected
    documents = dict(db.execute("SELECT kind, COUNT(*) FROM document GROUP BY kind").fetchall())
    segments = dict(
        db.execute(
            "SELECT d.kind, COUNT(*) FROM document_text t JOIN document d ON d.id = t.document_id "
            "GROUP BY d.kind"
        ).fetchall()
    )
    assert documents == expected.documents
    assert segments == expected.document_segments
    amended = db.execute("SELECT COUNT(*) FROM relation WHERE kind = 'amended_to'").fetchone()[0]
    assert amended == expected.relations["amended_to"]
    reference_only = dict(
        db.execute(
            "SELECT scheme || '/' || edition, COUNT(*) FROM concept "
            "WHERE status = 'reference_only' GROUP BY scheme, edition"
        ).fetchall()
    )
    assert reference_only == {f"{s}/{e}": n for (s, e), n in expected.reference_only.items()}


def test_the_zip_gives_the_same_manifest_and_digest(built: Built) -> None:
    directory, archive = built.from_directory, built.from_zip
    assert archive.source_manifest_sha256 == directory.source_manifest_sha256
    assert archive.logical_digest == directory.logical_digest
    assert archive.release == directory.release == built.package.release
    assert archive.warnings == directory.warnings
    assert take_inventory(built.zip_path).manifest_text() == (
        take_inventory(built.package.path).manifest_text()
    )


def test_both_databases_validate(built: Built) -> None:
    for report in (built.from_directory, built.from_zip):
        validation = validate_database(report.output)
        assert validation.ok, validation.failed
