"""Every refusal of the source names the path, says why and gives a next step (issue 43);
where the step is a command, the test runs it and the build then succeeds."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from pmgs_build import ALL_ISSUE_CODES, BuildError, IssueCode, build_database, take_inventory
from pmgs_build.source.next_steps import NEXT_STEPS
from pmgs_testkit import stored_zip

HANDMADE = Path(__file__).parent / "data" / "handmade" / "JPPM2026001"
TOP = "JPPM2026001"


def _refused(source: Path) -> BuildError:
    with pytest.raises(BuildError) as raised:
        take_inventory(source)
    return raised.value


def test_every_step_is_for_a_code_that_exists() -> None:
    assert set(NEXT_STEPS) <= ALL_ISSUE_CODES


@pytest.mark.skipif(shutil.which("cp") is None or os.name != "posix", reason="POSIX cp")
def test_a_link_is_refused_and_the_copy_the_step_names_builds(tmp_path: Path) -> None:
    source = tmp_path / "src" / TOP
    shutil.copytree(HANDMADE, source)
    judge = source / "JUDGE" / "judge_20260331.csv"
    kept = tmp_path / "judge_20260331.csv"
    judge.rename(kept)
    judge.symlink_to(kept)
    error = _refused(source)
    assert error.code == IssueCode.SOURCE_SYMLINK
    (issue,) = error.issues
    assert issue.source_path == "JUDGE/judge_20260331.csv"
    assert issue.message == (
        "symbolic links are refused (the package must be plain files). Next step: replace the "
        "link by a copy of what it points to, or give a copy of the folder made without links "
        "(cp -rL FOLDER COPY; Explorer's copy and paste)"
    )
    command = "cp -rL FOLDER COPY".replace("FOLDER", str(source)).replace(
        "COPY", str(tmp_path / TOP)
    )
    subprocess.run(shlex.split(command), check=True)
    plain = build_database(HANDMADE, tmp_path / "plain.sqlite")
    copied = build_database(tmp_path / TOP, tmp_path / "copy.sqlite")
    assert copied.logical_digest == plain.logical_digest


@pytest.mark.parametrize(
    ("data", "code", "step"),
    [
        (b"PK\x03\x04 cut off", IssueCode.ZIP_INVALID, "download the package again"),
        (
            stored_zip([(b"../evil.csv", b"x")]),
            IssueCode.ZIP_MEMBER_UNSAFE,
            "not as the JPO ships it",
        ),
        (
            stored_zip(
                [(f"{TOP}/JUDGE/a.csv".encode(), b"1"), (f"{TOP}/judge/A.csv".encode(), b"")]
            ),
            IssueCode.ZIP_LAYOUT_INVALID,
            "remove or rename the one that is not the package's",
        ),
    ],
)
def test_zip_refusals_say_what_to_do(tmp_path: Path, data: bytes, code: str, step: str) -> None:
    archive = tmp_path / "download.zip"
    archive.write_bytes(data)
    error = _refused(archive)
    assert error.code == code
    for issue in error.issues:
        assert issue.message.count("Next step: ") == 1
        assert step in issue.message.split("Next step: ")[1]


def test_a_step_is_not_added_twice(tmp_path: Path) -> None:
    source = tmp_path / "pmgs.7z"
    source.write_bytes(b"7z\xbc\xaf\x27\x1c" + b"\x00" * 64)
    error = _refused(source)
    assert error.code == IssueCode.SOURCE_ARCHIVE_UNSUPPORTED
    assert error.issues[0].message.count("Next step: ") == 1
    missing = _refused(tmp_path / "nothing-here")
    assert missing.issues[0].message.endswith(
        "Next step: give the JPPM… release folder or the ZIP as downloaded"
    )
