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
from pmgs_build.setup._stages import setup_lock
from pmgs_core import PMGSStore
from pmgs_testkit import make_zip


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
    with setup_lock(installed), pytest.raises(SetupError) as caught:
        setup_release(sample_package_path(), installed, release="JPPM2026007")
    assert caught.value.code == "SETUP_LOCKED"


def test_zip_source(tmp_path: Path) -> None:
    archive = make_zip(sample_package_path(), tmp_path / "download.zip")
    stages: list[str] = []
    report = setup_release(archive, tmp_path / "d", on_stage=stages.append)
    assert report.status == "activated"
    assert report.source_kind == "zip"
    assert "reinventory" in stages
    # read in place: the manifest is the extracted tree's, and no copy is asked room for
    directory = setup_release(sample_package_path(), tmp_path / "plain", dry_run=True)
    assert report.source_sha256 == directory.source_sha256
    assert report.source_bytes == directory.source_bytes
    assert report.required_free_bytes == 3 * report.source_bytes + (1 << 30)
    dry = setup_release(archive, tmp_path / "d", dry_run=True)
    assert (dry.source_kind, dry.source_sha256) == ("zip", report.source_sha256)
    assert dry.release == "JPPM2026002"
    assert setup_release(archive, tmp_path / "d").status == "already_ready"
    # the directory and its ZIP are one source: the database built from the ZIP serves both
    assert setup_release(sample_package_path(), tmp_path / "d").status == "already_ready"
    assert not (tmp_path / "d" / "staging").exists()


def test_zip_with_unsafe_name_is_refused(tmp_path: Path) -> None:
    archive = tmp_path / "evil.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("../outside.txt", "x")
    with pytest.raises(SetupError) as caught:
        setup_release(archive, tmp_path / "d")
    assert caught.value.code == "SOURCE_INVALID"
    assert caught.value.details["issues"] == ["ZIP_MEMBER_UNSAFE"]
    assert not (tmp_path / "outside.txt").exists()
    assert not list((tmp_path / "d").rglob("outside.txt"))


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
    assert report.failed == ["copyright"]


def test_setup_reuses_the_builds_validation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import pmgs_build.setup._transaction as setup_module

    calls: list[Path] = []
    real = setup_module.validate_database

    def counting(path: Path, **kwargs: bool) -> object:
        calls.append(Path(path))
        return real(path, **kwargs)

    monkeypatch.setattr(setup_module, "validate_database", counting)
    report = setup_release(sample_package_path(), tmp_path / "data")
    assert report.status == "activated"
    # The build validated the bytes it published; setup reports that and does not redo it.
    assert calls == []
    assert report.validation is not None
    assert report.validation["ok"] is True
    assert "quick_check" in {check["name"] for check in report.validation["checks"]}
    assert "validation" not in (report.build or {})


def test_doctor_sees_the_staged_database_before_promotion(tmp_path: Path) -> None:
    root = tmp_path / "data"
    seen: list[tuple[Path, bool, bool]] = []

    def doctor(database: Path) -> dict[str, object]:
        promoted = any((root / "data").rglob("*.sqlite")) if (root / "data").exists() else False
        pointer = (root / "state" / "current.json").exists()
        seen.append((database, promoted, pointer))
        with PMGSStore.open(database) as store:
            assert store.release_info()["release_id"] == "JPPM2026002"
        return {"status": "ok", "tools": ["lookup_classification"]}

    report = setup_release(sample_package_path(), root, doctor=doctor)
    assert report.status == "activated"
    assert report.doctor == {"status": "ok", "tools": ["lookup_classification"]}
    assert report.to_dict()["doctor"] == report.doctor
    ((database, promoted, pointer),) = seen
    assert database.parent.parent.name == "staging"
    assert (promoted, pointer) == (False, False)
    assert "doctor" in report.stage_seconds


@pytest.mark.parametrize("outcome", ["failed", "raises"])
def test_a_failed_doctor_activates_nothing(installed: Path, tmp_path: Path, outcome: str) -> None:
    before = _pointer(installed)
    databases = sorted(installed.rglob("*.sqlite"))

    def doctor(database: Path) -> dict[str, object]:
        if outcome == "raises":
            raise RuntimeError("server did not start")
        return {"status": "failed", "code": "MCP_TIMEOUT", "stage": "initialize"}

    # Another release id, so that setup really builds instead of reusing the installed file.
    with pytest.raises(SetupError) as caught:
        setup_release(sample_package_path(), installed, release="JPPM2026009", doctor=doctor)
    assert caught.value.code == "DOCTOR_FAILED"
    assert caught.value.stage == "doctor"
    assert _pointer(installed) == before
    assert sorted(installed.rglob("*.sqlite")) == databases
    assert not any((installed / "staging").glob("*"))
