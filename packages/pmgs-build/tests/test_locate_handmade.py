"""The release finder on path lists written here: where the release is, what is ignored, and
the exact errors (ADR 0019; issue 34).

``locate_release`` is given the files and folders a directory or ZIP listing would give; no
tree is made on disk, so the file runs in well under a second and is what the mutation
session's ``locate`` target runs. Every prefix, folder name, ignored entry and message below
is worked out by hand from the rules in the module docstring; ``test_release_location.py``
keeps the same rules on real directories and ZIPs.
"""

from __future__ import annotations

import pytest

from pmgs_build import BuildError, IssueCode
from pmgs_build.source.find_release import Located, in_leftover, is_leftover, locate_release

EVIDENCE = (
    "FI/FI, FI/FI_TEXT, FI/FI_TEXT_E, FTERM/FTERM, FTERM/FTERM_E, FTERM/THEME, FTERM/THEME_E, "
    "IPC/IPC4_TEXT, IPC/IPC5_TEXT, IPC/IPC6_TEXT, IPC/IPC7E_TEXT, IPC/IPC7_TEXT, "
    "IPC/IPC8B_TEXT, IPC/IPC8U_TEXT"
)


def _not_found_message(source: str, shown: str) -> str:
    return (
        f"no PMGS release in {source}: looked at its top and up to 3 folders down for a folder "
        f"holding a code/text data group folder ({EVIDENCE}; files such as "
        f"FI/FI/fi_A_20260331.csv); its top two levels hold {shown}. Give the JPPM… release "
        "folder or the ZIP as downloaded"
    )


def _refused(files: list[str], directories: list[str] = [], source: str = "dl") -> BuildError:  # noqa: B006
    with pytest.raises(BuildError) as caught:
        locate_release(files, directories, source_name=source, root_folder=source)
    error = caught.value
    assert len(error.issues) == 1
    assert error.issues[0].severity == "error"
    return error


def test_a_release_two_folders_down_and_what_is_ignored_around_it() -> None:
    files = [
        "X/JPPM/FI/FI/fi_A.csv",
        "X/JPPM/.DS_Store",
        "X/JPPM/~$lock.docx",
        "X/JPPM/FI/__MACOSX/x",
        "X/JPPM/thumbs.db/data.csv",  # a folder named like a leftover file is not one
        "X/readme.txt",
        "notes/a/b.txt",
        "notes/a/b/c/d.txt",
        "top.txt",
        "__MACOSX/X/._fi.csv",
    ]
    directories = ["X/", "X/JPPM/", "X/JPPM/FI/", "empty/", "deep/er/still/"]
    located = locate_release(files, directories, source_name="dl", root_folder="dl")
    assert located == Located(
        "X/JPPM/",
        "JPPM",
        (
            "X/JPPM/.DS_Store",
            "X/JPPM/FI/__MACOSX/",
            "X/JPPM/~$lock.docx",
            "X/readme.txt",
            "__MACOSX/",
            "deep/er/",
            "empty/",
            "notes/a/",
            "top.txt",
        ),
    )


@pytest.mark.parametrize(
    ("files", "directories", "root", "located"),
    [
        # the contents at the top: the source's own folder name (None for a ZIP)
        (["FI/FI/fi_A.csv", "COPYRGHT/c.txt"], [], None, Located("", None, ())),
        (["fi/fi/fi_A.csv"], [], "JPPM2026001", Located("", "JPPM2026001", ())),
        # folders seen only in the directory listing count, written with their slash
        (["R/a.txt"], ["R/", "R/FI/", "R/FI/FI/"], "dl", Located("R/", "R", ())),
        ([], ["RX/", "RX/FI/", "RX/FI/FI/"], "dl", Located("RX/", "RX", ())),
        # folders seen only through file paths count
        (["R/FTERM/THEME/t.csv"], [], "dl", Located("R/", "R", ())),
        # three folders down is the deepest
        (["Y/X/X/FI/FI/a.csv"], [], "dl", Located("Y/X/X/", "X", ())),
        # the shallowest wins over a deeper one
        (
            ["A/FI/FI/a.csv", "B/C/FI/FI/b.csv"],
            [],
            "dl",
            Located("A/", "A", ("B/C/",)),
        ),
    ],
)
def test_where_the_release_is(
    files: list[str], directories: list[str], root: str | None, located: Located
) -> None:
    assert locate_release(files, directories, source_name="dl", root_folder=root) == located


def test_two_releases_at_the_same_depth() -> None:
    error = _refused(["A/FI/FI/a.csv", "B/FTERM/THEME/b.csv"], source="two.zip")
    assert error.code == IssueCode.RELEASE_FOLDER_AMBIGUOUS
    assert error.issues[0].message == (
        "two.zip holds 2 releases at the same depth: A/, B/; give the one to build"
    )


@pytest.mark.parametrize(
    ("files", "shown"),
    [
        ([], "nothing"),
        (
            ["Z/Y/X/J/FI/FI/a.csv", "top.txt", "a/b.txt", "a/b/c.txt", "__MACOSX/FI/FI/x"],
            "Z/, Z/Y/, a/, a/b.txt, a/b/, top.txt",
        ),
        ([f"f{n:02d}" for n in range(12)], ", ".join(f"f{n:02d}" for n in range(12))),
        (
            [f"f{n:02d}" for n in range(14)],
            ", ".join(f"f{n:02d}" for n in range(12)) + " and 2 more",
        ),
    ],
)
def test_no_release_says_what_was_looked_for_and_what_is_there(
    files: list[str], shown: str
) -> None:
    error = _refused(files, source="download")
    assert error.code == IssueCode.RELEASE_FOLDER_NOT_FOUND
    assert error.issues[0].message == _not_found_message("download", shown)


@pytest.mark.parametrize(
    ("path", "leftover"),
    [
        (".DS_Store", True),
        ("a/b/Thumbs.db", True),
        ("a/._fi.csv", True),
        ("~$report.docx", True),
        ("a/__MACOSX/", True),
        ("a/__macosx/x.csv", True),
        ("$RECYCLE.BIN/x", True),
        ("__MACOSX", False),  # a file of that name
        (".ds_store/", False),  # a folder of that name
        ("Thumbs.db/x.csv", False),
        ("a/b/fi.csv", False),
        ("a_/b", False),
    ],
)
def test_in_leftover(path: str, leftover: bool) -> None:
    assert in_leftover(path) is leftover


def test_is_leftover_by_kind() -> None:
    assert is_leftover("desktop.ini", folder=False) is True
    assert is_leftover("desktop.ini", folder=True) is False
    assert is_leftover("System Volume Information", folder=True) is True
    assert is_leftover("System Volume Information", folder=False) is False
