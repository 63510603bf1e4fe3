"""Finding the release by its structure (ADR 0019), on the handmade package and hand-made trees.

The container variants of ``test_variants`` prove that every layout builds like the base;
these tests pin the edges: what is refused and with which words, what is ignored inside the
release, and where the release id comes from.
"""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

import pytest

from pmgs_build import BuildError, IssueCode, take_inventory

HANDMADE = Path(__file__).parent / "data" / "handmade" / "JPPM2026001"


def _tree(root: Path, files: list[str]) -> Path:
    for name in files:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"x")
    return root


def _zip_of(directory: Path, target: Path, inside: str = "") -> Path:
    with zipfile.ZipFile(target, "w") as archive:
        for path in sorted(directory.rglob("*")):
            if path.is_file():
                archive.write(path, inside + path.relative_to(directory).as_posix())
    return target


NO_RELEASE = [
    "notes.txt",
    "data/classes.csv",
    "data/2026/fi_A_20260331.csv",
    "photos/FI/img.png",  # a folder named FI is not a data group folder: FI/FI is
    "misc/JUDGE/judge.csv",  # nor is a lone JUDGE: too common a name to be evidence
    "__MACOSX/data/._classes.csv",
]


@pytest.mark.parametrize("form", ["directory", "zip"])
def test_no_release_names_what_was_looked_for_and_found(tmp_path: Path, form: str) -> None:
    tree = _tree(tmp_path / "download", NO_RELEASE)
    source = tree if form == "directory" else _zip_of(tree, tmp_path / "download.zip")
    with pytest.raises(BuildError) as raised:
        take_inventory(source)
    error = raised.value
    assert error.code == IssueCode.RELEASE_FOLDER_NOT_FOUND
    message = error.issues[0].message
    # What was looked for: the data group folders and a file name.
    for looked_for in ("FI/FI", "FTERM/THEME", "IPC/IPC8U_TEXT", "fi_A_20260331.csv"):
        assert looked_for in message
    # What the top two levels hold (leftovers left out), and a hint.
    found = message.split("top two levels hold ", 1)[1]
    for entry in ("data/", "data/2026/", "misc/JUDGE/", "notes.txt", "photos/", "photos/FI/"):
        assert entry in found
    assert "__MACOSX" not in found
    assert "release folder or the ZIP" in message
    assert "date" not in message.split("looked at", 1)[0]  # never a later stage's complaint


def test_two_releases_side_by_side_are_ambiguous(tmp_path: Path) -> None:
    shutil.copytree(HANDMADE, tmp_path / "both" / "JPPM2026001")
    shutil.copytree(HANDMADE, tmp_path / "both" / "JPPM2026002")
    with pytest.raises(BuildError) as raised:
        take_inventory(tmp_path / "both")
    assert raised.value.code == IssueCode.RELEASE_FOLDER_AMBIGUOUS
    assert "JPPM2026001/, JPPM2026002/" in raised.value.issues[0].message


def test_leftovers_inside_the_release_are_not_in_the_manifest(tmp_path: Path) -> None:
    copy = shutil.copytree(HANDMADE, tmp_path / "JPPM2026001")
    _tree(copy, ["FI/FI/.DS_Store", "FI/FI/._fi_A.csv", "Thumbs.db", "JUDGE/~$judge.xlsx"])
    _tree(copy, ["__MACOSX/FI/._FI", "IPC/desktop.ini"])
    inventory = take_inventory(copy)
    assert inventory.manifest_sha256 == take_inventory(HANDMADE).manifest_sha256
    assert inventory.release_path == ""
    assert inventory.ignored == (
        "FI/FI/.DS_Store",
        "FI/FI/._fi_A.csv",
        "IPC/desktop.ini",
        "JUDGE/~$judge.xlsx",
        "Thumbs.db",
        "__MACOSX/",
    )
    assert {w.source_path for w in inventory.warnings if w.code == "SOURCE_IGNORED"} == set(
        inventory.ignored
    )


def test_release_id_from_the_folder_else_release_else_an_error(tmp_path: Path) -> None:
    nested = tmp_path / "outer" / "my-data"
    shutil.copytree(HANDMADE, nested)
    with pytest.raises(BuildError) as raised:
        take_inventory(tmp_path / "outer")
    assert raised.value.code == IssueCode.RELEASE_ID_INVALID
    assert "'my-data'" in raised.value.issues[0].message
    assert "--release" in raised.value.issues[0].message
    inventory = take_inventory(tmp_path / "outer", release="JPPM2026007")
    assert (inventory.release_id, inventory.release_path) == ("JPPM2026007", "my-data")

    contents = _zip_of(HANDMADE, tmp_path / "contents.zip")
    with pytest.raises(BuildError) as raised:
        take_inventory(contents)
    assert raised.value.code == IssueCode.RELEASE_ID_INVALID
    assert "without their JPPM" in raised.value.issues[0].message
    assert take_inventory(contents, release="JPPM2026001").manifest_sha256 == (
        take_inventory(HANDMADE).manifest_sha256
    )


def test_a_release_four_folders_down_is_not_searched_for(tmp_path: Path) -> None:
    shutil.copytree(HANDMADE, tmp_path / "a" / "b" / "c" / "d" / "JPPM2026001")
    with pytest.raises(BuildError) as raised:
        take_inventory(tmp_path / "a")
    assert raised.value.code == IssueCode.RELEASE_FOLDER_NOT_FOUND
    assert "b/, b/c/" in raised.value.issues[0].message
