"""pmgs-mcp with clients of another implementation: the TypeScript SDK and the MCP Inspector.

The clients most agents embed are not the Python SDK our other tests use, and they check
results more strictly (the TypeScript SDK validates any ``structuredContent`` against the
tool's output schema, even on error results). The Node suite in ``ts-client/`` (pinned in
its ``package.json`` and ``package-lock.json``, installed with ``npm ci`` by the
``integration`` nox session) drives a real ``python -m pmgs_mcp`` over stdio, streamable
HTTP and SSE; this test builds the database it reads, runs it, and fails, never skips, when
Node or the installed clients are missing: a conformance suite that silently does not run
would keep the README's "Tested clients" list true only by accident.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pmgs_testkit.kit import ReferenceDatabase

ROOT = Path(__file__).resolve().parent.parent
CLIENT_DIR = Path(__file__).resolve().parent / "ts-client"
TEST_FILES = ("conformance.test.mjs", "inspector.test.mjs", "workers.test.mjs")
PINNED = ("@modelcontextprotocol/sdk", "@modelcontextprotocol/inspector")
MIN_TESTS = 300
"""The Node suite's size today is above this: fewer means cases or sessions went missing."""


def _node() -> str:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not on PATH: the TypeScript client conformance suite cannot run")
    if not (CLIENT_DIR / "node_modules" / "@modelcontextprotocol" / "sdk").is_dir():
        pytest.fail(f"the pinned clients are not installed: run `npm ci` in {CLIENT_DIR}")
    return node


def _pins() -> dict[str, str]:
    package = json.loads((CLIENT_DIR / "package.json").read_text("utf-8"))
    dependencies: dict[str, str] = package["dependencies"]
    return {name: dependencies[name] for name in PINNED}


@pytest.fixture(scope="module")
def database(reference: ReferenceDatabase) -> tuple[Path, dict[str, str]]:
    """The shared kit's reference (``pmgs_testkit.pytest_plugin``)."""
    return reference.db, reference.examples


def test_typescript_sdk_and_inspector_accept_every_result(
    database: tuple[Path, dict[str, str]],
) -> None:
    node = _node()
    db, examples = database
    env = {
        **os.environ,
        "PMGS_CONFORMANCE_PYTHON": sys.executable,
        "PMGS_CONFORMANCE_DB": str(db),
        "PMGS_CONFORMANCE_EXAMPLES": json.dumps(examples, ensure_ascii=False),
    }
    env.pop("PMGS_MCP_TOKEN", None)
    result = subprocess.run(
        [node, "--test", "--test-reporter=tap", *TEST_FILES],
        cwd=CLIENT_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    summary = dict(re.findall(r"^# (tests|pass|fail|skipped|todo|cancelled) (\d+)$", output, re.M))
    assert summary.get("fail") == "0", output
    assert summary.get("skipped") == summary.get("todo") == summary.get("cancelled") == "0"
    assert int(summary["pass"]) == int(summary["tests"]) >= MIN_TESTS, summary


def test_installed_clients_are_the_pinned_ones() -> None:
    _node()
    lock = json.loads((CLIENT_DIR / "package-lock.json").read_text("utf-8"))
    for name, version in _pins().items():
        assert re.fullmatch(r"\d+\.\d+\.\d+", version), f"{name} must be pinned exactly"
        assert lock["packages"][f"node_modules/{name}"]["version"] == version
        installed = CLIENT_DIR / "node_modules" / name / "package.json"
        assert json.loads(installed.read_text("utf-8"))["version"] == version


@pytest.mark.parametrize("readme", ["README.md", "README.en.md"])
def test_readme_names_the_tested_clients(readme: str) -> None:
    text = (ROOT / readme).read_text("utf-8")
    for name, version in _pins().items():
        assert f"`{name}` {version}" in text, f"{readme} must list {name} {version}"


def test_docs_name_the_protocol_versions_the_suite_offers() -> None:
    node = _node()
    script = (
        "import('@modelcontextprotocol/sdk/types.js').then((t) => console.log("
        "JSON.stringify([t.LATEST_PROTOCOL_VERSION, t.SUPPORTED_PROTOCOL_VERSIONS[1]])))"
    )
    result = subprocess.run(
        [node, "-e", script], cwd=CLIENT_DIR, capture_output=True, text=True, check=True
    )
    current, previous = json.loads(result.stdout)
    mcp_doc = (ROOT / "docs" / "mcp.md").read_text("utf-8")
    assert f"`{current}`" in mcp_doc
    assert f"`{previous}`" in mcp_doc
