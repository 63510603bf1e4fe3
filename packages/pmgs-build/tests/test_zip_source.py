"""The ZIP as downloaded is a build source: read in place, equal to its extracted tree, and
refused (with a coded error naming the member, no database, nothing written) when hostile."""

from __future__ import annotations

import stat
import struct
import warnings
import zipfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from pmgs_build import BuildError, IssueCode, build_database, take_inventory
from pmgs_build.source.container import ZipLimits
from pmgs_testkit import generate_package, make_zip

HANDMADE = Path(__file__).parent / "data" / "handmade" / "JPPM2026001"
TOP = "JPPM2026001"
_CENTRAL = b"PK\x01\x02"


def _members(root: Path = HANDMADE) -> Iterator[tuple[str, bytes]]:
    for path in sorted(root.rglob("*")):
        if path.is_file():
            yield f"{TOP}/{path.relative_to(root).as_posix()}", path.read_bytes()


def _zip(
    target: Path,
    extra: Sequence[tuple[str | zipfile.ZipInfo, bytes]] = (),
    *,
    base: bool = True,
    compression: int = zipfile.ZIP_DEFLATED,
) -> Path:
    """The handmade package zipped (file members only), plus ``extra`` members."""
    with zipfile.ZipFile(target, "w", compression=compression) as archive:
        if base:
            for name, data in _members():
                archive.writestr(name, data)
        for entry, data in extra:
            archive.writestr(entry, data)
    return target


def _patch_central(archive: Path, member: str, offset: int, fmt: str, value: int) -> None:
    """Overwrite one field of ``member``'s central-directory header (sizes, flags, offsets)."""
    data = bytearray(archive.read_bytes())
    name = member.encode("utf-8")
    start = data.find(_CENTRAL)
    while start >= 0:
        (name_length,) = struct.unpack_from("<H", data, start + 28)
        if bytes(data[start + 46 : start + 46 + name_length]) == name:
            struct.pack_into(fmt, data, start + offset, value)
            archive.write_bytes(bytes(data))
            return
        start = data.find(_CENTRAL, start + 4)
    raise AssertionError(f"{member} not in the central directory")


def _header_offset(archive: Path, member: str) -> int:
    with zipfile.ZipFile(archive) as zf:
        return zf.getinfo(member).header_offset


def _refused(tmp_path: Path, source: Path, code: str, **kwargs: Any) -> BuildError:
    """Build ``source``; it must fail with ``code``, leaving no file beside the output."""
    out = tmp_path / "out"
    out.mkdir(exist_ok=True)
    with pytest.raises(BuildError) as raised:
        build_database(source, out / "db.sqlite", **kwargs)
    assert raised.value.code == code, raised.value.issues
    assert list(out.iterdir()) == []
    assert not [p for p in tmp_path.rglob("*") if "evil" in p.name and p.suffix != ".zip"]
    return raised.value


# -- the ZIP builds the same database as the directory -----------------------------------


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    parent = tmp_path_factory.mktemp("generated")
    package = generate_package(parent, scale=0.01, seed=5, with_documents=True)
    return package.path, make_zip(package.path, parent / "download.zip")


def test_zip_manifest_equals_the_extracted_tree(generated: tuple[Path, Path]) -> None:
    directory, archive = generated
    from_dir = take_inventory(directory)
    from_zip = take_inventory(archive)
    assert from_zip.manifest_text() == from_dir.manifest_text()
    assert from_zip.manifest_sha256 == from_dir.manifest_sha256
    assert (from_zip.release_id, from_zip.reference_date) == (
        from_dir.release_id,
        from_dir.reference_date,
    )
    assert from_zip.root == archive
    member = from_zip.files[0]
    assert member.absolute == archive
    assert member.member == f"{from_dir.release_id}/{member.path}"
    assert all(f.member is None for f in from_dir.files)


def test_zip_builds_the_same_database(generated: tuple[Path, Path], tmp_path: Path) -> None:
    directory, archive = generated
    from_dir = build_database(directory, tmp_path / "dir.sqlite")
    from_zip = build_database(archive, tmp_path / "zip.sqlite")
    assert from_zip.source_manifest_sha256 == from_dir.source_manifest_sha256
    assert from_zip.logical_digest == from_dir.logical_digest
    assert from_zip.table_counts == from_dir.table_counts
    assert from_zip.table_counts["document"] > 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dir.sqlite", "zip.sqlite"]


