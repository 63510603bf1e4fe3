"""``validate_database`` on a real built database, and on copies of it with one thing broken.

Each damaged copy must fail exactly the checks that can see the damage and pass all others:
a check that also fires on unrelated damage would hide which rule was broken, and one that
stays silent lets a broken database be activated.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from pmgs_build import BuildError, BuildReport, IssueCode, build_database, validate_database
from pmgs_build import build as build_module
from pmgs_build.database.counts import BUILD_COUNTS_KEY
from pmgs_core.building import TABLES
from pmgs_testkit import GeneratedPackage, generate_package

HANDMADE = Path(__file__).parent / "data" / "handmade" / "JPPM2026001"

CHECKS = [
    "quick_check",
    "foreign_key_check",
    "fts_integrity:text_fts",
    "fts_integrity:document_text_fts",
    "fts_integrity:text_bigram",
    "fts_integrity:document_text_bigram",
    "schema_version",
    "release_row",
    "copyright",
    "source_files",
    "source_file_rows",
    "table_counts",
    "group_counts",
    "ipc_valid_revisions",
    "amended_to_resolved",
    "reference_only_unsearchable",
    "quarantine",
]


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> GeneratedPackage:
    return generate_package(tmp_path_factory.mktemp("package"), scale=0.01, seed=1)


@pytest.fixture(scope="module")
def built(
    tmp_path_factory: pytest.TempPathFactory, generated: GeneratedPackage
) -> tuple[BuildReport, Path]:
    output = tmp_path_factory.mktemp("db") / "reference.sqlite"
    return build_database(generated.path, output), output


@pytest.fixture(scope="module")
def database(built: tuple[BuildReport, Path]) -> Path:
    return built[1]


@pytest.fixture
def copy(database: Path, tmp_path: Path) -> Path:
    target = tmp_path / "copy.sqlite"
    shutil.copyfile(database, target)
    return target


def _edit(path: Path, *statements: str) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        for statement in statements:
            conn.execute(statement)
    finally:
        conn.close()


def _one(path: Path, sql: str) -> object:
    conn = sqlite3.connect(path)
    try:
        row = conn.execute(sql).fetchone()
    finally:
        conn.close()
    assert row is not None, sql
    return row[0]


def test_a_fresh_build_passes_every_check_with_a_figure(database: Path) -> None:
    report = validate_database(database)
    assert report.ok, report.to_dict()
    assert [check.name for check in report.checks] == CHECKS
    assert all(check.figure and not check.detail for check in report.checks)
    figures = {check.name: check.figure for check in report.checks}
    assert figures["foreign_key_check"] == "0 violations"
    texts = _one(database, "SELECT count(*) FROM text")
    assert figures["fts_integrity:text_fts"] == f"{texts:,} rows"
    with closing(sqlite3.connect(database)) as conn:
        total = sum(
            conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
            for table in TABLES
            if table != "metadata"
        )
    assert figures["table_counts"] == f"{total:,} rows in 12 tables"
    assert figures["quarantine"] == "0 quarantined records in 0 groups"
    assert figures["amended_to_resolved"].startswith("0 of ")
    data = report.to_dict()
    assert data["ok"] is True
    assert data["failed"] == []
    assert all(set(check) >= {"name", "ok", "figure", "detail"} for check in data["checks"])


def test_build_counts_are_what_the_build_wrote(
    built: tuple[BuildReport, Path], generated: GeneratedPackage
) -> None:
    report, database = built
    counts = json.loads(
        str(_one(database, f"SELECT value FROM metadata WHERE key = '{BUILD_COUNTS_KEY}'"))
    )
    assert counts["groups"] == {group: c.to_dict() for group, c in report.group_counts.items()}
    assert counts["tables"] == {
        table: count for table, count in report.table_counts.items() if table != "metadata"
    }
    # Independent of the builder: the generator knows how many texts each group holds.
    with closing(sqlite3.connect(database)) as conn:
        ids = {
            str(file_id): group
            for file_id, group in conn.execute("SELECT id, data_group FROM source_file")
        }
    texts: dict[str, int] = {}
    for file_id, rows in counts["rows"]["text"].items():
        texts[ids[file_id]] = texts.get(ids[file_id], 0) + rows
    assert texts == generated.expected.texts
    assert set(counts["records"]) == set(ids)


def _text_row_of_a_canonical_concept(path: Path) -> int:
    return int(
        str(
            _one(
                path,
                "SELECT t.id FROM text t JOIN revision r ON r.id = t.revision_id "
                "JOIN concept c ON c.id = r.concept_id WHERE c.status = 'canonical' "
                "AND length(t.body) > 3 ORDER BY t.id LIMIT 1 OFFSET 100",
            )
        )
    )


def _delete_text(path: Path) -> None:
    _edit(path, f"DELETE FROM text WHERE id = {_text_row_of_a_canonical_concept(path)}")


def _delete_document_text(path: Path) -> None:
    _edit(
        path,
        "DELETE FROM document_text WHERE id = "
        "(SELECT id FROM document_text WHERE length(body) > 3 ORDER BY id LIMIT 1 OFFSET 50)",
    )


def _texts_of_a_reference_only_concept(path: Path) -> None:
    text_id = _text_row_of_a_canonical_concept(path)
    _edit(
        path,
        "UPDATE concept SET status = 'reference_only' WHERE id = (SELECT r.concept_id "
        f"FROM text t JOIN revision r ON r.id = t.revision_id WHERE t.id = {text_id})",
    )


def _add_a_second_valid_8u_revision(path: Path) -> None:
    _edit(
        path,
        "INSERT INTO revision (concept_id, version, valid_from, valid_to, source_file_id, "
        "locator) SELECT r.concept_id, '2099.01', NULL, NULL, r.source_file_id, r.locator "
        "FROM revision r JOIN concept c ON c.id = r.concept_id "
        "WHERE c.scheme = 'ipc' AND c.edition = '8U' AND c.status = 'canonical' "
        "AND r.valid_to IS NULL ORDER BY r.id LIMIT 1",
    )


def _reopen_an_expired_8u_revision(path: Path) -> None:
    # The generator's ipc_two_versions_old_expired: the old version ended before the date.
    _edit(
        path,
        "UPDATE revision SET valid_to = NULL WHERE id = (SELECT r.id FROM revision r "
        "JOIN concept c ON c.id = r.concept_id JOIN release "
        "WHERE c.scheme = 'ipc' AND c.edition = '8U' AND c.code = 'G06F3/048' "
        "AND r.valid_to < release.reference_date)",
    )


def _amended_to_a_revision_of_another_concept(path: Path) -> None:
    _edit(
        path,
        "INSERT INTO relation (kind, from_concept_id, to_concept_id, to_revision_id, "
        "source_file_id, locator) SELECT 'amended_to', a.id, b.id, "
        "(SELECT id FROM revision WHERE concept_id = c.id LIMIT 1), a.source_file_id, 'row:1' "
        "FROM concept a, concept b, concept c "
        "WHERE a.id = 1 AND b.id = 2 AND c.id = 3",
    )


def _delete_the_copyright_source_file(path: Path) -> None:
    _edit(path, "DELETE FROM source_file WHERE data_group = 'COPYRGHT'")


def _change_a_record_count(path: Path) -> None:
    _edit(
        path,
        "UPDATE source_file SET record_count = record_count + 1 "
        "WHERE id = (SELECT min(id) FROM source_file WHERE data_group = 'FI/FI')",
    )


def _forget_the_build_counts(path: Path) -> None:
    _edit(path, f"DELETE FROM metadata WHERE key = '{BUILD_COUNTS_KEY}'")


def _quarantine_without_its_segment(path: Path) -> None:
    _edit(
        path,
        "INSERT INTO quarantine (data_group, reason, message, raw, source_file_id, locator) "
        "SELECT 'FI/FI', 'CODE_INVALID', 'planted', '[\"X\"]', min(id), 'row:1' "
        "FROM source_file WHERE data_group = 'FI/FI'",
    )


COUNTS = {"source_file_rows", "table_counts"}

CASES: list[tuple[str, Callable[[Path], None], set[str]]] = [
    (
        "delete one text row",
        _delete_text,
        {"fts_integrity:text_fts", "fts_integrity:text_bigram", *COUNTS},
    ),
    (
        "delete one document_text row",
        _delete_document_text,
        {"fts_integrity:document_text_fts", "fts_integrity:document_text_bigram", *COUNTS},
    ),
    (
        "a concept with texts becomes reference-only",
        _texts_of_a_reference_only_concept,
        {"fts_integrity:text_fts", "fts_integrity:text_bigram", "reference_only_unsearchable"},
    ),
    (
        "a second valid IPC 8U revision",
        _add_a_second_valid_8u_revision,
        {"ipc_valid_revisions", *COUNTS},
    ),
    (
        "an expired IPC 8U revision made open",
        _reopen_an_expired_8u_revision,
        {"ipc_valid_revisions"},
    ),
    (
        "amended_to to a revision of another concept",
        _amended_to_a_revision_of_another_concept,
        {"amended_to_resolved", *COUNTS},
    ),
    (
        "blank attribution",
        lambda path: _edit(path, "UPDATE release SET attribution = '  '"),
        {"copyright"},
    ),
    (
        "the COPYRGHT source_file row deleted",
        _delete_the_copyright_source_file,
        {"copyright", "source_files", "table_counts", "group_counts"},
    ),
    ("a record_count changed", _change_a_record_count, {"source_files", "group_counts"}),
    (
        "a quarantined row that search cannot find",
        _quarantine_without_its_segment,
        {"quarantine", *COUNTS},
    ),
    (
        "build_counts missing",
        _forget_the_build_counts,
        {"source_files", "source_file_rows", "table_counts", "group_counts"},
    ),
]


@pytest.mark.parametrize(
    ("mutate", "expected"), [case[1:] for case in CASES], ids=[c[0] for c in CASES]
)
def test_each_damage_fails_exactly_its_checks(
    copy: Path, mutate: Callable[[Path], None], expected: set[str]
) -> None:
    mutate(copy)
    report = validate_database(copy)
    assert set(report.failed) == expected, report.to_dict()
    assert [check.name for check in report.checks] == CHECKS
    for check in report.checks:
        assert check.figure, check
        assert bool(check.detail) == (not check.ok), check


def test_a_promoted_database_is_checked_on_a_copy(database: Path) -> None:
    before = database.read_bytes()
    assert validate_database(database).ok
    assert database.read_bytes() == before


def test_not_a_database(tmp_path: Path) -> None:
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"not a database" * 100)
    report = validate_database(junk)
    assert report.failed == ["open"]
    assert validate_database(tmp_path / "missing.sqlite").failed == ["open"]


def test_a_build_that_fails_validation_is_never_published(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A builder bug (here: one text row lost between loader and file) stops the build."""
    encode = build_module.encode_build_counts

    def claim_one_more_text(*args: object, **kwargs: object) -> str:
        counts = json.loads(encode(*args, **kwargs))  # type: ignore[arg-type]
        counts["tables"]["text"] += 1
        return json.dumps(counts, sort_keys=True, separators=(",", ":"))

    monkeypatch.setattr(build_module, "encode_build_counts", claim_one_more_text)
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    with pytest.raises(BuildError) as caught:
        build_database(HANDMADE, out_dir / "reference.sqlite")
    assert caught.value.code == IssueCode.VALIDATION_FAILED
    assert "table_counts" in str(caught.value)
    assert "source_file_rows" not in str(caught.value)
    assert list(out_dir.iterdir()) == []


def test_a_search_index_that_misses_a_row_stops_the_build(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    rebuild = build_module.rebuild_search_indexes

    def lose_one_bigram_row(conn: sqlite3.Connection, **options: Any) -> None:
        rebuild(conn, **options)
        conn.execute("DROP TABLE text_bigram")
        conn.execute(
            "CREATE VIRTUAL TABLE text_bigram USING fts5(grams, content='', columnsize=0, "
            "detail='none', tokenize='ascii')"
        )
        conn.execute(
            "INSERT INTO text_bigram (rowid, grams) SELECT id, pmgs_bigrams(body) "
            "FROM searchable_text WHERE id > (SELECT min(id) FROM searchable_text)"
        )

    monkeypatch.setattr(build_module, "rebuild_search_indexes", lose_one_bigram_row)
    output = tmp_path / "reference.sqlite"
    with pytest.raises(BuildError) as caught:
        build_database(HANDMADE, output)
    assert caught.value.code == IssueCode.VALIDATION_FAILED
    assert "fts_integrity:text_bigram" in str(caught.value)
    assert list(tmp_path.iterdir()) == []
