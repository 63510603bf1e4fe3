"""ZIP member names as Japanese Windows tools write them (issue 43, ADR 0032).

Explorer on a Japanese system writes names in CP932 with the UTF-8 flag clear; old tools
write backslash separators. The archives below are bytes written here by hand (a stored
ZIP: local headers, central directory, end record), by Python's zipfile told to store raw
CP932 names, and by Info-ZIP ``zip`` from a tree whose file names are CP932 bytes. Each
must build the database the plain package builds (same logical digest), or be refused as
unsafe when the *decoded* path would leave the package.
"""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from pmgs_build import BuildError, BuildReport, IssueCode, build_database, take_inventory
from pmgs_build.source.zip_names import decode_member_names
from pmgs_testkit import stored_zip

HANDMADE = Path(__file__).parent / "data" / "handmade" / "JPPM2026001"
TOP = "JPPM2026001"
OUTER = "パテントマップ表/ソフト資料"
"""Two folders around the release, as a Japanese user names them: ``表`` (0x95 0x5C) and
``ソ`` (0x83 0x5C) end in the byte of a backslash, which a CP437 reading shows as one."""


def _files(root: Path = HANDMADE) -> Iterator[tuple[str, bytes]]:
    for path in sorted(root.rglob("*")):
        if path.is_file():
            yield path.relative_to(root).as_posix(), path.read_bytes()


class _RawNameInfo(zipfile.ZipInfo):
    """A ZipInfo that zipfile writes under the raw CP932 bytes of its name, flag clear."""

    def _encodeFilenameFlags(self) -> tuple[bytes, int]:
        return self.filename.encode("cp932"), self.flag_bits & ~0x800


@pytest.fixture(scope="module")
def plain(tmp_path_factory: pytest.TempPathFactory) -> BuildReport:
    return build_database(HANDMADE, tmp_path_factory.mktemp("plain") / "plain.sqlite")


def _same_as_plain(report: BuildReport, plain: BuildReport) -> None:
    assert report.release == TOP
    assert report.source_manifest_sha256 == plain.source_manifest_sha256
    assert report.logical_digest == plain.logical_digest
    assert report.table_counts == plain.table_counts


def test_cp932_names_and_backslash_separators_written_by_hand(
    tmp_path: Path, plain: BuildReport
) -> None:
    members = [
        (f"{OUTER}\\{TOP}\\{path.replace('/', chr(92))}".encode("cp932"), data)
        for path, data in _files()
    ]
    archive = tmp_path / "download.zip"
    archive.write_bytes(stored_zip(members))
    report = build_database(archive, tmp_path / "db.sqlite")
    _same_as_plain(report, plain)
    assert report.release_path == f"{OUTER}/{TOP}"
    assert report.member_names == f"cp932, {len(members)} names with backslash separators"


def test_cp932_names_written_by_pythons_zipfile(tmp_path: Path, plain: BuildReport) -> None:
    archive = tmp_path / "explorer.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as out:
        for path, data in _files():
            out.writestr(_RawNameInfo(f"{OUTER}/{TOP}/{path}"), data)
    with zipfile.ZipFile(archive) as check:  # the flag is clear, zipfile alone reads mojibake
        first = check.infolist()[0]
        assert not first.flag_bits & 0x800
        assert "\\" in first.filename
    report = build_database(archive, tmp_path / "db.sqlite")
    _same_as_plain(report, plain)
    assert report.member_names == "cp932"


@pytest.mark.skipif(shutil.which("zip") is None, reason="Info-ZIP zip is not installed")
def test_cp932_names_written_by_info_zip(tmp_path: Path, plain: BuildReport) -> None:
    tree = tmp_path / "tree"
    for path, data in _files():
        target = os.fsencode(tree) + b"/" + f"{OUTER}/{TOP}/{path}".encode("cp932")
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as handle:
            handle.write(data)
    archive = tmp_path / "infozip.zip"
    subprocess.run(
        ["zip", "-q", "-r", str(archive), "."],
        cwd=tree,
        check=True,
        env={**os.environ, "LC_ALL": "C"},
    )
    report = build_database(archive, tmp_path / "db.sqlite")
    _same_as_plain(report, plain)
    assert report.member_names == "cp932"


def test_the_inventory_keeps_the_decoded_member_names(tmp_path: Path) -> None:
    archive = tmp_path / "a.zip"
    archive.write_bytes(
        stored_zip([(f"{OUTER}\\{TOP}\\{p}".encode("cp932"), d) for p, d in _files()])
    )
    inventory = take_inventory(archive)
    member = next(f for f in inventory.files if f.path == "FI/FI/fi_B_20260331.csv")
    assert member.member == f"{OUTER}/{TOP}/FI/FI/fi_B_20260331.csv"
    assert inventory.member_names.startswith("cp932")


# -- the rule, one name at a time -------------------------------------------------------