def test_one_archive_is_opened_for_the_whole_build_and_closed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[zipfile.ZipFile] = []

    class Counting(zipfile.ZipFile):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            opened.append(self)

    archive = _zip(tmp_path / "ok.zip")
    broken = _zip(tmp_path / "bad.zip", [(f"{TOP}/JUDGE/extra_20260331.csv", b'"unclosed\n')])
    monkeypatch.setattr(zipfile, "ZipFile", Counting)
    report = build_database(archive, tmp_path / "db.sqlite")
    assert report.release == TOP
    assert len(opened) == 1
    assert opened[0].fp is None  # closed

    opened.clear()
    with pytest.raises(BuildError) as raised:
        build_database(broken, tmp_path / "db2.sqlite", strict=True)
    assert raised.value.code == IssueCode.CSV_MALFORMED
    assert len(opened) == 1
    assert opened[0].fp is None
    assert not (tmp_path / "db2.sqlite").exists()


def test_directory_entries_are_ignored_and_release_can_be_overridden(tmp_path: Path) -> None:
    archive = make_zip(HANDMADE, tmp_path / "with-dirs.zip")  # directory entries included
    plain = _zip(tmp_path / "files-only.zip")
    assert take_inventory(archive).manifest_sha256 == take_inventory(HANDMADE).manifest_sha256
    assert take_inventory(plain).manifest_sha256 == take_inventory(HANDMADE).manifest_sha256
    assert take_inventory(plain, release="JPPM2026009").release_id == "JPPM2026009"

    renamed = tmp_path / "renamed.zip"
    with zipfile.ZipFile(renamed, "w") as zf:
        for name, data in _members():
            zf.writestr("package/" + name.split("/", 1)[1], data)
    with pytest.raises(BuildError) as raised:
        take_inventory(renamed)
    assert raised.value.code == IssueCode.RELEASE_ID_INVALID
    assert "'package'" in raised.value.issues[0].message
    assert take_inventory(renamed, release=TOP).manifest_sha256 == (
        take_inventory(HANDMADE).manifest_sha256
    )


# -- hostile archives ---------------------------------------------------------------------


def _symlink(name: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name)
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    return info


@pytest.mark.parametrize(
    "member",
    [
        f"{TOP}/../evil",
        "/etc/evil",
        f"{TOP}/JUDGE\\..\\..\\evil",
        "C:/evil",
        f"{TOP}/./evil",
        f"{TOP}//evil",
        "symlink",
    ],
)
def test_unsafe_members_are_refused_unread(tmp_path: Path, member: str) -> None:
    entry: str | zipfile.ZipInfo = member
    data = b"x"
    if member == "symlink":
        member = f"{TOP}/JUDGE/evil_20260331.csv"
        entry, data = _symlink(member), b"../../../../evil"
    archive = _zip(tmp_path / "evil.zip", [(entry, data)])
    error = _refused(tmp_path, archive, IssueCode.ZIP_MEMBER_UNSAFE)
    # named by its decoded path: backslashes are separators (ADR 0032)
    assert [issue.source_path for issue in error.issues] == [member.replace("\\", "/")]
    with pytest.raises(BuildError) as raised:
        take_inventory(archive)
    assert raised.value.code == IssueCode.ZIP_MEMBER_UNSAFE


def test_declared_total_beyond_the_bound(tmp_path: Path) -> None:
    archive = _zip(tmp_path / "big.zip")
    total = sum(len(data) for _, data in _members())
    error = _refused(
        tmp_path, archive, IssueCode.ZIP_TOO_LARGE, zip_limits=ZipLimits(total_bytes=total - 1)
    )
    assert error.issues[0].source_path is not None
    assert build_database(archive, tmp_path / "ok.sqlite", zip_limits=ZipLimits(total_bytes=total))


def test_too_many_members(tmp_path: Path) -> None:
    archive = _zip(tmp_path / "many.zip")
    count = len(list(_members()))
    error = _refused(
        tmp_path, archive, IssueCode.ZIP_TOO_LARGE, zip_limits=ZipLimits(members=count - 1)
    )
    assert "many.zip" in error.issues[0].message


def test_compression_ratio_beyond_the_bound(tmp_path: Path) -> None:
    member = f"{TOP}/JUDGE/zeros_20260331.csv"
    archive = _zip(tmp_path / "ratio.zip", [(member, bytes(4 << 20))])
    error = _refused(tmp_path, archive, IssueCode.ZIP_TOO_LARGE)
    assert error.issues[0].source_path == member


def test_patched_declared_size_is_refused_before_reading(tmp_path: Path) -> None:
    member = f"{TOP}/JUDGE/evil_20260331.csv"
    archive = _zip(tmp_path / "patched.zip", [(member, b"01,x\n" * 100)])
    _patch_central(archive, member, 24, "<L", 0xFFFF_FFF0)  # uncompressed size
    error = _refused(tmp_path, archive, IssueCode.ZIP_TOO_LARGE)
    assert error.issues[0].source_path == member


