"""``pmgs web`` as a process: found by ``pmgs`` through its entry point, loopback only."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import httpx2
from browser_kit import viewer_server


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pmgs_web", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_pmgs_lists_and_runs_the_web_command() -> None:
    listing = subprocess.run(
        [sys.executable, "-m", "pmgs_cli", "--help"], capture_output=True, text=True, check=False
    )
    assert listing.returncode == 0
    assert "web" in listing.stdout.split()
    helped = subprocess.run(
        [sys.executable, "-m", "pmgs_cli", "web", "--help"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert helped.returncode == 0
    assert "--no-open" in helped.stdout


def test_serves_loopback_and_refuses_other_host_names(sample_db: Path) -> None:
    with viewer_server(sample_db) as server:
        assert server.url.startswith("http://127.0.0.1:")
        assert httpx2.get(server.url + "/", timeout=30).status_code == 200
        rebound = httpx2.get(server.url + "/", headers={"Host": "evil.example"}, timeout=30)
        assert rebound.status_code == 421
        assert rebound.json()["error"]["code"] == "HOST_NOT_ALLOWED"


def test_refuses_a_non_loopback_address_and_a_missing_database(tmp_path: Path) -> None:
    exposed = _run("--host", "0.0.0.0", "--db", str(tmp_path / "x.sqlite"), "--no-open")
    assert exposed.returncode == 2
    assert "loopback" in exposed.stderr
    missing = _run("--db", str(tmp_path / "missing.sqlite"), "--no-open", "--port", "0")
    assert missing.returncode == 1
    assert "DATABASE_NOT_FOUND" in missing.stderr
