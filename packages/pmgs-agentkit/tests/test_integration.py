"""End to end: the generated Codex command starts a server a real MCP client can talk to.

Also proves the ``pmgs.commands`` entry points are wired into the installed ``pmgs`` script.
"""

from __future__ import annotations

import json
import queue
import subprocess
import threading
import tomllib
from pathlib import Path
from typing import IO, Any

import pytest

from pmgs_agentkit import agent_kit_main
from pmgs_testkit.kit import run_script

TIMEOUT_SECONDS = 60


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A managed data directory holding the sample release, as ``pmgs setup`` makes it."""
    import pmgs_build

    root = tmp_path_factory.mktemp("pmgs-data")
    pmgs_build.setup_release(pmgs_build.sample_package_path(), root)
    return root


def _reader(stream: IO[str], lines: queue.Queue[str]) -> None:
    for line in stream:
        lines.put(line)


def _request(
    child: subprocess.Popen[str], lines: queue.Queue[str], message: dict[str, Any]
) -> dict[str, Any] | None:
    assert child.stdin is not None
    child.stdin.write(json.dumps(message) + "\n")
    child.stdin.flush()
    if "id" not in message:
        return None
    while True:
        reply: dict[str, Any] = json.loads(lines.get(timeout=TIMEOUT_SECONDS))
        if reply.get("id") == message["id"]:
            return reply


@pytest.mark.parametrize(
    ("mcp_tools", "check_tool_listed"), [([], False), (["--mcp-tools", "all"], True)]
)
def test_generated_codex_command_serves_the_three_tools(
    data_dir: Path, tmp_path: Path, python_exe: str, mcp_tools: list[str], check_tool_listed: bool
) -> None:
    kit = tmp_path / "kit"
    argv = ["--output", str(kit), "--client", "codex", "--data-dir", str(data_dir), *mcp_tools]
    assert agent_kit_main([*argv, "--python-executable", python_exe]) == 0
    config = tomllib.loads((kit / "codex/config.toml").read_text(encoding="utf-8"))
    server = config["mcp_servers"]["pmgs-reference"]
    child = subprocess.Popen(
        [server["command"], *server["args"]],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
        cwd=tmp_path,
    )
    lines: queue.Queue[str] = queue.Queue()
    assert child.stdout is not None
    threading.Thread(target=_reader, args=(child.stdout, lines), daemon=True).start()
    try:
        init = _request(
            child,
            lines,
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "pmgs-agentkit-test", "version": "0"},
                },
            },
        )
        assert init is not None
        assert "result" in init, init
        _request(child, lines, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        listed = _request(child, lines, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        assert listed is not None
        assert "result" in listed, listed
        names = {tool["name"] for tool in listed["result"]["tools"]}
        assert {"lookup_classification", "search_pmgs", "get_pmgs_document"} <= names
        assert ("check_classification_codes" in names) is check_tool_listed
        if not check_tool_listed:  # the contract's server offers these three tools only
            assert names == {"lookup_classification", "search_pmgs", "get_pmgs_document"}
    finally:
        assert child.stdin is not None
        child.stdin.close()
        try:
            child.wait(timeout=10)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait(timeout=10)
        assert child.stderr is not None
        child.stderr.close()
        child.stdout.close()


def test_console_script_lists_agent_kit(agent_env: dict[str, str]) -> None:
    done = run_script("agent-kit", "--help", env=agent_env, timeout=TIMEOUT_SECONDS)
    assert done.returncode == 0, done.stderr
    assert "--output" in done.stdout
    assert "--python-executable" in done.stdout


def test_console_script_installs_the_skill(agent_env: dict[str, str]) -> None:
    done = run_script(
        "install-agent-skill", "--client", "both", "--json", env=agent_env, timeout=TIMEOUT_SECONDS
    )
    assert done.returncode == 0, done.stderr
    assert [s["status"] for s in json.loads(done.stdout)["skills"]] == ["installed"] * 2
    assert (Path(agent_env["CODEX_HOME"]) / "skills/pmgs-reference/SKILL.md").is_file()
