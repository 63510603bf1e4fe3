"""``pmgs setup`` serves the staged database over real MCP stdio before it activates it.

The check lives in pmgs-cli (it speaks MCP to the server pmgs-mcp publishes) and reaches
pmgs-build's setup transaction as a callback, so it needs the whole workspace installed:
this is the integration suite's job.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pmgs_build


def _setup(data_dir: Path, *extra: str) -> dict[str, object]:
    pmgs = Path(sys.executable).with_name("pmgs")
    sample = str(pmgs_build.sample_package_path())
    result = subprocess.run(
        [str(pmgs), "setup", sample, "--data-dir", str(data_dir), "--json", *extra],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    data: dict[str, object] = json.loads(result.stdout)
    return data


def test_setup_runs_an_mcp_session_on_the_staged_database(tmp_path: Path) -> None:
    data = _setup(tmp_path / "data")
    assert data["status"] == "activated"
    doctor = data["doctor"]
    assert isinstance(doctor, dict)
    assert doctor["status"] == "ok"
    assert {"lookup_classification", "search_pmgs", "get_pmgs_document"} <= set(doctor["tools"])
    assert [call["status"] for call in doctor["calls"]] == ["ok"] * len(doctor["calls"])
    assert len(doctor["calls"]) == 3
    stages = data["stage_seconds"]
    assert isinstance(stages, dict)
    assert list(stages).index("doctor") < list(stages).index("promote")


def test_setup_without_the_mcp_check(tmp_path: Path) -> None:
    data = _setup(tmp_path / "data", "--no-mcp-check")
    assert data["status"] == "activated"
    assert data["doctor"] is None
