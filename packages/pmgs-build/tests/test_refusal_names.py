"""A refused source names what it refused (issue 41): the member of a ZIP whose name could
leave the package, the link in a folder, shown escaped and bounded, in the message and in
``details.path``. Oracle: the names the test wrote."""

from __future__ import annotations

import os
import shutil
import zipfile
from pathlib import Path

import pytest

from pmgs_build import SetupError, sample_package_path, setup_release


@pytest.mark.parametrize(
    ("member", "shown"),
    [
        ("/etc/evil.txt", "/etc/evil.txt"),
        ("../outside.txt", "../outside.txt"),
        ("a/\x1b[31mred/../../x", "a/\\x1b[31mred/../../x"),
    ],
)
def test_an_unsafe_member_is_named(tmp_path: Path, member: str, shown: str) -> None:
    archive = tmp_path / "evil.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr(member, "x")
    with pytest.raises(SetupError) as caught:
        setup_release(archive, tmp_path / "d")
    error = caught.value
    assert error.code == "SOURCE_INVALID"
    assert error.details["issues"] == ["ZIP_MEMBER_UNSAFE"]
    assert error.details["path"] == shown
    assert f"({shown})" in error.message
    assert "\x1b" not in error.message


def test_a_link_in_the_release_is_named(tmp_path: Path) -> None:
    package = tmp_path / sample_package_path().name
    shutil.copytree(sample_package_path(), package)
    inner = next(p for p in sorted(package.rglob("*.csv")))
    os.symlink("/etc/hostname", inner.parent / "linked.csv")
    relative = (inner.parent / "linked.csv").relative_to(package).as_posix()
    with pytest.raises(SetupError) as caught:
        setup_release(package, tmp_path / "d")
    error = caught.value
    assert error.details["issues"] == ["SOURCE_SYMLINK"]
    assert str(error.details["path"]).endswith(relative.split("/", 1)[-1])
    assert "linked.csv" in error.message


def test_a_long_name_is_bounded(tmp_path: Path) -> None:
    archive = tmp_path / "evil.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("/" + "x" * 5000, "x")
    with pytest.raises(SetupError) as caught:
        setup_release(archive, tmp_path / "d")
    assert len(caught.value.message) < 600
    assert str(caught.value.details["path"]).endswith("…")
