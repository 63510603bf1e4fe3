"""`pmgs doctor`: checks, a real MCP session when pmgs-mcp is installed, and the timeout."""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Callable
from importlib.metadata import entry_points
from pathlib import Path

import pytest

Runner = Callable[..., subprocess.CompletedProcess[str]]

HAS_MCP = any(ep.name == "mcp" for ep in entry_points(group="pmgs.commands"))


def _assert_private(report_text: str, root: Path) -> None:
    assert str(root) not in report_text
    assert "/tmp" not in report_text


def test_doctor_without_mcp(pmgs: Runner, data_dir: Path) -> None:
    result = pmgs("doctor", "--data-dir", data_dir, "--no-mcp", "--json")
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert report["status"] == "ok"
    names = {c["name"]: c["status"] for c in report["checks"]}
    assert names["pointer"] == names["schema"] == names["database_hash"] == "ok"
    assert names["samples"] == "ok"
    assert set(report["samples"]["query_sha256"]) >= {"lookup", "search3", "search2"}
    _assert_private(result.stdout, data_dir)
    human = pmgs("doctor", "--data-dir", data_dir, "--no-mcp")
    assert human.returncode == 0
    assert "database_hash" in human.stdout


@pytest.mark.skipif(not HAS_MCP, reason="pmgs-mcp is not installed")
def test_doctor_runs_a_real_mcp_session(pmgs: Runner, data_dir: Path) -> None:
    result = pmgs("doctor", "--data-dir", data_dir, "--json")
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert report["mcp"]["status"] == "ok"
    assert {"lookup_classification", "search_pmgs", "get_pmgs_document"} <= set(
        report["mcp"]["tools"]
    )
    assert [c["status"] for c in report["mcp"]["calls"]] == ["ok", "ok", "ok"]
    _assert_private(result.stdout, data_dir)


def test_doctor_detects_a_changed_database(pmgs: Runner, data_dir: Path, tmp_path: Path) -> None:
    import shutil

    root = tmp_path / "d"
    shutil.copytree(data_dir, root)
    pointer = json.loads((root / "state" / "current.json").read_text(encoding="utf-8"))
    db = root / pointer["database"]
    db.chmod(0o644)
    with db.open("ab") as handle:
        handle.write(b"\0" * 16)
    result = pmgs("doctor", "--data-dir", root, "--no-mcp", "--json")
    assert result.returncode == 1
    assert json.loads(result.stdout)["failure"]["code"] == "DATABASE_HASH_MISMATCH"


@pytest.fixture
def hanging_mcp(tmp_path: Path) -> dict[str, str]:
    """A fake `mcp` provider that never answers (and records its pid)."""
    pidfile = tmp_path / "pid"
    (tmp_path / "hanging_mcp.py").write_text(
        "import os, time\n"
        "def main(argv=None):\n"
        f"    open({str(pidfile)!r}, 'w').write(str(os.getpid()))\n"
        "    time.sleep(600)\n"
        "    return 0\n",
        encoding="utf-8",
    )
    info = tmp_path / "hanging_mcp-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: hanging-mcp\nVersion: 1.0\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(
        "[pmgs.commands]\nmcp = hanging_mcp:main\n", encoding="utf-8"
    )
    return {"PYTHONPATH": str(tmp_path), "PIDFILE": str(pidfile)}


def test_doctor_timeout_kills_and_reaps_the_server(
    pmgs_process: Runner, data_dir: Path, hanging_mcp: dict[str, str]
) -> None:
    # A child process: the fake provider is found through PYTHONPATH, read at start-up.
    started = time.monotonic()
    result = pmgs_process(
        "doctor", "--data-dir", data_dir, "--timeout-seconds", "3", "--json", env=hanging_mcp
    )
    elapsed = time.monotonic() - started
    assert result.returncode == 1, result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert report["failure"] == {"code": "MCP_TIMEOUT", "stage": "initialize"}
    assert elapsed < 20
    pid = int(Path(hanging_mcp["PIDFILE"]).read_text(encoding="utf-8"))
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf"])
def test_timeout_must_be_finite_and_positive(pmgs: Runner, data_dir: Path, value: str) -> None:
    result = pmgs("doctor", "--data-dir", data_dir, "--timeout-seconds", value)
    assert result.returncode == 2
