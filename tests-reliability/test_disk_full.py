"""``pmgs build`` and ``pmgs setup`` that run out of space stop with a code, leaving nothing.

Two ways of running out, both on the real console script in a subprocess:

- an ``RLIMIT_FSIZE`` set in the child (``preexec_fn``): any write past the limit fails with
  ``EFBIG`` (Python ignores ``SIGXFSZ``), as a full disk fails with ``ENOSPC``. The limit is a
  fraction of the size the same build reaches without it (measured first), so that the
  failure lands in the middle of the build rather than at its first page;
- where the machine allows it (Linux, a private mount namespace via ``unshare``), a small
  tmpfs mounted in that namespace only and holding the output.

The oracle: the exit code and the ``OUTPUT_WRITE_FAILED`` code in the JSON error, nothing at
the output path or beside it, and for setup an untouched pointer (absent on a first install,
the previous release's database byte for byte on an upgrade) and no staging left.
"""

from __future__ import annotations

import json
import resource
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pmgs_testkit import generate_package
from pmgs_testkit.kit import console_script, file_sha256, run_script

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_FSIZE")

FIRST = "JPPM2026002"
NEXT = "JPPM2026003"
TIMEOUT = 300.0
EXIT_SETUP = 5  # docs/cli.md: setup/build failed


def _limit(size: int | None) -> Callable[[], None] | None:
    if size is None:
        return None

    def apply() -> None:  # runs in the child between fork and exec
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))

    return apply


def pmgs(*args: str | Path, fsize: int | None = None) -> subprocess.CompletedProcess[str]:
    """The console script, to completion, with an optional file-size limit."""
    # The point: a limit in the child only.
    return run_script(*args, timeout=TIMEOUT, preexec_fn=_limit(fsize))


def _error(result: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert result.returncode == EXIT_SETUP, (result.returncode, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr, result.stderr
    error = json.loads(result.stdout)["error"]
    assert isinstance(error, dict)
    return error


def _issue_codes(error: dict[str, Any]) -> set[str]:
    return {
        issue if isinstance(issue, str) else issue["code"]
        for issue in error.get("details", {}).get("issues", [])
    }


def _files(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())


@pytest.fixture(scope="module")
def packages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("disk-full-packages")
    return {
        release: generate_package(
            root / release, scale=0.001, seed=7, release=release, with_documents=True
        ).path
        for release in (FIRST, NEXT)
    }


@pytest.fixture(scope="module")
def full_size(packages: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> int:
    """Bytes of the database a build of the first package writes with no limit."""
    out = tmp_path_factory.mktemp("disk-full-reference") / "ref.sqlite"
    result = pmgs("build", packages[FIRST], out, "--json")
    assert result.returncode == 0, result.stderr
    return out.stat().st_size


@pytest.mark.parametrize("fraction", [8, 2], ids=["eighth", "half"])
def test_build_past_a_file_size_limit(
    packages: dict[str, Path], full_size: int, tmp_path: Path, fraction: int
) -> None:
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    result = pmgs(
        "build", packages[FIRST], out_dir / "ref.sqlite", "--json", fsize=full_size // fraction
    )
    error = _error(result)
    assert error["code"] == "BUILD_FAILED"
    assert _issue_codes(error) == {"OUTPUT_WRITE_FAILED"}
    assert list(out_dir.iterdir()) == []
    # The same build without the limit then succeeds in the same directory.
    assert pmgs("build", packages[FIRST], out_dir / "ref.sqlite", "--json").returncode == 0
    assert sorted(p.name for p in out_dir.iterdir()) == ["ref.sqlite"]


def test_setup_first_install_past_a_file_size_limit(
    packages: dict[str, Path], full_size: int, tmp_path: Path
) -> None:
    root = tmp_path / "data"
    result = pmgs("setup", packages[FIRST], "--data-dir", root, "--json", fsize=full_size // 3)
    error = _error(result)
    assert error["code"] == "OUTPUT_WRITE_FAILED", error
    assert "OUTPUT_WRITE_FAILED" in _issue_codes(error)
    assert not (root / "state" / "current.json").exists()
    assert not (root / "staging").exists()
    left = [f for f in _files(root) if not f.startswith("state/runs/")]
    assert left == ["state/setup.lock"], left


def test_setup_upgrade_past_a_file_size_limit(
    packages: dict[str, Path], full_size: int, tmp_path: Path
) -> None:
    root = tmp_path / "data"
    assert pmgs("setup", packages[FIRST], "--data-dir", root, "--json").returncode == 0
    pointer_path = root / "state" / "current.json"
    pointer_bytes = pointer_path.read_bytes()
    pointer = json.loads(pointer_bytes)
    database = root / pointer["database"]
    database_sha = file_sha256(database)
    before = _files(root)

    result = pmgs("setup", packages[NEXT], "--data-dir", root, "--json", fsize=full_size // 3)
    error = _error(result)
    assert error["code"] == "OUTPUT_WRITE_FAILED", error
    assert pointer_path.read_bytes() == pointer_bytes
    assert file_sha256(database) == database_sha == pointer["database_sha256"]
    assert not (root / "staging").exists()
    after = [f for f in _files(root) if f not in before]
    assert all(f.startswith("state/runs/") for f in after), after
    lookup = pmgs("lookup", "fi", "B60J5/00@A", "--data-dir", root, "--json")
    assert lookup.returncode == 0, lookup.stderr
    assert json.loads(lookup.stdout)["release"]["release_id"] == FIRST


def _tmpfs_available() -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "true"],
        capture_output=True,
        check=False,
    )
    return probe.returncode == 0


@pytest.mark.skipif(not _tmpfs_available(), reason="no private mount namespace here")
def test_build_on_a_full_tmpfs(packages: dict[str, Path], full_size: int, tmp_path: Path) -> None:
    """A real ENOSPC: the output directory is a tmpfs of a third of the database's size,
    mounted in a private mount namespace (nothing outside the namespace sees it)."""
    mount = tmp_path / "small"
    mount.mkdir()
    report = tmp_path / "report"
    report.mkdir()
    script = (
        'mount -t tmpfs -o size="$1" pmgs-test "$2" || exit 99\n'
        '"$3" build "$4" "$2/ref.sqlite" --json > "$5/stdout" 2> "$5/stderr"\n'
        'echo $? > "$5/rc"\n'
        'ls -A "$2" > "$5/left"\n'
    )
    result = subprocess.run(
        [
            "unshare",
            "--mount",
            "--propagation",
            "private",
            "sh",
            "-c",
            script,
            "sh",
            str(full_size // 3),
            str(mount),
            console_script(),
            str(packages[FIRST]),
            str(report),
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=TIMEOUT,
    )
    if result.returncode == 99:
        pytest.skip(f"tmpfs cannot be mounted here: {result.stderr.strip()}")
    rc = int((report / "rc").read_text())
    completed = subprocess.CompletedProcess(
        [], rc, (report / "stdout").read_text(), (report / "stderr").read_text()
    )
    error = _error(completed)
    assert error["code"] == "BUILD_FAILED"
    assert _issue_codes(error) == {"OUTPUT_WRITE_FAILED"}
    assert (report / "left").read_text() == ""
