"""Registration runs the client's own CLI: fake ``codex``/``claude`` record what they get."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from pmgs_agentkit import claude_server_json, register_server, server_spec

FAKE = """#!{python}
import json, os, sys
with open(os.environ["FAKE_LOG"], "a", encoding="utf-8") as log:
    log.write(json.dumps([os.path.basename(sys.argv[0]), *sys.argv[1:]]) + "\\n")
if sys.argv[1:3] == ["mcp", "get"]:
    path = os.environ.get("FAKE_GET_OUTPUT", "")
    if path and os.path.exists(path):
        sys.stdout.write(open(path, encoding="utf-8").read())
        sys.exit(0)
    sys.stderr.write("No MCP server found\\n")
    sys.exit(1)
sys.exit(0)
"""


@pytest.fixture
def fake_clients(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, agent_env: dict[str, str]
) -> dict[str, Path]:
    """``codex`` and ``claude`` scripts alone on PATH, logging argv to ``calls.jsonl``."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("codex", "claude"):
        script = bin_dir / name
        script.write_text(FAKE.format(python=sys.executable), encoding="utf-8")
        script.chmod(0o755)
    log = tmp_path / "calls.jsonl"
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.setenv("FAKE_LOG", str(log))
    monkeypatch.setenv("FAKE_GET_OUTPUT", str(tmp_path / "get-output"))
    return {"bin": bin_dir, "log": log, "get": tmp_path / "get-output"}


def _calls(log: Path) -> list[list[str]]:
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


def test_codex_registration_runs_the_exact_argv(
    fake_clients: dict[str, Path], tmp_path: Path, python_exe: str
) -> None:
    root = str(tmp_path / "data")
    echoed: list[str] = []
    result = register_server(
        "codex", data_dir=root, python_executable=python_exe, yes=True, echo=echoed.append
    )
    assert result.status == "registered"
    assert result.argv[0] == str(fake_clients["bin"] / "codex")
    assert _calls(fake_clients["log"]) == [
        ["codex", "mcp", "get", "pmgs-reference", "--json"],
        ["codex", "mcp", "add", "pmgs-reference", "--", python_exe, "-m", "pmgs_mcp",
         "--data-dir", root],
    ]  # fmt: skip
    assert echoed[-1].startswith("$ " + str(fake_clients["bin"] / "codex") + " mcp add")


def test_claude_registration_runs_the_exact_argv(
    fake_clients: dict[str, Path], tmp_path: Path, python_exe: str
) -> None:
    root = str(tmp_path / "data")
    result = register_server("claude", data_dir=root, python_executable=python_exe, yes=True)
    assert result.status == "registered"
    calls = _calls(fake_clients["log"])
    assert calls[0] == ["claude", "mcp", "get", "pmgs-reference"]
    assert calls[1][:6] == ["claude", "mcp", "add-json", "--scope", "user", "pmgs-reference"]
    spec = server_spec(data_dir=root, python_executable=python_exe)
    assert json.loads(calls[1][6]) == claude_server_json(spec)
    assert len(calls) == 2


def test_without_yes_nothing_is_added(
    fake_clients: dict[str, Path], tmp_path: Path, python_exe: str
) -> None:
    result = register_server("codex", data_dir=tmp_path, python_executable=python_exe, yes=False)
    assert result.status == "planned"
    assert [call[2] for call in _calls(fake_clients["log"])] == ["get"]


def test_missing_cli_returns_the_command(
    tmp_path: Path, python_exe: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    result = register_server("claude", data_dir=tmp_path, python_executable=python_exe, yes=True)
    assert result.status == "not_installed"
    assert result.argv[:3] == ("claude", "mcp", "add-json")


def test_identical_codex_entry_is_reused(
    fake_clients: dict[str, Path], tmp_path: Path, python_exe: str
) -> None:
    root = str(tmp_path / "data")
    existing = {
        "name": "pmgs-reference",
        "enabled": True,
        "transport": {"type": "stdio", "command": python_exe,
                      "args": ["-m", "pmgs_mcp", "--data-dir", root]},
    }  # fmt: skip
    fake_clients["get"].write_text(json.dumps(existing), encoding="utf-8")
    result = register_server("codex", data_dir=root, python_executable=python_exe, yes=True)
    assert result.status == "unchanged"
    assert [call[2] for call in _calls(fake_clients["log"])] == ["get"]


def test_different_claude_entry_is_a_conflict(
    fake_clients: dict[str, Path], tmp_path: Path, python_exe: str
) -> None:
    fake_clients["get"].write_text(
        "pmgs-reference:\n  Scope: User config\n  Type: stdio\n  Command: /old/python\n"
        "  Args: -m pmgs_mcp --data-dir /old\n",
        encoding="utf-8",
    )
    result = register_server("claude", data_dir=tmp_path, python_executable=python_exe, yes=True)
    assert result.status == "conflict"
    assert [call[2] for call in _calls(fake_clients["log"])] == ["get"]


def test_identical_claude_entry_is_reused(
    fake_clients: dict[str, Path], tmp_path: Path, python_exe: str
) -> None:
    root = str(tmp_path / "data")
    fake_clients["get"].write_text(
        f"pmgs-reference:\n  Scope: User config\n  Type: stdio\n  Command: {python_exe}\n"
        f"  Args: -m pmgs_mcp --data-dir {root}\n",
        encoding="utf-8",
    )
    result = register_server("claude", data_dir=root, python_executable=python_exe, yes=True)
    assert result.status == "unchanged"


def test_cli_registers_both_in_a_subprocess(
    fake_clients: dict[str, Path], tmp_path: Path, agent_env: dict[str, str]
) -> None:
    env = dict(agent_env)
    env["PATH"] = str(fake_clients["bin"])
    env["FAKE_LOG"] = str(fake_clients["log"])
    root = str(tmp_path / "data")
    done = subprocess.run(
        [sys.executable, "-m", "pmgs_cli", "install-agent-skill", "--client", "both",
         "--register", "--yes", "--data-dir", root, "--python-executable", sys.executable,
         "--json"],
        check=False, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert [r["status"] for r in report["registrations"]] == ["registered", "registered"]
    adds = [call for call in _calls(fake_clients["log"]) if call[2] != "get"]
    assert [call[:3] for call in adds] == [["codex", "mcp", "add"], ["claude", "mcp", "add-json"]]


def test_cli_prints_the_command_a_missing_client_needs(
    tmp_path: Path, agent_env: dict[str, str]
) -> None:
    """Client not on PATH: the text report shows the exact add command, runnable as printed."""
    empty = tmp_path / "empty"
    empty.mkdir()
    env = dict(agent_env)
    env["PATH"] = str(empty)
    root = str(tmp_path / "data")
    done = subprocess.run(
        [sys.executable, "-m", "pmgs_cli", "install-agent-skill", "--client", "codex",
         "--register", "--yes", "--data-dir", root, "--python-executable", sys.executable],
        check=False, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    at = next(n for n, line in enumerate(lines) if line.startswith("codex: server not_installed"))
    command = shlex.split(lines[at + 1])
    assert command[:3] == ["codex", "mcp", "add"]
    assert sys.executable in command
    assert root in " ".join(command)
