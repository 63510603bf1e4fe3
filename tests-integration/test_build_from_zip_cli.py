"""``pmgs build`` takes the downloaded ZIP as it is, and refuses a hostile one by its code.

pmgs-build tests the ZIP reading in depth; this checks that the command line passes the
archive through untouched and reports the builder's issue (code and member) in its JSON.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pmgs_build
from pmgs_testkit import make_zip


def _pmgs(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    return subprocess.run(
        [sys.executable, "-m", "pmgs_cli", *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        check=False,
        timeout=300,
    )


def test_pmgs_build_reads_a_zip_and_refuses_a_hostile_one(tmp_path: Path) -> None:
    sample = pmgs_build.sample_package_path()
    archive = make_zip(sample, tmp_path / "download.zip")
    result = _pmgs("build", str(archive), str(tmp_path / "out.sqlite"), "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["release"] == sample.name
    assert report["source_manifest_sha256"] == (pmgs_build.take_inventory(sample).manifest_sha256)

    evil = tmp_path / "evil.zip"
    with zipfile.ZipFile(evil, "w") as zf:
        zf.writestr(f"{sample.name}/COPYRGHT.txt", "x")
        zf.writestr(f"{sample.name}/../evil", b"x")
    result = _pmgs("build", str(evil), str(tmp_path / "evil.sqlite"), "--json")
    assert result.returncode == 5
    error = json.loads(result.stdout)["error"]
    assert error["code"] == "BUILD_FAILED"
    issues = error["details"]["issues"]
    assert issues[0]["code"] == "ZIP_MEMBER_UNSAFE"
    assert issues[0]["source_path"] == f"{sample.name}/../evil"
    assert not (tmp_path / "evil.sqlite").exists()
    assert not (tmp_path / "evil").exists()
