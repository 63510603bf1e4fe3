"""The viewer inside ``pmgs mcp --transport http``: under ``/web``, behind the same guards.

Skipped when pmgs-mcp is not installed (the viewer does not depend on it).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
from web_oracle import hrefs

pytest.importorskip("pmgs_mcp")

TOKEN = "web-mount-test-token"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def mcp_url(sample_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = _free_port()
    log = tmp_path_factory.mktemp("mcp") / "stderr.txt"
    env = {**os.environ, "PMGS_MCP_TOKEN": TOKEN}
    with log.open("wb") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", "pmgs_mcp", "--transport", "http", "--port", str(port),
             "--db", str(sample_db)],
            stdin=subprocess.DEVNULL, stdout=stderr, stderr=stderr, env=env,
        )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx2.get(url + "/ready", timeout=1).status_code == 200:
                    break
            except httpx2.TransportError:
                time.sleep(0.1)
        else:
            raise RuntimeError(log.read_text("utf-8", errors="replace"))
        yield url
    finally:
        process.terminate()
        process.wait(timeout=15)


def test_viewer_under_web_with_the_token(mcp_url: str) -> None:
    auth = {"Authorization": f"Bearer {TOKEN}"}
    page = httpx2.get(mcp_url + "/web/fi/A40Y1/02@A", headers=auth, timeout=30)
    assert page.status_code == 200
    links = hrefs(page.text)
    assert "/web/static/style.css" in links
    assert "/web/fi/A40Y1/02" in links
    assert httpx2.get(mcp_url + "/web/static/style.css", headers=auth).status_code == 200
    record = httpx2.get(mcp_url + "/web/fi/A40Y1/02@A.json", headers=auth).json()
    assert record["code"] == "A40Y1/02@A"


def test_same_guards_as_the_mcp_endpoints(mcp_url: str) -> None:
    assert httpx2.get(mcp_url + "/web/", timeout=30).status_code == 401
    wrong = {"Authorization": "Bearer nope"}
    assert httpx2.get(mcp_url + "/web/", headers=wrong).status_code == 401
    rebound = httpx2.get(
        mcp_url + "/web/",
        headers={"Authorization": f"Bearer {TOKEN}", "Host": "evil.example"},
    )
    assert rebound.status_code in {403, 421}
    origin = httpx2.get(
        mcp_url + "/web/",
        headers={"Authorization": f"Bearer {TOKEN}", "Origin": "http://evil.example"},
    )
    assert origin.status_code == 403
