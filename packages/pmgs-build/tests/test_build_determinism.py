"""The logical digest: equal for equal packages, different for any changed byte of content."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from pmgs_build import build_database, file_sha256, logical_digest
from pmgs_build.source.parsers import context as context_module

HANDMADE = Path(__file__).parent / "data" / "handmade" / "JPPM2026001"


def test_two_builds_of_the_same_package_have_the_same_digest(tmp_path: Path) -> None:
    first = build_database(HANDMADE, tmp_path / "a.sqlite")
    other_dir = tmp_path / "elsewhere"
    other_dir.mkdir()
    second = build_database(HANDMADE, other_dir / "b.sqlite")
    assert first.logical_digest == second.logical_digest
    assert first.source_manifest_sha256 == second.source_manifest_sha256
    for report in (first, second):
        conn = sqlite3.connect(report.output)
        try:
            stored = conn.execute(
                "SELECT value FROM metadata WHERE key = 'logical_digest'"
            ).fetchone()[0]
            assert stored == report.logical_digest == logical_digest(conn)
        finally:
            conn.close()


def test_a_copied_package_in_another_place_has_the_same_digest(tmp_path: Path) -> None:
    copy = tmp_path / "copy" / "JPPM2026001"
    shutil.copytree(HANDMADE, copy)
    assert (
        build_database(copy, tmp_path / "a.sqlite").logical_digest
        == build_database(HANDMADE, tmp_path / "b.sqlite").logical_digest
    )


def test_one_changed_text_byte_changes_the_digest(tmp_path: Path) -> None:
    copy = tmp_path / "copy" / "JPPM2026001"
    shutil.copytree(HANDMADE, copy)
    judge = copy / "JUDGE" / "judge_20260331.csv"
    judge.write_bytes(judge.read_bytes().replace(b"01,", b"0A,", 1))
    changed = build_database(copy, tmp_path / "changed.sqlite")
    original = build_database(HANDMADE, tmp_path / "original.sqlite")
    assert changed.logical_digest != original.logical_digest
    assert changed.source_manifest_sha256 != original.source_manifest_sha256


def test_the_digest_covers_rows_not_file_layout(tmp_path: Path) -> None:
    report = build_database(HANDMADE, tmp_path / "a.sqlite")
    conn = sqlite3.connect(report.output)
    try:
        conn.execute("VACUUM")
        assert logical_digest(conn) == report.logical_digest
        conn.execute("UPDATE text SET body = body || ' ' WHERE id = 1")
        assert logical_digest(conn) != report.logical_digest
    finally:
        conn.close()


def test_a_code_cache_emptied_over_and_over_gives_the_same_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The parsed-code cache is sized so that a full build never empties it (ADR 0039); a
    # cache of 3 cells is emptied every few rows and must change nothing, warnings included.
    roomy = build_database(HANDMADE, tmp_path / "roomy.sqlite", parallel=False)
    monkeypatch.setattr(context_module, "_CODE_CACHE_SIZE", 3)
    cramped = build_database(HANDMADE, tmp_path / "cramped.sqlite", parallel=False)
    assert file_sha256(tmp_path / "cramped.sqlite") == file_sha256(tmp_path / "roomy.sqlite")
    assert cramped.warnings == roomy.warnings
