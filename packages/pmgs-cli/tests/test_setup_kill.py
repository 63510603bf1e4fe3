"""SIGKILL `pmgs setup` at several stages: the previous release must stay current and answer."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from pmgs_testkit.kit import console_script, script_environment

Runner = Callable[..., subprocess.CompletedProcess[str]]

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")


@pytest.mark.parametrize("stage", ["build", "validated", "promoted", "before_switch"])
def test_sigkill_keeps_the_previous_release(
    pmgs: Runner, data_dir: Path, sample_dir: Path, tmp_path: Path, stage: str
) -> None:
    root = tmp_path / "d"
    shutil.copytree(data_dir, root)
    pointer_before = (root / "state" / "current.json").read_bytes()
    databases_before = {p: p.read_bytes() for p in (root / "data" / "releases").rglob("*.sqlite")}
    marker = tmp_path / "paused"
    env = script_environment({"PMGS_TEST_PAUSE_AT": stage, "PMGS_TEST_PAUSE_MARKER": str(marker)})
    child = subprocess.Popen(
        [
            console_script(),
            "setup",
            str(sample_dir),
            "--release",
            "JPPM2026003",
            "--data-dir",
            str(root),
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while not marker.exists():
            assert child.poll() is None, "setup ended before reaching the stage"
            assert time.monotonic() < deadline, "setup never reached the stage"
            time.sleep(0.02)
        assert marker.read_text(encoding="utf-8").split()[1] == stage
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()

    assert (root / "state" / "current.json").read_bytes() == pointer_before
    for path, content in databases_before.items():
        assert path.read_bytes() == content
    result = pmgs("lookup", "fi", "A01B1/00", "--data-dir", root, "--json")
    assert result.returncode == 1  # answered (not_found), from the previous release
    assert json.loads(result.stdout)["release"]["release_id"] == "JPPM2026002"

    # The OS released the lock with the process; the next setup cleans up and succeeds.
    again = pmgs("setup", sample_dir, "--release", "JPPM2026003", "--data-dir", root, "--json")
    assert again.returncode == 0, again.stderr
    status = json.loads(again.stdout)["status"]
    assert status == ("reused" if stage in {"promoted", "before_switch"} else "activated")
    assert not any((root / "staging").glob("*")) if (root / "staging").exists() else True
    after = pmgs("lookup", "fi", "A01B1/00", "--data-dir", root, "--json")
    assert json.loads(after.stdout)["release"]["release_id"] == "JPPM2026003"
