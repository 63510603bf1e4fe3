"""The inventory identifies a package: its files, groups, release, reference date and hash."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest

from pmgs_build import BuildError, IssueCode, take_inventory

HANDMADE = Path(__file__).parent / "data" / "handmade" / "JPPM2026001"


@pytest.fixture
def package(tmp_path: Path) -> Path:
    root = tmp_path / "JPPM2026001"
    shutil.copytree(HANDMADE, root)
    return root


def test_every_file_is_listed_in_path_order_with_hash_and_group() -> None:
    inventory = take_inventory(HANDMADE)
    paths = [f.path for f in inventory.files]
    assert paths == sorted(paths)
    assert [f.id for f in inventory.files] == list(range(1, len(paths) + 1))
    on_disk = sorted(p.relative_to(HANDMADE).as_posix() for p in HANDMADE.rglob("*") if p.is_file())
    assert paths == on_disk
    by_path = {f.path: f for f in inventory.files}
    fi = by_path["FI/FI/fi_B_20260331.csv"]
    content = (HANDMADE / fi.path).read_bytes()
    assert (fi.bytes, fi.sha256) == (len(content), hashlib.sha256(content).hexdigest())
    assert (fi.data_group, fi.parser) == ("FI/FI", "fi_codes")
    assert by_path["FTERM/FTERM_KAISETSU/ftermKAISETSU_3D_20260331.csv"].data_group == (
        "FTERM/FTERM_KAISETSU"
    )
    assert by_path["IPC/IPC7E_TEXT/ipc7E_B_20260331.csv"].parser == "ipc7E_texts"
    assert by_path["COPYRGHT/COPYRGHT.txt"].parser == "copyright"
    xml = by_path["FI/FI_KAISEI_DOC/B60J.xml"]
    assert (xml.data_group, xml.parser) == ("FI/FI_KAISEI_DOC", "fi_revisions")
    assert inventory.release_id == "JPPM2026001"
    assert inventory.reference_date == "2026-03-31"
    assert inventory.warnings == ()
    assert inventory.total_bytes == sum(f.bytes for f in inventory.files)


def test_manifest_is_canonical_json_lines_and_its_hash_names_the_source() -> None:
    inventory = take_inventory(HANDMADE)
    text = inventory.manifest_text()
    lines = text.splitlines()
    assert len(lines) == len(inventory.files)
    first = json.loads(lines[0])
    assert first == [inventory.files[0].path, inventory.files[0].bytes, inventory.files[0].sha256]
    assert inventory.manifest_sha256 == hashlib.sha256(text.encode("utf-8")).hexdigest()
    assert take_inventory(HANDMADE).manifest_sha256 == inventory.manifest_sha256


def test_manifest_changes_with_content_not_with_timestamps(package: Path) -> None:
    original = take_inventory(package).manifest_sha256
    judge = package / "JUDGE" / "judge_20260331.csv"
    os.utime(judge, (0, 0))
    assert take_inventory(package).manifest_sha256 == original
    judge.write_bytes(judge.read_bytes().replace("特許".encode(), "実用".encode()))
    assert take_inventory(package).manifest_sha256 != original


def test_files_outside_known_groups_are_kept_with_a_warning(package: Path) -> None:
    (package / "README.txt").write_text("hello", encoding="utf-8")
    (package / "EXTRA").mkdir()
    (package / "EXTRA" / "x.csv").write_text("1,2\n", encoding="utf-8")
    (package / "JUDGE" / "notes.txt").write_text("n", encoding="utf-8")
    inventory = take_inventory(package)
    by_path = {f.path: f for f in inventory.files}
    assert (by_path["README.txt"].data_group, by_path["README.txt"].parser) == (".", None)
    assert by_path["EXTRA/x.csv"].data_group == "EXTRA"
    assert (by_path["JUDGE/notes.txt"].data_group, by_path["JUDGE/notes.txt"].parser) == (
        "JUDGE",
        None,
    )
    codes = sorted((w.code, w.source_path) for w in inventory.warnings)
    assert codes == [
        (IssueCode.UNEXPECTED_FILE, "JUDGE/notes.txt"),
        (IssueCode.UNKNOWN_DATA_GROUP, "EXTRA/x.csv"),
        (IssueCode.UNKNOWN_DATA_GROUP, "README.txt"),
    ]


def test_reference_date_comes_from_classification_csvs_only(package: Path) -> None:
    handbook = package / "FI" / "FI_HB" / "fiHB_B_20260331.csv"
    handbook.rename(handbook.with_name("fiHB_B_20250101.csv"))
    concordance = package / "CONCORDANCE" / "con_FItoIPC8U_B_20260331.csv"
    concordance.rename(concordance.with_name("con_FItoIPC8U_B_20240101.csv"))
    assert take_inventory(package).reference_date == "2026-03-31"


def test_reference_date_ambiguous_names_the_dates(package: Path) -> None:
    theme = package / "FTERM" / "THEME" / "theme_20260331.csv"
    theme.rename(theme.with_name("theme_20260401.csv"))
    with pytest.raises(BuildError) as raised:
        take_inventory(package)
    assert raised.value.code == IssueCode.REFERENCE_DATE_AMBIGUOUS
    assert "20260331" in raised.value.issues[0].message
    assert "20260401" in raised.value.issues[0].message


def test_release_override_is_validated(package: Path) -> None:
    assert take_inventory(package, release="JPPM9").release_id == "JPPM9"
    for bad in ("JPPM", "jppm2026001", "JPPM2026001 ", "X2026"):
        with pytest.raises(BuildError) as raised:
            take_inventory(package, release=bad)
        assert raised.value.code == IssueCode.RELEASE_ID_INVALID


def test_symlinked_directory_is_refused(package: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.symlink(elsewhere, package / "REFERENCE", target_is_directory=True)
    with pytest.raises(BuildError) as raised:
        take_inventory(package)
    assert raised.value.code == IssueCode.SOURCE_SYMLINK
    assert raised.value.issues[0].source_path == "REFERENCE"


def test_fifo_is_refused(package: Path) -> None:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs on this platform")
    os.mkfifo(package / "JUDGE" / "pipe")
    with pytest.raises(BuildError) as raised:
        take_inventory(package)
    assert raised.value.code == IssueCode.SOURCE_NOT_REGULAR_FILE


def test_progress_reports_bytes() -> None:
    events = []
    inventory = take_inventory(HANDMADE, progress=events.append)
    assert events[-1].done == events[-1].total == inventory.total_bytes
    assert {e.unit for e in events} == {"bytes"}