@pytest.mark.parametrize(("declared", "code"), [(10_000, "ZIP_INVALID"), (100, "ZIP_INVALID")])
def test_bytes_read_must_match_the_declared_size(tmp_path: Path, declared: int, code: str) -> None:
    member = f"{TOP}/JUDGE/evil_20260331.csv"
    archive = _zip(tmp_path / "sized.zip", [(member, b"01,x\n" * 1000)])
    _patch_central(archive, member, 24, "<L", declared)
    error = _refused(tmp_path, archive, code, zip_limits=ZipLimits(ratio=10**9))
    assert error.issues[0].source_path == member


def test_overlapping_members_are_refused(tmp_path: Path) -> None:
    first, second = f"{TOP}/JUDGE/a_20260331.csv", f"{TOP}/JUDGE/b_20260331.csv"
    archive = _zip(tmp_path / "overlap.zip", [(first, b"01,x\n" * 50), (second, b"02,y\n")])
    _patch_central(archive, second, 42, "<L", _header_offset(archive, first))
    error = _refused(tmp_path, archive, IssueCode.ZIP_TOO_LARGE)
    assert {issue.source_path for issue in error.issues} <= {first, second}


def test_not_a_zip_and_truncated_zip(tmp_path: Path) -> None:
    text = tmp_path / "JPPM2026001.zip"
    text.write_bytes(b"this is not an archive\n")
    error = _refused(tmp_path, text, IssueCode.ZIP_INVALID)
    assert "JPPM2026001.zip" in error.issues[0].message
    whole = _zip(tmp_path / "whole.zip").read_bytes()
    truncated = tmp_path / "truncated.zip"
    truncated.write_bytes(whole[: len(whole) // 2])
    _refused(tmp_path, truncated, IssueCode.ZIP_INVALID)


def test_crc_mismatch_names_the_member(tmp_path: Path) -> None:
    member = f"{TOP}/JUDGE/evil_20260331.csv"
    content = b"01,crc-check-me\n"
    archive = _zip(tmp_path / "crc.zip", [(member, content)], compression=zipfile.ZIP_STORED)
    data = archive.read_bytes()
    at = data.index(content)
    archive.write_bytes(data[:at] + b"9" + data[at + 1 :])
    error = _refused(tmp_path, archive, IssueCode.ZIP_INVALID)
    assert error.issues[0].source_path == member


def test_encrypted_member(tmp_path: Path) -> None:
    member = f"{TOP}/JUDGE/evil_20260331.csv"
    archive = _zip(tmp_path / "enc.zip", [(member, b"01,x\n")])
    _patch_central(archive, member, 8, "<H", 0x1)  # general purpose flags: encrypted
    error = _refused(tmp_path, archive, IssueCode.ZIP_INVALID)
    assert error.issues[0].source_path == member


@pytest.mark.parametrize(
    ("extra", "named"),
    [
        ([(f"{TOP}/JUDGE/judge_20260331.csv", b"x")], f"{TOP}/JUDGE/judge_20260331.csv"),
        ([(f"{TOP}/JUDGE", b"x")], f"{TOP}/JUDGE"),
        # Names that one file system keeps apart and another folds together: the JUDGE file
        # with its name upper-cased, and one katakana GA spelled NFC (U+30AC) and NFD
        # (U+30AB U+3099). Whichever is read second is named.
        ([(f"{TOP}/JUDGE/JUDGE_20260331.CSV", b"x")], None),
        ([(f"{TOP}/JUDGE/\u30ac.txt", b"a"), (f"{TOP}/JUDGE/\u30ab\u3099.txt", b"b")], None),
    ],
    ids=[
        "duplicate-path",
        "file-and-directory",
        "names-differing-in-case",
        "names-differing-in-unicode-normalisation",
    ],
)
def test_member_paths_must_be_unique(
    tmp_path: Path, extra: list[tuple[str, bytes]], named: str | None
) -> None:
    base = _zip(tmp_path / "evil.zip")
    with warnings.catch_warnings(), zipfile.ZipFile(base, "a") as zf:
        warnings.simplefilter("ignore")  # zipfile warns about the duplicate name it writes
        for name, data in extra:
            zf.writestr(name, data)
    error = _refused(tmp_path, base, IssueCode.ZIP_LAYOUT_INVALID)
    if named is not None:
        assert named in {issue.source_path for issue in error.issues}
