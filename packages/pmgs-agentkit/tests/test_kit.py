"""``pmgs agent-kit`` writes a reviewable kit into a new directory only."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from pmgs_agentkit import agent_kit_main, skill_files


def test_kit_for_both_clients(
    tmp_path: Path, python_exe: str, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "kit"
    data = tmp_path / "data"
    argv = ["--output", str(out), "--client", "both", "--data-dir", str(data)]
    code = agent_kit_main([*argv, "--python-executable", python_exe, "--json"])
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    assert report["status"] == "written"
    assert sorted(report["files"]) == [
        "claude/.mcp.json",
        "claude/add-json.json",
        "codex/config.toml",
        "commands.md",
        "commands.sh",
        "skill/pmgs-reference/SKILL.md",
    ]
    codex = tomllib.loads((out / "codex/config.toml").read_text(encoding="utf-8"))
    assert codex["mcp_servers"]["pmgs-reference"]["command"] == python_exe
    server = json.loads((out / "claude/add-json.json").read_text(encoding="utf-8"))
    assert server["args"] == ["-m", "pmgs_mcp", "--data-dir", str(data)]
    project = json.loads((out / "claude/.mcp.json").read_text(encoding="utf-8"))
    assert project == {"mcpServers": {"pmgs-reference": server}}
    assert (out / "skill/pmgs-reference/SKILL.md").read_bytes() == skill_files()["SKILL.md"]
    script = (out / "commands.sh").read_text(encoding="utf-8")
    assert "mcp add pmgs-reference --" in script
    assert "mcp add-json --scope user" in script
    assert report["commands"]["codex"][0] == "codex"


def test_kit_for_one_client(tmp_path: Path, python_exe: str) -> None:
    out = tmp_path / "kit"
    argv = ["--output", str(out), "--client", "codex", "--data-dir", str(tmp_path)]
    assert agent_kit_main([*argv, "--python-executable", python_exe]) == 0
    assert not (out / "claude").exists()
    assert "claude" not in (out / "commands.sh").read_text(encoding="utf-8")


def test_existing_output_is_refused(
    tmp_path: Path, python_exe: str, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "kit"
    out.mkdir()
    (out / "keep.txt").write_text("mine", encoding="utf-8")
    argv = ["--output", str(out), "--data-dir", str(tmp_path), "--python-executable", python_exe]
    assert agent_kit_main([*argv, "--json"]) == 2
    assert json.loads(capsys.readouterr().out)["error"]["code"] == "OUTPUT_EXISTS"
    assert sorted(p.name for p in out.iterdir()) == ["keep.txt"]


def test_unstable_python_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "kit"
    argv = ["--output", str(out), "--data-dir", str(tmp_path), "--python-executable", "python"]
    assert agent_kit_main(argv) == 2
    assert "PYTHON_NOT_ABSOLUTE" in capsys.readouterr().err
    assert not out.exists()
