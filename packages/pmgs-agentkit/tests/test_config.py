"""The generated configurations parse and carry exactly the documented keys.

Documented formats (looked up, not guessed):
- Codex: ``[mcp_servers.<name>]`` in ``~/.codex/config.toml`` with ``command`` and ``args``
  for a stdio server; ``startup_timeout_sec`` (default 10) and ``tool_timeout_sec``
  (default 60) are documented per-server options. ``codex mcp add <name> -- <command>``
  adds one. https://developers.openai.com/codex/mcp
- Claude Code: ``claude mcp add-json <name> '<json>'`` with ``--scope local|project|user``;
  the stdio server object is ``{"type": "stdio", "command": ..., "args": [...]}`` and a
  project's ``.mcp.json`` holds ``{"mcpServers": {<name>: {...}}}``.
  https://code.claude.com/docs/en/mcp
"""

from __future__ import annotations

import json
import os
import stat
import tomllib
from pathlib import Path

import pytest

from pmgs_agentkit import (
    AgentKitError,
    claude_add_json_argv,
    claude_mcp_json,
    claude_server_json,
    codex_add_argv,
    codex_config_toml,
    resolve_python_executable,
    server_spec,
)


def test_codex_toml_has_exactly_the_documented_keys(tmp_path: Path, python_exe: str) -> None:
    spec = server_spec(data_dir=tmp_path / "data", python_executable=python_exe)
    parsed = tomllib.loads(codex_config_toml(spec))
    assert list(parsed) == ["mcp_servers"]
    assert list(parsed["mcp_servers"]) == ["pmgs-reference"]
    table = parsed["mcp_servers"]["pmgs-reference"]
    assert set(table) == {"command", "args", "startup_timeout_sec", "tool_timeout_sec"}
    assert table["command"] == python_exe
    assert table["args"] == ["-m", "pmgs_mcp", "--data-dir", str(tmp_path / "data")]
    assert isinstance(table["startup_timeout_sec"], int)
    assert isinstance(table["tool_timeout_sec"], int)


def test_claude_json_forms(tmp_path: Path, python_exe: str) -> None:
    spec = server_spec(data_dir=tmp_path / "data", python_executable=python_exe)
    server = json.loads(json.dumps(claude_server_json(spec)))
    assert server == {
        "type": "stdio",
        "command": python_exe,
        "args": ["-m", "pmgs_mcp", "--data-dir", str(tmp_path / "data")],
    }
    project = json.loads(json.dumps(claude_mcp_json(spec)))
    assert project == {"mcpServers": {"pmgs-reference": server}}


def test_registration_commands(tmp_path: Path, python_exe: str) -> None:
    root = str(tmp_path / "data")
    spec = server_spec(data_dir=root, python_executable=python_exe)
    assert codex_add_argv(spec) == [
        "codex", "mcp", "add", "pmgs-reference", "--", python_exe, "-m", "pmgs_mcp",
        "--data-dir", root,
    ]  # fmt: skip
    argv = claude_add_json_argv(spec)
    assert argv[:6] == ["claude", "mcp", "add-json", "--scope", "user", "pmgs-reference"]
    assert json.loads(argv[6]) == claude_server_json(spec)


def test_relative_data_dir_is_made_absolute(
    tmp_path: Path, python_exe: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    spec = server_spec(data_dir="data", python_executable=python_exe)
    assert spec.data_dir == str(tmp_path / "data")


@pytest.mark.parametrize(
    ("candidate", "code"),
    [
        ("python", "PYTHON_NOT_ABSOLUTE"),
        ("py", "PYTHON_NOT_ABSOLUTE"),
        ("bin/python", "PYTHON_NOT_ABSOLUTE"),
        ("/nonexistent/bin/python3", "PYTHON_NOT_FOUND"),
    ],
)
def test_unstable_python_is_refused(candidate: str, code: str) -> None:
    with pytest.raises(AgentKitError) as caught:
        resolve_python_executable(candidate)
    assert caught.value.code == code


@pytest.mark.parametrize(
    "cache_dir", [".cache/uv/archive-v0/abc/bin", "AppData/Local/uv/cache/x/bin", "archive-v0/b"]
)
def test_python_in_uv_cache_is_refused(tmp_path: Path, cache_dir: str) -> None:
    fake = tmp_path / cache_dir / "python"
    fake.parent.mkdir(parents=True)
    fake.write_text("#!/bin/sh\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    with pytest.raises(AgentKitError) as caught:
        resolve_python_executable(fake)
    assert caught.value.code == "PYTHON_IN_CACHE"


def test_default_python_is_this_interpreter(python_exe: str) -> None:
    assert resolve_python_executable() == os.path.normpath(python_exe)
