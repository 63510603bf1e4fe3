"""Archives inside the source (issue 43, ADR 0032): ZIPs one level deep read in place, other
formats and deeper nesting refused with a next step that works (the tests run it).

Data groups zipped one each, written here by hand (stored, byte by byte) or by zipfile
(deflated), inside the release folder or inside the downloaded ZIP, and the downloaded ZIP
kept in a folder, must build the database the plain package builds: same manifest, same
logical digest.
"""

from __future__ import annotations

import io
import shlex
import shutil
import subprocess
import tarfile
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from pmgs_build import BuildError, BuildReport, IssueCode, build_database, take_inventory
from pmgs_build.source.container import ZipLimits
from pmgs_testkit import stored_zip

HANDMADE = Path(__file__).parent / "data" / "handmade" / "JPPM2026001"
TOP = "JPPM2026001"


def _files(under: str = "") -> Iterator[tuple[str, bytes]]:
    """The handmade package's files below ``under`` (``FI/``…), paths relative to it."""
    for path in sorted(HANDMADE.rglob("*")):
        relative = path.relative_to(HANDMADE).as_posix()
        if path.is_file() and relative.startswith(under):
            yield relative[len(under) :], path.read_bytes()


def _deflated(members: list[tuple[str, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members:
            archive.writestr(name, data)
    return buffer.getvalue()


def _release_with_zipped_groups(root: Path) -> Path:
    """The release folder with FI, FTERM and IPC each zipped the ways Windows users do."""
    release = root / TOP
    for relative, data in _files():
        if relative.split("/", 1)[0] not in {"FI", "FTERM", "IPC"}:
            (release / relative).parent.mkdir(parents=True, exist_ok=True)
            (release / relative).write_bytes(data)
    # "Send to > Compressed folder" on FI: the folder is inside, stored, written by hand
    (release / "FI.zip").write_bytes(
        stored_zip([(f"FI/{name}".encode(), data) for name, data in _files("FI/")])
    )
    # the contents of FTERM selected and zipped: no FTERM folder inside, deflated
    (release / "FTERM.zip").write_bytes(_deflated(list(_files("FTERM/"))))
    # lower-case archive name, CP932 names with backslashes inside
    (release / "ipc.ZIP").write_bytes(
        stored_zip([(f"IPC\\{name}".replace("/", "\\").encode(), d) for name, d in _files("IPC/")])
    )
    return release


@pytest.fixture(scope="module")
def plain(tmp_path_factory: pytest.TempPathFactory) -> BuildReport:
    return build_database(HANDMADE, tmp_path_factory.mktemp("plain") / "plain.sqlite")


def _same(report: BuildReport, plain: BuildReport) -> None:
    assert report.release == TOP
    assert report.source_manifest_sha256 == plain.source_manifest_sha256
    assert report.logical_digest == plain.logical_digest


def test_groups_zipped_one_each_in_the_release_folder(tmp_path: Path, plain: BuildReport) -> None:
    release = _release_with_zipped_groups(tmp_path / "src")
    report = build_database(release, tmp_path / "db.sqlite")
    _same(report, plain)
    assert report.member_names == (
        "FI.zip: ascii; FTERM.zip: ascii; ipc.ZIP: ascii, 7 names with backslash separators"
    )
    inventory = take_inventory(release)
    fi = next(f for f in inventory.files if f.path == "FI/FI/fi_B_20260331.csv")
    assert (fi.absolute, fi.member) == (release, "FI.zip/FI/FI/fi_B_20260331.csv")
    theme = next(f for f in inventory.files if f.path == "FTERM/THEME/theme_20260331.csv")
    assert theme.member == "FTERM.zip/THEME/theme_20260331.csv"


def test_groups_zipped_inside_the_downloaded_zip(tmp_path: Path, plain: BuildReport) -> None:
    release = _release_with_zipped_groups(tmp_path / "src")
    archive = tmp_path / "download.zip"
    with zipfile.ZipFile(archive, "w") as out:
        for path in sorted(release.rglob("*")):
            name = f"{TOP}/{path.relative_to(release).as_posix()}"
            # the stored inner ZIP is read through a window, the deflated one through zipfile
            method = zipfile.ZIP_STORED if path.name == "FI.zip" else zipfile.ZIP_DEFLATED
            out.write(path, name, compress_type=method)
    report = build_database(archive, tmp_path / "db.sqlite")
    _same(report, plain)
    assert report.member_names.startswith("download.zip: ascii; JPPM2026001/FI.zip: ascii")


def test_the_download_kept_in_a_folder(tmp_path: Path, plain: BuildReport) -> None:
    folder = tmp_path / "downloads"
    folder.mkdir()
    (folder / f"{TOP}.zip").write_bytes(_deflated([(f"{TOP}/{n}", d) for n, d in _files()]))
    (folder / "memo.txt").write_text("not read\n", encoding="utf-8")
    report = build_database(folder, tmp_path / "db.sqlite")
    assert report.release_path == TOP
    assert report.ignored == ("memo.txt",)
    assert report.member_names == f"{TOP}.zip: ascii"  # labelled: not the source's own ZIP
    assert report.source_manifest_sha256 == plain.source_manifest_sha256


def test_an_inner_zip_counts_against_the_same_bounds(tmp_path: Path) -> None:
    release = _release_with_zipped_groups(tmp_path / "src")
    (release / "FTERM.zip").write_bytes(
        _deflated([("THEME/zeros.csv", b"0" * (3 << 20)), *_files("FTERM/")])
    )
    with pytest.raises(BuildError) as raised:
        take_inventory(release, zip_limits=ZipLimits(ratio=50))
    assert raised.value.code == IssueCode.ZIP_TOO_LARGE
    assert raised.value.issues[0].source_path == "THEME/zeros.csv"
    with pytest.raises(BuildError) as total:
        take_inventory(release, zip_limits=ZipLimits(total_bytes=2_000))
    assert total.value.code == IssueCode.ZIP_TOO_LARGE


def test_an_unsafe_name_inside_an_inner_zip_is_refused(tmp_path: Path) -> None:
    release = _release_with_zipped_groups(tmp_path / "src")
    (release / "FI.zip").write_bytes(stored_zip([(b"..\\..\\evil.csv", b"x")]))
    with pytest.raises(BuildError) as raised:
        take_inventory(release)
    assert raised.value.code == IssueCode.ZIP_MEMBER_UNSAFE
    assert raised.value.issues[0].source_path == "../../evil.csv"


# -- refused, with a next step the test runs ---------------------------------------------


def _step(error: BuildError) -> str:
    message = error.issues[0].message
    assert "Next step: " in message
    return message.split("Next step: ", 1)[1]


def _run(command: str, cwd: Path) -> None:
    """Run the shell words of one hinted command (``a && b`` runs both)."""
    for part in command.split(" && "):
        subprocess.run(shlex.split(part), cwd=cwd, check=True, capture_output=True)


@pytest.mark.skipif(shutil.which("tar") is None, reason="no tar")
def test_a_tar_gz_source_is_refused_with_the_command_that_unpacks_it(
    tmp_path: Path, plain: BuildReport
) -> None:
    source = tmp_path / "pmgs.tar.gz"
    with tarfile.open(source, "w:gz") as archive:
        archive.add(HANDMADE, arcname=TOP)
    with pytest.raises(BuildError) as raised:
        build_database(source, tmp_path / "db.sqlite")
    error = raised.value
    assert error.code == IssueCode.SOURCE_ARCHIVE_UNSUPPORTED
    assert error.issues[0].source_path == "pmgs.tar.gz"
    step = _step(error)
    assert step.startswith("mkdir pmgs && tar -xf pmgs.tar.gz -C pmgs, then run pmgs setup pmgs"), (
        step
    )
    _run(step.split(", then ")[0], tmp_path)
    _same(build_database(tmp_path / "pmgs", tmp_path / "db.sqlite"), plain)


@pytest.mark.parametrize(
    ("name", "head", "kind"),
    [
        ("pmgs.7z", b"7z\xbc\xaf\x27\x1c\x00\x04", "7-Zip"),
        ("pmgs.rar", b"Rar!\x1a\x07\x01\x00", "RAR"),
        ("pmgs.zip", b"Rar!\x1a\x07\x00", "RAR"),  # the bytes decide, not the name
        ("pmgs.tar", b"x" * 257 + b"ustar\x0000", "tar"),
        ("pmgs.bin", b"\xfd7zXZ\x00\x00", "xz-compressed tar"),
    ],
)
def test_other_formats_are_named_by_their_bytes(
    tmp_path: Path, name: str, head: bytes, kind: str
) -> None:
    source = tmp_path / name
    source.write_bytes(head + b"\x00" * 600)
    with pytest.raises(BuildError) as raised:
        take_inventory(source)
    assert raised.value.code == IssueCode.SOURCE_ARCHIVE_UNSUPPORTED
    assert raised.value.issues[0].message.startswith(f"the source {name} is a {kind} archive")


@pytest.mark.skipif(shutil.which("tar") is None, reason="no tar")
def test_a_tar_group_in_the_release_folder_is_refused_and_the_step_works(
    tmp_path: Path, plain: BuildReport
) -> None:
    source = tmp_path / "dl"
    release = source / TOP
    for relative, data in _files():
        if not relative.startswith("FTERM/"):
            (release / relative).parent.mkdir(parents=True, exist_ok=True)
            (release / relative).write_bytes(data)
    with tarfile.open(release / "FTERM.tar", "w") as archive:
        for relative, _ in _files("FTERM/"):
            archive.add(HANDMADE / "FTERM" / relative, arcname=relative)
    with pytest.raises(BuildError) as raised:
        build_database(source, tmp_path / "db.sqlite")
    error = raised.value
    assert error.code == IssueCode.SOURCE_ARCHIVE_UNSUPPORTED
    assert error.issues[0].source_path == f"{TOP}/FTERM.tar"
    step = _step(error)
    assert step == (
        f"in the folder dl: mkdir {TOP}/FTERM && tar -xf {TOP}/FTERM.tar -C {TOP}/FTERM "
        f"and delete {TOP}/FTERM.tar; then run pmgs setup dl again"
    )
    _run(step.split(": ", 1)[1].split(" and delete ")[0], source)
    (release / "FTERM.tar").unlink()
    _same(build_database(source, tmp_path / "db.sqlite"), plain)


def test_a_7z_group_where_no_release_is_found_says_to_unpack_it(tmp_path: Path) -> None:
    archive = tmp_path / "download.zip"
    archive.write_bytes(_deflated([(f"{TOP}/FI.7z", b"7z\xbc\xaf\x27\x1c"), (f"{TOP}/x.txt", b"")]))
    with pytest.raises(BuildError) as raised:
        take_inventory(archive)
    assert raised.value.code == IssueCode.SOURCE_ARCHIVE_UNSUPPORTED
    assert _step(raised.value) == (
        "unpack download.zip first (unzip download.zip -d download (Windows: tar -xf "
        "download.zip -C download)), then in the folder download: mkdir JPPM2026001/FI && "
        "tar -xf JPPM2026001/FI.7z -C JPPM2026001/FI (Windows' tar and bsdtar read 7-Zip; "
        "elsewhere 7-Zip: 7z x JPPM2026001/FI.7z -oJPPM2026001/FI) and delete "
        "JPPM2026001/FI.7z; then run pmgs setup download"
    )


@pytest.mark.skipif(shutil.which("unzip") is None, reason="no unzip")
def test_a_zip_two_levels_deep_is_refused_and_the_step_works(
    tmp_path: Path, plain: BuildReport
) -> None:
    source = tmp_path / "dl"
    release = _release_with_zipped_groups(tmp_path / "made")
    # the release folder, its groups zipped, zipped whole again and kept in a folder
    source.mkdir()
    with zipfile.ZipFile(source / f"{TOP}.zip", "w", zipfile.ZIP_DEFLATED) as out:
        for path in sorted(release.rglob("*")):
            out.write(path, f"{TOP}/{path.relative_to(release).as_posix()}")
    with pytest.raises(BuildError) as raised:
        build_database(source, tmp_path / "db.sqlite")
    error = raised.value
    assert error.code == IssueCode.SOURCE_ARCHIVE_NESTED
    assert error.issues[0].source_path == f"{TOP}.zip/{TOP}/FI.zip"
    step = _step(error)
    assert step == (
        f"in the folder dl: unzip {TOP}.zip -d . (Windows: tar -xf {TOP}.zip -C .) and "
        f"delete {TOP}.zip; then run pmgs setup dl again"
    )
    _run(step.split(": ", 1)[1].split(" (Windows")[0], source)
    (source / f"{TOP}.zip").unlink()
    _same(build_database(source, tmp_path / "db.sqlite"), plain)
