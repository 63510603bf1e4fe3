"""``setup_release`` and ``validate_database`` in process."""

from __future__ import annotations

import json
import sqlite3
import zipfile
from pathlib import Path

import pytest

from pmgs_build import (
    SetupError,
    sample_package_path,
    setup_release,
    validate_database,
)
from pmgs_build.setup import _setup_lock
from pmgs_core import PMGSStore


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("data")
    report = setup_release(sample_package_path(), root)
    assert report.status == "activated"
    return root


def _pointer(root: Path) -> bytes:
    return (root / "state" / "current.json").read_bytes()


def test_activated_layout_and_report(installed: Path) -> None:
    pointer = json.loads(_pointer(installed))
    db = installed / pointer["database"]
    assert db.is_file()
    assert pointer["database"].startswith("data/releases/JPPM2026002/")
    runs = list((installed / "state" / "runs").glob("*.json"))
    assert runs
    assert str(installed) not in runs[0].read_text(encoding="utf-8")
    assert not (installed / "staging").exists()
    with PMGSStore.open(data_dir=installed) as store:
        assert store.release_info()["release_id"] == "JPPM2026002"


def test_same_source_is_already_ready_and_writes_nothing(installed: Path) -> None:
    before = {p: p.stat().st_mtime_ns for p in installed.rglob("*") if p.is_file()}
    report = setup_release(sample_package_path(), installed)
    assert report.status == "already_ready"
    after = {p: p.stat().st_mtime_ns for p in installed.rglob("*") if p.is_file()}
    assert {p: t for p, t in after.items() if p.name != "setup.lock"} == {
        p: t for p, t in before.items() if p.name != "setup.lock"
    }


def test_dry_run_writes_nothing(tmp_path: Path) -> None:
    report = setup_release(sample_package_path(), tmp_path / "new", dry_run=True)
    assert report.status == "dry_run"
    assert report.required_free_bytes == 3 * report.source_bytes + (1 << 30)
    assert not (tmp_path / "new").exists()


def test_failure_leaves_pointer_and_removes_staging(installed: Path, tmp_path: Path) -> None:
    before = _pointer(installed)
    bad = tmp_path / "JPPM2026005"
    bad.mkdir()
    with pytest.raises(SetupError) as caught:
        setup_release(bad, installed)
    assert caught.value.code == "SOURCE_INVALID"
    assert _pointer(installed) == before
    assert not any((installed / "staging").glob("*")) if (installed / "staging").exists() else True


def test_lock_refuses_a_second_setup(installed: Path) -> None:
    with _setup_lock(installed), pytest.raises(SetupError) as caught:
        setup_release(sample_package_path(), installed, release="JPPM2026007")
    assert caught.value.code == "SETUP_LOCKED"


def test_zip_source(tmp_path: Path) -> None:
    archive = tmp_path / "JPPM2026002.zip"
    source = sample_package_path()
    with zipfile.ZipFile(archive, "w") as zf:
        for path in sorted(source.rglob("*")):
            if path.is_file():
                zf.write(path, f"JPPM2026002/{path.relative_to(source).as_posix()}")
    report = setup_release(archive, tmp_path / "d")
    assert report.status == "activated"
    assert report.source_kind == "zip"
    assert setup_release(archive, tmp_path / "d").status == "already_ready"


def test_zip_with_unsafe_name_is_refused(tmp_path: Path) -> None:
    archive = tmp_path / "evil.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("../outside.txt", "x")
    with pytest.raises(SetupError) as caught:
        setup_release(archive, tmp_path / "d")
    assert caught.value.code == "SOURCE_INVALID"
    assert not (tmp_path / "outside.txt").exists()


def test_validate_detects_a_broken_release_row(installed: Path, tmp_path: Path) -> None:
    pointer = json.loads(_pointer(installed))
    copy = tmp_path / "copy.sqlite"
    copy.write_bytes((installed / pointer["database"]).read_bytes())
    assert validate_database(copy).ok
    conn = sqlite3.connect(copy)
    conn.execute("UPDATE release SET attribution = ''")
    conn.commit()
    conn.close()
    report = validate_database(copy)
    assert not report.ok
    assert report.failed == ["release_row"]
