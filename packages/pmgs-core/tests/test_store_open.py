"""Opening: the contract's search order, the fail-closed pointer, read-only access."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from pmgs_core import (
    SCHEMA_VERSION,
    CurrentPointer,
    PMGSQueryError,
    PMGSStore,
    read_current_pointer,
    resolve_database,
)
from pmgs_core.building import content_addressed_path, write_current_pointer


def _metadata(path: Path) -> dict[str, str]:
    connection = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True)
    try:
        return dict(connection.execute("SELECT key, value FROM metadata").fetchall())
    finally:
        connection.close()


def _install(database: Path, root: Path, *, database_sha256: str = "d" * 64) -> CurrentPointer:
    """Copy the database into a data directory at its content address and point at it."""
    meta = _metadata(database)
    relative = content_addressed_path(
        meta["release_id"], meta["source_manifest_sha256"], database_sha256
    )
    target = root / relative
    target.parent.mkdir(parents=True)
    shutil.copyfile(database, target)
    pointer = CurrentPointer(
        database=relative,
        release=meta["release_id"],
        source_sha256=meta["source_manifest_sha256"],
        database_sha256=database_sha256,
        schema_version=SCHEMA_VERSION,
    )
    write_current_pointer(root, pointer)
    return pointer


def _pointer_json(root: Path) -> dict[str, object]:
    data: dict[str, object] = json.loads((root / "state/current.json").read_text("utf-8"))
    return data


def _write_pointer_json(root: Path, data: object) -> None:
    (root / "state/current.json").write_text(json.dumps(data), "utf-8")


def _error(call: object) -> PMGSQueryError:
    assert callable(call)
    with pytest.raises(PMGSQueryError) as caught:
        call()
    return caught.value


def test_explicit_path_wins_over_everything(
    database_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PMGS_REFERENCE_DB", str(tmp_path / "missing.sqlite"))
    with PMGSStore.open(database_path, data_dir=tmp_path / "nothing") as store:
        assert store.release_info()["database"] == database_path.name


def test_data_dir_pointer_is_used_and_checked(database_path: Path, tmp_path: Path) -> None:
    pointer = _install(database_path, tmp_path)
    assert read_current_pointer(tmp_path) == pointer
    with PMGSStore.open(data_dir=tmp_path) as store:
        assert store.pointer == pointer
        assert store.release_info()["release_id"] == pointer.release
    resolved = resolve_database(data_dir=tmp_path)
    assert resolved.origin == "data_dir"


def test_environment_variable_is_third(
    database_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PMGS_REFERENCE_DB", str(database_path))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    resolved = resolve_database()
    assert resolved.origin == "environment"
    with PMGSStore.open() as store:
        assert store.database_path == database_path


def test_default_data_dir_pointer_then_legacy(
    database_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PMGS_REFERENCE_DB", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    root = tmp_path / "xdg" / "pmgs-reference"
    root.mkdir(parents=True)
    assert _error(PMGSStore.open).code == "DATABASE_NOT_FOUND"
    # Legacy layout, used only while no pointer exists.
    legacy = root / "data" / "current.sqlite"
    legacy.parent.mkdir(parents=True)
    shutil.copyfile(database_path, legacy)
    assert resolve_database().origin == "legacy"
    with PMGSStore.open() as store:
        assert store.release_info()["database"] == "current.sqlite"
    # Once a pointer exists it is the only thing read: a broken one is not bypassed.
    _install(database_path, root)
    assert resolve_database().origin == "default_data_dir"
    data = _pointer_json(root)
    data["release"] = "not-a-release"
    _write_pointer_json(root, data)
    assert _error(PMGSStore.open).code == "INVALID_POINTER"


def test_env_var_naming_a_missing_file_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PMGS_REFERENCE_DB", str(tmp_path / "gone.sqlite"))
    error = _error(PMGSStore.open)
    assert error.code == "DATABASE_NOT_FOUND"
    assert str(tmp_path) not in error.message


@pytest.mark.parametrize(
    ("change", "code"),
    [
        (lambda d: d.pop("database_sha256"), "INVALID_POINTER"),
        (lambda d: d.update(extra=1), "INVALID_POINTER"),
        (lambda d: d.update(schema_version="1"), "INVALID_POINTER"),
        (lambda d: d.update(schema_version=True), "INVALID_POINTER"),
        (lambda d: d.update(source_sha256="ABC"), "INVALID_POINTER"),
        (lambda d: d.update(database="../outside.sqlite"), "INVALID_POINTER"),
        (lambda d: d.update(database="/etc/passwd"), "INVALID_POINTER"),
        (lambda d: d.update(database="data/other.sqlite"), "INVALID_POINTER"),
        (lambda d: d.update(database_sha256="e" * 64), "INVALID_POINTER"),
    ],
)
def test_malformed_pointer_fails_closed(
    database_path: Path, tmp_path: Path, change: object, code: str
) -> None:
    _install(database_path, tmp_path)
    data = _pointer_json(tmp_path)
    assert callable(change)
    change(data)
    _write_pointer_json(tmp_path, data)
    error = _error(lambda: PMGSStore.open(data_dir=tmp_path))
    assert error.code == code
    assert str(tmp_path) not in error.message


def test_pointer_that_is_not_json_fails_closed(database_path: Path, tmp_path: Path) -> None:
    _install(database_path, tmp_path)
    (tmp_path / "state/current.json").write_bytes(b"\xff{not json")
    assert _error(lambda: PMGSStore.open(data_dir=tmp_path)).code == "INVALID_POINTER"
    _write_pointer_json(tmp_path, ["a", "list"])
    assert _error(lambda: PMGSStore.open(data_dir=tmp_path)).code == "INVALID_POINTER"


def test_pointer_to_missing_file(database_path: Path, tmp_path: Path) -> None:
    pointer = _install(database_path, tmp_path)
    (tmp_path / pointer.database).unlink()
    error = _error(lambda: PMGSStore.open(data_dir=tmp_path))
    assert error.code == "DATABASE_NOT_FOUND"
    # No fallback to the legacy file once a pointer exists.
    legacy = tmp_path / "data" / "current.sqlite"
    shutil.copyfile(database_path, legacy)
    assert _error(lambda: PMGSStore.open(data_dir=tmp_path)).code == "DATABASE_NOT_FOUND"


def test_pointer_through_symlink_leaving_root(database_path: Path, tmp_path: Path) -> None:
    root = tmp_path / "root"
    pointer = _install(database_path, root)
    target = root / pointer.database
    outside = tmp_path / "outside.sqlite"
    shutil.move(target, outside)
    target.symlink_to(outside)
    assert _error(lambda: PMGSStore.open(data_dir=root)).code == "INVALID_POINTER"


@pytest.mark.parametrize("field", ["release", "source_sha256"])
def test_pointer_disagreeing_with_metadata(database_path: Path, tmp_path: Path, field: str) -> None:
    meta = _metadata(database_path)
    release = "JPPM1999001" if field == "release" else meta["release_id"]
    source = "f" * 64 if field == "source_sha256" else meta["source_manifest_sha256"]
    relative = content_addressed_path(release, source, "d" * 64)
    (tmp_path / relative).parent.mkdir(parents=True)
    shutil.copyfile(database_path, tmp_path / relative)
    pointer = CurrentPointer(relative, release, source, "d" * 64, SCHEMA_VERSION)
    write_current_pointer(tmp_path, pointer)
    assert _error(lambda: PMGSStore.open(data_dir=tmp_path)).code == "POINTER_MISMATCH"


def test_pointer_schema_version_disagreeing(database_path: Path, tmp_path: Path) -> None:
    _install(database_path, tmp_path)
    data = _pointer_json(tmp_path)
    data["schema_version"] = SCHEMA_VERSION + 1
    _write_pointer_json(tmp_path, data)
    assert _error(lambda: PMGSStore.open(data_dir=tmp_path)).code == "POINTER_MISMATCH"


def test_data_dir_without_pointer_or_legacy(tmp_path: Path) -> None:
    assert _error(lambda: PMGSStore.open(data_dir=tmp_path)).code == "DATABASE_NOT_FOUND"


def test_write_pointer_refuses_what_readers_refuse(database_path: Path, tmp_path: Path) -> None:
    pointer = _install(database_path, tmp_path)
    bad = CurrentPointer(
        "elsewhere.sqlite",
        pointer.release,
        pointer.source_sha256,
        pointer.database_sha256,
        SCHEMA_VERSION,
    )
    assert _error(lambda: write_current_pointer(tmp_path, bad)).code == "INVALID_POINTER"
    assert read_current_pointer(tmp_path) == pointer  # the old pointer is intact
    assert [p.name for p in (tmp_path / "state").iterdir()] == ["current.json"]


def test_unknown_schema_version_is_refused(writable_copy: Path) -> None:
    connection = sqlite3.connect(writable_copy)
    connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    connection.commit()
    connection.close()
    error = _error(lambda: PMGSStore.open(writable_copy))
    assert error.code == "UNSUPPORTED_SCHEMA_VERSION"
    assert error.details["supported"] == [SCHEMA_VERSION]


def test_metadata_schema_version_is_checked_too(writable_copy: Path) -> None:
    connection = sqlite3.connect(writable_copy)
    connection.execute("UPDATE metadata SET value = '99' WHERE key = 'schema_version'")
    connection.commit()
    connection.close()
    assert _error(lambda: PMGSStore.open(writable_copy)).code == "UNSUPPORTED_SCHEMA_VERSION"


def test_not_a_database(tmp_path: Path) -> None:
    path = tmp_path / "junk.sqlite"
    path.write_bytes(b"this is not sqlite" * 100)
    error = _error(lambda: PMGSStore.open(path))
    assert error.code == "DATABASE_INVALID"
    assert str(tmp_path) not in error.message


def test_missing_explicit_path(tmp_path: Path) -> None:
    error = _error(lambda: PMGSStore.open(tmp_path / "nope.sqlite"))
    assert error.code == "DATABASE_NOT_FOUND"
    assert str(tmp_path) not in error.message


def test_connection_is_read_only(database_path: Path) -> None:
    with PMGSStore.open(database_path) as store:
        connection = store._connection()
        assert connection.execute("PRAGMA query_only").fetchone()[0] == 1
        with pytest.raises(sqlite3.Error):
            connection.execute("CREATE TABLE scratch (x)")
        # Even with query_only lifted, the file is opened with mode=ro.
        connection.execute("PRAGMA query_only = 0")
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            connection.execute("DELETE FROM metadata")


def test_closed_store(database_path: Path) -> None:
    store = PMGSStore.open(database_path)
    store.close()
    assert _error(store.release_info).code == "STORE_CLOSED"