def _info(raw: bytes, flags: int = 0, extra: bytes = b"") -> zipfile.ZipInfo:
    """A ZipInfo as zipfile reads a central-directory entry of ``raw`` name bytes."""
    info = zipfile.ZipInfo(raw.decode("utf-8") if flags & 0x800 else raw.decode("cp437"))
    info.flag_bits = flags
    info.extra = extra
    return info


def _unicode_path(raw: bytes, name: str, crc: int | None = None) -> bytes:
    body = b"\x01" + struct.pack("<L", zlib.crc32(raw) if crc is None else crc)
    body += name.encode("utf-8")
    return struct.pack("<HH", 0x7075, len(body)) + body


@pytest.mark.parametrize(
    ("infos", "names", "encoding"),
    [
        ([_info(b"a\\b.csv"), _info(b"c/d")], ("a/b.csv", "c/d"), "ascii"),
        ([_info("表\\x.csv".encode("cp932"))], ("表/x.csv",), "cp932"),
        ([_info("ソフト/x".encode("cp932"))], ("ソフト/x",), "cp932"),
        # no flag but valid UTF-8 (macOS Archive Utility): UTF-8
        ([_info("資料/x".encode())], ("資料/x",), "utf-8"),
        # é is C3 A9 in UTF-8, and ﾃｩ in CP932: valid in both, UTF-8 wins alone ...
        ([_info("é/x".encode())], ("é/x",), "utf-8"),
        # ... but one writer writes one code page: beside a CP932-only name it is CP932
        ([_info("é/x".encode()), _info("表/y".encode("cp932"))], ("ﾃｩ/x", "表/y"), "cp932"),
        # neither UTF-8 nor CP932 (0x80 is undefined in CP932): CP437, the ZIP default
        ([_info(b"\x80\x81/x")], ("Çü/x",), "cp437"),
        # the UTF-8 flag decides its own name; the others still need a code page
        (
            [_info("様式\\x".encode(), flags=0x800), _info(b"y")],
            ("様式/x", "y"),
            "ascii",
        ),
        # Info-ZIP's Unicode Path field names the member when its CRC matches the raw name
        (
            [_info(b"\x93\xc1/x", extra=_unicode_path(b"\x93\xc1/x", "特/x"))],
            ("特/x",),
            "ascii",
        ),
        (
            [_info(b"\x93\xc1/x", extra=_unicode_path(b"\x93\xc1/x", "偽/x", crc=1))],
            ("特/x",),
            "cp932",
        ),
    ],
)
def test_names_are_decoded_by_the_archive_rule(
    infos: list[zipfile.ZipInfo], names: tuple[str, ...], encoding: str
) -> None:
    decoded = decode_member_names(infos)
    assert decoded.names == names
    assert decoded.encoding == encoding


# -- the safety checks see the decoded path ---------------------------------------------


@pytest.mark.parametrize(
    ("raw", "shown", "why"),
    [
        (b"..\\..\\evil.csv", "../../evil.csv", "an empty, '.' or '..' component"),
        (b"JPPM2026001\\..\\..\\evil.csv", "JPPM2026001/../../evil.csv", "'..' component"),
        (b"\\evil.csv", "/evil.csv", "absolute"),
        (b"C:\\evil.csv", "C:/evil.csv", "drive letter"),
        ("資料\\..\\..\\evil.csv".encode("cp932"), "資料/../../evil.csv", "'..' component"),
        (b"JPPM2026001\\FI\\CON.csv", "JPPM2026001/FI/CON.csv", "device name 'CON.csv'"),
        (b"JPPM2026001/aux/x.csv", "JPPM2026001/aux/x.csv", "device name 'aux'"),
        (b"JPPM2026001/lpt1 ./x.csv", "JPPM2026001/lpt1 ./x.csv", "device name"),
    ],
)
def test_unsafe_decoded_paths_are_refused_naming_the_member(
    tmp_path: Path, raw: bytes, shown: str, why: str
) -> None:
    members = [(f"{TOP}/{p}".encode(), d) for p, d in _files()] + [(raw, b"x")]
    archive = tmp_path / "evil.zip"
    archive.write_bytes(stored_zip(members))
    with pytest.raises(BuildError) as raised:
        build_database(archive, tmp_path / "db.sqlite")
    assert raised.value.code == IssueCode.ZIP_MEMBER_UNSAFE
    (issue,) = raised.value.issues
    assert issue.source_path == shown
    assert why in issue.message
    assert not (tmp_path / "db.sqlite").exists()


def test_a_name_that_is_a_file_and_its_backslash_twin_is_refused(tmp_path: Path) -> None:
    members = [(f"{TOP}/{p}".encode(), d) for p, d in _files()]
    members.append((f"{TOP}\\{'JUDGE'}\\judge_20260331.csv".encode(), b"x"))
    archive = tmp_path / "twin.zip"
    archive.write_bytes(stored_zip(members))
    with pytest.raises(BuildError) as raised:
        take_inventory(archive)
    assert raised.value.code == IssueCode.ZIP_LAYOUT_INVALID
    assert raised.value.issues[0].source_path == f"{TOP}/JUDGE/judge_20260331.csv"
